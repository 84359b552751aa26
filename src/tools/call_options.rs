//! [`CallOptions`]: what the server provides for one call besides its arguments.

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::progress::{LogSink, ProgressSink};
use crate::jsonrpc::Id;

/// Bytes of a JSON-RPC response line around its `result` and `id`:
/// `{"jsonrpc":"2.0","id":<id>,"result":<result>}` and the newline.
const LINE_OVERHEAD_BASE: usize = r#"{"jsonrpc":"2.0","id":,"result":}"#.len() + 1;

/// Per-call inputs the server provides.
#[derive(Clone)]
pub struct CallOptions {
    /// When the request arrived; `durationMs` and the deadline count from here.
    pub started: Instant,
    /// Fires when the client cancels the request (`notifications/cancelled`); the runner then
    /// stops the handler and reports [`CallOutcome::Cancelled`](super::CallOutcome::Cancelled).
    pub cancel: CancellationToken,
    /// Where the handler's progress reports go, if the client asked for progress.
    pub progress: Option<ProgressSink>,
    /// Where the handler's log messages go, if the client asked for any.
    pub log: Option<LogSink>,
    /// Sends requests to the client for the handler ([`ToolContext::request_client`](super::ToolContext::request_client)).
    pub client: Option<super::client::ClientRequester>,
    /// The handler's output is a list of content blocks (rendered as the result's
    /// `content`), not data.
    pub content_blocks: bool,
    /// The handler's output is described by a published `outputSchema`: it is never cut
    /// to fit the response limit (a text output that does not fit is `RESPONSE_TOO_LARGE`).
    pub structured_output: bool,
    /// Bytes of the response line outside the `result` member (see
    /// [`CallOptions::for_request`]); the result is kept within `maxResponseBytes` minus this.
    pub line_overhead: usize,
    /// Writes the result without `resultType` (the 2025 protocol versions' shape); it is cut
    /// or refused at the same size as with it.
    pub legacy_result: bool,
    /// The tool's declared answer bound ([`ToolEntry::max_answer_bytes`](super::ToolEntry::max_answer_bytes)): when smaller than
    /// `maxResponseBytes`, the response line is kept within it instead.
    pub max_answer_bytes: Option<usize>,
    /// The caller's verified identity ([`ToolContext::auth`](super::ToolContext::auth)).
    pub auth: Option<std::sync::Arc<crate::server::AuthInfo>>,
    /// The extensions both the server and the client declared, with the client's settings
    /// ([`ToolContext::extension`](super::ToolContext::extension)); `None`: none.
    pub extensions: Option<std::sync::Arc<serde_json::Map<String, serde_json::Value>>>,
    /// Fired by [`ToolContext::close_event_stream`](super::ToolContext::close_event_stream):
    /// ends the call's resumable HTTP event stream early; `None`: the call has none.
    pub stream_closer: Option<CancellationToken>,
}

impl CallOptions {
    /// Options for the request with this id: starts now, a fresh cancellation token, no
    /// progress sink, and the line overhead of a response carrying `id`.
    #[must_use]
    pub fn for_request(id: &Id<'_>) -> Self {
        Self::with_line_overhead(LINE_OVERHEAD_BASE + id.as_json().len())
    }

    /// Like [`CallOptions::for_request`], with the line overhead given directly.
    #[must_use]
    pub fn with_line_overhead(line_overhead: usize) -> Self {
        Self {
            started: Instant::now(),
            cancel: CancellationToken::new(),
            progress: None,
            log: None,
            content_blocks: false,
            structured_output: false,
            client: None,
            line_overhead,
            legacy_result: false,
            max_answer_bytes: None,
            auth: None,
            extensions: None,
            stream_closer: None,
        }
    }

    /// Keeps the response line within `bytes` when that is below `maxResponseBytes` (see
    /// `CallOptions::max_answer_bytes`).
    #[must_use]
    pub fn max_answer_bytes(mut self, bytes: Option<usize>) -> Self {
        self.max_answer_bytes = bytes;
        self
    }

    /// Uses `token` as the client-cancel token.
    #[must_use]
    pub fn cancel_token(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// The caller's verified identity, handed to the handler.
    #[must_use]
    pub fn auth(mut self, auth: Option<std::sync::Arc<crate::server::AuthInfo>>) -> Self {
        self.auth = auth;
        self
    }

    /// The extensions negotiated for this call (each with the client's settings).
    #[must_use]
    pub fn extensions(
        mut self,
        extensions: Option<std::sync::Arc<serde_json::Map<String, serde_json::Value>>>,
    ) -> Self {
        self.extensions = extensions;
        self
    }

    /// Forwards progress reports to `sink`.
    #[must_use]
    pub fn progress_sink(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// Renders the handler's output as content blocks (see `CallOptions::content_blocks`).
    #[must_use]
    pub fn content_blocks(mut self, content_blocks: bool) -> Self {
        self.content_blocks = content_blocks;
        self
    }

    /// Writes the legacy result shape (see `CallOptions::legacy_result`).
    #[must_use]
    pub fn legacy_result(mut self, legacy_result: bool) -> Self {
        self.legacy_result = legacy_result;
        self
    }

    /// Never cuts the output (see `CallOptions::structured_output`).
    #[must_use]
    pub fn structured_output(mut self, structured_output: bool) -> Self {
        self.structured_output = structured_output;
        self
    }

    /// Lets the handler send requests to the client through `client`.
    #[must_use]
    pub fn client_requester(mut self, client: super::client::ClientRequester) -> Self {
        self.client = Some(client);
        self
    }

    /// Lets the handler end the call's resumable event stream early with `closer` (see
    /// `CallOptions::stream_closer`).
    #[must_use]
    pub fn stream_closer(mut self, closer: Option<CancellationToken>) -> Self {
        self.stream_closer = closer;
        self
    }

    /// Forwards log messages to `sink`.
    #[must_use]
    pub fn log_sink(mut self, sink: LogSink) -> Self {
        self.log = Some(sink);
        self
    }

    /// Counts time from `started` instead of now.
    #[must_use]
    pub fn started_at(mut self, started: Instant) -> Self {
        self.started = started;
        self
    }
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("started", &self.started)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("has_progress", &self.progress.is_some())
            .field("line_overhead", &self.line_overhead)
            .finish()
    }
}
