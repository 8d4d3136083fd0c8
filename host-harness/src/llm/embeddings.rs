//! Embeddings models: the host side of recall's `embed` steps (issue 27, item 2). One
//! request and reply shape, the OpenAI-compatible `/v1/embeddings` that ollama, llama.cpp's
//! server, LM Studio and vLLM serve; `--embeddings SPEC` picks one:
//!
//! - `off`: none; offline recall ranks by words alone;
//! - `openai:MODEL`: POST `{base}/embeddings` (`MEMDIR_EMBEDDINGS_BASE_URL`, else
//!   `OPENAI_BASE_URL`); the key is `MEMDIR_EMBEDDINGS_API_KEY`, and `OPENAI_API_KEY` only
//!   when the server is OpenAI's own setting's (a key never goes to a server it was not
//!   given for); local servers need none;
//! - `command:CMD`: runs `sh -c CMD` with the request body on stdin; its stdout is the reply.
//!
//! A recall's calls share one deadline, `MEMDIR_EMBEDDINGS_TIMEOUT_MS` (default 10 s), and
//! are not retried: recall runs at prompt time, and what did not fit is words alone this turn
//! (the vectors that came are cached, so the next turn goes on from there).

use super::command::Command;
use super::{Limits, LlmError, http, var};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// A model that turns texts into vectors.
pub trait Embedder {
    /// What its vectors are cached under: a different model, or the same name at another
    /// server, starts the cache afresh.
    fn label(&self) -> String;
    /// One vector per text, in order.
    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError>;
}

/// The embeddings model a spec names; `None` for `off`.
pub fn from_spec(spec: &str, env: &[(String, String)]) -> Result<Option<Box<dyn Embedder>>, String> {
    let budget = var(env, "MEMDIR_EMBEDDINGS_TIMEOUT_MS").and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let budget = Duration::from_millis(budget);
    let deadline = Deadline { at: Instant::now() + budget, budget };
    match spec.split_once(':').unwrap_or((spec, "")) {
        ("off", "") => Ok(None),
        ("openai", model) if !model.is_empty() => {
            let (base, key) = match var(env, "MEMDIR_EMBEDDINGS_BASE_URL") {
                Some(base) => (base, var(env, "MEMDIR_EMBEDDINGS_API_KEY")),
                None => (
                    var(env, "OPENAI_BASE_URL").unwrap_or("https://api.openai.com/v1"),
                    var(env, "MEMDIR_EMBEDDINGS_API_KEY").or_else(|| var(env, "OPENAI_API_KEY")),
                ),
            };
            Ok(Some(Box::new(Http {
                model: model.to_string(),
                url: format!("{}/embeddings", base.trim_end_matches('/')),
                key: key.map(str::to_string),
                deadline,
            })))
        }
        ("command", cmd) if !cmd.trim().is_empty() => {
            Ok(Some(Box::new(Local { command: cmd.to_string(), spec: spec.to_string(), deadline })))
        }
        _ => Err(format!("unknown embeddings spec {spec:?}: use off, openai:MODEL or command:CMD")),
    }
}

/// When a recall's embeddings calls must be done by.
#[derive(Clone, Copy)]
struct Deadline {
    at: Instant,
    budget: Duration,
}

impl Deadline {
    /// One call's limits: what is left of the budget, and no retry.
    fn limits(self) -> Result<Limits, LlmError> {
        let left = self.at.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(LlmError::Timeout(self.budget));
        }
        Ok(Limits { timeout: left, retries: 0 })
    }
}

/// An OpenAI-compatible `/v1/embeddings` endpoint.
struct Http {
    model: String,
    url: String,
    key: Option<String>,
    deadline: Deadline,
}

impl Embedder for Http {
    fn label(&self) -> String {
        format!("openai:{}@{}", self.model, self.url)
    }

    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let headers: Vec<(&str, String)> =
            self.key.iter().map(|k| ("authorization", format!("Bearer {k}"))).collect();
        let reply = http::post_json(&self.url, &headers, &body(&self.model, texts), self.deadline.limits()?)?;
        vectors(&reply, texts.len())
    }
}

/// A local command that answers as the endpoint would.
struct Local {
    command: String,
    spec: String,
    deadline: Deadline,
}

impl Embedder for Local {
    fn label(&self) -> String {
        self.spec.clone()
    }

    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let out = Command::new(&self.command, self.deadline.limits()?).run(body("", texts).to_string())?;
        let reply: Value =
            serde_json::from_str(&out).map_err(|e| LlmError::Malformed(format!("not JSON: {e}")))?;
        vectors(&reply, texts.len())
    }
}

fn body(model: &str, texts: &[String]) -> Value {
    json!({"model": model, "input": texts, "encoding_format": "float"})
}

/// The vectors of `{"data": [{"index": i, "embedding": [...]}, ...]}`, put in `index` order
/// (servers may answer out of order). Whether they are usable is the core's to judge.
fn vectors(reply: &Value, expected: usize) -> Result<Vec<Vec<f32>>, LlmError> {
    let malformed = |why: &str| LlmError::Malformed(why.to_string());
    let data = reply["data"].as_array().ok_or_else(|| malformed("no `data` list"))?;
    if data.len() != expected {
        return Err(malformed(&format!("{} vectors for {expected} texts", data.len())));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (at, item) in data.iter().enumerate() {
        let index = item["index"].as_u64().map_or(at, |i| i as usize);
        let vector = item["embedding"]
            .as_array()
            .ok_or_else(|| malformed("an item has no `embedding` list"))?
            .iter()
            // A number beyond f32's range would be infinity, which JSON (the call scripts, the
            // native backend) cannot carry: refused here as the core would refuse it.
            .map(|v| v.as_f64().map(|v| v as f32).filter(|v| v.is_finite()))
            .collect::<Option<Vec<f32>>>()
            .ok_or_else(|| malformed("an embedding holds something other than finite numbers"))?;
        let slot = out.get_mut(index).ok_or_else(|| malformed("an `index` is out of range"))?;
        if slot.replace(vector).is_some() {
            return Err(malformed("two items share an `index`"));
        }
    }
    Ok(out.into_iter().map(|v| v.expect("every index filled once")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_come_back_in_index_order() {
        let reply = json!({"data": [{"index": 1, "embedding": [2.0]}, {"index": 0, "embedding": [1.0]}]});
        assert_eq!(vectors(&reply, 2).unwrap(), vec![vec![1.0], vec![2.0]]);
    }

    #[test]
    fn a_reply_that_is_not_the_documented_shape_is_refused() {
        for reply in [
            json!({}),
            json!({"data": [{"embedding": [1.0]}]}),
            json!({"data": [{"index": 0, "embedding": ["x"]}, {"index": 1, "embedding": [1.0]}]}),
            json!({"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]}),
            json!({"data": [{"index": 0, "embedding": [1.0]}, {"index": 7, "embedding": [1.0]}]}),
        ] {
            assert!(vectors(&reply, 2).is_err(), "{reply}");
        }
    }
}
