//! Scale-out behind a real load balancer (issue 13): `deploy/local-cluster.sh` starts
//! redis-server, three demo-server instances on the Redis cache store and nginx
//! (`deploy/nginx.conf`); plain HTTP through nginx shows that
//! - 2026-07-28 requests spread over every instance with identical results;
//! - a `lookup` computed on one instance is a cache hit on the others;
//! - 2025 sessions stay on the instance that opened them and keep working;
//! - Redis killed under load: every request is still answered (uncached), none fails;
//!   Redis back: hits resume;
//! - an instance killed under load: nginx routes around it, and every 2026-07-28 request
//!   succeeds at the latest on the one retry a client makes.
//!
//! Skipped with a printed reason when nginx or redis-server is missing (failing when `CI` is
//! set; tests/setup.sh installs both).

mod cluster_support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cluster_support::{tools_present, Cluster};
use reqwest::StatusCode;
use serde_json::{json, Value};
use typed_mcp::client::{Client, ClientOptions, VersionChoice};

const INSTANCES: usize = 3;
const LEGACY: &str = "2025-11-25";

/// A result without what differs between two runs of the same call (its duration).
fn stable(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(object) = result.as_object_mut() {
        let _meta = object.remove("_meta");
    }
    if let Some(meta) = result
        .pointer_mut("/structuredContent/meta")
        .and_then(Value::as_object_mut)
    {
        let _duration = meta.remove("durationMs");
    }
    result
}

/// `lookup {key}` through `url` (nginx or one instance): the tool's output.
async fn lookup_at(cluster: &Cluster, url: &str, key: &str) -> (Value, String) {
    let answer = cluster
        .modern_to(
            url,
            1,
            "tools/call",
            json!({"name": "lookup", "arguments": {"key": key}}),
        )
        .await
        .expect("answered");
    let upstream = answer.header("x-mcp-upstream").unwrap_or_default();
    (answer.tool_output(), upstream)
}

/// The `computations` counter of instance `index`, read with a fresh key (so it runs).
async fn computations_of(cluster: &Cluster, index: usize, probe: &str) -> u64 {
    let url = cluster.instances[index].url.clone();
    let (output, _) = lookup_at(cluster, &url, &format!("probe-{index}-{probe}")).await;
    assert_eq!(output["meta"]["cached"], false, "a fresh key is computed");
    output["data"]["computations"]
        .as_u64()
        .expect("a computations counter")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_requests_spread_over_every_instance_with_identical_results() {
    if !tools_present() {
        return;
    }
    let cluster = Cluster::start(INSTANCES);
    let requests = [
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "same everywhere"}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 40}}),
        ),
        ("tools/list", json!({})),
        ("resources/read", json!({"uri": "demo://readme"})),
        (
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        ),
    ];
    for (method, params) in requests {
        let mut results: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for id in 0..(2 * INSTANCES as u64) {
            let answer = cluster
                .modern(id, method, params.clone())
                .await
                .expect("answered");
            assert_eq!(answer.status, StatusCode::OK, "{method}: {}", answer.body);
            let result = answer.json()["result"].clone();
            assert!(result.is_object(), "{method}: {}", answer.body);
            results
                .entry(answer.upstream())
                .or_default()
                .push(stable(&result));
        }
        let answered_by: BTreeSet<Option<usize>> = results
            .keys()
            .map(|addr| cluster.instance_at(addr))
            .collect();
        let every: BTreeSet<Option<usize>> = (0..INSTANCES).map(Some).collect();
        assert_eq!(answered_by, every, "{method} reached every instance");
        let all: Vec<&Value> = results.values().flatten().collect();
        assert!(
            all.iter().all(|result| *result == all[0]),
            "{method}: every instance answers the same: {all:?}"
        );
    }
    // The echo really is the text, not some shared error.
    let answer = cluster
        .modern(
            9,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "same everywhere"}}),
        )
        .await
        .expect("answered");
    assert_eq!(answer.tool_output()["data"], "same everywhere");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lookup_computed_on_one_instance_is_a_hit_on_the_others() {
    if !tools_present() {
        return;
    }
    let cluster = Cluster::start(INSTANCES);
    let before: Vec<u64> = {
        let mut counters = Vec::new();
        for index in 0..INSTANCES {
            counters.push(computations_of(&cluster, index, "before").await);
        }
        counters
    };
    let url = cluster.url.clone();
    let (first, first_upstream) = lookup_at(&cluster, &url, "shared-key").await;
    assert_eq!(first["meta"]["cached"], false, "the first lookup computes");
    assert_eq!(first["data"]["value"], "yek-derahs");
    let mut hit_on = BTreeSet::new();
    for _ in 0..(3 * INSTANCES) {
        let (output, upstream) = lookup_at(&cluster, &url, "shared-key").await;
        assert_eq!(output["meta"]["cached"], true, "a hit on {upstream}");
        assert_eq!(
            output["data"], first["data"],
            "the first computation's answer"
        );
        let _new = hit_on.insert(cluster.instance_at(&upstream));
    }
    let every: BTreeSet<Option<usize>> = (0..INSTANCES).map(Some).collect();
    assert_eq!(hit_on, every, "every instance served the cached answer");
    // Exactly one computation in the whole cluster: each instance's counter moved by its
    // own probe only, plus the first lookup on the instance that computed it.
    let origin = cluster
        .instance_at(&first_upstream)
        .expect("a known instance");
    for (index, counted_before) in before.iter().enumerate() {
        let after = computations_of(&cluster, index, "after").await;
        let expected = if index == origin { 2 } else { 1 };
        assert_eq!(
            after - counted_before,
            expected,
            "instance {index} (origin {origin}) ran lookup {} times",
            after - counted_before
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_of_2025_stay_on_the_instance_that_opened_them() {
    if !tools_present() {
        return;
    }
    let cluster = Cluster::start(INSTANCES);
    let mut opened_on = BTreeSet::new();
    let mut sessions = Vec::new();
    for _ in 0..(2 * INSTANCES) {
        let (session, answer) = cluster.initialize(LEGACY).await;
        let (tag, inner) = session.split_once('.').expect("a tagged session id");
        let index: usize = tag
            .strip_prefix('i')
            .and_then(|k| k.parse().ok())
            .expect("tag i<K>");
        assert!(
            inner.len() == 64 && inner.bytes().all(|b| b.is_ascii_hexdigit()),
            "the server's own id behind the tag"
        );
        assert_eq!(
            cluster.instance_at(&answer.upstream()),
            Some(index),
            "the tag names the instance that opened the session"
        );
        let _new = opened_on.insert(index);
        sessions.push((session, index));
    }
    assert_eq!(opened_on.len(), INSTANCES, "initialize is balanced too");
    for (round, (session, index)) in sessions.iter().enumerate() {
        let calls = [
            ("ping", json!({})),
            ("tools/list", json!({})),
            (
                "tools/call",
                json!({"name": "echo", "arguments": {"text": format!("session {round}")}}),
            ),
            (
                "tools/call",
                json!({"name": "add", "arguments": {"a": round, "b": 1}}),
            ),
        ];
        for (id, (method, params)) in calls.into_iter().enumerate() {
            let answer = cluster
                .in_session(session, LEGACY, id as u64 + 1, method, params)
                .await;
            assert_eq!(answer.status, StatusCode::OK, "{method}: {}", answer.body);
            assert!(answer.json()["result"].is_object(), "{}", answer.body);
            assert_eq!(
                cluster.instance_at(&answer.upstream()),
                Some(*index),
                "{method} stays on the session's instance"
            );
            if method == "tools/call" && id == 2 {
                assert_eq!(
                    answer.json()["result"]["structuredContent"]["data"],
                    format!("session {round}")
                );
            }
        }
    }
    // A session id the instance never issued is unknown there (404), tag or no tag.
    for forged in [
        format!("i0.{}", "0".repeat(64)),
        "0".repeat(64),
        format!("i{}.{}", INSTANCES + 5, "0".repeat(64)),
    ] {
        let answer = cluster
            .in_session(&forged, LEGACY, 1, "ping", json!({}))
            .await;
        assert_eq!(
            answer.status,
            StatusCode::NOT_FOUND,
            "{forged}: {}",
            answer.body
        );
    }
    // DELETE through nginx ends the session on its instance.
    let (session, _) = &sessions[0];
    let status = cluster
        .delete(&[
            ("mcp-session-id", session),
            ("mcp-protocol-version", LEGACY),
        ])
        .await;
    assert!(status.is_success(), "DELETE: {status}");
    let answer = cluster
        .in_session(session, LEGACY, 1, "ping", json!({}))
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.body);

    // The project's own client, through nginx, at a 2025 version.
    let options =
        ClientOptions::new("cluster-test", "1.0.0").version(VersionChoice::Legacy(LEGACY.into()));
    let client = Client::connect_http(&cluster.url, options)
        .await
        .expect("a 2025 session through nginx");
    assert_eq!(client.protocol_version(), LEGACY);
    assert!(!client.is_modern());
    let tools = client.list_tools().await.expect("tools/list");
    assert!(tools.iter().any(|tool| tool.name == "lookup"));
    for round in 0..(2 * INSTANCES) {
        let text = format!("client {round}");
        let result = client
            .call_tool("echo", json!({"text": text}))
            .await
            .expect("echo");
        assert_eq!(
            result.structured_content().expect("structured")["data"],
            text
        );
    }
    let readme = client.read_resource("demo://readme").await.expect("read");
    assert!(!readme.contents().is_empty());
    client.close().await;
}

/// Runs `tasks` concurrent loops of `lookup` over `keys` keys through nginx until `stop`;
/// every answer must be a successful tool call. Returns (answers, hits).
fn lookup_load(
    cluster: &Arc<Cluster>,
    tasks: usize,
    keys: usize,
    stop: &Arc<AtomicBool>,
) -> tokio::task::JoinSet<(u64, u64)> {
    let mut set = tokio::task::JoinSet::new();
    for task in 0..tasks {
        let cluster = Arc::clone(cluster);
        let stop = Arc::clone(stop);
        let _handle = set.spawn(async move {
            let (mut answers, mut hits) = (0_u64, 0_u64);
            let url = cluster.url.clone();
            let mut n = task;
            while !stop.load(Ordering::SeqCst) {
                let key = format!("load-{}", n % keys);
                let (output, _) = lookup_at(&cluster, &url, &key).await;
                assert_eq!(output["data"]["key"], key.as_str());
                answers += 1;
                hits += u64::from(output["meta"]["cached"] == true);
                n += 1;
            }
            (answers, hits)
        });
    }
    set
}

async fn totals(mut set: tokio::task::JoinSet<(u64, u64)>) -> (u64, u64) {
    let (mut answers, mut hits) = (0, 0);
    while let Some(joined) = set.join_next().await {
        let (a, h) = joined.expect("a load task failed: a request went unanswered or failed");
        answers += a;
        hits += h;
    }
    (answers, hits)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_killed_under_load_costs_hits_not_answers() {
    if !tools_present() {
        return;
    }
    let cluster = Arc::new(Cluster::start(INSTANCES));
    // Warm up: every key computed once, then served from Redis.
    let url = cluster.url.clone();
    for key in 0..10 {
        let _computed = lookup_at(&cluster, &url, &format!("load-{key}")).await;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let load = lookup_load(&cluster, 4, 10, &stop);
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Kill Redis while the load runs.
    Cluster::kill(cluster.redis_pid);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    stop.store(true, Ordering::SeqCst);
    let (answers, hits) = totals(load).await;
    println!("load across the Redis kill: {answers} answers, {hits} hits, no error");
    assert!(hits > 0, "hits before the kill");

    // Redis down: every lookup is computed, none fails.
    for round in 0..(2 * INSTANCES) {
        let (output, upstream) = lookup_at(&cluster, &url, "load-1").await;
        assert_eq!(
            output["meta"]["cached"], false,
            "round {round} on {upstream}"
        );
    }

    // Redis back (empty): the stores reconnect by themselves and hits resume everywhere.
    cluster.restart_redis();
    let mut hit = false;
    for _ in 0..100 {
        let (output, _) = lookup_at(&cluster, &url, "after-restart").await;
        if output["meta"]["cached"] == true {
            hit = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(hit, "hits resume once Redis is back");
    let mut hit_on = BTreeSet::new();
    for _ in 0..(2 * INSTANCES) {
        let (output, upstream) = lookup_at(&cluster, &url, "after-restart").await;
        assert_eq!(output["meta"]["cached"], true, "a hit on {upstream}");
        let _new = hit_on.insert(cluster.instance_at(&upstream));
    }
    assert_eq!(hit_on.len(), INSTANCES, "every instance uses Redis again");
}

/// `rounds` 2026-07-28 `add` calls through nginx, without any retry: each must succeed.
/// Returns the instances that answered.
async fn adds_without_retry(cluster: &Cluster, rounds: u64) -> BTreeSet<Option<usize>> {
    let mut answered_by = BTreeSet::new();
    for id in 0..rounds {
        let answer = cluster
            .modern(
                id,
                "tools/call",
                json!({"name": "add", "arguments": {"a": id, "b": 1}}),
            )
            .await
            .expect("answered");
        assert_eq!(answer.tool_output()["data"]["sum"], (id + 1) as f64);
        let _new = answered_by.insert(cluster.instance_at(&answer.upstream()));
    }
    answered_by
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_instances_are_routed_around_and_lose_nothing_after_one_retry() {
    if !tools_present() {
        return;
    }
    let cluster = Arc::new(Cluster::start(INSTANCES));
    let (survivor, quiet_victim, busy_victim) = (0, 1, 2);
    // A 2025 session on the first victim and one on the survivor.
    let mut on_victim = None;
    let mut on_survivor = None;
    while on_victim.is_none() || on_survivor.is_none() {
        let (session, answer) = cluster.initialize(LEGACY).await;
        match cluster.instance_at(&answer.upstream()) {
            Some(index) if index == quiet_victim => on_victim = Some(session),
            Some(index) if index == survivor => on_survivor = Some(session),
            _ => {}
        }
    }

    // An instance dies while idle: nginx has not seen it fail, yet no request fails, not
    // even once: a refused connection sends the request on to the next instance.
    Cluster::kill(cluster.instances[quiet_victim].pid);
    let answered_by = adds_without_retry(&cluster, 4 * INSTANCES as u64).await;
    let live: BTreeSet<Option<usize>> = [Some(survivor), Some(busy_victim)].into();
    assert_eq!(answered_by, live, "the live instances share the load");

    // An instance dies under load: the calls it was running fail once (502 or a broken
    // connection), and each succeeds on the client's one retry.
    let stop = Arc::new(AtomicBool::new(false));
    let retries = Arc::new(AtomicU64::new(0));
    let mut load = tokio::task::JoinSet::new();
    for task in 0..6_u64 {
        let cluster = Arc::clone(&cluster);
        let stop = Arc::clone(&stop);
        let retries = Arc::clone(&retries);
        let _handle = load.spawn(async move {
            let mut answered = 0_u64;
            let mut id = task * 1000;
            while !stop.load(Ordering::SeqCst) {
                id += 1;
                let (answer, retried) =
                    cluster.call_retrying(id, "sleep", json!({"ms": 100})).await;
                assert_eq!(
                    answer.tool_output()["data"]["sleptMs"],
                    100,
                    "{}",
                    answer.body
                );
                assert_eq!(answer.json()["id"], id);
                let _before = retries.fetch_add(u64::from(retried), Ordering::SeqCst);
                answered += 1;
            }
            answered
        });
    }
    tokio::time::sleep(Duration::from_millis(700)).await;
    Cluster::kill(cluster.instances[busy_victim].pid);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    stop.store(true, Ordering::SeqCst);
    // Every task is joined before any failure is reported, so that the cluster is dropped by
    // this (panicking) thread and prints nginx's logs.
    let mut joined = Vec::new();
    while let Some(result) = load.join_next().await {
        joined.push(result);
    }
    let mut answered = 0;
    for result in joined {
        answered += result.expect("every request succeeded, at the latest on its retry");
    }
    println!(
        "load across the instance kill: {answered} calls answered, {} after a retry",
        retries.load(Ordering::SeqCst)
    );
    let answered_by = adds_without_retry(&cluster, 2 * INSTANCES as u64).await;
    assert_eq!(
        answered_by,
        [Some(survivor)].into(),
        "only the survivor is left"
    );

    // The session of a dead instance is gone (404: initialize again); the others live on.
    let lost = on_victim.expect("found");
    let answer = cluster
        .in_session(&lost, LEGACY, 1, "ping", json!({}))
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.body);
    let kept = on_survivor.expect("found");
    let answer = cluster
        .in_session(&kept, LEGACY, 1, "ping", json!({}))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
}
