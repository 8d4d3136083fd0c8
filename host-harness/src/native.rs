//! The memory core called natively: the same crate the component is built from, on the same
//! [`crate::ConfinedFs`]. The conformance runner checks that both backends agree.

use crate::Core;
use crate::error::Result;
use crate::fs::SharedFs;
use memdir_core::budget::Session;
use memdir_core::budget::{LIMITS, Limits};
use memdir_core::index::LoadedIndex;
use memdir_core::instructions::{Loaded, Request};
use memdir_core::paths::{AgentScope, MemoryLocation};
use memdir_core::prompt::Options;
use memdir_core::recall::{Input, ModelRequest, Outcome, Pending, Skip};
use memdir_core::scan::{MemoryHeader, ScanReport};
use memdir_core::switches::Switches;
use memdir_core::writer::{ForgetReport, SaveReport, SaveRequest};
use memdir_core::{dailylog, extract, index, instructions, manifest, paths, prompt, recall, scan, writer};

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

    fn scan(&mut self, dir: &str) -> Result<ScanReport> {
        Ok(scan::scan(&*self.fs, dir)?)
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

    fn status(&mut self, cwd: &str, env: &[(String, String)]) -> Result<(Switches, MemoryLocation)> {
        Ok(instructions::status(&*self.fs, cwd, env)?)
    }

    fn recall_prepare(&mut self, input: &Input<'_>, session: &mut Session) -> Result<Result<Pending, Skip>> {
        Ok(recall::prepare(&*self.fs, input, session)?)
    }

    fn recall_complete(
        &mut self,
        input: &Input<'_>,
        session: &mut Session,
        pending: &Pending,
        reply: &str,
    ) -> Result<Outcome> {
        Ok(recall::complete(&*self.fs, input, session, pending, reply))
    }

    fn recall_offline(
        &mut self,
        input: &Input<'_>,
        session: &mut Session,
        pending: &Pending,
    ) -> Result<Outcome> {
        Ok(recall::offline(&*self.fs, input, session, pending))
    }

    fn save(&mut self, request: &SaveRequest<'_>) -> Result<SaveReport> {
        Ok(writer::save(&*self.fs, request)?)
    }

    fn forget(&mut self, memory_dir: &str, path: &str) -> Result<ForgetReport> {
        Ok(writer::forget(&*self.fs, memory_dir, path)?)
    }

    fn extract_parse(&mut self, text: &str) -> Result<Vec<extract::Message>> {
        extract::parse_transcript(text).map_err(|m| memdir_core::Error::InvalidInput(m).into())
    }

    fn extract_begin(&mut self, input: &extract::Input<'_>) -> Result<extract::Begun> {
        Ok(extract::begin(&*self.fs, input)?)
    }

    fn extract_read(
        &mut self,
        input: &extract::Input<'_>,
        round: &extract::Round,
        reply: &str,
    ) -> Result<(ModelRequest, Vec<String>, Vec<String>)> {
        Ok(extract::read_round(&*self.fs, input, round, reply))
    }

    fn extract_apply(
        &mut self,
        input: &extract::Input<'_>,
        reply: &str,
    ) -> Result<(Vec<extract::OpReport>, Vec<String>)> {
        Ok(extract::apply(&*self.fs, input, reply))
    }

    fn log_append(
        &mut self,
        memory_dir: &str,
        text: &str,
        now_ms: i64,
        utc_offset_minutes: i32,
    ) -> Result<String> {
        Ok(dailylog::append(&*self.fs, memory_dir, text, now_ms, utc_offset_minutes)?)
    }

    fn dream_plan(&mut self, memory_dir: &str) -> Result<Vec<dailylog::Chunk>> {
        Ok(dailylog::plan(&*self.fs, memory_dir)?)
    }

    fn dream_apply(
        &mut self,
        target: &extract::Target<'_>,
        reply: &str,
    ) -> Result<(Vec<extract::OpReport>, Vec<String>)> {
        Ok(extract::apply_operations(&*self.fs, target, reply, "dream"))
    }

    fn dream_commit(&mut self, memory_dir: &str, logs: &[dailylog::LogPosition]) -> Result<()> {
        Ok(dailylog::commit(&*self.fs, memory_dir, logs)?)
    }
}
