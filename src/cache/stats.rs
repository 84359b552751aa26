//! Cache counters.

use std::sync::atomic::{AtomicU64, Ordering};

/// A snapshot of the cache's counters (see [`Cache::stats`](crate::cache::Cache::stats)).
///
/// Each counter is read atomically, but the snapshot as a whole is not taken at one instant:
/// under concurrent use two counters may come from slightly different moments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Lookups answered from the store.
    pub hits: u64,
    /// Lookups that found no fresh entry (the tool ran, when called through
    /// [`get_or_compute`](crate::cache::Cache::get_or_compute)).
    pub misses: u64,
    /// Calls that waited for another caller's computation of the same key and got its
    /// outcome instead of running the tool (single-flight).
    pub coalesced: u64,
    /// Live entries removed to make room.
    pub evictions: u64,
    /// Expired entries removed (on lookup, by the cleanup task, or to make room).
    pub expirations: u64,
    /// Values not cached because they were larger than `maxSizeBytes`.
    pub rejections: u64,
    /// Calls to tools not declared cacheable, which bypass the cache.
    pub uncacheable: u64,
    /// Store operations that returned an error or panicked; each was logged.
    pub store_failures: u64,
}

/// The live counters behind [`CacheStats`].
#[derive(Debug, Default)]
pub(crate) struct StatsCounters {
    pub(crate) hits: AtomicU64,
    pub(crate) misses: AtomicU64,
    pub(crate) coalesced: AtomicU64,
    pub(crate) evictions: AtomicU64,
    pub(crate) expirations: AtomicU64,
    pub(crate) rejections: AtomicU64,
    pub(crate) uncacheable: AtomicU64,
    pub(crate) store_failures: AtomicU64,
}

impl StatsCounters {
    pub(crate) fn add(counter: &AtomicU64, n: u64) {
        if n > 0 {
            // `fetch_add` returns the previous count, which nobody needs.
            let _previous = counter.fetch_add(n, Ordering::Relaxed);
        }
    }

    pub(crate) fn bump(counter: &AtomicU64) {
        let _previous = counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> CacheStats {
        let read = |c: &AtomicU64| c.load(Ordering::Relaxed);
        CacheStats {
            hits: read(&self.hits),
            misses: read(&self.misses),
            coalesced: read(&self.coalesced),
            evictions: read(&self.evictions),
            expirations: read(&self.expirations),
            rejections: read(&self.rejections),
            uncacheable: read(&self.uncacheable),
            store_failures: read(&self.store_failures),
        }
    }
}
