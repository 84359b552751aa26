//! `Client::call_tool_typed` against typed-mcp's own server: the caller gets the tool's data
//! as its type, whatever the era, without unwrapping the result envelope; a value that does
//! not fit the type is a typed error naming where.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use typed_mcp::client::{Client, ClientError, ClientOptions, VersionChoice};
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::ToolContext;
use typed_mcp::validation::{SchemaValidate, ValidationError};

#[derive(Serialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Sum {
    sum: i64,
}

#[derive(Debug, Deserialize)]
struct Text {
    #[allow(dead_code, reason = "decoded only to fail")]
    text: String,
}

fn refuse(message: &str) -> Vec<ValidationError> {
    vec![ValidationError::new(
        "",
        "",
        "required",
        Value::Null,
        Value::Null,
        message,
    )]
}

impl SchemaValidate for AddArgs {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        if value["a"].is_i64() && value["b"].is_i64() {
            Ok(())
        } else {
            Err(refuse("a and b are integers"))
        }
    }
}

impl SchemaValidate for Sum {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        if value["sum"].is_i64() {
            Ok(())
        } else {
            Err(refuse("sum is required"))
        }
    }
}

impl SchemaValidate for Text {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        if value["text"].is_string() {
            Ok(())
        } else {
            Err(refuse("text is required"))
        }
    }
}

async fn client(version: VersionChoice) -> Client {
    let add = ToolDefinition::new("add", |_ctx: ToolContext, args: Value| async move {
        let (a, b) = (args["a"].as_i64(), args["b"].as_i64());
        Ok(json!({ "sum": a.unwrap_or(0) + b.unwrap_or(0) }))
    })
    .expect("the tool");
    let server = McpServer::builder("typed-data", "1.0.0")
        .tool(add)
        .build()
        .expect("the server");
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let (input, output) = tokio::io::split(server_io);
    tokio::spawn(async move { server.serve(input, output).await });
    let (reader, writer) = tokio::io::split(client_io);
    Client::connect_io(
        reader,
        writer,
        ClientOptions::new("test", "1.0.0").version(version),
    )
    .await
    .expect("connected")
}

#[tokio::test]
async fn the_data_comes_back_typed_in_both_eras() {
    for version in [VersionChoice::Auto, VersionChoice::latest_legacy()] {
        let client = client(version).await;
        let sum: Sum = client
            .call_tool_typed("add", &AddArgs { a: 2, b: 3 })
            .await
            .expect("a typed answer");
        assert_eq!(sum, Sum { sum: 5 });
        // The envelope itself is still there for a caller who asks for it.
        let raw = client
            .call_tool("add", json!({"a": 1, "b": 1}))
            .await
            .expect("an answer");
        let structured = raw.structured_content().expect("structured");
        assert_eq!(structured["ok"], true, "{structured}");
        assert_eq!(structured["data"]["sum"], 2, "{structured}");
        client.close().await;
    }
}

#[tokio::test]
async fn data_of_another_shape_is_a_typed_error_at_its_path() {
    let client = client(VersionChoice::Auto).await;
    let error = client
        .call_tool_typed::<_, Text>("add", &AddArgs { a: 2, b: 3 })
        .await
        .expect_err("a sum is no text");
    match error {
        ClientError::InvalidMessage { errors, .. } => {
            assert_eq!(errors[0].path(), "/structuredContent/data", "{errors:?}");
        }
        other => panic!("unexpected error: {other}"),
    }
    client.close().await;
}
