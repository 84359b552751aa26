//! What the request loop calls: the [`Handler`] trait and the contexts it receives.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::framing::{FramingError, WriterHandle};
use crate::jsonrpc::params_index::ParamsIndex;
use crate::jsonrpc::{ErrorObject, Id, Notification, Response};

/// What a request handler returns: the `result` member as raw JSON, or the `error` member.
pub type HandlerResult = Result<Box<RawValue>, ErrorObject<'static>>;

/// The application behind the request loop (e.g. the MCP server).
///
/// The loop calls [`handle_request`](Self::handle_request) for every request, each in its own
/// task, so requests run concurrently; it calls
/// [`handle_notification`](Self::handle_notification) and
/// [`handle_response`](Self::handle_response) in order, on the reading task, so those must
/// be quick (spawn work that is not).
///
/// Implementations may use `async fn`; the returned futures must be `Send` (the compiler
/// checks this at the `impl`).
///
/// ```
/// use serde_json::value::RawValue;
/// use typed_mcp::jsonrpc::{ErrorCode, ErrorObject};
/// use typed_mcp::server::{Handler, HandlerResult, RequestContext};
///
/// struct Pong;
///
/// impl Handler for Pong {
///     async fn handle_request(
///         &self,
///         _ctx: RequestContext,
///         method: &str,
///         _params: Option<&RawValue>,
///     ) -> HandlerResult {
///         match method {
///             "ping" => Ok(RawValue::from_string("{}".to_owned()).expect("valid JSON")),
///             _ => Err(ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, "method not found")),
///         }
///     }
/// }
/// ```
pub trait Handler: Send + Sync + 'static {
    /// Answers one request.
    ///
    /// The future is dropped, unfinished, when the request is cancelled: by the client's
    /// `notifications/cancelled` (then no response is sent at all), or when the shutdown
    /// grace period ends (then the loop answers with an error). `ctx.cancellation()` fires
    /// just before, for work the handler started elsewhere (blocking threads, spawned tasks).
    fn handle_request(
        &self,
        ctx: RequestContext,
        method: &str,
        params: Option<&RawValue>,
    ) -> impl Future<Output = HandlerResult> + Send;

    /// The most bytes the answer to this request can take, when the handler knows it before
    /// running the request: the whole response line (`{"jsonrpc":"2.0","id":..,"result":..}`
    /// and its newline), as `maxResponseBytes` counts it. `None` (the default) means unknown.
    ///
    /// The loop calls this on the reading task for every request it reads (each member of a
    /// batch), so it must be quick: no parsing beyond what finding the answer's bound needs.
    /// A request with a bound is started only while the output budget
    /// ([`ServeOptions::max_queued_bytes`](super::ServeOptions::max_queued_bytes)) has room
    /// for that bound besides the answers waiting and the bounds of the others running; the
    /// bound stays reserved until its answer is queued. A request without one is admitted on
    /// the budget's estimate, as always. So a burst of requests with bounds, against a client
    /// that does not read, holds at most about the budget in answers, even before the first
    /// answer exists.
    ///
    /// The handler must keep the answer within the bound it declared (the MCP server cuts or
    /// refuses a tool's result over its [`max_answer_bytes`](crate::mcp::ToolDefinition::max_answer_bytes)):
    /// a larger answer is still sent whole, but the budget was not reserved for it.
    fn max_answer_bytes(&self, _method: &str, _params: Option<&RawValue>) -> Option<usize> {
        None
    }

    /// Whether this request may start on the reading task itself rather than on a task of
    /// its own: the handler promises that its future for it never blocks its thread and
    /// does little before it first waits. A request that is answered in that first poll,
    /// as a quick one is, then costs no task and no hand-off between threads; one still
    /// pending after it moves to a task of its own and goes on there like any other. `false`
    /// (the default) gives every request its own task from the start, so that a handler
    /// that blocks never holds up the reading of the next request.
    ///
    /// A handler that says yes and then blocks holds up everything the loop does meanwhile:
    /// reading, cancellations, signals. Its future must also keep the future contract of
    /// registering its waker again at every poll: the first poll gets a waker that does
    /// nothing, and the task it moves to polls it again at once.
    ///
    /// The loop calls this on the reading task for every request it reads, so it must be
    /// quick (a batch's members run on the batch's task whatever it says).
    fn runs_in_place(&self, _method: &str, _params: Option<&RawValue>) -> bool {
        false
    }

    /// Receives one notification (never answered). `notifications/cancelled` is handled by
    /// the loop itself and not passed on. The default ignores the notification.
    fn handle_notification(
        &self,
        _ctx: NotificationContext,
        method: &str,
        _params: Option<&RawValue>,
    ) -> impl Future<Output = ()> + Send {
        tracing::debug!(method, "notification ignored");
        std::future::ready(())
    }

    /// Receives a response to a request this side sent. The default logs and drops it.
    fn handle_response(&self, response: Response<'static>) -> impl Future<Output = ()> + Send {
        tracing::debug!(id = ?response.id, "response ignored: no request was sent");
        std::future::ready(())
    }

    /// Called once when the loop stops reading (the input ended, a signal, a stop), before
    /// the requests in flight get their grace period: end long-lived requests (e.g.
    /// subscription streams) gracefully here. The default does nothing.
    fn on_stop_reading(&self) -> impl Future<Output = ()> + Send {
        std::future::ready(())
    }

    /// Called once during shutdown, after the last request finished (or was cancelled) and
    /// before the output is flushed: stop background tasks here. The default does nothing.
    fn on_shutdown(&self) -> impl Future<Output = ()> + Send {
        std::future::ready(())
    }
}

impl<H: Handler> Handler for Arc<H> {
    fn handle_request(
        &self,
        ctx: RequestContext,
        method: &str,
        params: Option<&RawValue>,
    ) -> impl Future<Output = HandlerResult> + Send {
        (**self).handle_request(ctx, method, params)
    }

    fn max_answer_bytes(&self, method: &str, params: Option<&RawValue>) -> Option<usize> {
        (**self).max_answer_bytes(method, params)
    }

    fn runs_in_place(&self, method: &str, params: Option<&RawValue>) -> bool {
        (**self).runs_in_place(method, params)
    }

    fn handle_notification(
        &self,
        ctx: NotificationContext,
        method: &str,
        params: Option<&RawValue>,
    ) -> impl Future<Output = ()> + Send {
        (**self).handle_notification(ctx, method, params)
    }

    fn handle_response(&self, response: Response<'static>) -> impl Future<Output = ()> + Send {
        (**self).handle_response(response)
    }

    fn on_stop_reading(&self) -> impl Future<Output = ()> + Send {
        (**self).on_stop_reading()
    }

    fn on_shutdown(&self) -> impl Future<Output = ()> + Send {
        (**self).on_shutdown()
    }
}

/// Everything a request handler gets besides the method and params.
#[derive(Clone, Debug)]
pub struct RequestContext {
    id: Id<'static>,
    cancellation: CancellationToken,
    peer: Peer,
    auth: super::SharedAuth,
    /// Fired to end the request's event stream early (a resumable HTTP stream only).
    stream_closer: Option<CancellationToken>,
    /// Where the members of the request's params lie in their text, when the frame's
    /// check recorded them (stdio): the MCP layer reads a `tools/call` by it.
    params_index: Option<Box<ParamsIndex>>,
}

impl RequestContext {
    /// A request's context. The caller polls the handler's future under its own wait on
    /// `cancellation` (`tokio::select!` with `cancelled()`), so the task is woken when it
    /// fires: the MCP layer relies on it (`ToolRunner::execute_watched`).
    pub(crate) fn new(id: Id<'static>, cancellation: CancellationToken, peer: Peer) -> Self {
        Self {
            id,
            cancellation,
            peer,
            auth: None,
            stream_closer: None,
            params_index: None,
        }
    }

    /// The same context, with the index of its request's params ([`ParamsIndex`]: only the
    /// index recorded from the very params the handler is given).
    pub(crate) fn with_params_index(mut self, index: Option<Box<ParamsIndex>>) -> Self {
        self.params_index = index;
        self
    }

    /// Takes the index of the request's params, when the transport recorded one (taken, so
    /// that a clone of the context does not copy it).
    pub(crate) fn take_params_index(&mut self) -> Option<Box<ParamsIndex>> {
        self.params_index.take()
    }

    /// The same context, whose request's event stream the handler may end early
    /// ([`close_event_stream`](Self::close_event_stream)): set by the HTTP transport on a
    /// resumable stream.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_stream_closer(mut self, closer: Option<CancellationToken>) -> Self {
        self.stream_closer = closer;
        self
    }

    /// The token that ends the request's event stream early, if it has a resumable one.
    pub(crate) fn stream_closer(&self) -> Option<CancellationToken> {
        self.stream_closer.clone()
    }

    /// Asks the transport to end this request's event stream now, without ending the
    /// request: on a 2025 HTTP session whose answer is a resumable event stream, the server
    /// closes the connection, the handler runs on, and what it sends (its result too) waits
    /// in the session's event log for the client to resume with GET and `Last-Event-ID`
    /// (SSE polling). Returns whether the transport can do that (`false`: stdio, JSON
    /// answers, 2026-07-28; the request is answered as usual).
    pub fn close_event_stream(&self) -> bool {
        close(self.stream_closer.as_ref())
    }

    /// The same context, carrying the caller's verified identity (set by the HTTP transport).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_auth(mut self, auth: super::SharedAuth) -> Self {
        self.auth = auth;
        self
    }

    /// The caller's verified identity, when the transport authenticated the request (HTTP
    /// behind `typed_mcp::http::auth`); `None` on stdio and unprotected HTTP.
    #[must_use]
    pub fn auth(&self) -> Option<&super::AuthInfo> {
        self.auth.as_deref()
    }

    pub(crate) fn shared_auth(&self) -> super::SharedAuth {
        self.auth.clone()
    }

    /// The request id, byte for byte as the client wrote it.
    #[must_use]
    pub fn id(&self) -> &Id<'static> {
        &self.id
    }

    /// Fires when the request is cancelled (client cancel or end of the shutdown grace
    /// period). Pass it to work that outlives the handler's future.
    #[must_use]
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Whether the request was cancelled.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Sends notifications to the client (e.g. progress).
    #[must_use]
    pub fn peer(&self) -> &Peer {
        &self.peer
    }
}

/// Fires `closer` (see [`RequestContext::close_event_stream`]); whether there was one.
pub(crate) fn close(closer: Option<&CancellationToken>) -> bool {
    closer.map(CancellationToken::cancel).is_some()
}

/// Everything a notification handler gets besides the method and params.
#[derive(Clone, Debug)]
pub struct NotificationContext {
    peer: Peer,
}

impl NotificationContext {
    pub(crate) fn new(peer: Peer) -> Self {
        Self { peer }
    }

    /// Sends notifications to the client.
    #[must_use]
    pub fn peer(&self) -> &Peer {
        &self.peer
    }
}

/// The client side of the connection, as far as handlers may write to it: notifications go
/// through the one writer task, so they never interleave with responses.
#[derive(Clone)]
pub struct Peer {
    writer: WriterHandle,
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("closed", &self.writer.is_closed())
            .finish()
    }
}

impl Peer {
    pub(crate) fn new(writer: WriterHandle) -> Self {
        Self { writer }
    }

    /// Sends a notification, waiting while the output queue is full.
    ///
    /// # Errors
    ///
    /// [`FramingError::WriterClosed`] once the output has shut down or failed.
    pub async fn notify(
        &self,
        method: impl Into<Cow<'static, str>>,
        params: Option<Box<RawValue>>,
    ) -> Result<(), FramingError> {
        let notification = Notification::new(method, params.map(Cow::Owned));
        self.writer.send(notification).await
    }

    /// Sends a request to the client (its answer arrives through
    /// [`Handler::handle_response`]), waiting while the output queue is full.
    ///
    /// # Errors
    ///
    /// [`FramingError::WriterClosed`] once the output has shut down or failed.
    pub async fn request(
        &self,
        id: Id<'static>,
        method: impl Into<Cow<'static, str>>,
        params: Option<Box<RawValue>>,
    ) -> Result<(), FramingError> {
        let request = crate::jsonrpc::Request::new(id, method, params.map(Cow::Owned));
        self.writer.send(request).await
    }

    /// Whether the output no longer accepts messages.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.writer.is_closed()
    }
}
