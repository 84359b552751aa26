//! The progress hook a handler reports through, closed when its call ends.
//!
//! The server wires a [`ProgressSink`] to `notifications/progress` (it knows the request's
//! progress token). The runner hands the handler a [`ProgressReporter`] that forwards to the
//! sink only while the call is running: once the runner has produced the call's outcome
//! (result, timeout or cancel) the reporter is closed, so no progress notification can follow
//! the response, not even from a blocking handler still running on its thread.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

/// One progress report of a running tool (the payload of `notifications/progress`, minus the
/// progress token the server adds).
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressUpdate {
    /// Progress so far; should increase with every report.
    pub progress: f64,
    /// Total amount of work, if known.
    pub total: Option<f64>,
    /// Human-readable description of the current step, if any.
    pub message: Option<String>,
}

/// Where progress reports go: a callback the server wires to `notifications/progress`.
///
/// It is called on the handler's thread (possibly a blocking-pool thread) and must not block:
/// forward to a channel, e.g. with `try_send`.
pub type ProgressSink = Arc<dyn Fn(ProgressUpdate) + Send + Sync>;

/// One log message of a running tool (the payload of `notifications/message`).
#[derive(Debug, Clone, PartialEq)]
pub struct LogMessage {
    /// Its severity.
    pub level: crate::generated::protocol::LoggingLevel,
    /// Who logged it (the tool's name, by default).
    pub logger: Option<String>,
    /// The message: a string or any JSON value.
    pub data: serde_json::Value,
}

/// Where a tool's log messages go: a callback the server wires to `notifications/message`
/// (only at the severities the client asked for). Must not block, like [`ProgressSink`].
pub type LogSink = Arc<dyn Fn(LogMessage) + Send + Sync>;

/// The progress and log hook a handler receives in its [`ToolContext`](super::ToolContext).
#[derive(Clone)]
pub struct ProgressReporter {
    gate: Arc<Gate>,
}

struct Gate {
    /// `true` while the call runs. Reporters hold the read lock while calling the sink, so
    /// once [`ProgressReporter::close`] has taken the write lock no report is in flight.
    open: RwLock<bool>,
    sink: Option<ProgressSink>,
    log: Option<LogSink>,
    dropped_after_close: Arc<AtomicU64>,
}

impl ProgressReporter {
    /// A reporter forwarding to `sink` (or discarding, when `None`) until closed; reports
    /// after closing are counted in `dropped_after_close`.
    pub(crate) fn new(
        sink: Option<ProgressSink>,
        log: Option<LogSink>,
        dropped_after_close: Arc<AtomicU64>,
    ) -> Self {
        Self {
            gate: Arc::new(Gate {
                open: RwLock::new(true),
                sink,
                log,
                dropped_after_close,
            }),
        }
    }

    /// Reports progress. Returns `true` when the report was forwarded to the server, `false`
    /// when the client asked for no progress or the call is already over (timed out,
    /// cancelled or answered); the handler may then stop working.
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<String>) -> bool {
        self.forward("progress report", |gate| match &gate.sink {
            Some(sink) => {
                sink(ProgressUpdate {
                    progress,
                    total,
                    message,
                });
                true
            }
            None => false,
        })
    }

    /// Sends a log message. Returns `true` when it was forwarded to the server (which sends
    /// it if the client asked for messages of this severity), `false` when no client can
    /// receive it or the call is already over.
    pub fn log(&self, message: LogMessage) -> bool {
        self.forward("log message", |gate| match &gate.log {
            Some(sink) => {
                sink(message);
                true
            }
            None => false,
        })
    }

    /// Runs `send` while the call is open (holding the read lock, so closing waits for it);
    /// counts and drops `what` once the call is over.
    fn forward(&self, what: &'static str, send: impl FnOnce(&Gate) -> bool) -> bool {
        let open = self
            .gate
            .open
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        if !*open {
            self.gate
                .dropped_after_close
                .fetch_add(1, Ordering::Relaxed);
            tracing::debug!(what, "dropped: the call already ended");
            return false;
        }
        send(&self.gate)
    }

    /// Whether reports are still forwarded (the call is running).
    #[must_use]
    pub fn is_open(&self) -> bool {
        *self
            .gate
            .open
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Stops forwarding; returns once no report is in flight.
    pub(crate) fn close(&self) {
        *self
            .gate
            .open
            .write()
            .unwrap_or_else(PoisonError::into_inner) = false;
    }
}

impl std::fmt::Debug for ProgressReporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgressReporter")
            .field("open", &self.is_open())
            .field("has_sink", &self.gate.sink.is_some())
            .finish()
    }
}
