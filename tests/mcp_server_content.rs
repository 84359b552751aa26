//! Tool results made of content blocks (`ToolDefinition::returns_content`): the blocks are
//! the result's `content`, the envelope stays in `structuredContent`; invalid blocks are the
//! tool's fault, over-large ones are refused whole; both eras.

mod mcp_server_support;

use mcp_server_support::demo::arguments::EchoArguments;
use mcp_server_support::{call, legacy_client, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::generated::limits::Limits;
use typed_mcp::generated::protocol::validate;
use typed_mcp::mcp::{content, McpServer, ToolDefinition};
use typed_mcp::tools::ToolContext;

/// `show` returns what its `text` names: a picture, junk, or a big text block.
fn server(limits: Limits) -> McpServer {
    let show = ToolDefinition::new(
        "show",
        |_ctx: ToolContext, args: EchoArguments| async move {
            Ok(match args.text.as_str() {
                "picture" => content::blocks([
                    content::text("a dot"),
                    content::image("iVBORw0KGgo=", "image/png"),
                    content::audio("UklGRg==", "audio/wav"),
                    content::embedded_text("test://e", "text/plain", "inside"),
                    content::resource_link("test://l", "link"),
                ]),
                "junk" => json!([{"type": "image"}]),
                "not a list" => json!({"type": "text", "text": "x"}),
                _ => content::blocks([content::text("y".repeat(8_000))]),
            })
        },
    )
    .unwrap()
    .description("Returns content blocks.")
    .returns_content();
    McpServer::builder("content", "1")
        .tool(show)
        .limits(limits)
        .build()
        .unwrap()
}

fn limits(json: Value) -> Limits {
    typed_mcp::config::limits_from_value(&json).unwrap()
}

#[tokio::test]
async fn content_blocks_are_the_result_content_in_both_eras() {
    let mut client = TestClient::start(server(Limits::default()));
    let result = client
        .result(
            json!(1),
            "tools/call",
            Some(modern(call("show", json!({"text": "picture"})))),
        )
        .await;
    validate::call_tool_result(&result).expect("a valid CallToolResult");
    let kinds: Vec<&str> = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["text", "image", "audio", "resource", "resource_link"]
    );
    assert_eq!(result["isError"], false);
    assert_eq!(result["structuredContent"]["ok"], true);
    assert_eq!(result["structuredContent"]["data"], Value::Null);
    assert!(result["structuredContent"]["meta"]["durationMs"].is_u64());

    let mut legacy = legacy_client(server(Limits::default()), "2025-11-25").await;
    let result = legacy
        .result(
            json!(2),
            "tools/call",
            Some(call("show", json!({"text": "picture"}))),
        )
        .await;
    validate::legacy_call_tool_result(&result).expect("a valid legacy CallToolResult");
    assert!(result.get("resultType").is_none());
    assert_eq!(result["content"][1]["mimeType"], "image/png");
}

#[tokio::test]
async fn invalid_blocks_are_an_internal_error_and_large_ones_are_refused_whole() {
    let mut client = legacy_client(
        server(limits(json!({"response": {"maxResponseBytes": 4096}}))),
        "2025-11-25",
    )
    .await;
    for text in ["junk", "not a list"] {
        let result = client
            .result(
                json!(1),
                "tools/call",
                Some(call("show", json!({"text": text}))),
            )
            .await;
        assert_eq!(result["isError"], true, "{text}");
        assert_eq!(
            result["structuredContent"]["error"]["code"], "INTERNAL",
            "{text}"
        );
    }
    let result = client
        .result(
            json!(2),
            "tools/call",
            Some(call("show", json!({"text": "big"}))),
        )
        .await;
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["structuredContent"]["error"]["code"],
        "RESPONSE_TOO_LARGE"
    );
}
