//! The client against a server others wrote: `@modelcontextprotocol/server-everything`
//! (the official TypeScript SDK's test server, 2025 versions only) over stdio and over
//! Streamable HTTP on 127.0.0.1. `auto` falls back from `server/discover` to `initialize`;
//! every typed method is exercised, with `call_tool_typed` checking the structured result
//! against the tool's published `outputSchema`. Skipped with a printed reason when
//! tests/interop/node_modules lacks the server, failed in CI.

mod client_support;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use typed_mcp::client::{Client, ClientError, CompletionTarget, ServerCommand};
use typed_mcp::generated::protocol::LoggingLevel;
use typed_mcp::validation::{SchemaValidate, ValidationError};

use client_support::everything::{everything_command, EverythingHttp};
use client_support::{options, runtime};

/// The version choices this 2025-only server is driven with, and where each must end.
const CHOICES: &[(&str, &str)] = &[
    ("auto", "2025-11-25"),
    ("2025-11-25", "2025-11-25"),
    ("2025-06-18", "2025-06-18"),
    ("2025-03-26", "2025-03-26"),
];

/// Arguments of `get-structured-content`; the validator stands in for a generated one.
#[derive(Serialize)]
struct WeatherArgs {
    location: &'static str,
}

impl SchemaValidate for WeatherArgs {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        let cities = ["New York", "Chicago", "Los Angeles"];
        if value["location"]
            .as_str()
            .is_some_and(|city| cities.contains(&city))
        {
            return Ok(());
        }
        Err(vec![ValidationError::new(
            "/location",
            "#/properties/location/enum",
            "enum",
            json!(cities),
            Value::Null,
            "must be one of the three cities",
        )])
    }
}

/// The structured result of `get-structured-content`.
#[derive(Debug, Deserialize)]
struct Weather {
    temperature: f64,
    conditions: String,
    humidity: f64,
}

impl SchemaValidate for Weather {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        let ok = value["temperature"].is_number()
            && value["conditions"].is_string()
            && value["humidity"].is_number();
        if ok {
            return Ok(());
        }
        Err(vec![ValidationError::new(
            "",
            "#/required",
            "required",
            Value::Null,
            Value::Null,
            "temperature, conditions and humidity are required",
        )])
    }
}

async fn exercise(client: &Client, expected_version: &str, what: &str) {
    assert_eq!(client.protocol_version(), expected_version, "{what}");
    assert!(!client.is_modern(), "{what}");
    client
        .ping()
        .await
        .unwrap_or_else(|e| panic!("{what}: ping: {e}"));

    let tools = client
        .list_tools()
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/list: {e}"));
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in ["echo", "get-sum", "get-structured-content"] {
        assert!(names.contains(&expected), "{what}: {names:?}");
    }
    let echo = client
        .call_tool("echo", json!({"message": "hi from rust"}))
        .await
        .unwrap_or_else(|e| panic!("{what}: echo: {e}"));
    let text = serde_json::to_string(echo.content()).expect("serializable");
    assert!(text.contains("hi from rust"), "{what}: {text}");
    let sum = client
        .call_tool("get-sum", json!({"a": 2, "b": 40}))
        .await
        .unwrap_or_else(|e| panic!("{what}: get-sum: {e}"));
    let text = serde_json::to_string(sum.content()).expect("serializable");
    assert!(text.contains("42"), "{what}: {text}");

    let weather: Weather = client
        .call_tool_typed(
            "get-structured-content",
            &WeatherArgs {
                location: "Chicago",
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{what}: get-structured-content: {e}"));
    assert_eq!(weather.temperature, 36.0, "{what}: {weather:?}");
    assert!(
        !weather.conditions.is_empty() && weather.humidity > 0.0,
        "{what}"
    );
    let refused = client
        .call_tool_typed::<_, Weather>("get-structured-content", &WeatherArgs { location: "Paris" })
        .await
        .expect_err("Paris is not offered");
    assert!(
        matches!(refused, ClientError::InvalidRequest { .. }),
        "{what}: {refused:?}"
    );

    let resources = client
        .list_resources()
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/list: {e}"));
    let first = resources
        .first()
        .unwrap_or_else(|| panic!("{what}: no resources"));
    let read = client
        .read_resource(&first.uri)
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/read: {e}"));
    assert!(!read.contents().is_empty(), "{what}");
    let templates = client
        .list_resource_templates()
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/templates/list: {e}"));
    assert!(
        templates.iter().any(|t| t.uri_template.contains('{')),
        "{what}: {templates:?}"
    );
    client
        .subscribe(&first.uri)
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/subscribe: {e}"));
    client
        .unsubscribe(&first.uri)
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/unsubscribe: {e}"));

    let prompts = client
        .list_prompts()
        .await
        .unwrap_or_else(|e| panic!("{what}: prompts/list: {e}"));
    assert!(prompts.iter().any(|p| p.name == "simple-prompt"), "{what}");
    let simple = client
        .get_prompt("simple-prompt", json!({}))
        .await
        .unwrap_or_else(|e| panic!("{what}: prompts/get: {e}"));
    assert!(!simple.messages().is_empty(), "{what}");
    let target = CompletionTarget::Prompt("completable-prompt");
    let departments = client
        .complete(target, "department", "E", &BTreeMap::new())
        .await
        .unwrap_or_else(|e| panic!("{what}: completion/complete: {e}"));
    assert_eq!(departments.values, ["Engineering"], "{what}");
    let context = BTreeMap::from([("department".to_owned(), "Sales".to_owned())]);
    let people = client
        .complete(target, "name", "", &context)
        .await
        .unwrap_or_else(|e| panic!("{what}: completion/complete with context: {e}"));
    assert_eq!(people.values, ["David", "Eve", "Frank"], "{what}");

    client
        .set_log_level(LoggingLevel::Debug)
        .await
        .unwrap_or_else(|e| panic!("{what}: logging/setLevel: {e}"));
    match client.read_resource("demo://no/such/resource").await {
        Err(ClientError::Rpc { .. }) => {}
        other => panic!("{what}: an unknown resource: {other:?}"),
    }
}

/// A pinned 2026-07-28 client does not fall back: the server's refusal is typed.
async fn pinned_modern_is_refused(
    connect: impl std::future::Future<Output = Result<Client, ClientError>>,
) {
    match connect.await {
        Err(
            ClientError::Rpc { .. }
            | ClientError::UnsupportedVersion { .. }
            | ClientError::HttpStatus { .. },
        ) => {}
        other => panic!("a pinned 2026-07-28 client against a 2025 server: {other:?}"),
    }
}

#[test]
fn server_everything_over_stdio() {
    let Some((node, script)) = everything_command() else {
        return;
    };
    let rt = runtime();
    let command = || ServerCommand::new(&node).arg(&script).arg("stdio");
    for (choice, expected) in CHOICES {
        rt.block_on(async {
            let what = format!("server-everything, stdio, --version {choice}");
            let client = Client::connect_stdio(command(), options(choice))
                .await
                .unwrap_or_else(|error| panic!("{what}: connect: {error}"));
            exercise(&client, expected, &what).await;
            client.close().await;
        });
    }
    rt.block_on(pinned_modern_is_refused(Client::connect_stdio(
        command(),
        options("2026-07-28"),
    )));
}

#[test]
fn server_everything_over_http() {
    let Some((node, script)) = everything_command() else {
        return;
    };
    let server = EverythingHttp::start(&node, &script);
    let rt = runtime();
    for (choice, expected) in CHOICES {
        rt.block_on(async {
            let what = format!("server-everything, HTTP, --version {choice}");
            let client = Client::connect_http(&server.url, options(choice))
                .await
                .unwrap_or_else(|error| panic!("{what}: connect: {error}"));
            exercise(&client, expected, &what).await;
            client.close().await;
        });
    }
    rt.block_on(pinned_modern_is_refused(Client::connect_http(
        &server.url,
        options("2026-07-28"),
    )));
}
