//! `memory_check` and `memory_team_sync` as tool calls: git run by the host as the workflow
//! asks, and the report worded once (the same text `memdir check` and `memdir team` print).

use super::{Asked, ToolAnswer, ToolCall, ToolStep, follow_git};
use crate::base::error::{Error, Result};
use crate::base::fs::Fs;
use crate::base::git::GitOutput;
use crate::context::switches::TeamSync;
use crate::hygiene::check::{self, CheckReport, kebab};
use crate::sync::team::{self, Action, Report, Which};
use serde::Deserialize;
use serde_json::json;

/// `memory_team_sync`'s arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TeamSyncArgs {
    #[serde(default)]
    private: bool,
}

/// Checks the memory against the project and its git.
pub(super) fn check(fs: &dyn Fs, call: &ToolCall) -> Result<ToolStep> {
    let step = check::start(fs, &call.target, call.now_ms)?;
    Ok(follow_git(step, |state| Asked::Check { state }, word_check))
}

pub(super) fn resume_check(fs: &dyn Fs, state: &str, output: GitOutput) -> Result<ToolStep> {
    Ok(follow_git(check::resume(fs, state, output)?, |state| Asked::Check { state }, word_check))
}

/// Syncs team memory (or the private directory) through git.
pub(super) fn team_sync(fs: &dyn Fs, call: &ToolCall, args: TeamSyncArgs) -> Result<ToolStep> {
    if call.target.resolve(fs)?.switches.team_sync == TeamSync::Off {
        return Err(Error::InvalidInput(
            "team sync is off (teamSync in the user's settings, or MEMDIR_TEAM_SYNC)".into(),
        ));
    }
    let input = team::Input {
        target: call.target.clone(),
        which: if args.private { Which::Private } else { Which::Team },
        action: Action::Sync,
        now_ms: call.now_ms,
        host_name: call.host_name.clone(),
        min_interval_ms: None,
    };
    Ok(follow_git(team::start(fs, input)?, |state| Asked::TeamSync { state }, word_team))
}

pub(super) fn resume_team_sync(fs: &dyn Fs, state: &str, output: GitOutput) -> Result<ToolStep> {
    Ok(follow_git(team::resume(fs, state, output)?, |state| Asked::TeamSync { state }, word_team))
}

fn word_check(r: CheckReport) -> ToolAnswer {
    let findings: Vec<_> = r
        .findings
        .iter()
        .map(|f| {
            let mut v = json!({
                "path": f.path, "severity": kebab(f.severity), "kind": kebab(f.kind), "message": f.message,
            });
            if let Some(line) = f.line {
                v["line"] = json!(line);
            }
            v
        })
        .collect();
    let facts = json!({ "memories": r.memories, "findings": findings });
    ToolAnswer { text: r.text, structured: facts.to_string(), is_error: false, session: None }
}

fn word_team(r: Report) -> ToolAnswer {
    let conflicts: Vec<String> = r.conflicts.into_iter().map(|c| c.kept_as.unwrap_or(c.path)).collect();
    let mut facts =
        json!({ "dir": r.dir, "received": r.received, "conflicts": conflicts, "pushed": r.pushed });
    if let Some(subject) = r.committed {
        facts["committed"] = json!(subject);
    }
    ToolAnswer { text: r.text, structured: facts.to_string(), is_error: false, session: None }
}
