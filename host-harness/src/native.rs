//! The memory core called natively: the same crate the component is built from, on the same
//! [`crate::ConfinedFs`]. The conformance runner checks that both backends agree.

use crate::Core;
use crate::error::Result;
use crate::fs::SharedFs;
use memdir_core::budget::{self, LIMITS, Limits, Totals};
use memdir_core::check::CheckReport;
use memdir_core::dream::DreamResult;
use memdir_core::evidence::GitFacts;
use memdir_core::extract::ExtractResult;
use memdir_core::index::LoadedIndex;
use memdir_core::instructions::{Loaded, Request};
use memdir_core::model::{Reply, Step};
use memdir_core::paths::{AgentScope, MemoryLocation};
use memdir_core::pause::{self, Pause};
use memdir_core::pending::{self, Proposal};
use memdir_core::prompt::Options;
use memdir_core::recall::RecallResult;
use memdir_core::scan::{MemoryHeader, ScanReport};
use memdir_core::switches::Switches;
use memdir_core::target::Target;
use memdir_core::team::{GitOutput, TeamStep};
use memdir_core::trash::{self, Trashed};
use memdir_core::writer::{ForgetReport, Rebuilt, Save, SaveReport};
use memdir_core::{
    dailylog, dream, extract, index, instructions, manifest, paths, prompt, recall, scan, team, writer,
};

/// The core as a native library.
pub struct NativeCore {
    fs: SharedFs,
}

impl NativeCore {
    /// A native core whose filesystem is `fs` (usually a [`crate::ConfinedFs`]).
    pub fn new(fs: impl memdir_core::Fs + Send + Sync + 'static) -> Self {
        Self { fs: std::sync::Arc::new(fs) }
    }
}

impl Core for NativeCore {
    fn backend(&self) -> &'static str {
        "native"
    }

    fn scan(&mut self, dir: &str, now_ms: i64) -> Result<ScanReport> {
        Ok(scan::scan(&*self.fs, dir, now_ms)?)
    }

    fn manifest(&mut self, headers: &[MemoryHeader]) -> Result<String> {
        Ok(manifest::format(headers))
    }

    fn load_index(&mut self, path: &str) -> Result<LoadedIndex> {
        Ok(index::load(&*self.fs, path)?)
    }

    fn truncate_index(&mut self, content: &str) -> Result<LoadedIndex> {
        Ok(index::truncate(content))
    }

    fn locate(&mut self, cwd: &str, env: &[(String, String)]) -> Result<MemoryLocation> {
        Ok(paths::memory_location(&*self.fs, cwd, env)?)
    }

    fn limits(&mut self) -> Result<Limits> {
        Ok(LIMITS)
    }

    fn session_totals(&mut self, session: &str) -> Result<Totals> {
        Ok(budget::totals(session)?)
    }

    fn agent_dir(
        &mut self,
        cwd: &str,
        env: &[(String, String)],
        agent: &str,
        scope: AgentScope,
    ) -> Result<String> {
        Ok(paths::agent_memory_dir(&*self.fs, cwd, env, agent, scope)?)
    }

    fn load_instructions(&mut self, request: &Request<'_>) -> Result<Loaded> {
        Ok(instructions::load(&*self.fs, request)?)
    }

    fn prompt(&mut self, request: &Request<'_>, options: Options) -> Result<String> {
        Ok(prompt::render(&instructions::load(&*self.fs, request)?, options))
    }

    fn approve_external(&mut self, cwd: &str, env: &[(String, String)]) -> Result<String> {
        Ok(memdir_core::approval::approve(&*self.fs, cwd, env)?)
    }

    fn status(&mut self, cwd: &str, env: &[(String, String)]) -> Result<(Switches, MemoryLocation)> {
        Ok(instructions::status(&*self.fs, cwd, env)?)
    }

    fn recall_start(&mut self, input: &recall::Input) -> Result<Step<RecallResult>> {
        Ok(recall::start(&*self.fs, input)?)
    }

    fn recall_resume(&mut self, state: &str, reply: Reply) -> Result<Step<RecallResult>> {
        Ok(recall::resume(&*self.fs, state, reply)?)
    }

    fn save(&mut self, request: &Save<'_>) -> Result<SaveReport> {
        Ok(writer::save(&*self.fs, request)?)
    }

    fn forget(&mut self, target: &Target, path: &str) -> Result<ForgetReport> {
        Ok(writer::forget(&*self.fs, target, path)?)
    }

    fn rebuild_index(&mut self, target: &Target, now_ms: i64) -> Result<Option<Rebuilt>> {
        Ok(writer::rebuild_index(&*self.fs, target, now_ms)?)
    }

    fn check(&mut self, target: &Target, now_ms: i64, git: &GitFacts) -> Result<CheckReport> {
        Ok(memdir_core::check::check(&*self.fs, target, now_ms, git)?)
    }

    fn check_fix(&mut self, target: &Target, now_ms: i64) -> Result<Vec<String>> {
        Ok(memdir_core::check::fix(&*self.fs, target, now_ms)?)
    }

    fn trash(&mut self, target: &Target) -> Result<Vec<Trashed>> {
        Ok(trash::list_for(&*self.fs, target)?)
    }

    fn restore(&mut self, target: &Target, id: &str, now_ms: i64) -> Result<Trashed> {
        Ok(trash::restore_for(&*self.fs, target, id, now_ms)?)
    }

    fn pending(&mut self, target: &Target) -> Result<Vec<Proposal>> {
        Ok(pending::list_for(&*self.fs, target)?)
    }

    fn accept(
        &mut self,
        target: &Target,
        id: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<Vec<Proposal>> {
        Ok(pending::accept_for(&*self.fs, target, id, now_ms, utc_offset_minutes)?)
    }

    fn reject(&mut self, target: &Target, id: &str) -> Result<Vec<Proposal>> {
        Ok(pending::reject_for(&*self.fs, target, id)?)
    }

    fn pause(&mut self, target: &Target, now_ms: i64, until_ms: Option<i64>) -> Result<Pause> {
        Ok(pause::pause_for(&*self.fs, target, now_ms, until_ms)?)
    }

    fn resume(&mut self, target: &Target, now_ms: i64) -> Result<bool> {
        Ok(pause::resume_for(&*self.fs, target, now_ms)?)
    }

    fn paused(&mut self, target: &Target, now_ms: i64) -> Result<Option<Pause>> {
        Ok(pause::state_for(&*self.fs, target, now_ms)?)
    }

    fn extract_parse(&mut self, text: &str) -> Result<Vec<extract::Message>> {
        extract::parse_transcript(text).map_err(|m| memdir_core::Error::InvalidInput(m).into())
    }

    fn extract_start(&mut self, input: &extract::Input) -> Result<Step<ExtractResult>> {
        Ok(extract::start(&*self.fs, input)?)
    }

    fn extract_resume(&mut self, state: &str, reply: Reply) -> Result<Step<ExtractResult>> {
        Ok(extract::resume(&*self.fs, state, reply)?)
    }

    fn log_append(
        &mut self,
        target: &Target,
        text: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<String> {
        Ok(dailylog::append_to(&*self.fs, target, text, now_ms, utc_offset_minutes)?)
    }

    fn dream_start(&mut self, input: &dream::Input) -> Result<Step<DreamResult>> {
        Ok(dream::start(&*self.fs, input)?)
    }

    fn dream_resume(&mut self, state: &str, reply: Reply) -> Result<Step<DreamResult>> {
        Ok(dream::resume(&*self.fs, state, reply)?)
    }

    fn team_start(&mut self, input: &team::Input) -> Result<TeamStep> {
        Ok(team::start(&*self.fs, input.clone())?)
    }

    fn team_resume(&mut self, state: &str, output: GitOutput) -> Result<TeamStep> {
        Ok(team::resume(&*self.fs, state, output)?)
    }

    fn merge_index(&mut self, base: &str, ours: &str, theirs: &str) -> Result<String> {
        Ok(index::merge(base, ours, theirs))
    }
}
