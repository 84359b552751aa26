//! Building a [`Cache`] from the generated [`CacheLimits`].

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::generated::limits::{CacheLimits, CacheStoreKind, EvictionPolicy};
use crate::validation::SchemaValidate;

use super::clock::{Clock, TokioClock};
use super::handle::Cache;
use super::memory::MemoryStore;
use super::store::CacheStore;
use super::CacheError;

/// Builds a [`Cache`]. Start from [`Cache::builder`] (defaults of `schema/limits.json`) or
/// [`CacheBuilder::from_limits`].
///
/// The builder keeps the limits in their JSON form (`schema/limits.json`, `CacheLimits`);
/// [`build`](Self::build) checks them with the generated validator, so a bad value set here
/// gives the same error, with the same path, as it would in a configuration file.
///
/// # Examples
///
/// ```
/// use typed_mcp::cache::{Cache, ManualClock};
/// use typed_mcp::generated::limits::EvictionPolicy;
/// use std::sync::Arc;
///
/// let cache = Cache::builder()
///     .max_size_bytes(1 << 20)
///     .max_entries(100)
///     .eviction_policy(EvictionPolicy::Lfu)
///     .clock(Arc::new(ManualClock::new()))
///     .cleanup_task(false)
///     .build()
///     .unwrap();
/// assert_eq!(cache.limits().max_entries.get(), 100);
///
/// let err = Cache::builder().high_water_mark(101).cleanup_task(false).build().unwrap_err();
/// assert!(err.to_string().contains("/highWaterMark"));
/// ```
#[must_use = "a builder does nothing until `build` is called"]
#[derive(Debug, Clone)]
pub struct CacheBuilder {
    /// The limits as a JSON object with the schema's member names.
    limits: Map<String, Value>,
    clock: Option<Arc<dyn Clock>>,
    store: Option<Arc<dyn CacheStore>>,
    cleanup_task: bool,
    /// Set when the limits given to [`from_limits`](Self::from_limits) could not be turned
    /// into JSON; reported by [`build`](Self::build).
    unreadable: bool,
}

impl CacheBuilder {
    /// A builder starting from `limits`.
    pub fn from_limits(limits: &CacheLimits) -> Self {
        // `CacheLimits` is a plain struct of numbers and an enum, so this always gives an
        // object; were it ever not to, `build` reports it instead of using other limits.
        let (limits, unreadable) = match serde_json::to_value(limits) {
            Ok(Value::Object(map)) => (map, false),
            Ok(_) | Err(_) => (Map::new(), true),
        };
        Self {
            limits,
            clock: None,
            store: None,
            cleanup_task: true,
            unreadable,
        }
    }

    fn set(mut self, member: &str, value: impl Into<Value>) -> Self {
        let _overridden = self.limits.insert(member.to_owned(), value.into());
        self
    }

    /// Replaces all limits.
    pub fn limits(self, limits: &CacheLimits) -> Self {
        let fresh = Self::from_limits(limits);
        Self {
            limits: fresh.limits,
            unreadable: fresh.unreadable,
            ..self
        }
    }

    /// Sets `maxSizeBytes`, the bound on the total size of entries (see
    /// [`entry_size_bytes`](crate::cache::entry_size_bytes)).
    pub fn max_size_bytes(self, bytes: u64) -> Self {
        self.set("maxSizeBytes", bytes)
    }

    /// Sets `maxEntries`, the bound on the number of entries.
    pub fn max_entries(self, entries: u64) -> Self {
        self.set("maxEntries", entries)
    }

    /// Sets `ttlMs`, the default time to live of an entry, in milliseconds.
    pub fn ttl_ms(self, ms: u64) -> Self {
        self.set("ttlMs", ms)
    }

    /// Sets `cleanupIntervalMs`, the period of the expired-entry sweep, in milliseconds.
    pub fn cleanup_interval_ms(self, ms: u64) -> Self {
        self.set("cleanupIntervalMs", ms)
    }

    /// Sets `highWaterMark`, in percent (1 to 100) of both bounds.
    pub fn high_water_mark(self, percent: u64) -> Self {
        self.set("highWaterMark", percent)
    }

    /// Sets `evictionPolicy`.
    pub fn eviction_policy(self, policy: EvictionPolicy) -> Self {
        self.set("evictionPolicy", policy.to_string())
    }

    /// Uses `clock` instead of the default [`TokioClock`].
    pub fn clock(self, clock: Arc<dyn Clock>) -> Self {
        Self {
            clock: Some(clock),
            ..self
        }
    }

    /// Uses `store` as the backend instead of the one `store` names in the limits (a
    /// [`MemoryStore`], or a Redis store at `redisUrl`). The
    /// store then enforces its own bounds; the limits still give the default TTL and the
    /// cleanup interval.
    pub fn store(self, store: Arc<dyn CacheStore>) -> Self {
        Self {
            store: Some(store),
            ..self
        }
    }

    /// Whether [`build`](Self::build) starts the cleanup task (default `true`). Without it
    /// expired entries are still never returned, and are removed when looked up, when room
    /// is needed, or by [`Cache::purge_expired`].
    pub fn cleanup_task(self, enabled: bool) -> Self {
        Self {
            cleanup_task: enabled,
            ..self
        }
    }

    /// Validates the limits and builds the cache, starting the cleanup task (with
    /// `tokio::spawn`) unless disabled.
    ///
    /// # Errors
    ///
    /// - [`CacheError::InvalidLimits`] listing every violation of `schema/limits.json`;
    /// - [`CacheError::NoRuntime`] if the cleanup task is enabled and this is not called
    ///   from within a tokio runtime;
    /// - [`CacheError::Store`] if `store` is `redis` and `redisUrl` is not a Redis URL;
    ///   [`CacheError::RedisNotBuilt`] if the `redis` feature is off. (Redis being down
    ///   is no error: the store connects when first used.)
    pub fn build(self) -> Result<Cache, CacheError> {
        let json = Value::Object(self.limits);
        CacheLimits::validate_value(&json)
            .map_err(|errors| CacheError::InvalidLimits { errors })?;
        if self.unreadable {
            return Err(CacheError::UnreadableLimits);
        }
        let limits: CacheLimits =
            serde_json::from_value(json).map_err(|_| CacheError::UnreadableLimits)?;
        let runtime = if self.cleanup_task {
            Some(tokio::runtime::Handle::try_current().map_err(|_| CacheError::NoRuntime)?)
        } else {
            None
        };
        let store = match self.store {
            Some(store) => store,
            None => store_for(&limits)?,
        };
        let clock = self.clock.unwrap_or_else(|| Arc::new(TokioClock::new()));
        let cache = Cache::assemble(limits, store, clock);
        if let Some(runtime) = runtime {
            cache.start_cleanup(&runtime);
        }
        Ok(cache)
    }
}

/// The store `limits.store` names: a [`MemoryStore`] within the limits, or a Redis store.
fn store_for(limits: &CacheLimits) -> Result<Arc<dyn CacheStore>, CacheError> {
    match limits.store {
        CacheStoreKind::Memory => Ok(Arc::new(MemoryStore::new(limits))),
        #[cfg(feature = "redis")]
        CacheStoreKind::Redis => Ok(Arc::new(
            super::RedisStore::from_limits(limits).map_err(CacheError::Store)?,
        )),
        #[cfg(not(feature = "redis"))]
        CacheStoreKind::Redis => Err(CacheError::RedisNotBuilt),
    }
}

impl Default for CacheBuilder {
    fn default() -> Self {
        Self::from_limits(&CacheLimits::default())
    }
}
