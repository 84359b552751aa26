//! OAuth 2.1 for the HTTP client, as the MCP authorization spec describes it (2025-06-18,
//! 2025-11-25, 2026-07-28).
//!
//! When a server answers 401, the client reads the `WWW-Authenticate` challenge, finds the
//! protected resource metadata (RFC 9728: the challenge's `resource_metadata`, else the
//! well-known paths) and checks that it names this server; finds the authorization server
//! metadata (RFC 8414 and OpenID discovery, with the path-insertion variants) and checks its
//! `issuer`; identifies itself (pre-registered credentials, a client ID metadata document,
//! or dynamic registration, in that order); then runs the authorization code flow with PKCE
//! S256, the `resource` parameter (RFC 8707) on every request, and the `iss` check of RFC
//! 9207 — or the client credentials grant for machine clients. The scope is the challenge's,
//! else the resource's `scopes_supported`, else omitted; `offline_access` is added when the
//! authorization server lists it. A 403 `insufficient_scope` re-authorizes with the union of
//! the scopes, up to a retry limit. Tokens are refreshed when they expire, kept in a
//! [`TokenStore`], and never logged or put in an error.
//!
//! Every endpoint must be `https://` (loopback hosts may use `http://`); redirects from
//! metadata or token endpoints are never followed.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use typed_mcp::client::auth::{LoopbackRedirect, OAuthOptions};
//! use typed_mcp::client::{Client, ClientOptions};
//!
//! let step = LoopbackRedirect::bind(0, Duration::from_secs(300))?;
//! let oauth = OAuthOptions::authorization_code("my-agent", step);
//! let options = ClientOptions::new("my-agent", "1.0.0").oauth(oauth);
//! let client = Client::connect_http("https://mcp.example.com/mcp", options).await?;
//! # Ok(()) }
//! ```
//!
//! This is written on hyper and `url` rather than the `oauth2` crate: the MCP layer
//! (discovery, resource checks, CIMD, `iss`, step-up) is most of the work, and `oauth2`
//! would bring its own HTTP client abstraction and still leave `private_key_jwt`, the
//! `iss` check and the `resource` parameter to do by hand.

mod authorizer;
mod discovery;
mod error;
mod fetch;
mod identity;
mod jwt;
mod step;
mod store;
mod token;

use std::sync::Arc;

pub use error::{AuthError, Secret};
pub use jwt::{ClientKey, SigningAlgorithm};
pub use step::{AuthorizationStep, AutoApprove, LoopbackRedirect, StepFuture};
pub use store::{FileTokenStore, MemoryTokenStore, StoredTokens, TokenStore};

pub(crate) use authorizer::Authorizer;

/// How many authorizations one request may trigger (401, then 403 `insufficient_scope`
/// step-ups) before it fails with [`AuthError::RetryLimit`].
pub const DEFAULT_MAX_AUTHORIZATIONS: usize = 3;

/// How the client obtains tokens.
#[derive(Debug, Clone)]
pub(crate) enum Grant {
    /// Authorization code with PKCE, the user taking the step.
    AuthorizationCode(Arc<dyn AuthorizationStep>),
    /// Client credentials with a secret (`client_secret_basic` or `_post`).
    ClientCredentials,
    /// Client credentials with a signed assertion (`private_key_jwt`).
    ClientCredentialsJwt(ClientKey),
}

/// What the client needs to authorize itself with OAuth. Build one with
/// [`OAuthOptions::authorization_code`] or [`OAuthOptions::client_credentials`], then give
/// it to [`ClientOptions::oauth`](crate::client::ClientOptions::oauth).
#[derive(Debug, Clone)]
#[must_use]
pub struct OAuthOptions {
    pub(crate) client_name: String,
    pub(crate) grant: Grant,
    pub(crate) client_id: Option<String>,
    pub(crate) client_secret: Option<Secret>,
    pub(crate) metadata_url: Option<String>,
    pub(crate) dynamic_registration: bool,
    pub(crate) store: Arc<dyn TokenStore>,
    pub(crate) scope: Option<String>,
    pub(crate) offline_access: bool,
    pub(crate) max_authorizations: usize,
}

impl OAuthOptions {
    fn with_grant(client_name: &str, grant: Grant) -> Self {
        Self {
            client_name: client_name.to_owned(),
            grant,
            client_id: None,
            client_secret: None,
            metadata_url: None,
            dynamic_registration: true,
            store: Arc::new(MemoryTokenStore::new()),
            scope: None,
            offline_access: true,
            max_authorizations: DEFAULT_MAX_AUTHORIZATIONS,
        }
    }

    /// The authorization code flow with PKCE; `step` opens the URL and receives the
    /// redirect. The client registers dynamically as `client_name` unless given an identity
    /// ([`pre_registered`](Self::pre_registered), [`client_metadata_url`](Self::client_metadata_url)).
    pub fn authorization_code(client_name: &str, step: impl AuthorizationStep) -> Self {
        Self::with_grant(client_name, Grant::AuthorizationCode(Arc::new(step)))
    }

    /// The client credentials grant with a pre-registered id and secret.
    pub fn client_credentials(client_id: &str, client_secret: impl Into<Secret>) -> Self {
        let mut options = Self::with_grant(client_id, Grant::ClientCredentials);
        options.client_id = Some(client_id.to_owned());
        options.client_secret = Some(client_secret.into());
        options
    }

    /// The client credentials grant authenticated by `private_key_jwt` with `key`.
    pub fn client_credentials_jwt(client_id: &str, key: ClientKey) -> Self {
        let mut options = Self::with_grant(client_id, Grant::ClientCredentialsJwt(key));
        options.client_id = Some(client_id.to_owned());
        options
    }

    /// Credentials registered with the authorization server beforehand (used first).
    pub fn pre_registered(mut self, client_id: &str, client_secret: Option<Secret>) -> Self {
        self.client_id = Some(client_id.to_owned());
        self.client_secret = client_secret;
        self
    }

    /// The HTTPS URL of this client's metadata document, used as its `client_id` with
    /// servers that advertise `client_id_metadata_document_supported`.
    pub fn client_metadata_url(mut self, url: &str) -> Self {
        self.metadata_url = Some(url.to_owned());
        self
    }

    /// Whether the client may register itself (RFC 7591) when it has no other identity
    /// (yes by default).
    pub fn dynamic_registration(mut self, allowed: bool) -> Self {
        self.dynamic_registration = allowed;
        self
    }

    /// Where tokens are kept (in memory by default).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Asks for exactly this scope instead of choosing it from the challenge or metadata.
    pub fn scope(mut self, scope: &str) -> Self {
        self.scope = Some(scope.to_owned());
        self
    }

    /// Whether to ask for `offline_access` (a refresh token) when the authorization server
    /// lists it in `scopes_supported` (yes by default).
    pub fn offline_access(mut self, wanted: bool) -> Self {
        self.offline_access = wanted;
        self
    }

    /// How many authorizations one request may trigger ([`DEFAULT_MAX_AUTHORIZATIONS`]).
    pub fn max_authorizations(mut self, max: usize) -> Self {
        self.max_authorizations = max.max(1);
        self
    }
}

impl crate::client::ClientOptions {
    /// Authorizes HTTP requests with OAuth when the server asks (401).
    pub fn oauth(mut self, oauth: OAuthOptions) -> Self {
        self.http.oauth = Some(oauth);
        self
    }
}

/// 32 random bytes, base64url: PKCE verifiers, `state`, JWT ids.
pub(crate) fn random_token() -> Result<String, AuthError> {
    use base64::Engine as _;
    let mut bytes = [0_u8; 32];
    getrandom::fill(&mut bytes).map_err(|_| AuthError::NoRandomness)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}
