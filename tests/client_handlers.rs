//! The application's handler: the server's own requests (roots, sampling, elicitation) are
//! answered through it, its answers checked by the generated validators before they leave,
//! notifications reach it, and a 2026-07-28 `input_required` result is fulfilled through it
//! and the request retried with `inputResponses` and the echoed `requestState`.

mod client_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use typed_mcp::client::{ClientHandler, ClientOptions, HandlerFuture, VersionChoice};

use client_support::fake::{connect_with, tool_result};

/// Answers roots, elicitation (with the form's defaults) and a broken sampling; records
/// notifications.
#[derive(Default)]
struct Recorder {
    notifications: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Recorder {
    fn list_roots(&self, _params: Value) -> HandlerFuture {
        Box::pin(async { Ok(json!({"roots": [{"uri": "file:///work", "name": "work"}]})) })
    }

    fn elicit(&self, params: Value) -> HandlerFuture {
        Box::pin(async move {
            let mut content = serde_json::Map::new();
            if let Some(fields) = params["requestedSchema"]["properties"].as_object() {
                for (name, field) in fields {
                    if let Some(default) = field.get("default") {
                        content.insert(name.clone(), default.clone());
                    }
                }
            }
            Ok(json!({"action": "accept", "content": content}))
        })
    }

    fn create_message(&self, _params: Value) -> HandlerFuture {
        // Missing `model`: must never reach the server.
        Box::pin(async {
            Ok(json!({"role": "assistant", "content": {"type": "text", "text": "hi"}}))
        })
    }

    fn notification(&self, method: &str, _params: Value) {
        if let Ok(mut seen) = self.notifications.lock() {
            seen.push(method.to_owned());
        }
    }
}

fn options(handler: Recorder) -> ClientOptions {
    ClientOptions::new("handler-test", "1")
        .version(VersionChoice::parse("2026-07-28").expect("known"))
        .capabilities(json!({"roots": {}, "elicitation": {"form": {}}, "sampling": {}}))
        .request_timeout(Duration::from_secs(5))
        .handler(handler)
}

#[tokio::test]
async fn server_requests_are_answered_through_the_handler_and_checked() {
    let recorder = Recorder::default();
    let seen = Arc::clone(&recorder.notifications);
    let (_client, mut fake) = connect_with(options(recorder)).await;
    fake.send(r#"{"jsonrpc":"2.0","id":"r1","method":"roots/list"}"#)
        .await;
    let roots = fake.next().await;
    assert_eq!(roots["id"], "r1");
    assert_eq!(roots["result"]["roots"][0]["uri"], "file:///work");

    let elicit = json!({"jsonrpc": "2.0", "id": 2, "method": "elicitation/create", "params": {
        "message": "Who?", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "Ada"}, "age": {"type": "integer", "default": 36}}}}});
    fake.send(&elicit.to_string()).await;
    let answer = fake.next().await;
    assert_eq!(
        answer["result"],
        json!({"action": "accept", "content": {"name": "Ada", "age": 36}})
    );

    let sample = json!({"jsonrpc": "2.0", "id": 3, "method": "sampling/createMessage",
        "params": {"messages": [], "maxTokens": 5}});
    fake.send(&sample.to_string()).await;
    let refused = fake.next().await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(refused.get("result").is_none());

    fake.send(r#"{"jsonrpc":"2.0","id":4,"method":"tasks/list"}"#)
        .await;
    assert_eq!(fake.next().await["error"]["code"], -32601);

    fake.send(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#)
        .await;
    fake.send(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#)
        .await;
    assert_eq!(fake.next().await["id"], 5);
    let seen = seen.lock().expect("not poisoned").clone();
    assert_eq!(seen, ["notifications/tools/list_changed"]);
}

#[tokio::test]
async fn input_required_rounds_are_fulfilled_and_retried_with_new_ids() {
    let (client, mut fake) = connect_with(options(Recorder::default())).await;
    let call = {
        let client = client.clone();
        tokio::spawn(async move { client.call_tool("book", json!({"room": 1})).await })
    };
    let first = fake.request("tools/call").await;
    let asks = json!({"resultType": "input_required", "requestState": "opaque-1",
        "inputRequests": {
            "who": {"method": "elicitation/create", "params": {"message": "Name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}}}},
            "where": {"method": "roots/list", "params": {}}}});
    fake.answer(&first["id"], asks).await;

    let second = fake.request("tools/call").await;
    assert_ne!(second["id"], first["id"], "a retry has a new id");
    let params = &second["params"];
    assert_eq!(params["arguments"], json!({"room": 1}));
    assert_eq!(params["requestState"], "opaque-1");
    assert_eq!(params["inputResponses"]["who"]["content"]["name"], "Ada");
    assert_eq!(
        params["inputResponses"]["where"]["roots"][0]["uri"],
        "file:///work"
    );
    // A second round without state: the retry carries no stale state.
    let again = json!({"resultType": "input_required",
        "inputRequests": {"r": {"method": "roots/list"}}});
    fake.answer(&second["id"], again).await;
    let third = fake.request("tools/call").await;
    assert!(third["params"].get("requestState").is_none(), "{third}");
    assert!(
        third["params"]["inputResponses"].get("who").is_none(),
        "{third}"
    );
    fake.answer(&third["id"], tool_result("booked")).await;
    let result = call.await.expect("no panic").expect("answered");
    let text = serde_json::to_string(result.content()).expect("serializable");
    assert!(text.contains("booked"), "{text}");
}
