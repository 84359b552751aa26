//! Tool calls through the MCP server over an in-memory duplex: argument validation, the
//! request limits, timeouts, truncation, the result cache, progress, cancellation and
//! duplicate ids.

mod mcp_server_support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use mcp_server_support::demo::arguments::EchoArguments;
use mcp_server_support::{
    call, demo_server, legacy_client, limits, modern, tool_error_code, violation_paths, TestClient,
};
use serde_json::{json, Value};
use tokio::sync::Notify;
use typed_mcp::generated::limits::Limits;
use typed_mcp::generated::protocol::validate;
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::ToolContext;

const TOOLS_SCHEMA: &str = include_str!("../examples/demo_server/tools.json");

#[tokio::test]
async fn invalid_arguments_are_a_validation_failed_result_and_the_handler_is_not_called() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    let result = client
        .result(
            json!(1),
            "tools/call",
            Some(call("add", json!({"a": "two", "b": 3}))),
        )
        .await;
    assert_eq!(tool_error_code(&result), "VALIDATION_FAILED");
    let violations = &result["structuredContent"]["error"]["validationErrors"];
    assert_eq!(violations[0]["path"], "/a");
    assert_eq!(violations[0]["keyword"], "type");
    assert_eq!(violations[0]["actual"], "string");

    // Every violation is listed: a missing member and an unknown one.
    let result = client
        .result(
            json!(2),
            "tools/call",
            Some(call("add", json!({"a": 1, "c": 2}))),
        )
        .await;
    assert_eq!(tool_error_code(&result), "VALIDATION_FAILED");
    let count = result["structuredContent"]["error"]["validationErrors"]
        .as_array()
        .unwrap()
        .len();
    assert!(count >= 2, "{result}");

    // The lookup handler counts its runs: a rejected call does not run it.
    let rejected = client
        .result(
            json!(3),
            "tools/call",
            Some(call("lookup", json!({"key": 5}))),
        )
        .await;
    assert_eq!(tool_error_code(&rejected), "VALIDATION_FAILED");
    let first = client
        .result(
            json!(4),
            "tools/call",
            Some(call("lookup", json!({"key": "k"}))),
        )
        .await;
    assert_eq!(first["structuredContent"]["data"]["computations"], 1);
}

#[tokio::test]
async fn defaults_of_the_schema_fill_absent_arguments() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    let big = client
        .result(json!(1), "tools/call", Some(json!({"name": "big"})))
        .await;
    let text = big["structuredContent"]["data"].as_str().expect("a text");
    assert_eq!(text.len(), 100, "the default size");
    let exact = client
        .result(
            json!(2),
            "tools/call",
            Some(call("big", json!({"bytes": 37}))),
        )
        .await;
    assert_eq!(exact["content"][0]["text"].as_str().unwrap().len(), 37);
}

#[tokio::test]
async fn tools_list_publishes_the_schema_the_arguments_were_generated_from() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-06-18").await;
    let list = client.result(json!(1), "tools/list", None).await;
    let file: Value = serde_json::from_str(TOOLS_SCHEMA).unwrap();
    let expected = [
        ("echo", "EchoArguments"),
        ("add", "AddArguments"),
        ("sleep", "SleepArguments"),
        ("spin", "SpinArguments"),
        ("big", "BigArguments"),
        ("sum", "SumArguments"),
        ("lookup", "LookupArguments"),
        ("route", "RouteArguments"),
        ("confirm", "ConfirmArguments"),
        ("touch", "TouchArguments"),
    ];
    let tools = list["tools"].as_array().unwrap();
    assert_eq!(tools.len(), expected.len());
    for (name, definition) in expected {
        let tool = tools.iter().find(|t| t["name"] == name).expect(name);
        assert_eq!(tool["inputSchema"], file["$defs"][definition], "{name}");
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
    }
}

#[tokio::test]
async fn an_over_long_array_is_array_too_large_before_the_tool_runs() {
    let limits = limits(json!({"request": {"toolArrayLimits": {"sum": 4}}}));
    let mut client = legacy_client(demo_server(limits), "2025-11-25").await;
    let ok = client
        .result(
            json!(1),
            "tools/call",
            Some(call("sum", json!({"values": [1, 2, 3, 4]}))),
        )
        .await;
    assert_eq!(ok["structuredContent"]["data"]["sum"], 10.0);
    let too_many = client
        .result(
            json!(2),
            "tools/call",
            Some(call("sum", json!({"values": [1, 2, 3, 4, 5]}))),
        )
        .await;
    assert_eq!(tool_error_code(&too_many), "ARRAY_TOO_LARGE");
    assert_eq!(
        too_many["structuredContent"]["error"]["validationErrors"][0]["path"],
        "/values"
    );
}

#[tokio::test]
async fn a_lowered_timeout_gives_tool_timeout_for_async_and_blocking_tools() {
    let limits = limits(json!({
        "timeouts": {"toolTimeouts": {"slow": 50}, "toolOverrides": {"spin": 50}}
    }));
    let mut client = TestClient::start(demo_server(limits));
    for (id, name) in [(1, "sleep"), (2, "spin")] {
        let result = client
            .result(
                json!(id),
                "tools/call",
                Some(modern(call(name, json!({"ms": 600_000})))),
            )
            .await;
        validate::call_tool_result(&result).expect("valid");
        assert_eq!(tool_error_code(&result), "TOOL_TIMEOUT", "{name}");
        let error = &result["structuredContent"]["error"];
        assert_eq!(error["retryable"], true);
        assert_eq!(error["details"]["timeoutMs"], 50);
    }
}

#[tokio::test]
async fn a_big_text_is_truncated_to_the_response_limit() {
    let limits = limits(json!({"response": {"maxResponseBytes": 4096}}));
    let mut client = TestClient::start(demo_server(limits));
    let response = client
        .request(
            json!(1),
            "tools/call",
            Some(modern(call("big", json!({"bytes": 10_000})))),
        )
        .await;
    assert!(
        response.to_string().len() < 4096,
        "the line (with its newline) fits the limit"
    );
    let result = &response["result"];
    let meta = &result["_meta"]["io.typed-mcp/meta"];
    assert_eq!(meta["truncated"], true);
    assert!(meta["originalSizeBytes"].as_u64().unwrap() >= 10_000);
    let kept = result["structuredContent"]["data"].as_str().unwrap();
    assert!(!kept.is_empty() && kept.len() < 10_000);
    assert!("abcdefghijklmnopqrstuvwxyz".repeat(400).starts_with(kept));
}

#[tokio::test]
async fn a_repeated_lookup_is_served_from_the_cache() {
    let server = demo_server(Limits::default());
    let cache = server.cache().expect("lookup is cacheable").clone();
    let mut client = TestClient::start(server);
    let ask = |key: &str| Some(modern(call("lookup", json!({"key": key}))));
    let first = client.result(json!(1), "tools/call", ask("alpha")).await;
    let second = client.result(json!(2), "tools/call", ask("alpha")).await;
    let other = client.result(json!(3), "tools/call", ask("beta")).await;
    let data = |r: &Value| r["structuredContent"]["data"].clone();
    assert_eq!(data(&first)["computations"], 1);
    assert_eq!(data(&second), data(&first), "the cached output");
    assert_eq!(first["_meta"]["io.typed-mcp/meta"]["cached"], false);
    assert_eq!(second["_meta"]["io.typed-mcp/meta"]["cached"], true);
    assert_eq!(data(&other)["computations"], 2, "another key runs the tool");
    assert_eq!(data(&other)["value"], "ateb");
    assert_eq!(cache.stats().hits, 1);
}

#[tokio::test]
async fn progress_notifications_precede_the_response_when_a_token_is_given() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    let mut params = call("sleep", json!({"ms": 1}));
    params["_meta"] = json!({"progressToken": "tok-1"});
    let result = client.result(json!(1), "tools/call", Some(params)).await;
    assert_eq!(result["isError"], false);
    assert_eq!(client.notifications.len(), 2, "{:?}", client.notifications);
    for notification in &client.notifications {
        validate::progress_notification(notification).expect("a valid progress notification");
        assert_eq!(notification["params"]["progressToken"], "tok-1");
    }
    assert_eq!(client.notifications[1]["params"]["progress"], 1.0);

    // The modern era carries the token in the per-request `_meta` too.
    let mut modern_client = TestClient::start(demo_server(Limits::default()));
    let mut params = modern(call("sleep", json!({"ms": 1})));
    params["_meta"]["progressToken"] = json!(42);
    modern_client
        .result(json!(1), "tools/call", Some(params))
        .await;
    assert_eq!(modern_client.notifications.len(), 2);
    assert_eq!(
        modern_client.notifications[0]["params"]["progressToken"],
        42
    );

    // Without a token, no progress.
    client.notifications.clear();
    client
        .result(
            json!(2),
            "tools/call",
            Some(call("sleep", json!({"ms": 1}))),
        )
        .await;
    assert!(client.notifications.is_empty());
}

/// A server with one tool, `gate`, whose calls wait until the test opens the gate; `started`
/// counts the calls that began.
fn gated_server() -> (McpServer, Arc<Notify>, Arc<Notify>, Arc<AtomicU64>) {
    let gate = Arc::new(Notify::new());
    let started = Arc::new(Notify::new());
    let runs = Arc::new(AtomicU64::new(0));
    let (g, s, r) = (Arc::clone(&gate), Arc::clone(&started), Arc::clone(&runs));
    let tool = ToolDefinition::new("gate", move |_ctx: ToolContext, args: EchoArguments| {
        let (g, s, r) = (Arc::clone(&g), Arc::clone(&s), Arc::clone(&r));
        async move {
            r.fetch_add(1, Ordering::SeqCst);
            s.notify_one();
            g.notified().await;
            Ok(Value::String(args.text))
        }
    })
    .unwrap()
    .description("Waits for the test, then echoes the text.");
    let server = McpServer::builder("gated", "1").tool(tool).build().unwrap();
    (server, gate, started, runs)
}

#[tokio::test]
async fn a_duplicate_in_flight_id_is_rejected_and_the_first_request_is_unaffected() {
    let (server, gate, started, _) = gated_server();
    let mut client = legacy_client(server, "2025-11-25").await;
    let first = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": call("gate", json!({"text": "first"}))});
    client.send(&first).await;
    started.notified().await;
    let duplicate = client.request(json!(7), "ping", None).await;
    assert_eq!(duplicate["error"]["code"], -32600);
    gate.notify_one();
    let answer = client.response().await;
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["result"]["content"][0]["text"], "first");
    let (rest, report) = client.close().await;
    assert!(rest.is_empty());
    assert_eq!(report.duplicate_ids, 1);
}

#[tokio::test]
async fn a_cancelled_call_is_never_answered() {
    let (server, _gate, started, runs) = gated_server();
    let mut client = legacy_client(server, "2025-11-25").await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": call("gate", json!({"text": "never"}))}))
        .await;
    started.notified().await;
    client
        .notify(
            "notifications/cancelled",
            Some(json!({"requestId": 3, "reason": "test"})),
        )
        .await;
    // The next answer is the ping's: the cancelled call got none.
    let pong = client.request(json!(4), "ping", None).await;
    assert_eq!(pong["result"], json!({}));
    let (rest, report) = client.close().await;
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(report.cancelled_by_client, 1);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_unknown_tool_is_invalid_params() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    let error = client
        .error(json!(1), "tools/call", Some(call("nope", json!({}))))
        .await;
    assert_eq!(error["code"], -32602);
    assert_eq!(violation_paths(&error), ["/name"]);
    assert!(
        !error["message"].as_str().unwrap().contains("nope"),
        "no echo of input"
    );
}

/// Notifies when dropped: the tool's future holds one, so the test sees it stopped.
struct DropSignal(Arc<Notify>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

#[tokio::test]
async fn a_cancelled_call_stops_its_handler_while_it_waits() {
    let started = Arc::new(Notify::new());
    let dropped = Arc::new(Notify::new());
    let (s, d) = (Arc::clone(&started), Arc::clone(&dropped));
    let tool = ToolDefinition::new("forever", move |_ctx: ToolContext, _args: EchoArguments| {
        let signal = DropSignal(Arc::clone(&d));
        let s = Arc::clone(&s);
        async move {
            let _signal = signal;
            s.notify_one();
            std::future::pending::<()>().await;
            Ok(Value::Null)
        }
    })
    .unwrap()
    .description("Waits until stopped.");
    let server = McpServer::builder("forever", "1")
        .tool(tool)
        .build()
        .unwrap();
    let mut client = legacy_client(server, "2025-11-25").await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                      "params": call("forever", json!({"text": "x"}))}))
        .await;
    started.notified().await;
    client
        .notify(
            "notifications/cancelled",
            Some(json!({"requestId": 5, "reason": "test"})),
        )
        .await;
    // A hang guard, not a timing check: the handler's future is dropped once the cancel is
    // read, long before this.
    tokio::time::timeout(std::time::Duration::from_secs(30), dropped.notified())
        .await
        .expect("the cancelled handler's future is dropped");
    let pong = client.request(json!(6), "ping", None).await;
    assert_eq!(pong["result"], json!({}));
    let (rest, report) = client.close().await;
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(report.cancelled_by_client, 1);
}
