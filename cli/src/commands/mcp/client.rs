//! What the server asks of the client: its roots, its model (`sampling/createMessage`) while a
//! tool runs on the worker thread, and progress notifications. The worker is a plain thread, so
//! each request is spawned on the protocol's runtime and the worker waits for the answer.
// Sampling and roots are deprecated by the protocol's 2026-07-28 revision, which today's clients do not
// speak yet; VS Code samples on 2025-06-18, which is what this serves.
#![allow(deprecated)]

use memdir_harness::contract::model::{ModelRequest, Tier};
use memdir_harness::llm::{LlmError, Model};
use rmcp::RoleServer;
use rmcp::model::{
    CreateMessageRequestParams, ModelPreferences, ProgressNotificationParam, ProgressToken, SamplingMessage,
};
use rmcp::service::Peer;
use std::time::Duration;

/// The client's model, through `sampling/createMessage`.
pub struct Sampling {
    pub peer: Peer<RoleServer>,
    pub runtime: tokio::runtime::Handle,
    /// How long to wait for the client (it may ask its user first).
    pub timeout: Duration,
}

impl Sampling {
    /// The client's model, when the client offers sampling.
    pub fn offered(
        peer: &Peer<RoleServer>,
        runtime: tokio::runtime::Handle,
        timeout: Duration,
    ) -> Option<Sampling> {
        let offers = peer.peer_info().is_some_and(|info| info.capabilities.sampling.is_some());
        offers.then(|| Sampling { peer: peer.clone(), runtime, timeout })
    }
}

impl Model for Sampling {
    fn label(&self) -> String {
        let client = self.peer.peer_info().map(|i| i.client_info.name.clone()).unwrap_or_default();
        format!("sampling:{client}")
    }

    fn complete(&mut self, request: &ModelRequest) -> Result<String, LlmError> {
        // The reply must be JSON of the request's schema; a client's model has no structured
        // output switch, so the schema travels in the prompt (the core's parsing is lenient).
        let user = format!(
            "{}\n\nReply with JSON only, matching this JSON Schema:\n{}",
            request.user, request.schema
        );
        let preferences = match request.tier {
            // Selection is a small, fast job: say so, and let the client pick the model.
            Tier::Small => ModelPreferences::new().with_speed_priority(0.9).with_intelligence_priority(0.3),
        };
        let params =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text(user)], request.max_tokens)
                .with_system_prompt(request.system.clone())
                .with_model_preferences(preferences);
        let (tx, rx) = std::sync::mpsc::channel();
        let peer = self.peer.clone();
        let request = self.runtime.spawn(async move {
            let _ = tx.send(peer.create_message(params).await);
        });
        let result = rx.recv_timeout(self.timeout).map_err(|_| {
            // Stop waiting for it: the next turn asks afresh.
            request.abort();
            LlmError::Timeout(self.timeout)
        })?;
        let result =
            result.map_err(|e| LlmError::Command(format!("the client's model declined or failed: {e}")))?;
        let text: String =
            result.message.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect();
        if text.is_empty() {
            return Err(LlmError::Command("the client's model sent no text".into()));
        }
        Ok(text)
    }
}

/// Progress notifications for one tool call, when the client asked for them (a progress token).
#[derive(Clone)]
pub struct Progress {
    to: Option<(Peer<RoleServer>, ProgressToken, tokio::runtime::Handle)>,
}

impl Progress {
    pub fn new(peer: &Peer<RoleServer>, token: Option<ProgressToken>) -> Progress {
        let runtime = tokio::runtime::Handle::try_current().ok();
        Progress { to: token.zip(runtime).map(|(t, r)| (peer.clone(), t, r)) }
    }

    /// `done` of `total` steps, and what is happening.
    pub fn report(&self, done: u32, total: Option<u32>, message: impl Into<String>) {
        let Some((peer, token, runtime)) = &self.to else { return };
        let mut param = ProgressNotificationParam::new(token.clone(), f64::from(done)).with_message(message);
        if let Some(total) = total {
            param = param.with_total(f64::from(total));
        }
        // The worker waits until the notification is written, so it can never arrive after the
        // tool's answer; on a runtime thread (no worker) it can only be sent without waiting.
        let peer = peer.clone();
        let send = async move {
            let _ = peer.notify_progress(param).await;
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            runtime.spawn(send);
        } else {
            runtime.block_on(send);
        }
    }
}

/// The directory of the client's first `file://` root, when it offers roots and answers in time.
pub async fn first_root(peer: &Peer<RoleServer>, timeout: Duration) -> Option<String> {
    if peer.peer_info().is_none_or(|info| info.capabilities.roots.is_none()) {
        return None;
    }
    let listed = tokio::time::timeout(timeout, peer.list_roots()).await.ok()?.ok()?;
    listed.roots.iter().find_map(|root| file_uri_path(&root.uri))
}

/// The local directory a `file://` root names (percent-escapes decoded); None for any other.
pub fn file_uri_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///home/ana` or `file://localhost/home/ana`; a root on another host is not ours.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let mut bytes = Vec::with_capacity(path.len());
    let mut raw = path.bytes();
    while let Some(b) = raw.next() {
        if b == b'%' {
            let hex = [raw.next()?, raw.next()?];
            bytes.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
        } else {
            bytes.push(b);
        }
    }
    let path = String::from_utf8(bytes).ok()?;
    if path.contains('\0') {
        return None;
    }
    // `file:///C:/work` is `C:/work` on Windows.
    let drive =
        path.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic) && path.as_bytes().get(2) == Some(&b':');
    let windows_drive = cfg!(windows) && drive;
    Some(if windows_drive { path[1..].to_string() } else { path })
}

#[cfg(test)]
mod tests {
    use super::file_uri_path;

    #[test]
    fn a_root_is_a_local_directory_or_nothing() {
        assert_eq!(file_uri_path("file:///home/ana/web%20app").as_deref(), Some("/home/ana/web app"));
        assert_eq!(file_uri_path("file://localhost/srv/x").as_deref(), Some("/srv/x"));
        let drive = if cfg!(windows) { "C:/work/x" } else { "/C:/work/x" };
        assert_eq!(file_uri_path("file:///C:/work/x").as_deref(), Some(drive));
        for not_ours in ["https://x/y", "file://server/share", "file:///a%2", "file:///a%00b", "file:///%ff"]
        {
            assert_eq!(file_uri_path(not_ours), None, "{not_ours}");
        }
    }
}
