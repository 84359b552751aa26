//! Example-based tests of the cache: keys, configuration, TTL and the cleanup task,
//! eviction order per policy, rejection of oversize values, cacheability, stats.

use std::num::NonZeroU64;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{json, Value};
use typed_mcp::cache::{
    canonical_json, entry_size_bytes, Cache, CacheError, CacheKey, CachePolicy, CacheStore, Clock,
    InsertOutcome, InsertStatus, Lookup, ManualClock, MemoryStore, NewEntry, StoreError,
    StoreSnapshot,
};
use typed_mcp::generated::limits::{CacheLimits, EvictionPolicy};

fn nz(n: u64) -> NonZeroU64 {
    NonZeroU64::new(n).expect("non-zero")
}

/// A cache on a manual clock, without the cleanup task.
fn manual_cache(builder: typed_mcp::cache::CacheBuilder) -> (Cache, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new());
    let cache = builder
        .clock(clock.clone())
        .cleanup_task(false)
        .build()
        .expect("valid limits");
    (cache, clock)
}

fn keys_in_order(cache: &Cache) -> Vec<String> {
    cache
        .snapshot()
        .expect("snapshot")
        .entries
        .iter()
        .map(|e| e.key.as_str().to_owned())
        .collect()
}

fn key_of(tool: &str) -> String {
    CacheKey::new(tool, &json!({})).as_str().to_owned()
}

// ---------------------------------------------------------------- keys

#[test]
fn key_ignores_member_order_and_whitespace() {
    let a: Value = serde_json::from_str(r#"{"a":1,"b":2}"#).unwrap();
    let b: Value = serde_json::from_str(r#"{ "b" : 2 ,  "a" : 1 }"#).unwrap();
    assert_eq!(CacheKey::new("t", &a), CacheKey::new("t", &b));

    let (cache, _) = manual_cache(Cache::builder());
    let stored = cache.insert("t", &a, json!("r"), CachePolicy::cacheable());
    assert_eq!(stored, InsertStatus::Stored);
    assert_eq!(cache.get("t", &b).as_deref(), Some(&json!("r")));
    assert_eq!(cache.snapshot().unwrap().entries.len(), 1);
}

#[test]
fn key_distinguishes_tool_and_arguments() {
    let args = json!({"a": 1});
    let key = CacheKey::new("t", &args);
    assert_ne!(key, CacheKey::new("u", &args));
    assert_ne!(key, CacheKey::new("t", &json!({"a": 1.0})));
    assert_ne!(key, CacheKey::new("t", &json!({"a": "1"})));
    // Tool names are escaped, so a crafted name cannot collide with another call.
    assert_ne!(
        CacheKey::new("t\",{\"a\":1}]", &json!(null)),
        CacheKey::new("t", &json!({"a": 1}))
    );
}

#[test]
fn key_debug_does_not_echo_arguments() {
    let key = CacheKey::new("t", &json!({"secret": "hunter2"}));
    assert!(!format!("{key:?}").contains("hunter2"));
}

#[test]
fn canonical_json_survives_deep_nesting() {
    let mut value = json!(1);
    for _ in 0..200_000 {
        value = Value::Array(vec![value]);
    }
    let text = canonical_json(&value);
    assert_eq!(text.len(), 400_001);
    // Dropping a deep `Value` recurses in serde_json; unwind it iteratively.
    while let Value::Array(mut items) = value {
        value = items.pop().unwrap_or(Value::Null);
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-c\"\\\\\u{0}-\u{1f}é😀]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec(("[a-d]{0,3}", inner), 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    /// The canonical text is JSON for the same value, with sorted keys and no whitespace,
    /// and is what serde_json writes for it (serde_json's map is sorted here).
    #[test]
    fn canonical_json_round_trips(value in json_value(), tool in "[a-z\"\\\\]{0,5}") {
        let text = canonical_json(&value);
        let parsed: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&parsed, &value);
        prop_assert_eq!(&text, &serde_json::to_string(&value).unwrap());
        let key = CacheKey::new(&tool, &value);
        let parsed_key: Value = serde_json::from_str(key.as_str()).unwrap();
        prop_assert_eq!(parsed_key, json!([tool, value]));
    }
}

// ---------------------------------------------------------------- configuration

#[test]
fn from_limits_uses_the_generated_config() {
    let limits: CacheLimits = serde_json::from_value(json!({
        "maxSizeBytes": 1000, "maxEntries": 3, "ttlMs": 50, "evictionPolicy": "fifo"
    }))
    .unwrap();
    let (cache, _) = manual_cache(typed_mcp::cache::CacheBuilder::from_limits(&limits));
    assert_eq!(cache.limits(), &limits);
    let snap = cache.snapshot().unwrap();
    assert_eq!(
        (snap.policy, snap.max_size_bytes, snap.max_entries),
        (EvictionPolicy::Fifo, 1000, 3)
    );
}

#[test]
fn invalid_limits_list_every_violation() {
    let err = Cache::builder()
        .max_entries(0)
        .high_water_mark(150)
        .cleanup_task(false)
        .build()
        .unwrap_err();
    let CacheError::InvalidLimits { errors } = &err else {
        panic!("unexpected error {err}");
    };
    let mut paths: Vec<&str> = errors.iter().map(|e| e.path()).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["/highWaterMark", "/maxEntries"]);
}

#[test]
fn cleanup_task_needs_a_runtime() {
    let err = Cache::from_limits(&CacheLimits::default()).unwrap_err();
    assert!(matches!(err, CacheError::NoRuntime), "{err}");
}

// ---------------------------------------------------------------- bounds

#[test]
fn inv_cache_001_size_bound_evicts_down_to_the_mark() {
    // Entries of 20 bytes (`["tN",{}]` is 9 bytes, `"xxxxxxxxx"` 11).
    let value = json!("x".repeat(9));
    assert_eq!(
        entry_size_bytes(&CacheKey::new("t0", &json!({})), &value),
        20
    );
    let (cache, _) = manual_cache(
        Cache::builder()
            .max_size_bytes(100)
            .high_water_mark(60)
            .max_entries(1000),
    );
    for i in 0..3 {
        cache.insert(
            &format!("t{i}"),
            &json!({}),
            value.clone(),
            CachePolicy::cacheable(),
        );
    }
    assert_eq!(cache.snapshot().unwrap().current_size_bytes, 60);
    assert_eq!(cache.stats().evictions, 0);
    // 80 > 60: the oldest goes.
    cache.insert("t3", &json!({}), value.clone(), CachePolicy::cacheable());
    let snap = cache.snapshot().unwrap();
    assert_eq!(snap.current_size_bytes, 60);
    assert_eq!(
        keys_in_order(&cache),
        [key_of("t1"), key_of("t2"), key_of("t3")]
    );
    assert_eq!(cache.stats().evictions, 1);
}

#[test]
fn inv_cache_001_value_larger_than_the_bound_is_rejected_not_an_error() {
    let (cache, _) = manual_cache(Cache::builder().max_size_bytes(30));
    let small = cache.insert("t", &json!({}), json!("small"), CachePolicy::cacheable());
    assert_eq!(small, InsertStatus::Stored);
    let big = json!("y".repeat(100));
    assert_eq!(
        cache.insert("u", &json!({}), big, CachePolicy::cacheable()),
        InsertStatus::Rejected
    );
    assert_eq!(cache.stats().rejections, 1);
    // Nothing was evicted for it.
    assert_eq!(keys_in_order(&cache), [key_of("t")]);
}

#[tokio::test]
async fn inv_cache_001_oversize_result_is_returned_but_not_cached() {
    let (cache, _) = manual_cache(Cache::builder().max_size_bytes(64));
    let runs = AtomicU64::new(0);
    for _ in 0..2 {
        let got = cache
            .get_or_compute("big", &json!({}), CachePolicy::cacheable(), || async {
                runs.fetch_add(1, Ordering::SeqCst);
                Ok::<_, String>(json!("z".repeat(100)))
            })
            .await
            .unwrap();
        assert_eq!(got.source, typed_mcp::cache::CacheSource::Computed);
        assert_eq!(got.value.as_str().map(str::len), Some(100));
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    let stats = cache.stats();
    assert_eq!(
        (stats.rejections, stats.misses, stats.store_failures),
        (2, 2, 0)
    );
    assert!(cache.snapshot().unwrap().entries.is_empty());
}

#[test]
fn inv_cache_002_entry_bound() {
    let (cache, _) = manual_cache(Cache::builder().max_entries(4).high_water_mark(50));
    for i in 0..10 {
        cache.insert(
            &format!("t{i}"),
            &json!({}),
            json!(i),
            CachePolicy::cacheable(),
        );
        assert!(cache.snapshot().unwrap().entries.len() <= 2);
    }
    assert_eq!(keys_in_order(&cache), [key_of("t8"), key_of("t9")]);
    assert_eq!(cache.stats().evictions, 8);
}

// ---------------------------------------------------------------- TTL

#[test]
fn inv_cache_003_ttl_boundary() {
    let (cache, clock) = manual_cache(Cache::builder().ttl_ms(100));
    cache.insert("t", &json!({}), json!(1), CachePolicy::cacheable());
    clock.advance(Duration::from_millis(100));
    // now == created_at + ttl: still fresh.
    assert!(cache.get("t", &json!({})).is_some());
    clock.advance(Duration::from_millis(1));
    assert!(cache.get("t", &json!({})).is_none());
    let stats = cache.stats();
    assert_eq!((stats.hits, stats.misses, stats.expirations), (1, 1, 1));
    assert!(cache.snapshot().unwrap().entries.is_empty());
}

#[test]
fn inv_cache_003_per_tool_ttl() {
    let (cache, clock) = manual_cache(Cache::builder().ttl_ms(1_000));
    let short = CachePolicy::cacheable_with_ttl_ms(nz(10));
    cache.insert("quick", &json!({}), json!(1), short);
    cache.insert("slow", &json!({}), json!(2), CachePolicy::cacheable());
    clock.advance(Duration::from_millis(11));
    assert!(cache.get("quick", &json!({})).is_none());
    assert!(cache.get("slow", &json!({})).is_some());
    clock.advance(Duration::from_millis(990));
    assert!(cache.get("slow", &json!({})).is_none());
}

#[test]
fn inv_cache_003_purge_removes_only_expired() {
    let (cache, clock) = manual_cache(Cache::builder().ttl_ms(100));
    cache.insert("old", &json!({}), json!(1), CachePolicy::cacheable());
    clock.advance(Duration::from_millis(60));
    cache.insert("new", &json!({}), json!(2), CachePolicy::cacheable());
    clock.advance(Duration::from_millis(60));
    assert_eq!(cache.purge_expired(), 1);
    assert_eq!(keys_in_order(&cache), [key_of("new")]);
    assert_eq!(cache.stats().expirations, 1);
}

/// Wraps a [`MemoryStore`], counting cleanup sweeps.
struct CountingStore {
    inner: MemoryStore,
    purges: AtomicU64,
}

impl CacheStore for CountingStore {
    fn get(&self, key: &CacheKey, now_ms: u64) -> Result<Lookup, StoreError> {
        self.inner.get(key, now_ms)
    }
    fn insert(&self, entry: NewEntry, now_ms: u64) -> Result<InsertOutcome, StoreError> {
        self.inner.insert(entry, now_ms)
    }
    fn remove(&self, key: &CacheKey) -> Result<bool, StoreError> {
        self.inner.remove(key)
    }
    fn purge_expired(&self, now_ms: u64) -> Result<u64, StoreError> {
        self.purges.fetch_add(1, Ordering::SeqCst);
        self.inner.purge_expired(now_ms)
    }
    fn snapshot(&self) -> Result<StoreSnapshot, StoreError> {
        self.inner.snapshot()
    }
}

fn counting_store() -> Arc<CountingStore> {
    Arc::new(CountingStore {
        inner: MemoryStore::new(&CacheLimits::default()),
        purges: AtomicU64::new(0),
    })
}

fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

#[tokio::test(start_paused = true)]
async fn inv_cache_003_cleanup_task_sweeps_expired_entries() {
    let cache = Cache::builder()
        .ttl_ms(100)
        .cleanup_interval_ms(50)
        .build()
        .unwrap();
    cache.insert("t", &json!({}), json!(1), CachePolicy::cacheable());
    tokio::time::sleep(Duration::from_millis(100)).await;
    // At 100 ms the entry is not yet expired (100 > 0 + 100 is false) and stays.
    assert_eq!(cache.snapshot().unwrap().entries.len(), 1);
    tokio::time::sleep(Duration::from_millis(60)).await;
    // The sweep at 150 ms removed it; no lookup was made.
    assert!(cache.snapshot().unwrap().entries.is_empty());
    assert_eq!(cache.stats().expirations, 1);
    assert_eq!((cache.stats().hits, cache.stats().misses), (0, 0));
    cache.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn inv_cache_003_cleanup_task_stops_on_shutdown() {
    let store = counting_store();
    let before = alive_tasks();
    let cache = Cache::builder()
        .cleanup_interval_ms(10)
        .store(store.clone())
        .build()
        .unwrap();
    assert_eq!(alive_tasks(), before + 1);
    tokio::time::sleep(Duration::from_millis(35)).await;
    assert_eq!(store.purges.load(Ordering::SeqCst), 3);
    // Virtual time (the clock is paused): a task that ignores the stop request fails this
    // instead of hanging the test.
    tokio::time::timeout(Duration::from_secs(1), cache.shutdown())
        .await
        .expect("the cleanup task stops when asked");
    assert_eq!(alive_tasks(), before);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(store.purges.load(Ordering::SeqCst), 3);
    // The cache still works without the task, and a second shutdown is harmless.
    cache.insert("t", &json!({}), json!(1), CachePolicy::cacheable());
    assert!(cache.get("t", &json!({})).is_some());
    cache.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn inv_cache_003_cleanup_task_stops_when_cache_dropped() {
    let store = counting_store();
    let before = alive_tasks();
    let cache = Cache::builder()
        .cleanup_interval_ms(10)
        .store(store.clone())
        .build()
        .unwrap();
    let clone = cache.clone();
    tokio::time::sleep(Duration::from_millis(25)).await;
    drop(cache);
    // One handle left: the task keeps running.
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert_eq!(store.purges.load(Ordering::SeqCst), 3);
    drop(clone);
    tokio::task::yield_now().await;
    assert_eq!(alive_tasks(), before);
    // The task held no strong reference: the store is only ours now.
    assert_eq!(Arc::strong_count(&store), 1);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(store.purges.load(Ordering::SeqCst), 3);
}

// ---------------------------------------------------------------- eviction order

fn three_entries(policy: EvictionPolicy) -> (Cache, Arc<ManualClock>) {
    let (cache, clock) = manual_cache(
        Cache::builder()
            .max_entries(3)
            .high_water_mark(100)
            .eviction_policy(policy),
    );
    for tool in ["a", "b", "c"] {
        cache.insert(tool, &json!({}), json!(tool), CachePolicy::cacheable());
        clock.advance(Duration::from_millis(1));
    }
    (cache, clock)
}

fn read(cache: &Cache, clock: &ManualClock, tool: &str) {
    assert!(cache.get(tool, &json!({})).is_some());
    clock.advance(Duration::from_millis(1));
}

#[test]
fn inv_cache_004_lru_evicts_least_recently_accessed() {
    let (cache, clock) = three_entries(EvictionPolicy::Lru);
    read(&cache, &clock, "a");
    cache.insert("d", &json!({}), json!("d"), CachePolicy::cacheable());
    assert_eq!(
        keys_in_order(&cache),
        [key_of("c"), key_of("a"), key_of("d")]
    );
    let snap = cache.snapshot().unwrap();
    let accessed: Vec<u64> = snap.entries.iter().map(|e| e.last_accessed_at_ms).collect();
    assert_eq!(accessed, [2, 3, 4]);
}

#[test]
fn inv_cache_004_lfu_evicts_least_frequently_used() {
    let (cache, clock) = three_entries(EvictionPolicy::Lfu);
    read(&cache, &clock, "a");
    read(&cache, &clock, "a");
    read(&cache, &clock, "b");
    cache.insert("d", &json!({}), json!("d"), CachePolicy::cacheable());
    // c had no reads.
    assert_eq!(
        keys_in_order(&cache),
        [key_of("d"), key_of("b"), key_of("a")]
    );
}

#[test]
fn inv_cache_004_lfu_ties_broken_by_recency() {
    let (cache, clock) = three_entries(EvictionPolicy::Lfu);
    for tool in ["c", "b", "a", "c"] {
        read(&cache, &clock, tool);
    }
    // Counts: a 1, b 1, c 2. Between a and b, b was read longer ago (though stored later).
    cache.insert("d", &json!({}), json!("d"), CachePolicy::cacheable());
    assert_eq!(
        keys_in_order(&cache),
        [key_of("d"), key_of("a"), key_of("c")]
    );
}

#[test]
fn inv_cache_004_fifo_evicts_oldest_inserted() {
    let (cache, clock) = three_entries(EvictionPolicy::Fifo);
    read(&cache, &clock, "a");
    read(&cache, &clock, "a");
    cache.insert("d", &json!({}), json!("d"), CachePolicy::cacheable());
    assert_eq!(
        keys_in_order(&cache),
        [key_of("b"), key_of("c"), key_of("d")]
    );
}

#[test]
fn eviction_prefers_expired_entries() {
    let (cache, clock) = manual_cache(Cache::builder().max_entries(2).high_water_mark(100));
    let short = CachePolicy::cacheable_with_ttl_ms(nz(5));
    cache.insert("a", &json!({}), json!(1), CachePolicy::cacheable());
    cache.insert("b", &json!({}), json!(2), short);
    clock.advance(Duration::from_millis(10));
    cache.insert("c", &json!({}), json!(3), CachePolicy::cacheable());
    assert_eq!(keys_in_order(&cache), [key_of("a"), key_of("c")]);
    let stats = cache.stats();
    assert_eq!((stats.evictions, stats.expirations), (0, 1));
}

// ---------------------------------------------------------------- cacheability, stats

#[test]
fn uncacheable_tools_are_not_stored() {
    let (cache, _) = manual_cache(Cache::builder());
    let status = cache.insert("write_file", &json!({}), json!(1), CachePolicy::default());
    assert_eq!(status, InsertStatus::Uncacheable);
    assert!(cache.snapshot().unwrap().entries.is_empty());
    assert_eq!(cache.stats().uncacheable, 1);
}

#[test]
fn reinserting_a_key_replaces_its_entry() {
    let (cache, clock) = manual_cache(Cache::builder().ttl_ms(10));
    cache.insert("t", &json!({}), json!("first"), CachePolicy::cacheable());
    clock.advance(Duration::from_millis(8));
    cache.insert(
        "t",
        &json!({}),
        json!("second value"),
        CachePolicy::cacheable(),
    );
    clock.advance(Duration::from_millis(8));
    // Fresh again from the second insertion.
    assert_eq!(
        cache.get("t", &json!({})).as_deref(),
        Some(&json!("second value"))
    );
    let snap = cache.snapshot().unwrap();
    assert_eq!(snap.entries.len(), 1);
    assert_eq!(snap.current_size_bytes, snap.entries[0].size_bytes);
    assert!(cache.remove("t", &json!({})));
    assert!(!cache.remove("t", &json!({})));
    assert_eq!(cache.snapshot().unwrap().current_size_bytes, 0);
}

#[test]
fn manual_clock_is_monotonic_under_advance() {
    let clock = ManualClock::new();
    clock.advance(Duration::from_millis(u64::MAX));
    clock.advance(Duration::from_millis(5));
    assert_eq!(clock.now_ms(), u64::MAX);
}
