//! URL-mode elicitation (`ToolContext::elicit_url` / `PromptContext::elicit_url`) over stdio,
//! in both eras: the exact `elicitation/create` request of 2025-11-25 and the resumed tool,
//! the `input_required` entry of 2026-07-28 and the resumed retry,
//! `notifications/elicitation/complete` (2025-11-25 only), and the client
//! capability `elicitation.url` (the handler is told, or the call is refused with `-32021`
//! when the tool requires it).

mod mcp_server_support;

use mcp_server_support::demo::arguments::EchoArguments;
use mcp_server_support::{call, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::mcp::ToolDefinition;
use typed_mcp::mcp::{user_text, McpServer, PromptDefinition, PromptError};
use typed_mcp::tools::{ToolCallError, ToolContext, UrlElicitation};

/// The elicitation `connect` asks for `service`.
fn connect_request(service: &str) -> UrlElicitation {
    UrlElicitation::new(
        format!("connect-{service}"),
        format!("Sign in to {service}"),
        format!("https://example.com/connect/{service}"),
    )
}

/// `connect` asks the user to sign in (URL mode) and reports their action; `connect_strict`
/// does the same but requires `elicitation.url`; `ask_form` asks a form; the prompt
/// `connected` asks like `connect`.
fn server() -> McpServer {
    let connect = |name: &str| {
        ToolDefinition::new(name, |ctx: ToolContext, args: EchoArguments| async move {
            let answer = ctx
                .elicit_url(&connect_request(&args.text))
                .await
                .map_err(|error| ToolCallError::failed(error.to_string()))?;
            Ok(Value::from(format!("action={}", answer.action)))
        })
        .unwrap()
        .description("Asks the user to sign in to a service.")
    };
    let complete = ToolDefinition::new(
        "connect_complete",
        |ctx: ToolContext, args: EchoArguments| async move {
            let request = connect_request(&args.text);
            let answer = ctx
                .elicit_url(&request)
                .await
                .map_err(|error| ToolCallError::failed(error.to_string()))?;
            let sent = ctx.elicitation_complete(&request.elicitation_id).await;
            Ok(Value::from(format!(
                "action={}, notified={sent}",
                answer.action
            )))
        },
    )
    .unwrap()
    .description("Asks the user to sign in, then says the sign-in is done.");
    let ask_form = ToolDefinition::new(
        "ask_form",
        |ctx: ToolContext, args: EchoArguments| async move {
            let answer = ctx
                .elicit(json!({
                    "message": args.text,
                    "requestedSchema": {"type": "object", "properties": {"x": {"type": "string"}}}
                }))
                .await
                .map_err(|error| ToolCallError::failed(error.to_string()))?;
            Ok(answer["action"].clone())
        },
    )
    .unwrap()
    .description("Asks the user a form.");
    let prompt = PromptDefinition::asking(
        "connected",
        "Asks the user to sign in before rendering.",
        |ctx, _args| async move {
            let answer = ctx
                .elicit_url(&connect_request("mail"))
                .await
                .map_err(|error| PromptError::Failed(error.to_string()))?;
            Ok(vec![user_text(format!("signed in: {}", answer.action))])
        },
    );
    McpServer::builder("url-elicitation", "1")
        .tool(connect("connect"))
        .tool(connect("connect_strict").requires_client_capability("elicitation.url"))
        .tool(complete)
        .tool(ask_form)
        .prompt(prompt)
        .build()
        .unwrap()
}

async fn initialized(capabilities: Value) -> TestClient {
    let (client, init) =
        mcp_server_support::initialized_with(server(), "2025-11-25", capabilities).await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    client
}

/// Sends `request` and returns the server's request to the client that it causes.
async fn server_request(client: &mut TestClient, request: Value) -> Value {
    client.send(&request).await;
    client.next().await.expect("the server's request")
}

fn error_text(result: &Value) -> &str {
    assert_eq!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn in_2025_11_25_a_url_elicitation_is_a_request_and_its_answer_resumes_the_tool() {
    let mut client = initialized(json!({"elicitation": {"url": {}}})).await;
    let request = server_request(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call("connect", json!({"text": "github"}))}),
    )
    .await;
    let id = request["id"].clone();
    assert_eq!(
        request,
        json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
            "mode": "url",
            "message": "Sign in to github",
            "url": "https://example.com/connect/github",
            "elicitationId": "connect-github"
        }})
    );
    client
        .send(&json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept"}}))
        .await;
    let response = client.response().await;
    assert_eq!(response["id"], 1);
    assert_eq!(response["result"]["isError"], false);
    assert_eq!(response["result"]["content"][0]["text"], "action=accept");

    // An answer that is not an ElicitResult is malformed.
    let request = server_request(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call("connect", json!({"text": "x"}))}),
    )
    .await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "maybe"}}))
        .await;
    let response = client.response().await;
    assert!(error_text(&response["result"]).contains("malformed"));

    // A URL that is not absolute is never sent.
    let result = client
        .result(
            json!(3),
            "tools/call",
            Some(call("connect", json!({"text": "two words"}))),
        )
        .await;
    assert!(error_text(&result).contains("absolute URI"));

    // After the answer the tool says the out-of-band step is done.
    let request = server_request(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": call("connect_complete", json!({"text": "gitlab"}))}),
    )
    .await;
    assert_eq!(request["params"]["elicitationId"], "connect-gitlab");
    client
        .send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept"}}))
        .await;
    assert_eq!(
        client.next().await.expect("the notification"),
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
               "params": {"elicitationId": "connect-gitlab"}})
    );
    let response = client.response().await;
    assert_eq!(
        response["result"]["content"][0]["text"],
        "action=accept, notified=true"
    );

    // A prompt asks the same way.
    let request = server_request(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {"name": "connected"}}),
    )
    .await;
    assert_eq!(request["params"]["elicitationId"], "connect-mail");
    client
        .send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "cancel"}}))
        .await;
    let response = client.response().await;
    assert_eq!(
        response["result"]["messages"][0]["content"]["text"],
        "signed in: cancel"
    );
}

#[tokio::test]
async fn in_2025_11_25_a_client_without_elicitation_url_is_refused_and_nothing_is_sent() {
    // Form only (`elicitation: {}` is form only by the 2025-11-25 rule).
    for capabilities in [
        json!({"elicitation": {}}),
        json!({"elicitation": {"form": {}}}),
    ] {
        let mut client = initialized(capabilities).await;
        let error = client
            .error(
                json!(1),
                "tools/call",
                Some(call("connect_strict", json!({"text": "github"}))),
            )
            .await;
        assert_eq!(error["code"], -32021);
        assert_eq!(
            error["data"]["requiredCapabilities"],
            json!({"elicitation": {"url": {}}})
        );
        // The handler is told; `result` fails if a request reached the client first.
        let result = client
            .result(
                json!(2),
                "tools/call",
                Some(call("connect", json!({"text": "github"}))),
            )
            .await;
        assert!(error_text(&result).contains("elicitation.url capability"));
        // Form mode still goes out.
        let request = server_request(
            &mut client,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call("ask_form", json!({"text": "x?"}))}),
        )
        .await;
        assert_eq!(request["method"], "elicitation/create");
        assert_eq!(request["params"]["message"], "x?");
    }

    // URL only: form mode is what the client cannot answer; URL mode goes out.
    let mut client = initialized(json!({"elicitation": {"url": {}}})).await;
    let result = client
        .result(
            json!(1),
            "tools/call",
            Some(call("ask_form", json!({"text": "x?"}))),
        )
        .await;
    assert!(error_text(&result).contains("elicitation.form capability"));
    let request = server_request(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call("connect_strict", json!({"text": "a"}))}),
    )
    .await;
    assert_eq!(request["params"]["mode"], "url");

    // No elicitation at all.
    let mut client = initialized(json!({})).await;
    let error = client
        .error(
            json!(1),
            "tools/call",
            Some(call("connect_strict", json!({"text": "a"}))),
        )
        .await;
    assert_eq!(error["code"], -32021);
    let result = client
        .result(
            json!(2),
            "tools/call",
            Some(call("connect", json!({"text": "a"}))),
        )
        .await;
    assert!(error_text(&result).contains("elicitation.url capability"));
}

/// 2026-07-28 params declaring `capabilities`.
fn modern_with(extra: Value, capabilities: Value) -> Value {
    let mut params = modern(extra);
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    params
}

#[tokio::test]
async fn in_2026_a_url_elicitation_is_an_input_request_keyed_by_its_id_and_the_retry_resumes() {
    let mut client = TestClient::start(server());
    let mut params = modern_with(
        call("connect", json!({"text": "github"})),
        json!({"elicitation": {"url": {}}}),
    );
    let first = client
        .result(json!(1), "tools/call", Some(params.clone()))
        .await;
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"],
        json!({"connect-github": {"method": "elicitation/create", "params": {
            "mode": "url",
            "message": "Sign in to github",
            "url": "https://example.com/connect/github"
        }}})
    );
    params["requestState"] = first["requestState"].clone();
    params["inputResponses"] = json!({"connect-github": {"action": "decline"}});
    let done = client
        .result(json!(2), "tools/call", Some(params.clone()))
        .await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["isError"], false);
    assert_eq!(done["content"][0]["text"], "action=decline");

    // No completion notification in 2026-07-28: the handler is told nothing was sent.
    let mut done_params = modern_with(
        call("connect_complete", json!({"text": "github"})),
        json!({"elicitation": {"url": {}}}),
    );
    let first = client
        .result(json!(6), "tools/call", Some(done_params.clone()))
        .await;
    done_params["requestState"] = first["requestState"].clone();
    done_params["inputResponses"] = json!({"connect-github": {"action": "accept"}});
    let done = client
        .result(json!(7), "tools/call", Some(done_params))
        .await;
    assert_eq!(done["content"][0]["text"], "action=accept, notified=false");
    assert!(
        client.notifications.is_empty(),
        "{:?}",
        client.notifications
    );

    // An answer that is not an ElicitResult is malformed.
    params["inputResponses"] = json!({"connect-github": {"content": {}}});
    let bad = client.result(json!(3), "tools/call", Some(params)).await;
    assert!(error_text(&bad).contains("malformed"));

    // A prompt: the same entry, then the rendered messages.
    let mut params = modern_with(
        json!({"name": "connected"}),
        json!({"elicitation": {"url": {}}}),
    );
    let first = client
        .result(json!(4), "prompts/get", Some(params.clone()))
        .await;
    assert_eq!(
        first["inputRequests"]["connect-mail"]["params"]["url"],
        "https://example.com/connect/mail"
    );
    params["requestState"] = first["requestState"].clone();
    params["inputResponses"] = json!({"connect-mail": {"action": "accept"}});
    let done = client.result(json!(5), "prompts/get", Some(params)).await;
    assert_eq!(done["messages"][0]["content"]["text"], "signed in: accept");
}

#[tokio::test]
async fn in_2026_a_client_without_elicitation_url_is_refused_and_nothing_is_asked() {
    let mut client = TestClient::start(server());
    for capabilities in [
        json!({}),
        json!({"elicitation": {}}),
        json!({"elicitation": {"form": {}}}),
    ] {
        let strict = modern_with(
            call("connect_strict", json!({"text": "a"})),
            capabilities.clone(),
        );
        let error = client.error(json!(1), "tools/call", Some(strict)).await;
        assert_eq!(error["code"], -32021);
        assert_eq!(
            error["data"]["requiredCapabilities"],
            json!({"elicitation": {"url": {}}})
        );
        let params = modern_with(call("connect", json!({"text": "a"})), capabilities);
        let result = client.result(json!(2), "tools/call", Some(params)).await;
        assert_eq!(result["resultType"], "complete");
        assert!(error_text(&result).contains("capability"));
        assert!(result.get("inputRequests").is_none());
    }
}
