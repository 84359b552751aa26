//! Requests a tool sends to the client (`ToolContext::sample` / `elicit` / `roots`) in the
//! 2025 versions, over stdio: the request goes out on the connection, the client's answer
//! resumes the tool; a refusal, a missing capability and the 2026-07-28 era are errors the
//! tool sees.

mod mcp_server_support;

use mcp_server_support::demo::arguments::EchoArguments;
use mcp_server_support::{call, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

/// `ask` samples the client's model with its text and returns the answer's text.
fn server() -> McpServer {
    let ask = ToolDefinition::new("ask", |ctx: ToolContext, args: EchoArguments| async move {
        let answer = ctx
            .sample(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": args.text}}],
                "maxTokens": 10
            }))
            .await
            .map_err(|error| ToolCallError::failed(error.to_string()))?;
        Ok(answer["content"]["text"].clone())
    })
    .unwrap()
    .description("Asks the client's model.");
    McpServer::builder("asker", "1").tool(ask).build().unwrap()
}

async fn initialized(capabilities: Value) -> TestClient {
    let (client, init) =
        mcp_server_support::initialized_with(server(), "2025-11-25", capabilities).await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
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
async fn in_2026_a_question_is_an_input_required_result_and_the_retry_answers_it() {
    let mut client = TestClient::start(server());
    let mut params = modern(call("ask", json!({"text": "2+2?"})));
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"sampling": {}});
    let first = client
        .result(json!(1), "tools/call", Some(params.clone()))
        .await;
    assert_eq!(first["resultType"], "input_required");
    let question = &first["inputRequests"]["sampling-1"];
    assert_eq!(question["method"], "sampling/createMessage");
    assert_eq!(question["params"]["messages"][0]["content"]["text"], "2+2?");
    let state = first["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();

    // The retry with the answer (and the state) completes.
    let answer =
        json!({"role": "assistant", "content": {"type": "text", "text": "four"}, "model": "m"});
    params["inputResponses"] = json!({"sampling-1": answer});
    params["requestState"] = json!(state);
    let done = client
        .result(json!(2), "tools/call", Some(params.clone()))
        .await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["content"][0]["text"], "four");

    // An answer that is not an object is no answer: asked again.
    params["inputResponses"] = json!({"sampling-1": 12345});
    let again = client
        .result(json!(3), "tools/call", Some(params.clone()))
        .await;
    assert_eq!(again["resultType"], "input_required");

    // Altered state is refused, never decoded.
    params["inputResponses"] = json!({"sampling-1": answer});
    params["requestState"] = json!(format!("{state}-TAMPERED"));
    let refused = client
        .error(json!(4), "tools/call", Some(params.clone()))
        .await;
    assert_eq!(refused["code"], -32602);

    // Without the capability the handler is told so and nothing is asked.
    let mut params = modern(call("ask", json!({"text": "x"})));
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let result = client.result(json!(5), "tools/call", Some(params)).await;
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["isError"], true);
    assert!(result["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("sampling capability"));
}
