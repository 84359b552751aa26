//! The [`Cache`] handle: keys, TTLs, stats, single-flight and failure isolation around a
//! [`CacheStore`].

use std::any::Any;
use std::future::Future;
use std::num::NonZeroU64;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use serde_json::Value;

use crate::generated::limits::CacheLimits;

use super::builder::CacheBuilder;
use super::cleanup::CleanupTask;
use super::clock::Clock;
use super::flight::{self, FlightEnd, FlightState, Flights, Role};
use super::key::CacheKey;
use super::stats::{CacheStats, StatsCounters};
use super::store::{
    CacheStore, InsertOutcome, Lookup, NewEntry, StoreError, StoreFuture, StoreSnapshot,
};
use super::{CacheError, CachePolicy};

/// The tool-result cache.
///
/// A cheap handle (`Clone` shares the same cache) over a [`CacheStore`] (by default a
/// [`MemoryStore`](crate::cache::MemoryStore)), configured by the generated
/// [`CacheLimits`]. It adds:
/// - keys from a tool name and canonical arguments ([`CacheKey`]);
/// - time to live: the default `ttlMs`, or the tool's own from its [`CachePolicy`]; an entry
///   is never returned once `now > created_at + ttl`;
/// - single-flight: concurrent misses on one key run the computation once
///   ([`get_or_compute`](Self::get_or_compute));
/// - counters ([`stats`](Self::stats));
/// - failure isolation: an error or panic of the store is logged and counted in
///   [`CacheStats::store_failures`], and the call goes on as if the cache were empty;
/// - a cleanup task sweeping expired entries every `cleanupIntervalMs`, which stops on
///   [`shutdown`](Self::shutdown) or when the last handle is dropped.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use typed_mcp::cache::{Cache, CachePolicy, CacheSource};
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let cache = Cache::from_limits(&Default::default()).unwrap();
/// let policy = CachePolicy::cacheable();
/// let first = cache
///     .get_or_compute("add", &json!({"a": 1, "b": 2}), policy, || async {
///         Ok::<_, String>(json!(3))
///     })
///     .await
///     .unwrap();
/// assert_eq!(first.source, CacheSource::Computed);
///
/// // Same arguments in another order: served from the cache.
/// let again = cache
///     .get_or_compute("add", &json!({"b": 2, "a": 1}), policy, || async {
///         Err::<serde_json::Value, _>("not called".to_owned())
///     })
///     .await
///     .unwrap();
/// assert_eq!((again.source, &*again.value), (CacheSource::Hit, &json!(3)));
/// cache.shutdown().await;
/// # });
/// ```
#[derive(Clone, Debug)]
pub struct Cache {
    inner: Arc<Inner>,
}

/// The shared state of a [`Cache`].
#[derive(Debug)]
pub(crate) struct Inner {
    limits: CacheLimits,
    store: Arc<dyn CacheStore>,
    clock: Arc<dyn Clock>,
    stats: StatsCounters,
    flights: Flights,
    cleanup: Mutex<Option<CleanupTask>>,
}

impl std::fmt::Debug for Flights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Flights({} running)", self.len())
    }
}

/// A value returned by [`Cache::get_or_compute`], and where it came from.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Cached {
    /// The tool's result.
    pub value: Arc<Value>,
    /// Where it came from.
    pub source: CacheSource,
}

/// Where a [`Cached`] value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CacheSource {
    /// From the cache.
    Hit,
    /// Computed by this call (and stored, if cacheable and small enough).
    Computed,
    /// Computed by a concurrent call for the same key, which this call waited for.
    Coalesced,
    /// Computed by this call for a tool not declared cacheable; the cache was not used.
    Uncacheable,
}

/// What [`Cache::insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InsertStatus {
    /// Stored.
    Stored,
    /// Not stored: larger than `maxSizeBytes` (counted in [`CacheStats::rejections`]).
    Rejected,
    /// Not stored: the tool is not cacheable.
    Uncacheable,
    /// Not stored: the store failed (logged, counted in [`CacheStats::store_failures`]).
    StoreFailed,
}

impl Cache {
    /// A builder with the defaults of `schema/limits.json`.
    pub fn builder() -> CacheBuilder {
        CacheBuilder::default()
    }

    /// A cache configured by `limits`, with the default clock and a
    /// [`MemoryStore`](crate::cache::MemoryStore), and its cleanup task started.
    ///
    /// # Errors
    ///
    /// As [`CacheBuilder::build`]: invalid limits, or no tokio runtime to run the cleanup
    /// task on.
    pub fn from_limits(limits: &CacheLimits) -> Result<Self, CacheError> {
        CacheBuilder::from_limits(limits).build()
    }

    pub(crate) fn assemble(
        limits: CacheLimits,
        store: Arc<dyn CacheStore>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                limits,
                store,
                clock,
                stats: StatsCounters::default(),
                flights: Flights::default(),
                cleanup: Mutex::new(None),
            }),
        }
    }

    pub(crate) fn start_cleanup(&self, runtime: &tokio::runtime::Handle) {
        let period = Duration::from_millis(self.inner.limits.cleanup_interval_ms.get());
        let task = CleanupTask::spawn(runtime, Arc::downgrade(&self.inner), period);
        *self.inner.cleanup_slot() = Some(task);
    }

    /// The limits this cache was built with.
    #[must_use]
    pub fn limits(&self) -> &CacheLimits {
        &self.inner.limits
    }

    /// The fresh cached result of `tool` called with `arguments`, if any. Counts a hit or a
    /// miss.
    #[must_use]
    pub fn get(&self, tool: &str, arguments: &Value) -> Option<Arc<Value>> {
        let value = self.inner.lookup(&CacheKey::new(tool, arguments));
        let counter = match value {
            Some(_) => &self.inner.stats.hits,
            None => &self.inner.stats.misses,
        };
        StatsCounters::bump(counter);
        value
    }

    /// Stores `value` as the result of `tool` called with `arguments`, if `policy` allows
    /// it, for the policy's TTL (else the default `ttlMs`).
    pub fn insert(
        &self,
        tool: &str,
        arguments: &Value,
        value: Value,
        policy: CachePolicy,
    ) -> InsertStatus {
        let Some(ttl_ms) = self.inner.ttl_for(policy) else {
            StatsCounters::bump(&self.inner.stats.uncacheable);
            return InsertStatus::Uncacheable;
        };
        let key = CacheKey::new(tool, arguments);
        self.inner.store_value(key, Arc::new(value), ttl_ms)
    }

    /// Removes the cached result of `tool` called with `arguments`; `true` if there was one.
    pub fn remove(&self, tool: &str, arguments: &Value) -> bool {
        let key = CacheKey::new(tool, arguments);
        self.inner
            .guarded("remove", |store| store.remove(&key))
            .unwrap_or(false)
    }

    /// Returns the cached result of `tool` with `arguments`, or runs `compute` and caches
    /// its `Ok` value (per `policy`).
    ///
    /// Single-flight: while one call is computing a key, other calls for the same key wait
    /// for it and share its outcome instead of running `compute` themselves — the value
    /// ([`CacheSource::Coalesced`]) or a clone of the error. An error is never cached: the
    /// next call after it computes again. If the computing call goes away without an outcome
    /// (its future is dropped, e.g. on timeout or cancellation, or `compute` panics), one of
    /// the waiters computes instead. Waiters whose error type differs from the leader's
    /// (one key used with two error types) compute for themselves.
    ///
    /// A tool not cacheable under `policy` just runs `compute`
    /// ([`CacheSource::Uncacheable`]). A failing store never stops `compute` from running.
    ///
    /// # Errors
    ///
    /// The error of the computation (this call's, or the one it waited for).
    pub async fn get_or_compute<F, Fut, E>(
        &self,
        tool: &str,
        arguments: &Value,
        policy: CachePolicy,
        compute: F,
    ) -> Result<Cached, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Value, E>>,
        E: Clone + Send + Sync + 'static,
    {
        let inner = &*self.inner;
        let Some(ttl_ms) = inner.ttl_for(policy) else {
            StatsCounters::bump(&inner.stats.uncacheable);
            let value = compute().await?;
            return Ok(Cached::new(value, CacheSource::Uncacheable));
        };
        let key = CacheKey::new(tool, arguments);
        let (guard, store_answered) = loop {
            let store_answered = match inner.try_lookup_async(&key).await {
                Some(Some(value)) => {
                    StatsCounters::bump(&inner.stats.hits);
                    return Ok(Cached::shared(value, CacheSource::Hit));
                }
                Some(None) => true,
                None => false,
            };
            match inner.flights.join_or_lead(&key) {
                Role::Leader(guard) => break (guard, store_answered),
                Role::Waiter(rx) => match flight::wait(rx).await {
                    FlightEnd::Done(FlightState::Value(value)) => {
                        StatsCounters::bump(&inner.stats.coalesced);
                        return Ok(Cached::shared(value, CacheSource::Coalesced));
                    }
                    FlightEnd::Done(FlightState::Error(error)) => {
                        if let Some(error) = error.downcast_ref::<E>() {
                            StatsCounters::bump(&inner.stats.coalesced);
                            return Err(error.clone());
                        }
                    }
                    // Abandoned (or, impossibly, still running): look again, maybe lead.
                    FlightEnd::Done(FlightState::Running) | FlightEnd::Abandoned => {}
                },
            }
        };
        // A previous leader may have stored the value between our lookup and our taking
        // the lead; look once more before computing (unless the store just failed).
        let again = if store_answered {
            inner.try_lookup_async(&key).await.flatten()
        } else {
            None
        };
        if let Some(value) = again {
            StatsCounters::bump(&inner.stats.hits);
            guard.finish(FlightState::Value(Arc::clone(&value)));
            return Ok(Cached::shared(value, CacheSource::Hit));
        }
        StatsCounters::bump(&inner.stats.misses);
        match compute().await {
            Ok(value) => {
                let value = Arc::new(value);
                let status = inner
                    .store_value_async(key, Arc::clone(&value), ttl_ms)
                    .await;
                tracing::trace!(?status, "cache insert after computation");
                guard.finish(FlightState::Value(Arc::clone(&value)));
                Ok(Cached::shared(value, CacheSource::Computed))
            }
            Err(error) => {
                let shared: Arc<dyn Any + Send + Sync> = Arc::new(error.clone());
                guard.finish(FlightState::Error(shared));
                Err(error)
            }
        }
    }

    /// Removes every expired entry now, returning how many (the cleanup task does this every
    /// `cleanupIntervalMs`).
    pub fn purge_expired(&self) -> u64 {
        self.inner.purge_expired_now()
    }

    /// The counters.
    #[must_use]
    pub fn stats(&self) -> CacheStats {
        self.inner.stats.snapshot()
    }

    /// A consistent view of the store: every entry's metadata and the size total, for tests
    /// and diagnostics.
    ///
    /// # Errors
    ///
    /// [`CacheError::Store`] if the store cannot give one (not counted as a store failure:
    /// no tool call depends on it).
    pub fn snapshot(&self) -> Result<StoreSnapshot, CacheError> {
        match catch_unwind(AssertUnwindSafe(|| self.inner.store.snapshot())) {
            Ok(result) => result.map_err(CacheError::Store),
            Err(_panic) => Err(CacheError::Store(StoreError::Backend {
                reason: "the store panicked while taking a snapshot".to_owned(),
            })),
        }
    }

    /// How many computations are in progress. A test hook for single-flight (feature
    /// `test-hooks`, not public API).
    #[cfg(feature = "test-hooks")]
    #[doc(hidden)]
    #[must_use]
    pub fn computations_in_flight(&self) -> usize {
        self.inner.flights.len()
    }

    /// Stops the cleanup task and waits for it to end. The cache stays usable; expired
    /// entries are then only removed on lookup, to make room, or by
    /// [`purge_expired`](Self::purge_expired). Calling it again does nothing.
    pub async fn shutdown(&self) {
        let task = self.inner.cleanup_slot().take();
        if let Some(task) = task {
            task.stop().await;
        }
    }
}

impl Cached {
    fn new(value: Value, source: CacheSource) -> Self {
        Self::shared(Arc::new(value), source)
    }

    fn shared(value: Arc<Value>, source: CacheSource) -> Self {
        Self { value, source }
    }
}

impl Inner {
    fn cleanup_slot(&self) -> std::sync::MutexGuard<'_, Option<CleanupTask>> {
        // Only `Option::take`/assignment happen under this lock; it cannot be left
        // half-updated.
        self.cleanup.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The TTL of a cacheable tool, or `None` if the tool is not cacheable.
    fn ttl_for(&self, policy: CachePolicy) -> Option<NonZeroU64> {
        match policy {
            CachePolicy::Uncacheable => None,
            CachePolicy::Cacheable { ttl_ms } => Some(ttl_ms.unwrap_or(self.limits.ttl_ms)),
        }
    }

    /// Runs one store operation, turning an error or a panic into `None`, logged and
    /// counted.
    fn guarded<T>(
        &self,
        operation: &'static str,
        call: impl FnOnce(&dyn CacheStore) -> Result<T, StoreError>,
    ) -> Option<T> {
        let run = || catch_unwind(AssertUnwindSafe(|| call(&*self.store)));
        let outcome = if self.store.blocks_on_io() && on_multi_thread_runtime() {
            tokio::task::block_in_place(run)
        } else {
            run()
        };
        self.settle(operation, outcome)
    }

    /// Runs one store operation on the asynchronous path: through the store's `*_async`
    /// method, or, for a store that [`blocks_on_io`](CacheStore::blocks_on_io), through the
    /// synchronous one as [`guarded`](Self::guarded) does. An error or a panic (while the
    /// future is made or polled) is `None`, logged and counted.
    async fn guarded_async<T>(
        &self,
        operation: &'static str,
        call: impl FnOnce(&dyn CacheStore) -> StoreFuture<T>,
        blocking: impl FnOnce(&dyn CacheStore) -> Result<T, StoreError>,
    ) -> Option<T> {
        if self.store.blocks_on_io() {
            return self.guarded(operation, blocking);
        }
        let outcome = match catch_unwind(AssertUnwindSafe(|| call(&*self.store))) {
            Ok(mut future) => {
                std::future::poll_fn(|cx| {
                    match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
                        Ok(Poll::Pending) => Poll::Pending,
                        Ok(Poll::Ready(result)) => Poll::Ready(Ok(result)),
                        Err(panic) => Poll::Ready(Err(panic)),
                    }
                })
                .await
            }
            Err(panic) => Err(panic),
        };
        self.settle(operation, outcome)
    }

    /// The value of a store operation, or `None` after logging and counting its error or
    /// panic.
    fn settle<T>(
        &self,
        operation: &'static str,
        outcome: Result<Result<T, StoreError>, Box<dyn Any + Send>>,
    ) -> Option<T> {
        match outcome {
            Ok(Ok(value)) => Some(value),
            Ok(Err(error)) => {
                StatsCounters::bump(&self.stats.store_failures);
                tracing::warn!(operation, %error, "cache store failed; going on without it");
                None
            }
            Err(panic) => {
                StatsCounters::bump(&self.stats.store_failures);
                let message = panic_message(&*panic);
                tracing::error!(
                    operation,
                    panic = message,
                    "cache store panicked; going on without it"
                );
                None
            }
        }
    }

    /// Looks `key` up; counts an expiration, not a hit or miss (callers do that). A failed
    /// store counts as a miss.
    fn lookup(&self, key: &CacheKey) -> Option<Arc<Value>> {
        self.try_lookup(key).flatten()
    }

    /// As [`lookup`](Self::lookup), but `None` when the store failed (logged, counted).
    fn try_lookup(&self, key: &CacheKey) -> Option<Option<Arc<Value>>> {
        let now = self.clock.now_ms();
        let lookup = self.guarded("get", |store| store.get(key, now))?;
        Some(self.found(lookup))
    }

    /// The value a lookup found; counts an expiration.
    fn found(&self, lookup: Lookup) -> Option<Arc<Value>> {
        match lookup {
            Lookup::Hit(value) => Some(value),
            Lookup::Miss => None,
            Lookup::Expired => {
                StatsCounters::bump(&self.stats.expirations);
                None
            }
        }
    }

    /// As [`try_lookup`](Self::try_lookup), on the asynchronous path.
    async fn try_lookup_async(&self, key: &CacheKey) -> Option<Option<Arc<Value>>> {
        let now = self.clock.now_ms();
        let lookup = self
            .guarded_async(
                "get",
                |store| store.get_async(key, now),
                |store| store.get(key, now),
            )
            .await?;
        Some(self.found(lookup))
    }

    /// As [`store_value`](Self::store_value), on the asynchronous path.
    async fn store_value_async(
        &self,
        key: CacheKey,
        value: Arc<Value>,
        ttl_ms: NonZeroU64,
    ) -> InsertStatus {
        let entry = NewEntry::new(key, value, ttl_ms);
        let now = self.clock.now_ms();
        let copy = entry.clone();
        let outcome = self
            .guarded_async(
                "insert",
                |store| store.insert_async(entry, now),
                |store| store.insert(copy, now),
            )
            .await;
        self.inserted(outcome)
    }

    fn store_value(&self, key: CacheKey, value: Arc<Value>, ttl_ms: NonZeroU64) -> InsertStatus {
        let entry = NewEntry::new(key, value, ttl_ms);
        let now = self.clock.now_ms();
        let outcome = self.guarded("insert", |store| store.insert(entry, now));
        self.inserted(outcome)
    }

    /// Counts what an insertion did.
    fn inserted(&self, outcome: Option<InsertOutcome>) -> InsertStatus {
        match outcome {
            Some(InsertOutcome::Stored { evicted, expired }) => {
                StatsCounters::add(&self.stats.evictions, evicted);
                StatsCounters::add(&self.stats.expirations, expired);
                InsertStatus::Stored
            }
            Some(InsertOutcome::Rejected) => {
                StatsCounters::bump(&self.stats.rejections);
                InsertStatus::Rejected
            }
            None => InsertStatus::StoreFailed,
        }
    }

    pub(crate) fn purge_expired_now(&self) -> u64 {
        let now = self.clock.now_ms();
        let purged = self
            .guarded("purge_expired", |store| store.purge_expired(now))
            .unwrap_or(0);
        StatsCounters::add(&self.stats.expirations, purged);
        purged
    }
}

/// Whether this thread is a worker of a multi-thread Tokio runtime, where
/// `block_in_place` can hand the worker's other tasks to another thread.
fn on_multi_thread_runtime() -> bool {
    tokio::runtime::Handle::try_current()
        .is_ok_and(|handle| handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread)
}

/// The message of a panic payload, when it is a string.
fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "(non-string panic payload)"
    }
}
