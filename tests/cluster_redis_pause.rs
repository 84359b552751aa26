//! A Redis that stops answering while the cluster is under load (issue 34):
//! `deploy/local-cluster.sh`'s three instances behind nginx, Redis paused with
//! `CLIENT PAUSE` (every client's commands wait, as under `DEBUG SLEEP`) for 2 s while 8
//! clients call the cached `lookup` and the uncached `add`: every request is answered
//! successfully, answers keep coming during the pause, and the latencies (p50, p99, max) of
//! each phase are printed. Timing is reported, never asserted.
//!
//! Skipped with a printed reason when nginx or redis-server is missing (failing when `CI` is
//! set; tests/setup.sh installs both).

// Both support modules include the std-only `tests/reference_data.rs` (where the `CI` check
// lives) for the test crates that use one of them alone.
#![allow(clippy::duplicate_mod)]

mod cluster_support;
mod redis_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cluster_support::{tools_present, Cluster};
use reqwest::StatusCode;
use serde_json::json;

const INSTANCES: usize = 3;
const CLIENTS: u64 = 8;
const PAUSE_MS: u64 = 2000;

/// One answered request: when it ended (since the start), its latency, and whether it used
/// the cache's tool.
#[derive(Clone, Copy)]
struct Sample {
    ended: Duration,
    latency: Duration,
    cached_tool: bool,
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn report(phase: &str, samples: &[Sample], cached_tool: bool) -> usize {
    let mut latencies: Vec<Duration> = samples
        .iter()
        .filter(|sample| sample.cached_tool == cached_tool)
        .map(|sample| sample.latency)
        .collect();
    latencies.sort();
    let tool = if cached_tool { "lookup" } else { "add" };
    println!(
        "{phase:>7} {tool:>6}: {:>5} answers, p50 {:>7.1} ms, p99 {:>7.1} ms, max {:>7.1} ms",
        latencies.len(),
        percentile(&latencies, 0.5).as_secs_f64() * 1000.0,
        percentile(&latencies, 0.99).as_secs_f64() * 1000.0,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1000.0,
    );
    latencies.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_redis_under_load_costs_hits_not_answers() {
    if !tools_present() {
        return;
    }
    let cluster = Arc::new(Cluster::start(INSTANCES));
    for key in 0..10 {
        let answer = cluster
            .modern(
                key,
                "tools/call",
                json!({"name": "lookup", "arguments": {"key": format!("pause-{key}")}}),
            )
            .await
            .expect("answered");
        assert_eq!(answer.status, StatusCode::OK);
    }
    let start = Instant::now();
    let run_for = Duration::from_millis(1000 + PAUSE_MS + 1500);
    let mut clients = tokio::task::JoinSet::new();
    for client in 0..CLIENTS {
        let cluster = Arc::clone(&cluster);
        let _handle = clients.spawn(async move {
            let mut samples = Vec::new();
            let mut n = client;
            while start.elapsed() < run_for {
                let cached_tool = n % 2 == 0;
                let params = if cached_tool {
                    json!({"name": "lookup", "arguments": {"key": format!("pause-{}", n % 10)}})
                } else {
                    json!({"name": "add", "arguments": {"a": n, "b": 1}})
                };
                let sent = Instant::now();
                let answer = cluster
                    .modern(n, "tools/call", params)
                    .await
                    .unwrap_or_else(|error| panic!("request {n} failed: {error}"));
                assert_eq!(answer.status, StatusCode::OK, "request {n}");
                let output = answer.tool_output();
                if cached_tool {
                    assert_eq!(output["data"]["key"], format!("pause-{}", n % 10));
                } else {
                    assert!(!output.is_null(), "request {n}: add answered {output}");
                }
                samples.push(Sample {
                    ended: start.elapsed(),
                    latency: sent.elapsed(),
                    cached_tool,
                });
                n += CLIENTS;
            }
            samples
        });
    }
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let paused_at = start.elapsed();
    let port = cluster.redis_port;
    let paused = tokio::task::spawn_blocking(move || {
        redis_support::command(port, &format!("CLIENT PAUSE {PAUSE_MS} ALL"))
    })
    .await
    .unwrap();
    assert_eq!(paused.as_deref(), Some("+OK"), "Redis paused");
    let resumed_at = paused_at + Duration::from_millis(PAUSE_MS);

    let mut samples = Vec::new();
    while let Some(joined) = clients.join_next().await {
        samples.extend(joined.expect("a client failed: a request went unanswered or failed"));
    }
    let phase = |from: Duration, to: Duration| -> Vec<Sample> {
        samples
            .iter()
            .filter(|sample| sample.ended >= from && sample.ended < to)
            .copied()
            .collect()
    };
    let before = phase(Duration::ZERO, paused_at);
    let during = phase(paused_at, resumed_at);
    let after = phase(resumed_at, Duration::MAX);
    println!(
        "{} requests through nginx at {CLIENTS} clients, Redis paused {PAUSE_MS} ms, none failed",
        samples.len()
    );
    let mut paused_answers = (0, 0);
    for (name, phase) in [("before", &before), ("paused", &during), ("after", &after)] {
        let lookups = report(name, phase, true);
        let adds = report(name, phase, false);
        if name == "paused" {
            paused_answers = (lookups, adds);
        }
    }
    // Answers keep coming while Redis is paused: a call waits at most redisTimeoutMs for it,
    // then the store pauses and calls go uncached.
    assert!(
        paused_answers.0 > 0,
        "cached calls were answered while Redis was paused"
    );
    assert!(
        paused_answers.1 > 0,
        "uncached calls were answered while Redis was paused"
    );
}
