//! The HTTP methods of [`McpServer`]: its service to mount, and its own listener. They live
//! here, with the transport, so that the server core (`crate::mcp`) knows nothing of HTTP.

use std::net::SocketAddr;
use std::sync::Arc;

use super::{HttpError, HttpOptions, McpHttpService, RunningHttpServer};
use crate::mcp::McpServer;

impl McpServer {
    /// The HTTP options derived from the server's limits (loopback only): the starting
    /// point for [`http_service`](Self::http_service).
    pub fn http_options(&self) -> HttpOptions {
        HttpOptions::from_limits(self.limits())
    }

    /// This server as a `tower::Service` of HTTP requests, to mount in an axum `Router` at
    /// any path (see [`crate::http`]). Every call makes a service with its own sessions;
    /// tools, cache and limits are shared with every other way this server serves.
    #[must_use]
    pub fn http_service(&self, options: HttpOptions) -> McpHttpService {
        McpHttpService::new(Arc::clone(self.shared()), options)
    }

    /// Listens on `addr` and serves Streamable HTTP at `http://ADDR/mcp`, with the HTTP
    /// options of the server's limits; `Host`/`Origin` are restricted to the loopback forms
    /// when `addr` is a loopback address. Returns once listening.
    ///
    /// # Errors
    ///
    /// [`HttpError::Bind`] when the address cannot be bound.
    pub async fn serve_http(&self, addr: SocketAddr) -> Result<RunningHttpServer, HttpError> {
        let options = self.http_options().bound_to(addr);
        self.serve_http_with(addr, options).await
    }

    /// [`serve_http`](Self::serve_http) with explicit options.
    ///
    /// # Errors
    ///
    /// As [`serve_http`](Self::serve_http).
    pub async fn serve_http_with(
        &self,
        addr: SocketAddr,
        options: HttpOptions,
    ) -> Result<RunningHttpServer, HttpError> {
        super::start(addr, self.http_service(options)).await
    }
}
