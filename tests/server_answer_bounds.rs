//! Declared answer bounds ([`Handler::max_answer_bytes`]) in the request loop: a cold burst
//! of requests with a bound, against a client that stops reading, starts only as many as the
//! output budget has room for; the rest wait, and every one is answered once when the client
//! reads again. Requests without a bound are admitted as before.
//!
//! Every test runs on a paused clock (see `server_loop.rs`): "settle" means every task is
//! idle, so the counts do not depend on timing.

mod server_support;

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::Value;
use server_support::{settle, start, Event, Probe};
use typed_mcp::jsonrpc::BatchPolicy;
use typed_mcp::server::{ServeOptions, SharedBatchPolicy};

const BUDGET: usize = 1024 * 1024;
const ANSWER: usize = 256 * 1024;
/// The answer's line: the text, its quotes, `{"jsonrpc":"2.0","id":NNN,"result":}` and the
/// newline, rounded up.
const BOUND: usize = ANSWER + 64;
const TOTAL: usize = 40;

fn bounded(id: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"bounded","params":{{"bytes":{ANSWER},"bound":{BOUND}}}}}"#
    )
}

fn undeclared(id: usize) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"big","params":{{"bytes":{ANSWER}}}}}"#)
}

/// Each id of `0..TOTAL` answered exactly once, with a whole answer.
fn assert_each_answered_once(lines: &[Value]) {
    let mut answers: BTreeMap<u64, usize> = BTreeMap::new();
    for line in lines {
        assert_eq!(
            line["result"].as_str().map(str::len),
            Some(ANSWER),
            "a whole answer: {:.200}",
            line.to_string()
        );
        *answers
            .entry(line["id"].as_u64().expect("numeric id"))
            .or_default() += 1;
    }
    let expected: BTreeMap<u64, usize> = (0..TOTAL as u64).map(|id| (id, 1)).collect();
    assert_eq!(answers, expected, "each request answered once");
}

/// The burst starts cold: no answer has been seen, so the budget's estimate knows nothing.
/// With declared bounds the loop reserves them: 3 × (256 KiB + 64) fit 1 MiB, a 4th does
/// not, and the 64 KiB transport cannot take a whole answer, so nothing frees room.
#[tokio::test(start_paused = true)]
async fn a_cold_burst_with_declared_bounds_starts_what_the_budget_allows_and_loses_none() {
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().max_queued_bytes(BUDGET);
    let mut client = start(Arc::clone(&probe), options);
    for id in 0..TOTAL {
        client.send(&bounded(id)).await;
    }
    settle().await;
    let started = probe.bigs.load(Ordering::SeqCst);
    assert_eq!(
        started,
        BUDGET / BOUND,
        "{started} of {TOTAL} requests started while the client read nothing"
    );
    // Still nothing more after a long while: the loop waits for the writer.
    tokio::time::sleep(std::time::Duration::from_secs(10)).await;
    assert_eq!(probe.bigs.load(Ordering::SeqCst), started);
    let (lines, report) = client.finish().await;
    assert_eq!(report.requests_answered, TOTAL as u64);
    assert_each_answered_once(&lines);
    assert_eq!(probe.bigs.load(Ordering::SeqCst), TOTAL);
}

/// The same cold burst without declared bounds: the estimate knows nothing yet, so many
/// more start (this is what the declaration fixes; if it ever stops being so, the test
/// above proves less than it claims).
#[tokio::test(start_paused = true)]
async fn the_same_cold_burst_without_bounds_starts_many_more() {
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().max_queued_bytes(BUDGET);
    let mut client = start(Arc::clone(&probe), options);
    for id in 0..TOTAL {
        client.send(&undeclared(id)).await;
    }
    settle().await;
    let started = probe.bigs.load(Ordering::SeqCst);
    assert!(
        started > 2 * (BUDGET / BOUND),
        "only {started} of {TOTAL} undeclared requests started cold"
    );
    let (lines, report) = client.finish().await;
    assert_eq!(report.requests_answered, TOTAL as u64);
    assert_each_answered_once(&lines);
}

/// A request without a bound read after requests waiting for room is not held back by
/// them: it starts at once (as it would have without them).
#[tokio::test(start_paused = true)]
async fn requests_without_a_bound_are_not_held_behind_waiting_ones() {
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().max_queued_bytes(BUDGET);
    let mut client = start(Arc::clone(&probe), options);
    for id in 0..6 {
        client.send(&bounded(id)).await;
    }
    client.request(r#""free""#, "block").await;
    settle().await;
    assert_eq!(probe.bigs.load(Ordering::SeqCst), BUDGET / BOUND);
    assert_eq!(probe.events(), [Event::Started(r#""free""#.into())]);
    probe.gate.add_permits(1);
    let (lines, report) = client.finish().await;
    assert_eq!(report.requests_answered, 7);
    assert_eq!(lines.len(), 7);
    assert_eq!(
        lines.iter().filter(|line| line["id"] == "free").count(),
        1,
        "the free request answered once"
    );
}

/// A batch reserves the sum of its members' bounds; one larger than the whole budget still
/// runs when nothing else does, and everything is answered once.
#[tokio::test(start_paused = true)]
async fn a_batch_reserves_its_members_bounds_and_a_bound_above_the_budget_runs_alone() {
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default()
        .max_queued_bytes(BUDGET)
        .batch_policy(SharedBatchPolicy::new(BatchPolicy::Allow));
    let mut client = start(Arc::clone(&probe), options);
    let members: Vec<String> = (0..6).map(bounded).collect();
    client.send(&format!("[{}]", members.join(","))).await;
    client.send(&bounded(6)).await;
    settle().await;
    // The batch (6 bounds, above the budget) started alone; the single request waits.
    assert_eq!(probe.bigs.load(Ordering::SeqCst), 6);
    let (lines, report) = client.finish().await;
    assert_eq!(report.requests_answered, 7);
    assert_eq!(lines.len(), 2, "one batch answer and one single answer");
    let batch = lines
        .iter()
        .find(|line| line.is_array())
        .and_then(Value::as_array)
        .expect("the batch answer");
    assert_eq!(batch.len(), 6);
    assert_eq!(probe.bigs.load(Ordering::SeqCst), 7);
}
