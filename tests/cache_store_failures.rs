//! XC-002: a cache store that errors or panics never prevents the tool from running; each
//! failure is logged (to stderr through `tracing`) and counted.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use typed_mcp::cache::{
    Cache, CacheError, CacheKey, CachePolicy, CacheSource, CacheStore, InsertOutcome, InsertStatus,
    Lookup, ManualClock, MemoryStore, NewEntry, StoreError,
};
use typed_mcp::generated::limits::CacheLimits;

/// How a [`BrokenStore`] misbehaves.
#[derive(Clone, Copy, PartialEq)]
enum Failure {
    Error,
    Panic,
}

/// A store whose every operation fails.
struct BrokenStore(Failure);

impl BrokenStore {
    fn fail<T>(&self, operation: &str) -> Result<T, StoreError> {
        match self.0 {
            Failure::Error => Err(StoreError::Backend {
                reason: format!("{operation}: connection refused"),
            }),
            Failure::Panic => panic!("store bug in {operation}"),
        }
    }
}

impl CacheStore for BrokenStore {
    fn get(&self, _key: &CacheKey, _now_ms: u64) -> Result<Lookup, StoreError> {
        self.fail("get")
    }
    fn insert(&self, _entry: NewEntry, _now_ms: u64) -> Result<InsertOutcome, StoreError> {
        self.fail("insert")
    }
    fn remove(&self, _key: &CacheKey) -> Result<bool, StoreError> {
        self.fail("remove")
    }
    fn purge_expired(&self, _now_ms: u64) -> Result<u64, StoreError> {
        self.fail("purge_expired")
    }
    fn snapshot(&self) -> Result<typed_mcp::cache::StoreSnapshot, StoreError> {
        self.fail("snapshot")
    }
}

/// Collects what `tracing` writes.
#[derive(Clone, Default)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl LogBuffer {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// Runs `body` on a current-thread runtime with a subscriber capturing this thread's logs.
fn with_logs<F: std::future::Future<Output = ()>>(body: impl FnOnce() -> F) -> String {
    let logs = LogBuffer::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(body());
    });
    logs.text()
}

fn cache_over(store: Arc<dyn CacheStore>) -> Cache {
    Cache::builder()
        .store(store)
        .clock(Arc::new(ManualClock::new()))
        .cleanup_task(false)
        .build()
        .unwrap()
}

/// Every API call still gives the tool's result; every store call is a counted, logged
/// failure.
async fn tool_runs_despite(failure: Failure) {
    let cache = cache_over(Arc::new(BrokenStore(failure)));
    let runs = AtomicU64::new(0);
    for expected_failures in [2, 4] {
        // Lookup and insert both fail; the tool runs each time, its result is returned.
        let got = cache
            .get_or_compute("t", &json!({"a": 1}), CachePolicy::cacheable(), || async {
                runs.fetch_add(1, Ordering::SeqCst);
                Ok::<_, String>(json!("result"))
            })
            .await
            .unwrap();
        assert_eq!(
            (got.source, &*got.value),
            (CacheSource::Computed, &json!("result"))
        );
        assert_eq!(cache.stats().store_failures, expected_failures);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(cache.get("t", &json!({"a": 1})), None);
    let status = cache.insert("t", &json!({}), json!(1), CachePolicy::cacheable());
    assert_eq!(status, InsertStatus::StoreFailed);
    assert!(!cache.remove("t", &json!({})));
    assert_eq!(cache.purge_expired(), 0);
    assert!(matches!(cache.snapshot(), Err(CacheError::Store(_))));
    let stats = cache.stats();
    assert_eq!(stats.store_failures, 8);
    // A failed lookup is a miss; nothing was stored, evicted or rejected.
    assert_eq!((stats.hits, stats.misses, stats.rejections), (0, 3, 0));
    assert_eq!(cache.computations_in_flight(), 0);
}

#[test]
fn inv_xc_002_failing_store_never_stops_the_tool() {
    let logs = with_logs(|| tool_runs_despite(Failure::Error));
    assert_eq!(logs.matches("cache store failed").count(), 8, "{logs}");
    assert!(logs.contains("operation=\"insert\""), "{logs}");
    assert!(logs.contains("connection refused"), "{logs}");
    // The call's arguments are not logged.
    assert!(!logs.contains("\"a\":1"), "{logs}");
}

#[test]
fn inv_xc_002_panicking_store_never_stops_the_tool() {
    let logs = with_logs(|| tool_runs_despite(Failure::Panic));
    assert_eq!(logs.matches("cache store panicked").count(), 8, "{logs}");
    assert!(logs.contains("store bug in get"), "{logs}");
}

#[test]
fn inv_xc_002_failing_store_does_not_break_single_flight() {
    let logs = with_logs(|| async {
        let cache = cache_over(Arc::new(BrokenStore(Failure::Panic)));
        let runs = Arc::new(AtomicU64::new(0));
        let mut calls = Vec::new();
        for _ in 0..8 {
            let (cache, runs) = (cache.clone(), runs.clone());
            calls.push(tokio::spawn(async move {
                cache
                    .get_or_compute("t", &json!({}), CachePolicy::cacheable(), || async {
                        runs.fetch_add(1, Ordering::SeqCst);
                        tokio::task::yield_now().await;
                        Ok::<_, String>(json!(7))
                    })
                    .await
                    .unwrap()
            }));
        }
        for call in calls {
            assert_eq!(*call.await.unwrap().value, json!(7));
        }
        // The store could not hold the value, but concurrent callers still shared one run.
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert_eq!(cache.stats().coalesced, 7);
    });
    assert!(logs.contains("cache store panicked"));
}

/// A store that works, except for the operations listed as broken.
struct PartlyBroken {
    inner: MemoryStore,
    broken_insert: bool,
}

impl CacheStore for PartlyBroken {
    fn get(&self, key: &CacheKey, now_ms: u64) -> Result<Lookup, StoreError> {
        self.inner.get(key, now_ms)
    }
    fn insert(&self, entry: NewEntry, now_ms: u64) -> Result<InsertOutcome, StoreError> {
        if self.broken_insert {
            return Err(StoreError::Backend {
                reason: "disk full".to_owned(),
            });
        }
        self.inner.insert(entry, now_ms)
    }
    fn remove(&self, key: &CacheKey) -> Result<bool, StoreError> {
        self.inner.remove(key)
    }
    fn purge_expired(&self, now_ms: u64) -> Result<u64, StoreError> {
        self.inner.purge_expired(now_ms)
    }
}

#[tokio::test]
async fn inv_xc_002_failed_insert_is_counted_and_the_next_call_recomputes() {
    // The same store with insert broken and working: only the broken one recomputes and counts.
    for broken_insert in [true, false] {
        let store = Arc::new(PartlyBroken {
            inner: MemoryStore::new(&CacheLimits::default()),
            broken_insert,
        });
        let cache = cache_over(store);
        let runs = AtomicU64::new(0);
        let mut sources = Vec::new();
        for _ in 0..2 {
            let got = cache
                .get_or_compute("t", &json!({}), CachePolicy::cacheable(), || async {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Ok::<_, String>(json!(1))
                })
                .await
                .unwrap();
            assert_eq!(*got.value, json!(1));
            sources.push(got.source);
        }
        let (expected_runs, expected_failures, second) = if broken_insert {
            (2, 2, CacheSource::Computed)
        } else {
            (1, 0, CacheSource::Hit)
        };
        assert_eq!(
            sources,
            [CacheSource::Computed, second],
            "broken_insert={broken_insert}"
        );
        assert_eq!(runs.load(Ordering::SeqCst), expected_runs);
        assert_eq!(cache.stats().store_failures, expected_failures);
        // A store without snapshots says so; that is not a store failure.
        assert!(matches!(
            cache.snapshot(),
            Err(CacheError::Store(StoreError::Unsupported))
        ));
        assert_eq!(cache.stats().store_failures, expected_failures);
    }
}
