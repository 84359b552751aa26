//! Tools that declare their largest answer (`ToolDefinition::max_answer_bytes`): a burst of
//! calls against a client that stops reading starts only as many as the output budget
//! (`response.maxQueuedBytes`) has room for, and every call is answered once when the client
//! reads again; a result over the declared bound is cut (a text) or refused
//! (`RESPONSE_TOO_LARGE`) as for `maxResponseBytes`, saying so.

mod mcp_server_support;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcp_server_support::demo::arguments::BigArguments;
use mcp_server_support::{call, limits, modern, tool_error_code, TestClient};
use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, Lines};
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

/// A tool answering `bytes` letters (as text, or as `{"text": ...}` when `object`), counting
/// its calls in `calls`, declaring `bound`.
fn letters(name: &str, object: bool, bound: usize, calls: &Arc<AtomicUsize>) -> ToolDefinition {
    undeclared_letters(name, object, calls).max_answer_bytes(bound)
}

/// [`letters`] without a declared bound.
fn undeclared_letters(name: &str, object: bool, calls: &Arc<AtomicUsize>) -> ToolDefinition {
    let calls = Arc::clone(calls);
    ToolDefinition::new(name, move |_ctx: ToolContext, args: BigArguments| {
        let _before = calls.fetch_add(1, Ordering::SeqCst);
        async move {
            let bytes =
                usize::try_from(args.bytes).map_err(|_| ToolCallError::failed("too many bytes"))?;
            let text = "x".repeat(bytes);
            Ok(if object {
                json!({ "text": text })
            } else {
                Value::String(text)
            })
        }
    })
    .expect("the tool builds")
    .description("Answers `bytes` letters.")
}

/// Writes `total` modern `tools/call`s of `tool` asking for `text` letters (ids 0..total).
async fn send_burst<W: AsyncWrite + Unpin>(write: &mut W, tool: &str, total: usize, text: usize) {
    for id in 0..total {
        let request = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": modern(call(tool, json!({"bytes": text}))),
        });
        write
            .write_all(format!("{request}\n").as_bytes())
            .await
            .expect("write");
    }
    write.flush().await.expect("flush");
}

/// Reads `total` lines, each a whole answer of `text` letters, and checks that ids
/// 0..total are each answered once.
async fn read_each_answer_once<R: AsyncBufRead + Unpin>(
    lines: &mut Lines<R>,
    total: usize,
    text: usize,
) {
    let mut answers: BTreeMap<u64, usize> = BTreeMap::new();
    for _ in 0..total {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("answers come once the client reads")
            .expect("read")
            .expect("a line");
        let response: Value = serde_json::from_str(&line).expect("JSON");
        let data = &response["result"]["structuredContent"]["data"];
        assert_eq!(data.as_str().map(str::len), Some(text), "a whole answer");
        *answers
            .entry(response["id"].as_u64().expect("numeric id"))
            .or_default() += 1;
    }
    let expected: BTreeMap<u64, usize> = (0..total as u64).map(|id| (id, 1)).collect();
    assert_eq!(answers, expected, "each call answered once");
}

#[tokio::test]
async fn a_text_over_the_declared_bound_is_cut_and_says_so() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = McpServer::builder("bounds", "1.0.0")
        .tool(letters("capped", false, 2000, &calls))
        .build()
        .expect("builds");
    let mut client = TestClient::start(server);
    let response = client
        .request(
            json!(1),
            "tools/call",
            Some(modern(call("capped", json!({"bytes": 5000})))),
        )
        .await;
    assert!(
        response.to_string().len() < 2000,
        "the line (with its newline) fits the declared bound"
    );
    let result = &response["result"];
    assert_eq!(result["isError"], false);
    let meta = &result["_meta"]["io.typed-mcp/meta"];
    assert_eq!(meta["truncated"], true, "{result}");
    assert_eq!(meta["originalSizeBytes"], 5002, "the JSON string's size");
    let kept = result["structuredContent"]["data"].as_str().expect("text");
    assert!(!kept.is_empty() && kept.len() < 2000);
    // Within the bound nothing changes.
    let result = client
        .result(
            json!(2),
            "tools/call",
            Some(modern(call("capped", json!({"bytes": 500})))),
        )
        .await;
    assert_eq!(result["_meta"]["io.typed-mcp/meta"]["truncated"], false);
    assert_eq!(result["structuredContent"]["data"], "x".repeat(500));
}

#[tokio::test]
async fn structured_output_over_the_declared_bound_is_response_too_large() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = McpServer::builder("bounds", "1.0.0")
        .tool(letters("capped_object", true, 2000, &calls))
        .build()
        .expect("builds");
    let mut client = TestClient::start(server);
    let response = client
        .request(
            json!(1),
            "tools/call",
            Some(modern(call("capped_object", json!({"bytes": 5000})))),
        )
        .await;
    assert!(response.to_string().len() < 2000, "the error fits too");
    let result = &response["result"];
    assert_eq!(tool_error_code(result), "RESPONSE_TOO_LARGE");
    let details = &result["structuredContent"]["error"]["details"];
    assert_eq!(details["maxResponseBytes"], 2000, "the bound is the limit");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

/// The default response limit (1 MiB) still applies to a larger declaration.
#[tokio::test]
async fn a_declaration_above_the_response_limit_changes_nothing_for_the_answer() {
    let calls = Arc::new(AtomicUsize::new(0));
    let limits = limits(json!({"response": {"maxResponseBytes": 4096}}));
    let server = McpServer::builder("bounds", "1.0.0")
        .limits(limits)
        .tool(letters("generous", false, usize::MAX, &calls))
        .build()
        .expect("builds");
    let mut client = TestClient::start(server);
    let response = client
        .request(
            json!(1),
            "tools/call",
            Some(modern(call("generous", json!({"bytes": 10_000})))),
        )
        .await;
    assert!(response.to_string().len() < 4096);
    assert_eq!(
        response["result"]["_meta"]["io.typed-mcp/meta"]["truncated"],
        true
    );
}

/// 40 calls against a client that reads nothing: the budget (256 KiB) has room for four
/// 64 KiB bounds, the 16 KiB transport takes no whole answer, so four run and the rest wait
/// (before any answer existed, the estimate alone would have let all 40 start). Then the
/// client reads: every call is answered once, whole.
#[tokio::test]
async fn a_stalled_client_gets_a_burst_of_bounded_calls_started_within_the_budget() {
    const TOTAL: usize = 40;
    const BOUND: usize = 64 * 1024;
    // The text is in the result twice (`content` and `structuredContent`).
    const TEXT: usize = 30_000;
    let calls = Arc::new(AtomicUsize::new(0));
    let server = McpServer::builder("bounds", "1.0.0")
        .limits(limits(json!({"response": {"maxQueuedBytes": 4 * BOUND}})))
        .tool(letters("chunk", false, BOUND, &calls))
        .build()
        .expect("builds");
    let (client_end, server_end) = tokio::io::duplex(16 * 1024);
    let serving = tokio::spawn(async move { server.serve_stream(server_end).await });
    let (read, mut write) = tokio::io::split(client_end);
    send_burst(&mut write, "chunk", TOTAL, TEXT).await;
    // The server does all it can without the client reading.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = calls.load(Ordering::SeqCst);
    assert!(
        (1..=4).contains(&started),
        "{started} of {TOTAL} calls started while the client read nothing"
    );
    let mut lines = BufReader::new(read).lines();
    read_each_answer_once(&mut lines, TOTAL, TEXT).await;
    write.shutdown().await.expect("close the input");
    assert!(
        tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the output ends")
            .expect("read")
            .is_none(),
        "nothing more"
    );
    let report = serving
        .await
        .expect("the server task ended")
        .expect("the server ran");
    assert_eq!(report.requests_answered, TOTAL as u64);
    assert_eq!(calls.load(Ordering::SeqCst), TOTAL);
}

/// A bounded tool added while serving, to a server that had none: the burst against a
/// stalled client is held to the budget as for a tool declared at build time (the check is
/// switched on by the change, not only at build).
#[tokio::test]
async fn a_bounded_tool_added_while_serving_is_held_to_the_budget() {
    const TOTAL: usize = 24;
    const BOUND: usize = 64 * 1024;
    const TEXT: usize = 30_000;
    let calls = Arc::new(AtomicUsize::new(0));
    let unbounded = Arc::new(AtomicUsize::new(0));
    let server = McpServer::builder("bounds-added", "1.0.0")
        .limits(limits(json!({"response": {"maxQueuedBytes": 4 * BOUND}})))
        .tool(undeclared_letters("plain", false, &unbounded))
        .build()
        .expect("builds");
    let serving_server = server.clone();
    let (client_end, server_end) = tokio::io::duplex(16 * 1024);
    let serving = tokio::spawn(async move { serving_server.serve_stream(server_end).await });
    // Added once the server serves.
    tokio::time::sleep(Duration::from_millis(50)).await;
    server
        .add_tool(letters("chunk", false, BOUND, &calls))
        .await
        .expect("added");
    let (read, mut write) = tokio::io::split(client_end);
    send_burst(&mut write, "chunk", TOTAL, TEXT).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = calls.load(Ordering::SeqCst);
    assert!(
        (1..=4).contains(&started),
        "{started} of {TOTAL} calls of the added tool started while the client read nothing"
    );
    let mut lines = BufReader::new(read).lines();
    read_each_answer_once(&mut lines, TOTAL, TEXT).await;
    write.shutdown().await.expect("close the input");
    drop(lines);
    let report = serving
        .await
        .expect("the server task ended")
        .expect("the server ran");
    assert_eq!(report.requests_answered, TOTAL as u64);
    assert_eq!(calls.load(Ordering::SeqCst), TOTAL);
}
