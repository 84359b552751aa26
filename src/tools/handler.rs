//! Tool handlers (async, or synchronous on the blocking pool), their context and the
//! registry entry the runner executes.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::error::ToolCallError;
use super::progress::ProgressReporter;

/// What a handler returns: the tool's output as JSON, or why it failed.
pub type ToolResult = Result<Value, ToolCallError>;

/// The boxed future of an async handler.
pub type ToolFuture = Pin<Box<dyn Future<Output = ToolResult> + Send + 'static>>;

type AsyncFn = dyn Fn(ToolContext, Value) -> ToolFuture + Send + Sync;
type BlockingFn = dyn Fn(ToolContext, Value) -> ToolResult + Send + Sync;

/// A tool's implementation.
///
/// Async handlers run as tokio tasks; on timeout or cancel their token fires and the task is
/// aborted (its future dropped). Blocking handlers run on tokio's blocking pool; on timeout or
/// cancel their token fires and the answer goes out at once, while the thread finishes on its
/// own; its eventual result is discarded (and counted).
#[derive(Clone)]
pub enum ToolHandler {
    /// An async handler.
    Async(Arc<AsyncFn>),
    /// A synchronous handler, run with `spawn_blocking`.
    Blocking(Arc<BlockingFn>),
}

impl ToolHandler {
    /// Wraps an async function `(context, arguments) -> Result<output, error>`.
    pub fn from_async<F, Fut>(handler: F) -> Self
    where
        F: Fn(ToolContext, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResult> + Send + 'static,
    {
        Self::Async(Arc::new(move |context, arguments| {
            Box::pin(handler(context, arguments)) as ToolFuture
        }))
    }

    /// Wraps a synchronous function, to be run on the blocking pool. It should poll
    /// [`ToolContext::is_cancelled`] when it can, and stop once it is `true`.
    pub fn blocking<F>(handler: F) -> Self
    where
        F: Fn(ToolContext, Value) -> ToolResult + Send + Sync + 'static,
    {
        Self::Blocking(Arc::new(handler))
    }
}

impl std::fmt::Debug for ToolHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Async(_) => "ToolHandler::Async",
            Self::Blocking(_) => "ToolHandler::Blocking",
        })
    }
}

/// A registered tool: its handler and the metadata the runtime needs.
#[derive(Debug, Clone)]
pub struct ToolEntry {
    /// The implementation.
    pub handler: ToolHandler,
    /// The category the tool declares, selecting its timeout in `toolTimeouts`; the
    /// configuration's `toolCategories[tool]`, when present, wins over it.
    pub category: Option<String>,
    /// Whether, and for how long, a successful result may be served from the result cache.
    pub cache: crate::cache::CachePolicy,
    /// The largest response line a call may produce, in bytes, when the tool declares one
    /// (see [`ToolEntry::with_max_answer_bytes`]).
    pub max_answer_bytes: Option<usize>,
    /// Whether the tool declared that its async handler never blocks its thread, so its
    /// first poll may run on the caller's task (see [`ToolEntry::in_place`]).
    pub in_place: bool,
}

impl ToolEntry {
    /// An entry with no category that is not cacheable.
    #[must_use]
    pub fn new(handler: ToolHandler) -> Self {
        Self {
            handler,
            category: None,
            cache: crate::cache::CachePolicy::Uncacheable,
            max_answer_bytes: None,
            in_place: false,
        }
    }

    /// Declares that the async handler never blocks its thread (no blocking lock, sleep or
    /// long computation between two awaits): its first poll then runs on the calling task
    /// instead of a task of its own, and a handler that finishes in that poll, as most short
    /// tools do, costs no task at all. One still pending gets its own task then, watched for
    /// cancel and deadline as any other. The MCP server's calling task is the request's
    /// task, or, over stdio and other byte streams, the connection's reading task itself
    /// for a tool that is not cacheable (see [`Handler::runs_in_place`]): the call's
    /// argument checks and result rendering then run there too, one call at a time.
    ///
    /// What a handler that breaks the declaration costs: a first poll that blocks past the
    /// deadline is answered `TOOL_TIMEOUT` when it returns, not at the deadline, and on the
    /// reading task it holds up the connection meanwhile. Work that may block belongs in
    /// [`ToolHandler::blocking`], answered at the deadline whatever the thread does. No
    /// effect on a blocking handler.
    ///
    /// [`Handler::runs_in_place`]: crate::server::Handler::runs_in_place
    #[must_use]
    pub fn in_place(mut self) -> Self {
        self.in_place = true;
        self
    }

    /// Declares the largest answer a call produces: its whole response line, in bytes, as
    /// `maxResponseBytes` counts it. The MCP server's request loop reserves this much of its
    /// output budget while a call runs, and the result is kept within it as within
    /// `maxResponseBytes` (see
    /// [`ToolDefinition::max_answer_bytes`](crate::mcp::ToolDefinition::max_answer_bytes)).
    #[must_use]
    pub fn with_max_answer_bytes(mut self, bytes: usize) -> Self {
        self.max_answer_bytes = Some(bytes);
        self
    }

    /// Sets the declared category.
    #[must_use]
    pub fn with_category(mut self, category: impl Into<String>) -> Self {
        self.category = Some(category.into());
        self
    }

    /// Sets whether, and for how long, successful results may be cached.
    #[must_use]
    pub fn cache(mut self, policy: crate::cache::CachePolicy) -> Self {
        self.cache = policy;
        self
    }

    /// Marks the tool's successful results as cacheable, with the cache's TTL.
    #[must_use]
    pub fn cacheable(self, cacheable: bool) -> Self {
        self.cache(if cacheable {
            crate::cache::CachePolicy::cacheable()
        } else {
            crate::cache::CachePolicy::Uncacheable
        })
    }
}

/// What a handler gets besides its arguments.
#[derive(Clone)]
pub struct ToolContext {
    tool: Arc<str>,
    cancel: CancellationToken,
    deadline: Instant,
    progress: ProgressReporter,
    client: Option<super::client::ClientRequester>,
    auth: Option<Arc<crate::server::AuthInfo>>,
    extensions: Option<Arc<serde_json::Map<String, serde_json::Value>>>,
    stream_closer: Option<CancellationToken>,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("tool", &self.tool)
            .field("deadline", &self.deadline)
            .field("progress", &self.progress)
            .field("client", &self.client.is_some())
            .field("auth", &self.auth)
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    pub(crate) fn new(
        tool: Arc<str>,
        cancel: CancellationToken,
        deadline: Instant,
        progress: ProgressReporter,
        client: Option<super::client::ClientRequester>,
    ) -> Self {
        Self {
            tool,
            cancel,
            deadline,
            progress,
            client,
            auth: None,
            extensions: None,
            stream_closer: None,
        }
    }

    pub(crate) fn with_stream_closer(mut self, closer: Option<CancellationToken>) -> Self {
        self.stream_closer = closer;
        self
    }

    /// Asks the transport to end this call's event stream now, without ending the call: on
    /// a 2025 HTTP session whose answer is a resumable event stream, the connection closes,
    /// the handler runs on, and what it sends next (its result too) waits in the session's
    /// event log until the client resumes with GET and `Last-Event-ID` (SSE polling, for
    /// long calls behind proxies that cut idle connections). Returns whether it could
    /// (`false` on stdio, for a JSON answer, and in 2026-07-28: the call goes on as usual).
    pub fn close_event_stream(&self) -> bool {
        crate::server::close_event_stream(self.stream_closer.as_ref())
    }

    pub(crate) fn with_auth(mut self, auth: Option<Arc<crate::server::AuthInfo>>) -> Self {
        self.auth = auth;
        self
    }

    pub(crate) fn with_extensions(
        mut self,
        extensions: Option<Arc<serde_json::Map<String, serde_json::Value>>>,
    ) -> Self {
        self.extensions = extensions;
        self
    }

    /// The settings the client declared for the protocol extension `id`, when the server
    /// declares it too ([`McpServerBuilder::extension`](crate::mcp::McpServerBuilder::extension));
    /// `None` when either side did not, and then the tool must not use it. A 2025 client
    /// declares its extensions in `initialize`, a 2026-07-28 client in each request.
    #[must_use]
    pub fn extension(&self, id: &str) -> Option<&serde_json::Map<String, serde_json::Value>> {
        self.extensions.as_deref()?.get(id)?.as_object()
    }

    /// The caller's verified identity (subject, client id, scopes, claims) when the server
    /// is protected (`typed_mcp::http::auth`); `None` on stdio and unprotected HTTP.
    #[must_use]
    pub fn auth(&self) -> Option<&crate::server::AuthInfo> {
        self.auth.as_deref()
    }

    /// Sends a request to the client and waits for its result: `sampling/createMessage`,
    /// `elicitation/create`, `roots/list`. In the 2025 versions it is a JSON-RPC request on
    /// the connection (on an HTTP session, on this call's event stream); the call's timeout
    /// and cancellation cover the wait.
    ///
    /// # Errors
    ///
    /// [`ClientRequestError`](super::ClientRequestError): not available on this connection
    /// or era, a capability the client did not declare, the client's error, a malformed
    /// result, or the connection closing.
    pub async fn request_client(
        &self,
        method: &'static str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, super::client::ClientRequestError> {
        self.ask(None, method, params).await
    }

    /// [`request_client`](Self::request_client) with the key its answer is filed under in
    /// 2026-07-28 (`inputRequests` / `inputResponses`): the handler runs again on the
    /// client's retry and gets the answer under the same key.
    ///
    /// # Errors
    ///
    /// As [`request_client`](Self::request_client);
    /// [`ClientRequestError::InputRequired`](super::ClientRequestError::InputRequired) in
    /// 2026-07-28 until the retry brings the answer (pass it on with `?`).
    pub async fn ask(
        &self,
        key: Option<&str>,
        method: &'static str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, super::client::ClientRequestError> {
        let request = super::client::ClientRequest {
            key: key.map(str::to_owned),
            method,
            params,
        };
        match &self.client {
            Some(client) => client(request).await,
            None => Err(super::client::ClientRequestError::Unavailable(
                "this call has no client connection to ask",
            )),
        }
    }

    /// Runs the rest of the call as a task (2026-07-28, the Tasks extension), for a tool
    /// whose task starts in its handler
    /// ([`ToolDefinition::task_after_input`](crate::mcp::ToolDefinition::task_after_input)):
    /// the questions asked before it are answered in plain `input_required` rounds, and
    /// once they all have their answers the server answers the call with a task
    /// (`CreateTaskResult`) and runs the handler again as the task's work, from the start,
    /// with the same answers, where this returns `Ok(true)`. Questions asked after it park
    /// the task (`tasks/get`, `tasks/update`). So the code before it runs once per round,
    /// plus once in the task.
    ///
    /// `Ok(true)`: the call runs as a task. `Ok(false)`: it cannot become one and goes on
    /// as a plain call (the client did not declare the extension, a 2025 version, a tool
    /// without `task_after_input`).
    ///
    /// # Errors
    ///
    /// [`ClientRequestError::BecomesTask`](super::ClientRequestError::BecomesTask) when the
    /// call is to become a task now (pass it on with `?`; what the handler returns then is
    /// not sent).
    pub async fn run_as_task(&self) -> Result<bool, super::client::ClientRequestError> {
        if self.client.is_none() {
            return Ok(false);
        }
        let answer = self
            .ask(None, super::client::RUN_AS_TASK, serde_json::Value::Null)
            .await?;
        Ok(answer == serde_json::Value::Bool(true))
    }

    /// Asks the client's model for a message (`sampling/createMessage`, needs the client's
    /// `sampling` capability).
    ///
    /// # Errors
    ///
    /// As [`request_client`](Self::request_client).
    pub async fn sample(
        &self,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, super::client::ClientRequestError> {
        self.request_client("sampling/createMessage", params).await
    }

    /// Asks the user for input (`elicitation/create`, needs the `elicitation` capability).
    ///
    /// # Errors
    ///
    /// As [`request_client`](Self::request_client).
    pub async fn elicit(
        &self,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, super::client::ClientRequestError> {
        self.request_client("elicitation/create", params).await
    }

    /// Asks the user to open a URL out of band (`elicitation/create` in URL mode, needs the
    /// client's `elicitation.url` capability): a request in 2025-11-25, an `input_required`
    /// entry keyed by the elicitation id in 2026-07-28 (see [`UrlElicitation`]). The answer
    /// says only whether the user accepted (`content` is absent in URL mode).
    ///
    /// [`UrlElicitation`]: super::UrlElicitation
    ///
    /// # Errors
    ///
    /// As [`ask`](Self::ask); [`InvalidRequest`](super::ClientRequestError::InvalidRequest)
    /// for an empty id or a URL that is not absolute, and
    /// [`Malformed`](super::ClientRequestError::Malformed) for an answer that is not an
    /// `ElicitResult`.
    pub async fn elicit_url(
        &self,
        request: &super::UrlElicitation,
    ) -> Result<crate::generated::protocol::ElicitResult, super::client::ClientRequestError> {
        super::elicitation::ask_url(
            self.client.as_ref(),
            request,
            "this call has no client connection to ask",
        )
        .await
    }

    /// Tells the client that the out-of-band step of the URL-mode elicitation
    /// `elicitation_id` is done (`notifications/elicitation/complete`, 2025-11-25, to a client
    /// that declared `elicitation.url`). Returns whether it was sent: never in 2026-07-28,
    /// which has no such notification.
    pub async fn elicitation_complete(&self, elicitation_id: &str) -> bool {
        super::elicitation::complete(self.client.as_ref(), elicitation_id).await
    }

    /// The client's roots (`roots/list`, needs the `roots` capability).
    ///
    /// # Errors
    ///
    /// As [`request_client`](Self::request_client).
    pub async fn roots(&self) -> Result<serde_json::Value, super::client::ClientRequestError> {
        self.request_client("roots/list", serde_json::json!({}))
            .await
    }

    /// The name the tool was called by.
    #[must_use]
    pub fn tool_name(&self) -> &str {
        &self.tool
    }

    /// The call's cancellation token: it fires on timeout and on the client's cancel.
    #[must_use]
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the call has been cancelled or has timed out.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Completes when the call is cancelled or times out.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await;
    }

    /// When the call times out.
    #[must_use]
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Logs a message to the client (`notifications/message`), sent only when the client
    /// asked for this severity (`logging/setLevel` in the 2025 versions, the request's
    /// `_meta` log level in 2026-07-28). Returns whether it was passed on.
    pub fn log(
        &self,
        level: crate::generated::protocol::LoggingLevel,
        data: impl Into<serde_json::Value>,
    ) -> bool {
        self.progress.log(super::progress::LogMessage {
            level,
            logger: Some(self.tool.to_string()),
            data: data.into(),
        })
    }

    /// The progress hook (see [`ProgressReporter::report`]).
    #[must_use]
    pub fn progress(&self) -> &ProgressReporter {
        &self.progress
    }
}
