//! The 2025 protocol versions over Streamable HTTP: sessions (`Mcp-Session-Id`), their end
//! (DELETE, expiry, bound), the GET event stream, cancellation and batches. A real HTTP
//! client against the demo server listening on 127.0.0.1.

mod http_support;

use std::time::Duration;

use http_support::{limits, start};
use reqwest::StatusCode;
use serde_json::json;
use typed_mcp::generated::limits::Limits;
use typed_mcp::generated::protocol::validate;

#[tokio::test]
async fn initialize_opens_a_session_that_serves_until_deleted() {
    let h = start(Limits::default()).await;
    let session = h.initialize("2025-11-25").await;
    assert_eq!(session.len(), 64);
    assert!(session.bytes().all(|b| b.is_ascii_hexdigit()));
    let other = h.initialize("2025-11-25").await;
    assert_ne!(session, other);

    let answer = h.in_session(&session, 1, "tools/list", json!({})).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.json()["result"]["tools"].as_array().unwrap().len() >= 7);
    let answer = h
        .in_session(
            &session,
            2,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await;
    validate::legacy_call_tool_result(&answer.json()["result"]).expect("valid");
    let ping = h.in_session(&session, 3, "ping", json!({})).await;
    assert_eq!(ping.json()["result"], json!({}));

    let deleted = h
        .client
        .delete(&h.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    let after = h.in_session(&session, 4, "tools/list", json!({})).await;
    assert_eq!(after.status, StatusCode::NOT_FOUND);
    let again = h
        .client
        .delete(&h.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
    // The other session is untouched.
    let answer = h.in_session(&other, 5, "tools/list", json!({})).await;
    assert_eq!(answer.status, StatusCode::OK);
}

#[tokio::test]
async fn requests_without_or_with_a_wrong_session_are_refused() {
    let h = start(Limits::default()).await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let answer = h.post(body, &[]).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.error_code(), -32600);
    assert_eq!(answer.json()["id"], 1);
    let unknown = "0".repeat(64);
    let answer = h.post(body, &[("mcp-session-id", &unknown)]).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    // The answer never quotes what the client sent.
    assert!(!answer.body.contains(&unknown));
}

#[tokio::test]
async fn the_protocol_version_header_must_name_a_2025_version() {
    let h = start(Limits::default()).await;
    let session = h.initialize("2025-06-18").await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    for (version, expected) in [
        ("2025-06-18", StatusCode::OK),
        ("2025-03-26", StatusCode::OK),
        ("2026-07-28", StatusCode::BAD_REQUEST),
        ("1999-01-01", StatusCode::BAD_REQUEST),
    ] {
        let answer = h
            .post(
                body,
                &[
                    ("mcp-session-id", &session),
                    ("mcp-protocol-version", version),
                ],
            )
            .await;
        assert_eq!(answer.status, expected, "{version}: {}", answer.body);
    }
}

#[tokio::test]
async fn batches_are_answered_in_2025_03_26_sessions_only() {
    let h = start(Limits::default()).await;
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}]"#;
    let old = h.initialize("2025-03-26").await;
    let answer = h.post(batch, &[("mcp-session-id", &old)]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let answers = answer.json();
    let answers = answers.as_array().expect("an array");
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[1]["result"]["content"][0]["text"], "b");

    let new = h.initialize("2025-11-25").await;
    let answer = h.post(batch, &[("mcp-session-id", &new)]).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.error_code(), -32600);
}

#[tokio::test]
async fn a_cancelled_request_gets_no_answer_and_frees_its_id() {
    let h = start(Limits::default()).await;
    let session = h.initialize("2025-11-25").await;
    let slow = {
        let client = h.client.clone();
        let url = h.url.clone();
        let session = session.clone();
        tokio::spawn(async move {
            let answer = client
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-session-id", &session)
                .body(r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"sleep","arguments":{"ms":20000}}}"#)
                .send()
                .await
                .unwrap();
            http_support::finish(answer).await
        })
    };
    // The id is in flight: a second request with it is refused.
    let mut refused = false;
    for _ in 0..200 {
        let duplicate = h.in_session(&session, 0, "ping", json!({})).await;
        assert_eq!(duplicate.status, StatusCode::OK);
        let body = r#"{"jsonrpc":"2.0","id":"s","method":"ping"}"#;
        let answer = h.post(body, &[("mcp-session-id", &session)]).await;
        if answer.json()["error"]["code"] == -32600 {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(refused, "the duplicate id was not refused");
    let cancel =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}"#;
    let answer = h.post(cancel, &[("mcp-session-id", &session)]).await;
    assert_eq!(answer.status, StatusCode::ACCEPTED);
    let cancelled = tokio::time::timeout(Duration::from_secs(10), slow)
        .await
        .expect("the cancelled request ends at once")
        .unwrap();
    assert!(!cancelled.body.contains("\"result\""), "{}", cancelled.body);
    // The id can be used again.
    let body = r#"{"jsonrpc":"2.0","id":"s","method":"ping"}"#;
    let answer = h.post(body, &[("mcp-session-id", &session)]).await;
    assert_eq!(answer.json()["result"], json!({}));
}

#[tokio::test]
async fn the_get_stream_is_one_per_session_and_ends_with_the_session() {
    let h = start(Limits::default()).await;
    let session = h.initialize("2025-11-25").await;
    let open = |last_event: Option<&'static str>| {
        let mut request = h
            .client
            .get(&h.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session);
        if let Some(last) = last_event {
            request = request.header("last-event-id", last);
        }
        request.send()
    };
    let stream = open(None).await.unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let second = open(None).await.unwrap();
    assert_eq!(second.status(), StatusCode::CONFLICT);
    let bad_cursor = open(Some("not-a-number")).await.unwrap();
    assert_eq!(bad_cursor.status(), StatusCode::BAD_REQUEST);
    let deleted = h
        .client
        .delete(&h.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    let rest = tokio::time::timeout(Duration::from_secs(10), stream.text())
        .await
        .expect("the stream ends with its session")
        .unwrap();
    assert!(!rest.contains("data:"));
}

#[tokio::test]
async fn idle_sessions_expire_and_their_number_is_bounded() {
    let h = start(limits(
        r#"{"http": {"maxSessions": 2, "sessionIdleTimeoutMs": 1000}}"#,
    ))
    .await;
    let first = h.initialize("2025-11-25").await;
    let _second = h.initialize("2025-11-25").await;
    let body = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    })
    .to_string();
    let full = h.post(&body, &[]).await;
    assert_eq!(full.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(full.headers.contains_key("retry-after"));
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let expired = h.in_session(&first, 1, "ping", json!({})).await;
    assert_eq!(expired.status, StatusCode::NOT_FOUND);
    let _third = h.initialize("2025-11-25").await;
}

#[tokio::test]
async fn resource_updates_reach_the_get_stream_and_a_resuming_client_gets_what_it_missed() {
    use futures_util::StreamExt as _;
    let h = start(Limits::default()).await;
    let session = h.initialize("2025-11-25").await;
    let subscribed = h
        .in_session(
            &session,
            1,
            "resources/subscribe",
            json!({"uri": "demo://readme"}),
        )
        .await;
    assert_eq!(subscribed.json()["result"], json!({}));
    let open = |last: Option<String>| {
        let mut request = h
            .client
            .get(&h.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session);
        if let Some(last) = last {
            request = request.header("last-event-id", last);
        }
        request.send()
    };
    let stream = open(None).await.unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(h.server.notify_resource_updated("demo://readme").await, 1);
    let mut body = stream.bytes_stream();
    let mut seen = String::new();
    while !seen.contains("\n\n") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), body.next())
            .await
            .expect("the event arrives")
            .expect("the stream is open")
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("notifications/resources/updated"), "{seen}");
    let first_id: u64 = seen
        .lines()
        .find_map(|line| line.strip_prefix("id: "))
        .expect("the event has an id")
        .parse()
        .unwrap();
    // The client drops the stream; two more updates happen while it is away.
    drop(body);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(h.server.notify_resource_updated("demo://readme").await, 1);
    assert_eq!(h.server.notify_resource_updated("demo://readme").await, 1);
    let resumed = open(Some(first_id.to_string())).await.unwrap();
    assert_eq!(resumed.status(), StatusCode::OK);
    let mut body = resumed.bytes_stream();
    let mut replayed = String::new();
    while replayed.matches("data: ").count() < 2 {
        let chunk = tokio::time::timeout(Duration::from_secs(10), body.next())
            .await
            .expect("the missed events are replayed")
            .expect("the stream is open")
            .unwrap();
        replayed.push_str(&String::from_utf8_lossy(&chunk));
    }
    let ids: Vec<u64> = replayed
        .lines()
        .filter_map(|line| line.strip_prefix("id: "))
        .map(|id| id.parse().unwrap())
        .collect();
    assert_eq!(ids, [first_id + 1, first_id + 2]);
}
