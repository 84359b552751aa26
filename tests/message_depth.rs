//! `request.maxDepth` bounds every inbound message, on stdio and on Streamable HTTP: a message
//! nesting deeper is answered with a typed `-32600` (id echoed when readable), never a crash,
//! and the connection keeps serving. Issue 13.

mod http_support;

use http_support::{demo, limits, modern_body, start};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A `ping` whose nesting is exactly `depth` levels (message object = 1, params = 2).
fn ping_at_depth(id: u64, depth: usize) -> String {
    let arrays = depth - 2;
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"x":{}{}}}}}"#,
        "[".repeat(arrays),
        "]".repeat(arrays)
    )
}

/// Serves `lines` on stdio (a duplex pipe) and returns every answer, in order.
async fn stdio_answers(limits_json: &str, lines: &[String]) -> Vec<Value> {
    let server = demo::build(limits(limits_json)).expect("the demo server builds");
    let (mut client, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    let serving = tokio::spawn(async move { server.serve(server_read, server_write).await });
    for line in lines {
        client.write_all(line.as_bytes()).await.unwrap();
        client.write_all(b"\n").await.unwrap();
    }
    client.shutdown().await.unwrap();
    let mut output = String::new();
    client.read_to_string(&mut output).await.unwrap();
    serving.await.unwrap().expect("the loop ends cleanly");
    output
        .lines()
        .map(|line| serde_json::from_str(line).expect("every answer is JSON"))
        .collect()
}

fn answer_to(answers: &[Value], id: Value) -> &Value {
    answers
        .iter()
        .find(|answer| answer["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id}: {answers:?}"))
}

#[tokio::test]
async fn stdio_holds_every_message_to_max_depth() {
    let lines = vec![
        ping_at_depth(1, 8),
        ping_at_depth(2, 9),
        "[".repeat(100_000),
        ping_at_depth(3, 300),
        ping_at_depth(4, 3),
    ];
    let answers = stdio_answers(r#"{"request": {"maxDepth": 8}}"#, &lines).await;
    assert_eq!(answers.len(), 5, "{answers:?}");
    assert!(answer_to(&answers, json!(1))["result"].is_object());
    let refused = answer_to(&answers, json!(2));
    assert_eq!(refused["error"]["code"], -32600);
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("maxDepth"));
    // 100,000 open brackets: the same typed error, without an id (none can be read).
    let anonymous: Vec<_> = answers.iter().filter(|a| a["id"].is_null()).collect();
    assert_eq!(anonymous.len(), 1, "{answers:?}");
    assert_eq!(anonymous[0]["error"]["code"], -32600);
    // Deeper than serde_json's own recursion limit: still this error, with its id.
    assert_eq!(answer_to(&answers, json!(3))["error"]["code"], -32600);
    // And the loop goes on.
    assert!(answer_to(&answers, json!(4))["result"].is_object());
}

#[tokio::test]
async fn stdio_default_bound_is_64_levels() {
    let lines = vec![ping_at_depth(1, 64), ping_at_depth(2, 65)];
    let answers = stdio_answers("{}", &lines).await;
    assert!(answer_to(&answers, json!(1))["result"].is_object());
    assert_eq!(answer_to(&answers, json!(2))["error"]["code"], -32600);
}

/// A 2026-07-28 `server/discover` whose nesting is exactly `depth` levels.
fn discover_at_depth(id: u64, depth: usize) -> String {
    let mut body = modern_body(id, "server/discover", json!({}));
    let mut nested = json!([]);
    for _ in 0..depth - 3 {
        nested = json!([nested]);
    }
    body["params"]["x"] = nested;
    body.to_string()
}

#[tokio::test]
async fn http_holds_every_message_to_max_depth() {
    let h = start(limits(r#"{"request": {"maxDepth": 10}}"#)).await;
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "server/discover"),
    ];
    let accepted = h.post(&discover_at_depth(1, 10), &headers).await;
    assert_eq!(accepted.status, StatusCode::OK, "{}", accepted.body);
    let refused = h.post(&discover_at_depth(2, 11), &headers).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    assert_eq!(refused.error_code(), -32600);
    assert_eq!(refused.json()["id"], 2);
    let hopeless = h.post(&"{\"a\":".repeat(50_000), &headers).await;
    assert_eq!(hopeless.status, StatusCode::BAD_REQUEST);
    assert_eq!(hopeless.error_code(), -32600);
    assert!(hopeless.json()["id"].is_null());
    // The same bound inside a 2025 session.
    let session = h.initialize("2025-06-18").await;
    let deep = h
        .post(&ping_at_depth(7, 11), &[("mcp-session-id", &session)])
        .await;
    assert_eq!(deep.status, StatusCode::BAD_REQUEST, "{}", deep.body);
    assert_eq!(deep.error_code(), -32600);
    let fine = h.in_session(&session, 8, "ping", json!({})).await;
    assert_eq!(fine.status, StatusCode::OK, "{}", fine.body);
}
