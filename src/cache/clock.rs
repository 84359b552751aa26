//! Time sources for the cache, injectable so tests control time.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A monotonic source of time, in whole milliseconds since an arbitrary origin.
///
/// The cache reads the time only through this trait: entry creation and access times, TTL
/// expiry and the cleanup sweep all use it, so a test can drive expiry with
/// [`ManualClock`] (or with tokio's paused clock through [`TokioClock`]).
pub trait Clock: Send + Sync + fmt::Debug {
    /// Milliseconds since this clock's origin. Must never decrease.
    fn now_ms(&self) -> u64;
}

/// The default clock: [`tokio::time::Instant`], so it follows tokio's paused clock in tests
/// (`tokio::time::pause`/`advance`) and is the real monotonic clock otherwise.
#[derive(Debug, Clone, Copy)]
pub struct TokioClock {
    origin: tokio::time::Instant,
}

impl TokioClock {
    /// A clock whose origin is now.
    #[must_use]
    pub fn new() -> Self {
        Self {
            origin: tokio::time::Instant::now(),
        }
    }
}

impl Default for TokioClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for TokioClock {
    fn now_ms(&self) -> u64 {
        duration_to_ms(self.origin.elapsed())
    }
}

/// A clock that moves only when told to; for tests.
///
/// ```
/// use std::time::Duration;
/// use typed_mcp::cache::{Clock, ManualClock};
///
/// let clock = ManualClock::new();
/// assert_eq!(clock.now_ms(), 0);
/// clock.advance(Duration::from_millis(1500));
/// assert_eq!(clock.now_ms(), 1500);
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    now_ms: AtomicU64,
}

impl ManualClock {
    /// A clock standing at 0 ms.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves the clock forward by `by` (whole milliseconds; saturates at `u64::MAX`).
    pub fn advance(&self, by: Duration) {
        let by = duration_to_ms(by);
        let mut now = self.now_ms.load(Ordering::Acquire);
        loop {
            let next = now.saturating_add(by);
            match self
                .now_ms
                .compare_exchange_weak(now, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return,
                Err(actual) => now = actual,
            }
        }
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now_ms.load(Ordering::Acquire)
    }
}

/// Whole milliseconds of `d`, saturating at `u64::MAX`.
pub(crate) fn duration_to_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
