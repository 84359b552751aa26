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
//!
//! The `auth/*` scenarios put the server behind OAuth: the client authorizes with the
//! authorization code flow (its user step follows the authorization URL and takes the
//! redirect, as the suite's authorization server approves at once), or with client
//! credentials (`auth/client-credentials-*`, from the context's `client_id` and
//! `client_secret` or `private_key_pem`); `auth/pre-registration` gets its credentials from
//! the context too. It then lists the tools and calls each one.
//!
//! The Skills extension's `sep-2640-client-*` scenarios list the skills and (except
//! `no-prefetch`, which checks that listing reads no file) load the first with
//! `Client::load_skill`, which reads and verifies its `SKILL.md`; only a skill that loaded
//! has its other files read.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{json, Value};
use tracing::level_filters::LevelFilter;
use typed_mcp::client::auth::{AutoApprove, ClientKey, OAuthOptions, SigningAlgorithm};
use typed_mcp::client::{Client, ClientHandler, ClientOptions, HandlerFuture, VersionChoice};

/// The client ID metadata document URL the suite expects (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The redirect URI registered for the authorization code flow (never listened on: the
/// redirect is read from the authorization endpoint's `Location`).
const REDIRECT_URI: &str = "http://localhost:3000/callback";

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

/// The OAuth options of an `auth/*` scenario.
fn oauth_for(
    scenario: &str,
    context: &Value,
    options: &ClientOptions,
) -> Result<OAuthOptions, String> {
    let text = |name: &str| context[name].as_str().map(str::to_owned);
    match scenario {
        "auth/client-credentials-basic" => {
            let id = text("client_id").ok_or("the context has no client_id")?;
            let secret = text("client_secret").ok_or("the context has no client_secret")?;
            Ok(OAuthOptions::client_credentials(&id, secret))
        }
        "auth/client-credentials-jwt" => {
            let id = text("client_id").ok_or("the context has no client_id")?;
            let pem = text("private_key_pem").ok_or("the context has no private_key_pem")?;
            let algorithm = text("signing_algorithm").unwrap_or_else(|| "ES256".to_owned());
            let algorithm = SigningAlgorithm::parse(&algorithm)
                .ok_or_else(|| format!("unsupported signing algorithm {algorithm}"))?;
            let key = ClientKey::from_pem(&pem, algorithm).map_err(|e| e.to_string())?;
            Ok(OAuthOptions::client_credentials_jwt(&id, key))
        }
        _ => {
            let step = AutoApprove::new(REDIRECT_URI, options).map_err(|e| e.to_string())?;
            let oauth = OAuthOptions::authorization_code("test-auth-client", step)
                .client_metadata_url(CLIENT_METADATA_URL);
            Ok(match (text("client_id"), text("client_secret")) {
                (Some(id), secret) => oauth.pre_registered(&id, secret.map(Into::into)),
                _ => oauth,
            })
        }
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
    let options = if scenario.starts_with("auth/") {
        let oauth = oauth_for(scenario, context, &options)?;
        options.oauth(oauth)
    } else {
        options
    };
    let client = Client::connect_http(url, options)
        .await
        .map_err(|error| format!("connect: {error}"))?;
    eprintln!("connected, protocol version {}", client.protocol_version());
    if scenario.starts_with("sep-2640-client-") {
        let result = skills(&client, scenario).await;
        client.close().await;
        return result;
    }
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
        && (matches!(
            scenario,
            "http-standard-headers"
                | "http-invalid-tool-headers"
                | "elicitation-sep1034-client-defaults"
                | "sep-2322-client-request-state"
                | "sse-retry"
        ) || scenario.starts_with("auth/"))
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

/// The Skills extension scenarios (`sep-2640-client-*`): list the skills and, unless the
/// scenario only checks that listing reads nothing (`no-prefetch`), load the first one as a
/// host would when a task calls for it, then read its other files on demand. A skill that
/// fails verification is not loaded and none of its files is read; that is reported on
/// stderr and is the expected outcome of the `verify-*` scenarios, not a failure.
async fn skills(client: &Client, scenario: &str) -> Result<(), String> {
    let skills = client
        .list_skills()
        .await
        .map_err(|error| format!("skills/list: {error}"))?;
    eprintln!("skills/list: {} skill(s)", skills.len());
    if scenario == "sep-2640-client-no-prefetch" {
        return Ok(());
    }
    let Some(skill) = skills.first() else {
        return Err("skills/list: no skill to load".to_owned());
    };
    let loaded = match client.load_skill(skill).await {
        Ok(loaded) => loaded,
        Err(error) => {
            eprintln!("not loaded: {error}");
            return Ok(());
        }
    };
    let others: Vec<String> = loaded
        .files()
        .filter(|uri| *uri != skill.uri)
        .map(str::to_owned)
        .collect();
    for uri in others {
        match client.read_skill_file(&loaded, &uri).await {
            Ok(bytes) => eprintln!("{uri}: {} bytes verified", bytes.len()),
            Err(error) => eprintln!("{uri}: {error}"),
        }
    }
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
