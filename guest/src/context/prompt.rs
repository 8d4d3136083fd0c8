//! The memory part of the system prompt (R12.1): the instruction files in load order, then the
//! guidance that teaches the agent its memory, then MEMORY.md as loaded (R6.2, R7.1).

use crate::context::instructions::{FileType, InstructionFile, Loaded};
use crate::format::wrapper;

/// How to render the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Options {
    /// Teach the two-step save (file, then MEMORY.md line); `false` for hosts that skip the index.
    pub index_step: bool,
    /// The user asked not to use memory for this request (R4.3).
    pub ignore_memory: bool,
    /// Render the instruction files before the memory section; `false` for an agent that reads
    /// its own (a lifecycle hook's session start). Older call scripts lack it: true.
    #[serde(default = "yes")]
    pub instruction_files: bool,
}

fn yes() -> bool {
    true
}

impl Default for Options {
    fn default() -> Self {
        Options { index_step: true, ignore_memory: false, instruction_files: true }
    }
}

/// What the agent is told when the user asked it not to use memory.
pub const IGNORE_MEMORY: &str = "# Memory\n\nThe user asked you not to use memory for this request. Do not apply, \
     cite, compare against or mention anything remembered.\n";

/// The guidance section: the four types, what not to save, how to save, how to use memories.
pub fn guidance(memory_dir: &str, index_step: bool) -> String {
    guidance_for(memory_dir, if index_step { SaveStep::FileAndIndex } else { SaveStep::FileOnly })
}

/// How the guidance teaches saving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveStep {
    /// Write the file, then its MEMORY.md line.
    FileAndIndex,
    /// Write the file; the host keeps no index.
    FileOnly,
    /// Daily-log mode (R9.4): append to today's log; a dream builds files and index later.
    DailyLog,
}

/// The guidance section for one way of saving.
pub fn guidance_for(memory_dir: &str, step: SaveStep) -> String {
    let mut text = format!(
        "# Memory\n\n\
You have a persistent memory in `{memory_dir}/`: Markdown files that outlive this conversation. \
Keep there what the code and git cannot tell a future conversation: who the user is, how they \
want you to work, what the project is in the middle of, and where things live outside the \
repository.\n\n\
## Types\n\
- **user**: the user's role, goals, experience and preferences. Save them when you learn them; \
use them to pitch explanations and choices at this person. Nothing judgemental, nothing \
unrelated to the work.\n\
- **feedback**: how the user wants you to work, both corrections (\"don't do X\") and approaches \
they confirmed (\"yes, exactly\"); confirmations are easy to miss. Save the reason too, so you \
can judge edge cases; use them so the user never repeats themselves.\n\
- **project**: ongoing work, decisions, who does what and why, deadlines. Write absolute dates \
(\"Thursday\" → 2026-03-05). Use them to understand why a request is made; they go stale fastest.\n\
- **reference**: where information lives outside the repository (dashboards, trackers, channels) \
and what each is for. Use them when the user mentions an outside system.\n\n\
A feedback or project memory states the rule or fact, then a `**Why:**` line, then a \
`**How to apply:**` line.\n\n\
## What not to save\n\
Even when asked: code patterns, conventions, architecture or file layout (read the code); git \
history or recent changes (ask git); debugging recipes (the fix is in the code); anything \
already in an instruction file; the state of the current task; secrets of any kind.\n\n\
## How to save\n"
    );
    let file_step = "Keep one fact per file, a Markdown file named after the memory (e.g. \
`testing-real-db.md`), that starts with:\n\
```\n---\nname: testing-real-db\ndescription: one sentence that says when this memory is relevant\n\
metadata:\n  type: user | feedback | project | reference\n---\n```\n\
The name is a short kebab-case slug. In the body, link a related memory by its name, \
`[[release-freeze]]`; a link to a memory not written yet is fine and marks something worth \
writing later.\n";
    if step == SaveStep::DailyLog {
        text.push_str(
            "Append what you learn to today's log, `logs/YYYY/MM/YYYY-MM-DD.md` in the memory \
directory (`memdir log` does it): one short entry per fact, with the context needed to understand \
it later and absolute dates. Do not write topic files or MEMORY.md yourself: a later distillation \
folds the logs into them.\n",
        );
    } else if step == SaveStep::FileAndIndex {
        text.push_str("1. ");
        text.push_str(file_step);
        text.push_str(
            "2. Then add one line for it to `MEMORY.md`: `- [name](file.md) — one-line hook`, under \
~150 characters. MEMORY.md is an index, not a memory: no frontmatter, never memory content. It is \
always loaded and cut after 200 lines, so keep it short.\n",
        );
    } else {
        text.push_str(file_step);
    }
    if step != SaveStep::DailyLog {
        text.push_str(
            "\nOrganise by subject, not by date. Before writing, look for an existing memory to \
update instead of adding a duplicate. Keep name, description and type in step with the content; \
update or delete memories that turn out to be wrong. Older memories may have a top-level \
`type:` and `{type}_{topic}.md` names; read them the same way, and keep their shape when you \
edit them.\n",
        );
    }
    text.push_str(
        "\n## Using memories\n\
- Read a memory when it seems relevant or the user refers to earlier work.\n\
- A memory records what was true when it was written. One that names a file, function or flag \
is a claim about the past: check that it still exists before relying on it or recommending it.\n\
- A recalled memory may carry a `Checked now:` line: what it cites, looked up just now. \
\"still there\" is a fact; \"not found\" or \"changed\" means the memory may be out of date: \
verify against the code, then update or delete the memory.\n\
- If the user says to ignore memory or not to use it, do not apply, cite, compare against or \
mention anything remembered.\n",
    );
    // The memory directory's path is the user's, and may hold anything.
    wrapper::neutralize(&text)
}

/// What the agent is told of a memory shared beyond this project (issue 28). The terminal
/// agent does not read these directories, so this is how the agents memdir serves learn of them.
fn shared_guidance(shared: &crate::context::scope::Shared, group: Option<&str>) -> String {
    let dir = &shared.dir;
    match (shared.scope, group) {
        (crate::context::scope::Scope::Group, Some(name)) => format!(
            "\n## Memory shared by the group \"{name}\"\n\n\
`{dir}/` is shared by this project and the user's other projects of the group \"{name}\"; its \
memories are recalled here too. Save there what holds for every project of the group: the save \
tool's `scope` \"group\" (`memdir save --scope group`).\n"
        ),
        _ => format!(
            "\n## Memory for every project\n\n\
`{dir}/` is the user's memory for all their projects; its memories are recalled here too. Save \
there what holds whatever the project (who the user is, how they want work done everywhere): the \
save tool's `scope` \"user\" (`memdir save --scope user`). A **user** memory goes there unless \
you say otherwise. What is about this project stays in this project's memory.\n"
        ),
    }
}

/// One file as the model reads it: its path and suffix, then its content. The prompt travels
/// inside the agent's wrapper, so neither a folder name nor a repository's instruction file can
/// close it (issue 24, defect 5).
pub fn render_file(file: &InstructionFile) -> String {
    let text =
        format!("Contents of {} {}:\n\n{}\n\n", file.path, file.file_type.suffix(), file.content.trim_end());
    wrapper::neutralize(&text)
}

/// The instruction files (not the memory indexes, which the memory section carries).
pub fn render_instructions(loaded: &Loaded) -> String {
    loaded.files.iter().filter(|f| !is_index(f)).map(render_file).collect()
}

fn is_index(file: &InstructionFile) -> bool {
    matches!(file.file_type, FileType::AutoMem | FileType::TeamMem | FileType::UserMem | FileType::GroupMem)
}

/// The whole memory part of a system prompt for what [`crate::context::instructions::load`] found.
pub fn render(loaded: &Loaded, options: Options) -> String {
    let mut out = if options.instruction_files { render_instructions(loaded) } else { String::new() };
    if !loaded.switches.auto_memory {
        return out;
    }
    if options.ignore_memory {
        out.push_str(IGNORE_MEMORY);
        return out;
    }
    let step = match (loaded.switches.daily_log, options.index_step) {
        (true, _) => SaveStep::DailyLog,
        (false, true) => SaveStep::FileAndIndex,
        (false, false) => SaveStep::FileOnly,
    };
    out.push_str(&guidance_for(&loaded.location.memory_dir, step));
    for shared in crate::context::scope::shared(&loaded.location) {
        out.push_str(&shared_guidance(&shared, loaded.location.group.as_ref().map(|g| g.name.as_str())));
    }
    for file in loaded.files.iter().filter(|f| is_index(f)) {
        out.push_str(&format!(
            "\n## Contents of {} {}:\n\n{}\n",
            file.path,
            file.file_type.suffix(),
            file.content
        ));
    }
    // The memory directory's path (the guidance names it) and the indexes' paths and lines.
    wrapper::neutralize(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guidance_stays_compact() {
        let with_index = guidance("/home/ana/.claude/projects/-home-ana-web/memory", true);
        let without = guidance("/home/ana/.claude/projects/-home-ana-web/memory", false);
        assert!(with_index.len() < 4_500, "{} bytes", with_index.len());
        assert!(without.len() < with_index.len());
        assert!(!without.contains("MEMORY.md"));
        for must in [
            "**user**",
            "**feedback**",
            "**project**",
            "**reference**",
            "What not to save",
            "check that it still exists",
            "ignore memory",
        ] {
            assert!(with_index.contains(must), "{must}");
        }
    }
}
