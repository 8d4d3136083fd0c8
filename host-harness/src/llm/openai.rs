//! `openai:MODEL`: chat completions, with the request's schema as structured output
//! (`response_format: json_schema`). Local servers (llama.cpp, Ollama, vLLM) speak the same API;
//! the key is optional for them.

use super::{Limits, LlmError, Model, http};
use memdir_core::model::ModelRequest;
use serde_json::json;

/// Chat completions.
pub struct OpenAi {
    model: String,
    key: Option<String>,
    url: String,
    limits: Limits,
}

impl OpenAi {
    /// A client for `model` at `base` (e.g. `https://api.openai.com/v1`).
    pub fn new(model: &str, key: Option<&str>, base: &str, limits: Limits) -> Self {
        OpenAi {
            model: model.to_string(),
            key: key.map(str::to_string),
            url: format!("{}/chat/completions", base.trim_end_matches('/')),
            limits,
        }
    }
}

impl Model for OpenAi {
    fn label(&self) -> String {
        format!("model:openai:{}", self.model)
    }

    fn complete(&mut self, request: &ModelRequest) -> Result<String, LlmError> {
        let schema = super::reply_schema(request);
        let body = json!({
            "model": self.model,
            "max_tokens": request.max_tokens,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "memory_selection", "strict": true, "schema": schema},
            },
        });
        let headers: Vec<(&str, String)> =
            self.key.iter().map(|k| ("authorization", format!("Bearer {k}"))).collect();
        let reply = http::post_json(&self.url, &headers, &body, self.limits)?;
        reply["choices"][0]["message"]["content"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| LlmError::Malformed("no `choices[0].message.content`".into()))
    }
}
