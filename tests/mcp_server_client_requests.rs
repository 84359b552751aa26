//! Requests a tool sends to the client (`ToolContext::sample` / `elicit` / `roots`) in the
//! 2025 versions, over stdio: the request goes out on the connection, the client's answer
//! resumes the tool; a refusal, a missing capability and the 2026-07-28 era are errors the
//! tool sees.

mod mcp_server_support;

use mcp_server_support::demo::arguments::EchoArguments;
use mcp_server_support::{call, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::mcp::{ArgumentSchema, McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

/// `ask` samples the client's model with its text and returns the answer's text.
fn server() -> McpServer {
    let file = include_str!("../examples/demo_server/tools.json");
    let ask = ToolDefinition::from_async(
        "ask",
        "Asks the client's model.",
        ArgumentSchema::from_defs(file, "EchoArguments").unwrap(),
        |ctx: ToolContext, args: EchoArguments| async move {
            let answer = ctx
                .sample(json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": args.text}}],
                    "maxTokens": 10
                }))
                .await
                .map_err(|error| ToolCallError::failed(error.to_string()))?;
            Ok(answer["content"]["text"].clone())
        },
    )
    .unwrap();
    McpServer::builder("asker", "1").tool(ask).build().unwrap()
}

async fn initialized(capabilities: Value) -> TestClient {
    let mut client = TestClient::start(server());
    let init = client
        .result(
            json!(0),
            "initialize",
            Some(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": "c", "version": "1"}
            })),
        )
        .await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    client.notify("notifications/initialized", None).await;
    client
}

#[tokio::test]
async fn a_tool_samples_the_clients_model_and_gets_its_answer() {
    let mut client = initialized(json!({"sampling": {}})).await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call("ask", json!({"text": "2+2?"}))}))
        .await;
    let request = client.next().await.expect("the server's request");
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(request["params"]["messages"][0]["content"]["text"], "2+2?");
    let id = request["id"].clone();
    assert!(id.is_string() || id.is_number());
    // A response to nothing we asked is ignored; then the real answer.
    client
        .send(&json!({"jsonrpc": "2.0", "id": "unknown", "result": {}}))
        .await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": id, "result": {
            "role": "assistant", "content": {"type": "text", "text": "four"}, "model": "m"
        }}))
        .await;
    let result = client.response().await;
    assert_eq!(result["id"], 1);
    assert_eq!(result["result"]["content"][0]["text"], "four");
}

#[tokio::test]
async fn a_refusal_or_a_missing_capability_is_an_error_the_tool_reports() {
    let mut client = initialized(json!({"sampling": {}})).await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call("ask", json!({"text": "x"}))}))
        .await;
    let request = client.next().await.expect("the server's request");
    client
        .send(&json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -1, "message": "user declined"}}))
        .await;
    let result = client.response().await;
    assert_eq!(result["result"]["isError"], true);
    assert!(result["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("refused"));

    let mut without = initialized(json!({})).await;
    let result = without
        .result(
            json!(2),
            "tools/call",
            Some(call("ask", json!({"text": "x"}))),
        )
        .await;
    assert_eq!(result["isError"], true);
    assert!(result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("sampling capability"));
}

#[tokio::test]
async fn the_2026_era_has_no_requests_to_the_client_yet() {
    let mut client = TestClient::start(server());
    let mut params = modern(call("ask", json!({"text": "x"})));
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"sampling": {}});
    let result = client.result(json!(1), "tools/call", Some(params)).await;
    assert_eq!(result["isError"], true);
    assert!(result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("not available"));
}
