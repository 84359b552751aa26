//! The user's part of the authorization code flow: open the authorization URL, and hand
//! back the URL the browser was redirected to. [`LoopbackRedirect`] does it as a native app
//! should (RFC 8252 §7.3: a listener on 127.0.0.1, the URL printed on stderr);
//! [`AutoApprove`] follows the URL itself, for authorization servers that approve without a
//! user (test servers, pre-consented clients).

use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::LOCATION;
use hyper::{Method, Request};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::AuthError;
use crate::client::connector::{self, Http};
use crate::client::ClientOptions;

/// What an [`AuthorizationStep`] returns: the URL it was redirected to.
pub type StepFuture<'a> = Pin<Box<dyn Future<Output = Result<String, AuthError>> + Send + 'a>>;

/// Shows the authorization URL to the user and receives the redirect.
pub trait AuthorizationStep: Send + Sync + std::fmt::Debug + 'static {
    /// The redirect URI the authorization server sends the user back to (registered with
    /// the server).
    fn redirect_uri(&self) -> String;

    /// Sends the user to `url` and returns the full URL of the redirect that came back
    /// (with its `code`, `state` and `iss` parameters).
    fn authorize<'a>(&'a self, url: &'a str) -> StepFuture<'a>;
}

/// Follows the authorization URL with one GET and takes the redirect from its `Location`
/// header, without a browser or a user: for authorization servers that approve at once.
#[derive(Debug)]
pub struct AutoApprove {
    client: Http,
    redirect_uri: String,
}

impl AutoApprove {
    /// With `redirect_uri` as the registered redirect, trusting the TLS roots of `options`.
    ///
    /// # Errors
    ///
    /// [`AuthError::UserStep`] when the HTTP client cannot be built.
    pub fn new(
        redirect_uri: impl Into<String>,
        options: &ClientOptions,
    ) -> Result<Self, AuthError> {
        let client = connector::build(&options.http).map_err(|error| AuthError::UserStep {
            reason: error.to_string(),
        })?;
        Ok(Self {
            client,
            redirect_uri: redirect_uri.into(),
        })
    }
}

impl AuthorizationStep for AutoApprove {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, url: &'a str) -> StepFuture<'a> {
        Box::pin(async move {
            let failed = |reason: &str| AuthError::UserStep {
                reason: reason.to_owned(),
            };
            let request = Request::builder()
                .method(Method::GET)
                .uri(url)
                .body(Full::new(Bytes::new()))
                .map_err(|_| failed("the authorization URL is not valid"))?;
            let response = self
                .client
                .request(request)
                .await
                .map_err(|_| failed("the authorization endpoint cannot be reached"))?;
            if !response.status().is_redirection() {
                return Err(AuthError::UserStep {
                    reason: format!(
                        "the authorization endpoint answered {} instead of redirecting",
                        response.status().as_u16()
                    ),
                });
            }
            response
                .headers()
                .get(LOCATION)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| failed("the redirect has no Location"))
        })
    }
}

/// A loopback redirect listener (RFC 8252): binds 127.0.0.1 on a port (0: any), prints the
/// authorization URL on stderr for the user to open, and waits for the browser's redirect
/// to `http://127.0.0.1:PORT/callback`.
#[derive(Debug)]
pub struct LoopbackRedirect {
    listener: std::sync::Mutex<Option<std::net::TcpListener>>,
    port: u16,
    timeout: std::time::Duration,
}

impl LoopbackRedirect {
    /// Binds 127.0.0.1:`port`; the user has `timeout` to finish in the browser.
    ///
    /// # Errors
    ///
    /// [`AuthError::UserStep`] when the port cannot be bound.
    pub fn bind(port: u16, timeout: std::time::Duration) -> Result<Self, AuthError> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port)).map_err(|error| {
            AuthError::UserStep {
                reason: format!("cannot listen on 127.0.0.1:{port}: {error}"),
            }
        })?;
        let port = listener
            .local_addr()
            .map_err(|error| AuthError::UserStep {
                reason: error.to_string(),
            })?
            .port();
        listener
            .set_nonblocking(true)
            .map_err(|error| AuthError::UserStep {
                reason: error.to_string(),
            })?;
        Ok(Self {
            listener: std::sync::Mutex::new(Some(listener)),
            port,
            timeout,
        })
    }

    async fn receive(&self) -> Result<String, AuthError> {
        let failed = |reason: String| AuthError::UserStep { reason };
        let listener = self
            .listener
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .and_then(|listener| listener.try_clone().ok())
            .ok_or_else(|| failed("the redirect listener is gone".to_owned()))?;
        let listener =
            TcpListener::from_std(listener).map_err(|error| failed(error.to_string()))?;
        loop {
            let (mut stream, _) = listener
                .accept()
                .await
                .map_err(|error| failed(error.to_string()))?;
            let mut buffer = vec![0; 8192];
            let mut filled = 0;
            while filled < buffer.len() {
                let read = stream
                    .read(&mut buffer[filled..])
                    .await
                    .map_err(|error| failed(error.to_string()))?;
                if read == 0 {
                    break;
                }
                filled += read;
                if buffer[..filled].windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            let head = String::from_utf8_lossy(&buffer[..filled]);
            let target = head
                .lines()
                .next()
                .and_then(|line| line.strip_prefix("GET "))
                .and_then(|rest| rest.split(' ').next())
                .filter(|target| target.starts_with("/callback"));
            let Some(target) = target else {
                let refused = stream
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    )
                    .await;
                if let Err(error) = refused {
                    tracing::debug!(%error, "answering a stray request on the redirect listener");
                }
                continue;
            };
            let page = "<!doctype html><title>Authorized</title><p>You can close this window and return to the terminal.</p>";
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            if let Err(error) = stream.write_all(answer.as_bytes()).await {
                tracing::debug!(%error, "answering the browser's redirect");
            }
            return Ok(format!("http://127.0.0.1:{}{target}", self.port));
        }
    }
}

impl AuthorizationStep for LoopbackRedirect {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize<'a>(&'a self, url: &'a str) -> StepFuture<'a> {
        Box::pin(async move {
            eprintln!("Open this URL in a browser to authorize the client:\n\n  {url}\n");
            tokio::time::timeout(self.timeout, self.receive())
                .await
                .map_err(|_| AuthError::UserStep {
                    reason: "no redirect arrived in time".to_owned(),
                })?
        })
    }
}
