//! OAuth at the transport: which answers ask for (more) authorization, and the error of a
//! failed one.

use hyper::body::Incoming;
use hyper::{Response, StatusCode};

use super::HttpTransport;
use crate::client::auth::AuthError;
use crate::client::ClientError;

/// When `response` asks for (more) authorization: 401, or 403 with `insufficient_scope`;
/// the `WWW-Authenticate` value, if any.
pub(super) fn refusal(response: &Response<Incoming>) -> Option<Option<String>> {
    let challenge = response
        .headers()
        .get(hyper::header::WWW_AUTHENTICATE)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    match response.status() {
        StatusCode::UNAUTHORIZED => Some(challenge),
        StatusCode::FORBIDDEN
            if challenge
                .as_deref()
                .is_some_and(|c| c.contains("insufficient_scope")) =>
        {
            Some(challenge)
        }
        _ => None,
    }
}

impl HttpTransport {
    /// [`ClientError::Auth`] for this server.
    pub(super) fn auth_error(&self, source: AuthError) -> ClientError {
        ClientError::Auth {
            url: self.url.to_string(),
            source,
        }
    }
}
