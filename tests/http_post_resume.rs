//! A POST answered as an event stream in a 2025 session is resumable (2025-11-25 Streamable
//! HTTP, "Resumability and Redelivery"): a priming event (`STREAM-0`, `retry`, empty data)
//! first in 2025-11-25, every message with the id `STREAM-N`; a client cut off mid-answer
//! does not cancel the request, and a GET with `Last-Event-ID: STREAM-N` replays that
//! stream's later events, its response last, then ends. With the sessions in Redis the GET
//! resumes on another instance. The demo server's `sleep` tool (progress before and after
//! its sleep) on 127.0.0.1; Redis tests skip without redis-server (and fail when `CI` is
//! set).

mod http_support;
mod redis_support;
mod sse_support;

use std::sync::Arc;
use std::time::Duration;

use http_support::{limits, start, start_with, Harness};
use redis_support::RedisServer;
use reqwest::StatusCode;
use serde_json::json;
use sse_support::{numbers, split, Events};
use typed_mcp::generated::limits::Limits;
use typed_mcp::http::{
    MemorySessionStore, Replay, SessionFuture, SessionRecord, SessionStore, StreamId,
};

/// Calls `sleep` for `ms` with a progress token in `session`, POSTed to `url`, as request
/// `id`.
async fn call_sleep(
    h: &Harness,
    url: &str,
    session: &str,
    (version, id): (&str, u64),
    ms: u64,
) -> Events {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "sleep", "arguments": {"ms": ms}, "_meta": {"progressToken": "p"}}
    });
    let response = h
        .client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", version)
        .body(body.to_string())
        .send()
        .await
        .expect("the POST is answered");
    Events::new(response)
}

/// A GET on `url` resuming after `last`.
async fn resume(h: &Harness, url: &str, session: &str, last: &str) -> reqwest::Response {
    h.client
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("last-event-id", last)
        .send()
        .await
        .expect("the GET is answered")
}

/// The progress reported before the sleep, on a stream cut right after it.
async fn primed_and_cut(h: &Harness, url: &str, session: &str, id: u64) -> (String, String) {
    let mut events = call_sleep(h, url, session, ("2025-11-25", id), 600).await;
    let priming = events.next().await.expect("a priming event");
    assert_eq!(priming.data, "", "{priming:?}");
    assert_eq!(priming.retry, Some(1000), "{priming:?}");
    let priming_id = priming.id.expect("the priming event has an id");
    let (stream, number) = split(&priming_id);
    assert_eq!(number, 0);
    let progress = events.next().await.expect("the first progress report");
    assert_eq!(progress.json()["params"]["progress"], 0.0, "{progress:?}");
    let progress_id = progress.id.expect("the event has an id");
    assert_eq!(split(&progress_id), (stream, 1));
    // The client goes away mid-answer.
    drop(events);
    (priming_id, progress_id)
}

/// A 2025-11-25 session opened on `first`, the call `sleep` (600 ms, request id 7) cut after
/// its first progress report, resumed on `second` after it: checks that the resumed stream
/// carries the rest of the answer (the last progress report, then the response, with the
/// ids `STREAM-2` and `STREAM-3`) and ends. The session and the priming event's id.
async fn cut_then_resumed(first: &Harness, second: &Harness) -> (String, String) {
    let session = first.initialize("2025-11-25").await;
    let (priming_id, progress_id) = primed_and_cut(first, &first.url, &session, 7).await;
    let (stream, _) = split(&progress_id);
    // The request was not cancelled: the rest of the answer is replayed, and the stream ends
    // with the response.
    let rest = Events::new(resume(second, &second.url, &session, &progress_id).await)
        .rest()
        .await;
    let ids: Vec<String> = rest.iter().filter_map(|e| e.id.clone()).collect();
    assert_eq!(
        ids,
        [format!("{stream}-2"), format!("{stream}-3")],
        "{rest:?}"
    );
    assert_eq!(rest[0].json()["params"]["progress"], 600.0, "{rest:?}");
    assert_eq!(rest[1].json()["id"], 7, "{rest:?}");
    assert_eq!(
        rest[1].json()["result"]["structuredContent"]["data"]["sleptMs"],
        600,
        "{rest:?}"
    );
    (session, priming_id)
}

#[tokio::test]
async fn a_client_cut_off_mid_answer_resumes_its_post_stream_with_last_event_id() {
    let h = start(Limits::default()).await;
    let (session, priming_id) = cut_then_resumed(&h, &h).await;

    // From the priming event: every message of that stream, once, in order.
    let all = Events::new(resume(&h, &h.url, &session, &priming_id).await)
        .rest()
        .await;
    assert_eq!(numbers(&all), [1, 2, 3], "{all:?}");

    // The GET stream of the session carried none of it.
    let response = h
        .client
        .get(&h.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("last-event-id", "0")
        .send()
        .await
        .unwrap();
    let mut get_stream = Events::new(response);
    let nothing = tokio::time::timeout(Duration::from_millis(300), get_stream.next()).await;
    assert!(nothing.is_err(), "the GET stream replayed {nothing:?}");
}

#[tokio::test]
async fn a_resumed_stream_replays_only_its_own_events_and_bad_ids_are_refused() {
    let h = start(Limits::default()).await;
    let session = h.initialize("2025-11-25").await;
    // Two calls at once, each on its own stream with its own ids.
    let (first, _) = primed_and_cut(&h, &h.url, &session, 1).await;
    let (second, _) = primed_and_cut(&h, &h.url, &session, 2).await;
    assert_ne!(split(&first).0, split(&second).0);
    for priming in [&first, &second] {
        let (stream, _) = split(priming);
        let events = Events::new(resume(&h, &h.url, &session, priming).await)
            .rest()
            .await;
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(
            events
                .iter()
                .all(|e| split(e.id.as_deref().unwrap()).0 == stream),
            "{events:?}"
        );
    }
    for bad in ["1-", "-1", "0-1", "x-1", "1-2-3"] {
        let refused = resume(&h, &h.url, &session, bad).await;
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{bad}");
        let body = refused.text().await.unwrap();
        assert!(!body.contains(bad), "the error quotes the id: {body}");
    }
}

#[tokio::test]
async fn older_sessions_get_event_ids_without_a_priming_event() {
    let h = start(Limits::default()).await;
    let session = h.initialize("2025-06-18").await;
    let events = call_sleep(&h, &h.url, &session, ("2025-06-18", 7), 10)
        .await
        .rest()
        .await;
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(numbers(&events), [1, 2, 3]);
    assert!(events
        .iter()
        .all(|e| e.retry.is_none() && !e.data.is_empty()));
}

/// The demo server with its sessions in the Redis at `url`.
async fn redis_instance(url: &str) -> Harness {
    let limits =
        limits(&json!({"http": {"sessionStore": "redis"}, "cache": {"redisUrl": url}}).to_string());
    start(limits).await
}

#[tokio::test]
async fn with_sessions_in_redis_a_post_stream_resumes_on_another_instance() {
    let Some(redis) = RedisServer::start(64 << 20) else {
        return;
    };
    let a = redis_instance(&redis.url()).await;
    let b = redis_instance(&redis.url()).await;
    // Instance b rebuilds the session and follows the stream a writes to.
    let _resumed = cut_then_resumed(&a, &b).await;
}

/// How many keys of `session` the Redis server on `port` holds (`KEYS` over the session's
/// key pattern).
fn session_keys(port: u16, session: &str, suffix: &str) -> usize {
    let answer = redis_support::command(port, &format!("KEYS *session:{session}{suffix}"))
        .expect("redis-server answers KEYS");
    answer
        .strip_prefix('*')
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("not an array header: {answer:?}"))
}

async fn delete(h: &Harness, session: &str) {
    let deleted = h
        .client
        .delete(&h.url)
        .header("mcp-session-id", session)
        .send()
        .await
        .expect("the DELETE is answered");
    assert_eq!(deleted.status(), StatusCode::OK);
}

#[tokio::test]
async fn deleting_a_session_in_redis_removes_its_post_streams_logs() {
    let Some(redis) = RedisServer::start(64 << 20) else {
        return;
    };
    let h = redis_instance(&redis.url()).await;
    // A POST stream answered to its end: its sequence and its log are stored.
    let (session, _) = cut_then_resumed(&h, &h).await;
    assert_eq!(session_keys(redis.port, &session, ":post:*"), 2);
    delete(&h, &session).await;
    assert_eq!(session_keys(redis.port, &session, "*"), 0);

    // Deleted while its request runs: what the request would still log is not kept either.
    let session = h.initialize("2025-11-25").await;
    let _cut = primed_and_cut(&h, &h.url, &session, 8).await;
    assert_eq!(session_keys(redis.port, &session, ":post:*"), 2);
    delete(&h, &session).await;
    // Past the end of the 600 ms the tool would have slept.
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(session_keys(redis.port, &session, "*"), 0);
}

#[tokio::test]
async fn the_priming_events_retry_delay_is_the_limits_sse_retry_ms() {
    let h = start(limits(r#"{"http": {"sseRetryMs": 2500}}"#)).await;
    let session = h.initialize("2025-11-25").await;
    let mut events = call_sleep(&h, &h.url, &session, ("2025-11-25", 7), 10).await;
    let priming = events.next().await.expect("a priming event");
    assert_eq!((priming.data.as_str(), priming.retry), ("", Some(2500)));
    // Only the priming event carries it.
    let rest = events.rest().await;
    assert_eq!(rest.len(), 3, "{rest:?}");
    assert!(rest.iter().all(|e| e.retry.is_none()), "{rest:?}");
}

/// Sessions in this process, whose appends are stored at once but answered `delay` later:
/// an append to Redis whose reply is still on its way.
#[derive(Debug)]
struct LateReplies {
    inner: MemorySessionStore,
    delay: Duration,
}

impl SessionStore for LateReplies {
    fn is_shared(&self) -> bool {
        false
    }

    fn save(&self, id: &str, record: &SessionRecord) -> SessionFuture<()> {
        self.inner.save(id, record)
    }

    fn load(&self, id: &str) -> SessionFuture<Option<SessionRecord>> {
        self.inner.load(id)
    }

    fn remove(&self, id: &str) -> SessionFuture<bool> {
        self.inner.remove(id)
    }

    fn forget(&self, id: &str) {
        self.inner.forget(id);
    }

    fn append(&self, id: &str, stream: StreamId, json: &[u8]) -> SessionFuture<u64> {
        let stored = self.inner.append(id, stream, json);
        let delay = self.delay;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            stored.await
        })
    }

    fn after(&self, id: &str, stream: StreamId, cursor: u64) -> SessionFuture<Replay> {
        self.inner.after(id, stream, cursor)
    }

    fn latest(&self, id: &str, stream: StreamId) -> SessionFuture<u64> {
        self.inner.latest(id, stream)
    }
}

#[tokio::test]
async fn a_client_gone_while_an_append_is_answered_gets_no_event_logged_twice() {
    let store = LateReplies {
        inner: MemorySessionStore::new(64),
        delay: Duration::from_millis(300),
    };
    let h = start_with(Limits::default(), |options| {
        options.session_store(Arc::new(store))
    })
    .await;
    let session = h.initialize("2025-11-25").await;
    // The tool's second progress report is being logged (300 ms) when the client, having
    // read the first, goes away.
    let mut events = call_sleep(&h, &h.url, &session, ("2025-11-25", 7), 50).await;
    let priming = events.next().await.expect("a priming event");
    let priming_id = priming.id.expect("the priming event has an id");
    let first = events.next().await.expect("the first progress report");
    assert_eq!(first.json()["params"]["progress"], 0.0, "{first:?}");
    drop(events);

    let all = Events::new(resume(&h, &h.url, &session, &priming_id).await)
        .rest()
        .await;
    assert_eq!(
        numbers(&all),
        [1, 2, 3],
        "each message logged once: {all:?}"
    );
    assert_eq!(all[1].json()["params"]["progress"], 50.0, "{all:?}");
    assert_eq!(all[2].json()["id"], 7, "{all:?}");
}
