//! The JSON-RPC request loop under [`McpServer`](crate::mcp::McpServer): framing, dispatch,
//! bounded concurrency, cancellation, graceful shutdown.
//!
//! **Not a second way to serve MCP.** An MCP server is an [`McpServer`](crate::mcp::McpServer)
//! (which runs this loop for you: [`McpServer::serve`](crate::mcp::McpServer::serve),
//! `serve_stdio`). This module is the layer below it, public for JSON-RPC services that are
//! not MCP and for custom dispatch: it speaks no MCP method, era or schema.
//!
//! [`serve`] reads newline-delimited JSON-RPC from any [`AsyncRead`](tokio::io::AsyncRead),
//! hands requests to a [`Handler`] (each on its own task, or first on the reading task when
//! the handler says it may ([`Handler::runs_in_place`]); at most
//! [`ServeOptions::max_in_flight`] at once) and writes the answers through the single writer
//! task of [`crate::framing`]. It knows nothing of MCP beyond `notifications/cancelled`: the
//! MCP server implements [`Handler`] and sits on top.
//!
//! Serving stdio: pass `tokio::io::stdin()` / `tokio::io::stdout()` and turn on
//! [`ServeOptions::stop_on_signals`]. Tokio reads stdin on a blocking thread that a signal
//! cannot interrupt, so once [`serve`] has returned (everything is flushed by then) end the
//! runtime with `Runtime::shutdown_background` rather than waiting for that read, as
//! the `echo_server` example does; otherwise a client that keeps stdin open keeps the process alive.
//!
//! ```
//! use serde_json::value::RawValue;
//! use typed_mcp::jsonrpc::{ErrorCode, ErrorObject};
//! use typed_mcp::server::{serve, Handler, HandlerResult, RequestContext, ServeOptions};
//!
//! struct Echo;
//!
//! impl Handler for Echo {
//!     async fn handle_request(
//!         &self,
//!         _ctx: RequestContext,
//!         method: &str,
//!         params: Option<&RawValue>,
//!     ) -> HandlerResult {
//!         match (method, params) {
//!             ("echo", Some(params)) => Ok(params.to_owned()),
//!             _ => Err(ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, "method not found")),
//!         }
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":[7]}\n";
//! let (output, mut client) = tokio::io::duplex(4096);
//! let report = serve(input, output, Echo, ServeOptions::default()).await.unwrap();
//! assert_eq!(report.requests_answered, 1);
//! let mut answer = String::new();
//! tokio::io::AsyncReadExt::read_to_string(&mut client, &mut answer).await.unwrap();
//! assert_eq!(answer, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[7]}\n");
//! # });
//! ```

mod auth_info;
mod handler;
mod in_flight;
mod in_place;
mod options;
mod serve;
mod signals;
mod task;

use crate::framing::FramingError;

pub use auth_info::AuthInfo;
pub(crate) use auth_info::SharedAuth;
pub(crate) use handler::close as close_event_stream;
pub use handler::{Handler, HandlerResult, NotificationContext, Peer, RequestContext};
#[cfg(feature = "http")]
pub(crate) use in_flight::{InFlight, Ticket};
#[cfg(feature = "http")]
pub(crate) use options::depth_from_limits;
pub use options::{
    ServeOptions, SharedBatchPolicy, DEFAULT_GRACE_PERIOD, DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_QUEUED,
};
pub use serve::serve;
#[cfg(test)]
pub(crate) use task::request_task_size;
#[cfg(feature = "http")]
pub(crate) use task::{catching_panics, Panicked};

/// The notification by which the client cancels one of its requests; the loop handles it.
pub const CANCELLED_NOTIFICATION: &str = "notifications/cancelled";

/// Errors of the request loop.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// Reading the input failed; the loop shut down gracefully after it.
    #[error("reading the input failed")]
    Input(#[source] FramingError),
    /// Writing the output failed; answers not yet written were lost (and counted).
    #[error("writing the output failed")]
    Output(#[source] FramingError),
    /// The signal handlers could not be installed; nothing was read.
    #[error("installing the signal handlers failed")]
    Signal(#[source] std::io::Error),
}

/// Why the loop stopped reading.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum ShutdownReason {
    /// The input ended (stdin closed).
    InputClosed,
    /// A signal arrived.
    Signal {
        /// Its name (`SIGTERM`, `SIGINT`, `Ctrl-C`).
        name: &'static str,
    },
    /// The stop token of [`ServeOptions::stop_token`] was cancelled.
    Requested,
    /// Reading the input failed.
    InputFailed,
    /// The output stopped accepting messages.
    OutputFailed,
}

/// What happened while the loop ran: why it stopped and how many of each event it saw.
/// Every failure path ends in an answer or in one of these counts.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub struct ShutdownReport {
    /// Why reading stopped.
    pub reason: ShutdownReason,
    /// Requests answered (with a result or an error, including the shutdown and panic
    /// errors below); not counting duplicate-id rejections.
    pub requests_answered: u64,
    /// Requests cancelled by the client's `notifications/cancelled` (never answered).
    pub cancelled_by_client: u64,
    /// Requests cancelled when the shutdown grace period ended (answered with an error).
    pub cancelled_at_shutdown: u64,
    /// Handlers that panicked (their requests were answered with `-32603`).
    pub handler_panics: u64,
    /// Requests rejected because their id was already in flight.
    pub duplicate_ids: u64,
    /// Frames or batch members that were not valid JSON-RPC (answered per the JSON-RPC
    /// layer).
    pub invalid_messages: u64,
    /// Input lines over the length limit (answered with `-32600`).
    pub oversize_lines: u64,
    /// Notifications passed to the handler (`notifications/cancelled` not included).
    pub notifications: u64,
    /// `notifications/cancelled` naming no request in flight, or malformed.
    pub ignored_cancellations: u64,
    /// Responses received from the client.
    pub responses_received: u64,
    /// Answers that could not be queued because the output had closed.
    pub unanswered_at_output_failure: u64,
}
