//! Model adapters: the host side of the core's sans-IO model requests (R0.3). One trait, one
//! file per kind of model; `--llm SPEC` picks one:
//!
//! - `offline` (or `off`): no model; recall uses the core's lexical selector, and extraction
//!   does not run;
//! - `agent:CLIENT[:MODEL]`: the user's own coding agent's non-interactive mode ([`agent`]);
//! - `command:CMD`: runs `sh -c CMD`, the request as JSON on stdin, the reply text on stdout;
//! - `anthropic:MODEL`: the Messages API (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`);
//! - `openai:MODEL`: chat completions (`OPENAI_API_KEY`, `OPENAI_BASE_URL`), which llama.cpp,
//!   Ollama and vLLM servers speak too.
//!
//! Embeddings models, for offline recall's sense of meaning, are in [`embeddings`].
//!
//! Every adapter is bounded: a timeout per attempt (`MEMDIR_LLM_TIMEOUT_MS`, default 30 s) and,
//! for HTTP, at most `MEMDIR_LLM_RETRIES` (default 2) retries on 429 and 5xx.

pub mod agent;
mod anthropic;
mod command;
pub mod embeddings;
mod http;
mod openai;

pub use embeddings::Embedder;
use memdir_core::model::ModelRequest;
use std::time::Duration;
use thiserror::Error;

/// A model that answers the core's requests.
pub trait Model {
    /// How output names the selector: `model:<spec>`.
    fn label(&self) -> String;
    /// Performs one request and returns the reply text.
    fn complete(&mut self, request: &ModelRequest) -> Result<String, LlmError>;
    /// The tokens spent over every request so far, where the model reports them.
    fn tokens(&self) -> Option<u64> {
        None
    }
}

/// Why a model call gave no reply.
#[derive(Debug, Error)]
pub enum LlmError {
    /// The command could not be started or failed.
    #[error("the model command failed: {0}")]
    Command(String),
    /// No reply within the timeout.
    #[error("the model did not answer within {0:?}")]
    Timeout(Duration),
    /// The API answered with an error status.
    #[error("the model API answered {status}: {message}")]
    Status {
        /// HTTP status.
        status: u16,
        /// The API's own error message, or the start of the body.
        message: String,
    },
    /// The connection failed.
    #[error("could not reach the model API: {0}")]
    Transport(String),
    /// The API answered 2xx with a body that is not what it documents.
    #[error("the model API's reply was not understood: {0}")]
    Malformed(String),
}

/// Settings common to every adapter, read from the environment the host passes in.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Per attempt.
    pub timeout: Duration,
    /// Extra attempts after a 429 or 5xx.
    pub retries: u32,
}

impl Limits {
    fn from_env(env: &[(String, String)]) -> Self {
        let num = |k: &str| var(env, k).and_then(|v| v.parse::<u64>().ok());
        Limits {
            timeout: Duration::from_millis(num("MEMDIR_LLM_TIMEOUT_MS").unwrap_or(30_000)),
            retries: num("MEMDIR_LLM_RETRIES").map_or(2, |n| n.min(5) as u32),
        }
    }
}

/// The reply schema of a request as JSON (the core always sends a valid one).
fn reply_schema(request: &ModelRequest) -> serde_json::Value {
    serde_json::from_str(&request.schema).unwrap_or_else(|_| serde_json::json!({"type": "object"}))
}

fn var<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
    let (_, value) = env.iter().rev().find(|(k, _)| k == name)?;
    (!value.is_empty()).then_some(value.as_str())
}

/// The model a `--llm` spec names; `None` for `offline`. Fails with a message that says what
/// to write when the spec is not understood or a key is missing.
pub fn from_spec(spec: &str, env: &[(String, String)]) -> Result<Option<Box<dyn Model>>, String> {
    let limits = Limits::from_env(env);
    let (kind, arg) = spec.split_once(':').unwrap_or((spec, ""));
    match (kind, arg) {
        ("offline" | "off", "") => Ok(None),
        ("agent", agent) => Ok(Some(Box::new(agent::Agent::new(agent, env)?))),
        ("command", cmd) if !cmd.trim().is_empty() => Ok(Some(Box::new(command::Command::new(cmd, limits)))),
        ("anthropic", model) if !model.is_empty() => {
            let key = var(env, "ANTHROPIC_API_KEY").ok_or("anthropic:MODEL needs ANTHROPIC_API_KEY")?;
            let base = var(env, "ANTHROPIC_BASE_URL").unwrap_or("https://api.anthropic.com");
            Ok(Some(Box::new(anthropic::Anthropic::new(model, key, base, limits))))
        }
        ("openai", model) if !model.is_empty() => {
            let key = var(env, "OPENAI_API_KEY");
            let base = var(env, "OPENAI_BASE_URL").unwrap_or("https://api.openai.com/v1");
            Ok(Some(Box::new(openai::OpenAi::new(model, key, base, limits))))
        }
        _ => Err(format!(
            "unknown model spec {spec:?}: use off, agent:CLIENT, command:CMD, anthropic:MODEL or openai:MODEL"
        )),
    }
}
