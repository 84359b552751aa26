//! The client against a hostile fake server written here, over an in-memory pipe: malformed
//! lines, wrong ids, duplicate answers, results that break the schema, oversized lines, a
//! server that stalls and one that closes mid-answer. Each is a typed error of the request
//! it hurt (never a panic, never a hang), errors never quote what the server sent, and the
//! connection keeps working where it can.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, WriteHalf};
use typed_mcp::client::{Client, ClientError, ClientOptions, RequestOptions, VersionChoice};

/// A secret the fake server puts in its bad messages: no error may contain it.
const SECRET: &str = "s3cr3t-payload";

/// The fake server's end of the pipe.
struct Fake {
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    output: WriteHalf<DuplexStream>,
}

impl Fake {
    /// The next message the client sent.
    async fn next(&mut self) -> Value {
        let line = self
            .lines
            .next_line()
            .await
            .expect("readable")
            .expect("a line");
        serde_json::from_str(&line).expect("the client sends JSON")
    }

    /// The next request (skipping notifications), with its id.
    async fn request(&mut self, method: &str) -> Value {
        loop {
            let message = self.next().await;
            if message.get("id").is_some() {
                assert_eq!(message["method"], method, "{message}");
                return message;
            }
        }
    }

    async fn send(&mut self, text: &str) {
        self.output
            .write_all(text.as_bytes())
            .await
            .expect("writable");
        self.output.write_all(b"\n").await.expect("writable");
    }

    async fn answer(&mut self, id: &Value, result: Value) {
        let line = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
        self.send(&line).await;
    }
}

fn tools_page(tools: Value) -> Value {
    json!({"resultType": "complete", "tools": tools, "ttlMs": 0, "cacheScope": "private"})
}

fn tool_result(text: &str) -> Value {
    json!({"resultType": "complete", "content": [{"type": "text", "text": text}]})
}

/// A connected client (2026-07-28, pinned) and the fake server behind it.
async fn connect(line_limit: usize) -> (Client, Fake) {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (client_in, client_out) = tokio::io::split(client_io);
    let (server_in, server_out) = tokio::io::split(server_io);
    let mut fake = Fake {
        lines: BufReader::new(server_in).lines(),
        output: server_out,
    };
    let options = ClientOptions::new("hostile-test", "1")
        .version(VersionChoice::parse("2026-07-28").expect("known"))
        .request_timeout(Duration::from_secs(5))
        .max_line_bytes(line_limit);
    let connecting = tokio::spawn(Client::connect_io(client_in, client_out, options));
    let discover = fake.request("server/discover").await;
    let meta = &discover["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"]["name"],
        "hostile-test"
    );
    let discovered = json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "private"});
    fake.answer(&discover["id"], discovered).await;
    let client = connecting
        .await
        .expect("no panic")
        .expect("the handshake succeeds");
    (client, fake)
}

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
        errors.iter().any(|e| e.path == "/tools/1/name"),
        "{errors:?}"
    );

    // A result missing a required member, and an `input_required` this client cannot serve.
    let call = spawn_call(&client, "a");
    let request = fake.request("tools/call").await;
    fake.answer(&request["id"], json!({"resultType": "complete"}))
        .await;
    let error = call.await.expect("no panic").expect_err("invalid");
    assert!(
        error.violations().iter().any(|e| e.keyword == "required"),
        "{error:?}"
    );
    let call = spawn_call(&client, "a");
    let request = fake.request("tools/call").await;
    fake.answer(
        &request["id"],
        json!({"resultType": "input_required", "requestState": "x"}),
    )
    .await;
    let error = call.await.expect("no panic").expect_err("input required");
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
