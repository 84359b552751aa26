//! Protocol extensions (`capabilities.extensions`) in both eras: the server declares them in
//! `initialize` and `server/discover`, our client sees them, and a tool may use one only
//! when both sides declared it (a 2025 client in `initialize`, a 2026-07-28 client in each
//! request's `_meta`).

use serde_json::{json, Map, Value};
use typed_mcp::client::{Client, ClientOptions, VersionChoice};
use typed_mcp::mcp::{McpError, McpServer, ToolDefinition, VerbatimSchema};
use typed_mcp::tools::ToolContext;

const BOARD: &str = "com.example/board";
const OTHER: &str = "com.example/other";

fn settings(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("settings are an object"),
    }
}

/// A server declaring `com.example/board` (with a setting), whose tool `which` answers the
/// client's settings of each extension it may use, or `null`.
fn server() -> McpServer {
    let which = ToolDefinition::new("which", |ctx: ToolContext, _args: Value| async move {
        Ok(json!({
            "board": ctx.extension(BOARD).cloned(),
            "other": ctx.extension(OTHER).cloned(),
        }))
    })
    .unwrap()
    .input_schema(VerbatimSchema::from_value(json!({"type": "object"})).unwrap())
    .unwrap()
    .description("Answers which extensions the call may use.");
    McpServer::builder("extensions", "1")
        .extension(BOARD, settings(json!({"columns": 3})))
        .tool(which)
        .build()
        .unwrap()
}

/// Connects a client declaring `extensions` at `choice` over an in-memory duplex.
async fn connect(choice: VersionChoice, extensions: &[(&str, Value)]) -> Client {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let server = server();
    tokio::spawn(async move { server.serve_stream(server_io).await });
    let (input, output) = tokio::io::split(client_io);
    let mut options = ClientOptions::new("c", "1")
        .version(choice)
        .capabilities(json!({"roots": {}}));
    for (id, value) in extensions {
        options = options.extension(*id, settings(value.clone()));
    }
    Client::connect_io(input, output, options).await.unwrap()
}

async fn which(client: &Client) -> Value {
    let result = client.call_tool("which", json!({})).await.unwrap();
    assert!(!result.is_error(), "{result:?}");
    result.structured_content().expect("structured")["data"].clone()
}

fn choices() -> [(VersionChoice, &'static str); 2] {
    [
        (VersionChoice::Auto, "2026-07-28"),
        (VersionChoice::latest_legacy(), "2025-11-25"),
    ]
}

#[tokio::test]
async fn the_client_sees_the_servers_extensions_in_both_eras() {
    for (choice, version) in choices() {
        let client = connect(choice, &[]).await;
        assert_eq!(client.protocol_version(), version);
        let server = client.server().expect("described");
        assert_eq!(
            server.extension(BOARD),
            Some(&settings(json!({"columns": 3}))),
            "{version}"
        );
        assert_eq!(server.extension(OTHER), None, "{version}");
        assert_eq!(server.extension("io.modelcontextprotocol/tasks"), None);
    }
}

#[tokio::test]
async fn a_tool_uses_only_what_both_sides_declared() {
    for (choice, version) in choices() {
        // Both declare the board: the tool gets the client's settings.
        let both = connect(
            choice.clone(),
            &[(BOARD, json!({"rows": 2})), (OTHER, json!({}))],
        )
        .await;
        assert_eq!(
            which(&both).await,
            json!({"board": {"rows": 2}, "other": null}),
            "{version}: com.example/other is the client's only"
        );
        // The client declares nothing: the tool may use nothing.
        let neither = connect(choice.clone(), &[]).await;
        assert_eq!(
            which(&neither).await,
            json!({"board": null, "other": null}),
            "{version}"
        );
    }
}

#[test]
fn a_server_extension_identifier_needs_its_prefix() {
    for bad in ["board", "/board", "com.example/", "com..example/board"] {
        let error = McpServer::builder("s", "1")
            .extension(bad, Map::new())
            .build()
            .unwrap_err();
        assert!(
            matches!(&error, McpError::InvalidExtensionId { id } if id == bad),
            "{bad}: {error}"
        );
    }
}
