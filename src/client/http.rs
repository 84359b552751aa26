//! Streamable HTTP, client side: one POST per message. 2026-07-28 requests carry the
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers; 2025 sessions carry the
//! `Mcp-Session-Id` the `initialize` answer assigned, and end with a DELETE. The answer is
//! a JSON body or an event stream whose events are routed like stdio lines.

use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use hyper::http::request::Builder;
use hyper::{Method, Request, Response, StatusCode, Uri};

use crate::http::{MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, MCP_SESSION_ID};

use super::connector::{self, Http};
use super::http_options::HttpSettings;
use super::router::Router;
use super::sse::SseParser;
use super::ClientError;

#[cfg(feature = "tls")]
mod challenge;
mod recover;

/// How many times a request's event stream is resumed before the request fails.
const MAX_RESUMES: usize = 3;

/// How many failed GET stream connections in a row end the listening.
const MAX_LISTEN_FAILURES: usize = 5;

/// Where to resume an event stream.
#[derive(Debug, Default)]
struct Resume {
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
}

/// One message to POST.
#[derive(Debug)]
pub(crate) struct Outgoing<'a> {
    /// The request's id, `None` for a notification or a response.
    pub(crate) id: Option<u64>,
    /// The JSON-RPC method (for `Mcp-Method`).
    pub(crate) method: &'a str,
    /// The tool or prompt name or resource URI (for `Mcp-Name`).
    pub(crate) name: Option<&'a str>,
    /// Extra headers (`Mcp-Param-*`).
    pub(crate) headers: &'a [(String, String)],
    /// The serialized message.
    pub(crate) body: Vec<u8>,
}

#[derive(Debug, Default)]
struct SessionState {
    /// The negotiated version, sent as `MCP-Protocol-Version`.
    version: Option<String>,
    /// Whether the 2026-07-28 headers are sent.
    modern: bool,
    /// The 2025 session id.
    session_id: Option<HeaderValue>,
    /// `Authorization: Bearer …` (sensitive), sent with every request.
    authorization: Option<HeaderValue>,
    /// The body of the `initialize` request that opened the session, sent again to open a
    /// new one when the server forgot it (404).
    initialize: Option<Vec<u8>>,
}

/// The HTTP transport of one client.
pub(crate) struct HttpTransport {
    client: Http,
    url: Uri,
    /// The options' extra headers (values sensitive).
    headers: Vec<(HeaderName, HeaderValue)>,
    router: Arc<Router>,
    state: Mutex<SessionState>,
    max_body_bytes: usize,
    /// The task reading the session's GET stream, if one runs.
    listener: Mutex<Option<tokio::task::AbortHandle>>,
    /// Held while a forgotten session is re-initialized, so that requests failing at once
    /// open one new session.
    recovering: tokio::sync::Mutex<()>,
    /// OAuth, when the options ask for it.
    #[cfg(feature = "tls")]
    auth: Option<super::auth::Authorizer>,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl HttpTransport {
    /// A transport posting to `url` (`http://`, or `https://` with feature `tls`).
    pub(crate) fn new(
        url: &str,
        router: Arc<Router>,
        max_body_bytes: usize,
        settings: &HttpSettings,
    ) -> Result<Self, ClientError> {
        let bad_url = |reason: &str| ClientError::Http {
            url: url.to_owned(),
            step: "parsing the URL",
            reason: reason.to_owned(),
        };
        let parsed: Uri = url.parse().map_err(|_| bad_url("not a valid URI"))?;
        connector::supports(parsed.scheme_str().unwrap_or("")).map_err(bad_url)?;
        if parsed.host().is_none() {
            return Err(bad_url("the URL has no host"));
        }
        let client = connector::build(settings)?;
        #[cfg(feature = "tls")]
        let auth = match &settings.oauth {
            Some(oauth) => Some(
                super::auth::Authorizer::new(oauth.clone(), client.clone(), url).map_err(
                    |source| ClientError::Auth {
                        url: url.to_owned(),
                        source,
                    },
                )?,
            ),
            None => None,
        };
        Ok(Self {
            client,
            #[cfg(feature = "tls")]
            auth,
            url: parsed,
            headers: settings.headers.clone(),
            router,
            state: Mutex::new(SessionState {
                authorization: settings.bearer.clone(),
                ..SessionState::default()
            }),
            max_body_bytes,
            listener: Mutex::new(None),
            recovering: tokio::sync::Mutex::new(()),
        })
    }

    /// Sets the version sent in `MCP-Protocol-Version` and whether the 2026-07-28 headers
    /// are sent.
    pub(crate) fn set_version(&self, version: &str, modern: bool) {
        let mut state = self.lock();
        state.version = Some(version.to_owned());
        state.modern = modern;
    }

    /// Forgets the version (before falling back to `initialize`).
    pub(crate) fn clear_version(&self) {
        let mut state = self.lock();
        state.version = None;
        state.modern = false;
    }

    /// POSTs one message and routes everything the answer carries. For a request, its
    /// answer reaches the router before this returns, or the request is failed.
    ///
    /// A 2025 session the server answers with 404 (expired, or the instance gone) is
    /// re-initialized once and the message sent again in the new session.
    pub(crate) async fn post(&self, outgoing: Outgoing<'_>) -> Result<(), ClientError> {
        let mut recovered = false;
        #[cfg(feature = "tls")]
        let mut authorizations = 0;
        #[cfg(feature = "tls")]
        if let Some(auth) = &self.auth {
            if let Some(bearer) = auth.bearer().await {
                self.lock().authorization = Some(bearer);
            }
        }
        loop {
            let sent_session = self.lock().session_id.clone();
            let request = self.build(&outgoing)?;
            let response = self
                .client
                .request(request)
                .await
                .map_err(|error| connector::error(&self.url, "POST", &error));
            let response = match response {
                Ok(response) => response,
                Err(error) => return self.fail(&outgoing, error),
            };
            let status = response.status();
            #[cfg(feature = "tls")]
            if let Some(auth) = &self.auth {
                if let Some(refused) = challenge::refusal(&response) {
                    if authorizations >= auth.max_authorizations() {
                        let source = super::auth::AuthError::RetryLimit {
                            attempts: authorizations,
                        };
                        return self.fail(&outgoing, self.auth_error(source));
                    }
                    authorizations += 1;
                    drop(response);
                    let sent = self.lock().authorization.clone();
                    match auth
                        .challenge(status.as_u16(), refused.as_deref(), sent.as_ref())
                        .await
                    {
                        Ok(bearer) => {
                            self.lock().authorization = Some(bearer);
                            continue;
                        }
                        Err(source) => return self.fail(&outgoing, self.auth_error(source)),
                    }
                }
            }
            if status == StatusCode::NOT_FOUND && !recovered && outgoing.method != "initialize" {
                if let Some(sent) = sent_session {
                    recovered = true;
                    drop(response);
                    if let Err(error) = self.recover_session(&sent).await {
                        return self.fail(&outgoing, error);
                    }
                    continue;
                }
            }
            if outgoing.method == "initialize" && status.is_success() {
                let mut state = self.lock();
                state.session_id = response.headers().get(MCP_SESSION_ID).cloned();
                state.initialize = Some(outgoing.body.clone());
            }
            return self.receive(&outgoing, response).await;
        }
    }

    /// A request's failure goes to its waiter; a notification's to the caller.
    fn fail(&self, outgoing: &Outgoing<'_>, error: ClientError) -> Result<(), ClientError> {
        match outgoing.id {
            Some(id) => {
                self.router.fail(id, error);
                Ok(())
            }
            None => Err(error),
        }
    }

    /// Routes what the answer to `outgoing` carries.
    async fn receive(
        &self,
        outgoing: &Outgoing<'_>,
        response: Response<Incoming>,
    ) -> Result<(), ClientError> {
        let status = response.status();
        let Some(id) = outgoing.id else {
            if !status.is_success() {
                return Err(self.status_error(outgoing.method, status));
            }
            return Ok(());
        };
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let read = if content_type.starts_with("text/event-stream") {
            let mut resume = Resume::default();
            let read = self.read_events(response, id, &mut resume).await;
            match read {
                Ok(()) if self.router.method_of(id).is_some() && resume.last_event_id.is_some() => {
                    self.resume(id, resume).await
                }
                other => other,
            }
        } else if content_type.starts_with("application/json") {
            self.read_json(response, id).await
        } else {
            Err(self.status_error(outgoing.method, status))
        };
        if let Err(error) = read {
            self.router.fail(id, error);
        }
        if self.router.method_of(id).is_some() {
            let error = if status.is_success() {
                ClientError::ConnectionClosed {
                    method: outgoing.method.to_owned(),
                }
            } else {
                self.status_error(outgoing.method, status)
            };
            self.router.fail(id, error);
        }
        Ok(())
    }

    /// Ends a 2025 session with DELETE (a server without sessions answers 405: fine).
    pub(crate) async fn close(&self) {
        let Some(session) = self.lock().session_id.take() else {
            return;
        };
        let request = self
            .request(Method::DELETE)
            .header(MCP_SESSION_ID, session)
            .body(Full::new(Bytes::new()));
        let Ok(request) = request else {
            return;
        };
        match self.client.request(request).await {
            Ok(response) => tracing::debug!(status = %response.status(), "session deleted"),
            Err(error) => tracing::debug!(%error, "DELETE of the session failed"),
        }
    }

    fn build(&self, outgoing: &Outgoing<'_>) -> Result<Request<Full<Bytes>>, ClientError> {
        let mut builder = self
            .request(Method::POST)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        let state = self.lock();
        if let Some(version) = &state.version {
            builder = builder.header(MCP_PROTOCOL_VERSION, version.as_str());
        }
        if state.modern {
            builder = builder.header(MCP_METHOD, outgoing.method);
            if let Some(name) = outgoing.name {
                builder = builder.header(MCP_NAME, name);
            }
            for (name, value) in outgoing.headers {
                builder = builder.header(name.as_str(), value.as_str());
            }
        }
        if let Some(session) = &state.session_id {
            builder = builder.header(MCP_SESSION_ID, session.clone());
        }
        builder
            .body(Full::new(Bytes::from(outgoing.body.clone())))
            .map_err(|_| ClientError::Http {
                url: self.url.to_string(),
                step: "building the request",
                reason: "a header value is not valid (a name or URI with control characters?)"
                    .to_owned(),
            })
    }

    async fn read_json(&self, response: Response<Incoming>, id: u64) -> Result<(), ClientError> {
        let mut body = response.into_body();
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
        if let Some(call) = self.router.deliver(&bytes, Some(id)) {
            self.answer(call.await).await;
        }
        Ok(())
    }

    /// Reads an event stream until the request is answered or the stream ends; updates
    /// `resume` with the last event id and the server's `retry` hint.
    async fn read_events(
        &self,
        response: Response<Incoming>,
        id: u64,
        resume: &mut Resume,
    ) -> Result<(), ClientError> {
        let mut body = response.into_body();
        let mut parser = SseParser::new(self.max_body_bytes);
        let mut answers = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|error| self.body_error(&error))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let pushed = parser.push(&data, |event| {
                // A priming event (an id and a retry hint, no message) carries no data.
                if event.iter().all(u8::is_ascii_whitespace) {
                    return;
                }
                if let Some(call) = self.router.deliver(event, Some(id)) {
                    answers.push(call);
                }
            });
            resume.last_event_id = parser.last_event_id.clone().or(resume.last_event_id.take());
            resume.retry_ms = parser.retry_ms.or(resume.retry_ms);
            pushed?;
            for call in answers.drain(..) {
                self.answer(call.await).await;
            }
            if self.router.method_of(id).is_none() {
                // The answer arrived: the stream has nothing more for this request.
                break;
            }
        }
        Ok(())
    }

    /// In a 2025 session, opens the session's GET stream in the background: the server's
    /// own requests and notifications arrive there; its requests are answered by POST. The
    /// stream is reopened (with `Last-Event-ID`, after the `retry` hint) when it ends, and
    /// given up when the server has none (405) or after repeated failures.
    pub(crate) async fn start_listening(self: &Arc<Self>) {
        if self.lock().session_id.is_none() {
            return;
        }
        // The stream is open before the first request goes out, so nothing the server
        // sends about that request is missed.
        let Some(first) = self.open_stream(None).await else {
            return;
        };
        let transport = Arc::clone(self);
        let task = tokio::spawn(async move { transport.listen(first).await });
        let previous = self
            .listener
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .replace(task.abort_handle());
        if let Some(previous) = previous {
            previous.abort();
        }
    }

    /// One GET of the session's stream: `None` when the server has none (or it failed).
    async fn open_stream(&self, last_event_id: Option<&str>) -> Option<Response<Incoming>> {
        let mut builder = self
            .request(Method::GET)
            .header(ACCEPT, "text/event-stream");
        {
            let state = self.lock();
            builder = builder.header(MCP_SESSION_ID, state.session_id.clone()?);
            if let Some(version) = &state.version {
                builder = builder.header(MCP_PROTOCOL_VERSION, version.as_str());
            }
        }
        if let Some(last) = last_event_id {
            builder = builder.header(crate::http::LAST_EVENT_ID, last);
        }
        let request = builder.body(Full::new(Bytes::new())).ok()?;
        let limit = std::time::Duration::from_secs(10);
        match tokio::time::timeout(limit, self.client.request(request)).await {
            Ok(Ok(response)) if response.status() == StatusCode::OK => Some(response),
            Ok(Ok(response)) => {
                tracing::debug!(status = %response.status(), "no GET stream for this session");
                None
            }
            Ok(Err(error)) => {
                tracing::debug!(%error, "opening the GET stream failed");
                None
            }
            Err(_) => {
                tracing::debug!("opening the GET stream timed out");
                None
            }
        }
    }

    /// Stops the GET stream task.
    pub(crate) fn stop_listening(&self) {
        let listener = self
            .listener
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(listener) = listener {
            listener.abort();
        }
    }

    async fn listen(&self, first: Response<Incoming>) {
        let mut resume = Resume::default();
        let mut response = Some(first);
        let mut failures = 0;
        while failures < MAX_LISTEN_FAILURES {
            let current = match response.take() {
                Some(current) => current,
                None => match self.open_stream(resume.last_event_id.as_deref()).await {
                    Some(current) => current,
                    None => {
                        failures += 1;
                        let wait = resume.retry_ms.unwrap_or(1000).min(60_000);
                        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
                        continue;
                    }
                },
            };
            failures = 0;
            let mut body = current.into_body();
            let mut parser = SseParser::new(self.max_body_bytes);
            let mut calls = Vec::new();
            while let Some(Ok(frame)) = body.frame().await {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                let pushed = parser.push(&data, |event| {
                    if event.iter().all(u8::is_ascii_whitespace) {
                        return;
                    }
                    if let Some(call) = self.router.deliver(event, None) {
                        calls.push(call);
                    }
                });
                for call in calls.drain(..) {
                    self.answer(call.await).await;
                }
                if pushed.is_err() {
                    break;
                }
            }
            resume.last_event_id = parser.last_event_id.or(resume.last_event_id.take());
            resume.retry_ms = parser.retry_ms.or(resume.retry_ms);
            let wait = resume.retry_ms.unwrap_or(1000).min(60_000);
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
        }
    }

    /// The stream of a request ended before its answer, after events with ids: reconnects
    /// with GET and `Last-Event-ID` after the server's `retry` hint (1 s without one), a few
    /// times, reading on until the answer arrives.
    async fn resume(&self, id: u64, mut resume: Resume) -> Result<(), ClientError> {
        for _ in 0..MAX_RESUMES {
            let Some(last) = resume.last_event_id.clone() else {
                return Ok(());
            };
            let wait =
                std::time::Duration::from_millis(resume.retry_ms.unwrap_or(1000).min(60_000));
            tokio::time::sleep(wait).await;
            let mut builder = self
                .request(Method::GET)
                .header(ACCEPT, "text/event-stream")
                .header(crate::http::LAST_EVENT_ID, last.as_str());
            {
                let state = self.lock();
                if let Some(session) = &state.session_id {
                    builder = builder.header(MCP_SESSION_ID, session.clone());
                }
                if let Some(version) = &state.version {
                    builder = builder.header(MCP_PROTOCOL_VERSION, version.as_str());
                }
            }
            let Ok(request) = builder.body(Full::new(Bytes::new())) else {
                return Ok(());
            };
            let response =
                self.client.request(request).await.map_err(|error| {
                    connector::error(&self.url, "GET (resuming a stream)", &error)
                })?;
            if !response.status().is_success() {
                return Err(self.status_error("GET", response.status()));
            }
            self.read_events(response, id, &mut resume).await?;
            if self.router.method_of(id).is_none() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// POSTs the client's answer to a request the server sent on a stream.
    async fn answer(&self, line: Vec<u8>) {
        let outgoing = Outgoing {
            id: None,
            method: "response",
            name: None,
            headers: &[],
            body: line,
        };
        if let Err(error) = Box::pin(self.post(outgoing)).await {
            tracing::warn!(%error, "answering the server's request failed");
        }
    }

    /// A request to the server's URL with the options' headers and the authorization.
    fn request(&self, method: Method) -> Builder {
        let mut builder = Request::builder().method(method).uri(self.url.clone());
        for (name, value) in &self.headers {
            builder = builder.header(name, value.clone());
        }
        if let Some(authorization) = &self.lock().authorization {
            builder = builder.header(AUTHORIZATION, authorization.clone());
        }
        builder
    }

    fn status_error(&self, method: &str, status: StatusCode) -> ClientError {
        ClientError::HttpStatus {
            url: self.url.to_string(),
            method: method.to_owned(),
            status: status.as_u16(),
        }
    }

    fn body_error(&self, error: &hyper::Error) -> ClientError {
        ClientError::Http {
            url: self.url.to_string(),
            step: "reading the body",
            reason: error.to_string(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
