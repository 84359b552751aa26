//! The resource server's own HTTP requests to the authorization server: its metadata (OpenID
//! discovery or RFC 8414), its JWKS, and token introspection. Bounded in time and size. Over
//! `https://` with feature `tls`, through the rustls stack of the MCP client.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// Largest document read from the authorization server (metadata, JWKS, introspection).
const MAX_DOCUMENT_BYTES: usize = 256 * 1024;
/// Longest wait for one answer of the authorization server.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the authorization server could not be asked. Logged, never shown to a caller.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL is neither `http://` nor, with feature `tls`, `https://`.
    #[error("unsupported URL {0} (http://, or https:// with feature `tls`)")]
    UnsupportedUrl(String),
    /// A root certificate given in [`FetchOptions`] is not usable.
    #[error("invalid root certificate: {reason}")]
    InvalidCertificate {
        /// Why (nothing of the certificate is quoted).
        reason: String,
    },
    /// No connection or no answer in time.
    #[error("{url} could not be reached")]
    Unreachable {
        /// The URL asked.
        url: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The answer was not a success.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL asked.
        url: String,
        /// The status.
        status: u16,
    },
    /// The answer was too large or not a JSON object.
    #[error(
        "{url} answered something that is not a JSON object within {MAX_DOCUMENT_BYTES} bytes"
    )]
    Malformed {
        /// The URL asked.
        url: String,
    },
}

/// How the resource server reaches its authorization server over `https://` (feature
/// `tls`): rustls with the `ring` provider, as the MCP client, trusting the platform's root
/// certificates (unless turned off) and any given here.
///
/// ```no_run
/// # async fn run(ca_pem: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
/// use typed_mcp::http::auth::{FetchOptions, JwtValidator};
///
/// let options = FetchOptions::new().root_certificates_pem(ca_pem)?;
/// let validator = JwtValidator::discover_with(
///     "https://auth.example",
///     "https://mcp.example/mcp",
///     &options,
/// )
/// .await?;
/// # Ok(()) }
/// ```
#[cfg(feature = "tls")]
#[derive(Clone, Debug)]
pub struct FetchOptions {
    roots: Vec<rustls::pki_types::CertificateDer<'static>>,
    platform_roots: bool,
}

#[cfg(feature = "tls")]
impl Default for FetchOptions {
    fn default() -> Self {
        Self {
            roots: Vec::new(),
            platform_roots: true,
        }
    }
}

#[cfg(feature = "tls")]
impl FetchOptions {
    /// The platform's roots only.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Trusts the root certificates in `pem` (one or more `-----BEGIN CERTIFICATE-----`
    /// blocks) too.
    ///
    /// # Errors
    ///
    /// [`FetchError::InvalidCertificate`] when `pem` holds no certificate or one that does
    /// not parse.
    pub fn root_certificates_pem(mut self, pem: &[u8]) -> Result<Self, FetchError> {
        let found = crate::tls_client::roots_from_pem(pem)
            .map_err(|reason| FetchError::InvalidCertificate { reason })?;
        self.roots.extend(found);
        Ok(self)
    }

    /// Whether the platform's root certificates are trusted (yes by default).
    #[must_use]
    pub fn platform_roots(mut self, trusted: bool) -> Self {
        self.platform_roots = trusted;
        self
    }
}

/// The connector of the fetches: `http://`, and `https://` with feature `tls`.
#[cfg(feature = "tls")]
type Connector = crate::tls_client::HttpsConnector;
/// The connector of the fetches: `http://` only (feature `tls` off).
#[cfg(not(feature = "tls"))]
type Connector = HttpConnector;

/// A small HTTP client for the authorization server.
#[derive(Clone, Debug)]
pub(crate) struct Fetcher {
    client: HyperClient<Connector, Full<Bytes>>,
}

fn tcp_connector() -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.set_connect_timeout(Some(FETCH_TIMEOUT));
    connector
}

#[cfg(feature = "tls")]
impl Default for Fetcher {
    fn default() -> Self {
        Self::new(&FetchOptions::default())
            .expect("the platform's roots and the ring provider's defaults always make a config")
    }
}

#[cfg(not(feature = "tls"))]
impl Default for Fetcher {
    fn default() -> Self {
        let mut connector = tcp_connector();
        connector.enforce_http(true);
        Self {
            client: HyperClient::builder(TokioExecutor::new()).build(connector),
        }
    }
}

#[cfg(feature = "tls")]
impl Fetcher {
    /// A client trusting what `options` say.
    pub(crate) fn new(options: &FetchOptions) -> Result<Self, FetchError> {
        let connector = crate::tls_client::https_connector(
            tcp_connector(),
            &options.roots,
            options.platform_roots,
        )
        .map_err(|reason| FetchError::InvalidCertificate { reason })?;
        Ok(Self {
            client: HyperClient::builder(TokioExecutor::new()).build(connector),
        })
    }
}

impl Fetcher {
    /// GETs `url` as a JSON object.
    pub(crate) async fn get_json(&self, url: &str) -> Result<Value, FetchError> {
        let request = axum::http::Request::get(checked(url)?)
            .header("accept", "application/json")
            .body(Full::new(Bytes::new()))
            .map_err(|_| FetchError::UnsupportedUrl(url.to_owned()))?;
        self.send(url, request).await
    }

    /// POSTs a form (`application/x-www-form-urlencoded`) with HTTP Basic authentication.
    pub(crate) async fn post_form(
        &self,
        url: &str,
        basic: Option<&str>,
        form: String,
    ) -> Result<Value, FetchError> {
        let mut request = axum::http::Request::post(checked(url)?)
            .header("accept", "application/json")
            .header("content-type", "application/x-www-form-urlencoded");
        if let Some(basic) = basic {
            request = request.header("authorization", basic);
        }
        let request = request
            .body(Full::new(Bytes::from(form)))
            .map_err(|_| FetchError::UnsupportedUrl(url.to_owned()))?;
        self.send(url, request).await
    }

    async fn send(
        &self,
        url: &str,
        request: axum::http::Request<Full<Bytes>>,
    ) -> Result<Value, FetchError> {
        let unreachable =
            |source: Box<dyn std::error::Error + Send + Sync>| FetchError::Unreachable {
                url: url.to_owned(),
                source,
            };
        let answer = tokio::time::timeout(FETCH_TIMEOUT, async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|error| unreachable(Box::new(error)))?;
            let status = response.status();
            if !status.is_success() {
                return Err(FetchError::Status {
                    url: url.to_owned(),
                    status: status.as_u16(),
                });
            }
            Limited::new(response.into_body(), MAX_DOCUMENT_BYTES)
                .collect()
                .await
                .map(|collected| collected.to_bytes())
                .map_err(|_| FetchError::Malformed {
                    url: url.to_owned(),
                })
        })
        .await
        .map_err(|elapsed| unreachable(Box::new(elapsed)))??;
        match serde_json::from_slice::<Value>(&answer) {
            Ok(value @ Value::Object(_)) => Ok(value),
            _ => Err(FetchError::Malformed {
                url: url.to_owned(),
            }),
        }
    }
}

fn checked(url: &str) -> Result<&str, FetchError> {
    if url.starts_with("http://") || (cfg!(feature = "tls") && url.starts_with("https://")) {
        Ok(url)
    } else {
        Err(FetchError::UnsupportedUrl(url.to_owned()))
    }
}

/// The authorization server's metadata: OpenID discovery first, then RFC 8414 (with the
/// issuer's path inserted after the well-known prefix, as RFC 8414 section 3.1 says).
pub(crate) async fn discover(fetcher: &Fetcher, issuer: &str) -> Result<Value, FetchError> {
    let issuer = issuer.trim_end_matches('/');
    let openid = format!("{issuer}/.well-known/openid-configuration");
    match fetcher.get_json(&openid).await {
        Ok(metadata) => Ok(metadata),
        Err(first) => {
            let (origin, path) = split_origin(issuer);
            let rfc8414 = format!("{origin}/.well-known/oauth-authorization-server{path}");
            tracing::debug!(error = %first, "no OpenID discovery document: trying RFC 8414");
            fetcher.get_json(&rfc8414).await
        }
    }
}

/// `http://host:port/path` → (`http://host:port`, `/path`).
pub(crate) fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    match url[after_scheme..].find('/') {
        Some(slash) => url.split_at(after_scheme + slash),
        None => (url, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::split_origin;

    #[test]
    fn origin_and_path_are_split() {
        assert_eq!(split_origin("http://a:1/x/y"), ("http://a:1", "/x/y"));
        assert_eq!(split_origin("https://a"), ("https://a", ""));
    }
}
