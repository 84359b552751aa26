//! The MCP server as an OAuth 2.1 resource server (feature `auth`): what the MCP
//! authorization spec asks of a protected HTTP server.
//!
//! - [`ResourceServer`] describes the protected resource: its identifier (the MCP endpoint's
//!   URL, RFC 8707), its authorization server(s), the scopes it knows, the scopes each tool,
//!   prompt, resource or method needs, and how tokens are checked (a [`TokenValidator`]:
//!   [`JwtValidator`] for JWT access tokens against the authorization server's JWKS, or
//!   [`IntrospectionValidator`] for RFC 7662 introspection).
//! - Its [`layer`](ResourceServer::layer) is a `tower` layer: put it in front of an
//!   [`McpHttpService`](super::McpHttpService) in your own axum `Router`, or give the
//!   resource server to [`HttpOptions::auth`](super::HttpOptions::auth) and `serve_http`
//!   does it. The layer serves the protected resource metadata (RFC 9728) at
//!   `/.well-known/oauth-protected-resource` + the endpoint's path (and without the path),
//!   answers 401 with `WWW-Authenticate: Bearer resource_metadata="…"` when the token is
//!   missing or invalid, 403 `insufficient_scope` naming the scope needed (step-up), 503
//!   when the authorization server cannot be asked (fails closed), and otherwise hands the
//!   verified [`AuthInfo`] to every handler ([`ToolContext::auth`](crate::tools::ToolContext::auth)).
//! - A 2025-era session belongs to the identity that opened it: a request on that session
//!   with another principal's token gets 404, as an unknown session would.
//! - What the caller sees of a refusal is the spec's error code only; the reason is logged
//!   (at `info`), never the token.
//!
//! Scopes of a schema-first tool are declared next to the tool, in the same builder chain
//! that registers it: `ResourceServer::tool_scopes("add_note", ["notes:write"])`.

mod fetch;
mod introspection;
mod jwt;
mod layer;
mod rules;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub use crate::server::AuthInfo;
pub use fetch::FetchError;
#[cfg(feature = "tls")]
pub use fetch::FetchOptions;
pub use introspection::IntrospectionValidator;
pub use jsonwebtoken::Algorithm;
pub use jwt::{JwtValidator, MAX_LEEWAY, MAX_REMEMBERED};
pub use layer::{AuthLayer, AuthService, MetadataService};

use rules::Rules;

/// A boxed future, as [`TokenValidator::validate`] returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Checks a bearer token and says whose it is.
pub trait TokenValidator: Send + Sync + 'static {
    /// The verified identity of `token`, or why it is refused.
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, TokenError>>;
}

/// Why a token was refused: logged with the reason; the caller sees only `invalid_token`
/// (401) or a 503.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// Malformed, badly signed, expired, not yet valid, revoked, of another issuer, or for
    /// another resource: 401 `invalid_token`.
    #[error("invalid token: {0}")]
    Invalid(String),
    /// The authorization server (its JWKS, its introspection endpoint) could not be asked:
    /// 503, never a pass.
    #[error("the authorization server could not be asked: {0}")]
    Unavailable(String),
}

impl TokenError {
    pub(crate) fn invalid(reason: impl Into<String>) -> Self {
        Self::Invalid(reason.into())
    }

    pub(crate) fn unavailable(reason: impl Into<String>) -> Self {
        Self::Unavailable(reason.into())
    }
}

/// The protected resource: what [`layer`](Self::layer) enforces and what its metadata
/// document says. Cheap to clone.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use typed_mcp::http::auth::{JwtValidator, ResourceServer};
///
/// let resource = "http://127.0.0.1:8080/mcp";
/// let issuer = "http://127.0.0.1:4000";
/// let auth = ResourceServer::new(resource, issuer, JwtValidator::discover(issuer, resource).await?)
///     .scopes_supported(["notes:read", "notes:write"])
///     .require_scopes(["notes:read"])
///     .tool_scopes("add_note", ["notes:write"]);
/// let server = typed_mcp::mcp::McpServer::builder("notes", "1.0.0").build()?;
/// let app: axum::Router = axum::Router::new()
///     .route_service("/mcp", auth.layer().into_service(server.http_service(server.http_options())))
///     .route_service(&auth.metadata_paths()[0], auth.metadata_service());
/// # let _ = app; Ok(()) }
/// ```
#[derive(Clone)]
#[must_use]
pub struct ResourceServer {
    inner: Arc<Config>,
}

#[derive(Clone)]
struct Config {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    rules: Rules,
    validator: Arc<dyn TokenValidator>,
    max_body_bytes: usize,
    max_bound_sessions: usize,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource", &self.inner.resource)
            .field("authorization_servers", &self.inner.authorization_servers)
            .field("scopes_supported", &self.inner.scopes_supported)
            .finish_non_exhaustive()
    }
}

fn strings<S: Into<String>>(items: impl IntoIterator<Item = S>) -> Vec<String> {
    items.into_iter().map(Into::into).collect()
}

impl ResourceServer {
    /// The resource `resource` (the MCP endpoint's absolute URL, what tokens' `aud` must
    /// name), protected by `authorization_server` (an issuer URL), with tokens checked by
    /// `validator`.
    pub fn new(
        resource: impl Into<String>,
        authorization_server: impl Into<String>,
        validator: impl TokenValidator,
    ) -> Self {
        Self {
            inner: Arc::new(Config {
                resource: resource.into(),
                authorization_servers: vec![authorization_server.into()],
                scopes_supported: Vec::new(),
                rules: Rules::default(),
                validator: Arc::new(validator),
                max_body_bytes: 4 * 1024 * 1024,
                max_bound_sessions: 65_536,
            }),
        }
    }

    fn config(&mut self) -> &mut Config {
        Arc::make_mut(&mut self.inner)
    }

    /// Records the scopes one method, tool, prompt or resource needs (a later call for the
    /// same key replaces the earlier one).
    fn scoped(
        mut self,
        table: impl FnOnce(&mut Rules) -> &mut HashMap<String, Vec<String>>,
        key: String,
        scopes: Vec<String>,
    ) -> Self {
        let _previous = table(&mut self.config().rules).insert(key, scopes);
        self
    }

    /// The scopes the metadata lists (`scopes_supported`) and 401 challenges name.
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.config().scopes_supported = strings(scopes);
        self
    }

    /// Scopes every request needs.
    pub fn require_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.config().rules.every = strings(scopes);
        self
    }

    /// Scopes a JSON-RPC method needs (e.g. `resources/read`).
    pub fn method_scopes<S: Into<String>>(
        self,
        method: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scoped(|rules| &mut rules.methods, method.into(), strings(scopes))
    }

    /// Scopes a call of the tool `name` needs (`tools/call`).
    pub fn tool_scopes<S: Into<String>>(
        self,
        name: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scoped(|rules| &mut rules.tools, name.into(), strings(scopes))
    }

    /// Scopes getting the prompt `name` needs (`prompts/get`).
    pub fn prompt_scopes<S: Into<String>>(
        self,
        name: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scoped(|rules| &mut rules.prompts, name.into(), strings(scopes))
    }

    /// Scopes reading the resource `uri` needs (`resources/read`, `resources/subscribe`).
    pub fn resource_scopes<S: Into<String>>(
        self,
        uri: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scoped(|rules| &mut rules.resources, uri.into(), strings(scopes))
    }

    /// The largest request body the layer reads to find the tool, prompt or resource a
    /// request names (only when such scopes are declared; 4 MiB by default; `serve_http`
    /// uses `request.maxLineBytes`). A larger body gets 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.config().max_body_bytes = bytes;
        self
    }

    /// The resource identifier.
    #[must_use]
    pub fn resource(&self) -> &str {
        &self.inner.resource
    }

    /// The protected resource metadata document (RFC 9728).
    #[must_use]
    pub fn metadata(&self) -> serde_json::Value {
        let mut document = serde_json::json!({
            "resource": self.inner.resource,
            "authorization_servers": self.inner.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.inner.scopes_supported.is_empty() {
            document["scopes_supported"] = self.inner.scopes_supported.clone().into();
        }
        document
    }

    /// The URL of the metadata document: RFC 9728's well-known prefix inserted before the
    /// resource's path.
    #[must_use]
    pub fn metadata_url(&self) -> String {
        let (origin, path) = fetch::split_origin(&self.inner.resource);
        format!("{origin}{}", well_known(path))
    }

    /// The paths the metadata is served at: the well-known prefix with the resource's path
    /// (RFC 9728 section 3.1), then without it (where clients of the 2025-03-26 era look).
    #[must_use]
    pub fn metadata_paths(&self) -> Vec<String> {
        let (_, path) = fetch::split_origin(&self.inner.resource);
        let mut paths = vec![well_known(path)];
        if !path.is_empty() && path != "/" {
            paths.push(well_known(""));
        }
        paths
    }

    /// The `tower` layer that enforces this resource server.
    pub fn layer(&self) -> AuthLayer {
        AuthLayer::new(self.clone())
    }

    /// A service answering GET with the metadata document, to mount at
    /// [`metadata_paths`](Self::metadata_paths) in your own router.
    pub fn metadata_service(&self) -> MetadataService {
        MetadataService::new(self)
    }
}

fn well_known(path: &str) -> String {
    let path = path.trim_end_matches('/');
    format!("/.well-known/oauth-protected-resource{path}")
}
