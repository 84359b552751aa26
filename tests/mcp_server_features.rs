//! Resource templates, completions and logging on stdio, in both eras: the demo server's
//! `demo://greetings/{name}` template, the completers of its `greet` prompt and template,
//! and the log messages of its `sleep` tool.

mod mcp_server_support;

use mcp_server_support::{call, demo_server, legacy_client, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::generated::limits::Limits;
use typed_mcp::generated::protocol::validate;

fn log_messages(client: &TestClient) -> Vec<&Value> {
    client
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .collect()
}

#[tokio::test]
async fn templates_are_listed_and_matching_uris_are_read() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    let list = client
        .result(json!(1), "resources/templates/list", None)
        .await;
    validate::legacy_list_resource_templates_result(&list).expect("valid");
    assert_eq!(
        list["resourceTemplates"][0]["uriTemplate"],
        "demo://greetings/{name}"
    );
    let read = client
        .result(
            json!(2),
            "resources/read",
            Some(json!({"uri": "demo://greetings/Ada%20L"})),
        )
        .await;
    assert_eq!(read["contents"][0]["text"], "Hello, Ada L!");
    assert_eq!(read["contents"][0]["uri"], "demo://greetings/Ada%20L");
    // A fixed resource still wins, and a URI matching nothing is not found.
    let readme = client
        .result(
            json!(3),
            "resources/read",
            Some(json!({"uri": "demo://readme"})),
        )
        .await;
    assert!(readme["contents"][0]["text"].is_string());
    let missing = client
        .error(
            json!(4),
            "resources/read",
            Some(json!({"uri": "demo://greetings/a/b"})),
        )
        .await;
    assert_eq!(missing["code"], -32002);

    let mut modern_client = TestClient::start(demo_server(Limits::default()));
    let list = modern_client
        .result(
            json!(5),
            "resources/templates/list",
            Some(modern(json!({}))),
        )
        .await;
    validate::list_resource_templates_result(&list).expect("valid");
    assert_eq!(list["resourceTemplates"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn prompt_arguments_and_template_variables_are_completed() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-06-18").await;
    let prompt = client
        .result(
            json!(1),
            "completion/complete",
            Some(json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "a"}})),
        )
        .await;
    validate::legacy_complete_result(&prompt).expect("valid");
    assert_eq!(prompt["completion"]["values"], json!(["Ada", "Alan"]));
    assert_eq!(prompt["completion"]["total"], 2);
    assert_eq!(prompt["completion"]["hasMore"], false);
    let template = client
        .result(
            json!(2),
            "completion/complete",
            Some(json!({"ref": {"type": "ref/resource", "uri": "demo://greetings/{name}"}, "argument": {"name": "name", "value": "G"}})),
        )
        .await;
    assert_eq!(template["completion"]["values"], json!(["Grace"]));
    for (params, path) in [
        (
            json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "name", "value": ""}}),
            "/ref/name",
        ),
        (
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "age", "value": ""}}),
            "/argument/name",
        ),
        (
            json!({"ref": {"type": "ref/resource", "uri": "demo://x/{y}"}, "argument": {"name": "y", "value": ""}}),
            "/ref/uri",
        ),
    ] {
        let error = client
            .error(json!(3), "completion/complete", Some(params))
            .await;
        assert_eq!(error["code"], -32602);
        assert_eq!(error["data"]["validationErrors"][0]["path"], path);
    }
    let malformed = client
        .error(
            json!(4),
            "completion/complete",
            Some(json!({"ref": {"type": "ref/other"}, "argument": {"name": "n", "value": ""}})),
        )
        .await;
    assert_eq!(malformed["code"], -32602);

    let mut modern_client = TestClient::start(demo_server(Limits::default()));
    let answer = modern_client
        .result(
            json!(5),
            "completion/complete",
            Some(modern(json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "m"}}))),
        )
        .await;
    validate::complete_result(&answer).expect("valid");
    assert_eq!(answer["completion"]["values"], json!(["Margaret"]));
}

#[tokio::test]
async fn log_messages_are_sent_at_the_level_the_client_set_and_only_then() {
    // No setLevel: nothing is sent.
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    let _result = client
        .result(
            json!(1),
            "tools/call",
            Some(call("sleep", json!({"ms": 1}))),
        )
        .await;
    assert!(log_messages(&client).is_empty());
    // info: the info message, not the debug one; before the result.
    let set = client
        .result(json!(2), "logging/setLevel", Some(json!({"level": "info"})))
        .await;
    assert_eq!(set, json!({}));
    let _result = client
        .result(
            json!(3),
            "tools/call",
            Some(call("sleep", json!({"ms": 1}))),
        )
        .await;
    let messages = log_messages(&client);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["params"]["level"], "info");
    assert_eq!(messages[0]["params"]["logger"], "sleep");
    assert_eq!(messages[0]["params"]["data"], "sleeping for 1 ms");
    // debug: both.
    client.notifications.clear();
    let _set = client
        .result(
            json!(4),
            "logging/setLevel",
            Some(json!({"level": "debug"})),
        )
        .await;
    let _result = client
        .result(
            json!(5),
            "tools/call",
            Some(call("sleep", json!({"ms": 1}))),
        )
        .await;
    assert_eq!(log_messages(&client).len(), 2);
    // A level that is not one is refused.
    let bad = client
        .error(json!(6), "logging/setLevel", Some(json!({"level": "loud"})))
        .await;
    assert_eq!(bad["code"], -32602);
}

#[tokio::test]
async fn modern_requests_carry_their_log_level_and_set_level_does_not_exist() {
    let mut client = TestClient::start(demo_server(Limits::default()));
    let mut params = modern(call("sleep", json!({"ms": 1})));
    let _quiet = client
        .result(json!(1), "tools/call", Some(params.clone()))
        .await;
    assert!(log_messages(&client).is_empty());
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("warning");
    let _quiet = client
        .result(json!(2), "tools/call", Some(params.clone()))
        .await;
    assert!(log_messages(&client).is_empty());
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    let _loud = client.result(json!(3), "tools/call", Some(params)).await;
    assert_eq!(log_messages(&client).len(), 2);
    let gone = client
        .error(
            json!(4),
            "logging/setLevel",
            Some(modern(json!({"level": "info"}))),
        )
        .await;
    assert_eq!(gone["code"], -32601);
}

/// A server whose `echo` needs the client's sampling capability.
fn sampling_server() -> typed_mcp::mcp::McpServer {
    use mcp_server_support::demo::arguments::EchoArguments;
    use typed_mcp::mcp::{McpServer, ToolDefinition};
    use typed_mcp::tools::ToolContext;
    let echo = ToolDefinition::new(
        "echo",
        |_ctx: ToolContext, args: EchoArguments| async move { Ok(Value::String(args.text)) },
    )
    .unwrap()
    .description("Echoes, for clients that can sample.")
    .requires_client_capability("sampling");
    McpServer::builder("sampling", "1")
        .tool(echo)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_tool_needing_a_client_capability_is_refused_with_32021_without_it() {
    let arguments = json!({"text": "hi"});
    // 2026-07-28: the request's own clientCapabilities decide.
    let mut client = TestClient::start(sampling_server());
    let error = client
        .error(
            json!(1),
            "tools/call",
            Some(modern(call("echo", arguments.clone()))),
        )
        .await;
    assert_eq!(error["code"], -32021);
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
    let mut params = modern(call("echo", arguments.clone()));
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"sampling": {}});
    let ok = client.result(json!(2), "tools/call", Some(params)).await;
    assert_eq!(ok["content"][0]["text"], "hi");
    // 2025: what initialize declared decides.
    let mut legacy = legacy_client(sampling_server(), "2025-11-25").await;
    let error = legacy
        .error(
            json!(3),
            "tools/call",
            Some(call("echo", arguments.clone())),
        )
        .await;
    assert_eq!(error["code"], -32021);
    let mut client = TestClient::start(sampling_server());
    let init = client
        .result(
            json!(4),
            "initialize",
            Some(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"sampling": {}},
                "clientInfo": {"name": "c", "version": "1"}
            })),
        )
        .await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    let ok = client
        .result(json!(5), "tools/call", Some(call("echo", arguments)))
        .await;
    assert_eq!(ok["content"][0]["text"], "hi");
}

#[tokio::test]
async fn subscribers_are_told_when_a_resource_changes_until_they_unsubscribe() {
    let server = demo_server(Limits::default());
    let mut client = legacy_client(server.clone(), "2025-11-25").await;
    let mut other = legacy_client(server.clone(), "2025-11-25").await;
    let subscribed = client
        .result(
            json!(1),
            "resources/subscribe",
            Some(json!({"uri": "demo://readme"})),
        )
        .await;
    assert_eq!(subscribed, json!({}));
    let unknown = client
        .error(
            json!(2),
            "resources/subscribe",
            Some(json!({"uri": "demo://nothing"})),
        )
        .await;
    assert_eq!(unknown["code"], -32002);
    assert_eq!(server.notify_resource_updated("demo://readme").await, 1);
    let update = client.next().await.expect("a notification");
    assert_eq!(update["method"], "notifications/resources/updated");
    assert_eq!(update["params"]["uri"], "demo://readme");
    // The other connection did not subscribe: it hears nothing (its next line is the ping answer).
    let ping = other.result(json!(3), "ping", None).await;
    assert_eq!(ping, json!({}));
    assert!(other.notifications.is_empty());
    let _unsubscribed = client
        .result(
            json!(4),
            "resources/unsubscribe",
            Some(json!({"uri": "demo://readme"})),
        )
        .await;
    assert_eq!(server.notify_resource_updated("demo://readme").await, 0);
    // 2026-07-28 has no resources/subscribe: discover's `subscribe` is served by
    // subscriptions/listen (tests/mcp_server_listen.rs).
    let mut modern_client = TestClient::start(server.clone());
    let gone = modern_client
        .error(
            json!(5),
            "resources/subscribe",
            Some(modern(json!({"uri": "demo://readme"}))),
        )
        .await;
    assert_eq!(gone["code"], -32601);
    let discover = modern_client
        .result(json!(6), "server/discover", Some(modern(json!({}))))
        .await;
    assert_eq!(discover["capabilities"]["resources"]["subscribe"], true);
    let init = client.notifications.len();
    assert_eq!(init, 0);
}
