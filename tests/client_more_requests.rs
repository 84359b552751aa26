//! The client's requests beyond the basics, against a fake server written here (2026-07-28
//! over an in-memory pipe): listings that page through opaque cursors, resource templates,
//! completion, the per-request log level, subscriptions refused in this era, and
//! `call_tool_typed` checking arguments before sending and `structuredContent` against the
//! tool's published `outputSchema` on arrival.

mod client_support;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use typed_mcp::client::{ClientError, CompletionTarget};
use typed_mcp::generated::protocol::LoggingLevel;
use typed_mcp::validation::{SchemaValidate, ValidationError};

use client_support::fake::{connect, tools_page, SECRET};

fn complete_page(member: &str, items: Value, cursor: Option<&str>) -> Value {
    let mut page = json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private"});
    page[member] = items;
    if let Some(cursor) = cursor {
        page["nextCursor"] = json!(cursor);
    }
    page
}

#[tokio::test]
async fn listings_follow_opaque_cursors_and_ignore_unknown_members() {
    let (client, mut fake) = connect(1 << 16).await;
    let listing = {
        let client = client.clone();
        tokio::spawn(async move { client.list_resource_templates().await })
    };
    let first = fake.request("resources/templates/list").await;
    assert!(first["params"].get("cursor").is_none(), "{first}");
    let mut page = complete_page(
        "resourceTemplates",
        json!([{"uriTemplate": "demo://a/{x}", "name": "a", "laterField": 1}]),
        Some("opaque+/=1"),
    );
    page["unknownTopLevel"] = json!({"k": true});
    fake.answer(&first["id"], page).await;
    let second = fake.request("resources/templates/list").await;
    assert_eq!(second["params"]["cursor"], "opaque+/=1");
    let last = complete_page(
        "resourceTemplates",
        json!([{"uriTemplate": "demo://b/{y}", "name": "b"}]),
        None,
    );
    fake.answer(&second["id"], last).await;
    let templates = listing.await.expect("no panic").expect("two pages");
    let names: Vec<&str> = templates.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);

    // Three pages of tools; a declared member of the wrong type is still refused.
    let listing = {
        let client = client.clone();
        tokio::spawn(async move { client.list_tools().await })
    };
    for (index, cursor) in [Some("c1"), Some("c2"), None].into_iter().enumerate() {
        let request = fake.request("tools/list").await;
        let mut page = tools_page(json!([{"name": format!("t{index}"),
            "inputSchema": {"type": "object"}, "x-extra": index}]));
        if let Some(cursor) = cursor {
            page["nextCursor"] = json!(cursor);
        }
        fake.answer(&request["id"], page).await;
    }
    let tools = listing.await.expect("no panic").expect("three pages");
    assert_eq!(tools.len(), 3);
    let listing = {
        let client = client.clone();
        tokio::spawn(async move { client.list_resource_templates().await })
    };
    let request = fake.request("resources/templates/list").await;
    let bad = complete_page(
        "resourceTemplates",
        json!([{"uriTemplate": 5, "name": SECRET}]),
        None,
    );
    fake.answer(&request["id"], bad).await;
    let error = listing.await.expect("no panic").expect_err("invalid");
    assert!(
        error
            .violations()
            .iter()
            .any(|e| e.path() == "/resourceTemplates/0/uriTemplate"),
        "{error:?}"
    );
}

#[tokio::test]
async fn completion_log_level_and_subscriptions_in_2026() {
    let (client, mut fake) = connect(1 << 16).await;
    let completing = {
        let client = client.clone();
        tokio::spawn(async move {
            let context = BTreeMap::from([("department".to_owned(), "Sales".to_owned())]);
            client
                .complete(CompletionTarget::Prompt("team"), "name", "D", &context)
                .await
        })
    };
    let request = fake.request("completion/complete").await;
    let params = &request["params"];
    assert_eq!(params["ref"], json!({"type": "ref/prompt", "name": "team"}));
    assert_eq!(params["argument"], json!({"name": "name", "value": "D"}));
    assert_eq!(params["context"]["arguments"]["department"], "Sales");
    assert!(params["_meta"]
        .get("io.modelcontextprotocol/logLevel")
        .is_none());
    let answer = json!({"resultType": "complete",
        "completion": {"values": ["David"], "total": 1, "hasMore": false}});
    fake.answer(&request["id"], answer).await;
    let completion = completing.await.expect("no panic").expect("completed");
    assert_eq!(completion.values, ["David"]);

    // More than 100 suggestions break the schema.
    let completing = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .complete(
                    CompletionTarget::ResourceTemplate("demo://{x}"),
                    "x",
                    "",
                    &BTreeMap::new(),
                )
                .await
        })
    };
    let request = fake.request("completion/complete").await;
    assert_eq!(request["params"]["ref"]["type"], "ref/resource");
    let values: Vec<String> = (0..101).map(|i| format!("v{i}")).collect();
    fake.answer(
        &request["id"],
        json!({"resultType": "complete", "completion": {"values": values}}),
    )
    .await;
    let error = completing.await.expect("no panic").expect_err("too many");
    assert!(
        error.violations().iter().any(|e| e.keyword() == "maxItems"),
        "{error:?}"
    );

    // In 2026-07-28 the level travels in every later request's `_meta`.
    client
        .set_log_level(LoggingLevel::Warning)
        .await
        .expect("no request is needed");
    let listing = {
        let client = client.clone();
        tokio::spawn(async move { client.list_tools().await })
    };
    let request = fake.request("tools/list").await;
    assert_eq!(
        request["params"]["_meta"]["io.modelcontextprotocol/logLevel"],
        "warning"
    );
    fake.answer(&request["id"], tools_page(json!([]))).await;
    listing.await.expect("no panic").expect("listed");

    let refused = client.subscribe("demo://a").await.expect_err("2025 only");
    assert!(
        matches!(
            refused,
            ClientError::NotInEra {
                method: "resources/subscribe",
                ..
            }
        ),
        "{refused:?}"
    );
}

/// Arguments of the `weather` tool; its validator stands in for a generated one.
#[derive(Serialize)]
struct WeatherArgs {
    city: String,
}

impl SchemaValidate for WeatherArgs {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        match value["city"].as_str() {
            Some(city) if !city.is_empty() => Ok(()),
            _ => Err(vec![ValidationError::new(
                "/city",
                "#/properties/city/minLength",
                "minLength",
                json!(1),
                json!(0),
                "must not be empty",
            )]),
        }
    }
}

/// The `weather` tool's structured result.
#[derive(Debug, Deserialize, PartialEq)]
struct Weather {
    temperature: f64,
}

impl SchemaValidate for Weather {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        if value["temperature"].is_number() {
            Ok(())
        } else {
            Err(vec![ValidationError::new(
                "/temperature",
                "#/properties/temperature/type",
                "type",
                json!("number"),
                json!(null),
                "must be a number",
            )])
        }
    }
}

#[tokio::test]
async fn call_tool_typed_checks_arguments_before_and_the_output_schema_after() {
    let (client, mut fake) = connect(1 << 16).await;
    let published = json!([{"name": "weather", "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object",
            "properties": {"temperature": {"type": "number"}, "unit": {"enum": ["C", "F"]}},
            "required": ["temperature", "unit"]}}]);

    // Invalid arguments: refused before anything is sent (the next request the server
    // sees is the listing of the valid call below).
    let error = client
        .call_tool_typed::<WeatherArgs, Weather>(
            "weather",
            &WeatherArgs {
                city: String::new(),
            },
        )
        .await
        .expect_err("empty city");
    let ClientError::InvalidRequest { errors, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(errors[0].path(), "/params/arguments/city");

    let call = |city: &str| {
        let client = client.clone();
        let args = WeatherArgs {
            city: city.to_owned(),
        };
        tokio::spawn(async move {
            client
                .call_tool_typed::<WeatherArgs, Weather>("weather", &args)
                .await
        })
    };
    let good = call("Oslo");
    let listing = fake.request("tools/list").await;
    fake.answer(&listing["id"], tools_page(published)).await;
    let request = fake.request("tools/call").await;
    assert_eq!(request["params"]["arguments"], json!({"city": "Oslo"}));
    fake.answer(
        &request["id"],
        json!({"resultType": "complete",
        "content": [{"type": "text", "text": "-3 C"}],
        "structuredContent": {"temperature": -3, "unit": "C"}}),
    )
    .await;
    let weather = good.await.expect("no panic").expect("valid");
    assert_eq!(weather, Weather { temperature: -3.0 });

    // The schema is known now: no second listing. A result breaking it is refused with
    // the path of the violation, without quoting the value.
    let bad = call("Bergen");
    let request = fake.request("tools/call").await;
    fake.answer(
        &request["id"],
        json!({"resultType": "complete", "content": [],
        "structuredContent": {"temperature": 4, "unit": SECRET}}),
    )
    .await;
    let error = bad.await.expect("no panic").expect_err("unit not in enum");
    assert!(!format!("{error} {error:?}").contains(SECRET), "{error:?}");
    let ClientError::InvalidMessage {
        definition, errors, ..
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(*definition, "outputSchema");
    assert_eq!(errors[0].path(), "/structuredContent/unit");
    assert_eq!(errors[0].keyword(), "enum");

    // No structured result at all, and a tool failure.
    let missing = call("Bodø");
    let request = fake.request("tools/call").await;
    fake.answer(
        &request["id"],
        json!({"resultType": "complete", "content": []}),
    )
    .await;
    let error = missing.await.expect("no panic").expect_err("missing");
    assert_eq!(error.violations()[0].path(), "/structuredContent");
    let failed = call("Tromsø");
    let request = fake.request("tools/call").await;
    fake.answer(
        &request["id"],
        json!({"resultType": "complete", "isError": true,
        "content": [{"type": "text", "text": "no such city"}]}),
    )
    .await;
    let error = failed.await.expect("no panic").expect_err("tool failed");
    assert!(
        matches!(&error, ClientError::ToolFailed { tool, .. } if tool == "weather"),
        "{error:?}"
    );
}
