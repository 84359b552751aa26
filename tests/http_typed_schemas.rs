//! Typed outputs and verbatim argument schemas over Streamable HTTP, in both eras: what the
//! stdio tests (`mcp_server_typed_output.rs`, `mcp_server_verbatim_schema.rs`) prove, checked
//! once more through a real HTTP server on 127.0.0.1 and a real client (reqwest).

mod http_support;

use http_support::{Harness, HANG_GUARD};
use reqwest::Client;
use serde_json::{json, Value};
use typed_mcp::mcp::{McpServer, ToolDefinition, VerbatimSchema};
use typed_mcp::tools::ToolContext;

/// The conformance fixture's generated argument and output types.
#[allow(missing_docs, unreachable_pub, dead_code)]
mod fixture {
    include!(concat!(env!("OUT_DIR"), "/conformance/tools.rs"));
}
use fixture::{AddArguments, AddOutput};

const FIXTURE: &str = include_str!("../examples/conformance_server/tools.json");
const CONTACT: &str = include_str!("../examples/conformance_server/json_schema_2020_12_tool.json");

/// Checks that `published` is the uniform envelope with `data` narrowed to `definition`
/// (how the envelope itself is assembled is checked by the crate's unit tests).
fn assert_envelope_of(published: &Value, definition: &Value) {
    assert_eq!(
        published["oneOf"].as_array().map(Vec::len),
        Some(2),
        "{published}"
    );
    let data = &published["$defs"]["ToolSuccess"]["properties"]["data"];
    for (key, value) in definition.as_object().expect("an object definition") {
        assert_eq!(&data[key], value, "{key} in {published}");
    }
    assert_eq!(
        published["$defs"]["ToolFailure"]["properties"]["ok"]["const"],
        false
    );
}

async fn start() -> Harness {
    let add = ToolDefinition::new("add", |_ctx: ToolContext, args: AddArguments| async move {
        let sum = args.a + args.b;
        Ok(AddOutput {
            sum,
            summary: format!("{} + {} = {sum}", args.a, args.b),
        })
    })
    .unwrap()
    .description("Adds two integers (a sum of at most 1000).");
    let contact = ToolDefinition::new("contact", |_ctx: ToolContext, _args: Value| async move {
        Ok(Value::from("accepted"))
    })
    .unwrap()
    .description("Accepts a contact.")
    .input_schema(VerbatimSchema::from_json_text(CONTACT).unwrap())
    .unwrap();
    let server = McpServer::builder("typed-schemas", "1.0.0")
        .tool(add)
        .tool(contact)
        .build()
        .unwrap();
    let running = server
        .serve_http("127.0.0.1:0".parse().unwrap())
        .await
        .expect("listening");
    let url = running.url();
    let client = Client::builder().timeout(HANG_GUARD).build().unwrap();
    Harness {
        server,
        running,
        url,
        client,
    }
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == name)
        .expect("the tool is listed")
}

fn assert_described(schema: &Value, result: &Value) {
    let validator = jsonschema::validator_for(schema).expect("the published schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&result["structuredContent"])
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}\nsent: {result}");
}

#[tokio::test]
async fn the_2026_era_publishes_and_enforces_both_schemas() {
    let harness = start().await;
    let list = harness.modern(1, "tools/list", json!({})).await.json();
    let output_schema = tool(&list["result"], "add")["outputSchema"].clone();
    let written: Value = serde_json::from_str(CONTACT).unwrap();
    assert_eq!(tool(&list["result"], "contact")["inputSchema"], written);

    let sum = harness
        .modern(
            2,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await
        .json();
    assert_eq!(
        sum["result"]["structuredContent"]["data"]["sum"], 5,
        "{sum}"
    );
    assert_described(&output_schema, &sum["result"]);
    let over = harness
        .modern(
            3,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 999, "b": 2}}),
        )
        .await
        .json();
    assert_eq!(
        over["result"]["structuredContent"]["error"]["code"], "INTERNAL",
        "{over}"
    );
    assert_described(&output_schema, &over["result"]);

    let rejected = harness
        .modern(
            4,
            "tools/call",
            json!({"name": "contact", "arguments": {"contactMethod": "phone"}}),
        )
        .await
        .json();
    let error = &rejected["result"]["structuredContent"]["error"];
    assert_eq!(error["code"], "VALIDATION_FAILED", "{rejected}");
}

#[tokio::test]
async fn a_2025_session_gets_the_same_schemas_and_results() {
    let harness = start().await;
    let session = harness.initialize("2025-11-25").await;
    let list = harness
        .in_session(&session, 1, "tools/list", json!({}))
        .await
        .json();
    let output_schema = tool(&list["result"], "add")["outputSchema"].clone();
    let file: Value = serde_json::from_str(FIXTURE).expect("JSON");
    assert_envelope_of(&output_schema, &file["$defs"]["AddOutput"]);
    let sum = harness
        .in_session(
            &session,
            2,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
        )
        .await
        .json();
    assert_eq!(sum["result"]["isError"], false, "{sum}");
    assert_described(&output_schema, &sum["result"]);
    let accepted = harness
        .in_session(
            &session,
            3,
            "tools/call",
            json!({"name": "contact", "arguments": {"email": "a@b.c"}}),
        )
        .await
        .json();
    assert_eq!(
        accepted["result"]["structuredContent"]["data"], "accepted",
        "{accepted}"
    );
}
