//! The workbench's JSON answers (issue 48): each one the core's operations, as the CLI's own
//! commands call them. A memory directory the page names must be one this machine's memory
//! lives in (the list `overview` gives); a memory must be one the core's scan lists there.

use crate::context::{Context, Failure};
use crate::ops::target::Target as OpsTarget;
use crate::ops::whole_tree;
use memdir_harness::contract::scan::MemoryHeader;
use memdir_harness::contract::target::Target;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The receipts a page shows at most.
const RECEIPTS: u32 = 200;
/// The commits of a team memory a page shows at most.
const TEAM_LOG: u32 = 20;
/// The writes a page shows at most.
const TIMELINE: u32 = 100;
/// Memories per page of the list.
const PAGE: usize = 100;

/// The workbench's state: the project it opened on, and the memory directories found when
/// the page last asked for the overview.
pub struct Workbench<'c> {
    ctx: &'c Context,
    cwd: String,
    read_only: bool,
    dirs: std::cell::RefCell<Option<Vec<Dir>>>,
}

/// A memory directory, whose it is, and what to call it.
type Dir = (String, &'static str, String);

/// A request's parameters.
type Params = [(String, String)];

impl<'c> Workbench<'c> {
    pub fn new(ctx: &'c Context, cwd: String, read_only: bool) -> Self {
        Workbench { ctx, cwd, read_only, dirs: Default::default() }
    }

    /// Answers `METHOD /api/NAME`: the status and the JSON.
    pub fn call(&self, method: &str, name: &str, params: &Params, body: &str) -> (u16, String) {
        let posted: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        let param = |key: &str| {
            params
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .or_else(|| posted.get(key).and_then(Value::as_str).map(str::to_string))
        };
        let result = match (method, name) {
            ("GET", "overview") => self.overview(),
            ("GET", "memories") => self.dir(&param("dir")).and_then(|dir| {
                let offset = param("offset").and_then(|o| o.parse().ok()).unwrap_or(0);
                self.memories(&dir, offset, param("filter").unwrap_or_default().as_str())
            }),
            ("GET", "memory") => {
                self.dir(&param("dir")).and_then(|dir| self.memory(&dir, &param("path").unwrap_or_default()))
            }
            ("GET", "check") => {
                self.dir(&param("dir")).and_then(|dir| self.check(&dir, &param("path").unwrap_or_default()))
            }
            ("GET", "search") => {
                self.dir(&param("dir")).and_then(|dir| self.search(&dir, &param("q").unwrap_or_default()))
            }
            ("GET", "receipts") => self.dir(&param("dir")).and_then(|dir| self.receipts(&dir)),
            ("GET", "team-log") => self
                .dir(&param("dir"))
                .and_then(|dir| self.team_log(&dir, &param("path").unwrap_or_default())),
            ("GET", "timeline") => {
                self.dir(&param("dir")).and_then(|dir| self.timeline(&dir, param("path").as_deref()))
            }
            ("GET", "pending") => self.dir(&param("dir")).and_then(|dir| self.pending(&dir)),
            ("POST", "review") => self.dir(&param("dir")).and_then(|dir| {
                let accept = posted.get("accept").and_then(Value::as_bool).unwrap_or(false);
                self.review(&dir, &param("id").unwrap_or_default(), accept)
            }),
            ("POST", "retire") => self.dir(&param("dir")).and_then(|dir| self.retire(&dir)),
            ("POST", "pause") => self.dir(&param("dir")).and_then(|dir| self.pause(&dir, true)),
            ("POST", "resume") => self.dir(&param("dir")).and_then(|dir| self.pause(&dir, false)),
            ("POST", "edit") => self.dir(&param("dir")).and_then(|dir| {
                self.edit(&dir, &param("path").unwrap_or_default(), &param("body").unwrap_or_default())
            }),
            ("POST", "forget") => {
                self.dir(&param("dir")).and_then(|dir| self.forget(&dir, &param("path").unwrap_or_default()))
            }
            ("POST", "restore") => {
                self.dir(&param("dir")).and_then(|dir| self.restore(&dir, &param("id").unwrap_or_default()))
            }
            _ => Err(Failure { status: 4, message: format!("no {method} /api/{name}") }),
        };
        match result {
            Ok(value) => (200, value.to_string()),
            Err(failure) => {
                let status = match failure.status {
                    4 => 404,
                    2 => 400,
                    _ => 500,
                };
                (status, json!({ "error": failure.message }).to_string())
            }
        }
    }

    /// The project's memory location and status, as `memdir status --json` gives them.
    fn status(&self) -> Result<Value, Failure> {
        self.status_of(&self.cwd)
    }

    /// [`Workbench::status`] of the project at `cwd`.
    fn status_of(&self, cwd: &str) -> Result<Value, Failure> {
        let args = crate::commands::status::Args { cwd: Some(PathBuf::from(cwd)), json: true };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        crate::commands::status::run(self.ctx, args, &mut out, &mut err)?;
        serde_json::from_slice(&out).map_err(|e| Failure::input(format!("status: {e}")))
    }

    /// Every memory directory on this machine: this project's, the user-wide and group ones it
    /// recalls, and every other project's under the terminal agent's `projects/`.
    fn dirs(&self) -> Result<Vec<Dir>, Failure> {
        if let Some(dirs) = self.dirs.borrow().as_ref() {
            return Ok(dirs.clone());
        }
        let dirs = self.find_dirs()?;
        *self.dirs.borrow_mut() = Some(dirs.clone());
        Ok(dirs)
    }

    fn find_dirs(&self) -> Result<Vec<Dir>, Failure> {
        let status = self.status()?;
        let own = status["memory_dir"].as_str().unwrap_or_default().to_string();
        let mut dirs = vec![(own.clone(), "this project", self.cwd.clone())];
        if let Some(user) = status["user_memory_dir"].as_str() {
            dirs.push((user.to_string(), "user-wide", "memory recalled in every project".into()));
        }
        if let Some(group) = status["group"]["dir"].as_str() {
            let name = status["group"]["name"].as_str().unwrap_or("group");
            dirs.push((group.to_string(), "group", format!("the group \"{name}\"")));
        }
        let config = match self.ctx.var("CLAUDE_CONFIG_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(self.ctx.var("HOME").unwrap_or("/")).join(".claude"),
        };
        let mut others: Vec<_> = std::fs::read_dir(config.join("projects"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path().join("memory"))
            .filter(|p| p.is_dir())
            .filter_map(|p| p.to_str().map(str::to_string))
            .filter(|p| !dirs.iter().any(|(d, _, _)| d == p))
            .collect();
        others.sort();
        let mut core = self.ctx.core(whole_tree()?)?;
        for dir in others {
            let slug =
                Path::new(&dir).parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()).unwrap_or("");
            // The project, when the core finds the directory the slug spells; else the slug.
            let label = core.project_of(slug)?.unwrap_or_else(|| slug.to_string());
            dirs.push((dir, "another project", label));
        }
        Ok(dirs)
    }

    /// `dir` when it is one of [`Workbench::dirs`].
    fn dir(&self, dir: &Option<String>) -> Result<String, Failure> {
        let dir = dir.clone().unwrap_or_default();
        if self.dirs()?.iter().any(|(d, _, _)| *d == dir) {
            Ok(dir)
        } else {
            Err(Failure::input(format!("{dir:?} is not a memory directory on this machine")))
        }
    }

    fn target(&self, dir: &str) -> Target {
        Target {
            cwd: self.cwd.clone(),
            env: self.ctx.env().to_vec(),
            memory_dir: Some(dir.to_string()),
            by: Some(self.ctx.by()),
        }
    }

    /// A core granted the writer's plan for `dir`.
    fn writer(
        &self,
        dir: &str,
        shared: bool,
    ) -> Result<(Target, Box<dyn memdir_harness::Core + 'c>), Failure> {
        let ops = OpsTarget { cwd: Some(PathBuf::from(&self.cwd)), memory_dir: Some(PathBuf::from(dir)) };
        let (target, _, core) = if shared { ops.open_to_share(self.ctx)? } else { ops.open(self.ctx)? };
        Ok((target, core))
    }

    fn headers(&self, dir: &str) -> Result<Vec<MemoryHeader>, Failure> {
        if !Path::new(dir).is_dir() {
            return Ok(Vec::new());
        }
        let mut headers = self.ctx.core(whole_tree()?)?.scan(dir, self.ctx.now_ms())?.headers;
        headers.sort_by(|a, b| b.mtime_ms.cmp(&a.mtime_ms).then(a.path.cmp(&b.path)));
        Ok(headers)
    }

    fn overview(&self) -> Result<Value, Failure> {
        // A project that gained memory since shows up when the page is opened again.
        *self.dirs.borrow_mut() = None;
        let status = self.status()?;
        let mut dirs = Vec::new();
        for (dir, kind, about) in self.dirs()? {
            let headers = self.headers(&dir)?;
            let last = headers.iter().map(|h| h.mtime_ms).max();
            let team = headers.iter().filter(|h| h.path.starts_with("team/")).count();
            // Another project's switches, when the project found for it keeps its memory here.
            let switches = match kind {
                "this project" => Some(status.clone()),
                "another project" if Path::new(&about).is_absolute() => {
                    self.status_of(&about).ok().filter(|s| s["memory_dir"].as_str() == Some(dir.as_str()))
                }
                _ => None,
            };
            dirs.push(json!({
                "dir": dir, "kind": kind, "about": about, "count": headers.len(),
                "team": team, "last_change_ms": last, "status": switches,
            }));
        }
        Ok(json!({ "cwd": self.cwd, "read_only": self.read_only, "status": status, "dirs": dirs }))
    }

    fn memories(&self, dir: &str, offset: usize, filter: &str) -> Result<Value, Failure> {
        let filter = filter.to_lowercase();
        let headers: Vec<MemoryHeader> = self
            .headers(dir)?
            .into_iter()
            .filter(|h| {
                filter.is_empty()
                    || [Some(&h.path), h.name.as_ref(), h.description.as_ref()]
                        .iter()
                        .flatten()
                        .any(|t| t.to_lowercase().contains(&filter))
            })
            .collect();
        let usage = self.ctx.core(whole_tree()?)?.hook_receipts(&self.target(dir), 0)?.usage;
        let page: Vec<Value> = headers
            .iter()
            .skip(offset)
            .take(PAGE)
            .map(|h| {
                let used = usage.iter().find(|u| u.path == h.path);
                json!({
                    "path": h.path, "name": h.name, "description": h.description, "type": h.memory_type,
                    "mtime_ms": h.mtime_ms, "diagnostics": h.diagnostics.len(),
                    "used": used.map(|u| u.count).unwrap_or(0), "last_used_ms": used.map(|u| u.last_ms),
                })
            })
            .collect();
        Ok(json!({ "total": headers.len(), "offset": offset, "page": PAGE, "memories": page }))
    }

    fn memory(&self, dir: &str, path: &str) -> Result<Value, Failure> {
        let headers = self.headers(dir)?;
        let header = headers
            .iter()
            .find(|h| h.path == path)
            .ok_or_else(|| Failure::input(format!("{path:?} is not a memory in {dir}")))?;
        let text = std::fs::read_to_string(Path::new(dir).join(path))
            .map_err(|e| Failure::input(format!("{path}: {e}")))?;
        let (frontmatter, body) = split_frontmatter(&text);
        let trash = self.ctx.core(whole_tree()?)?.trash(&self.target(dir))?;
        let history: Vec<Value> = trash
            .iter()
            .filter(|t| t.path == path)
            .map(|t| {
                let old =
                    std::fs::read_to_string(Path::new(dir).join(".trash").join(&t.id)).unwrap_or_default();
                let mut diff = Vec::new();
                let _ = crate::ops::diff::lines(&old, &text, &mut diff);
                json!({ "id": t.id, "trashed_ms": t.trashed_ms, "diff": String::from_utf8_lossy(&diff) })
            })
            .collect();
        let usage = self.ctx.core(whole_tree()?)?.hook_receipts(&self.target(dir), 0)?.usage;
        let used = usage.iter().find(|u| u.path == path);
        Ok(json!({
            "path": path, "name": header.name, "description": header.description, "type": header.memory_type,
            "mtime_ms": header.mtime_ms, "frontmatter": frontmatter, "body": body,
            "html": super::markdown::render(body),
            "links": header.links, "backlinks": header.backlinks, "diagnostics": header.diagnostics,
            "history": history,
            "used": used.map(|u| u.count).unwrap_or(0), "last_used_ms": used.map(|u| u.last_ms),
        }))
    }

    /// `check` over the memory directory, run now, and what it found in `path` (the whole
    /// directory is checked: duplicates and contradictions are found between memories).
    fn check(&self, dir: &str, path: &str) -> Result<Value, Failure> {
        let report = crate::ops::check::inspect(self.ctx, &self.cwd, Some(dir.to_string()))?;
        let findings: Vec<Value> = report
            .findings
            .iter()
            .filter(|f| f.path == path)
            .map(|f| json!({ "severity": f.severity, "kind": f.kind, "message": f.message, "line": f.line }))
            .collect();
        Ok(json!({ "findings": findings, "checked_ms": self.ctx.now_ms(), "memories": report.memories }))
    }

    fn search(&self, dir: &str, q: &str) -> Result<Value, Failure> {
        if q.trim().is_empty() {
            return Ok(json!({ "selected": [], "attachments": [], "diagnostics": [] }));
        }
        let query = crate::ops::recall::Query {
            cwd: &self.cwd,
            memory_dir: Some(dir.to_string()),
            query: q,
            recent_tools: &[],
            already_read: &[],
            ignore_memory: false,
            embeddings: None,
        };
        // The model and the embeddings recall would use in a hook ($MEMDIR_LLM,
        // $MEMDIR_EMBEDDINGS), so the page shows the choice an agent gets.
        let mut model = crate::ops::recall::recall_model(self.ctx, None)?;
        let label = model.as_ref().map(|m| m.label());
        let meaning = self.ctx.var("MEMDIR_EMBEDDINGS").filter(|s| !s.is_empty() && *s != "off");
        let model = model.as_deref_mut().map(|m| m as &mut dyn memdir_harness::llm::Model);
        let result = crate::ops::recall::recall(self.ctx, &query, String::new(), model)?;
        let attachments: Vec<Value> = result
            .attachments
            .iter()
            .map(|a| json!({ "path": a.path, "whole": a.whole, "bytes": a.bytes, "freshness": a.freshness, "stale": a.stale, "text": a.text, "matched": a.matched }))
            .collect();
        Ok(json!({
            "selector": result.selector, "model": label, "embeddings": meaning,
            "selected": result.selected, "attachments": attachments,
            "diagnostics": result.diagnostics, "skipped": result.skipped,
        }))
    }

    fn receipts(&self, dir: &str) -> Result<Value, Failure> {
        let receipts = self.ctx.core(whole_tree()?)?.hook_receipts(&self.target(dir), RECEIPTS)?;
        serde_json::to_value(receipts).map_err(|e| Failure::input(e.to_string()))
    }

    /// The writes to the memory directory (or to one memory), newest first, who asked for
    /// each, and each one's diff: from the version it replaced (kept in the trash) to the
    /// version the next change replaced, or the file as it is now.
    fn timeline(&self, dir: &str, path: Option<&str>) -> Result<Value, Failure> {
        let written = self.ctx.core(whole_tree()?)?.timeline(&self.target(dir), path, TIMELINE)?;
        let read = |rel: &str| std::fs::read_to_string(Path::new(dir).join(rel)).unwrap_or_default();
        // A version kept in the trash: team memory keeps its own. An id is a file name there;
        // a log line naming anything else (edited by hand) shows no diff.
        let kept = |path: &str, id: &str| match path.strip_prefix("team/") {
            _ if id.contains('/') || id.contains('\\') || id.starts_with('.') => String::new(),
            Some(_) => read(&format!("team/.trash/{id}")),
            None => read(&format!(".trash/{id}")),
        };
        let entries: Vec<Value> = written
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let before = w.before.as_deref().map(|id| kept(&w.path, id)).unwrap_or_default();
                // The newer change to the same memory that kept a version kept this one's result.
                let newer = written[..i].iter().rev().find(|n| n.path == w.path && n.before.is_some());
                let after = match (w.action.as_str(), newer) {
                    ("removed", _) => String::new(),
                    (_, Some(n)) => kept(&n.path, n.before.as_deref().unwrap_or_default()),
                    (_, None) => read(&w.path),
                };
                let mut diff = Vec::new();
                let _ = crate::ops::diff::lines(&before, &after, &mut diff);
                json!({
                    "at_ms": w.at_ms, "path": w.path, "action": w.action, "by": w.by, "note": w.note,
                    "before": w.before, "diff": String::from_utf8_lossy(&diff),
                })
            })
            .collect();
        Ok(json!({ "written": entries }))
    }

    /// A team memory's git log, with diffs: who committed what, on any machine. git runs as
    /// team sync's own status does, with no network.
    fn team_log(&self, dir: &str, path: &str) -> Result<Value, Failure> {
        use memdir_harness::contract::team::{Action, LogOptions, Which};
        let Some(file) = path.strip_prefix("team/") else {
            return Err(Failure::input(format!("{path:?} is not team memory")));
        };
        let ops = OpsTarget { cwd: Some(PathBuf::from(&self.cwd)), memory_dir: Some(PathBuf::from(dir)) };
        let log = Action::Log(LogOptions { path: Some(file.to_string()), limit: TEAM_LOG });
        let report = crate::ops::team::drive(self.ctx, &ops, Which::Team, log, None)?;
        Ok(json!({ "commits": report.history }))
    }

    fn pending(&self, dir: &str) -> Result<Value, Failure> {
        let proposals = self.ctx.core(whole_tree()?)?.pending(&self.target(dir))?;
        let paused = self.ctx.core(whole_tree()?)?.paused(&self.target(dir), self.ctx.now_ms())?;
        Ok(json!({ "proposals": proposals, "paused": paused }))
    }

    fn review(&self, dir: &str, id: &str, accept: bool) -> Result<Value, Failure> {
        let (target, mut core) = self.writer(dir, false)?;
        let left = if accept {
            core.accept(&target, id, self.ctx.now_ms(), self.ctx.utc_offset(None))?
        } else {
            core.reject(&target, id)?
        };
        Ok(json!({ "proposals": left }))
    }

    /// Proposes retiring what no agent was given in 90 days (fading), into the review queue.
    fn retire(&self, dir: &str) -> Result<Value, Failure> {
        let (target, mut core) = self.writer(dir, false)?;
        let proposed = core.propose_retiring(&target, self.ctx.now_ms())?;
        Ok(json!({ "proposed": proposed, "proposals": core.pending(&target)? }))
    }

    fn pause(&self, dir: &str, pause: bool) -> Result<Value, Failure> {
        let (target, mut core) = self.writer(dir, false)?;
        if pause {
            core.pause(&target, self.ctx.now_ms(), None)?;
        } else {
            core.resume(&target, self.ctx.now_ms())?;
        }
        Ok(json!({ "paused": core.paused(&target, self.ctx.now_ms())? }))
    }

    fn edit(&self, dir: &str, path: &str, body: &str) -> Result<Value, Failure> {
        let headers = self.headers(dir)?;
        let header = headers
            .iter()
            .find(|h| h.path == path)
            .ok_or_else(|| Failure::input(format!("{path:?} is not a memory in {dir}")))?;
        let (Some(memory_type), Some(name), Some(description)) =
            (header.memory_type, header.name.as_deref(), header.description.as_deref())
        else {
            return Err(Failure::input(format!(
                "{path} has no type, name or description to keep: fix it in an editor"
            )));
        };
        let (target, mut core) = self.writer(dir, false)?;
        let request = memdir_harness::contract::writer::Save {
            target: &target,
            memory: memdir_harness::contract::writer::Memory {
                memory_type,
                name,
                description,
                file: Some(path),
                replaces: None,
                body,
                now_ms: self.ctx.now_ms(),
                utc_offset_minutes: self.ctx.utc_offset(None),
                scope: None,
            },
        };
        let report = core.save(&request)?;
        Ok(json!({ "path": report.path, "index_line": report.index_line }))
    }

    fn forget(&self, dir: &str, path: &str) -> Result<Value, Failure> {
        let (target, mut core) = self.writer(dir, true)?;
        let report = core.forget(&target, path, self.ctx.now_ms())?;
        serde_json::to_value(report).map_err(|e| Failure::input(e.to_string()))
    }

    fn restore(&self, dir: &str, id: &str) -> Result<Value, Failure> {
        let (target, mut core) = self.writer(dir, false)?;
        let restored = core.restore(&target, id, self.ctx.now_ms())?;
        Ok(json!({ "path": restored.path }))
    }
}

/// The frontmatter block (without its fences) and the body after it.
fn split_frontmatter(text: &str) -> (&str, &str) {
    let Some(rest) = text.strip_prefix("---\n") else { return ("", text) };
    match rest.find("\n---\n") {
        Some(end) => (&rest[..end], &rest[end + 5..]),
        None => ("", text),
    }
}
