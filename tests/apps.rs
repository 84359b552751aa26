//! The MCP Apps extension (`io.modelcontextprotocol/ui`) on the server, in both eras, over
//! an in-memory duplex: the server declares it; the app resource and the tools' `_meta.ui`
//! are shown only to a client that declared it, and an app-only tool (`visibility: ["app"]`)
//! is neither listed to nor callable by another client; a `ui://` URI that does not exist is
//! a resource-not-found error; a malformed app refuses to build.

mod mcp_server_support;

use mcp_server_support::{initialized_with, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::generated::apps::validate;
use typed_mcp::mcp::apps::{
    UiPermission, UiResourceCsp, UiResourceMeta, UiResourcePermissions, UiToolMeta,
    UiToolVisibility, APPS_EXTENSION, APP_MIME_TYPE,
};
use typed_mcp::mcp::{McpError, McpServer, ResourceDefinition, ToolDefinition};
use typed_mcp::tools::ToolContext;

const BOARD: &str = "ui://board/app.html";
const HTML: &str = "<!doctype html><p>board</p>";

fn echo(name: &str) -> ToolDefinition {
    ToolDefinition::new(
        name,
        |_ctx: ToolContext, args: Value| async move { Ok(args) },
    )
    .unwrap()
}

fn board() -> ResourceDefinition {
    ResourceDefinition::app(BOARD, "Board", HTML).app_ui(UiResourceMeta {
        csp: Some(UiResourceCsp {
            connect_domains: Some(vec!["https://api.example.com".to_owned()].into()),
            ..UiResourceCsp::default()
        }),
        permissions: Some(UiResourcePermissions {
            clipboard_write: Some(UiPermission {}),
            ..UiResourcePermissions::default()
        }),
        prefers_border: Some(false),
        ..UiResourceMeta::default()
    })
}

/// A server with the board app, `show` linked to it, `pin` linked and app-only, `plain`
/// linked to nothing, and a plain text resource.
fn server() -> McpServer {
    McpServer::builder("apps", "1")
        .resource(board())
        .resource(ResourceDefinition::text(
            "file:///readme.txt",
            "readme",
            "text/plain",
            "hi",
        ))
        .tool(echo("show").app(BOARD))
        .tool(echo("pin").app_meta(UiToolMeta {
            resource_uri: Some(BOARD.to_owned().into()),
            visibility: Some(vec![UiToolVisibility::App]),
        }))
        .tool(echo("plain"))
        .build()
        .unwrap()
}

/// Modern params whose client declares `capabilities`.
fn declaring(capabilities: Value, extra: Value) -> Value {
    let mut params = modern(extra);
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    params
}

fn apps_client() -> Value {
    json!({"extensions": {APPS_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}})
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} listed: {list}"))
}

fn listed(list: &Value, name: &str) -> bool {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|tool| tool["name"] == name)
}

fn uris(list: &Value) -> Vec<&str> {
    list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|resource| resource["uri"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_client_that_declared_the_extension_sees_the_apps_2026() {
    let mut client = TestClient::start(server());
    let discover = client
        .result(
            json!(1),
            "server/discover",
            Some(declaring(json!({}), json!({}))),
        )
        .await;
    assert_eq!(
        discover["capabilities"]["extensions"][APPS_EXTENSION],
        json!({})
    );

    let tools = client
        .result(
            json!(2),
            "tools/list",
            Some(declaring(apps_client(), json!({}))),
        )
        .await;
    let show = &tool(&tools, "show")["_meta"]["ui"];
    assert_eq!(show, &json!({"resourceUri": BOARD}));
    validate::ui_tool_meta(show).unwrap();
    assert_eq!(
        tool(&tools, "pin")["_meta"]["ui"],
        json!({"resourceUri": BOARD, "visibility": ["app"]})
    );
    assert!(tool(&tools, "plain").get("_meta").is_none(), "{tools}");
    // The host renders apps: it may call the app-only tool (for its app).
    let called = client
        .result(
            json!(20),
            "tools/call",
            Some(declaring(
                apps_client(),
                json!({"name": "pin", "arguments": {"note": 1}}),
            )),
        )
        .await;
    assert_eq!(called["isError"], false, "{called}");

    let resources = client
        .result(
            json!(3),
            "resources/list",
            Some(declaring(apps_client(), json!({}))),
        )
        .await;
    assert_eq!(uris(&resources), [BOARD, "file:///readme.txt"]);
    let listed = &resources["resources"][0];
    assert_eq!(listed["mimeType"], APP_MIME_TYPE);
    let ui = &listed["_meta"]["ui"];
    validate::ui_resource_meta(ui).unwrap();
    assert_eq!(
        ui,
        &json!({
            "csp": {"connectDomains": ["https://api.example.com"]},
            "permissions": {"clipboardWrite": {}},
            "prefersBorder": false
        })
    );

    let read = client
        .result(
            json!(4),
            "resources/read",
            Some(declaring(apps_client(), json!({"uri": BOARD}))),
        )
        .await;
    let contents = &read["contents"][0];
    assert_eq!(contents["text"], HTML);
    assert_eq!(contents["mimeType"], APP_MIME_TYPE);
    assert_eq!(
        &contents["_meta"]["ui"], ui,
        "the contents carry _meta.ui too"
    );
    client.close().await;
}

#[tokio::test]
async fn a_client_without_the_extension_sees_plain_tools_and_no_app_2026() {
    let mut client = TestClient::start(server());
    // Declaring the extension for another MIME type is not rendering these apps.
    let other = json!({"extensions": {APPS_EXTENSION: {"mimeTypes": ["text/uri-list"]}}});
    for (id, capabilities) in [(1, json!({})), (10, other)] {
        let tools = client
            .result(
                json!(id),
                "tools/list",
                Some(declaring(capabilities.clone(), json!({}))),
            )
            .await;
        for name in ["show", "plain"] {
            assert!(tool(&tools, name).get("_meta").is_none(), "{tools}");
        }
        // The app-only tool is kept from a client that hands its tools to a model: not
        // listed, and called it is the same error as a tool that does not exist.
        assert!(!listed(&tools, "pin"), "{tools}");
        let mut errors = Vec::new();
        for name in ["pin", "no_such_tool"] {
            let error = client
                .error(
                    json!(id + 5),
                    "tools/call",
                    Some(declaring(
                        capabilities.clone(),
                        json!({"name": name, "arguments": {}}),
                    )),
                )
                .await;
            assert_eq!(error["code"], -32602, "{error}");
            errors.push(error);
        }
        assert_eq!(errors[0], errors[1]);
        let resources = client
            .result(
                json!(id + 1),
                "resources/list",
                Some(declaring(capabilities.clone(), json!({}))),
            )
            .await;
        assert_eq!(uris(&resources), ["file:///readme.txt"]);
        let error = client
            .error(
                json!(id + 2),
                "resources/read",
                Some(declaring(capabilities, json!({"uri": BOARD}))),
            )
            .await;
        assert_eq!(error["code"], -32602, "{error}");
        assert_eq!(error["message"], "resource not found");
    }
    client.close().await;
}

#[tokio::test]
async fn the_session_capabilities_decide_in_2025() {
    let (mut apps, init) = initialized_with(server(), "2025-11-25", apps_client()).await;
    assert_eq!(
        init["capabilities"]["extensions"][APPS_EXTENSION],
        json!({})
    );
    let tools = apps.result(json!(1), "tools/list", None).await;
    assert_eq!(tool(&tools, "show")["_meta"]["ui"]["resourceUri"], BOARD);
    let read = apps
        .result(json!(2), "resources/read", Some(json!({"uri": BOARD})))
        .await;
    assert_eq!(read["contents"][0]["mimeType"], APP_MIME_TYPE);
    let called = apps
        .result(
            json!(3),
            "tools/call",
            Some(json!({"name": "pin", "arguments": {}})),
        )
        .await;
    assert_eq!(called["isError"], false, "{called}");
    apps.close().await;

    let (mut plain, _) = initialized_with(server(), "2025-11-25", json!({})).await;
    let tools = plain.result(json!(1), "tools/list", None).await;
    assert!(tool(&tools, "show").get("_meta").is_none(), "{tools}");
    assert!(!listed(&tools, "pin"), "{tools}");
    let error = plain
        .error(
            json!(3),
            "tools/call",
            Some(json!({"name": "pin", "arguments": {}})),
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(error["message"], "unknown tool");
    let error = plain
        .error(json!(2), "resources/read", Some(json!({"uri": BOARD})))
        .await;
    assert_eq!(error["code"], -32002, "{error}");
    plain.close().await;
}

#[tokio::test]
async fn a_ui_uri_that_does_not_exist_is_resource_not_found() {
    let mut client = TestClient::start(server());
    let missing = "ui://board/missing.html";
    let error = client
        .error(
            json!(1),
            "resources/read",
            Some(declaring(apps_client(), json!({"uri": missing}))),
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(error["message"], "resource not found");
    assert_eq!(error["data"], json!({"uri": missing}));
    client.close().await;

    let (mut legacy, _) = initialized_with(server(), "2025-06-18", apps_client()).await;
    let error = legacy
        .error(json!(1), "resources/read", Some(json!({"uri": missing})))
        .await;
    assert_eq!(error["code"], -32002, "{error}");
    legacy.close().await;
}

#[test]
fn a_malformed_app_refuses_to_build() {
    let dangling = McpServer::builder("apps", "1")
        .tool(echo("show").app("ui://board/none.html"))
        .build()
        .unwrap_err();
    assert!(
        matches!(&dangling, McpError::InvalidApp { name, .. } if name == "show"),
        "{dangling}"
    );
    let not_ui = McpServer::builder("apps", "1")
        .resource(ResourceDefinition::app(
            "https://example.com/app.html",
            "web",
            HTML,
        ))
        .build()
        .unwrap_err();
    assert!(
        matches!(&not_ui, McpError::InvalidApp { name, .. } if name == "web"),
        "{not_ui}"
    );
    let bad_meta = McpServer::builder("apps", "1")
        .resource(board().app_ui(UiResourceMeta {
            domain: Some(String::new()),
            ..UiResourceMeta::default()
        }))
        .build()
        .unwrap_err();
    assert!(bad_meta.to_string().contains("_meta.ui"), "{bad_meta}");
}

#[tokio::test]
async fn a_server_without_apps_declares_no_extension() {
    let server = McpServer::builder("plain", "1")
        .tool(echo("plain"))
        .build()
        .unwrap();
    let mut client = TestClient::start(server);
    let discover = client
        .result(
            json!(1),
            "server/discover",
            Some(declaring(apps_client(), json!({}))),
        )
        .await;
    assert!(
        discover["capabilities"].get("extensions").is_none(),
        "{discover}"
    );
    client.close().await;
}
