//! A [`CacheStore`] on a Redis server, shared by every instance of a server (issue 13).
//!
//! Entries are Redis strings: the key is `redisKeyPrefix` + the [`CacheKey`] text, the value
//! the compact JSON of the result, stored with `SET .. PX ttl`. What holds across processes,
//! and what changes compared with [`MemoryStore`](super::MemoryStore):
//! - **TTL** holds: Redis expires the key itself (`PX`), so a lookup never sees
//!   an entry older than its TTL. The TTL runs on the Redis server's clock, not on the
//!   cache's [`Clock`](super::Clock) (each process has its own); `purge_expired` has nothing
//!   to do, and an expired entry is reported as a miss, not as an expiration.
//! - **Per-entry bound** holds: an entry larger than `maxSizeBytes` is not stored
//!   ([`InsertOutcome::Rejected`]), and the older entry under its key is removed.
//! - **Total size** is Redis's job: set `maxmemory` with an `allkeys-lru`,
//!   `allkeys-lfu` or `volatile-ttl` (about fifo) `maxmemory-policy` on the server (see
//!   `deploy/`). `maxEntries`, `highWaterMark` and `evictionPolicy` are not applied: Redis
//!   has no bound on a key count, and it alone knows its memory.
//! - **Atomicity** holds per command; **single-flight** holds per instance (the
//!   [`Cache`](super::Cache) coalesces concurrent misses before the store is asked), not
//!   across instances: two instances missing at once both compute.
//! - **Failures**: every failure (refused connection, timeout, a Redis error) is an `Err`, so
//!   the [`Cache`](super::Cache) counts it and the tool runs uncached. A broken connection is
//!   dropped and a new one is made on a later call, at most once per `redisTimeoutMs` x 10,
//!   so a Redis that is down costs each call nothing but a failed check.
//!
//! The trait is synchronous, so the store uses the blocking client with socket timeouts of
//! `redisTimeoutMs`: a call holds its thread for at most about that long. It reports
//! [`CacheStore::blocks_on_io`], so the cache hands the worker's other tasks to another thread
//! meanwhile (`block_in_place`, multi-thread runtimes).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::generated::limits::CacheLimits;

use super::key::CacheKey;
use super::store::{CacheStore, InsertOutcome, Lookup, NewEntry, StoreError};

/// How many timeouts a reconnection attempt waits after a failed one.
const RECONNECT_BACKOFF_TIMEOUTS: u32 = 10;

/// A [`CacheStore`] on a Redis server. Build with [`RedisStore::from_limits`]; the
/// connection is made on first use and remade after a failure.
pub struct RedisStore {
    client: redis::Client,
    prefix: String,
    timeout: Duration,
    max_entry_bytes: u64,
    connection: Mutex<Connection>,
    counters: Arc<RedisCounters>,
}

#[derive(Default)]
struct Connection {
    live: Option<redis::Connection>,
    /// No new connection is tried before this instant (after a failed one).
    retry_at: Option<Instant>,
}

/// Counters of a [`RedisStore`], shared with [`RedisStore::counters`].
#[derive(Debug, Default)]
pub struct RedisCounters {
    connects: AtomicU64,
    connect_failures: AtomicU64,
    command_failures: AtomicU64,
}

impl RedisCounters {
    /// Connections made (the first one and every reconnection).
    pub fn connects(&self) -> u64 {
        self.connects.load(Ordering::Relaxed)
    }

    /// Connection attempts that failed.
    pub fn connect_failures(&self) -> u64 {
        self.connect_failures.load(Ordering::Relaxed)
    }

    /// Commands that failed (the connection was then dropped if it was broken).
    pub fn command_failures(&self) -> u64 {
        self.command_failures.load(Ordering::Relaxed)
    }
}

fn bump(counter: &AtomicU64) {
    let _previous = counter.fetch_add(1, Ordering::Relaxed);
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold a password: show only the prefix and bounds.
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .field("max_entry_bytes", &self.max_entry_bytes)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store for the Redis server at `limits.redisUrl`, with its key prefix and timeout;
    /// entries larger than `maxSizeBytes` are refused. Does not connect yet.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the URL is not a Redis URL.
    pub fn from_limits(limits: &CacheLimits) -> Result<Self, StoreError> {
        let client = redis::Client::open(limits.redis_url.as_str()).map_err(|error| {
            StoreError::Backend {
                reason: format!("invalid redisUrl ({:?})", error.kind()),
            }
        })?;
        Ok(Self {
            client,
            prefix: limits.redis_key_prefix.clone(),
            timeout: Duration::from_millis(limits.redis_timeout_ms.get()),
            max_entry_bytes: limits.max_size_bytes.get(),
            connection: Mutex::default(),
            counters: Arc::default(),
        })
    }

    /// The store's counters (connections, failures).
    #[must_use]
    pub fn counters(&self) -> Arc<RedisCounters> {
        Arc::clone(&self.counters)
    }

    fn redis_key(&self, key: &CacheKey) -> String {
        format!("{}{}", self.prefix, key.as_str())
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves at worst a connection in an unknown state;
        // drop it and go on.
        self.connection.lock().unwrap_or_else(|poisoned| {
            let mut guard = poisoned.into_inner();
            guard.live = None;
            guard
        })
    }

    /// Runs `command` on the connection, connecting first if needed.
    fn run<T>(
        &self,
        command: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, StoreError> {
        let mut state = self.lock();
        if state.live.is_none() {
            state.live = Some(self.connect(&mut state)?);
        }
        let Some(connection) = state.live.as_mut() else {
            return Err(unavailable("no connection"));
        };
        command(connection).map_err(|error| {
            bump(&self.counters.command_failures);
            if error.is_io_error()
                || error.is_timeout()
                || error.is_connection_dropped()
                || error.is_connection_refusal()
                || error.is_unrecoverable_error()
            {
                state.live = None;
            }
            StoreError::Backend {
                reason: format!("redis command failed ({:?})", error.kind()),
            }
        })
    }

    fn connect(&self, state: &mut Connection) -> Result<redis::Connection, StoreError> {
        if state.retry_at.is_some_and(|at| Instant::now() < at) {
            return Err(unavailable("waiting to reconnect"));
        }
        let attempt = self
            .client
            .get_connection_with_timeout(self.timeout)
            .and_then(|connection| {
                connection.set_read_timeout(Some(self.timeout))?;
                connection.set_write_timeout(Some(self.timeout))?;
                Ok(connection)
            });
        match attempt {
            Ok(connection) => {
                bump(&self.counters.connects);
                state.retry_at = None;
                tracing::info!("connected to the Redis cache store");
                Ok(connection)
            }
            Err(error) => {
                bump(&self.counters.connect_failures);
                state.retry_at = Some(Instant::now() + self.timeout * RECONNECT_BACKOFF_TIMEOUTS);
                Err(StoreError::Backend {
                    reason: format!("cannot connect to redis ({:?})", error.kind()),
                })
            }
        }
    }
}

fn unavailable(why: &str) -> StoreError {
    StoreError::Backend {
        reason: format!("redis unavailable: {why}"),
    }
}

impl CacheStore for RedisStore {
    /// Every operation is a round trip to Redis (bounded by `redisTimeoutMs`).
    fn blocks_on_io(&self) -> bool {
        true
    }

    fn get(&self, key: &CacheKey, _now_ms: u64) -> Result<Lookup, StoreError> {
        let redis_key = self.redis_key(key);
        let bytes: Option<Vec<u8>> = self.run(|c| redis::cmd("GET").arg(&redis_key).query(c))?;
        match bytes {
            None => Ok(Lookup::Miss),
            Some(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(value) => Ok(Lookup::Hit(Arc::new(value))),
                Err(_) => Err(StoreError::Backend {
                    reason: "a cached entry is not JSON".to_owned(),
                }),
            },
        }
    }

    fn insert(&self, entry: NewEntry, _now_ms: u64) -> Result<InsertOutcome, StoreError> {
        let redis_key = self.redis_key(&entry.key);
        if entry.size_bytes > self.max_entry_bytes {
            let _removed: u64 = self.run(|c| redis::cmd("DEL").arg(&redis_key).query(c))?;
            return Ok(InsertOutcome::Rejected);
        }
        let json = serde_json::to_vec(&*entry.value).map_err(|_| StoreError::Backend {
            reason: "the value could not be serialized".to_owned(),
        })?;
        self.run(|c| {
            redis::cmd("SET")
                .arg(&redis_key)
                .arg(json)
                .arg("PX")
                .arg(entry.ttl_ms.get())
                .query::<()>(c)
        })?;
        Ok(InsertOutcome::Stored {
            evicted: 0,
            expired: 0,
        })
    }

    fn remove(&self, key: &CacheKey) -> Result<bool, StoreError> {
        let redis_key = self.redis_key(key);
        let removed: u64 = self.run(|c| redis::cmd("DEL").arg(&redis_key).query(c))?;
        Ok(removed > 0)
    }

    fn purge_expired(&self, _now_ms: u64) -> Result<u64, StoreError> {
        // Redis removes expired keys itself.
        Ok(0)
    }
}
