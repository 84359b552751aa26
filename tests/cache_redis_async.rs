//! The Redis cache store on its async client (issue 34), against real `redis-server`s on
//! 127.0.0.1: a Redis that sleeps (`DEBUG SLEEP`) or answers garbage costs a bounded wait,
//! counted, and never holds the runtime's thread (the tests run on a current-thread runtime,
//! where a blocking store would stop every other task); `rediss://` with a test CA; and the
//! master found through a real Sentinel (`redis-server --sentinel`).

mod redis_support;
mod tls_support;

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use redis_support::{cache_arguments, command, RedisServer};
use serde_json::{json, Value};
use typed_mcp::cache::{Cache, CachePolicy, CacheSource, RedisCounters, RedisStore};
use typed_mcp::config::parse_limits;

const MAXMEMORY: u64 = 32 * 1024 * 1024;

/// The store's timeout where the test expects Redis to answer: generous, since a loaded
/// machine (CI) may take long over a TLS handshake in a debug build.
const PATIENT_MS: u64 = 3000;

/// A cache on a Redis store at `url` (timeout `timeout_ms`), and the store's counters.
fn redis_cache(url: &str, root_pem: Option<&str>, timeout_ms: u64) -> (Cache, Arc<RedisCounters>) {
    let limits = parse_limits(&format!(
        r#"{{"cache": {{"store": "redis", "redisUrl": "{url}", "redisKeyPrefix": "async:", "redisTimeoutMs": {timeout_ms}}}}}"#
    ))
    .expect("valid limits");
    let store = match root_pem {
        Some(pem) => RedisStore::from_limits_with_root_pem(&limits.cache, pem.as_bytes()),
        None => RedisStore::from_limits(&limits.cache),
    }
    .expect("a Redis URL");
    let counters = store.counters();
    let cache = Cache::builder()
        .limits(&limits.cache)
        .store(Arc::new(store))
        .cleanup_task(false)
        .build()
        .expect("the cache builds");
    (cache, counters)
}

async fn lookup(cache: &Cache, key: &str) -> (Value, CacheSource) {
    let cached = cache
        .get_or_compute(
            "lookup",
            &json!({ "key": key }),
            CachePolicy::cacheable(),
            || async { Ok::<_, Infallible>(json!({ "value": key.len() })) },
        )
        .await
        .expect("never fails");
    ((*cached.value).clone(), cached.source)
}

/// A task that counts ticks of 1 ms while it may run: on a current-thread runtime it runs
/// only while the test's task awaits.
fn ticker() -> (Arc<AtomicU64>, tokio::task::JoinHandle<()>) {
    let ticks = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&ticks);
    let task = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(1)).await;
            counted.fetch_add(1, Ordering::SeqCst);
        }
    });
    (ticks, task)
}

#[tokio::test(flavor = "current_thread")]
async fn a_sleeping_redis_is_given_up_counted_and_never_holds_the_thread() {
    let Some(redis) = RedisServer::start_with(
        Vec::new(),
        cache_arguments(MAXMEMORY, &["--enable-debug-command", "local"]),
    ) else {
        return;
    };
    // 500 ms: below the 2 s Redis sleeps, above what an answer takes on a loaded machine.
    let (cache, counters) = redis_cache(&redis.url(), None, 500);
    assert_eq!(lookup(&cache, "a").await.1, CacheSource::Computed);
    assert_eq!(lookup(&cache, "a").await.1, CacheSource::Hit);

    // Redis stops answering for 2 s (DEBUG SLEEP blocks its only thread).
    let port = redis.port;
    let sleeper = std::thread::spawn(move || command(port, "DEBUG SLEEP 2"));
    std::thread::sleep(Duration::from_millis(200));
    let (ticks, task) = ticker();
    let before = ticks.load(Ordering::SeqCst);
    for round in 0..20 {
        let (value, source) = lookup(&cache, "a").await;
        assert_eq!(value, json!({"value": 1}), "round {round}");
        assert_eq!(
            source,
            CacheSource::Computed,
            "round {round}: Redis is asleep"
        );
    }
    let during = ticks.load(Ordering::SeqCst) - before;
    task.abort();
    assert!(
        during > 0,
        "the other task ran while the cache waited for Redis (a blocking store stops it)"
    );
    // Each round is a lookup and an insertion: the first lookup waited and was given up,
    // every other operation was not sent (the store pauses after a timeout).
    assert_eq!(counters.timeouts(), 1, "the first lookup was given up");
    assert_eq!(counters.skipped(), 39, "the others did not wait");
    assert_eq!(cache.stats().store_failures, 40);
    assert_eq!(sleeper.join().unwrap().as_deref(), Some("+OK"));

    // Awake again: after the store's pause (10 x 500 ms), hits come back.
    let mut hit = false;
    for _ in 0..300 {
        if lookup(&cache, "a").await.1 == CacheSource::Hit {
            hit = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(hit, "hits resume once Redis answers again");
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_answering_garbage_costs_the_cache_not_the_call() {
    // Not Redis: answers every request with bytes that are not RESP.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&accepted);
    let server = tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            seen.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut buffer = [0_u8; 1024];
                while let Ok(read) = stream.read(&mut buffer).await {
                    if read == 0
                        || stream
                            .write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n\x00\xff")
                            .await
                            .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    let (cache, counters) = redis_cache(&format!("redis://127.0.0.1:{port}"), None, 500);
    for round in 0..10 {
        let (value, source) = lookup(&cache, "garbage").await;
        assert_eq!(value, json!({"value": 7}), "round {round}");
        assert_eq!(source, CacheSource::Computed, "round {round}");
    }
    server.abort();
    assert!(
        accepted.load(Ordering::SeqCst) >= 1,
        "the store did connect"
    );
    let failed = counters.command_failures() + counters.connect_failures() + counters.timeouts();
    assert!(failed >= 1, "the garbage was counted as a failure");
    assert_eq!(
        cache.stats().store_failures,
        20,
        "every lookup and insertion failed"
    );
    assert_eq!(cache.stats().hits, 0);
}

/// A `redis-server` serving TLS on its own port (with the test CA's certificate for
/// `localhost` and 127.0.0.1) besides the plain one used to see it ready.
fn tls_redis(dir: &std::path::Path, ca: &tls_support::TestCa) -> Option<(RedisServer, u16)> {
    let (cert, key) = ca.server_identity_pem(&["localhost", "127.0.0.1"]);
    std::fs::write(dir.join("redis.crt"), cert).unwrap();
    std::fs::write(dir.join("redis.key"), key).unwrap();
    std::fs::write(dir.join("ca.crt"), ca.pem()).unwrap();
    let tls_port = redis_support::free_port();
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let tls_port_text = tls_port.to_string();
    let (cert, key, ca_file) = (path("redis.crt"), path("redis.key"), path("ca.crt"));
    let extra = [
        "--tls-port",
        tls_port_text.as_str(),
        "--tls-cert-file",
        cert.as_str(),
        "--tls-key-file",
        key.as_str(),
        "--tls-ca-cert-file",
        ca_file.as_str(),
        "--tls-auth-clients",
        "no",
    ];
    let server = RedisServer::start_with(Vec::new(), cache_arguments(MAXMEMORY, &extra))?;
    Some((server, tls_port))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rediss_shares_entries_over_tls_and_refuses_an_unknown_ca() {
    let dir = tempfile::tempdir().unwrap();
    let ca = tls_support::TestCa::new("redis test CA");
    let Some((_redis, tls_port)) = tls_redis(dir.path(), &ca) else {
        return;
    };
    let url = format!("rediss://localhost:{tls_port}");
    let (first, first_counters) = redis_cache(&url, Some(&ca.pem()), PATIENT_MS);
    let (second, _) = redis_cache(&url, Some(&ca.pem()), PATIENT_MS);
    assert_eq!(lookup(&first, "tls").await.1, CacheSource::Computed);
    assert_eq!(lookup(&second, "tls").await.1, CacheSource::Hit);
    assert_eq!(
        first.stats().store_failures + second.stats().store_failures,
        0
    );
    assert_eq!(first_counters.connects(), 1);

    // A client trusting another CA does not talk to this server: uncached, counted.
    let stranger = tls_support::TestCa::new("another CA");
    let (refused, refused_counters) = redis_cache(&url, Some(&stranger.pem()), PATIENT_MS);
    assert_eq!(lookup(&refused, "tls").await.1, CacheSource::Computed);
    assert_eq!(
        refused.stats().store_failures,
        2,
        "its lookup and insertion"
    );
    assert_eq!(refused.stats().hits, 0);
    assert!(refused_counters.connect_failures() + refused_counters.command_failures() >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sentinel_url_reaches_the_master_the_sentinel_names() {
    let Some(master) = RedisServer::start(MAXMEMORY) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sentinel.conf");
    // The Sentinel rewrites its configuration file: it must be its own, writable.
    std::fs::write(
        &config,
        format!(
            "sentinel monitor cachemaster 127.0.0.1 {} 1\nsentinel down-after-milliseconds cachemaster 60000\n",
            master.port
        ),
    )
    .unwrap();
    let Some(sentinel) = RedisServer::start_with(
        vec![
            config.to_string_lossy().into_owned(),
            "--sentinel".to_owned(),
        ],
        Vec::new(),
    ) else {
        return;
    };
    let (through_sentinel, counters) = redis_cache(
        &format!("redis+sentinel://127.0.0.1:{}/cachemaster", sentinel.port),
        None,
        PATIENT_MS,
    );
    let (direct, _) = redis_cache(&master.url(), None, PATIENT_MS);
    assert_eq!(
        lookup(&through_sentinel, "s").await.1,
        CacheSource::Computed
    );
    // Stored on the master itself: a cache talking to it directly hits.
    assert_eq!(lookup(&direct, "s").await.1, CacheSource::Hit);
    assert_eq!(lookup(&through_sentinel, "s").await.1, CacheSource::Hit);
    assert_eq!(through_sentinel.stats().store_failures, 0);
    assert_eq!(counters.connects(), 1);

    // A master name the Sentinel does not know: no connection, computed, counted.
    let (unknown, unknown_counters) = redis_cache(
        &format!("redis+sentinel://127.0.0.1:{}/nosuchmaster", sentinel.port),
        None,
        PATIENT_MS,
    );
    assert_eq!(lookup(&unknown, "s").await.1, CacheSource::Computed);
    assert_eq!(unknown_counters.connect_failures(), 1);
    assert_eq!(
        unknown.stats().store_failures,
        2,
        "its lookup and insertion"
    );
}

#[test]
fn a_malformed_sentinel_url_is_refused_without_quoting_it() {
    for url in [
        "redis+sentinel://secretpw@127.0.0.1:26379",
        "redis+sentinel://secretpw@127.0.0.1:26379/",
        "redis+sentinel://secretpw@/master",
        "redis+sentinel://secretpw@127.0.0.1:26379/master/notanumber",
    ] {
        let limits = parse_limits(&format!(
            r#"{{"cache": {{"store": "redis", "redisUrl": "{url}"}}}}"#
        ))
        .expect("the schema's pattern allows it");
        let error = RedisStore::from_limits(&limits.cache).expect_err(url);
        let message = error.to_string();
        assert!(message.contains("invalid redisUrl"), "{message}");
        assert!(!message.contains("secretpw"), "{message}");
    }
}
