//! The Redis cache store against a real `redis-server` (issue 13): entries are shared
//! between caches (as between instances), the TTL and the per-entry bound hold, and a Redis
//! that dies never fails a tool call: it runs uncached, the failures are counted, and the
//! store reconnects by itself once Redis is back.

mod redis_support;

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use redis_support::RedisServer;
use serde_json::{json, Value};
use typed_mcp::cache::{Cache, CachePolicy, CacheSource};
use typed_mcp::config::parse_limits;

const MAXMEMORY: u64 = 32 * 1024 * 1024;

/// A cache on the Redis store at `url`, from `schema/limits.json` settings.
fn redis_cache(url: &str, extra: &str) -> Cache {
    let limits = parse_limits(&format!(
        r#"{{"cache": {{"store": "redis", "redisUrl": "{url}", "redisKeyPrefix": "test:"{extra}}}}}"#
    ))
    .expect("valid limits");
    Cache::builder()
        .limits(&limits.cache)
        .cleanup_task(false)
        .build()
        .expect("the cache builds")
}

/// `get_or_compute` with a computation that counts its runs.
async fn lookup(cache: &Cache, runs: &AtomicU64, key: &str) -> (Value, CacheSource) {
    let cached = cache
        .get_or_compute(
            "lookup",
            &json!({ "key": key }),
            CachePolicy::cacheable(),
            || async {
                runs.fetch_add(1, Ordering::SeqCst);
                Ok::<_, Infallible>(json!({ "value": key.chars().rev().collect::<String>() }))
            },
        )
        .await
        .expect("never fails");
    ((*cached.value).clone(), cached.source)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_computed_by_one_instance_is_a_hit_on_another() {
    let Some(redis) = RedisServer::start(MAXMEMORY) else {
        return;
    };
    let first = redis_cache(&redis.url(), "");
    let second = redis_cache(&redis.url(), "");
    let runs = AtomicU64::new(0);
    let (computed, source) = lookup(&first, &runs, "abc").await;
    assert_eq!(source, CacheSource::Computed);
    let (shared, source) = lookup(&second, &runs, "abc").await;
    assert_eq!(source, CacheSource::Hit);
    assert_eq!(shared, computed);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(second.stats().hits, 1);
    assert_eq!(
        first.stats().store_failures + second.stats().store_failures,
        0
    );
    assert!(second.remove("lookup", &json!({"key": "abc"})));
    let (_, source) = lookup(&first, &runs, "abc").await;
    assert_eq!(source, CacheSource::Computed, "removed for every instance");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_expires_entries_after_their_ttl() {
    let Some(redis) = RedisServer::start(MAXMEMORY) else {
        return;
    };
    let cache = redis_cache(&redis.url(), r#", "ttlMs": 50"#);
    let runs = AtomicU64::new(0);
    lookup(&cache, &runs, "k").await;
    // Well past the TTL, the entry cannot be returned any more.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, source) = lookup(&cache, &runs, "k").await;
    assert_eq!(source, CacheSource::Computed);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_over_max_size_bytes_is_not_stored() {
    let Some(redis) = RedisServer::start(MAXMEMORY) else {
        return;
    };
    let cache = redis_cache(&redis.url(), r#", "maxSizeBytes": 64"#);
    let runs = AtomicU64::new(0);
    let long_key = "x".repeat(100);
    lookup(&cache, &runs, &long_key).await;
    let (_, source) = lookup(&cache, &runs, &long_key).await;
    assert_eq!(source, CacheSource::Computed);
    assert_eq!(cache.stats().rejections, 2);
    // A small one is stored.
    lookup(&cache, &runs, "s").await;
    assert_eq!(lookup(&cache, &runs, "s").await.1, CacheSource::Hit);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_redis_costs_the_cache_not_the_call_and_the_store_reconnects() {
    let Some(mut redis) = RedisServer::start(MAXMEMORY) else {
        return;
    };
    let cache = redis_cache(&redis.url(), "");
    let runs = AtomicU64::new(0);
    lookup(&cache, &runs, "a").await;
    assert_eq!(lookup(&cache, &runs, "a").await.1, CacheSource::Hit);
    redis.kill();
    for round in 0..5 {
        let (value, source) = lookup(&cache, &runs, "a").await;
        assert_eq!(value, json!({"value": "a"}), "round {round}");
        assert_eq!(source, CacheSource::Computed, "round {round}");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 6);
    let failures = cache.stats().store_failures;
    assert!(
        failures >= 5,
        "every lookup failed and was counted: {failures}"
    );
    redis.restart(MAXMEMORY);
    // Reconnection waits out a short backoff; retry until a hit (a hang guard, not a timing
    // assertion: every attempt must still be answered with the right value).
    let mut hit = false;
    for _ in 0..200 {
        let (value, source) = lookup(&cache, &runs, "a").await;
        assert_eq!(value, json!({"value": "a"}));
        if source == CacheSource::Hit {
            hit = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(hit, "hits resume once Redis is back");
}

#[test]
fn the_memory_store_stays_the_default() {
    let limits = parse_limits("{}").unwrap();
    assert_eq!(
        serde_json::to_value(&limits.cache).unwrap()["store"],
        "memory"
    );
}
