//! CACHE-005 (atomicity under concurrent use) and single-flight.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use typed_mcp::cache::{Cache, CacheKey, CachePolicy, CacheSource, ManualClock, MemoryStore};
use typed_mcp::generated::limits::{CacheLimits, EvictionPolicy};

/// A small deterministic generator, one per task.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// The value stored under a key: names the key, padded to a length derived from it, so a
/// reader can tell a value that belongs to another key or was cut short.
fn value_for(key: &CacheKey) -> Value {
    let pad = key.as_str().bytes().map(u64::from).sum::<u64>() % 300;
    json!({"key": key.as_str(), "pad": "x".repeat(pad as usize)})
}

fn check_value(key: &CacheKey, value: &Value) {
    assert_eq!(value, &value_for(key), "value does not belong to its key");
}

const TOOLS: [&str; 3] = ["alpha", "beta", "gamma"];

fn call(rng: &mut XorShift) -> (&'static str, Value, CacheKey) {
    let tool = TOOLS[(rng.next() % 3) as usize];
    let args = json!({"n": rng.next() % 16});
    let key = CacheKey::new(tool, &args);
    (tool, args, key)
}

/// Many tasks on a multi-threaded runtime insert, read, compute, remove, move the clock and
/// sweep, while a checker task keeps taking snapshots and checking every invariant on
/// each; readers check every value they get.
async fn stress(policy: EvictionPolicy) {
    let limits = CacheLimits {
        max_size_bytes: 3_000.try_into().unwrap(),
        max_entries: 12.try_into().unwrap(),
        high_water_mark: 80.try_into().unwrap(),
        ttl_ms: 40.try_into().unwrap(),
        cleanup_interval_ms: 1.try_into().unwrap(),
        eviction_policy: policy,
        ..CacheLimits::default()
    };
    let store = Arc::new(MemoryStore::new(&limits));
    let clock = Arc::new(ManualClock::new());
    // The cleanup task runs too (every real millisecond, on the manual clock's time).
    let cache = Cache::builder()
        .limits(&limits)
        .store(store.clone())
        .clock(clock.clone())
        .build()
        .unwrap();
    let done = Arc::new(AtomicBool::new(false));

    let checker = {
        let (cache, store, done) = (cache.clone(), store.clone(), done.clone());
        tokio::spawn(async move {
            let mut checks = 0u64;
            while !done.load(Ordering::Acquire) || checks == 0 {
                let snap = cache.snapshot().unwrap();
                let sum: u64 = snap.entries.iter().map(|e| e.size_bytes).sum();
                assert_eq!(snap.current_size_bytes, sum, "CACHE-006 under concurrency");
                assert!(
                    snap.current_size_bytes <= 3_000,
                    "CACHE-001 under concurrency"
                );
                assert!(snap.entries.len() <= 12, "CACHE-002 under concurrency");
                for e in &snap.entries {
                    let expected = e.key.as_str().len()
                        + serde_json::to_string(&value_for(&e.key)).unwrap().len();
                    assert_eq!(e.size_bytes, expected as u64, "entry size");
                }
                if let Err(problem) = store.check_consistency() {
                    panic!("inconsistent store seen: {problem}");
                }
                checks += 1;
                tokio::task::yield_now().await;
            }
            checks
        })
    };

    let lookups = Arc::new(AtomicU64::new(0));
    let mut workers = Vec::new();
    for seed in 1..=8u64 {
        let (cache, clock, lookups) = (cache.clone(), clock.clone(), lookups.clone());
        workers.push(tokio::spawn(async move {
            let mut rng = XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            for _ in 0..5_000 {
                let (tool, args, key) = call(&mut rng);
                match rng.next() % 10 {
                    0..=3 => {
                        lookups.fetch_add(1, Ordering::Relaxed);
                        if let Some(value) = cache.get(tool, &args) {
                            check_value(&key, &value);
                        }
                    }
                    4 | 5 => {
                        cache.insert(tool, &args, value_for(&key), CachePolicy::cacheable());
                    }
                    6 => {
                        lookups.fetch_add(1, Ordering::Relaxed);
                        let key2 = key.clone();
                        let got = cache
                            .get_or_compute(tool, &args, CachePolicy::cacheable(), || async move {
                                tokio::task::yield_now().await;
                                Ok::<_, String>(value_for(&key2))
                            })
                            .await
                            .unwrap();
                        check_value(&key, &got.value);
                    }
                    7 => {
                        cache.remove(tool, &args);
                    }
                    8 => clock.advance(Duration::from_millis(5)),
                    _ => {
                        cache.purge_expired();
                    }
                }
                if rng.next().is_multiple_of(4) {
                    tokio::task::yield_now().await;
                }
            }
        }));
    }
    for worker in workers {
        worker.await.unwrap();
    }
    done.store(true, Ordering::Release);
    let checks = checker.await.unwrap();
    assert!(checks > 0);
    let stats = cache.stats();
    // Every lookup was counted exactly once, as a hit, a miss or a coalesced wait.
    assert_eq!(
        stats.hits + stats.misses + stats.coalesced,
        lookups.load(Ordering::Relaxed)
    );
    assert_eq!(stats.store_failures, 0);
    cache.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn inv_cache_005_atomic_under_concurrency_lru() {
    stress(EvictionPolicy::Lru).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn inv_cache_005_atomic_under_concurrency_lfu() {
    stress(EvictionPolicy::Lfu).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn inv_cache_005_atomic_under_concurrency_fifo() {
    stress(EvictionPolicy::Fifo).await;
}

// ---------------------------------------------------------------- single-flight

fn manual_cache() -> Cache {
    Cache::builder()
        .clock(Arc::new(ManualClock::new()))
        .cleanup_task(false)
        .build()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn single_flight_runs_the_computation_once() {
    let cache = manual_cache();
    let runs = Arc::new(AtomicU64::new(0));
    let mut calls = Vec::new();
    for _ in 0..32 {
        let (cache, runs) = (cache.clone(), runs.clone());
        calls.push(tokio::spawn(async move {
            cache
                .get_or_compute(
                    "slow",
                    &json!({"q": 1}),
                    CachePolicy::cacheable(),
                    || async {
                        runs.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        Ok::<_, String>(json!("answer"))
                    },
                )
                .await
                .unwrap()
        }));
    }
    let mut sources = Vec::new();
    for call in calls {
        let got = call.await.unwrap();
        assert_eq!(*got.value, json!("answer"));
        sources.push(got.source);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let computed = sources
        .iter()
        .filter(|s| **s == CacheSource::Computed)
        .count();
    let coalesced = sources
        .iter()
        .filter(|s| **s == CacheSource::Coalesced)
        .count();
    assert_eq!((computed, coalesced), (1, 31));
    let stats = cache.stats();
    assert_eq!((stats.misses, stats.coalesced, stats.hits), (1, 31, 0));
    assert_eq!(cache.computations_in_flight(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn single_flight_on_a_multi_threaded_runtime() {
    let cache = manual_cache();
    let runs = Arc::new(AtomicU64::new(0));
    let (gate, gate_rx) = tokio::sync::watch::channel(false);
    let mut calls = Vec::new();
    for _ in 0..64 {
        let (cache, runs, mut gate_rx) = (cache.clone(), runs.clone(), gate_rx.clone());
        calls.push(tokio::spawn(async move {
            cache
                .get_or_compute(
                    "t",
                    &json!({"b": 2, "a": 1}),
                    CachePolicy::cacheable(),
                    || async move {
                        runs.fetch_add(1, Ordering::SeqCst);
                        gate_rx.wait_for(|open| *open).await.unwrap();
                        Ok::<_, String>(json!(42))
                    },
                )
                .await
                .unwrap()
        }));
    }
    while cache.computations_in_flight() == 0 {
        tokio::task::yield_now().await;
    }
    gate.send_replace(true);
    for call in calls {
        assert_eq!(*call.await.unwrap().value, json!(42));
    }
    // Callers arriving after the computation got the stored value; none computed again.
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let stats = cache.stats();
    assert_eq!(stats.misses, 1);
    assert_eq!(stats.hits + stats.coalesced, 63);
}

#[derive(Debug, Clone, PartialEq)]
struct ToolFailed(&'static str);

#[tokio::test(start_paused = true)]
async fn single_flight_shares_an_error_and_does_not_cache_it() {
    let cache = manual_cache();
    let runs = Arc::new(AtomicU64::new(0));
    let mut calls = Vec::new();
    for _ in 0..16 {
        let (cache, runs) = (cache.clone(), runs.clone());
        calls.push(tokio::spawn(async move {
            cache
                .get_or_compute("flaky", &json!({}), CachePolicy::cacheable(), || async {
                    runs.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    Err::<Value, _>(ToolFailed("down"))
                })
                .await
        }));
    }
    for call in calls {
        assert_eq!(call.await.unwrap().unwrap_err(), ToolFailed("down"));
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(cache.snapshot().unwrap().entries.is_empty());
    // The next call computes again.
    let got = cache
        .get_or_compute("flaky", &json!({}), CachePolicy::cacheable(), || async {
            runs.fetch_add(1, Ordering::SeqCst);
            Ok::<_, ToolFailed>(json!("up"))
        })
        .await
        .unwrap();
    assert_eq!(
        (got.source, runs.load(Ordering::SeqCst)),
        (CacheSource::Computed, 2)
    );
}

#[tokio::test(start_paused = true)]
async fn single_flight_waiter_takes_over_when_the_leader_is_cancelled() {
    let cache = manual_cache();
    let leader = {
        let cache = cache.clone();
        tokio::spawn(async move {
            cache
                .get_or_compute("t", &json!({}), CachePolicy::cacheable(), || async {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    Ok::<_, String>(json!("leader"))
                })
                .await
        })
    };
    tokio::task::yield_now().await;
    assert_eq!(cache.computations_in_flight(), 1);
    let waiter = {
        let cache = cache.clone();
        tokio::spawn(async move {
            cache
                .get_or_compute("t", &json!({}), CachePolicy::cacheable(), || async {
                    Ok::<_, String>(json!("waiter"))
                })
                .await
        })
    };
    tokio::task::yield_now().await;
    leader.abort();
    assert!(leader.await.unwrap_err().is_cancelled());
    let got = tokio::time::timeout(Duration::from_secs(1), waiter)
        .await
        .expect("the waiter is not left hanging")
        .unwrap()
        .unwrap();
    assert_eq!(
        (got.source, &*got.value),
        (CacheSource::Computed, &json!("waiter"))
    );
    assert_eq!(cache.computations_in_flight(), 0);
}

#[tokio::test(start_paused = true)]
async fn single_flight_waiter_takes_over_when_the_computation_panics() {
    let cache = manual_cache();
    let leader = {
        let cache = cache.clone();
        tokio::spawn(async move {
            cache
                .get_or_compute("t", &json!({}), CachePolicy::cacheable(), || async {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    panic!("handler bug");
                    #[allow(unreachable_code)]
                    Ok::<_, String>(json!(null))
                })
                .await
        })
    };
    tokio::task::yield_now().await;
    let waiter = {
        let cache = cache.clone();
        tokio::spawn(async move {
            cache
                .get_or_compute("t", &json!({}), CachePolicy::cacheable(), || async {
                    Ok::<_, String>(json!("recovered"))
                })
                .await
        })
    };
    assert!(leader.await.unwrap_err().is_panic());
    let got = waiter.await.unwrap().unwrap();
    assert_eq!(
        (got.source, &*got.value),
        (CacheSource::Computed, &json!("recovered"))
    );
}

#[tokio::test(start_paused = true)]
async fn single_flight_waiter_with_another_error_type_computes_itself() {
    let cache = manual_cache();
    let leader = {
        let cache = cache.clone();
        tokio::spawn(async move {
            cache
                .get_or_compute("t", &json!({}), CachePolicy::cacheable(), || async {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    Err::<Value, _>("a string error".to_owned())
                })
                .await
        })
    };
    tokio::task::yield_now().await;
    let got = cache
        .get_or_compute("t", &json!({}), CachePolicy::cacheable(), || async {
            Ok::<_, ToolFailed>(json!("mine"))
        })
        .await
        .unwrap();
    assert_eq!(got.source, CacheSource::Computed);
    assert!(leader.await.unwrap().is_err());
}

#[tokio::test]
async fn uncacheable_tools_always_run() {
    let cache = manual_cache();
    let runs = AtomicU64::new(0);
    for _ in 0..3 {
        let got = cache
            .get_or_compute(
                "delete_file",
                &json!({}),
                CachePolicy::Uncacheable,
                || async {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Ok::<_, String>(json!("done"))
                },
            )
            .await
            .unwrap();
        assert_eq!(got.source, CacheSource::Uncacheable);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    assert_eq!(cache.stats().uncacheable, 3);
    assert!(cache.snapshot().unwrap().entries.is_empty());
}

/// The handle can be shared across tasks and threads, and its futures spawned.
#[test]
fn cache_is_send_sync_clone_and_its_futures_are_send() {
    fn shareable<T: Send + Sync + Clone + 'static>() {}
    fn spawnable<F: std::future::Future + Send>(_: &F) {}
    shareable::<Cache>();
    let cache = manual_cache();
    let args = json!({});
    let future = cache.get_or_compute("t", &args, CachePolicy::cacheable(), || async {
        Ok::<_, String>(json!(1))
    });
    spawnable(&future);
    drop(future);
}

/// A store that waits for a message on every lookup, as a network store waits for its server.
struct WaitingStore {
    entered: std::sync::Mutex<std::sync::mpsc::Sender<()>>,
    answered: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
}

impl typed_mcp::cache::CacheStore for WaitingStore {
    fn blocks_on_io(&self) -> bool {
        true
    }

    fn get(
        &self,
        _key: &CacheKey,
        _now_ms: u64,
    ) -> Result<typed_mcp::cache::Lookup, typed_mcp::cache::StoreError> {
        self.entered.lock().unwrap().send(()).unwrap();
        // Generous: with block_in_place the message comes at once; without it, never.
        match self
            .answered
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(30))
        {
            Ok(()) => Ok(typed_mcp::cache::Lookup::Miss),
            Err(_) => Err(typed_mcp::cache::StoreError::Backend {
                reason: "no other task ran while the store blocked".to_owned(),
            }),
        }
    }

    fn insert(
        &self,
        _entry: typed_mcp::cache::NewEntry,
        _now_ms: u64,
    ) -> Result<typed_mcp::cache::InsertOutcome, typed_mcp::cache::StoreError> {
        Ok(typed_mcp::cache::InsertOutcome::Rejected)
    }

    fn remove(&self, _key: &CacheKey) -> Result<bool, typed_mcp::cache::StoreError> {
        Ok(false)
    }

    fn purge_expired(&self, _now_ms: u64) -> Result<u64, typed_mcp::cache::StoreError> {
        Ok(0)
    }
}

/// A store that blocks on I/O (Redis) does not stall the other tasks of its worker thread:
/// on a one-worker runtime, a task spawned while the lookup waits must run, and unblock it.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_store_blocking_on_io_does_not_stall_other_tasks() {
    let (unblock, answered) = std::sync::mpsc::channel();
    let (entered_tx, entered) = std::sync::mpsc::channel();
    let store = Arc::new(WaitingStore {
        entered: std::sync::Mutex::new(entered_tx),
        answered: std::sync::Mutex::new(answered),
    });
    let cache = Cache::builder()
        .store(store)
        .cleanup_task(false)
        .build()
        .unwrap();
    // The lookup runs on the one worker thread and waits inside the store.
    let lookup = tokio::spawn(async move {
        let found = cache.get("tool", &json!({}));
        (found, cache.stats().store_failures)
    });
    entered.recv_timeout(Duration::from_secs(30)).unwrap();
    // Queued behind the waiting lookup: it runs only if the worker was handed over.
    let other = tokio::spawn(async move { unblock.send(()).unwrap() });
    let (found, failures) = lookup.await.unwrap();
    assert_eq!(found, None);
    assert_eq!(
        failures, 0,
        "the store waited in vain: nothing else ran meanwhile"
    );
    other.await.unwrap();
}
