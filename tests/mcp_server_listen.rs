//! `subscriptions/listen` (2026-07-28) on stdio: the acknowledgement first, only what was
//! asked for and is offered, every notification tagged with its subscription id, several
//! streams on one connection, cancellation, and the graceful end when the input closes
//! (HTTP: `http_lists.rs`).

mod mcp_server_support;

use std::time::Duration;

use mcp_server_support::{demo_server, legacy_client, limits, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::mcp::{McpServer, PromptDefinition};

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

fn listen_request(id: Value, notifications: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": modern(json!({ "notifications": notifications }))})
}

/// Opens a listen stream; returns its acknowledgement's params.
async fn open(client: &mut TestClient, id: Value, notifications: Value) -> Value {
    client
        .send(&listen_request(id.clone(), notifications))
        .await;
    let ack = client.next().await.expect("the acknowledgement");
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], id);
    ack["params"].clone()
}

/// Everything the server sent before the answer to a fresh request (notifications are
/// queued in order, so whatever was sent before the request is among them).
async fn sent_so_far(client: &mut TestClient, id: u64) -> Vec<Value> {
    let _list = client
        .result(json!(id), "prompts/list", Some(modern(json!({}))))
        .await;
    client.notifications.drain(..).collect()
}

/// Waits until `uri` has `count` subscribers (registrations end asynchronously).
async fn until_subscribers(server: &McpServer, uri: &str, count: usize) {
    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        while server.notify_resource_updated(uri).await != count {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(
        waited.is_ok(),
        "hang guard: {uri} never had {count} subscribers"
    );
}

#[tokio::test]
async fn discover_declares_subscriptions_and_list_changes() {
    let mut client = TestClient::start(demo_server(limits(json!({}))));
    let discover = client
        .result(json!(1), "server/discover", Some(modern(json!({}))))
        .await;
    let capabilities = &discover["capabilities"];
    assert_eq!(capabilities["resources"]["subscribe"], true);
    assert_eq!(capabilities["resources"]["listChanged"], true);
    assert_eq!(capabilities["tools"]["listChanged"], true);
    assert_eq!(capabilities["prompts"]["listChanged"], true);
}

#[tokio::test]
async fn a_stream_carries_what_it_asked_for_tagged_with_its_id() {
    let server = demo_server(limits(json!({})));
    let mut client = TestClient::start(server.clone());
    let ack = open(
        &mut client,
        json!("listen-1"),
        json!({"toolsListChanged": true, "promptsListChanged": false,
               "resourceSubscriptions": ["demo://readme", "demo://unknown"]}),
    )
    .await;
    assert_eq!(
        ack["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["demo://readme"]})
    );
    assert!(server.remove_tool("echo").await);
    assert!(
        server.remove_prompt("greet").await,
        "not asked for: not sent"
    );
    assert_eq!(server.notify_resource_updated("demo://readme").await, 1);
    let sent = sent_so_far(&mut client, 2).await;
    assert_eq!(
        sent,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                   "params": {"_meta": {SUBSCRIPTION_ID: "listen-1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                   "params": {"uri": "demo://readme", "_meta": {SUBSCRIPTION_ID: "listen-1"}}}),
        ]
    );
}

#[tokio::test]
async fn streams_of_one_connection_are_told_apart_and_end_on_cancel() {
    let server = demo_server(limits(json!({})));
    let mut client = TestClient::start(server.clone());
    let _ack = open(&mut client, json!(10), json!({"promptsListChanged": true})).await;
    let _ack = open(
        &mut client,
        json!(11),
        json!({"promptsListChanged": true, "resourceSubscriptions": ["demo://readme"]}),
    )
    .await;
    let farewell = PromptDefinition::new("farewell", "Says goodbye.", |_args| Ok(Vec::new()));
    server.add_prompt(farewell).await.expect("added");
    let sent = sent_so_far(&mut client, 1).await;
    let mut tags: Vec<Value> = sent
        .iter()
        .map(|n| {
            assert_eq!(n["method"], "notifications/prompts/list_changed");
            n["params"]["_meta"][SUBSCRIPTION_ID].clone()
        })
        .collect();
    tags.sort_by_key(Value::to_string);
    assert_eq!(tags, [json!(10), json!(11)]);

    client
        .notify("notifications/cancelled", Some(json!({"requestId": 11})))
        .await;
    until_subscribers(&server, "demo://readme", 0).await;
    assert!(server.remove_prompt("farewell").await);
    let sent = sent_so_far(&mut client, 2).await;
    let after: Vec<&Value> = sent
        .iter()
        .filter(|n| n["method"] == "notifications/prompts/list_changed")
        .collect();
    assert_eq!(after.len(), 1, "{sent:?}");
    assert_eq!(after[0]["params"]["_meta"][SUBSCRIPTION_ID], 10);

    // The input closes: the open stream is answered, the cancelled one is not.
    let (rest, _report) = client.close().await;
    let answers: Vec<&Value> = rest.iter().filter(|m| m.get("id").is_some()).collect();
    assert_eq!(answers.len(), 1, "{rest:?}");
    assert_eq!(answers[0]["id"], 10);
    assert_eq!(answers[0]["result"]["resultType"], "complete");
    assert_eq!(answers[0]["result"]["_meta"][SUBSCRIPTION_ID], 10);
    assert_eq!(
        answers[0]["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "typed-mcp-demo"
    );
}

#[tokio::test]
async fn bad_listen_requests_are_refused() {
    let mut client = TestClient::start(demo_server(limits(json!({}))));
    let missing = client
        .error(json!(1), "subscriptions/listen", Some(modern(json!({}))))
        .await;
    assert_eq!(missing["code"], -32602);
    let mut legacy = legacy_client(demo_server(limits(json!({}))), "2025-11-25").await;
    let unknown = legacy
        .error(
            json!(2),
            "subscriptions/listen",
            Some(json!({"notifications": {"toolsListChanged": true}})),
        )
        .await;
    assert_eq!(unknown["code"], -32601, "a 2026-07-28 method only");
}
