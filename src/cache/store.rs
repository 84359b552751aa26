//! The storage backend trait, and the values that cross it.

use std::future::Future;
use std::num::NonZeroU64;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::generated::limits::EvictionPolicy;

use super::key::CacheKey;

/// Where cached tool results are kept.
///
/// [`MemoryStore`](crate::cache::MemoryStore) is the built-in backend; another one (shared
/// memory, a remote cache, ...) can be plugged in with
/// [`CacheBuilder::store`](crate::cache::CacheBuilder::store).
///
/// Times are passed in by the [`Cache`](crate::cache::Cache) (milliseconds of its
/// [`Clock`](crate::cache::Clock)); a store does not read a clock itself.
///
/// A store may fail: an `Err` or even a panic from any method is caught by the cache, logged
/// and counted in [`CacheStats::store_failures`](crate::cache::CacheStats::store_failures),
/// and the tool call goes on as if the cache were empty.
///
/// What a store promises (the built-in one is tested for all of it):
/// - the total size of its entries never exceeds its size bound, nor their number its entry
///   bound, after any operation;
/// - [`get`](Self::get) never returns an entry for which `now_ms > created_at + ttl`;
/// - each operation is atomic: a concurrent reader never sees part of one.
pub trait CacheStore: Send + Sync {
    /// Looks `key` up at time `now_ms`. A hit counts as an access of the entry (for LRU and
    /// LFU); an expired entry is removed and reported as [`Lookup::Expired`].
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the backend could not answer.
    fn get(&self, key: &CacheKey, now_ms: u64) -> Result<Lookup, StoreError>;

    /// Stores `entry` at time `now_ms`, replacing any entry under the same key and evicting
    /// others as needed to stay within bounds. An entry larger than the size bound is
    /// rejected ([`InsertOutcome::Rejected`]); an older entry under its key is then removed.
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the backend could not store the entry.
    fn insert(&self, entry: NewEntry, now_ms: u64) -> Result<InsertOutcome, StoreError>;

    /// Removes the entry under `key`; `true` if there was one.
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the backend could not remove it.
    fn remove(&self, key: &CacheKey) -> Result<bool, StoreError>;

    /// Removes every entry expired at `now_ms`, returning how many.
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the backend could not sweep.
    fn purge_expired(&self, now_ms: u64) -> Result<u64, StoreError>;

    /// Whether this store's operations wait on I/O (a network round trip). The cache then
    /// tells the Tokio runtime before each call (`tokio::task::block_in_place` on a
    /// multi-thread runtime), so the other tasks of that worker thread move to another one
    /// instead of waiting behind a slow store. A current-thread runtime has no other worker:
    /// there the call simply blocks, as any synchronous call does. In-memory stores keep the
    /// default, `false`.
    fn blocks_on_io(&self) -> bool {
        false
    }

    /// [`get`](Self::get) as a future, which the [`Cache`](crate::cache::Cache) awaits on
    /// its asynchronous path ([`get_or_compute`](crate::cache::Cache::get_or_compute)). A
    /// store on a network overrides the three `*_async` methods so that no worker thread
    /// waits on I/O; the defaults call the synchronous method at once (right for in-memory
    /// stores). A store that [`blocks_on_io`](Self::blocks_on_io) is called through the
    /// synchronous methods instead.
    fn get_async(&self, key: &CacheKey, now_ms: u64) -> StoreFuture<Lookup> {
        Box::pin(std::future::ready(self.get(key, now_ms)))
    }

    /// [`insert`](Self::insert) as a future (see [`get_async`](Self::get_async)).
    fn insert_async(&self, entry: NewEntry, now_ms: u64) -> StoreFuture<InsertOutcome> {
        Box::pin(std::future::ready(self.insert(entry, now_ms)))
    }

    /// [`remove`](Self::remove) as a future (see [`get_async`](Self::get_async)).
    fn remove_async(&self, key: &CacheKey) -> StoreFuture<bool> {
        Box::pin(std::future::ready(self.remove(key)))
    }

    /// A consistent view of the whole store, for tests and diagnostics. Backends that cannot
    /// offer one keep this default, which returns [`StoreError::Unsupported`].
    ///
    /// # Errors
    ///
    /// [`StoreError::Unsupported`] by default; any [`StoreError`] from the backend.
    fn snapshot(&self) -> Result<StoreSnapshot, StoreError> {
        Err(StoreError::Unsupported)
    }
}

impl std::fmt::Debug for dyn CacheStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn CacheStore")
    }
}

/// A store operation in progress ([`CacheStore::get_async`] and its siblings): owns what it
/// needs, so the cache may hold it across other work.
pub type StoreFuture<T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'static>>;

/// Errors of a [`CacheStore`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The backend failed; `reason` says how, in the backend's words (without cached data).
    #[error("cache backend failed: {reason}")]
    Backend {
        /// What went wrong.
        reason: String,
    },
    /// The backend does not offer this operation.
    #[error("operation not supported by this cache backend")]
    Unsupported,
}

/// Result of [`CacheStore::get`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Lookup {
    /// The entry is present and fresh.
    Hit(Arc<Value>),
    /// No entry under the key.
    Miss,
    /// There was an entry, but it had expired; it has been removed.
    Expired,
}

/// Result of [`CacheStore::insert`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InsertOutcome {
    /// The entry was stored.
    Stored {
        /// How many live entries were evicted to make room.
        evicted: u64,
        /// How many expired entries were removed to make room.
        expired: u64,
    },
    /// The entry is larger than the store's size bound and was not stored.
    Rejected,
}

/// An entry to store: key, value, its size and its time to live.
///
/// Built only by [`NewEntry::new`], which computes the size, so every entry's size follows
/// [`entry_size_bytes`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct NewEntry {
    /// The entry's key.
    pub key: CacheKey,
    /// The cached value.
    pub value: Arc<Value>,
    /// The entry's size, as defined by [`entry_size_bytes`].
    pub size_bytes: u64,
    /// How long the entry stays valid after it is stored, in milliseconds.
    pub ttl_ms: NonZeroU64,
}

impl NewEntry {
    /// An entry for `value` under `key`, valid for `ttl_ms` after it is stored.
    #[must_use]
    pub fn new(key: CacheKey, value: Arc<Value>, ttl_ms: NonZeroU64) -> Self {
        let size_bytes = entry_size_bytes(&key, &value);
        Self {
            key,
            value,
            size_bytes,
            ttl_ms,
        }
    }
}

/// The size the cache accounts for one entry, in bytes: the length of the key text
/// ([`CacheKey::as_str`]) plus the length of the value serialized as compact JSON
/// (`serde_json::to_vec(value).len()`).
///
/// Bookkeeping overhead (maps, timestamps, reference counts) is not counted: the bound is on
/// the cached data, so that it means the same for every backend.
///
/// ```
/// use serde_json::json;
/// use typed_mcp::cache::{entry_size_bytes, CacheKey};
///
/// let key = CacheKey::new("t", &json!({}));          // `["t",{}]`: 8 bytes
/// assert_eq!(entry_size_bytes(&key, &json!([1, 2])), 8 + 5);
/// ```
#[must_use]
pub fn entry_size_bytes(key: &CacheKey, value: &Value) -> u64 {
    key.len_bytes().saturating_add(json_len(value))
}

/// Length of `value` serialized as compact JSON, without building the text.
fn json_len(value: &Value) -> u64 {
    struct Counter(u64);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(buf.len() as u64);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        // Serializing a `Value` fails only when the writer fails, and this one never does.
        // Should it happen anyway, count the entry as too large to cache rather than
        // under-counting it.
        Err(_) => u64::MAX,
    }
}

/// A consistent view of a store at one moment (see [`CacheStore::snapshot`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StoreSnapshot {
    /// The eviction policy in force.
    pub policy: EvictionPolicy,
    /// The size bound, in bytes.
    pub max_size_bytes: u64,
    /// The entry bound.
    pub max_entries: u64,
    /// The store's running total of entry sizes (should equal the sum over `entries`).
    pub current_size_bytes: u64,
    /// Every entry, in eviction order: the next victim first.
    pub entries: Vec<EntryMeta>,
}

/// What a [`StoreSnapshot`] tells about one entry. Times are in the cache clock's
/// milliseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EntryMeta {
    /// The entry's key.
    pub key: CacheKey,
    /// The entry's size ([`entry_size_bytes`]).
    pub size_bytes: u64,
    /// When the entry was stored.
    pub created_at_ms: u64,
    /// The entry's time to live; it expires once `now > created_at_ms + ttl_ms`.
    pub ttl_ms: u64,
    /// When the entry was last read (or stored, if never read).
    pub last_accessed_at_ms: u64,
    /// How many times the entry was read.
    pub hits: u64,
    /// Order of insertion: larger is newer; unique in the store.
    pub insert_seq: u64,
    /// Order of last access (read or insertion): larger is more recent; unique in the store.
    pub access_seq: u64,
}
