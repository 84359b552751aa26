//! Tasks on the Redis task store (`tasks.store: redis`), across two server instances on
//! 127.0.0.1 (each its own HTTP listener and Redis connection) sharing one real
//! redis-server: a task started on one is polled to its result, cancelled (its handler
//! stops on the instance that runs it) and answered (`tasks/update`) on the other; and the
//! bad input — an unknown id, another identity's task, a cancelled task polled again — is
//! the same `-32602` "unknown task" quoting nothing. Without redis-server the tests skip
//! (and fail when `CI` is set).

mod redis_support;
mod tasks_support;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use redis_support::RedisServer;
use serde_json::{json, Map, Value};
use typed_mcp::http::auth::{BoxFuture, ResourceServer, TokenError, TokenValidator};
use typed_mcp::http::{HttpOptions, RunningHttpServer};
use typed_mcp::mcp::tasks::TASKS_EXTENSION;
use typed_mcp::mcp::McpServer;
use typed_mcp::server::AuthInfo;

/// Bearer tokens `alice` and `bob`, each its own subject.
struct TwoUsers;

impl TokenValidator for TwoUsers {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, TokenError>> {
        Box::pin(async move {
            match token {
                "alice" | "bob" => {
                    let mut claims = Map::new();
                    claims.insert("sub".to_owned(), Value::from(token));
                    Ok(AuthInfo::from_claims(claims))
                }
                _ => Err(TokenError::Invalid("unknown".to_owned())),
            }
        })
    }
}

/// One instance: `slow` (counts its handlers stopped before their end in `stopped`) and
/// `ask` (see `tasks_support`), tasks on the Redis at `redis_url`, polled every 40 ms.
async fn instance(redis_url: &str, stopped: Arc<AtomicU32>) -> (RunningHttpServer, String) {
    let slow = tasks_support::slow(Arc::default(), stopped);
    let ask = tasks_support::ask();
    let limits = typed_mcp::config::parse_limits(
        &json!({"tasks": {"store": "redis", "redisUrl": redis_url, "pollIntervalMs": 40}})
            .to_string(),
    )
    .expect("valid limits");
    let server = McpServer::builder("tasks-redis", "1")
        .limits(limits)
        .tool(slow)
        .tool(ask)
        .build()
        .unwrap();
    let resource = ResourceServer::new("http://127.0.0.1/mcp", "https://issuer.invalid", TwoUsers);
    let running = server
        .serve_http_with(
            "127.0.0.1:0".parse().unwrap(),
            HttpOptions::default().auth(resource),
        )
        .await
        .unwrap();
    let url = running.url();
    (running, url)
}

/// Sends one 2026-07-28 request declaring the Tasks extension, as `token`; the JSON-RPC
/// answer (from a JSON body or the last event of a stream).
async fn rpc(url: &str, token: &str, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-redis", "version": "1"}
    });
    let mut request = reqwest::Client::new()
        .post(url)
        .timeout(Duration::from_secs(30))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    // The Mcp-Name header repeats the tool's name, or the task's id.
    if let Some(name) = params["name"].as_str().or(params["taskId"].as_str()) {
        if let Ok(value) = reqwest::header::HeaderValue::from_str(name) {
            request = request.header("mcp-name", value);
        }
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let answer = request.body(body.to_string()).send().await.unwrap();
    let text = answer.text().await.unwrap();
    let json = text
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .next_back()
        .unwrap_or(&text);
    serde_json::from_str(json).unwrap_or_else(|_| panic!("not JSON-RPC: {text}"))
}

async fn result(url: &str, token: &str, method: &str, params: Value) -> Value {
    let answer = rpc(url, token, method, params).await;
    answer
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method} failed: {answer}"))
}

/// `tasks/get` on `url` until the task's status is one of `statuses` (bounded: a hang
/// guard, not a measurement); every status seen on the way.
async fn until(url: &str, id: &str, statuses: &[&str]) -> (Value, Vec<String>) {
    let mut seen = Vec::new();
    for _ in 0..250 {
        let task = result(url, "alice", "tasks/get", json!({"taskId": id})).await;
        let status = task["status"].as_str().unwrap().to_owned();
        if seen.last() != Some(&status) {
            seen.push(status.clone());
        }
        if statuses.contains(&status.as_str()) {
            return (task, seen);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the task never reached {statuses:?}: {seen:?}");
}

/// Starts `tool` as a task on `url` for alice; its id.
async fn start(url: &str, tool: &str, arguments: Value) -> String {
    let created = result(
        url,
        "alice",
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
    .await;
    assert_eq!(created["resultType"], "task", "{created}");
    created["taskId"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_instance_is_polled_and_answered_on_another() {
    let Some(redis) = RedisServer::start(64 << 20) else {
        return;
    };
    let (_a, on_a) = instance(&redis.url(), Arc::default()).await;
    let (_b, on_b) = instance(&redis.url(), Arc::default()).await;

    let id = start(&on_a, "slow", json!({"ms": 400})).await;
    let (done, seen) = until(&on_b, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(
        seen.first().map(String::as_str),
        Some("working"),
        "{seen:?}"
    );
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["data"],
        json!({"slept": 400})
    );
    let on_first = result(&on_a, "alice", "tasks/get", json!({"taskId": id})).await;
    assert_eq!(on_first, done, "both instances answer the same");

    // A question asked on A, answered on B: the answer reaches the handler on A.
    let id = start(&on_a, "ask", json!({})).await;
    let (parked, _) = until(&on_b, &id, &["input_required"]).await;
    assert_eq!(
        parked["inputRequests"]["ok"]["method"],
        "elicitation/create"
    );
    let ack = result(
        &on_b,
        "alice",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"ok": {"action": "accept", "content": {}}}}),
    )
    .await;
    assert_eq!(ack, json!({"resultType": "complete"}));
    let (done, _) = until(&on_b, &id, &["completed", "failed", "cancelled"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["data"],
        json!({"answered": "accept"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_on_another_instance_stops_the_handler_and_stays_cancelled() {
    let Some(redis) = RedisServer::start(64 << 20) else {
        return;
    };
    let stopped_on_a = Arc::new(AtomicU32::new(0));
    let (_a, on_a) = instance(&redis.url(), Arc::clone(&stopped_on_a)).await;
    let (_b, on_b) = instance(&redis.url(), Arc::default()).await;

    let id = start(&on_a, "slow", json!({"ms": 0})).await;
    let (_working, _) = until(&on_b, &id, &["working"]).await;
    let ack = result(&on_b, "alice", "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack, json!({"resultType": "complete"}));
    // Settled in the store at once: both instances answer `cancelled` now.
    for url in [&on_a, &on_b] {
        let task = result(url, "alice", "tasks/get", json!({"taskId": id})).await;
        assert_eq!(task["status"], "cancelled", "{task}");
        assert!(task.get("result").is_none() && task.get("error").is_none());
    }
    // Instance A stops the handler within a poll interval (bounded wait: a hang guard).
    let mut waited = 0;
    while stopped_on_a.load(Ordering::SeqCst) == 0 && waited < 200 {
        tokio::time::sleep(Duration::from_millis(10)).await;
        waited += 1;
    }
    assert_eq!(
        stopped_on_a.load(Ordering::SeqCst),
        1,
        "the handler on A stopped"
    );
    // Polled again, and cancelled again, on either instance: still cancelled.
    tokio::time::sleep(Duration::from_millis(100)).await;
    for url in [&on_b, &on_a] {
        let ack = result(url, "alice", "tasks/cancel", json!({"taskId": id})).await;
        assert_eq!(ack, json!({"resultType": "complete"}));
        let task = result(url, "alice", "tasks/get", json!({"taskId": id})).await;
        assert_eq!(task["status"], "cancelled", "{task}");
        assert!(task.get("result").is_none());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_other_identities_tasks_are_unknown_on_every_instance() {
    let Some(redis) = RedisServer::start(64 << 20) else {
        return;
    };
    let (_a, on_a) = instance(&redis.url(), Arc::default()).await;
    let (_b, on_b) = instance(&redis.url(), Arc::default()).await;

    let id = start(&on_a, "slow", json!({"ms": 50})).await;
    let (_done, _) = until(&on_b, &id, &["completed"]).await;
    let never_issued = "0123456789abcdef0123456789abcdef";
    let cases = [
        ("alice", "tasks/get", never_issued),
        ("alice", "tasks/cancel", never_issued),
        ("alice", "tasks/get", "not a task id"),
        ("bob", "tasks/get", id.as_str()),
        ("bob", "tasks/cancel", id.as_str()),
    ];
    for (who, method, task) in cases {
        for url in [&on_a, &on_b] {
            let answer = rpc(url, who, method, json!({"taskId": task})).await;
            let error = &answer["error"];
            assert_eq!(error["code"], -32602, "{who} {method}: {answer}");
            assert_eq!(error["message"], "unknown task");
            assert!(
                !answer.to_string().contains(task),
                "quotes nothing: {answer}"
            );
        }
    }
    let answer = rpc(
        &on_b,
        "bob",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {}}),
    )
    .await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    // Bob's attempts changed nothing of alice's task.
    let task = result(&on_b, "alice", "tasks/get", json!({"taskId": id})).await;
    assert_eq!(task["status"], "completed");
}
