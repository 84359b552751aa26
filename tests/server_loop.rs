//! The request loop over an in-memory stream: concurrency, the in-flight bound and
//! backpressure, duplicate ids, cancellation, notifications, malformed input.
//!
//! Every test runs on a paused clock: time only advances when every task is idle, so
//! "wait until the server has done all it can" is exact and no assertion depends on timing.

mod server_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use server_support::{settle, start, CountingReader, Event, Probe, PATIENCE};
use typed_mcp::server::{serve, ServeOptions};

#[tokio::test(start_paused = true)]
async fn slow_request_does_not_delay_a_fast_one() {
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default());
    client.request("1", "block").await;
    client.request("2", "ping").await;
    let first = client.next().await.unwrap();
    assert_eq!(first, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    assert_eq!(probe.events(), [Event::Started("1".into())]);
    probe.gate.add_permits(1);
    let second = client.next().await.unwrap();
    assert_eq!(
        second,
        json!({"jsonrpc": "2.0", "id": 1, "result": "released"})
    );
    let (rest, report) = client.finish().await;
    assert!(rest.is_empty());
    assert_eq!(report.requests_answered, 2);
}

#[tokio::test(start_paused = true)]
async fn duplicate_in_flight_id_is_rejected_and_the_first_is_unaffected() {
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default());
    client.request(r#""a""#, "block").await;
    client.request(r#""a""#, "ping").await;
    let rejection = client.next().await.unwrap();
    assert_eq!(rejection["id"], "a");
    assert_eq!(rejection["error"]["code"], -32600);
    assert!(!probe.token(r#""a""#).is_cancelled());
    probe.gate.add_permits(1);
    let answer = client.next().await.unwrap();
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": "a", "result": "released"})
    );
    // Once answered, the id may be used again.
    client.request(r#""a""#, "ping").await;
    assert_eq!(client.next().await.unwrap()["result"], json!({}));
    let (_, report) = client.finish().await;
    assert_eq!(report.duplicate_ids, 1);
    assert_eq!(report.requests_answered, 2);
    // Ids are compared byte for byte: 1 and 1.0 are different requests.
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default());
    client.request("1", "block").await;
    client.request("1.0", "block").await;
    settle().await;
    assert_eq!(probe.started(), 2);
    probe.gate.add_permits(2);
    let (lines, report) = client.finish().await;
    assert_eq!(lines.len(), 2);
    assert_eq!(report.duplicate_ids, 0);
}

#[tokio::test(start_paused = true)]
async fn in_flight_bound_lets_exactly_k_handlers_start() {
    const K: usize = 3;
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().max_in_flight(K).max_queued(4);
    let mut client = start(Arc::clone(&probe), options);
    for id in 0..10 {
        client.request(&id.to_string(), "block").await;
    }
    settle().await;
    assert_eq!(probe.started(), K, "exactly K start before any is released");
    probe.gate.add_permits(1);
    settle().await;
    assert_eq!(
        probe.started(),
        K + 1,
        "one release lets exactly one more start"
    );
    assert_eq!(probe.count(|e| matches!(e, Event::Finished(_))), 1);
    probe.gate.add_permits(9);
    let (lines, report) = client.finish().await;
    assert_eq!(lines.len(), 10);
    assert_eq!(report.requests_answered, 10);
    assert_eq!(probe.max_running.load(Ordering::SeqCst), K);
    // Requests start in the order they were read.
    let started: Vec<Event> = probe
        .events()
        .into_iter()
        .filter(|e| matches!(e, Event::Started(_)))
        .collect();
    let in_order: Vec<Event> = (0..10).map(|i| Event::Started(i.to_string())).collect();
    assert_eq!(started, in_order);
}

#[tokio::test(start_paused = true)]
async fn reading_stops_when_every_slot_and_the_queue_are_full() {
    const K: usize = 2;
    const QUEUED: usize = 3;
    const TOTAL: usize = 1000;
    let mut data = Vec::new();
    let mut line_len = 0;
    for id in 0..TOTAL {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":\"{id:04}\",\"method\":\"block\"}}\n");
        line_len = line.len();
        data.extend_from_slice(line.as_bytes());
    }
    let total_bytes = data.len();
    let position = Arc::new(AtomicUsize::new(0));
    let input = CountingReader {
        data,
        position: Arc::clone(&position),
        chunk: 64,
    };
    let probe = Arc::new(Probe::default());
    let (output, mut client_read) = tokio::io::duplex(1024 * 1024);
    let options = ServeOptions::default().max_in_flight(K).max_queued(QUEUED);
    let server = tokio::spawn(serve(input, output, Arc::clone(&probe), options));
    settle().await;
    let consumed = position.load(Ordering::SeqCst);
    assert_eq!(probe.started(), K);
    // K running + QUEUED waiting were read; the next line is at most partly buffered.
    assert!(consumed >= (K + QUEUED) * line_len, "consumed {consumed}");
    assert!(
        consumed <= (K + QUEUED + 1) * line_len + 64,
        "consumed {consumed} of {total_bytes}: reading did not stop"
    );
    // Each release lets exactly one more line in.
    probe.gate.add_permits(1);
    settle().await;
    assert_eq!(probe.started(), K + 1);
    assert!(position.load(Ordering::SeqCst) <= (K + QUEUED + 2) * line_len + 64);
    // Release everything: all answered, memory never grew with the input.
    probe.gate.add_permits(TOTAL);
    let report = tokio::time::timeout(PATIENCE, server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(report.requests_answered, TOTAL as u64);
    assert_eq!(probe.max_running.load(Ordering::SeqCst), K);
    let mut text = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut client_read, &mut text)
        .await
        .unwrap();
    assert_eq!(text.lines().count(), TOTAL);
}

/// A client that stops reading: the answers waiting for it are bounded in bytes, so the
/// server stops starting requests (and reading) long before its in-flight and queue bounds;
/// once the client reads again, every answer arrives, whole and once.
#[tokio::test(start_paused = true)]
async fn a_client_that_stops_reading_bounds_the_answers_in_bytes_and_loses_none() {
    const TOTAL: usize = 100;
    const ANSWER: usize = 256 * 1024;
    let big = |id: usize| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"big","params":{{"bytes":{ANSWER}}}}}"#)
    };
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().max_queued_bytes(1024 * 1024);
    let mut client = start(Arc::clone(&probe), options);
    // One answer read: the server now knows how large these answers are.
    client.send(&big(TOTAL)).await;
    assert_eq!(client.next().await.unwrap()["id"], TOTAL);
    for id in 0..TOTAL {
        client.send(&big(id)).await;
    }
    settle().await;
    // With 1 MiB of budget, 256 KiB answers and 64 KiB of transport buffer, a handful
    // start. Counted by messages alone, every one of the 100 would have (64 in flight, 64
    // answers queued).
    let started = probe.bigs.load(Ordering::SeqCst) - 1;
    assert!(
        (1..=5).contains(&started),
        "{started} of {TOTAL} requests started while the client read nothing"
    );
    let (lines, report) = client.finish().await;
    assert_eq!(report.requests_answered, TOTAL as u64 + 1);
    let mut ids: Vec<u64> = lines
        .iter()
        .map(|answer| {
            assert_eq!(answer["result"].as_str().map(str::len), Some(ANSWER));
            answer["id"].as_u64().expect("a numeric id")
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        (0..TOTAL as u64).collect::<Vec<_>>(),
        "each answer once"
    );
}

#[tokio::test(start_paused = true)]
async fn cancellation_fires_the_token_drops_the_future_and_sends_nothing() {
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default());
    client.request("1", "block").await;
    settle().await;
    let token = probe.token("1");
    assert!(!token.is_cancelled());
    client.cancel("1").await;
    client.request("2", "ping").await;
    assert_eq!(client.next().await.unwrap()["id"], 2);
    assert!(token.is_cancelled());
    assert_eq!(
        probe.events(),
        [Event::Started("1".into()), Event::Dropped("1".into())]
    );
    // A release after the cancel finds no waiting handler, and no answer for 1 ever comes.
    probe.gate.add_permits(1);
    let (rest, report) = client.finish().await;
    assert!(rest.is_empty(), "no response after a cancel: {rest:?}");
    assert_eq!(report.cancelled_by_client, 1);
    assert_eq!(report.requests_answered, 1);
}

#[tokio::test(start_paused = true)]
async fn cancelling_a_queued_request_means_it_never_starts() {
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().max_in_flight(1);
    let mut client = start(Arc::clone(&probe), options);
    client.request(r#""first""#, "block").await;
    client.request(r#""second""#, "block").await;
    settle().await;
    assert_eq!(probe.started(), 1);
    client.cancel(r#""second""#).await;
    settle().await;
    probe.gate.add_permits(2);
    let (lines, report) = client.finish().await;
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["id"], "first");
    assert_eq!(probe.started(), 1, "the cancelled request never started");
    assert_eq!(report.cancelled_by_client, 1);
}

#[tokio::test(start_paused = true)]
async fn notifications_are_never_answered() {
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default());
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    client
        .send(r#"{"jsonrpc":"2.0","method":"unknown/thing","params":{"x":[1, 2]}}"#)
        .await;
    client.send(r#"{"jsonrpc":"2.0","method":"ping"}"#).await;
    client.cancel("404").await;
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}"#)
        .await;
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#)
        .await;
    // A response from the client is not answered either.
    client.send(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#).await;
    client.request(r#""last""#, "ping").await;
    let (lines, report) = client.finish().await;
    assert_eq!(
        lines,
        [json!({"jsonrpc": "2.0", "id": "last", "result": {}})]
    );
    let seen = probe.notifications.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            ("notifications/initialized".to_owned(), None),
            (
                "unknown/thing".to_owned(),
                Some(r#"{"x":[1, 2]}"#.to_owned())
            ),
            ("ping".to_owned(), None),
        ]
    );
    assert_eq!(report.notifications, 3);
    assert_eq!(report.ignored_cancellations, 3);
    assert_eq!(report.responses_received, 1);
}

#[tokio::test(start_paused = true)]
async fn malformed_and_oversize_lines_are_answered_and_reading_continues() {
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().max_line_bytes(1024);
    let mut client = start(Arc::clone(&probe), options);
    client.send("{bad json").await;
    client.send(&"x".repeat(5000)).await;
    client.send(r#"{"jsonrpc":"2.0","id":3,"method":7}"#).await;
    client
        .send(r#"[{"jsonrpc":"2.0","id":4,"method":"ping"}]"#)
        .await;
    client.request("5", "nope").await;
    client.request("6", "ping").await;
    let (lines, report) = client.finish().await;
    let summary: Vec<(Value, Value)> = lines
        .iter()
        .map(|l| (l["id"].clone(), l["error"]["code"].clone()))
        .collect();
    assert_eq!(
        summary,
        [
            (Value::Null, json!(-32700)),
            (Value::Null, json!(-32600)),
            (json!(3), json!(-32600)),
            (Value::Null, json!(-32600)),
            (json!(5), json!(-32601)),
            (json!(6), Value::Null),
        ]
    );
    let data = &lines[1]["error"]["data"];
    assert_eq!(data["limit"], 1024);
    assert!(data["actualAtLeast"].as_u64().unwrap() > 1024);
    assert_eq!(report.oversize_lines, 1);
    assert_eq!(report.invalid_messages, 3);
}

#[tokio::test(start_paused = true)]
async fn a_panicking_handler_is_answered_and_the_loop_goes_on() {
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default());
    client.request("1", "panic").await;
    let answer = client.next().await.unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["error"]["code"], -32603);
    client.request("2", "ping").await;
    assert_eq!(client.next().await.unwrap()["id"], 2);
    let (_, report) = client.finish().await;
    assert_eq!(report.handler_panics, 1);
    assert_eq!(report.requests_answered, 2);
}

#[tokio::test(start_paused = true)]
async fn handlers_send_notifications_through_the_peer() {
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default());
    client.request("1", "notify").await;
    let (lines, _) = client.finish().await;
    assert_eq!(
        lines,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn batch_members_run_concurrently_and_are_answered_together() {
    use typed_mcp::jsonrpc::BatchPolicy;
    use typed_mcp::server::SharedBatchPolicy;
    let policy = SharedBatchPolicy::new(BatchPolicy::Reject);
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().batch_policy(policy.clone());
    let mut client = start(Arc::clone(&probe), options);
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"block"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":3}]"#;
    client.send(batch).await;
    assert_eq!(client.next().await.unwrap()["error"]["code"], -32600);
    // The policy changes while the loop runs (as after protocol negotiation).
    policy.set(BatchPolicy::Allow);
    client.send(batch).await;
    settle().await;
    assert_eq!(probe.started(), 1);
    probe.gate.add_permits(1);
    let answer = client.next().await.unwrap();
    let ids: Vec<(Value, Value)> = answer
        .as_array()
        .expect("one array")
        .iter()
        .map(|m| (m["id"].clone(), m["error"]["code"].clone()))
        .collect();
    assert_eq!(
        ids,
        [
            (json!(1), Value::Null),
            (json!(2), Value::Null),
            (json!(1), json!(-32600)),
            (json!(3), json!(-32600)),
        ]
    );
    // An invalid member's error says which member it was.
    assert_eq!(answer[3]["error"]["data"]["batchIndex"], 4);
    let (_, report) = client.finish().await;
    assert_eq!(report.duplicate_ids, 1);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_loop_cancels_the_requests_it_started() {
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default());
    client.request("1", "block").await;
    client.request("2", "block").await;
    settle().await;
    assert_eq!(probe.started(), 2);
    let tokens = [probe.token("1"), probe.token("2")];
    // The loop's future is dropped while both handlers wait: neither is left running.
    client.server.abort();
    settle().await;
    assert!(tokens.iter().all(|token| token.is_cancelled()));
    let dropped = probe.count(|event| matches!(event, Event::Dropped(_)));
    assert_eq!(dropped, 2, "events: {:?}", probe.events());
}

#[tokio::test(start_paused = true)]
async fn a_panicking_batch_member_is_answered_in_the_batch() {
    use typed_mcp::jsonrpc::BatchPolicy;
    use typed_mcp::server::SharedBatchPolicy;
    let probe = Arc::new(Probe::default());
    let policy = SharedBatchPolicy::new(BatchPolicy::Allow);
    let mut client = start(
        Arc::clone(&probe),
        ServeOptions::default().batch_policy(policy),
    );
    client
        .send(r#"[{"jsonrpc":"2.0","id":1,"method":"panic"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#)
        .await;
    let answer = client.next().await.unwrap();
    assert_eq!(answer[0]["id"], 1);
    assert_eq!(answer[0]["error"]["code"], -32603);
    assert_eq!(answer[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    let (_, report) = client.finish().await;
    assert_eq!(report.handler_panics, 1);
    assert_eq!(report.requests_answered, 2);
}

/// An output that refuses every write, as a pipe whose reader has gone.
struct FailingOutput;

impl tokio::io::AsyncWrite for FailingOutput {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        _bytes: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::task::Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into()))
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

/// A failed output stops the loop although its input stays open: `serve` ends with the
/// output's error instead of waiting for more input.
#[tokio::test(start_paused = true)]
async fn a_failed_output_stops_the_loop_while_the_input_stays_open() {
    use tokio::io::AsyncWriteExt;
    let (mut client_end, server_input) = tokio::io::duplex(1 << 16);
    let probe = Arc::new(Probe::default());
    let mut serving = tokio::spawn(serve(
        server_input,
        FailingOutput,
        Arc::clone(&probe),
        ServeOptions::default(),
    ));
    // The first answer is queued before the writer fails on it; the second one's queueing
    // finds the output closed, and that alone (no further input) must stop the loop.
    let mut ended = None;
    for id in 1..=5 {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        client_end.write_all(line.as_bytes()).await.unwrap();
        settle().await;
        if serving.is_finished() {
            ended = Some((id, (&mut serving).await.expect("serve did not panic")));
            break;
        }
    }
    let (id, outcome) = ended.expect("the loop stopped while the input was still open");
    assert_eq!(
        id, 2,
        "the loop waited for more input after the output failed"
    );
    assert!(
        matches!(outcome, Err(typed_mcp::server::ServerError::Output(_))),
        "{outcome:?}"
    );
}
