//! Session recovery: a 2025 server that answers a session's request with 404 has forgotten
//! the session (it expired, or the instance that held it is gone). As the spec asks of
//! clients, a new session is opened with the same `initialize` request, without a session
//! id, and the request is sent again once.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use hyper::Method;
use serde_json::Value;

use super::{HttpTransport, Outgoing, MCP_SESSION_ID};
use crate::client::sse::SseParser;
use crate::client::ClientError;

impl HttpTransport {
    /// Opens a new session in place of `forgotten` (unless another request already did).
    pub(super) async fn recover_session(&self, forgotten: &HeaderValue) -> Result<(), ClientError> {
        let _one_at_a_time = self.recovering.lock().await;
        let (initialize, version) = {
            let mut state = self.lock();
            if state.session_id.as_ref() != Some(forgotten) {
                // Another request opened the new session meanwhile.
                return Ok(());
            }
            state.session_id = None;
            (state.initialize.clone(), state.version.clone())
        };
        let Some(initialize) = initialize else {
            return Err(self.recovery_error("no initialize request to repeat"));
        };
        tracing::info!(url = %self.url, "the server forgot the session (404): initializing a new one");
        let request = self
            .request(Method::POST)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(Full::new(Bytes::from(initialize)))
            .map_err(|_| self.recovery_error("the initialize request cannot be built"))?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|error| crate::client::connector::error(&self.url, "POST", &error))?;
        if !response.status().is_success() {
            return Err(self.status_error("initialize", response.status()));
        }
        let session = response.headers().get(MCP_SESSION_ID).cloned();
        let event_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
        let body = self.read_bounded(response.into_body()).await?;
        let message = if event_stream {
            let mut found = None;
            let mut parser = SseParser::new(self.max_body_bytes);
            parser.push(&body, |event| {
                if found.is_none() && !event.iter().all(u8::is_ascii_whitespace) {
                    found = Some(event.to_vec());
                }
            })?;
            found.unwrap_or_default()
        } else {
            body
        };
        let answered: Option<String> = serde_json::from_slice::<Value>(&message)
            .ok()
            .and_then(|v| v["result"]["protocolVersion"].as_str().map(str::to_owned));
        let Some(answered) = answered else {
            return Err(self.recovery_error("the new initialize was not answered with a result"));
        };
        if version.as_ref().is_some_and(|v| *v != answered) {
            return Err(self.recovery_error(
                "the new session answered with another protocol version than the first",
            ));
        }
        self.lock().session_id = session;
        let notification = Outgoing {
            id: None,
            method: "notifications/initialized",
            name: None,
            headers: &[],
            body: br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(),
        };
        Box::pin(self.post(notification)).await
    }

    async fn read_bounded(&self, mut body: hyper::body::Incoming) -> Result<Vec<u8>, ClientError> {
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|error| self.body_error(&error))?;
            if let Ok(data) = frame.into_data() {
                bytes.extend_from_slice(&data);
                if bytes.len() > self.max_body_bytes {
                    return Err(ClientError::LineTooLong {
                        limit: self.max_body_bytes,
                        actual_at_least: bytes.len(),
                    });
                }
            }
        }
        Ok(bytes)
    }

    fn recovery_error(&self, reason: &str) -> ClientError {
        ClientError::Http {
            url: self.url.to_string(),
            step: "re-initializing a session the server forgot",
            reason: reason.to_owned(),
        }
    }
}
