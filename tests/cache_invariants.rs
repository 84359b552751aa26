//! Property tests of the cache invariants CACHE-001 to CACHE-004 and CACHE-006: random
//! operation sequences (insert, get, remove, clock advance, cleanup) against a cache with
//! random limits, for all three eviction policies, with every invariant checked after every
//! operation.
//!
//! Each `inv_cache_*` test runs the same checker; they differ in the limits and operations
//! drawn, so that each puts pressure on its own invariant.

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{json, Value};
use typed_mcp::cache::{
    Cache, CacheKey, CachePolicy, CacheStats, Clock, EntryMeta, InsertStatus, ManualClock,
    MemoryStore, StoreSnapshot,
};
use typed_mcp::generated::limits::{CacheLimits, EvictionPolicy};

#[derive(Debug, Clone)]
enum Op {
    Insert {
        tool: u8,
        arg: u8,
        text: String,
        ttl_ms: Option<u64>,
    },
    Get {
        tool: u8,
        arg: u8,
    },
    Remove {
        tool: u8,
        arg: u8,
    },
    Advance(u64),
    /// Moves the clock to one entry's expiry edge, `created_at + ttl` plus `offset - 1`
    /// (just before, at, or just after), if that is not in the past.
    AdvanceToEdge {
        pick: prop::sample::Index,
        offset: u64,
    },
    Purge,
}

#[derive(Debug, Clone)]
struct Setup {
    policy: EvictionPolicy,
    max_size_bytes: u64,
    max_entries: u64,
    high_water_mark: u64,
    ttl_ms: u64,
}

fn nz(n: u64) -> NonZeroU64 {
    NonZeroU64::new(n).expect("strategies draw non-zero values")
}

fn policy() -> impl Strategy<Value = EvictionPolicy> {
    prop_oneof![
        Just(EvictionPolicy::Lru),
        Just(EvictionPolicy::Lfu),
        Just(EvictionPolicy::Fifo)
    ]
}

fn setup(
    size: std::ops::Range<u64>,
    entries: std::ops::Range<u64>,
    high_water_mark: std::ops::RangeInclusive<u64>,
) -> impl Strategy<Value = Setup> {
    (policy(), size, entries, high_water_mark, 1..2_000u64).prop_map(
        |(policy, max_size_bytes, max_entries, high_water_mark, ttl_ms)| Setup {
            policy,
            max_size_bytes,
            max_entries,
            high_water_mark,
            ttl_ms,
        },
    )
}

/// Operations over 3 tools × `args` arguments; values are strings whose characters need
/// escaping in JSON sometimes, so sizes depend on the serializer, not just on lengths.
fn ops(args: u8, text_len: usize, max_advance: u64) -> impl Strategy<Value = Vec<Op>> {
    let text = proptest::collection::vec(
        prop_oneof![
            Just('a'),
            Just('"'),
            Just('\\'),
            Just('é'),
            Just('\n'),
            Just('\u{1}')
        ],
        0..text_len,
    )
    .prop_map(|chars| chars.into_iter().collect::<String>());
    let op = prop_oneof![
        4 => (0..3u8, 0..args, text, proptest::option::of(1..3_000u64))
            .prop_map(|(tool, arg, text, ttl_ms)| Op::Insert { tool, arg, text, ttl_ms }),
        4 => (0..3u8, 0..args).prop_map(|(tool, arg)| Op::Get { tool, arg }),
        1 => (0..3u8, 0..args).prop_map(|(tool, arg)| Op::Remove { tool, arg }),
        2 => (0..max_advance).prop_map(Op::Advance),
        2 => (any::<prop::sample::Index>(), 0..3u64)
            .prop_map(|(pick, offset)| Op::AdvanceToEdge { pick, offset }),
        1 => Just(Op::Purge),
    ];
    proptest::collection::vec(op, 1..120)
}

fn tool_name(tool: u8) -> String {
    format!("tool-{tool}")
}

fn arguments(tool: u8, arg: u8) -> Value {
    // Members in varying order; the key must not depend on it.
    if arg.is_multiple_of(2) {
        json!({"n": arg, "tool": tool, "list": [arg, {"z": null, "a": true}]})
    } else {
        json!({"list": [arg, {"a": true, "z": null}], "tool": tool, "n": arg})
    }
}

/// What the test knows about a key's last insertion, independently of the cache.
#[derive(Debug, Clone)]
struct Expected {
    value: Value,
    created_at_ms: u64,
    ttl_ms: u64,
}

struct Harness {
    setup: Setup,
    cache: Cache,
    store: Arc<MemoryStore>,
    clock: Arc<ManualClock>,
    inserted: HashMap<CacheKey, Expected>,
}

impl Harness {
    fn new(setup: Setup) -> Self {
        let limits = CacheLimits {
            max_size_bytes: nz(setup.max_size_bytes),
            max_entries: nz(setup.max_entries),
            high_water_mark: nz(setup.high_water_mark),
            ttl_ms: nz(setup.ttl_ms),
            eviction_policy: setup.policy,
            ..CacheLimits::default()
        };
        let store = Arc::new(MemoryStore::new(&limits));
        let clock = Arc::new(ManualClock::new());
        let cache = Cache::builder()
            .limits(&limits)
            .store(store.clone())
            .clock(clock.clone())
            .cleanup_task(false)
            .build()
            .expect("valid limits");
        Self {
            setup,
            cache,
            store,
            clock,
            inserted: HashMap::new(),
        }
    }

    fn snapshot(&self) -> StoreSnapshot {
        self.cache
            .snapshot()
            .expect("the memory store has snapshots")
    }

    fn mark(&self, bound: u64) -> u64 {
        bound * self.setup.high_water_mark / 100
    }

    fn expired(&self, e: &EntryMeta, now: u64) -> bool {
        now > e.created_at_ms + e.ttl_ms
    }

    /// Runs one operation and checks every invariant around it.
    fn step(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let before = self.snapshot();
        let stats_before = self.cache.stats();
        let now = self.clock.now_ms();
        match op {
            Op::Insert {
                tool,
                arg,
                text,
                ttl_ms,
            } => {
                let (name, args) = (tool_name(*tool), arguments(*tool, *arg));
                let key = CacheKey::new(&name, &args);
                let value = json!({ "text": text });
                let policy = match ttl_ms {
                    Some(ttl) => CachePolicy::cacheable_with_ttl_ms(nz(*ttl)),
                    None => CachePolicy::cacheable(),
                };
                let size = key.as_str().len() + serde_json::to_string(&value).unwrap().len();
                let status = self.cache.insert(&name, &args, value.clone(), policy);
                let after = self.snapshot();
                if size as u64 > self.setup.max_size_bytes {
                    prop_assert_eq!(status, InsertStatus::Rejected);
                    prop_assert_eq!(self.cache.stats().rejections, stats_before.rejections + 1);
                    prop_assert!(after.entries.iter().all(|e| e.key != key));
                    self.inserted.remove(&key);
                } else {
                    prop_assert_eq!(status, InsertStatus::Stored);
                    let expected = Expected {
                        value,
                        created_at_ms: now,
                        ttl_ms: ttl_ms.unwrap_or(self.setup.ttl_ms),
                    };
                    self.inserted.insert(key.clone(), expected);
                    self.check_insertion(&before, &after, &key, now, &stats_before)?;
                }
            }
            Op::Get { tool, arg } => {
                let (name, args) = (tool_name(*tool), arguments(*tool, *arg));
                let key = CacheKey::new(&name, &args);
                let got = self.cache.get(&name, &args);
                let present = before.entries.iter().find(|e| e.key == key);
                match (&got, present) {
                    (Some(value), Some(meta)) => {
                        let expected = &self.inserted[&key];
                        // CACHE-003: never a value past its TTL.
                        prop_assert!(now <= expected.created_at_ms + expected.ttl_ms);
                        prop_assert!(!self.expired(meta, now));
                        prop_assert_eq!(&**value, &expected.value);
                    }
                    (Some(_), None) => prop_assert!(false, "hit on a key that was not stored"),
                    // A fresh entry must be found; an expired one must not.
                    (None, Some(meta)) => prop_assert!(self.expired(meta, now)),
                    (None, None) => {}
                }
            }
            Op::Remove { tool, arg } => {
                let (name, args) = (tool_name(*tool), arguments(*tool, *arg));
                let key = CacheKey::new(&name, &args);
                let was_present = before.entries.iter().any(|e| e.key == key);
                prop_assert_eq!(self.cache.remove(&name, &args), was_present);
            }
            Op::Advance(ms) => self.clock.advance(Duration::from_millis(*ms)),
            Op::AdvanceToEdge { pick, offset } => {
                if !before.entries.is_empty() {
                    let e = pick.get(&before.entries);
                    let target = (e.created_at_ms + e.ttl_ms + offset).saturating_sub(1);
                    self.clock
                        .advance(Duration::from_millis(target.saturating_sub(now)));
                }
            }
            Op::Purge => {
                let purged = self.cache.purge_expired();
                let expected = before
                    .entries
                    .iter()
                    .filter(|e| self.expired(e, now))
                    .count();
                prop_assert_eq!(purged, expected as u64);
            }
        }
        self.check_state()
    }

    /// CACHE-001, CACHE-002, CACHE-006 and index consistency, on the current state.
    fn check_state(&self) -> Result<(), TestCaseError> {
        let snap = self.snapshot();
        let sum: u64 = snap.entries.iter().map(|e| e.size_bytes).sum();
        // CACHE-006: the running total is exact.
        prop_assert_eq!(snap.current_size_bytes, sum);
        for e in &snap.entries {
            // CACHE-006: each entry's size is key bytes + compact JSON value bytes,
            // recomputed here from what the test inserted.
            let value = &self.inserted[&e.key].value;
            let size = e.key.as_str().len() + serde_json::to_vec(value).unwrap().len();
            prop_assert_eq!(e.size_bytes, size as u64);
        }
        // CACHE-001 and CACHE-002.
        prop_assert!(snap.current_size_bytes <= self.setup.max_size_bytes);
        prop_assert!(snap.entries.len() as u64 <= self.setup.max_entries);
        if let Err(problem) = self.store.check_consistency() {
            prop_assert!(false, "store indexes inconsistent: {}", problem);
        }
        Ok(())
    }

    /// High-water mark and CACHE-004 eviction order, around one successful insertion.
    fn check_insertion(
        &self,
        before: &StoreSnapshot,
        after: &StoreSnapshot,
        key: &CacheKey,
        now: u64,
        stats_before: &CacheStats,
    ) -> Result<(), TestCaseError> {
        let size_mark = self.mark(self.setup.max_size_bytes);
        let entry_mark = self.mark(self.setup.max_entries);
        prop_assert!(after.entries.iter().any(|e| &e.key == key));
        // Back at or under the mark, unless the new entry alone does not fit under it.
        prop_assert!(
            after.entries.len() == 1
                || (after.current_size_bytes <= size_mark
                    && after.entries.len() as u64 <= entry_mark),
            "over the high-water mark after an insertion"
        );
        let survives = |k: &CacheKey| after.entries.iter().any(|e| &e.key == k);
        let (mut evicted, mut survivors) = (Vec::new(), Vec::new());
        for e in before.entries.iter().filter(|e| &e.key != key) {
            if survives(&e.key) {
                survivors.push(e);
            } else if !self.expired(e, now) {
                evicted.push(e);
            }
        }
        let stats = self.cache.stats();
        prop_assert_eq!(
            stats.evictions - stats_before.evictions,
            evicted.len() as u64
        );
        for s in &survivors {
            for e in &evicted {
                // CACHE-004: every survivor outranks every evicted entry.
                match self.setup.policy {
                    EvictionPolicy::Lru => {
                        prop_assert!(s.last_accessed_at_ms >= e.last_accessed_at_ms);
                        prop_assert!(s.access_seq > e.access_seq);
                    }
                    EvictionPolicy::Lfu => {
                        prop_assert!((s.hits, s.access_seq) > (e.hits, e.access_seq));
                    }
                    EvictionPolicy::Fifo => prop_assert!(s.insert_seq > e.insert_seq),
                }
            }
        }
        // No more evicted than needed: without the last victim the cache was still over.
        if let Some(last) = evicted.iter().max_by_key(|e| match self.setup.policy {
            EvictionPolicy::Lru => (e.access_seq, 0),
            EvictionPolicy::Lfu => (e.hits, e.access_seq),
            EvictionPolicy::Fifo => (e.insert_seq, 0),
        }) {
            prop_assert!(
                after.current_size_bytes + last.size_bytes > size_mark
                    || after.entries.len() as u64 + 1 > entry_mark,
                "evicted more than needed"
            );
        }
        Ok(())
    }
}

fn run(setup: Setup, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut harness = Harness::new(setup);
    for op in ops {
        harness.step(op)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// CACHE-001: small size bounds, values up to a few hundred bytes.
    #[test]
    fn inv_cache_001_size_bound(setup in setup(40..600, 50..100, 1..=100), ops in ops(8, 120, 200)) {
        run(setup, &ops)?;
    }

    /// CACHE-002: small entry bounds, small values.
    #[test]
    fn inv_cache_002_entry_bound(setup in setup(10_000..20_000, 1..8, 1..=100), ops in ops(12, 8, 200)) {
        run(setup, &ops)?;
    }

    /// CACHE-003: short TTLs and large clock steps.
    #[test]
    fn inv_cache_003_ttl_never_serves_expired(
        setup in setup(1_000..5_000, 5..30, 1..=100),
        ops in ops(4, 20, 3_000),
    ) {
        run(setup, &ops)?;
    }

    /// CACHE-004: constant eviction pressure, few keys so they are read again.
    #[test]
    fn inv_cache_004_eviction_order(setup in setup(300..1_000, 3..8, 60..=100), ops in ops(5, 40, 50)) {
        run(setup, &ops)?;
    }

    /// CACHE-006: a broad mix.
    #[test]
    fn inv_cache_006_size_accuracy(setup in setup(1..3_000, 1..40, 1..=100), ops in ops(10, 80, 1_000)) {
        run(setup, &ops)?;
    }
}
