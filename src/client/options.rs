//! How a client negotiates, identifies itself and bounds its waits.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::framing::DEFAULT_MAX_LINE_BYTES;

use super::handler::{ClientHandler, NoHandler};
use crate::mcp::era::{LATEST_LEGACY_VERSION, LEGACY_VERSIONS, MODERN_VERSIONS};

/// Which protocol version the client speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VersionChoice {
    /// Try `server/discover` (2026-07-28); when the server answers it with an error (it
    /// does not speak 2026-07-28), fall back to `initialize` with the newest 2025 version.
    Auto,
    /// `initialize` offering this 2025 version; any 2025 version the server answers with
    /// and this client speaks is accepted.
    Legacy(String),
    /// Exactly this version: a 2026-07-28 version is sent on every request without a
    /// handshake; a 2025 version is offered by `initialize` and must come back unchanged.
    Pin(String),
}

impl VersionChoice {
    /// Parses `auto`, a 2026-07-28 version (pinned) or a 2025 version (legacy), as the CLI
    /// `--version` flag takes it. `None` for anything else.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        if text == "auto" {
            Some(Self::Auto)
        } else if MODERN_VERSIONS.contains(&text) {
            Some(Self::Pin(text.to_owned()))
        } else if LEGACY_VERSIONS.contains(&text) {
            Some(Self::Legacy(text.to_owned()))
        } else {
            None
        }
    }

    /// [`VersionChoice::Legacy`] with the newest 2025 version.
    #[must_use]
    pub fn latest_legacy() -> Self {
        Self::Legacy(LATEST_LEGACY_VERSION.to_owned())
    }
}

/// A progress report of a request, from `notifications/progress`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// Progress so far.
    pub progress: f64,
    /// The value `progress` reaches when done, if known.
    pub total: Option<f64>,
    /// A short description of the current step.
    pub message: Option<String>,
}

/// A callback receiving a request's progress reports.
pub type ProgressCallback = Arc<dyn Fn(Progress) + Send + Sync>;

/// Options of one request: timeouts and a progress callback.
#[derive(Clone, Default)]
#[must_use]
pub struct RequestOptions {
    pub(crate) timeout: Option<Duration>,
    pub(crate) max_total: Option<Duration>,
    pub(crate) progress: Option<ProgressCallback>,
}

impl std::fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("max_total", &self.max_total)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl RequestOptions {
    /// The client's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// How long to wait for the answer; with a progress callback, how long to wait after
    /// the last progress report.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The longest the request may take, progress or not.
    pub fn max_total(mut self, max_total: Duration) -> Self {
        self.max_total = Some(max_total);
        self
    }

    /// Asks the server for progress (`_meta.progressToken`) and calls `callback` with each
    /// report; every report restarts the idle timeout.
    pub fn on_progress(mut self, callback: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(callback));
        self
    }
}

/// How a [`Client`](super::Client) connects: its identity, version choice, limits.
///
/// ```
/// use std::time::Duration;
/// use typed_mcp::client::{ClientOptions, VersionChoice};
///
/// let options = ClientOptions::new("my-agent", "1.0.0")
///     .version(VersionChoice::Auto)
///     .request_timeout(Duration::from_secs(30));
/// assert_eq!(options.version_choice(), &VersionChoice::Auto);
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ClientOptions {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) choice: VersionChoice,
    pub(crate) capabilities: Value,
    /// The extensions declared with [`ClientOptions::extension`], kept apart so that
    /// [`ClientOptions::capabilities`] called later does not drop them.
    extensions: serde_json::Map<String, Value>,
    pub(crate) request_timeout: Duration,
    pub(crate) max_total: Duration,
    pub(crate) max_line_bytes: usize,
    handler: HandlerSlot,
    /// Extra headers, the bearer token and the TLS roots of HTTP connections.
    #[cfg(feature = "http")]
    pub(crate) http: super::http_options::HttpSettings,
}

/// The application's handler, shared by every clone of the options.
#[derive(Clone)]
struct HandlerSlot(Option<Arc<dyn ClientHandler>>);

impl std::fmt::Debug for HandlerSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Some(ClientHandler)"
        } else {
            "None"
        })
    }
}

impl ClientOptions {
    /// Options for a client named `name` at `version` (its `clientInfo`): version `auto`,
    /// no capabilities, a 60 s timeout per request (10 min at most with progress), lines
    /// and bodies of at most 16 MiB.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            choice: VersionChoice::Auto,
            capabilities: Value::Object(serde_json::Map::new()),
            extensions: serde_json::Map::new(),
            request_timeout: Duration::from_secs(60),
            max_total: Duration::from_secs(600),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            handler: HandlerSlot(None),
            #[cfg(feature = "http")]
            http: super::http_options::HttpSettings::new(),
        }
    }

    /// The protocol version to speak.
    pub fn version(mut self, choice: VersionChoice) -> Self {
        self.choice = choice;
        self
    }

    /// The version choice.
    #[must_use]
    pub fn version_choice(&self) -> &VersionChoice {
        &self.choice
    }

    /// The client capabilities declared (a `ClientCapabilities` object; `{}` by default).
    /// The extensions declared with [`ClientOptions::extension`] are kept.
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self.apply_extensions();
        self
    }

    /// Declares a protocol extension under its identifier (`io.modelcontextprotocol/tasks`),
    /// with its settings (an empty map for none): in `initialize` (2025 versions) and in every
    /// request's `_meta` (2026-07-28), as `capabilities.extensions`. The server uses it only
    /// if it declares it too; see [`ServerDescription::extension`](super::ServerDescription::extension)
    /// for the server's side.
    ///
    /// ```
    /// use typed_mcp::client::ClientOptions;
    ///
    /// let options = ClientOptions::new("my-agent", "1.0.0")
    ///     .extension("com.example/notes-board", serde_json::Map::new());
    /// # let _ = options;
    /// ```
    pub fn extension(
        mut self,
        id: impl Into<String>,
        settings: serde_json::Map<String, Value>,
    ) -> Self {
        let _replaced = self.extensions.insert(id.into(), Value::Object(settings));
        self.apply_extensions();
        self
    }

    /// Writes the declared extensions into the capabilities object.
    fn apply_extensions(&mut self) {
        if self.extensions.is_empty() {
            return;
        }
        if !self.capabilities.is_object() {
            self.capabilities = Value::Object(serde_json::Map::new());
        }
        if let Value::Object(capabilities) = &mut self.capabilities {
            let declared = capabilities
                .entry("extensions")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if !declared.is_object() {
                *declared = Value::Object(serde_json::Map::new());
            }
            if let Value::Object(declared) = declared {
                for (id, settings) in &self.extensions {
                    let _replaced = declared.insert(id.clone(), settings.clone());
                }
            }
        }
    }

    /// The default timeout of every request (and the idle timeout with progress).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// The default longest time of a request that keeps reporting progress.
    pub fn max_total(mut self, max_total: Duration) -> Self {
        self.max_total = max_total;
        self
    }

    /// The longest line (stdio) or response body (HTTP) accepted from the server.
    pub fn max_line_bytes(mut self, max_line_bytes: usize) -> Self {
        self.max_line_bytes = max_line_bytes.max(1);
        self
    }

    /// Answers the server's requests (roots, sampling, elicitation, also inside 2026-07-28
    /// `input_required` results) and receives its notifications. Without one, requests are
    /// refused with `-32601`, and a 2025 HTTP session opens no GET stream.
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.handler = HandlerSlot(Some(Arc::new(handler)));
        self
    }

    /// Whether the application gave a handler (then a 2025 HTTP session also opens its GET
    /// stream, where the server's own requests and notifications arrive).
    pub(crate) fn has_handler(&self) -> bool {
        self.handler.0.is_some()
    }

    /// The handler, or one that refuses everything.
    pub(crate) fn handler_arc(&self) -> Arc<dyn ClientHandler> {
        match &self.handler.0 {
            Some(handler) => Arc::clone(handler),
            None => Arc::new(NoHandler),
        }
    }

    /// The `clientInfo` / `io.modelcontextprotocol/clientInfo` object.
    pub(crate) fn client_info(&self) -> Value {
        serde_json::json!({"name": self.name, "version": self.version})
    }
}
