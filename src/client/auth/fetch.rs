//! The HTTP exchanges of the OAuth layer: GET a JSON document, POST a form. Redirects are
//! never followed, bodies are bounded, and every URL must be `https://` unless its host is
//! loopback, so nothing secret travels in clear text to another machine.

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use hyper::{Method, Request, StatusCode};
use serde_json::{Map, Value};
use url::Url;

use super::AuthError;
use crate::client::connector::Http;

/// Largest metadata, registration or token document accepted.
const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// How long one exchange with an authorization or metadata server may take.
const EXCHANGE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Whether `url` may carry OAuth traffic: `https://`, or `http://` to a loopback host.
pub(crate) fn check_secure(url: &Url, what: &'static str) -> Result<(), AuthError> {
    let host = url.host_str().ok_or(AuthError::InvalidUrl { what })?;
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        _ => Err(AuthError::InsecureUrl {
            what,
            host: host.to_owned(),
        }),
    }
}

/// Whether the URL's host is this machine.
pub(crate) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Parses `text` as a URL that may carry OAuth traffic.
pub(crate) fn secure_url(text: &str, what: &'static str) -> Result<Url, AuthError> {
    let url = Url::parse(text).map_err(|_| AuthError::InvalidUrl { what })?;
    check_secure(&url, what)?;
    Ok(url)
}

/// An answer: status and body.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) body: Vec<u8>,
    pub(crate) host: String,
}

impl Answer {
    /// The body as a JSON object, or [`AuthError::Malformed`].
    pub(crate) fn object(&self, document: &'static str) -> Result<Map<String, Value>, AuthError> {
        match serde_json::from_slice::<Value>(&self.body) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(self.malformed(document, "not a JSON object")),
            Err(_) => Err(self.malformed(document, "not JSON")),
        }
    }

    pub(crate) fn malformed(&self, document: &'static str, reason: &str) -> AuthError {
        AuthError::Malformed {
            document,
            host: self.host.clone(),
            reason: reason.to_owned(),
        }
    }

    pub(crate) fn status_error(&self, step: &'static str) -> AuthError {
        AuthError::Status {
            step,
            host: self.host.clone(),
            status: self.status.as_u16(),
        }
    }
}

/// GETs `url` asking for JSON.
pub(crate) async fn get(client: &Http, url: &Url, step: &'static str) -> Result<Answer, AuthError> {
    let request = Request::builder()
        .method(Method::GET)
        .uri(url.as_str())
        .header(ACCEPT, "application/json")
        .body(Full::new(Bytes::new()))
        .map_err(|_| AuthError::InvalidUrl { what: step })?;
    exchange(client, url, request, step).await
}

/// POSTs `form` (URL-encoded) to `url`, with an optional `Authorization` header.
pub(crate) async fn post_form(
    client: &Http,
    url: &Url,
    form: &[(&str, &str)],
    authorization: Option<HeaderValue>,
    step: &'static str,
) -> Result<Answer, AuthError> {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri(url.as_str())
        .header(ACCEPT, "application/json")
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
    if let Some(mut value) = authorization {
        value.set_sensitive(true);
        builder = builder.header(AUTHORIZATION, value);
    }
    let request = builder
        .body(Full::new(Bytes::from(body)))
        .map_err(|_| AuthError::InvalidUrl { what: step })?;
    exchange(client, url, request, step).await
}

/// POSTs a JSON document (dynamic client registration).
pub(crate) async fn post_json(
    client: &Http,
    url: &Url,
    document: &Value,
    step: &'static str,
) -> Result<Answer, AuthError> {
    let request = Request::builder()
        .method(Method::POST)
        .uri(url.as_str())
        .header(ACCEPT, "application/json")
        .header(CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(document.to_string())))
        .map_err(|_| AuthError::InvalidUrl { what: step })?;
    exchange(client, url, request, step).await
}

async fn exchange(
    client: &Http,
    url: &Url,
    request: Request<Full<Bytes>>,
    step: &'static str,
) -> Result<Answer, AuthError> {
    let host = url.host_str().unwrap_or_default().to_owned();
    let http_error = |reason: String| AuthError::Http {
        step,
        host: host.clone(),
        reason,
    };
    let response = tokio::time::timeout(EXCHANGE_TIMEOUT, client.request(request))
        .await
        .map_err(|_| http_error("timed out".to_owned()))?
        .map_err(|error| {
            let uri: hyper::Uri = url.as_str().parse().unwrap_or_default();
            http_error(crate::client::connector::error(&uri, step, &error).to_string())
        })?;
    let status = response.status();
    let body = Limited::new(response.into_body(), MAX_DOCUMENT_BYTES);
    let body = tokio::time::timeout(EXCHANGE_TIMEOUT, body.collect())
        .await
        .map_err(|_| http_error("timed out reading the body".to_owned()))?
        .map_err(|_| AuthError::Malformed {
            document: step,
            host: host.clone(),
            reason: format!("the body is unreadable or over {MAX_DOCUMENT_BYTES} bytes"),
        })?
        .to_bytes()
        .to_vec();
    Ok(Answer { status, body, host })
}
