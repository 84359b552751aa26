//! The output budget: how many bytes of answers may wait for a slow reader.
//!
//! The writer queue alone bounds *messages*, so its memory is that many times the largest
//! answer. The budget bounds *bytes*: every message handed to the writer is counted until it
//! has been written, and the request loop admits a new request only while the bytes waiting,
//! plus an estimate of what the requests already running will add, stay within the limit.
//! When a client stops reading, the server soon stops reading too (its own input then fills,
//! and the client's writes block): memory stays bounded, and nothing is dropped.
//!
//! The estimate of one answer is a decaying maximum of the answers seen: it jumps to a larger
//! answer at once and falls by a quarter with each smaller one. It starts at the limit's share
//! of one request (the limit divided by the number of requests the loop may hold: in flight and
//! queued), so before any answer is known those bounds alone decide, and a slow request with an unknown answer is never held
//! back. The bound is therefore exact once answers of the size at hand have been seen: a burst
//! of requests admitted at the same moment, before the first of their (larger) answers exists,
//! may add up to one answer per in-flight slot beyond it.

use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// Default number of bytes of answers that may wait for the writer: 4 MiB.
pub const DEFAULT_MAX_QUEUED_BYTES: usize = 4 * 1024 * 1024;

/// Shared by the writer (which counts bytes in and out) and the request loop (which asks
/// whether one more request fits).
#[derive(Debug)]
pub(crate) struct OutputBudget {
    limit: usize,
    /// Bytes handed to the writer and not yet written.
    queued: AtomicUsize,
    /// The decaying maximum of answer sizes.
    estimate: AtomicUsize,
    /// Signalled whenever the writer has written something.
    written: Notify,
}

impl OutputBudget {
    /// A budget of `limit` bytes (at least 1) shared by at most `max_requests` requests.
    pub(crate) fn new(limit: usize, max_requests: usize) -> Self {
        let limit = limit.max(1);
        Self {
            limit,
            queued: AtomicUsize::new(0),
            estimate: AtomicUsize::new(limit / max_requests.max(1)),
            written: Notify::new(),
        }
    }

    /// Counts `bytes` handed to the writer; an answer also updates the estimate.
    pub(crate) fn queue(&self, bytes: usize, is_answer: bool) {
        let _before = self.queued.fetch_add(bytes, Ordering::AcqRel);
        if is_answer {
            let update = |estimate: usize| Some(bytes.max(estimate - estimate / 4));
            // The closure always returns `Some`, so this cannot fail.
            let _previous = self
                .estimate
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, update);
        }
    }

    /// Counts `bytes` as written (or dropped with a failed output) and wakes the loop.
    pub(crate) fn written(&self, bytes: usize) {
        if bytes == 0 {
            return;
        }
        let update = |queued: usize| Some(queued.saturating_sub(bytes));
        // The closure always returns `Some`, so this cannot fail.
        let _previous = self
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, update);
        self.written.notify_one();
    }

    /// Whether one more request may start while `running` are being handled: the bytes
    /// waiting plus one estimated answer per request (the new one included) fit the limit.
    /// With nothing waiting and nothing running, a request always starts.
    pub(crate) fn admits(&self, running: usize) -> bool {
        let queued = self.queued.load(Ordering::Acquire);
        if queued == 0 && running == 0 {
            return true;
        }
        let estimate = self.estimate.load(Ordering::Acquire);
        let expected = estimate.saturating_mul(running.saturating_add(1));
        queued.saturating_add(expected) <= self.limit
    }

    /// Bytes handed to the writer and not yet written.
    pub(crate) fn queued(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    /// Completes once the writer has written something since the last call (or at once, if
    /// it wrote while nobody waited).
    pub(crate) async fn wait_written(&self) {
        self.written.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_server_always_admits_one_request() {
        let budget = OutputBudget::new(1, 64);
        assert!(budget.admits(0));
        budget.queue(10, true);
        assert!(!budget.admits(0), "10 bytes waiting exceed a 1-byte budget");
        budget.written(10);
        assert!(budget.admits(0));
    }

    #[test]
    fn waiting_bytes_close_and_written_bytes_reopen_admission() {
        let budget = OutputBudget::new(1000, 4);
        budget.queue(900, true);
        assert!(
            !budget.admits(0),
            "900 waiting + a 900-byte estimate exceed 1000"
        );
        budget.written(900);
        // The estimate decays only with smaller answers: it is still 900.
        assert!(budget.admits(0));
        assert!(!budget.admits(1));
        assert_eq!(budget.queued(), 0);
    }

    #[test]
    fn the_estimate_decays_with_small_answers_and_jumps_with_a_large_one() {
        let budget = OutputBudget::new(1 << 20, 4);
        // Starts at the limit's share of one of 4 requests: three running fit, four do not.
        assert!(budget.admits(3));
        assert!(!budget.admits(4));
        for _ in 0..64 {
            budget.queue(100, true);
            budget.written(100);
        }
        assert!(budget.admits(1000), "a small estimate holds nothing back");
        budget.queue(600_000, true);
        budget.written(600_000);
        assert!(
            !budget.admits(1),
            "one large answer is expected of every request"
        );
    }

    #[test]
    fn notifications_are_counted_but_do_not_move_the_estimate() {
        let budget = OutputBudget::new(1000, 4);
        budget.queue(10, false);
        assert_eq!(budget.queued(), 10);
        assert!(budget.admits(2), "10 waiting + 3 × the initial 250 fit");
        assert!(!budget.admits(3));
    }

    #[test]
    fn before_any_answer_the_in_flight_bound_alone_decides() {
        let budget = OutputBudget::new(8 << 20, 64);
        assert!(budget.admits(63));
        assert!(!budget.admits(64));
    }

    #[test]
    fn more_written_than_queued_never_wraps() {
        let budget = OutputBudget::new(1000, 4);
        budget.queue(5, false);
        budget.written(50);
        assert_eq!(budget.queued(), 0);
    }
}
