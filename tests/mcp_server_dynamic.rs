//! Tools, resources, templates and prompts added and removed while serving, on stdio: the
//! lists and calls follow, `listChanged` is declared, and every initialized 2025 connection
//! hears `notifications/*/list_changed` (HTTP sessions: `http_lists.rs`).

mod mcp_server_support;

use mcp_server_support::demo::arguments::EchoArguments;
use mcp_server_support::{call, demo_server, legacy_client, limits, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::mcp::{
    user_text, McpError, McpServer, PromptDefinition, ResourceDefinition, ToolDefinition,
};
use typed_mcp::tools::ToolContext;

/// A tool the demo does not have.
fn shout() -> ToolDefinition {
    ToolDefinition::new(
        "shout",
        |_ctx: ToolContext, args: EchoArguments| async move {
            Ok(Value::String(args.text.to_uppercase()))
        },
    )
    .expect("a valid tool")
    .description("Sends the text back in capitals.")
}

fn names(list: &Value, field: &str, key: &str) -> Vec<String> {
    list[field]
        .as_array()
        .expect("a list")
        .iter()
        .map(|item| item[key].as_str().unwrap().to_owned())
        .collect()
}

/// A 2025 client whose `notifications/initialized` the server has handled (notifications
/// are handled in order, so a later request's answer proves it).
async fn initialized(server: McpServer, version: &str) -> TestClient {
    let mut client = legacy_client(server, version).await;
    let _pong = client.result(json!("ready"), "ping", None).await;
    client
}

/// The methods of the notifications received so far, then forgets them.
fn drain(client: &mut TestClient) -> Vec<String> {
    client
        .notifications
        .drain(..)
        .map(|n| n["method"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn tools_come_and_go_while_serving() {
    let server = demo_server(limits(json!({})));
    let mut client = TestClient::start(server.clone());
    let init = client
        .result(
            json!(0),
            "initialize",
            Some(json!({"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}})),
        )
        .await;
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(init["capabilities"]["resources"]["listChanged"], true);
    assert_eq!(init["capabilities"]["prompts"]["listChanged"], true);
    // Before notifications/initialized: changes are not announced to this client.
    server.add_tool(shout()).await.expect("added");
    let _pong = client.result(json!(1), "ping", None).await;
    assert!(drain(&mut client).is_empty());
    client.notify("notifications/initialized", None).await;
    let _pong = client.result(json!(2), "ping", None).await;

    assert!(server.remove_tool("shout").await);
    // The notification is queued before remove_tool returns, so it precedes this answer.
    let list = client.result(json!(3), "tools/list", None).await;
    assert_eq!(drain(&mut client), ["notifications/tools/list_changed"]);
    assert!(!names(&list, "tools", "name").contains(&"shout".to_owned()));
    let gone = client
        .error(
            json!(4),
            "tools/call",
            Some(call("shout", json!({"text": "hi"}))),
        )
        .await;
    assert_eq!(gone["code"], -32602);

    server.add_tool(shout()).await.expect("added again");
    let list = client.result(json!(5), "tools/list", None).await;
    assert_eq!(drain(&mut client), ["notifications/tools/list_changed"]);
    assert_eq!(names(&list, "tools", "name").last().unwrap(), "shout");
    let shouted = client
        .result(
            json!(6),
            "tools/call",
            Some(call("shout", json!({"text": "hi"}))),
        )
        .await;
    assert_eq!(shouted["structuredContent"]["data"], "HI");

    // A duplicate changes nothing and announces nothing; removing a stranger neither.
    let duplicate = server.add_tool(shout()).await.unwrap_err();
    assert!(matches!(
        duplicate,
        McpError::DuplicateName { kind: "tool", .. }
    ));
    assert!(!server.remove_tool("nobody").await);
    let _pong = client.result(json!(7), "ping", None).await;
    assert!(drain(&mut client).is_empty());
}

#[tokio::test]
async fn resources_templates_and_prompts_come_and_go() {
    let server = demo_server(limits(json!({})));
    let mut client = initialized(server.clone(), "2025-06-18").await;
    let mut other = initialized(server.clone(), "2025-03-26").await;

    let notes = ResourceDefinition::text("demo://notes", "notes", "text/plain", "first note");
    server.add_resource(notes).await.expect("added");
    let read = client
        .result(
            json!(1),
            "resources/read",
            Some(json!({"uri": "demo://notes"})),
        )
        .await;
    assert_eq!(read["contents"][0]["text"], "first note");
    let _pong = other.result(json!(1), "ping", None).await;
    for connection in [&mut client, &mut other] {
        assert_eq!(drain(connection), ["notifications/resources/list_changed"]);
    }
    assert!(server.remove_resource("demo://notes").await);
    assert!(server.remove_resource_template("greeting").await);
    let missing = client
        .error(
            json!(2),
            "resources/read",
            Some(json!({"uri": "demo://notes"})),
        )
        .await;
    assert_eq!(missing["code"], -32002);
    assert_eq!(drain(&mut client).len(), 2);
    let templates = client
        .result(json!(3), "resources/templates/list", None)
        .await;
    assert_eq!(templates["resourceTemplates"], json!([]));

    let farewell = PromptDefinition::new("farewell", "Says goodbye.", |_args| {
        Ok(vec![user_text("Goodbye!")])
    });
    server.add_prompt(farewell).await.expect("added");
    let got = client
        .result(json!(4), "prompts/get", Some(json!({"name": "farewell"})))
        .await;
    assert_eq!(got["messages"][0]["content"]["text"], "Goodbye!");
    assert_eq!(drain(&mut client), ["notifications/prompts/list_changed"]);
    assert!(server.remove_prompt("farewell").await);
    let list = client.result(json!(5), "prompts/list", None).await;
    assert_eq!(names(&list, "prompts", "name"), ["greet"]);
    assert_eq!(drain(&mut client), ["notifications/prompts/list_changed"]);

    // A refused URI leaves everything as it was.
    let bad = ResourceDefinition::text("not a uri", "bad", "text/plain", "");
    assert!(server.add_resource(bad).await.is_err());
    let _pong = client.result(json!(6), "ping", None).await;
    assert!(drain(&mut client).is_empty());
}

#[tokio::test]
async fn modern_connections_see_changes_without_list_changed() {
    let server = demo_server(limits(json!({})));
    let mut client = TestClient::start(server.clone());
    let discover = client
        .result(json!(1), "server/discover", Some(modern(json!({}))))
        .await;
    assert!(discover["capabilities"]["prompts"].is_object());
    assert!(server.remove_prompt("greet").await);
    let discover = client
        .result(json!(2), "server/discover", Some(modern(json!({}))))
        .await;
    assert!(
        discover["capabilities"].get("prompts").is_none(),
        "no prompts left: {discover}"
    );
    assert!(
        drain(&mut client).is_empty(),
        "only listen streams hear of changes"
    );
}

#[tokio::test]
async fn cursors_survive_changes_but_not_the_loss_of_their_item() {
    let server = demo_server(limits(json!({"lists": {"pageSize": 2}})));
    let mut client = initialized(server.clone(), "2025-11-25").await;
    let first = client.result(json!(1), "tools/list", None).await;
    let page = names(&first, "tools", "name");
    let cursor = first["nextCursor"].clone();
    // The first item goes and a tool is added: the cursor still continues after the second.
    assert!(server.remove_tool(&page[0]).await);
    server.add_tool(shout()).await.expect("added");
    let second = client
        .result(json!(2), "tools/list", Some(json!({ "cursor": cursor })))
        .await;
    assert!(!names(&second, "tools", "name").contains(&page[1]));
    // Its own item gone: the position is lost, and the client is told to start again.
    assert!(server.remove_tool(&page[1]).await);
    let error = client
        .error(json!(3), "tools/list", Some(json!({ "cursor": cursor })))
        .await;
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"].as_str().unwrap().contains("list changed"),
        "{error}"
    );
}
