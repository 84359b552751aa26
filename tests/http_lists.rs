//! The list features over Streamable HTTP: pagination across stateless requests,
//! `notifications/*/list_changed` on a 2025 session's GET stream, and `subscriptions/listen`
//! answered with an event stream that stays open.

mod http_support;

use futures_util::StreamExt as _;
use reqwest::StatusCode;
use serde_json::json;
use typed_mcp::generated::limits::Limits;
use typed_mcp::mcp::ResourceDefinition;

/// Reads an event stream until it holds `count` events; returns its text.
async fn events<B: AsRef<[u8]>>(
    body: &mut (impl futures_util::Stream<Item = reqwest::Result<B>> + Unpin),
    count: usize,
) -> String {
    let mut seen = String::new();
    while seen.matches("data: ").count() < count {
        let chunk = tokio::time::timeout(http_support::HANG_GUARD, body.next())
            .await
            .expect("the event arrives (hang guard)")
            .expect("the stream is open")
            .expect("a chunk");
        seen.push_str(&String::from_utf8_lossy(chunk.as_ref()));
    }
    seen
}

/// POSTs `subscriptions/listen` with request id `id` and `params`, accepting an event stream.
async fn listen(
    h: &http_support::Harness,
    id: u64,
    params: serde_json::Value,
) -> reqwest::Response {
    let body = http_support::modern_body(id, "subscriptions/listen", params);
    h.client
        .post(&h.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn stateless_http_requests_page_with_the_same_cursor() {
    let harness = http_support::start(http_support::limits(r#"{"lists": {"pageSize": 5}}"#)).await;
    let first = harness.modern(1, "tools/list", json!({})).await.json();
    let cursor = first["result"]["nextCursor"]
        .as_str()
        .expect("a cursor")
        .to_owned();
    assert_eq!(first["result"]["tools"].as_array().unwrap().len(), 5);
    let second = harness
        .modern(2, "tools/list", json!({ "cursor": cursor }))
        .await
        .json();
    assert!(second["result"].get("nextCursor").is_none(), "{second}");
    let names: Vec<&str> = first["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["result"]["tools"].as_array().unwrap())
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "no tool twice: {names:?}");
    let refused = harness
        .modern(3, "tools/list", json!({ "cursor": format!("{cursor}x") }))
        .await;
    assert_eq!(refused.error_code(), -32602);
}

#[tokio::test]
async fn list_changes_reach_a_session_get_stream() {
    let h = http_support::start(Limits::default()).await;
    let session = h.initialize("2025-11-25").await;
    let stream = h
        .client
        .get(&h.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    let mut body = stream.bytes_stream();
    let notes = ResourceDefinition::text("demo://notes", "notes", "text/plain", "a note");
    h.server.add_resource(notes).await.expect("added");
    assert!(h.server.remove_prompt("greet").await);
    let seen = events(&mut body, 2).await;
    let methods: Vec<&str> = seen
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| {
            let value: serde_json::Value = serde_json::from_str(data).unwrap();
            if value["method"] == "notifications/resources/list_changed" {
                "resources"
            } else if value["method"] == "notifications/prompts/list_changed" {
                "prompts"
            } else {
                "other"
            }
        })
        .collect();
    assert_eq!(methods, ["resources", "prompts"], "{seen}");
    let read = h
        .in_session(
            &session,
            1,
            "resources/read",
            json!({"uri": "demo://notes"}),
        )
        .await;
    assert_eq!(read.json()["result"]["contents"][0]["text"], "a note");
}

#[tokio::test]
async fn a_listen_post_is_answered_with_a_stream_that_stays_open() {
    let h = http_support::start(Limits::default()).await;
    let answer = listen(
        &h,
        7,
        json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["demo://readme"]}}),
    )
    .await;
    assert_eq!(answer.status(), StatusCode::OK);
    let content_type = answer.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let mut stream = answer.bytes_stream();
    let first = events(&mut stream, 1).await;
    assert!(
        first.contains("notifications/subscriptions/acknowledged"),
        "{first}"
    );
    assert!(h.server.remove_tool("echo").await);
    let more = events(&mut stream, 1).await;
    let event: serde_json::Value = serde_json::from_str(
        more.lines()
            .find_map(|line| line.strip_prefix("data: "))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(event["method"], "notifications/tools/list_changed");
    assert_eq!(
        event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    // The client leaves: its subscription goes with it.
    drop(stream);
    let gone = tokio::time::timeout(http_support::HANG_GUARD, async {
        while h.server.notify_resource_updated("demo://readme").await != 0 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(
        gone.is_ok(),
        "hang guard: the subscription outlived its stream"
    );
}

/// A server shutting down ends an open listen stream with the closing result (a JSON-RPC
/// response to the listen request), then the body ends cleanly: the client sees an orderly
/// end, not a cut connection.
#[tokio::test]
async fn shutdown_ends_a_listen_stream_with_its_closing_result() {
    let h = http_support::start(Limits::default()).await;
    let answer = listen(&h, 9, json!({"notifications": {"toolsListChanged": true}})).await;
    let mut stream = answer.bytes_stream();
    let first = events(&mut stream, 1).await;
    assert!(
        first.contains("notifications/subscriptions/acknowledged"),
        "{first}"
    );
    let shutdown = tokio::spawn(h.running.shutdown());
    let mut rest = String::new();
    loop {
        let chunk = tokio::time::timeout(http_support::HANG_GUARD, stream.next())
            .await
            .expect("the stream ends (hang guard)");
        match chunk {
            Some(chunk) => rest.push_str(&String::from_utf8_lossy(&chunk.expect("no cut"))),
            None => break,
        }
    }
    let last: serde_json::Value = serde_json::from_str(
        rest.lines()
            .rev()
            .find_map(|line| line.strip_prefix("data: "))
            .expect("a closing event"),
    )
    .unwrap();
    assert_eq!(last["id"], 9, "{rest}");
    assert_eq!(last["result"]["resultType"], "complete", "{rest}");
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
    tokio::time::timeout(http_support::HANG_GUARD, shutdown)
        .await
        .expect("the server stops (hang guard)")
        .unwrap()
        .expect("a clean shutdown");
}

#[tokio::test]
async fn a_listen_post_that_accepts_only_json_is_refused() {
    let h = http_support::start(Limits::default()).await;
    let body = http_support::modern_body(
        1,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let answer = h
        .client
        .post(&h.url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let answer = http_support::finish(answer).await;
    assert_eq!(answer.status, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(answer.error_code(), -32600);
}
