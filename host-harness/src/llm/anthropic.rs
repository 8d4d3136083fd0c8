//! `anthropic:MODEL`: the Messages API. The selection is forced through a tool whose input
//! schema is the request's schema, so the reply is structured; a text reply is used as it is.

use super::{Limits, LlmError, Model, http};
use memdir_core::model::ModelRequest;
use serde_json::json;

/// The API version memdir speaks.
const VERSION: &str = "2023-06-01";
/// The tool the model is made to call.
const TOOL: &str = "select_memories";

/// The Messages API.
pub struct Anthropic {
    model: String,
    key: String,
    url: String,
    limits: Limits,
}

impl Anthropic {
    /// A client for `model` at `base` (e.g. `https://api.anthropic.com`).
    pub fn new(model: &str, key: &str, base: &str, limits: Limits) -> Self {
        Anthropic {
            model: model.to_string(),
            key: key.to_string(),
            url: format!("{}/v1/messages", base.trim_end_matches('/')),
            limits,
        }
    }
}

impl Model for Anthropic {
    fn label(&self) -> String {
        format!("model:anthropic:{}", self.model)
    }

    fn complete(&mut self, request: &ModelRequest) -> Result<String, LlmError> {
        let schema = super::reply_schema(request);
        let body = json!({
            "model": self.model,
            "max_tokens": request.max_tokens,
            "system": request.system,
            "messages": [{"role": "user", "content": request.user}],
            "tools": [{"name": TOOL, "description": "Report the memories that will help.", "input_schema": schema}],
            "tool_choice": {"type": "tool", "name": TOOL},
        });
        let headers = [("x-api-key", self.key.clone()), ("anthropic-version", VERSION.to_string())];
        let reply = http::post_json(&self.url, &headers, &body, self.limits)?;
        let blocks =
            reply["content"].as_array().ok_or_else(|| LlmError::Malformed("no `content` list".into()))?;
        if let Some(input) = blocks.iter().find(|b| b["type"] == "tool_use").map(|b| &b["input"]) {
            return Ok(input.to_string());
        }
        Ok(blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join(""))
    }
}
