//! The client against servers on the official Python SDK (`mcp` 2.3.0), over stdio and over
//! Streamable HTTP on 127.0.0.1, in every version choice:
//! - `tests/interop/reference_server.py`, on the SDK's low-level `Server`, mimicking our demo
//!   server (the envelope, the limits);
//! - `tests/interop/mcpserver_server.py`, on the SDK's high-level `MCPServer` and its
//!   decorators: schemas derived from Python type hints, structured output checked with
//!   `call_tool_typed`, a resource template, and in 2026-07-28 `subscriptions/listen` with
//!   notifications the server's own `Context` sends.
//!
//! Skipped with a printed reason when `tests/interop/.venv` is missing, failed in CI.

mod client_support;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use typed_mcp::client::{Client, ClientError, ListenNotification, ServerCommand};
use typed_mcp::generated::protocol::{ResourceContents, SubscriptionFilter};
use typed_mcp::validation::{SchemaValidate, ValidationError};

use client_support::{
    limits_file, mcpserver_script, options, reference_python, reference_script, runtime,
    HttpServer, CHOICES,
};

async fn exercise(client: &Client, expected_version: &str, what: &str) {
    assert_eq!(client.protocol_version(), expected_version, "{what}");
    let tools = client
        .list_tools()
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/list: {e}"));
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(
        names.contains(&"echo") && names.contains(&"add"),
        "{what}: {names:?}"
    );
    let echo = client
        .call_tool("echo", json!({"text": "hi from rust"}))
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/call echo: {e}"));
    assert!(!echo.is_error(), "{what}");
    let text = serde_json::to_string(echo.content()).expect("serializable");
    assert!(text.contains("hi from rust"), "{what}: {text}");
    let sum = client
        .call_tool("add", json!({"a": 2, "b": 3}))
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/call add: {e}"));
    let structured = sum.structured_content().expect("structured content");
    assert_eq!(
        structured["data"]["sum"].as_f64(),
        Some(5.0),
        "{what}: {structured}"
    );
    let resources = client
        .list_resources()
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/list: {e}"));
    assert!(resources.iter().any(|r| r.uri == "demo://readme"), "{what}");
    let readme = client
        .read_resource("demo://readme")
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/read: {e}"));
    assert_eq!(readme.contents().len(), 1, "{what}");
    let prompts = client
        .list_prompts()
        .await
        .unwrap_or_else(|e| panic!("{what}: prompts/list: {e}"));
    assert!(prompts.iter().any(|p| p.name == "greet"), "{what}");
    let greet = client
        .get_prompt("greet", json!({"name": "Ada"}))
        .await
        .unwrap_or_else(|e| panic!("{what}: prompts/get: {e}"));
    assert!(!greet.messages().is_empty(), "{what}");
    if client.is_modern() {
        client
            .discover()
            .await
            .unwrap_or_else(|e| panic!("{what}: discover: {e}"));
    } else {
        client
            .ping()
            .await
            .unwrap_or_else(|e| panic!("{what}: ping: {e}"));
    }
    match client.read_resource("demo://missing").await {
        Err(ClientError::Rpc { .. }) => {}
        other => panic!("{what}: an unknown resource: {other:?}"),
    }
}

#[test]
fn reference_server_over_stdio() {
    let Some(python) = reference_python() else {
        return;
    };
    let (_dir, limits) = limits_file();
    let rt = runtime();
    for (choice, expected) in CHOICES {
        rt.block_on(async {
            let what = format!("reference server, stdio, --version {choice}");
            let command = ServerCommand::new(&python)
                .arg(reference_script())
                .arg("--limits")
                .arg(&limits);
            let client = Client::connect_stdio(command, options(choice))
                .await
                .unwrap_or_else(|error| panic!("{what}: connect: {error}"));
            exercise(&client, expected, &what).await;
            client.close().await;
        });
    }
}

#[test]
fn reference_server_over_http() {
    let Some(python) = reference_python() else {
        return;
    };
    let (_dir, limits) = limits_file();
    let argv = [
        python.display().to_string(),
        reference_script().display().to_string(),
    ];
    let server = HttpServer::start(&argv, &limits).expect("the reference server listens");
    let rt = runtime();
    for (choice, expected) in CHOICES {
        rt.block_on(async {
            let what = format!("reference server, HTTP, --version {choice}");
            let client = Client::connect_http(&server.url, options(choice))
                .await
                .unwrap_or_else(|error| panic!("{what}: connect: {error}"));
            exercise(&client, expected, &what).await;
            client.close().await;
        });
    }
    let stopped = server.stop();
    assert!(
        stopped.was_running,
        "the server ran to the end: {}",
        stopped.stderr
    );
}

/// The arguments of the `MCPServer` tool `add`.
#[derive(Debug, Serialize)]
struct AddArgs {
    a: f64,
    b: f64,
}

/// Its structured output (a pydantic model on the Python side).
#[derive(Debug, Deserialize, PartialEq)]
struct Sum {
    sum: f64,
}

fn number_error(path: &str) -> ValidationError {
    ValidationError::new(
        path,
        "#/type",
        "type",
        json!("number"),
        Value::Null,
        "must be a number",
    )
}

fn numbers(value: &Value, members: &[&str]) -> Result<(), Vec<ValidationError>> {
    let errors: Vec<ValidationError> = members
        .iter()
        .filter(|member| !value[**member].is_number())
        .map(|member| number_error(&format!("/{member}")))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

impl SchemaValidate for AddArgs {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        numbers(value, &["a", "b"])
    }
}

impl SchemaValidate for Sum {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        numbers(value, &["sum"])
    }
}

fn text_of(contents: &[ResourceContents]) -> String {
    serde_json::to_value(contents).expect("serializable")[0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// What a user does with the `MCPServer` reference, typed.
async fn exercise_mcpserver(client: &Client, expected_version: &str, what: &str) {
    assert_eq!(client.protocol_version(), expected_version, "{what}");
    let server = client.server().expect("a server description");
    assert!(server.capabilities().tools.is_some(), "{what}");
    let tools = client
        .list_tools()
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/list: {e}"));
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in ["echo", "add", "touch", "grow"] {
        assert!(names.contains(&expected), "{what}: {names:?}");
    }
    let echo = client
        .call_tool("echo", json!({"text": "héllo from rust"}))
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/call echo: {e}"));
    assert!(!echo.is_error(), "{what}");
    assert_eq!(
        echo.structured_content(),
        Some(json!({"result": "héllo from rust"})),
        "{what}"
    );
    let sum: Sum = client
        .call_tool_typed("add", &AddArgs { a: 2.0, b: 3.5 })
        .await
        .unwrap_or_else(|e| panic!("{what}: call_tool_typed add: {e}"));
    assert_eq!(sum, Sum { sum: 5.5 }, "{what}");
    // Arguments the SDK refuses (pydantic validation) come back as a tool error.
    let refused = client
        .call_tool("add", json!({"a": "two", "b": 3}))
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/call add with bad arguments: {e}"));
    assert!(refused.is_error(), "{what}");

    let resources = client
        .list_resources()
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/list: {e}"));
    assert!(resources.iter().any(|r| r.uri == "demo://readme"), "{what}");
    let readme = client
        .read_resource("demo://readme")
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/read: {e}"));
    assert_eq!(
        text_of(readme.contents()),
        "MCPServer reference for the typed-mcp client tests.\n",
        "{what}"
    );
    let templates = client
        .list_resource_templates()
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/templates/list: {e}"));
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "demo://notes/{name}"),
        "{what}"
    );
    let note = client
        .read_resource("demo://notes/ada")
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/read template: {e}"));
    assert_eq!(text_of(note.contents()), "note ada", "{what}");
    match client.read_resource("demo://missing").await {
        Err(ClientError::Rpc { .. }) => {}
        other => panic!("{what}: an unknown resource: {other:?}"),
    }

    let prompts = client
        .list_prompts()
        .await
        .unwrap_or_else(|e| panic!("{what}: prompts/list: {e}"));
    assert!(prompts.iter().any(|p| p.name == "greet"), "{what}");
    let greet = client
        .get_prompt("greet", json!({"name": "Ada"}))
        .await
        .unwrap_or_else(|e| panic!("{what}: prompts/get: {e}"));
    let text = serde_json::to_string(greet.messages()).expect("serializable");
    assert!(text.contains("Hello, Ada!"), "{what}: {text}");

    if client.is_modern() {
        listen_to_mcpserver(client, what).await;
    } else {
        client
            .ping()
            .await
            .unwrap_or_else(|e| panic!("{what}: ping: {e}"));
    }
}

/// `subscriptions/listen` on the `MCPServer`: its tools change a resource and the tool list
/// through the SDK's own `Context.notify_*`.
async fn listen_to_mcpserver(client: &Client, what: &str) {
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        resource_subscriptions: Some(vec!["demo://readme".to_owned()]),
        ..SubscriptionFilter::default()
    };
    let mut subscription = client
        .listen(filter)
        .await
        .unwrap_or_else(|e| panic!("{what}: listen: {e}"));
    assert_eq!(
        subscription.granted().tools_list_changed,
        Some(true),
        "{what}"
    );
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(30), subscription.next())
            .await
            .unwrap_or_else(|_| panic!("{what}: hang guard: no notification"))
            .unwrap_or_else(|e| panic!("{what}: a notification: {e}"))
    };
    let touched = client
        .call_tool("touch", json!({"uri": "demo://readme"}))
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/call touch: {e}"));
    assert!(!touched.is_error(), "{what}");
    assert_eq!(
        next().await,
        Some(ListenNotification::ResourceUpdated {
            uri: "demo://readme".to_owned()
        }),
        "{what}"
    );
    let grown = client
        .call_tool("grow", json!({}))
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/call grow: {e}"));
    assert!(!grown.is_error(), "{what}");
    assert_eq!(
        next().await,
        Some(ListenNotification::ToolsListChanged),
        "{what}"
    );
    let tools = client
        .list_tools()
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/list after grow: {e}"));
    assert!(tools.iter().any(|t| t.name.starts_with("grown_")), "{what}");
}

#[test]
fn mcpserver_over_stdio() {
    let Some(python) = reference_python() else {
        return;
    };
    let rt = runtime();
    for (choice, expected) in CHOICES {
        rt.block_on(async {
            let what = format!("MCPServer, stdio, --version {choice}");
            let command = ServerCommand::new(&python).arg(mcpserver_script());
            let client = Client::connect_stdio(command, options(choice))
                .await
                .unwrap_or_else(|error| panic!("{what}: connect: {error}"));
            exercise_mcpserver(&client, expected, &what).await;
            client.close().await;
        });
    }
}

#[test]
fn mcpserver_over_http() {
    let Some(python) = reference_python() else {
        return;
    };
    let argv = [
        python.display().to_string(),
        mcpserver_script().display().to_string(),
    ];
    let server = HttpServer::start_plain(&argv).expect("the MCPServer listens");
    let rt = runtime();
    for (choice, expected) in CHOICES {
        rt.block_on(async {
            let what = format!("MCPServer, HTTP, --version {choice}");
            let client = Client::connect_http(&server.url, options(choice))
                .await
                .unwrap_or_else(|error| panic!("{what}: connect: {error}"));
            exercise_mcpserver(&client, expected, &what).await;
            client.close().await;
        });
    }
    let stopped = server.stop();
    assert!(
        stopped.was_running,
        "the server ran to the end: {}",
        stopped.stderr
    );
}
