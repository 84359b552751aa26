//! Tools with a verbatim argument schema (`VerbatimSchema`), served over the stdio framing
//! (an in-memory duplex) in both eras: `tools/list` publishes the schema exactly as written
//! and every call is checked against that same schema before the handler runs.

mod mcp_server_support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use mcp_server_support::{call, legacy_client, modern, tool_error_code, TestClient};
use serde_json::{json, Value};
use typed_mcp::mcp::{McpServer, ToolDefinition, VerbatimSchema};
use typed_mcp::tools::ToolContext;

/// The conformance fixture's JSON Schema 2020-12 tool schema: `$defs` + `$ref`, `$anchor`,
/// `allOf` / `anyOf`, `if` / `then` / `else`, `additionalProperties: false`.
const SCHEMA: &str = include_str!("../examples/conformance_server/json_schema_2020_12_tool.json");

/// A server with the `contact` tool, counting its handler's runs in `runs`.
fn server(runs: &Arc<AtomicU64>) -> McpServer {
    let runs = Arc::clone(runs);
    let tool = ToolDefinition::new("contact", move |_ctx: ToolContext, args: Value| {
        runs.fetch_add(1, Ordering::SeqCst);
        async move { Ok(json!({ "name": args["name"] })) }
    })
    .expect("the tool registers")
    .description("Accepts a contact.")
    .input_schema(VerbatimSchema::from_json_text(SCHEMA).expect("the schema compiles"))
    .expect("the schema fits a tool");
    McpServer::builder("verbatim", "1.0.0")
        .tool(tool)
        .build()
        .expect("the server builds")
}

fn published(list: &Value) -> &Value {
    &list["tools"][0]["inputSchema"]
}

#[tokio::test]
async fn tools_list_publishes_the_schema_exactly_as_written_in_both_eras() {
    let written: Value = serde_json::from_str(SCHEMA).unwrap();
    let runs = Arc::new(AtomicU64::new(0));
    let mut legacy = legacy_client(server(&runs), "2025-11-25").await;
    let list = legacy.result(json!(1), "tools/list", None).await;
    assert_eq!(published(&list), &written);

    let mut current = TestClient::start(server(&runs));
    let list = current
        .result(json!(1), "tools/list", Some(modern(json!({}))))
        .await;
    assert_eq!(published(&list), &written);
}

#[tokio::test]
async fn calls_are_checked_against_the_published_schema_before_the_handler_runs() {
    let runs = Arc::new(AtomicU64::new(0));
    let mut client = legacy_client(server(&runs), "2025-11-25").await;
    let accepted = client
        .result(
            json!(1),
            "tools/call",
            Some(call(
                "contact",
                json!({"name": "Ada", "contactMethod": "phone", "phone": "1",
                       "address": {"city": "London"}}),
            )),
        )
        .await;
    assert_eq!(accepted["isError"], false, "{accepted}");
    assert_eq!(accepted["structuredContent"]["data"]["name"], "Ada");
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // `then` (phone required when contactMethod is phone), the `$ref`'d address and
    // `additionalProperties: false` are all enforced.
    let cases = [
        (
            json!({"contactMethod": "phone", "email": "a@b.c"}),
            "required",
        ),
        (json!({"email": "a@b.c", "address": {"city": 7}}), "type"),
        (
            json!({"email": "a@b.c", "secret-extra": "s3cr3t-value"}),
            "additionalProperties",
        ),
        (json!({"name": "no contact at all"}), "required"),
    ];
    for (id, (arguments, keyword)) in (2..).zip(cases) {
        let rejected = client
            .result(json!(id), "tools/call", Some(call("contact", arguments)))
            .await;
        assert_eq!(
            tool_error_code(&rejected),
            "VALIDATION_FAILED",
            "{rejected}"
        );
        let violations = &rejected["structuredContent"]["error"]["validationErrors"];
        let keywords: Vec<&str> = violations
            .as_array()
            .expect("validationErrors")
            .iter()
            .filter_map(|v| v["keyword"].as_str())
            .collect();
        assert!(keywords.contains(&keyword), "{keyword}: {rejected}");
        let text = rejected.to_string();
        assert!(
            !text.contains("s3cr3t-value") && !text.contains("secret-extra"),
            "{text}"
        );
    }
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "a rejected call ran the handler"
    );
}

#[tokio::test]
async fn the_2026_era_checks_the_same_schema() {
    let runs = Arc::new(AtomicU64::new(0));
    let mut client = TestClient::start(server(&runs));
    let rejected = client
        .result(
            json!(1),
            "tools/call",
            Some(modern(call("contact", json!({"contactMethod": "phone"})))),
        )
        .await;
    assert_eq!(
        tool_error_code(&rejected),
        "VALIDATION_FAILED",
        "{rejected}"
    );
    let accepted = client
        .result(
            json!(2),
            "tools/call",
            Some(modern(call("contact", json!({"email": "a@b.c"})))),
        )
        .await;
    assert_eq!(accepted["isError"], false, "{accepted}");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn a_schema_the_runtime_cannot_enforce_is_refused_at_registration() {
    // A reference to another document would not be checked: nothing is fetched.
    let remote = json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/x"}}});
    assert!(VerbatimSchema::from_value(remote).is_err());
    let not_an_object = json!({"type": "string"});
    assert!(VerbatimSchema::from_value(not_an_object).is_err());
}
