//! Streamable HTTP: the same [`McpServer`](crate::mcp::McpServer) over HTTP (hyper 1,
//! axum 0.8, tower), in both protocol eras.
//!
//! - **Mounting.** [`McpServer::http_service`](crate::mcp::McpServer::http_service) gives a
//!   [`McpHttpService`], a cloneable `tower::Service` to mount at any path of your own axum
//!   `Router` (`Router::new().route_service("/mcp", server.http_service(options))`).
//!   [`McpServer::serve_http`](crate::mcp::McpServer::serve_http) listens on an address and
//!   serves it at `/mcp` (with header read timeouts and graceful shutdown). One server value
//!   can serve stdio and HTTP at the same time: its tools, cache and limits are shared.
//! - **2026-07-28 (stateless).** Each POST carries one JSON-RPC message whose
//!   `params._meta` names the version. The `MCP-Protocol-Version`, `Mcp-Method` and
//!   `Mcp-Name` headers must agree with the body (`-32020`, HTTP 400). Errors carry the
//!   spec's status: 400 for `-32700`/`-32600`/`-32602`/`-32020`/`-32021`/`-32022`, 404 for
//!   `-32601`; notifications and responses get 202. The answer is `application/json`, or an
//!   event stream when the request asked for progress or the handler sent notifications
//!   before its result. GET and DELETE answer 405 (no session, no stream).
//! - **2025-03-26 / 2025-06-18 / 2025-11-25 (sessions).** `initialize` opens a session with
//!   an unguessable `Mcp-Session-Id` (256 bits of OS randomness). Later requests without it
//!   get 400, with an unknown or expired one 404; DELETE ends it; GET opens the session's
//!   server-to-client event stream, whose events carry ids, and a client resuming with
//!   `Last-Event-ID` receives what it missed (a bounded buffer). `MCP-Protocol-Version`,
//!   when sent, must name the session's version. Batches are accepted in 2025-03-26 sessions
//!   only, as on stdio. Idle sessions expire; their number is bounded. A [`SessionStore`]
//!   keeps each session's record and event log: in the process by default, or in Redis
//!   (`http.sessionStore: redis`, `RedisSessionStore`, feature `redis`), where every
//!   instance of a cluster finds them: an instance rebuilds a session it does not have, and
//!   a GET stream resumes on any instance. A POST answered as an event stream is resumable
//!   too (its own log, ids `STREAM-N`, a priming event in 2025-11-25): a client cut off
//!   mid-answer does not cancel the request, and resumes it with GET and `Last-Event-ID`;
//!   a handler may end its stream early
//!   ([`ToolContext::close_event_stream`](crate::tools::ToolContext::close_event_stream)).
//! - **Security by default.** `Host` and `Origin` are checked against allow-lists (by
//!   default the loopback forms when bound to loopback: DNS rebinding is refused with 403);
//!   the body is bounded by `request.maxLineBytes` (413, and the connection keeps working)
//!   and must arrive within `http.bodyReadTimeoutMs` (408); at most
//!   `http.maxConcurrentRequests` POSTs run at once (503 with `Retry-After`). Every error
//!   body is a JSON-RPC error that never quotes the input.
//! - **TLS and HTTP/2** (feature `tls`). `HttpOptions::tls` with a `TlsConfig` (PEM
//!   certificate chain and key) makes `serve_http_with` speak HTTPS, HTTP/2 or HTTP/1.1 as
//!   the client's ALPN chooses; the certificate is reloaded on SIGHUP or when its files change,
//!   without dropping a connection. The `Host` check reads HTTP/2's `:authority` when there
//!   is no `Host` header.
//!
//! The knobs are the `http` section of `schema/limits.json` ([`HttpLimits`]).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use typed_mcp::http::HttpOptions;
//! use typed_mcp::mcp::McpServer;
//!
//! let server = McpServer::builder("example", "1.0.0").build()?;
//! // Standalone: http://127.0.0.1:8080/mcp
//! let running = server.serve_http("127.0.0.1:8080".parse()?).await?;
//! println!("serving {}", running.url());
//! running.wait().await?;
//! // Or mounted in your own router:
//! let service = server.http_service(HttpOptions::default());
//! let _router: axum::Router = axum::Router::new().route_service("/mcp", service);
//! # Ok(()) }
//! ```

#[cfg(feature = "auth")]
pub mod auth;
mod body;
mod exchange;
mod guard;
mod headers;
mod listen;
mod log_follower;
mod modern;
mod options;
mod params;
mod post_stream;
mod reply;
mod repoll;
mod restore;
mod server;
mod service;
#[cfg(feature = "redis")]
mod session_redis;
mod session_store;
mod sessions;
mod sse;
mod stream;
#[cfg(feature = "tls")]
mod tls;

pub use crate::generated::limits::HttpLimits;
pub use headers::{LAST_EVENT_ID, MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, MCP_SESSION_ID};
pub(crate) use listen::start;
pub use listen::RunningHttpServer;
pub use options::HttpOptions;
pub use service::McpHttpService;
#[cfg(feature = "redis")]
pub use session_redis::RedisSessionStore;
pub use session_store::{
    event_id, parse_event_id, MemorySessionStore, Replay, SessionFuture, SessionRecord,
    SessionStore, SessionStoreError, StreamId, GET_STREAM,
};
#[cfg(feature = "tls")]
pub use tls::{TlsConfig, TlsError};

/// The path [`McpServer::serve_http`](crate::mcp::McpServer::serve_http) serves.
pub const MCP_PATH: &str = "/mcp";

/// Errors of starting or running the HTTP listener.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why binding failed.
        #[source]
        source: std::io::Error,
    },
    /// Accepting connections failed for good.
    #[error("accepting connections failed")]
    Accept(#[source] std::io::Error),
    /// The signal handlers could not be installed.
    #[error("installing the signal handlers failed")]
    Signal(#[source] std::io::Error),
    /// The listener task ended abnormally (panicked or was aborted).
    #[error("the HTTP listener task ended abnormally")]
    ListenerFailed,
}
