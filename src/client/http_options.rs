//! What an HTTP client adds to its requests: extra headers, a static bearer token, and (with
//! feature `tls`) extra root certificates. Everything is checked when the options are built,
//! so a header value that is not valid HTTP never reaches the wire.

use hyper::header::{HeaderName, HeaderValue, AUTHORIZATION};

use super::{ClientError, ClientOptions};

/// The headers the transport sets itself; an extra header may not replace them.
const RESERVED: &[&str] = &[
    "accept",
    "connection",
    "content-length",
    "content-type",
    "host",
    "last-event-id",
    "mcp-method",
    "mcp-name",
    "mcp-protocol-version",
    "mcp-session-id",
    "transfer-encoding",
];

/// The HTTP part of [`ClientOptions`].
#[derive(Debug, Clone, Default)]
pub(crate) struct HttpSettings {
    /// Sent with every request, in order. Values are marked sensitive (hidden by `Debug`).
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
    /// `Authorization: Bearer …`, sensitive.
    pub(crate) bearer: Option<HeaderValue>,
    /// Root certificates trusted besides the platform's.
    #[cfg(feature = "tls")]
    pub(crate) roots: Vec<rustls::pki_types::CertificateDer<'static>>,
    /// Whether the platform's roots are trusted (on by default).
    #[cfg(feature = "tls")]
    pub(crate) platform_roots: bool,
    /// OAuth, when the server asks for it.
    #[cfg(feature = "tls")]
    pub(crate) oauth: Option<super::auth::OAuthOptions>,
}

impl HttpSettings {
    pub(crate) fn new() -> Self {
        Self {
            headers: Vec::new(),
            bearer: None,
            #[cfg(feature = "tls")]
            roots: Vec::new(),
            #[cfg(feature = "tls")]
            platform_roots: true,
            #[cfg(feature = "tls")]
            oauth: None,
        }
    }
}

impl ClientOptions {
    /// Sends the header `name: value` with every HTTP request (e.g. an API key). The value
    /// is kept out of `Debug` output.
    ///
    /// ```
    /// use typed_mcp::client::ClientOptions;
    ///
    /// let options = ClientOptions::new("my-agent", "1.0.0").header("X-Api-Key", "k-123")?;
    /// assert!(ClientOptions::new("a", "1").header("X-Bad", "line\nbreak").is_err());
    /// # Ok::<(), typed_mcp::client::ClientError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidHeader`] when the name is not a valid header name, names a
    /// header the transport sets itself (`Content-Type`, `Accept`, `Mcp-Session-Id`,
    /// `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Host`, …), or the value is not a
    /// valid header value (control characters, a line break).
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, ClientError> {
        let parsed =
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| ClientError::InvalidHeader {
                name: None,
                reason: "the name is not a valid HTTP header name",
            })?;
        if RESERVED.contains(&parsed.as_str()) {
            return Err(ClientError::InvalidHeader {
                name: Some(parsed.as_str().to_owned()),
                reason: "the transport sets this header itself",
            });
        }
        let mut value = HeaderValue::from_str(value).map_err(|_| ClientError::InvalidHeader {
            name: Some(parsed.as_str().to_owned()),
            reason: "the value is not a valid HTTP header value",
        })?;
        value.set_sensitive(true);
        self.http.headers.push((parsed, value));
        Ok(self)
    }

    /// Sends `Authorization: Bearer TOKEN` with every HTTP request. The token is kept out of
    /// `Debug` output and error messages.
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidHeader`] when the token is empty or is not a valid header value.
    pub fn bearer_token(mut self, token: &str) -> Result<Self, ClientError> {
        let refused = ClientError::InvalidHeader {
            name: Some(AUTHORIZATION.as_str().to_owned()),
            reason: "the bearer token is empty or not a valid HTTP header value",
        };
        if token.is_empty() || token.contains(char::is_whitespace) {
            return Err(refused);
        }
        let mut value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| refused)?;
        value.set_sensitive(true);
        self.http.bearer = Some(value);
        Ok(self)
    }

    /// Trusts the root certificates in `pem` (one or more `-----BEGIN CERTIFICATE-----`
    /// blocks) for `https://` servers, besides the platform's roots.
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidCertificate`] when `pem` holds no certificate or a block that
    /// does not parse.
    #[cfg(feature = "tls")]
    pub fn root_certificates_pem(mut self, pem: &[u8]) -> Result<Self, ClientError> {
        let found = crate::tls_client::roots_from_pem(pem)
            .map_err(|reason| ClientError::InvalidCertificate { reason })?;
        self.http.roots.extend(found);
        Ok(self)
    }

    /// Whether the platform's root certificates are trusted for `https://` (yes by default).
    /// Turned off, only the roots given by [`ClientOptions::root_certificates_pem`] are.
    #[cfg(feature = "tls")]
    pub fn platform_roots(mut self, trusted: bool) -> Self {
        self.http.platform_roots = trusted;
        self
    }
}
