//! Requests a running tool sends to the client (sampling, elicitation, roots): the hook the
//! server wires up, and the errors a handler sees.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

/// What a request to the client may end in besides its result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientRequestError {
    /// This connection cannot carry requests to the client (e.g. the 2026-07-28 era, where
    /// they travel as `input_required` results instead).
    #[error("requests to the client are not available here: {0}")]
    Unavailable(&'static str),
    /// The client did not declare the capability the request needs: a member of its
    /// capabilities, dotted when nested (`sampling`, `elicitation.url`).
    #[error("the client did not declare the {0} capability")]
    MissingCapability(&'static str),
    /// The handler's request is not one the protocol allows (e.g. a URL-mode elicitation
    /// whose `url` is not an absolute URI); nothing was sent.
    #[error("the request to the client is invalid: {0}")]
    InvalidRequest(&'static str),
    /// The client answered with a JSON-RPC error.
    #[error("the client refused the request ({code}): {message}")]
    Refused {
        /// The error's code.
        code: i64,
        /// The error's message (the client's words).
        message: String,
    },
    /// The client's result is not what the protocol prescribes.
    #[error("the client's result is malformed: {0}")]
    Malformed(String),
    /// The connection closed before the client answered.
    #[error("the connection closed before the client answered")]
    Closed,
    /// 2026-07-28: the answer is not in this request yet. The server answers the call with
    /// an `input_required` result listing every question the handler asked; the client
    /// retries with the answers and the handler runs again, this time getting them.
    #[error("the client's answer comes with the retried request (input_required)")]
    InputRequired,
    /// 2026-07-28, Tasks extension: the handler asked to run as a task
    /// ([`ToolContext::run_as_task`](super::ToolContext::run_as_task)) and every question
    /// it asked has its answer. The server answers the call with a task and runs the
    /// handler again as the task's work, with the same answers; pass it on with `?`.
    #[error("the call continues as a task")]
    BecomesTask,
}

/// The method of the [`ClientRequest`] by which
/// [`ToolContext::run_as_task`](super::ToolContext::run_as_task) asks the requester to
/// run the call as a task; never sent to the client. Each requester answers it: `true`
/// (already a task), `false` (the call cannot become one), or
/// [`ClientRequestError::BecomesTask`].
pub(crate) const RUN_AS_TASK: &str = "io.modelcontextprotocol/tasks#run-as-task";

/// One request to the client, as a handler asks it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientRequest {
    /// The name the answer is filed under in 2026-07-28 (`inputRequests` / `inputResponses`
    /// keys); one is made up from the method and the order of asking when `None`.
    pub key: Option<String>,
    /// `sampling/createMessage`, `elicitation/create` or `roots/list` (or the notification
    /// `notifications/elicitation/complete`, answered with `null` once sent).
    pub method: &'static str,
    /// The request's params.
    pub params: Value,
}

/// The future of one request to the client.
pub type ClientResponse = Pin<Box<dyn Future<Output = Result<Value, ClientRequestError>> + Send>>;

/// Sends a request (method, params) to the client and resolves to its result: the hook the
/// server wires into every call's [`ToolContext`](super::ToolContext).
pub type ClientRequester = Arc<dyn Fn(ClientRequest) -> ClientResponse + Send + Sync>;
