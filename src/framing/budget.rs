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
//!
//! A request whose handler declares the largest answer it can produce (see
//! [`Handler::max_answer_bytes`](crate::server::Handler::max_answer_bytes)) is not admitted
//! on the estimate: the loop *reserves* its declared bound while it runs ([`Reservation`]),
//! and starts it only while the bytes waiting, the bounds reserved and one estimated answer
//! per other running request leave room for it ([`OutputBudget::fits`]). The reservation ends
//! once the answer is queued (where the bytes waiting count it). A burst of such requests is
//! thus bounded before any answer exists: at most the budget's worth of declared bounds run,
//! whatever their answers turn out to be (an answer over its bound is refused or cut by
//! whoever declared it). Requests without a declared bound are admitted as before.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

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
    /// The declared bounds of the requests admitted on one ([`Reservation`]s alive).
    reserved: AtomicUsize,
    /// How many [`Reservation`]s are alive.
    reservations: AtomicUsize,
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
            reserved: AtomicUsize::new(0),
            reservations: AtomicUsize::new(0),
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

    /// Whether a request declaring an answer of at most `bound` bytes may start while
    /// `running` requests are being handled (those holding a [`Reservation`] among them): the
    /// bytes waiting, the bounds reserved, one estimated answer per running request without a
    /// reservation and `bound` fit the limit. With nothing waiting, reserved or running, a
    /// request always starts (so a bound above the limit still runs, alone).
    pub(crate) fn fits(&self, bound: usize, running: usize) -> bool {
        let queued = self.queued.load(Ordering::Acquire);
        let reserved = self.reserved.load(Ordering::Acquire);
        if queued == 0 && reserved == 0 && running == 0 {
            return true;
        }
        let unreserved = running.saturating_sub(self.reservations.load(Ordering::Acquire));
        let estimate = self.estimate.load(Ordering::Acquire);
        queued
            .saturating_add(reserved)
            .saturating_add(estimate.saturating_mul(unreserved))
            .saturating_add(bound)
            <= self.limit
    }

    /// Reserves `bound` bytes until the returned [`Reservation`] is dropped (call it once
    /// [`fits`](Self::fits) said yes, or at shutdown, when everything left must run).
    pub(crate) fn reserve(self: &Arc<Self>, bound: usize) -> Reservation {
        let _reserved = self.reserved.fetch_add(bound, Ordering::AcqRel);
        let _count = self.reservations.fetch_add(1, Ordering::AcqRel);
        Reservation {
            budget: Arc::clone(self),
            bytes: bound,
        }
    }

    /// Bytes reserved by the requests running on a declared bound.
    pub(crate) fn reserved(&self) -> usize {
        self.reserved.load(Ordering::Acquire)
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

/// The declared answer bound of a request (or a batch's requests) admitted on it: counted by
/// the budget from admission until dropped, which the request's task does once its answer is
/// queued (or will never be). Dropping it wakes the loop.
#[derive(Debug)]
pub(crate) struct Reservation {
    budget: Arc<OutputBudget>,
    bytes: usize,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let bytes = self.bytes;
        let update = |reserved: usize| Some(reserved.saturating_sub(bytes));
        // The closures always return `Some`, so these cannot fail.
        let _previous =
            self.budget
                .reserved
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, update);
        let _count = self.budget.reservations.fetch_update(
            Ordering::AcqRel,
            Ordering::Acquire,
            |count: usize| Some(count.saturating_sub(1)),
        );
        self.budget.written.notify_one();
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

    #[test]
    fn declared_bounds_are_admitted_as_far_as_the_limit_allows() {
        let budget = Arc::new(OutputBudget::new(4 << 20, 80));
        let bound = 1_000_200;
        // Four 1 MB bounds fit 4 MiB, the fifth does not: before any answer exists.
        let mut held = Vec::new();
        for running in 0..4 {
            assert!(budget.fits(bound, running), "bound {running} fits");
            held.push(budget.reserve(bound));
        }
        assert_eq!(budget.reserved(), 4 * bound);
        assert!(!budget.fits(bound, 4), "a fifth bound exceeds the limit");
        // The undeclared rule is unchanged: it still counts everything at the estimate.
        assert!(budget.admits(4));
        // An answer queued and its reservation ended: the bytes now wait for the writer.
        budget.queue(bound, true);
        drop(held.pop());
        assert_eq!(budget.reserved(), 3 * bound);
        assert!(!budget.fits(bound, 3), "the answer waiting still counts");
        budget.written(bound);
        assert!(budget.fits(bound, 3), "written: room for one more");
        drop(held);
        assert_eq!(budget.reserved(), 0);
    }

    #[test]
    fn running_requests_without_a_bound_count_at_the_estimate() {
        let budget = Arc::new(OutputBudget::new(1000, 4));
        // The estimate starts at 250: two unreserved requests leave 500.
        assert!(budget.fits(500, 2));
        assert!(!budget.fits(501, 2));
        let _reservation = budget.reserve(300);
        // Three running, one of them reserved: 300 + 2 × 250 + 200 = 1000.
        assert!(budget.fits(200, 3));
        assert!(!budget.fits(201, 3));
    }

    #[test]
    fn an_idle_server_starts_a_bound_above_the_limit() {
        let budget = Arc::new(OutputBudget::new(1000, 4));
        assert!(budget.fits(5000, 0));
        let reservation = budget.reserve(5000);
        assert!(!budget.fits(1, 1), "nothing more while it runs");
        drop(reservation);
        assert!(budget.fits(5000, 0));
    }

    #[tokio::test]
    async fn ending_a_reservation_wakes_the_loop() {
        let budget = Arc::new(OutputBudget::new(1000, 4));
        drop(budget.reserve(10));
        // The notification was stored: the wait completes at once.
        tokio::time::timeout(std::time::Duration::from_secs(5), budget.wait_written())
            .await
            .expect("woken by the dropped reservation");
    }
}
