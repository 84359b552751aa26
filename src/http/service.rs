//! The tower service: Host/Origin checks, routing by HTTP method, the bound on concurrent
//! POSTs, and each POST handed to its era.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode};
use axum::response::Response as HttpResponse;
use bytes::Bytes;
use serde_json::value::RawValue;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::jsonrpc::{
    encode_batch_line, parse_frame_within, BatchPolicy, ErrorCode, Frame, Message,
    Request as RpcRequest, Response,
};
use crate::mcp::era::LEGACY_VERSIONS;
use crate::mcp::{Connection, ServerState};
use crate::server::SharedBatchPolicy;

use super::body::{declared_length, read};
use super::exchange::{self, Answer, Delivery};
use super::guard;
use super::headers::{
    accepted, accepts, is_json_content, single, MCP_PROTOCOL_VERSION, MCP_SESSION_ID,
};
use super::modern::{check_headers, is_modern, ParamsProbe};
use super::options::HttpOptions;
use super::params::ParamHeaders;
use super::post_stream;
use super::reply::{self, body_error, parse_failure};
use super::restore::{restore, sync};
use super::session_store::{MemorySessionStore, SessionRecord};
use super::sessions::{session_request, HttpSession, NewSession, OpenError, SessionTable};
use super::sse;
use super::stream;

/// An [`McpServer`](crate::mcp::McpServer) as a `tower::Service` of HTTP requests: mount it
/// at any path of an axum `Router` (`route_service`), or serve it with hyper directly.
/// Cheap to clone; clones share the sessions and the concurrency bound.
#[derive(Clone, Debug)]
pub struct McpHttpService {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    state: Arc<ServerState>,
    /// The tools' `x-mcp-header` arguments, and the catalog generation they were read from.
    param_headers: std::sync::Mutex<(u64, Arc<ParamHeaders>)>,
    options: HttpOptions,
    sessions: SessionTable,
    permits: Arc<Semaphore>,
    /// Cancelled by [`McpHttpService::close_streams`]: open listen streams end.
    closing: CancellationToken,
}

impl McpHttpService {
    pub(crate) fn new(state: Arc<ServerState>, options: HttpOptions) -> Self {
        let store = options
            .session_store
            .clone()
            .unwrap_or_else(|| Arc::new(MemorySessionStore::new(options.sse_replay_events())));
        let sessions = SessionTable::new(
            options.max_sessions(),
            options.session_idle_timeout(),
            store,
        );
        let permits = Arc::new(Semaphore::new(options.max_concurrent_requests()));
        Self {
            inner: Arc::new(Inner {
                param_headers: std::sync::Mutex::new((u64::MAX, Arc::default())),
                state,
                options,
                sessions,
                permits,
                closing: CancellationToken::new(),
            }),
        }
    }

    /// Ends every open `subscriptions/listen` stream with its closing result (and every one
    /// opened later at once), as a stdio server does at end of input, so clients see a clean
    /// end rather than a cut connection. [`RunningHttpServer::shutdown`](crate::http::RunningHttpServer::shutdown)
    /// calls it; when this service is mounted in your own router, call it before shutting
    /// your server down gracefully.
    pub fn close_streams(&self) {
        self.inner.closing.cancel();
    }

    /// How many 2025-era sessions are open.
    #[must_use]
    pub fn session_count(&self) -> usize {
        self.inner.sessions.len()
    }

    /// The options this service runs with.
    pub fn options(&self) -> &HttpOptions {
        &self.inner.options
    }
}

impl<B> tower::Service<Request<B>> for McpHttpService
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { Ok(inner.handle(request.map(Body::new)).await) })
    }
}

/// A 400 JSON-RPC error naming no request.
fn bad_request(message: &'static str) -> HttpResponse {
    reply::error(
        StatusCode::BAD_REQUEST,
        None,
        ErrorCode::INVALID_REQUEST,
        message,
    )
}

/// Why the session a request names cannot be used.
#[derive(Debug, Clone, Copy)]
enum NoSession {
    /// The header is malformed or repeated (400).
    Malformed,
    /// No live session has this id (404).
    Unknown,
}

impl NoSession {
    fn answer(self) -> HttpResponse {
        match self {
            Self::Malformed => bad_request("the Mcp-Session-Id header is malformed or repeated"),
            Self::Unknown => reply::error(
                StatusCode::NOT_FOUND,
                None,
                ErrorCode::INVALID_REQUEST,
                "the session does not exist or has expired: initialize a new one",
            ),
        }
    }
}

impl Inner {
    async fn handle(self: Arc<Self>, request: Request<Body>) -> HttpResponse {
        if let Err(refusal) = guard::check(request.headers(), request.uri(), &self.options) {
            tracing::warn!(?refusal, "request refused: Host or Origin not allowed");
            return reply::error(
                StatusCode::FORBIDDEN,
                None,
                ErrorCode::INVALID_REQUEST,
                refusal.message(),
            );
        }
        match *request.method() {
            Method::POST => self.post(request).await,
            Method::GET => self.get(request.headers()).await,
            Method::DELETE => self.delete(request.headers()).await,
            _ => reply::method_not_allowed("GET, POST, DELETE"),
        }
    }

    /// The session a request names: `Ok(None)` without the header. A session this process
    /// does not have is rebuilt from a shared store.
    async fn session(
        &self,
        headers: &HeaderMap,
        auth: &crate::server::SharedAuth,
    ) -> Result<Option<Arc<HttpSession>>, NoSession> {
        let id = match single(headers, &MCP_SESSION_ID) {
            Err(()) => return Err(NoSession::Malformed),
            Ok(None) => return Ok(None),
            Ok(Some(id)) => id,
        };
        if let Some(session) = self.sessions.get(id) {
            if sync(&session, auth.clone()).await {
                return Ok(Some(session));
            }
            // Ended elsewhere (DELETE) or expired in the store.
            let _closed = self.sessions.close(id);
            return Err(NoSession::Unknown);
        }
        restore(&self.state, &self.sessions, id, auth.clone())
            .await
            .map(Some)
            .ok_or(NoSession::Unknown)
    }

    async fn post(self: Arc<Self>, request: Request<Body>) -> HttpResponse {
        let Ok(permit) = Arc::clone(&self.permits).try_acquire_owned() else {
            tracing::warn!("request refused: too many requests in progress");
            return reply::busy(
                self.options.retry_after_seconds(),
                "too many requests in progress: retry later",
            );
        };
        let (parts, body) = request.into_parts();
        let headers = &parts.headers;
        // The caller's identity, when an auth layer in front verified it.
        let auth: crate::server::SharedAuth = parts
            .extensions
            .get::<Arc<crate::server::AuthInfo>>()
            .cloned();
        let accepted = accepted(headers);
        if !accepted.json && !accepted.event_stream {
            return reply::error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                ErrorCode::INVALID_REQUEST,
                "the Accept header must allow application/json or text/event-stream",
            );
        }
        if !is_json_content(headers) {
            return reply::error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                None,
                ErrorCode::INVALID_REQUEST,
                "the Content-Type must be application/json",
            );
        }
        let session = match self.session(headers, &auth).await {
            Ok(session) => session,
            Err(refusal) => return refusal.answer(),
        };
        let limit = self.options.max_body_bytes;
        let timeout = self.options.body_read_timeout();
        let bytes = match read(body, declared_length(headers), limit, timeout).await {
            Ok(bytes) => bytes,
            Err(error) => return body_error(&error),
        };
        let delivery = Delivery::for_accept(accepted);
        match session {
            Some(session) => {
                self.session_post(&session, headers, &bytes, delivery, permit, auth)
                    .await
            }
            None => {
                self.sessionless_post(headers, &bytes, delivery, permit, auth)
                    .await
            }
        }
    }

    /// A POST without a session: a 2026-07-28 request, or a 2025 `initialize`.
    async fn sessionless_post(
        &self,
        headers: &HeaderMap,
        bytes: &[u8],
        delivery: Delivery,
        permit: OwnedSemaphorePermit,
        auth: crate::server::SharedAuth,
    ) -> HttpResponse {
        let request = match parse_frame_within(bytes, BatchPolicy::Reject, self.options.max_depth) {
            Frame::Single(Ok(Message::Request(request))) => request.into_owned(),
            // Stateless notifications and responses have nothing to act on.
            Frame::Single(Ok(Message::Notification(_) | Message::Response(_))) => {
                return reply::accepted()
            }
            Frame::Single(Err(error)) => return parse_failure(&error),
            Frame::Batch(_) => return bad_request("batches are not accepted here"),
        };
        let probe = ParamsProbe::read(request.params.as_deref());
        if is_modern(headers, &request.method, &probe) {
            if let Err(error) = check_headers(headers, &request.method, &probe)
                .and_then(|()| self.check_param_headers(headers, &request, &probe))
            {
                let response = Response::error(Some(request.id), error);
                return reply::message(StatusCode::BAD_REQUEST, &response);
            }
            let connection = Arc::new(Connection::stateless(
                Arc::clone(&self.state),
                self.closing.child_token(),
            ));
            let delivery = delivery.with_progress(probe.wants_progress);
            // A listen stream is an event stream from its acknowledgement on.
            let delivery = match (request.method.as_ref(), delivery) {
                ("subscriptions/listen", Delivery::JsonOnly) => {
                    return reply::error(
                        StatusCode::NOT_ACCEPTABLE,
                        Some(request.id),
                        ErrorCode::INVALID_REQUEST,
                        "subscriptions/listen answers with an event stream: the Accept header \
                         must allow text/event-stream",
                    )
                }
                ("subscriptions/listen", _) => Delivery::Stream,
                (_, delivery) => delivery,
            };
            let answer = exchange::run(
                connection,
                request,
                CancellationToken::new(),
                delivery,
                None,
                auth,
                None,
            )
            .await;
            return respond(answer, true, permit);
        }
        if request.method == "initialize" {
            return self.initialize(request, delivery, permit, auth).await;
        }
        reply::error(
            StatusCode::BAD_REQUEST,
            Some(request.id),
            ErrorCode::INVALID_REQUEST,
            "the Mcp-Session-Id header is required: send initialize first (2025 versions), or \
             name the version in params._meta (2026-07-28)",
        )
    }

    /// The `Mcp-Param-*` headers of a `tools/call` whose tool mirrors arguments.
    fn check_param_headers(
        &self,
        headers: &HeaderMap,
        request: &RpcRequest<'_>,
        probe: &ParamsProbe,
    ) -> Result<(), crate::jsonrpc::ErrorObject<'static>> {
        let Some(tool) = probe.name.as_deref() else {
            return Ok(());
        };
        let param_headers = self.param_headers();
        if request.method != "tools/call" || !param_headers.has(tool) {
            return Ok(());
        }
        #[derive(serde::Deserialize)]
        struct Arguments {
            arguments: Option<serde_json::Map<String, serde_json::Value>>,
        }
        let arguments = request
            .params
            .as_deref()
            .and_then(|params| serde_json::from_str::<Arguments>(params.get()).ok())
            .and_then(|parsed| parsed.arguments);
        param_headers.check(tool, arguments.as_ref(), headers)
    }

    /// The mirrored arguments of the current tools (read again after the tools changed).
    fn param_headers(&self) -> Arc<ParamHeaders> {
        let sets = self.state.catalog.current();
        let mut cached = self
            .param_headers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cached.0 != sets.generation {
            *cached = (
                sets.generation,
                Arc::new(ParamHeaders::from_tools(&sets.tools.list)),
            );
        }
        Arc::clone(&cached.1)
    }

    /// `initialize`: a session is opened when it succeeds.
    async fn initialize(
        &self,
        request: RpcRequest<'static>,
        delivery: Delivery,
        permit: OwnedSemaphorePermit,
        auth: crate::server::SharedAuth,
    ) -> HttpResponse {
        let params = request.params.as_deref().map_or("{}", RawValue::get);
        let batches = SharedBatchPolicy::new(BatchPolicy::Reject);
        let connection = Arc::new(Connection::new(Arc::clone(&self.state), batches.clone()));
        let record = SessionRecord::new("", params);
        let answer = exchange::run(
            Arc::clone(&connection),
            request,
            CancellationToken::new(),
            delivery.json_only(),
            None,
            auth,
            None,
        )
        .await;
        let Answer::Json(response) = answer else {
            return respond(answer, false, permit);
        };
        let Some(version) = connection.legacy_version().filter(|_| !response.is_error()) else {
            return reply::message(StatusCode::OK, &response);
        };
        let record = SessionRecord {
            version: version.to_owned(),
            ..record
        };
        let opened = self.sessions.open(NewSession {
            connection: Arc::clone(&connection),
            batches,
            version,
            record: record.clone(),
        });
        match opened {
            Ok(session) => {
                // Notifications outside requests (resource updates) go to the GET stream.
                connection.set_standalone(session.standalone.clone());
                tracing::debug!(version, "HTTP session opened");
                // Stored before the client hears of it: its next request may go elsewhere.
                if let Err(error) = self.sessions.store().save(&session.id, &record).await {
                    tracing::warn!(%error, "the session's record could not be stored");
                }
                let mut answer = reply::message(StatusCode::OK, &response);
                if let Ok(value) = HeaderValue::from_str(&session.id) {
                    let _previous = answer.headers_mut().insert(MCP_SESSION_ID, value);
                }
                answer
            }
            Err(OpenError::Full) => {
                tracing::warn!("initialize refused: the session limit is reached");
                reply::busy(
                    self.options.retry_after_seconds(),
                    "too many open sessions: retry later",
                )
            }
            Err(OpenError::NoRandomness) => reply::error(
                StatusCode::INTERNAL_SERVER_ERROR,
                None,
                ErrorCode::INTERNAL_ERROR,
                "no session id could be generated",
            ),
        }
    }

    /// A POST in a session.
    async fn session_post(
        &self,
        session: &Arc<HttpSession>,
        headers: &HeaderMap,
        bytes: &[u8],
        delivery: Delivery,
        permit: OwnedSemaphorePermit,
        auth: crate::server::SharedAuth,
    ) -> HttpResponse {
        match single(headers, &MCP_PROTOCOL_VERSION) {
            Err(()) => {
                return bad_request("the MCP-Protocol-Version header is malformed or repeated")
            }
            Ok(Some(version)) if !LEGACY_VERSIONS.contains(&version) => {
                return bad_request(
                    "the MCP-Protocol-Version header names a version this session does not speak",
                )
            }
            Ok(_) => {}
        }
        match parse_frame_within(bytes, session.batches.get(), self.options.max_depth) {
            Frame::Single(Err(error)) => parse_failure(&error),
            Frame::Single(Ok(Message::Request(request))) => {
                let request = request.into_owned();
                let probe = ParamsProbe::read(request.params.as_deref());
                let delivery = delivery.with_progress(probe.wants_progress);
                let answer = session_request(session, request, delivery, auth).await;
                match answer {
                    Answer::Stream(streaming) => sse::response(post_stream::events(
                        streaming,
                        session,
                        permit,
                        self.options.sse_retry_ms(),
                    )),
                    other => respond(other, false, permit),
                }
            }
            Frame::Single(Ok(Message::Notification(notification))) => {
                stream::session_notification(session, &notification).await;
                reply::accepted()
            }
            Frame::Single(Ok(Message::Response(response))) => {
                session
                    .connection
                    .deliver_response(response.into_owned())
                    .await;
                reply::accepted()
            }
            Frame::Batch(members) => {
                let mut running = Vec::new();
                let mut answers = Vec::new();
                for member in members {
                    match member {
                        Err(error) => answers.push(error.to_error_response()),
                        Ok(Message::Request(request)) => running.push(session_request(
                            session,
                            request.into_owned(),
                            Delivery::JsonOnly,
                            auth.clone(),
                        )),
                        Ok(Message::Notification(notification)) => {
                            stream::session_notification(session, &notification).await;
                        }
                        Ok(Message::Response(response)) => {
                            session
                                .connection
                                .deliver_response(response.into_owned())
                                .await;
                        }
                    }
                }
                for answer in futures_util::future::join_all(running).await {
                    if let Answer::Json(response) = answer {
                        answers.push(response);
                    }
                }
                drop(permit);
                let mut body = Vec::new();
                if encode_batch_line(&answers, &mut body) {
                    reply::json(StatusCode::OK, body)
                } else {
                    reply::accepted()
                }
            }
        }
    }

    /// GET: the session's server-to-client event stream.
    async fn get(&self, headers: &HeaderMap) -> HttpResponse {
        if !accepts(headers, "text/event-stream") {
            return reply::error(
                StatusCode::NOT_ACCEPTABLE,
                None,
                ErrorCode::INVALID_REQUEST,
                "the Accept header must allow text/event-stream",
            );
        }
        match self.session(headers, &None).await {
            Err(refusal) => refusal.answer(),
            // Stateless: there is no stream to open.
            Ok(None) => reply::method_not_allowed("POST"),
            Ok(Some(session)) => {
                stream::open(session, headers, self.options.sse_keep_alive()).await
            }
        }
    }

    /// DELETE: ends a session.
    async fn delete(&self, headers: &HeaderMap) -> HttpResponse {
        let id = match single(headers, &MCP_SESSION_ID) {
            Err(()) => return bad_request("the Mcp-Session-Id header is malformed or repeated"),
            Ok(None) => return reply::method_not_allowed("POST"),
            Ok(Some(id)) => id,
        };
        let local = self.sessions.close(id);
        let stored = match self.sessions.store().remove(id).await {
            Ok(stored) => stored,
            Err(error) => {
                tracing::warn!(%error, "the session could not be removed from the store");
                false
            }
        };
        match id {
            _ if local || stored => {
                tracing::debug!("HTTP session closed by the client");
                let mut answer = HttpResponse::new(Body::empty());
                *answer.status_mut() = StatusCode::OK;
                answer
            }
            _ => reply::error(
                StatusCode::NOT_FOUND,
                None,
                ErrorCode::INVALID_REQUEST,
                "the session does not exist or has expired",
            ),
        }
    }
}

/// The HTTP answer to a request's [`Answer`]. `modern`: errors carry the 2026-07-28 status.
fn respond(answer: Answer, modern: bool, permit: OwnedSemaphorePermit) -> HttpResponse {
    match answer {
        Answer::Json(response) => {
            let status = if modern {
                reply::modern_response_status(&response)
            } else {
                StatusCode::OK
            };
            reply::owned_message(status, response)
        }
        Answer::Stream(streaming) => {
            use futures_util::StreamExt as _;
            // The permit is held until the stream ends.
            let events = streaming.into_events().map(move |event| {
                let _held = &permit;
                event
            });
            sse::response(events)
        }
        // The client cancelled the request: it gets no answer, only the end of the exchange.
        Answer::Cancelled => reply::accepted(),
    }
}
