//! The client against a hostile fake server written here, over an in-memory pipe: malformed
//! lines, wrong ids, duplicate answers, results that break the schema, oversized lines, a
//! server that stalls and one that closes mid-answer. Each is a typed error of the request
//! it hurt (never a panic, never a hang), errors never quote what the server sent, and the
//! connection keeps working where it can.

mod client_support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use typed_mcp::client::{Client, ClientError, RequestOptions};

use client_support::fake::{connect, tool_result, tools_page, SECRET};

fn assert_no_echo(error: &ClientError) {
    let shown = format!("{error} {error:?}");
    assert!(
        !shown.contains(SECRET),
        "the error quotes the server: {shown}"
    );
}

/// Runs one call on its own task while the fake server acts.
fn spawn_call(
    client: &Client,
    name: &'static str,
) -> tokio::task::JoinHandle<Result<Value, ClientError>> {
    let client = client.clone();
    tokio::spawn(async move {
        let result = client.call_tool(name, json!({})).await?;
        Ok(serde_json::to_value(&result).expect("serializable"))
    })
}

#[tokio::test]
async fn a_result_that_breaks_the_schema_is_a_typed_error_with_its_path() {
    let (client, mut fake) = connect(1 << 16).await;
    let listing = {
        let client = client.clone();
        tokio::spawn(async move { client.list_tools().await })
    };
    let request = fake.request("tools/list").await;
    let bad = tools_page(json!([{"name": "x", "inputSchema": {"type": "object"}},
                                {"name": 7, "inputSchema": {"type": "object"}, "description": SECRET}]));
    fake.answer(&request["id"], bad).await;
    let error = listing.await.expect("no panic").expect_err("invalid");
    assert_no_echo(&error);
    let ClientError::InvalidMessage {
        definition, errors, ..
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(*definition, "ListToolsResult");
    assert!(
        errors.iter().any(|e| e.path() == "/tools/1/name"),
        "{errors:?}"
    );

    // A result missing a required member, a broken `input_required`, and one asking for
    // input no handler gives.
    let call = spawn_call(&client, "a");
    let request = fake.request("tools/call").await;
    fake.answer(&request["id"], json!({"resultType": "complete"}))
        .await;
    let error = call.await.expect("no panic").expect_err("invalid");
    assert!(
        error.violations().iter().any(|e| e.keyword() == "required"),
        "{error:?}"
    );
    let call = spawn_call(&client, "a");
    let request = fake.request("tools/call").await;
    fake.answer(
        &request["id"],
        json!({"resultType": "input_required", "inputRequests": 7}),
    )
    .await;
    let error = call
        .await
        .expect("no panic")
        .expect_err("invalid input_required");
    assert!(
        matches!(
            &error,
            ClientError::InvalidMessage {
                definition: "InputRequiredResult",
                ..
            }
        ),
        "{error:?}"
    );
    // An input request no handler serves: a typed error, no retry.
    let call = spawn_call(&client, "a");
    let request = fake.request("tools/call").await;
    let asks = json!({"resultType": "input_required",
        "inputRequests": {"r": {"method": "roots/list", "params": {}}}});
    fake.answer(&request["id"], asks).await;
    let error = call.await.expect("no panic").expect_err("refused input");
    assert!(
        matches!(error, ClientError::InputRequired { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn malformed_lines_and_wrong_ids_fail_the_requests_in_flight_and_the_connection_goes_on() {
    let (client, mut fake) = connect(1 << 16).await;
    // A line that is not JSON.
    let call = spawn_call(&client, "a");
    fake.request("tools/call").await;
    fake.send(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{SECRET}"))
        .await;
    let error = call.await.expect("no panic").expect_err("malformed");
    assert!(
        matches!(error, ClientError::MalformedMessage { .. }),
        "{error:?}"
    );
    assert_no_echo(&error);

    // An answer with an id that was never used.
    let call = spawn_call(&client, "a");
    fake.request("tools/call").await;
    fake.answer(&json!(987_654), tool_result(SECRET)).await;
    let error = call.await.expect("no panic").expect_err("wrong id");
    assert!(
        matches!(error, ClientError::UnexpectedResponse { kind: "wrong id" }),
        "{error:?}"
    );

    // The same id as a string is not ours either.
    let call = spawn_call(&client, "a");
    let request = fake.request("tools/call").await;
    fake.answer(&json!(request["id"].to_string()), tool_result("x"))
        .await;
    let error = call.await.expect("no panic").expect_err("string id");
    assert!(
        matches!(error, ClientError::UnexpectedResponse { .. }),
        "{error:?}"
    );

    // A duplicate answer is counted and ignored; the next request works.
    let call = spawn_call(&client, "a");
    let request = fake.request("tools/call").await;
    fake.answer(&request["id"], tool_result("first")).await;
    fake.answer(&request["id"], tool_result("second")).await;
    let first = call.await.expect("no panic").expect("answered");
    assert_eq!(first["content"][0]["text"], "first");
    let call = spawn_call(&client, "b");
    let request = fake.request("tools/call").await;
    fake.answer(&request["id"], tool_result("after")).await;
    let after = call.await.expect("no panic").expect("answered");
    assert_eq!(after["content"][0]["text"], "after");
    assert_eq!(client.duplicate_responses(), 1);

    // A JSON-RPC error answer is typed, with its code and data.
    let call = spawn_call(&client, "a");
    let request = fake.request("tools/call").await;
    let line = json!({"jsonrpc": "2.0", "id": request["id"],
        "error": {"code": -32602, "message": "bad", "data": {"why": 1}}});
    fake.send(&line.to_string()).await;
    let error = call.await.expect("no panic").expect_err("rpc error");
    assert_eq!(
        error.rpc_code(),
        Some(typed_mcp::jsonrpc::ErrorCode::INVALID_PARAMS)
    );
}

#[tokio::test]
async fn an_oversized_line_is_a_typed_error_and_the_next_line_is_read() {
    let (client, mut fake) = connect(1024).await;
    let call = spawn_call(&client, "big");
    let request = fake.request("tools/call").await;
    let huge = "x".repeat(4096);
    fake.answer(&request["id"], tool_result(&huge)).await;
    let error = call.await.expect("no panic").expect_err("too long");
    assert!(
        matches!(error, ClientError::LineTooLong { limit: 1024, .. }),
        "{error:?}"
    );
    let call = spawn_call(&client, "small");
    let request = fake.request("tools/call").await;
    fake.answer(&request["id"], tool_result("ok")).await;
    call.await
        .expect("no panic")
        .expect("the connection goes on");
}

#[tokio::test]
async fn a_stalled_server_times_out_and_the_request_is_cancelled() {
    let (client, mut fake) = connect(1 << 16).await;
    let started = Instant::now();
    let stalled = {
        let client = client.clone();
        tokio::spawn(async move {
            let options = RequestOptions::new().timeout(Duration::from_millis(100));
            client.call_tool_with("slow", json!({}), options).await
        })
    };
    let request = fake.request("tools/call").await;
    let error = stalled.await.expect("no panic").expect_err("timed out");
    assert!(matches!(error, ClientError::Timeout { .. }), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
    let cancelled = fake.next().await;
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], request["id"]);
    // A late answer to it is ignored.
    fake.answer(&request["id"], tool_result("late")).await;

    // Progress restarts the idle timeout, up to the maximum total.
    let slow = {
        let client = client.clone();
        tokio::spawn(async move {
            let options = RequestOptions::new()
                .timeout(Duration::from_millis(150))
                .max_total(Duration::from_millis(600))
                .on_progress(|_| {});
            client.call_tool_with("slow", json!({}), options).await
        })
    };
    let request = fake.request("tools/call").await;
    let token = request["params"]["_meta"]["progressToken"].clone();
    let started = Instant::now();
    for step in 0..20 {
        let report = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": token, "progress": step}});
        fake.send(&report.to_string()).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        if slow.is_finished() {
            break;
        }
    }
    let error = slow.await.expect("no panic").expect_err("max total");
    let waited = started.elapsed();
    assert!(matches!(error, ClientError::Timeout { .. }), "{error:?}");
    assert!(
        waited >= Duration::from_millis(500),
        "{waited:?}: progress did not extend the wait"
    );
    assert!(
        waited < Duration::from_millis(1500),
        "{waited:?}: the maximum total was not applied"
    );
}

#[tokio::test]
async fn dropping_a_request_future_sends_a_cancellation() {
    let (client, mut fake) = connect(1 << 16).await;
    let call = spawn_call(&client, "slow");
    let request = fake.request("tools/call").await;
    call.abort();
    let cancelled = fake.next().await;
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], request["id"]);
}

#[tokio::test]
async fn a_server_closing_mid_answer_fails_the_request_and_later_ones() {
    let (client, mut fake) = connect(1 << 16).await;
    let call = spawn_call(&client, "a");
    fake.request("tools/call").await;
    fake.output
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[")
        .await
        .expect("writable");
    drop(fake);
    let error = call.await.expect("no panic").expect_err("closed");
    assert!(
        matches!(
            error,
            ClientError::MalformedMessage { .. } | ClientError::ConnectionClosed { .. }
        ),
        "{error:?}"
    );
    let later = client.call_tool("a", json!({})).await.expect_err("closed");
    assert!(matches!(later, ClientError::Closed), "{later:?}");
    assert!(client.is_closed());
}

#[tokio::test]
async fn the_server_ping_is_answered_and_other_server_requests_refused() {
    let (_client, mut fake) = connect(1 << 16).await;
    fake.send(r#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#)
        .await;
    let pong = fake.next().await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": "p1", "result": {}}));
    fake.send(r#"{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{}}"#)
        .await;
    let refused = fake.next().await;
    assert_eq!(refused["error"]["code"], -32601);
    // Garbage with nothing in flight is logged, not fatal.
    fake.send("not json at all").await;
    fake.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)
        .await;
    assert_eq!(fake.next().await["id"], 3);
}
