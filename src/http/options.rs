//! What the HTTP transport is configured with: the `http` section of the limits, the body
//! bound, and whether the server listens on loopback only.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::generated::limits::{HttpLimits, Limits, SessionStoreKind};

use super::session_store::SessionStore;

/// Options of the HTTP transport. Built from the limits ([`HttpOptions::from_limits`]);
/// [`McpServer::serve_http`](crate::mcp::McpServer::serve_http) derives them from the
/// server's own limits and the address it binds.
///
/// ```
/// use typed_mcp::config::parse_limits;
/// use typed_mcp::http::HttpOptions;
///
/// let limits = parse_limits(r#"{"http": {"maxSessions": 8}}"#).unwrap();
/// let options = HttpOptions::from_limits(&limits).loopback_only(false);
/// assert_eq!(options.max_sessions(), 8);
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct HttpOptions {
    pub(crate) limits: HttpLimits,
    pub(crate) max_body_bytes: usize,
    pub(crate) max_depth: usize,
    pub(crate) loopback_only: bool,
    /// Where the 2025 sessions' records and event logs live (`None`: in this process).
    pub(crate) session_store: Option<Arc<dyn SessionStore>>,
    /// TLS of the listener `serve_http_with` starts (unused when mounted elsewhere).
    #[cfg(feature = "tls")]
    pub(crate) tls: Option<super::TlsConfig>,
    /// The resource server `serve_http_with` puts in front (unused when mounted elsewhere).
    #[cfg(feature = "auth")]
    pub(crate) auth: Option<super::auth::ResourceServer>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self::from_limits(&Limits::default())
    }
}

impl HttpOptions {
    /// The `http` section of `limits`, with the body bounded by `request.maxLineBytes` and
    /// its nesting by `request.maxDepth`.
    /// Loopback only until told otherwise.
    pub fn from_limits(limits: &Limits) -> Self {
        Self {
            limits: limits.http.clone(),
            max_body_bytes: usize::try_from(limits.request.max_line_bytes).unwrap_or(usize::MAX),
            max_depth: crate::server::depth_from_limits(limits),
            loopback_only: true,
            session_store: session_store_of(limits),
            #[cfg(feature = "tls")]
            tls: None,
            #[cfg(feature = "auth")]
            auth: None,
        }
    }

    /// Whether the server is reachable on loopback only. Then, unless the limits list
    /// `allowedHosts` / `allowedOrigins`, only the loopback forms of `Host` (`localhost`,
    /// `127.0.0.1`, `[::1]`, any port) and `Origin` (`http(s)://` one of those) are accepted,
    /// which defeats DNS rebinding. When `false` and the lists are empty, any `Host` is
    /// accepted and every request carrying an `Origin` is refused.
    pub fn loopback_only(mut self, loopback_only: bool) -> Self {
        self.loopback_only = loopback_only;
        self
    }

    /// [`loopback_only`](Self::loopback_only) as the address `addr` implies.
    pub fn bound_to(self, addr: SocketAddr) -> Self {
        self.loopback_only(addr.ip().is_loopback())
    }

    /// Serve over TLS (HTTP/1.1 and HTTP/2 by ALPN) with this certificate: used by
    /// [`McpServer::serve_http_with`](crate::mcp::McpServer::serve_http_with) (its URL is
    /// then `https://…`); a service mounted in your own router leaves TLS to your listener.
    #[cfg(feature = "tls")]
    pub fn tls(mut self, tls: super::TlsConfig) -> Self {
        self.tls = Some(tls);
        self
    }

    /// Protect the server started by
    /// [`McpServer::serve_http_with`](crate::mcp::McpServer::serve_http_with) with this
    /// resource server: its layer in front of `/mcp`, its metadata at the well-known paths.
    /// (In your own router, use [`ResourceServer::layer`](super::auth::ResourceServer::layer).)
    #[cfg(feature = "auth")]
    pub fn auth(mut self, auth: super::auth::ResourceServer) -> Self {
        self.auth = Some(auth.max_body_bytes(self.max_body_bytes));
        self
    }

    /// Keep the 2025 sessions' records and event logs in `store` instead of where
    /// `http.sessionStore` says (see [`SessionStore`]).
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.session_store = Some(store);
        self
    }

    /// Largest number of open 2025-era sessions.
    #[must_use]
    pub fn max_sessions(&self) -> usize {
        to_usize(u64::from(self.limits.max_sessions))
    }

    pub(crate) fn max_concurrent_requests(&self) -> usize {
        to_usize(u64::from(self.limits.max_concurrent_requests))
    }

    pub(crate) fn retry_after_seconds(&self) -> u64 {
        u64::from(self.limits.retry_after_seconds)
    }

    pub(crate) fn session_idle_timeout(&self) -> Duration {
        Duration::from_millis(non_negative(self.limits.session_idle_timeout_ms))
    }

    pub(crate) fn shutdown_linger(&self) -> Duration {
        Duration::from_millis(self.limits.shutdown_linger_ms.unwrap_or(0))
    }

    pub(crate) fn shutdown_grace(&self) -> Duration {
        Duration::from_millis(self.limits.shutdown_grace_ms)
    }

    pub(crate) fn header_read_timeout(&self) -> Duration {
        Duration::from_millis(u64::from(self.limits.header_read_timeout_ms))
    }

    pub(crate) fn body_read_timeout(&self) -> Duration {
        Duration::from_millis(u64::from(self.limits.body_read_timeout_ms))
    }

    pub(crate) fn sse_replay_events(&self) -> usize {
        to_usize(self.limits.sse_replay_events)
    }

    /// The `retry` field of a POST stream's priming event, in milliseconds.
    pub(crate) fn sse_retry_ms(&self) -> u64 {
        u64::from(self.limits.sse_retry_ms)
    }

    pub(crate) fn sse_keep_alive(&self) -> Duration {
        Duration::from_millis(non_negative(self.limits.sse_keep_alive_ms))
    }
}

/// The shared session store `http.sessionStore` names (`None`: this process's own). A Redis
/// store that cannot be built (a feature left out, an invalid URL) is logged as an error and
/// sessions stay in the process.
fn session_store_of(limits: &Limits) -> Option<Arc<dyn SessionStore>> {
    match limits.http.session_store {
        SessionStoreKind::Memory => None,
        #[cfg(feature = "redis")]
        SessionStoreKind::Redis => match super::RedisSessionStore::from_limits(limits) {
            Ok(store) => Some(Arc::new(store)),
            Err(error) => {
                tracing::error!(%error, "http.sessionStore redis: sessions stay in this process");
                None
            }
        },
        #[cfg(not(feature = "redis"))]
        SessionStoreKind::Redis => {
            tracing::error!(
                "http.sessionStore redis needs the feature `redis`: sessions stay in this process"
            );
            None
        }
    }
}

/// A bound the validator already kept positive, as `u64`.
fn non_negative(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn to_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}
