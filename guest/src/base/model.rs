//! What the workflows that need a model share (R0.3): the request the core hands the host, the
//! host's answer, and the step every workflow returns. A workflow is a step machine: `start`
//! returns a [`Step`]; while it is [`Step::Ask`], the host performs the request and passes the
//! [`Reply`] to `resume` with the call's state. A failed call is an input like any other: each
//! workflow turns it into a diagnostic and finishes, so no host re-implements that.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Which model a request wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    /// A small, fast model will do.
    Small,
}

impl Tier {
    /// `small`.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Small => "small",
        }
    }
}

/// A model call for the host to make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ModelRequest {
    /// System text.
    pub system: String,
    /// User text.
    pub user: String,
    /// JSON schema of the reply.
    pub schema: String,
    /// Max tokens of the reply.
    pub max_tokens: u32,
    /// The model it wants.
    pub tier: Tier,
}

/// One `ask` step: the request, and the state to resume with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelCall {
    /// What to ask the model.
    pub request: ModelRequest,
    /// The workflow's state, opaque to the host.
    pub state: String,
    /// This call's number within the workflow, from 1.
    pub call: u32,
    /// How many calls the workflow expects in all.
    pub calls: u32,
}

/// One `embed` step (issue 27): texts for the host's embeddings model, and the state to resume
/// with. The host answers with [`Reply::Vectors`], one per text in order, or [`Reply::Failed`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedCall {
    /// What to embed.
    pub texts: Vec<String>,
    /// The workflow's state, opaque to the host.
    pub state: String,
    /// This call's number within the workflow, from 1.
    pub call: u32,
}

/// What became of a model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "tag", content = "val", rename_all = "kebab-case")]
pub enum Reply {
    /// The model's reply text.
    Text(String),
    /// The call failed; the message says why.
    Failed(String),
    /// An embeddings model's vectors, one per text of an [`EmbedCall`], in its order.
    Vectors(Vec<Vec<f32>>),
}

impl Reply {
    /// The reply's text, or why there is none: a failure, or vectors where text was asked
    /// (a host answering the wrong step is treated as a failed call, not trusted).
    pub fn into_text(self) -> Result<String, String> {
        match self {
            Reply::Text(text) => Ok(text),
            Reply::Failed(why) => Err(why),
            Reply::Vectors(_) => Err("the host answered with vectors where text was asked".into()),
        }
    }
}

/// One step of a workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tag", content = "val", rename_all = "kebab-case")]
pub enum Step<T> {
    /// Ask the model, then resume.
    Ask(ModelCall),
    /// Ask the embeddings model, then resume (only a recall given `embeddings` asks).
    Embed(EmbedCall),
    /// Finished.
    Done(T),
}

impl<T> Step<T> {
    /// The finished result; `None` while the workflow still asks.
    pub fn done(self) -> Option<T> {
        match self {
            Step::Done(result) => Some(result),
            Step::Ask(_) | Step::Embed(_) => None,
        }
    }
}

/// An `ask` step carrying `state`, serialised.
pub(crate) fn ask<T>(request: ModelRequest, state: &impl Serialize, call: u32, calls: u32) -> Step<T> {
    let state = serde_json::to_string(state).expect("workflow states always serialise");
    Step::Ask(ModelCall { request, state, call, calls })
}

/// Reads back a state that [`ask`] wrote. The host may hand anything back, so a state that does
/// not parse is bad input, never a panic.
pub(crate) fn state<S: DeserializeOwned>(workflow: &str, text: &str) -> crate::base::error::Result<S> {
    serde_json::from_str(text).map_err(|e| {
        crate::base::error::Error::InvalidInput(format!(
            "the {workflow} state is not one this core made ({e}); pass back the `state` of the last step unchanged"
        ))
    })
}
