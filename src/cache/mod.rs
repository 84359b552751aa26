//! Tool-result cache (see issue: runtime guarantees).
//!
//! [`Cache`] keeps the results of tools declared cacheable ([`CachePolicy`]), keyed by tool
//! name and canonical arguments ([`CacheKey`]), within the bounds of the generated
//! [`CacheLimits`](crate::generated::limits::CacheLimits) (`schema/limits.json`). The
//! storage itself is behind the [`CacheStore`] trait; [`MemoryStore`] is the built-in one,
//! and `RedisStore` (feature `redis`, `cache.store: redis`) shares entries between
//! instances, with the changes to these promises listed in its documentation.
//!
//! The promises (tested by `tests/cache_*.rs`):
//! - the total size of entries stays `<= maxSizeBytes` after every operation;
//!   eviction starts when an insertion would take it past `highWaterMark` percent, and
//!   brings it back to at most that mark.
//! - the number of entries stays `<= maxEntries` (same high-water mark).
//! - a lookup never returns an entry once `now > created_at + ttl`; the TTL is
//!   `ttlMs` or the tool's own ([`CachePolicy::cacheable_with_ttl_ms`]); a cleanup task
//!   removes expired entries every `cleanupIntervalMs`.
//! - eviction order: `lru` least recently accessed first, `lfu` least often
//!   read first (ties: least recent), `fifo` oldest stored first.
//! - operations are atomic: concurrent users never see part of one.
//! - the size total equals the sum of entry sizes exactly, where an entry's
//!   size is [`entry_size_bytes`]: key text bytes plus compact-JSON value bytes.
//! - A value larger than `maxSizeBytes` is not cached (counted in
//!   [`CacheStats::rejections`]); concurrent misses on one key compute once
//!   ([`Cache::get_or_compute`]).
//! - a store that fails or panics never stops the tool: logged, counted in
//!   [`CacheStats::store_failures`], and the call goes on without the cache.

// The promises above are the requirements CACHE-001 .. CACHE-006 and XC-002, in that order;
// the tests in tests/cache_*.rs are named after those ids.

// XC-001: no result is dropped silently in this module; an intentionally unused value is
// bound to a named `_binding` that says what it is.
#![deny(
    unused_results,
    unused_must_use,
    clippy::let_underscore_must_use,
    clippy::let_underscore_untyped
)]

mod builder;
mod cleanup;
mod clock;
mod flight;
mod handle;
mod key;
mod memory;
#[cfg(feature = "redis")]
pub(crate) mod redis_link;
#[cfg(feature = "redis")]
mod redis_store;
#[cfg(feature = "redis")]
mod redis_target;
mod stats;
mod store;

use std::num::NonZeroU64;

use crate::validation::ValidationError;

pub use builder::CacheBuilder;
pub use clock::{Clock, ManualClock, TokioClock};
pub use handle::{Cache, CacheSource, Cached, InsertStatus};
pub use key::{canonical_json, CacheKey};
pub use memory::MemoryStore;
#[cfg(feature = "redis")]
pub use redis_link::RedisCounters;
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use stats::CacheStats;
pub use store::{
    entry_size_bytes, CacheStore, EntryMeta, InsertOutcome, Lookup, NewEntry, StoreError,
    StoreFuture, StoreSnapshot,
};

/// Whether, and for how long, a tool's results may be cached. Declared per tool; the
/// default is not to cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum CachePolicy {
    /// Never cache this tool's results (tools with side effects, or whose results change).
    #[default]
    Uncacheable,
    /// Cache this tool's results.
    Cacheable {
        /// Time to live of its entries in milliseconds; `None` for the cache's `ttlMs`.
        ttl_ms: Option<NonZeroU64>,
    },
}

impl CachePolicy {
    /// Cacheable, with the cache's default TTL.
    #[must_use]
    pub const fn cacheable() -> Self {
        Self::Cacheable { ttl_ms: None }
    }

    /// Cacheable, with its own TTL in milliseconds.
    #[must_use]
    pub const fn cacheable_with_ttl_ms(ttl_ms: NonZeroU64) -> Self {
        Self::Cacheable {
            ttl_ms: Some(ttl_ms),
        }
    }

    /// Whether results may be cached.
    #[must_use]
    pub const fn is_cacheable(&self) -> bool {
        matches!(self, Self::Cacheable { .. })
    }
}

/// Errors of the cache layer. Lookups and insertions never fail (a failing store is
/// bypassed); these come from building the cache and from introspection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// The limits violate `schema/limits.json`; every violation is listed.
    #[error("invalid cache limits: {}", list_violations(errors))]
    InvalidLimits {
        /// Every violation, with its JSON Pointer path.
        errors: Vec<ValidationError>,
    },
    /// Valid limits could not be converted to or from their JSON form.
    #[error("the cache limits could not be converted to or from JSON")]
    UnreadableLimits,
    /// The cleanup task needs a tokio runtime, and there is none on this thread (build
    /// within one, or disable the task with [`CacheBuilder::cleanup_task`]).
    #[error("the cache's cleanup task needs a tokio runtime")]
    NoRuntime,
    /// The store failed (for [`Cache::snapshot`]), or could not be set up (a `redisUrl`
    /// that is not a Redis URL).
    #[error(transparent)]
    Store(StoreError),
    /// The limits ask for the Redis store, but this build has no `redis` feature.
    #[error("cache.store is redis, but typed-mcp was built without its `redis` feature")]
    RedisNotBuilt,
}

fn list_violations(errors: &[ValidationError]) -> String {
    let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
    list.join("; ")
}
