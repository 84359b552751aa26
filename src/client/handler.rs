//! What the client does with the server's own requests (`roots/list`,
//! `sampling/createMessage`, `elicitation/create`) and notifications: a [`ClientHandler`]
//! the application provides. The same handler answers the `inputRequests` of a 2026-07-28
//! `input_required` result, so one implementation serves both eras.
//!
//! A handler's answer is checked by the generated validator of its result definition
//! (`ListRootsResult`, `CreateMessageResult`, `ElicitResult`) before it is sent: an answer
//! that breaks the schema is replaced by a `-32603` error and logged, never sent.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::generated::protocol::validate;
use crate::jsonrpc::ErrorCode;
use crate::validation::ValidationError;

/// The future a handler returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Value, HandlerError>> + Send>>;

/// A refusal of a server's request, sent back as a JSON-RPC error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message} ({code})")]
#[non_exhaustive]
pub struct HandlerError {
    /// The JSON-RPC error code.
    pub code: ErrorCode,
    /// The message sent to the server.
    pub message: String,
}

impl HandlerError {
    /// An error with this code and message.
    #[must_use]
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// `-32601`: this client does not offer the method.
    #[must_use]
    pub fn not_supported() -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            "method not supported by this client",
        )
    }
}

/// The application's side of the server's requests and notifications. Every method has a
/// default: requests are refused with `-32601`, notifications are logged at `debug`.
/// Declare the matching capabilities with [`ClientOptions::capabilities`](super::ClientOptions::capabilities).
///
/// ```
/// use serde_json::{json, Value};
/// use typed_mcp::client::{ClientHandler, HandlerFuture};
///
/// struct Roots;
/// impl ClientHandler for Roots {
///     fn list_roots(&self, _params: Value) -> HandlerFuture {
///         Box::pin(async { Ok(json!({"roots": [{"uri": "file:///work", "name": "work"}]})) })
///     }
/// }
/// ```
pub trait ClientHandler: Send + Sync + 'static {
    /// `roots/list`: answer a `ListRootsResult`.
    fn list_roots(&self, params: Value) -> HandlerFuture {
        let _: Value = params;
        Box::pin(async { Err(HandlerError::not_supported()) })
    }

    /// `sampling/createMessage`: answer a `CreateMessageResult`.
    fn create_message(&self, params: Value) -> HandlerFuture {
        let _: Value = params;
        Box::pin(async { Err(HandlerError::not_supported()) })
    }

    /// `elicitation/create`: answer an `ElicitResult`.
    fn elicit(&self, params: Value) -> HandlerFuture {
        let _: Value = params;
        Box::pin(async { Err(HandlerError::not_supported()) })
    }

    /// Any notification from the server (`notifications/message`, `.../list_changed`,
    /// `notifications/resources/updated`, ...), except progress, which goes to the
    /// request's progress callback.
    fn notification(&self, method: &str, params: Value) {
        tracing::debug!(method, %params, "notification from the server");
    }
}

/// The handler used when the application gives none.
#[derive(Debug, Default)]
pub(crate) struct NoHandler;

impl ClientHandler for NoHandler {}

/// Runs the handler for one server request and checks its answer: the result or the error
/// to send.
pub(crate) async fn serve(
    handler: Arc<dyn ClientHandler>,
    method: String,
    params: Value,
) -> Result<Value, HandlerError> {
    type Check = fn(&Value) -> Result<(), Vec<ValidationError>>;
    let (future, check, definition): (HandlerFuture, Check, &str) = match method.as_str() {
        "roots/list" => (
            handler.list_roots(params),
            validate::list_roots_result,
            "ListRootsResult",
        ),
        "sampling/createMessage" => (
            handler.create_message(params),
            validate::create_message_result,
            "CreateMessageResult",
        ),
        "elicitation/create" => (
            handler.elicit(params),
            validate::elicit_result,
            "ElicitResult",
        ),
        "ping" => return Ok(Value::Object(serde_json::Map::new())),
        _ => return Err(HandlerError::not_supported()),
    };
    let result = future.await?;
    if let Err(errors) = check(&result) {
        let first = errors.first().map(ToString::to_string).unwrap_or_default();
        tracing::error!(method, definition, violation = %first, "the handler's answer breaks the schema: not sent");
        return Err(HandlerError::new(
            ErrorCode::INTERNAL_ERROR,
            "the client could not produce a valid answer",
        ));
    }
    Ok(result)
}
