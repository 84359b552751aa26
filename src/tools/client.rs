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
    /// The client did not declare the capability the request needs.
    #[error("the client did not declare the {0} capability")]
    MissingCapability(&'static str),
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
}

/// The future of one request to the client.
pub type ClientResponse = Pin<Box<dyn Future<Output = Result<Value, ClientRequestError>> + Send>>;

/// Sends a request (method, params) to the client and resolves to its result: the hook the
/// server wires into every call's [`ToolContext`](super::ToolContext).
pub type ClientRequester = Arc<dyn Fn(&'static str, Value) -> ClientResponse + Send + Sync>;
