//! The built-in in-memory store: a hash map plus two ordered indexes, behind one mutex.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

use crate::generated::limits::{CacheLimits, EvictionPolicy};

use super::key::CacheKey;
use super::store::{
    CacheStore, EntryMeta, InsertOutcome, Lookup, NewEntry, StoreError, StoreSnapshot,
};

/// The in-memory [`CacheStore`].
///
/// All state sits behind one mutex, held only for the duration of one synchronous
/// operation (never across an `.await`), so every operation is atomic. Each operation costs
/// O(log n): entries live in a hash map, with an ordered index by eviction rank and one by
/// expiry time.
///
/// Bounds come from [`CacheLimits`]: the total of entry sizes stays `<= maxSizeBytes` and
/// the number of entries `<= maxEntries` after every operation. Room is made when an
/// insertion would take the cache past the high-water mark (`highWaterMark` percent of
/// either bound): expired entries are swept first, then live ones are evicted in policy
/// order until the new entry fits under the mark. An entry that cannot fit under the mark
/// even in an empty cache is still stored alone, provided it is within the bounds.
///
/// Eviction order (the policy's rank, smallest evicted first):
/// - `lru`: least recently read or stored first;
/// - `lfu`: fewest reads first, ties broken by least recent access;
/// - `fifo`: oldest stored first (reads do not matter).
///
/// If a thread panicked while holding the lock (which the code is written never to do), the
/// next operation finds the store in an unknown state; it logs the fact and starts over
/// empty rather than trust it.
#[derive(Debug)]
pub struct MemoryStore {
    policy: EvictionPolicy,
    max_size_bytes: u64,
    max_entries: u64,
    /// Size above which insertion evicts: `maxSizeBytes * highWaterMark / 100`.
    size_mark: u64,
    /// Entry count above which insertion evicts: `maxEntries * highWaterMark / 100`.
    entry_mark: u64,
    state: Mutex<State>,
}

/// One stored entry.
#[derive(Debug)]
struct Entry {
    value: Arc<Value>,
    size_bytes: u64,
    created_at_ms: u64,
    ttl_ms: u64,
    last_accessed_at_ms: u64,
    hits: u64,
    insert_seq: u64,
    access_seq: u64,
}

impl Entry {
    /// Expiry: the entry is expired once `now > expires_at`.
    fn expires_at(&self) -> u64 {
        self.created_at_ms.saturating_add(self.ttl_ms)
    }
}

/// Position of an entry in the eviction index; smallest goes first. Unique, because it
/// always contains one of the entry's unique sequence numbers.
type Rank = (u64, u64);

#[derive(Debug, Default)]
struct State {
    entries: HashMap<CacheKey, Entry>,
    /// Eviction index: rank → key.
    by_rank: BTreeMap<Rank, CacheKey>,
    /// Expiry index: (expires_at, insert_seq) → key.
    by_expiry: BTreeMap<(u64, u64), CacheKey>,
    /// Sum of `size_bytes` over `entries`.
    size_bytes: u64,
    /// Source of `insert_seq` and `access_seq`.
    next_seq: u64,
    /// Latest time seen; operations use `max(now, latest)` so that time as the store sees it
    /// never goes backwards, even when callers read the clock before taking the lock.
    latest_ms: u64,
}

impl MemoryStore {
    /// An empty store bounded by `limits` (size, entries, high-water mark, policy; the TTL
    /// and cleanup interval are the [`Cache`](crate::cache::Cache)'s business). A
    /// high-water mark above 100 counts as 100.
    #[must_use]
    pub fn new(limits: &CacheLimits) -> Self {
        let percent = limits.high_water_mark.get().min(100);
        let mark = |bound: u64| {
            // At most 100 %, so the result fits in a u64.
            u64::try_from(u128::from(bound) * u128::from(percent) / 100).unwrap_or(bound)
        };
        Self {
            policy: limits.eviction_policy,
            max_size_bytes: limits.max_size_bytes.get(),
            max_entries: limits.max_entries.get(),
            size_mark: mark(limits.max_size_bytes.get()),
            entry_mark: mark(limits.max_entries.get()),
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(guard) => guard,
            Err(poisoned) => {
                let mut guard = poisoned.into_inner();
                tracing::error!(
                    dropped_entries = guard.entries.len(),
                    "cache store found poisoned by a panic; starting over empty"
                );
                *guard = State::default();
                self.state.clear_poison();
                guard
            }
        }
    }

    fn rank(&self, entry: &Entry) -> Rank {
        match self.policy {
            EvictionPolicy::Lru => (entry.access_seq, 0),
            EvictionPolicy::Lfu => (entry.hits, entry.access_seq),
            EvictionPolicy::Fifo => (entry.insert_seq, 0),
        }
    }

    /// Removes `key` from the map and both indexes, keeping the size total exact.
    fn remove_entry(&self, state: &mut State, key: &CacheKey) -> Option<Entry> {
        let entry = state.entries.remove(key)?;
        let ranked = state.by_rank.remove(&self.rank(&entry));
        let timed = state
            .by_expiry
            .remove(&(entry.expires_at(), entry.insert_seq));
        debug_assert!(
            ranked.is_some() && timed.is_some(),
            "entry missing from an index"
        );
        state.size_bytes -= entry.size_bytes;
        Some(entry)
    }

    /// Removes every entry expired at `now`, returning how many.
    fn purge(&self, state: &mut State, now: u64) -> u64 {
        let mut purged = 0;
        while let Some((&slot, key)) = state.by_expiry.first_key_value() {
            if slot.0 >= now {
                break;
            }
            let key = key.clone();
            if self.remove_entry(state, &key).is_some() {
                purged += 1;
            } else {
                // Cannot happen while the indexes agree; drop the stray index entry so the
                // sweep always makes progress.
                let _stray = state.by_expiry.remove(&slot);
                tracing::error!("cache expiry index held a key without an entry");
            }
        }
        purged
    }

    /// Whether storing `incoming` more bytes (and one more entry) would pass the mark.
    fn over_mark(&self, state: &State, incoming: u64) -> bool {
        let entries = state.entries.len() as u64;
        state.size_bytes.saturating_add(incoming) > self.size_mark || entries + 1 > self.entry_mark
    }
}

impl State {
    fn tick(&mut self, now_ms: u64) -> u64 {
        self.latest_ms = self.latest_ms.max(now_ms);
        self.latest_ms
    }

    fn next_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }
}

impl CacheStore for MemoryStore {
    fn get(&self, key: &CacheKey, now_ms: u64) -> Result<Lookup, StoreError> {
        let mut guard = self.lock();
        let state = &mut *guard;
        let now = state.tick(now_ms);
        let Some(entry) = state.entries.get(key) else {
            return Ok(Lookup::Miss);
        };
        if now > entry.expires_at() {
            let _expired = self.remove_entry(state, key);
            return Ok(Lookup::Expired);
        }
        let old_rank = self.rank(entry);
        let seq = state.next_seq();
        let Some(entry) = state.entries.get_mut(key) else {
            return Ok(Lookup::Miss);
        };
        entry.hits = entry.hits.saturating_add(1);
        entry.access_seq = seq;
        entry.last_accessed_at_ms = now;
        let value = Arc::clone(&entry.value);
        let new_rank = self.rank(entry);
        if new_rank != old_rank {
            let moved = state.by_rank.remove(&old_rank);
            let displaced = state.by_rank.insert(new_rank, key.clone());
            debug_assert!(
                moved.is_some() && displaced.is_none(),
                "eviction index out of step"
            );
        }
        Ok(Lookup::Hit(value))
    }

    fn insert(&self, new: NewEntry, now_ms: u64) -> Result<InsertOutcome, StoreError> {
        let mut guard = self.lock();
        let state = &mut *guard;
        let now = state.tick(now_ms);
        // A new value for a key replaces the old one, also when the new one is rejected.
        let _replaced = self.remove_entry(state, &new.key);
        if new.size_bytes > self.max_size_bytes {
            return Ok(InsertOutcome::Rejected);
        }
        let mut expired = 0;
        let mut evicted = 0;
        if !state.entries.is_empty() && self.over_mark(state, new.size_bytes) {
            expired = self.purge(state, now);
            while !state.entries.is_empty() && self.over_mark(state, new.size_bytes) {
                let Some((&rank, victim)) = state.by_rank.first_key_value() else {
                    break;
                };
                let victim = victim.clone();
                if self.remove_entry(state, &victim).is_some() {
                    evicted += 1;
                } else {
                    // As in `purge`: unreachable while the indexes agree.
                    let _stray = state.by_rank.remove(&rank);
                    tracing::error!("cache eviction index held a key without an entry");
                }
            }
        }
        let seq = state.next_seq();
        let entry = Entry {
            value: new.value,
            size_bytes: new.size_bytes,
            created_at_ms: now,
            ttl_ms: new.ttl_ms.get(),
            last_accessed_at_ms: now,
            hits: 0,
            insert_seq: seq,
            access_seq: seq,
        };
        let ranked = state.by_rank.insert(self.rank(&entry), new.key.clone());
        let timed = state
            .by_expiry
            .insert((entry.expires_at(), entry.insert_seq), new.key.clone());
        state.size_bytes += entry.size_bytes;
        let previous = state.entries.insert(new.key, entry);
        debug_assert!(
            ranked.is_none() && timed.is_none() && previous.is_none(),
            "fresh sequence numbers and a removed key cannot collide"
        );
        Ok(InsertOutcome::Stored { evicted, expired })
    }

    fn remove(&self, key: &CacheKey) -> Result<bool, StoreError> {
        let mut guard = self.lock();
        Ok(self.remove_entry(&mut guard, key).is_some())
    }

    fn purge_expired(&self, now_ms: u64) -> Result<u64, StoreError> {
        let mut guard = self.lock();
        let now = guard.tick(now_ms);
        Ok(self.purge(&mut guard, now))
    }

    fn snapshot(&self) -> Result<StoreSnapshot, StoreError> {
        let guard = self.lock();
        let entries = guard
            .by_rank
            .values()
            .filter_map(|key| {
                let e = guard.entries.get(key)?;
                Some(EntryMeta {
                    key: key.clone(),
                    size_bytes: e.size_bytes,
                    created_at_ms: e.created_at_ms,
                    ttl_ms: e.ttl_ms,
                    last_accessed_at_ms: e.last_accessed_at_ms,
                    hits: e.hits,
                    insert_seq: e.insert_seq,
                    access_seq: e.access_seq,
                })
            })
            .collect();
        Ok(StoreSnapshot {
            policy: self.policy,
            max_size_bytes: self.max_size_bytes,
            max_entries: self.max_entries,
            current_size_bytes: guard.size_bytes,
            entries,
        })
    }
}

impl MemoryStore {
    /// Checks the store's internal indexes against each other: every entry is in both
    /// indexes under its current rank and expiry, the indexes hold nothing else, and the size
    /// total is the sum of entry sizes. A test hook (feature `test-hooks`, not public API);
    /// returns what is wrong.
    ///
    /// # Errors
    ///
    /// A description of the first inconsistency found.
    #[cfg(feature = "test-hooks")]
    #[doc(hidden)]
    pub fn check_consistency(&self) -> Result<(), String> {
        let guard = self.lock();
        let state = &*guard;
        let n = state.entries.len();
        if state.by_rank.len() != n || state.by_expiry.len() != n {
            return Err(format!(
                "{n} entries but {} ranked and {} in the expiry index",
                state.by_rank.len(),
                state.by_expiry.len()
            ));
        }
        let mut total: u64 = 0;
        for (key, entry) in &state.entries {
            total += entry.size_bytes;
            if state.by_rank.get(&self.rank(entry)) != Some(key) {
                return Err("an entry is missing from the eviction index".to_owned());
            }
            if state.by_expiry.get(&(entry.expires_at(), entry.insert_seq)) != Some(key) {
                return Err("an entry is missing from the expiry index".to_owned());
            }
        }
        if total != state.size_bytes {
            return Err(format!(
                "size total {} but entries sum to {total}",
                state.size_bytes
            ));
        }
        Ok(())
    }
}
