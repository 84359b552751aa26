//! The one error type of the OAuth layer. No variant carries a token, a secret, a code or
//! what a server sent: a bad document is described by which rule it broke.

/// Everything that can go wrong while authorizing a client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A URL (of the server, a metadata document, an endpoint) does not parse or has no host.
    #[error("the {what} is not a valid URL")]
    InvalidUrl {
        /// Which URL (`protected resource metadata URL`, `token endpoint`, ...).
        what: &'static str,
    },
    /// An endpoint or metadata URL uses `http://` for a host that is not loopback; tokens,
    /// codes and secrets go over HTTPS only.
    #[error("the {what} at {host} is not https:// (only loopback hosts may use http://)")]
    InsecureUrl {
        /// Which URL.
        what: &'static str,
        /// Its host.
        host: String,
    },
    /// An exchange with an authorization or metadata server failed before it answered.
    #[error("{step} at {host} failed: {reason}")]
    Http {
        /// What was being done (`fetching the authorization server metadata`, ...).
        step: &'static str,
        /// The host.
        host: String,
        /// What the HTTP stack reported.
        reason: String,
    },
    /// A server answered with a status that carries no usable answer (redirects are never
    /// followed: one is reported here with its status).
    #[error("{step} at {host} answered with status {status}")]
    Status {
        /// What was being done.
        step: &'static str,
        /// The host.
        host: String,
        /// The HTTP status.
        status: u16,
    },
    /// A document (metadata, registration, token response) is not what the standard asks
    /// for: not JSON, too large, or a required member missing or of the wrong type.
    #[error("the {document} from {host} is malformed: {reason}")]
    Malformed {
        /// Which document.
        document: &'static str,
        /// The host that sent it.
        host: String,
        /// Which rule it broke (never quoting it).
        reason: String,
    },
    /// No protected resource metadata and no authorization server could be found.
    #[error("no authorization server could be discovered for {resource}")]
    NoAuthorizationServer {
        /// The MCP server's URL.
        resource: String,
    },
    /// The protected resource metadata names another resource than the server being
    /// reached (RFC 9728 §3.3): nothing is authorized for it.
    #[error("the protected resource metadata is for {published}, not for {expected}")]
    ResourceMismatch {
        /// The resource the metadata names.
        published: String,
        /// The server URL the client is connecting to.
        expected: String,
    },
    /// The authorization server metadata names another issuer than the one it was fetched
    /// for (RFC 8414 §3.3).
    #[error("the authorization server metadata names issuer {published}, expected {expected}")]
    IssuerMismatch {
        /// The issuer in the metadata.
        published: String,
        /// The issuer the client looked up.
        expected: String,
    },
    /// The authorization server does not advertise PKCE with S256, which the MCP
    /// authorization spec requires before an authorization code flow.
    #[error("the authorization server does not advertise PKCE S256")]
    PkceUnsupported,
    /// No way to identify the client to this authorization server: not pre-registered, no
    /// client ID metadata document support, and no registration endpoint.
    #[error(
        "no client identity for {issuer}: not pre-registered, no CIMD, no dynamic registration"
    )]
    NoClientIdentity {
        /// The authorization server.
        issuer: String,
    },
    /// The redirect back from the authorization server failed a check: the `state` does not
    /// match, the `iss` parameter is missing where advertised or names another issuer
    /// (RFC 9207), or no code came back.
    #[error("the authorization response was refused: {reason}")]
    AuthorizationResponse {
        /// Which check failed.
        reason: &'static str,
    },
    /// The authorization server answered the authorization request with an error.
    #[error("the authorization server refused the authorization: {error}")]
    AuthorizationDenied {
        /// The OAuth error code (`access_denied`, ...), if it is a registered-looking token.
        error: String,
    },
    /// The token endpoint answered with an OAuth error (`invalid_grant`, ...).
    #[error("the token endpoint at {host} refused the request: {error}")]
    TokenRefused {
        /// The host.
        host: String,
        /// The OAuth error code.
        error: String,
    },
    /// The access token names an audience that is not this server (a token for another
    /// resource): it is not sent.
    #[error("the access token was issued for another resource than {resource}")]
    WrongAudience {
        /// The resource the token was asked for.
        resource: String,
    },
    /// The user step (opening the URL, receiving the redirect) failed or was abandoned.
    #[error("the authorization step failed: {reason}")]
    UserStep {
        /// Why.
        reason: String,
    },
    /// The server kept refusing the client (401, or 403 `insufficient_scope`) after as many
    /// authorizations as the retry limit allows.
    #[error("the server still refuses access after {attempts} authorizations")]
    RetryLimit {
        /// How many authorizations were made for this request.
        attempts: usize,
    },
    /// The private key of `private_key_jwt` cannot be used.
    #[error("the client's private key cannot be used: {reason}")]
    PrivateKey {
        /// Why.
        reason: &'static str,
    },
    /// The operating system gave no random bytes for PKCE, `state` or a JWT id.
    #[error("no randomness from the operating system")]
    NoRandomness,
    /// Reading or writing the token store failed.
    #[error("the token store failed: {reason}")]
    Store {
        /// Why.
        reason: String,
    },
}

/// A value that must never be printed: tokens, secrets, codes. `Debug` shows `***`.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value, for sending it where it belongs.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self::new(value)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}
