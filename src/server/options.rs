//! Settings of the request loop.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::framing::{DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_QUEUED_BYTES, DEFAULT_WRITER_QUEUE};
use crate::generated::limits::Limits;
use crate::jsonrpc::{BatchPolicy, MAX_SUPPORTED_DEPTH};

/// Default bound on requests being handled at once.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;

/// Default bound on requests read while every slot was busy.
pub const DEFAULT_MAX_QUEUED: usize = 16;

/// Default time in-flight requests get to finish once shutdown begins.
pub const DEFAULT_GRACE_PERIOD: Duration = Duration::from_secs(10);

/// How the request loop behaves: bounds, shutdown, batching. Build with the `#[must_use]`
/// methods, starting from [`ServeOptions::default`] or [`ServeOptions::from_limits`].
///
/// ```
/// use std::time::Duration;
/// use typed_mcp::server::ServeOptions;
///
/// let options = ServeOptions::default()
///     .max_in_flight(8)
///     .grace_period(Duration::from_secs(2))
///     .stop_on_signals(true);
/// assert_eq!(options.max_in_flight_value(), 8);
/// ```
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub(crate) max_in_flight: usize,
    pub(crate) max_queued: usize,
    pub(crate) grace_period: Duration,
    pub(crate) max_line_bytes: usize,
    pub(crate) max_depth: usize,
    pub(crate) writer_queue: usize,
    pub(crate) max_queued_bytes: usize,
    pub(crate) batch_policy: SharedBatchPolicy,
    pub(crate) stop_on_signals: bool,
    pub(crate) stop: CancellationToken,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_queued: DEFAULT_MAX_QUEUED,
            grace_period: DEFAULT_GRACE_PERIOD,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_depth: DEFAULT_MAX_DEPTH,
            writer_queue: DEFAULT_WRITER_QUEUE,
            max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
            batch_policy: SharedBatchPolicy::new(BatchPolicy::Reject),
            stop_on_signals: false,
            stop: CancellationToken::new(),
        }
    }
}

/// Default bound on message nesting (the default of `request.maxDepth`).
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// `request.maxDepth` of `limits` as a nesting bound.
pub(crate) fn depth_from_limits(limits: &Limits) -> usize {
    usize::try_from(limits.request.max_depth)
        .unwrap_or(DEFAULT_MAX_DEPTH)
        .clamp(1, MAX_SUPPORTED_DEPTH)
}

/// `response.maxQueuedBytes` of `limits` as a byte count.
pub(crate) fn queued_bytes_from_limits(limits: &Limits) -> usize {
    usize::try_from(limits.response.max_queued_bytes.max(1)).unwrap_or(DEFAULT_MAX_QUEUED_BYTES)
}

/// The largest number of permits a `tokio` semaphore hands out at once.
const MAX_PERMITS: usize = u32::MAX as usize >> 3;

impl ServeOptions {
    /// The defaults, with the line limit taken from `limits.request.maxLineBytes`, the
    /// nesting bound from `limits.request.maxDepth` and the output budget from
    /// `limits.response.maxQueuedBytes`.
    #[must_use]
    pub fn from_limits(limits: &Limits) -> Self {
        let max_line_bytes =
            usize::try_from(limits.request.max_line_bytes.max(1)).unwrap_or(DEFAULT_MAX_LINE_BYTES);
        Self::default()
            .max_line_bytes(max_line_bytes)
            .max_depth(depth_from_limits(limits))
            .max_queued_bytes(queued_bytes_from_limits(limits))
    }

    /// Bounds the requests being handled at once (at least 1). When every slot is busy,
    /// further requests wait in a short queue (see [`max_queued`](Self::max_queued)); when
    /// that is full too, the loop stops reading input until a request finishes.
    #[must_use]
    pub fn max_in_flight(mut self, max: usize) -> Self {
        self.max_in_flight = max.clamp(1, MAX_PERMITS);
        self
    }

    /// Bounds the requests read while every slot was busy (at least 1). Reading goes on while
    /// the queue has room, so a `notifications/cancelled` sent after a few more requests can
    /// still free a slot; queued requests count as in flight for duplicate ids and
    /// cancellation.
    #[must_use]
    pub fn max_queued(mut self, max: usize) -> Self {
        self.max_queued = max.max(1);
        self
    }

    /// How long in-flight requests may run once shutdown has begun; then they are cancelled
    /// and answered with an error.
    #[must_use]
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.grace_period = grace;
        self
    }

    /// The longest accepted input line, in bytes (see `request.maxLineBytes`).
    #[must_use]
    pub fn max_line_bytes(mut self, max: usize) -> Self {
        self.max_line_bytes = max;
        self
    }

    /// The deepest nesting of arrays and objects accepted in a message, the message object
    /// being level 1 (see `request.maxDepth`; clamped to `1..=128`). A deeper message is
    /// answered with `-32600` ([`ParseErrorKind::TooDeep`](crate::jsonrpc::ParseErrorKind)).
    #[must_use]
    pub fn max_depth(mut self, max: usize) -> Self {
        self.max_depth = max.clamp(1, MAX_SUPPORTED_DEPTH);
        self
    }

    /// The deepest nesting accepted in a message.
    #[must_use]
    pub fn max_depth_value(&self) -> usize {
        self.max_depth
    }

    /// How many bytes of answers may wait for a slow reader (see
    /// `response.maxQueuedBytes`; at least 1): while the bytes waiting, plus one estimated
    /// answer for each request running and for the next one, exceed it, no new request is
    /// read. A single larger answer is still sent whole. Default
    /// [`DEFAULT_MAX_QUEUED_BYTES`](crate::framing::DEFAULT_MAX_QUEUED_BYTES).
    #[must_use]
    pub fn max_queued_bytes(mut self, bytes: usize) -> Self {
        self.max_queued_bytes = bytes.max(1);
        self
    }

    /// The output budget, in bytes.
    #[must_use]
    pub fn max_queued_bytes_value(&self) -> usize {
        self.max_queued_bytes
    }

    /// How many outgoing messages may wait for the writer (at least 1).
    #[must_use]
    pub fn writer_queue(mut self, capacity: usize) -> Self {
        self.writer_queue = capacity.max(1);
        self
    }

    /// Whether a JSON array is a batch; a [`SharedBatchPolicy`] can be changed while the loop
    /// runs (e.g. once the protocol version is negotiated). Default: batches are rejected.
    #[must_use]
    pub fn batch_policy(mut self, policy: SharedBatchPolicy) -> Self {
        self.batch_policy = policy;
        self
    }

    /// Whether SIGTERM and SIGINT (on other platforms, Ctrl-C) begin a graceful shutdown.
    /// Off by default, since installing the handlers changes what the signals do to the
    /// whole process; binaries serving stdio turn it on.
    #[must_use]
    pub fn stop_on_signals(mut self, enabled: bool) -> Self {
        self.stop_on_signals = enabled;
        self
    }

    /// A token whose cancellation begins a graceful shutdown (as end of input does).
    #[must_use]
    pub fn stop_token(mut self, token: CancellationToken) -> Self {
        self.stop = token;
        self
    }

    /// The bound on requests handled at once.
    #[must_use]
    pub fn max_in_flight_value(&self) -> usize {
        self.max_in_flight
    }

    /// The longest accepted input line, in bytes.
    #[must_use]
    pub fn max_line_bytes_value(&self) -> usize {
        self.max_line_bytes
    }

    /// The shutdown grace period.
    #[must_use]
    pub fn grace_period_value(&self) -> Duration {
        self.grace_period
    }
}

/// A [`BatchPolicy`] shared between the loop and the application, which may change it while
/// the loop runs. Cloning shares the setting.
///
/// ```
/// use typed_mcp::jsonrpc::BatchPolicy;
/// use typed_mcp::server::SharedBatchPolicy;
///
/// let policy = SharedBatchPolicy::new(BatchPolicy::Reject);
/// let seen_by_loop = policy.clone();
/// policy.set(BatchPolicy::for_protocol_version("2025-03-26"));
/// assert_eq!(seen_by_loop.get(), BatchPolicy::Allow);
/// ```
#[derive(Clone, Debug)]
pub struct SharedBatchPolicy(Arc<AtomicBool>);

impl SharedBatchPolicy {
    /// A setting starting at `policy`.
    #[must_use]
    pub fn new(policy: BatchPolicy) -> Self {
        Self(Arc::new(AtomicBool::new(policy == BatchPolicy::Allow)))
    }

    /// The current policy.
    #[must_use]
    pub fn get(&self) -> BatchPolicy {
        if self.0.load(Ordering::Acquire) {
            BatchPolicy::Allow
        } else {
            BatchPolicy::Reject
        }
    }

    /// Changes the policy for frames read from now on.
    pub fn set(&self, policy: BatchPolicy) {
        self.0
            .store(policy == BatchPolicy::Allow, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_defaults_are_the_option_defaults() {
        let from_limits = ServeOptions::from_limits(&Limits::default());
        assert_eq!(from_limits.max_queued_bytes, DEFAULT_MAX_QUEUED_BYTES);
        assert_eq!(from_limits.max_line_bytes, DEFAULT_MAX_LINE_BYTES);
        assert_eq!(from_limits.max_depth, DEFAULT_MAX_DEPTH);
    }
}
