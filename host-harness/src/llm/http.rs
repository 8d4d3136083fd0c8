//! One JSON POST with a timeout and bounded retries on 429 and 5xx, shared by the HTTP adapters.

use super::{Limits, LlmError};
use serde_json::Value;
use std::time::Duration;

/// Longest wait a `Retry-After` header can impose.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);

/// POSTs `body` to `url` with `headers` and returns the parsed JSON of a 2xx reply. Error
/// statuses become [`LlmError::Status`] with the API's own message where it gave one.
pub fn post_json(
    url: &str,
    headers: &[(&str, String)],
    body: &Value,
    limits: Limits,
) -> Result<Value, LlmError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(limits.timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let mut attempt = 0;
    loop {
        let mut request = agent.post(url).header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let response = request.send(body.to_string()).map_err(|e| match e {
            ureq::Error::Timeout(_) => LlmError::Timeout(limits.timeout),
            other => LlmError::Transport(other.to_string()),
        });
        let mut response = response?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let text = response
            .body_mut()
            .with_config()
            .limit(16 * 1024 * 1024)
            .read_to_string()
            .map_err(|e| LlmError::Transport(e.to_string()))?;
        if (200..300).contains(&status) {
            return serde_json::from_str(&text).map_err(|e| LlmError::Malformed(format!("not JSON: {e}")));
        }
        let retryable = status == 429 || status >= 500;
        if retryable && attempt < limits.retries {
            attempt += 1;
            let backoff = Duration::from_millis(250 << attempt);
            std::thread::sleep(retry_after.unwrap_or(backoff).min(MAX_RETRY_AFTER));
            continue;
        }
        return Err(LlmError::Status { status, message: error_message(&text) });
    }
}

/// The message inside `{"error": {"message": ...}}` (both APIs use it), else the body's start.
fn error_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_else(|| body.chars().take(200).collect())
}
