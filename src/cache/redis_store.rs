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
//! - **Failures**: every failure (refused connection, timeout, a Redis error, an answer that
//!   is not RESP or not JSON) is an `Err`, so the [`Cache`](super::Cache) counts it and the
//!   tool runs uncached. Each operation is bounded by `redisTimeoutMs`. After a connection
//!   failure or a timeout the store pauses for `redisTimeoutMs` x 10: calls meanwhile fail at
//!   once ([`RedisCounters::skipped`]), so a Redis that is down or stalled costs a call
//!   nothing but a failed check, then one call tries again.
//!
//! The store is asynchronous: the [`Cache`](super::Cache)'s
//! [`get_or_compute`](super::Cache::get_or_compute) awaits it, and no worker thread waits on
//! Redis. All calls share one multiplexed connection (the `redis` crate's
//! `aio::ConnectionManager`, which reconnects by itself): concurrent calls are pipelined on
//! it, none queues behind a lock. The cache's synchronous methods ([`Cache::get`](super::Cache::get),
//! [`insert`](super::Cache::insert), [`remove`](super::Cache::remove)) wait for the answer on
//! their thread (`block_in_place`), and need a multi-thread tokio runtime.
//!
//! Addressing (`redisUrl`): `redis://` one server; `rediss://` one server over TLS (rustls,
//! the platform's roots, which `SSL_CERT_FILE` can name, or those given to
//! [`RedisStore::from_limits_with_root_pem`]); `redis+sentinel://[user:password@]host:port[,host:port...]/service[/db]`
//! the master the Sentinels name for `service`, asked again after a connection failure, so a
//! failover is followed.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::generated::limits::CacheLimits;

use super::key::CacheKey;
use super::redis_link::{RedisCounters, RedisLink};
use super::store::{CacheStore, InsertOutcome, Lookup, NewEntry, StoreError, StoreFuture};

/// A [`CacheStore`] on a Redis server. Build with [`RedisStore::from_limits`]; the
/// connection is made on first use (within a tokio runtime) and remade after a failure.
pub struct RedisStore {
    shared: Arc<Shared>,
}

struct Shared {
    link: RedisLink,
    prefix: String,
    max_entry_bytes: u64,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold a password: show only the prefix and bounds.
        f.debug_struct("RedisStore")
            .field("prefix", &self.shared.prefix)
            .field("timeout", &self.shared.link.timeout())
            .field("max_entry_bytes", &self.shared.max_entry_bytes)
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
        Self::build(limits, None)
    }

    /// As [`from_limits`](Self::from_limits), trusting only the certificates of `root_pem`
    /// (PEM) instead of the platform's roots for a `rediss://` URL.
    ///
    /// # Errors
    ///
    /// [`StoreError::Backend`] when the URL is not a Redis URL.
    pub fn from_limits_with_root_pem(
        limits: &CacheLimits,
        root_pem: &[u8],
    ) -> Result<Self, StoreError> {
        Self::build(limits, Some(root_pem))
    }

    fn build(limits: &CacheLimits, root_pem: Option<&[u8]>) -> Result<Self, StoreError> {
        let link = RedisLink::new(
            limits.redis_url.as_str(),
            root_pem,
            Duration::from_millis(limits.redis_timeout_ms.get()),
            "cache",
        )?;
        Ok(Self {
            shared: Arc::new(Shared {
                link,
                prefix: limits.redis_key_prefix.clone(),
                max_entry_bytes: limits.max_size_bytes.get(),
            }),
        })
    }

    /// The store's counters (connections, failures, timeouts).
    #[must_use]
    pub fn counters(&self) -> Arc<RedisCounters> {
        self.shared.link.counters()
    }

    /// The prefix of the store's keys (`redisKeyPrefix`).
    #[cfg(feature = "http")]
    pub(crate) fn key_prefix(&self) -> &str {
        &self.shared.prefix
    }

    /// Runs `command` on the store's connection, with its timeout, counters and pause after
    /// a failure (the HTTP session store shares this client).
    #[cfg(feature = "http")]
    pub(crate) fn query<T: redis::FromRedisValue + Send + 'static>(
        &self,
        command: redis::Cmd,
    ) -> StoreFuture<T> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move { shared.link.run::<T>(command).await })
    }

    fn redis_key(&self, key: &CacheKey) -> String {
        format!("{}{}", self.shared.prefix, key.as_str())
    }

    /// Runs `future` to its end on this thread, for the synchronous methods.
    fn wait<T>(future: StoreFuture<T>) -> Result<T, StoreError> {
        match tokio::runtime::Handle::try_current() {
            Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(|| handle.block_on(future))
            }
            _ => Err(StoreError::Backend {
                reason: "the Redis store's synchronous calls need a multi-thread tokio runtime"
                    .to_owned(),
            }),
        }
    }
}

/// The command `name` on `key`.
fn command(name: &str, key: String) -> redis::Cmd {
    let mut command = redis::cmd(name);
    let _same: &mut redis::Cmd = command.arg(key);
    command
}

fn decode(bytes: Option<Vec<u8>>) -> Result<Lookup, StoreError> {
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

impl CacheStore for RedisStore {
    fn get(&self, key: &CacheKey, now_ms: u64) -> Result<Lookup, StoreError> {
        Self::wait(self.get_async(key, now_ms))
    }

    fn insert(&self, entry: NewEntry, now_ms: u64) -> Result<InsertOutcome, StoreError> {
        Self::wait(self.insert_async(entry, now_ms))
    }

    fn remove(&self, key: &CacheKey) -> Result<bool, StoreError> {
        Self::wait(self.remove_async(key))
    }

    fn purge_expired(&self, _now_ms: u64) -> Result<u64, StoreError> {
        // Redis removes expired keys itself.
        Ok(0)
    }

    fn get_async(&self, key: &CacheKey, _now_ms: u64) -> StoreFuture<Lookup> {
        let shared = Arc::clone(&self.shared);
        let command = command("GET", self.redis_key(key));
        Box::pin(async move { decode(shared.link.run::<Option<Vec<u8>>>(command).await?) })
    }

    fn insert_async(&self, entry: NewEntry, _now_ms: u64) -> StoreFuture<InsertOutcome> {
        let shared = Arc::clone(&self.shared);
        let redis_key = self.redis_key(&entry.key);
        if entry.size_bytes > self.shared.max_entry_bytes {
            let command = command("DEL", redis_key);
            return Box::pin(async move {
                let _removed: u64 = shared.link.run(command).await?;
                Ok(InsertOutcome::Rejected)
            });
        }
        let json = match serde_json::to_vec(&*entry.value) {
            Ok(json) => json,
            Err(_) => {
                return Box::pin(std::future::ready(Err(StoreError::Backend {
                    reason: "the value could not be serialized".to_owned(),
                })))
            }
        };
        let mut command = command("SET", redis_key);
        let _same: &mut redis::Cmd = command.arg(json).arg("PX").arg(entry.ttl_ms.get());
        Box::pin(async move {
            shared.link.run::<()>(command).await?;
            Ok(InsertOutcome::Stored {
                evicted: 0,
                expired: 0,
            })
        })
    }

    fn remove_async(&self, key: &CacheKey) -> StoreFuture<bool> {
        let shared = Arc::clone(&self.shared);
        let command = command("DEL", self.redis_key(key));
        Box::pin(async move {
            let removed: u64 = shared.link.run(command).await?;
            Ok(removed > 0)
        })
    }
}
