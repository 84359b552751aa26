//! Requests the handler lets start on the loop's reading task (`Handler::runs_in_place`):
//! answered there when they finish in their first poll, moved to a task of their own when
//! they do not, and otherwise treated exactly as every other request (the in-flight bound,
//! cancellation, panics, notifications through the peer).
//!
//! Every test runs on a paused clock, as in `server_loop.rs`.

mod server_support;

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{json, Value};
use server_support::{settle, start, Event, Probe, IN_PLACE};
use typed_mcp::server::ServeOptions;

fn in_place(method: &str) -> String {
    format!("{IN_PLACE}{method}")
}

/// The task each of three requests ran on, by its answer.
async fn tasks_of(method: &str) -> Vec<Value> {
    let probe = Arc::new(Probe::default());
    let mut client = start(probe, ServeOptions::default());
    let mut tasks = Vec::new();
    for id in 1..=3 {
        client.request(&id.to_string(), method).await;
        let answer = client.next().await.unwrap();
        assert_eq!(answer["id"], id);
        tasks.push(answer["result"].clone());
    }
    let (rest, report) = client.finish().await;
    assert!(rest.is_empty());
    assert_eq!(report.requests_answered, 3);
    tasks
}

/// The hint is honoured: requests in place all run on one task (the loop's), the others each
/// on a task of their own.
#[tokio::test(start_paused = true)]
async fn quick_requests_in_place_run_on_the_reading_task() {
    let in_place_tasks = tasks_of(&in_place("task")).await;
    assert!(
        in_place_tasks.iter().all(Value::is_string),
        "{in_place_tasks:?}"
    );
    let distinct: HashSet<String> = in_place_tasks.iter().map(ToString::to_string).collect();
    assert_eq!(distinct.len(), 1, "one task for all: {in_place_tasks:?}");

    let own_tasks = tasks_of("task").await;
    let distinct: HashSet<String> = own_tasks.iter().map(ToString::to_string).collect();
    assert_eq!(distinct.len(), 3, "a task each: {own_tasks:?}");
    assert!(
        !own_tasks.contains(&in_place_tasks[0]),
        "the reading task is not a request's"
    );
}

/// A request pending in its first poll moves to its own task: a later request is answered
/// meanwhile, and the wake it waited for (registered during the poll in place) still reaches
/// it there.
#[tokio::test(start_paused = true)]
async fn a_request_pending_in_place_finishes_on_its_own_task() {
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default());
    client.request("1", &in_place("block")).await;
    client.request("2", &in_place("ping")).await;
    assert_eq!(
        client.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
    assert_eq!(probe.events(), [Event::Started("1".into())]);
    probe.gate.add_permits(1);
    assert_eq!(
        client.next().await.unwrap(),
        json!({"jsonrpc": "2.0", "id": 1, "result": "released"})
    );
    client.request("3", &in_place("sleep")).await;
    // `sleep` needs params; without them the probe's handler panics in its first poll.
    let answer = client.next().await.unwrap();
    assert_eq!(answer["id"], 3);
    assert_eq!(answer["error"]["code"], -32603);
    let (rest, report) = client.finish().await;
    assert!(rest.is_empty());
    assert_eq!(report.requests_answered, 3);
    assert_eq!(report.handler_panics, 1);
}

/// The in-flight bound counts requests in place: with one slot, a request in place pending
/// holds it, and the next one waits for it.
#[tokio::test(start_paused = true)]
async fn requests_in_place_take_a_slot() {
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default().max_in_flight(1));
    client.request("1", &in_place("block")).await;
    client.request("2", &in_place("ping")).await;
    settle().await;
    probe.gate.add_permits(1);
    assert_eq!(client.next().await.unwrap()["id"], 1);
    assert_eq!(client.next().await.unwrap()["id"], 2);
    let (rest, report) = client.finish().await;
    assert!(rest.is_empty());
    assert_eq!(report.requests_answered, 2);
}

/// A request in place that is cancelled while it waits: its token fires, its future is
/// dropped and nothing is sent; a notification it sends through the peer arrives.
#[tokio::test(start_paused = true)]
async fn cancellation_and_notifications_work_in_place() {
    let probe = Arc::new(Probe::default());
    let mut client = start(Arc::clone(&probe), ServeOptions::default());
    client.request("1", &in_place("block")).await;
    settle().await;
    let token = probe.token("1");
    client.cancel("1").await;
    client.request("2", &in_place("notify")).await;
    let notification = client.next().await.unwrap();
    assert_eq!(notification["method"], "notifications/message");
    assert_eq!(client.next().await.unwrap()["id"], 2);
    assert!(token.is_cancelled());
    assert_eq!(
        probe.events(),
        [Event::Started("1".into()), Event::Dropped("1".into())]
    );
    probe.gate.add_permits(1);
    let (rest, report) = client.finish().await;
    assert!(rest.is_empty(), "no response after a cancel: {rest:?}");
    assert_eq!(report.cancelled_by_client, 1);
    assert_eq!(report.requests_answered, 1);
}

/// Requests in place with a declared answer bound, against a budget with room for three:
/// the rest wait for room, and each one the loop starts when room frees up is answered at
/// once, while the client keeps its input open and sends nothing more.
#[tokio::test(start_paused = true)]
async fn requests_in_place_waiting_for_the_budget_are_answered_as_room_frees_up() {
    const ANSWER: usize = 256 * 1024;
    const BOUND: usize = ANSWER + 64;
    const TOTAL: u64 = 8;
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().max_queued_bytes(3 * BOUND + 100);
    let mut client = start(Arc::clone(&probe), options);
    let method = in_place("bounded");
    for id in 0..TOTAL {
        client
            .send(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"bytes":{ANSWER},"bound":{BOUND}}}}}"#
            ))
            .await;
    }
    settle().await;
    assert_eq!(probe.bigs.load(std::sync::atomic::Ordering::SeqCst), 3);
    for id in 0..TOTAL {
        let answer = client.next().await.expect("an answer");
        assert_eq!(answer["id"], id);
        assert_eq!(answer["result"].as_str().map(str::len), Some(ANSWER));
    }
    let (rest, report) = client.finish().await;
    assert!(rest.is_empty());
    assert_eq!(report.requests_answered, TOTAL);
}

/// A request in place that waited for room in the output budget, started by the loop once
/// the client read what filled it, is answered at once, although nothing else is left for
/// the loop to wait on (no other request, the input open and silent).
#[tokio::test(start_paused = true)]
async fn the_last_waiting_request_in_place_is_answered_without_more_input() {
    const BIG: usize = 300_000;
    const BOUND: usize = 1_000_000;
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().max_queued_bytes(1_200_000);
    let mut client = start(Arc::clone(&probe), options);
    client
        .send(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"big","params":{{"bytes":{BIG}}}}}"#
        ))
        .await;
    settle().await;
    let method = in_place("bounded");
    client
        .send(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"{method}","params":{{"bytes":10,"bound":{BOUND}}}}}"#
        ))
        .await;
    settle().await;
    assert_eq!(
        probe.bigs.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the bounded request waits while the big answer fills the budget"
    );
    assert_eq!(client.next().await.unwrap()["id"], 1);
    let answer = client.next().await.expect("answered without more input");
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 2, "result": "xxxxxxxxxx"})
    );
    let (rest, report) = client.finish().await;
    assert!(rest.is_empty());
    assert_eq!(report.requests_answered, 2);
}
