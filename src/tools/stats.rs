//! Counters of the runner's events, so no failure path goes unnoticed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Shared counters, updated by the runner and by the tasks it starts.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) calls: AtomicU64,
    pub(crate) succeeded: AtomicU64,
    pub(crate) failed: AtomicU64,
    pub(crate) rejected_by_limits: AtomicU64,
    pub(crate) timed_out: AtomicU64,
    pub(crate) cancelled: AtomicU64,
    pub(crate) panicked: AtomicU64,
    pub(crate) late_results_discarded: AtomicU64,
    pub(crate) truncated: AtomicU64,
    pub(crate) too_large: AtomicU64,
    pub(crate) over_budget: AtomicU64,
    pub(crate) progress_after_close: Arc<AtomicU64>,
}

impl Counters {
    pub(crate) fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> RunnerStats {
        let read = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        RunnerStats {
            calls: read(&self.calls),
            succeeded: read(&self.succeeded),
            failed: read(&self.failed),
            rejected_by_limits: read(&self.rejected_by_limits),
            timed_out: read(&self.timed_out),
            cancelled: read(&self.cancelled),
            panicked: read(&self.panicked),
            late_results_discarded: read(&self.late_results_discarded),
            truncated: read(&self.truncated),
            too_large: read(&self.too_large),
            over_budget: read(&self.over_budget),
            progress_after_close: read(&self.progress_after_close),
        }
    }
}

/// A snapshot of what the runner has done since it was built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunnerStats {
    /// Calls whose handler was started (`execute`, directly or through `call`).
    pub calls: u64,
    /// Calls answered with a success result.
    pub succeeded: u64,
    /// Calls answered with an error result (timeouts and limit rejections included).
    pub failed: u64,
    /// Calls rejected by the request limits before the handler ran.
    pub rejected_by_limits: u64,
    /// Calls that hit their timeout.
    pub timed_out: u64,
    /// Calls cancelled by the client (nothing was sent).
    pub cancelled: u64,
    /// Handlers that panicked.
    pub panicked: u64,
    /// Blocking handlers that finished after their call had timed out or been cancelled;
    /// their results were dropped.
    pub late_results_discarded: u64,
    /// Results cut to fit the response limit.
    pub truncated: u64,
    /// Outputs answered with `RESPONSE_TOO_LARGE`.
    pub too_large: u64,
    /// Results that exceed their budget even at their smallest (see
    /// [`ToolCallResult::over_budget`](super::ToolCallResult::over_budget)).
    pub over_budget: u64,
    /// Progress reports made after their call had ended; they were dropped.
    pub progress_after_close: u64,
}
