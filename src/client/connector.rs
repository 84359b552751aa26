//! The hyper client of the HTTP transport: plain `http://`, and with feature `tls`,
//! `https://` through rustls (the `ring` provider), trusting the platform's roots and any
//! given in the options, offering HTTP/2 and HTTP/1.1 by ALPN. A failed handshake is
//! [`ClientError::Tls`] naming the host; nothing ever falls back to plain HTTP.

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;

use super::http_options::HttpSettings;
use super::ClientError;

/// The connector: TLS-capable with feature `tls`.
#[cfg(feature = "tls")]
pub(crate) type Connector = crate::tls_client::HttpsConnector;
/// The connector: plain HTTP only (feature `tls` off).
#[cfg(not(feature = "tls"))]
pub(crate) type Connector = HttpConnector;

/// The hyper client every request of one transport goes through.
pub(crate) type Http = HyperClient<Connector, Full<Bytes>>;

/// Whether `scheme` can be spoken by this build.
pub(crate) fn supports(scheme: &str) -> Result<(), &'static str> {
    match scheme {
        "http" => Ok(()),
        #[cfg(feature = "tls")]
        "https" => Ok(()),
        #[cfg(not(feature = "tls"))]
        "https" => Err("https:// needs the crate's `tls` feature"),
        _ => Err("only http:// and https:// URLs are supported"),
    }
}

/// A client for `settings` (the TLS configuration is built once here).
#[cfg(feature = "tls")]
pub(crate) fn build(settings: &HttpSettings) -> Result<Http, ClientError> {
    let connector = crate::tls_client::https_connector(
        HttpConnector::new(),
        &settings.roots,
        settings.platform_roots,
    )
    .map_err(|reason| ClientError::InvalidCertificate { reason })?;
    Ok(HyperClient::builder(TokioExecutor::new()).build(connector))
}

/// A client for `settings` (plain HTTP only).
#[cfg(not(feature = "tls"))]
pub(crate) fn build(settings: &HttpSettings) -> Result<Http, ClientError> {
    let _: &HttpSettings = settings;
    Ok(HyperClient::builder(TokioExecutor::new()).build_http())
}

/// The error of a failed exchange with `url`'s server at `step`: [`ClientError::Tls`] when
/// the TLS handshake failed, [`ClientError::Http`] otherwise.
pub(crate) fn error(
    url: &hyper::Uri,
    step: &'static str,
    error: &hyper_util::client::legacy::Error,
) -> ClientError {
    #[cfg(feature = "tls")]
    if let Some(tls) = tls_error(error) {
        return ClientError::Tls {
            host: url.host().unwrap_or_default().to_owned(),
            reason: tls.to_string(),
        };
    }
    ClientError::Http {
        url: url.to_string(),
        step,
        reason: describe(error),
    }
}

/// The error and its causes, joined (hyper's own message is often just "client error").
fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(current) = cause {
        text.push_str(": ");
        text.push_str(&current.to_string());
        cause = current.source();
    }
    text
}

/// The rustls error somewhere in the chain of `error` (an `io::Error` hides its inner
/// error from `source()`, so each is opened).
#[cfg(feature = "tls")]
fn tls_error<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut current = Some(error);
    while let Some(now) = current {
        if let Some(found) = now.downcast_ref::<rustls::Error>() {
            return Some(found);
        }
        if let Some(io) = now.downcast_ref::<std::io::Error>() {
            if let Some(found) = io.get_ref().and_then(|inner| tls_error(inner)) {
                return Some(found);
            }
        }
        current = now.source();
    }
    None
}
