//! The client the official conformance suite drives:
//!
//! ```sh
//! conformance client --command "target/debug/examples/conformance_client" --scenario tools_call
//! ```
//!
//! The suite starts a scenario server and runs this program with the server's URL as the last
//! argument, the scenario in `MCP_CONFORMANCE_SCENARIO`, the protocol version in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` and, for some scenarios, the calls to make in
//! `MCP_CONFORMANCE_CONTEXT` (`{"toolCalls": [{"name", "arguments"}]}`). It connects over
//! Streamable HTTP with that version, then does what the scenario asks: list the tools (and
//! call them), the resources (and read them), the prompts (and get them). A failed call is
//! reported on stderr and the run goes on; a failed connection exits 1.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{json, Value};
use tracing::level_filters::LevelFilter;
use typed_mcp::client::{Client, ClientHandler, ClientOptions, HandlerFuture, VersionChoice};

/// Answers the server's requests the way the scenarios expect: elicitation accepted with
/// the form's defaults, one root, a canned sampled message.
struct ScenarioHandler;

impl ClientHandler for ScenarioHandler {
    fn list_roots(&self, _params: Value) -> HandlerFuture {
        Box::pin(async { Ok(json!({"roots": [{"uri": "file:///tmp", "name": "tmp"}]})) })
    }

    fn create_message(&self, _params: Value) -> HandlerFuture {
        Box::pin(async {
            Ok(
                json!({"role": "assistant", "content": {"type": "text", "text": "sampled"},
                "model": "typed-mcp-conformance", "stopReason": "endTurn"}),
            )
        })
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
}

/// What the scenario's server expects the client to do.
fn calls_for(scenario: &str, context: &Value) -> Vec<(String, Value)> {
    if let Some(calls) = context["toolCalls"].as_array() {
        return calls
            .iter()
            .filter_map(|call| {
                let name = call["name"].as_str()?.to_owned();
                Some((name, call.get("arguments").cloned().unwrap_or(json!({}))))
            })
            .collect();
    }
    match scenario {
        "tools_call" => vec![("add_numbers".to_owned(), json!({"a": 5, "b": 3}))],
        _ => Vec::new(),
    }
}

async fn run(url: &str, scenario: &str, version: &str, context: &Value) -> Result<(), String> {
    let choice = VersionChoice::parse(version).unwrap_or(VersionChoice::Auto);
    let options = ClientOptions::new("typed-mcp-conformance-client", env!("CARGO_PKG_VERSION"))
        .version(choice)
        .capabilities(
            json!({"roots": {"listChanged": false}, "sampling": {}, "elicitation": {"form": {}}}),
        )
        .request_timeout(Duration::from_secs(20));
    // With a handler, a 2025 session also listens on its GET stream; `sse-retry` expects a
    // client whose only GET is the resumption of the closed tool-call stream.
    let options = if scenario == "sse-retry" {
        options
    } else {
        options.handler(ScenarioHandler)
    };
    let client = Client::connect_http(url, options)
        .await
        .map_err(|error| format!("connect: {error}"))?;
    eprintln!("connected, protocol version {}", client.protocol_version());
    let report = |what: &str, result: Result<(), typed_mcp::client::ClientError>| {
        if let Err(error) = result {
            eprintln!("{what}: {error}");
        }
    };
    let tools = client.list_tools().await;
    let tool_names: Vec<String> = match &tools {
        Ok(tools) => tools.iter().map(|t| t.name.clone()).collect(),
        Err(error) => {
            eprintln!("tools/list: {error}");
            Vec::new()
        }
    };
    let mut calls = calls_for(scenario, context);
    if calls.is_empty()
        && matches!(
            scenario,
            "http-standard-headers"
                | "http-invalid-tool-headers"
                | "elicitation-sep1034-client-defaults"
                | "sep-2322-client-request-state"
                | "sse-retry"
        )
    {
        // Every tool the client kept (tools with invalid annotations are left out).
        calls = tool_names.iter().map(|n| (n.clone(), json!({}))).collect();
    }
    if scenario == "json-schema-2020-12-preservation" {
        // Echo the focal tool's inputSchema exactly as the client holds it.
        let focal = tools
            .as_ref()
            .ok()
            .and_then(|tools| tools.iter().find(|t| t.name == "json_schema_2020_12_tool"));
        if let Some(tool) = focal {
            let schema = serde_json::to_value(&tool.input_schema).unwrap_or(Value::Null);
            calls.push(("json_schema_echo".to_owned(), json!({"schema": schema})));
        }
    }
    for (name, arguments) in calls {
        let result = client.call_tool(&name, arguments).await.map(|_| ());
        report(&format!("tools/call {name}"), result);
    }
    if scenario == "http-standard-headers" {
        match client.list_resources().await {
            Ok(resources) => {
                for resource in resources {
                    let result = client.read_resource(&resource.uri).await.map(|_| ());
                    report("resources/read", result);
                }
            }
            Err(error) => eprintln!("resources/list: {error}"),
        }
        match client.list_prompts().await {
            Ok(prompts) => {
                for prompt in prompts {
                    let result = client.get_prompt(&prompt.name, json!({})).await.map(|_| ());
                    report("prompts/get", result);
                }
            }
            Err(error) => eprintln!("prompts/list: {error}"),
        }
    }
    client.close().await;
    Ok(())
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::WARN) {
        eprintln!("conformance_client: {error}");
    }
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client URL (scenario in MCP_CONFORMANCE_SCENARIO)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version =
        std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_else(|_| "auto".into());
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("conformance_client: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(&url, &scenario, &version, &context));
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance_client ({scenario}): {error}");
            ExitCode::FAILURE
        }
    }
}
