//! Typed tool outputs over the stdio framing (an in-memory duplex), in both eras: the
//! published `outputSchema` is the uniform envelope with `data` narrowed to the output
//! definition, and every result actually sent (success, cached success, error) is valid
//! against it (checked with the `jsonschema` crate, independently of our validators).

mod mcp_server_support;

use mcp_server_support::{call, legacy_client, limits, modern, tool_error_code, TestClient};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use typed_mcp::generated::limits::Limits;
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};
use typed_mcp::validation::{SchemaValidate, ValidationError};
use typed_mcp::SchemaDefinition;

/// The conformance fixture's generated argument and output types.
#[allow(missing_docs, unreachable_pub, dead_code)]
mod fixture {
    include!(concat!(env!("OUT_DIR"), "/conformance/tools.rs"));
}
use fixture::{AddArguments, AddOutput, NoArguments};

const FIXTURE: &str = include_str!("../examples/conformance_server/tools.json");

/// A hand-written text output `[a-z]*` (the generator's string types are tested elsewhere):
/// cutting such a text to fit would break its pattern, so typed outputs are never cut.
#[derive(Debug, Serialize, Deserialize)]
struct Letters(String);

impl SchemaValidate for Letters {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        match value.as_str() {
            Some(text) if text.bytes().all(|b| b.is_ascii_lowercase()) => Ok(()),
            _ => Err(vec![ValidationError::new(
                "",
                "",
                "pattern",
                json!("^[a-z]*$"),
                Value::Null,
                "not lowercase letters",
            )]),
        }
    }
}

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

impl SchemaDefinition for Letters {
    const NAME: &'static str = "Letters";
    const SCHEMA: &'static str = r#"{"type": "string", "pattern": "^[a-z]*$"}"#;
    const DESCRIPTION: Option<&'static str> = None;
}

/// A type paired with a definition that is not its own: the definition's example (an
/// object) does not decode into it (a string).
#[derive(Debug, Serialize, Deserialize)]
struct Mismatched(String);

impl SchemaValidate for Mismatched {
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>> {
        Letters::validate_value(value)
    }
}

impl SchemaDefinition for Mismatched {
    const NAME: &'static str = "AddOutput";
    const SCHEMA: &'static str = r#"{"type": "object", "properties": {"sum": {"type": "integer"}},
        "examples": [{"sum": 1}]}"#;
    const DESCRIPTION: Option<&'static str> = None;
}

fn server(limits: Limits) -> McpServer {
    let add = ToolDefinition::new("add", |_ctx: ToolContext, args: AddArguments| async move {
        let sum = args.a + args.b;
        if sum == 13 {
            return Err(ToolCallError::failed("unlucky"));
        }
        Ok(AddOutput {
            sum,
            summary: format!("{} + {} = {sum}", args.a, args.b),
        })
    })
    .unwrap()
    .description("Adds two integers (a sum of at most 1000).")
    .cacheable(true);
    let letters = ToolDefinition::new("letters", |_ctx: ToolContext, _args: NoArguments| {
        Ok(Letters("x".repeat(10_000)))
    })
    .unwrap()
    .description("Many letters.");
    McpServer::builder("typed-output", "1.0.0")
        .limits(limits)
        .tool(add)
        .tool(letters)
        .build()
        .unwrap()
}

fn published_output_schema(list: &Value, tool: &str) -> Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == tool)
        .expect("the tool is listed")["outputSchema"]
        .clone()
}

/// Asserts the result's `structuredContent` is valid against the published schema.
fn assert_described(schema: &Value, result: &Value) {
    let validator = jsonschema::validator_for(schema).expect("the published schema compiles");
    let sent = &result["structuredContent"];
    let violations: Vec<String> = validator.iter_errors(sent).map(|e| e.to_string()).collect();
    assert!(violations.is_empty(), "{violations:?}\nsent: {result}");
}

#[tokio::test]
async fn the_published_output_schema_describes_every_result_sent() {
    let mut client = legacy_client(server(Limits::default()), "2025-11-25").await;
    let list = client.result(json!(1), "tools/list", None).await;
    let schema = published_output_schema(&list, "add");
    let file: Value = serde_json::from_str(FIXTURE).expect("JSON");
    assert_envelope_of(&schema, &file["$defs"]["AddOutput"]);
    assert_eq!(
        schema["$defs"]["ToolSuccess"]["properties"]["data"]["properties"]["sum"]["maximum"],
        1000
    );

    let add = |a: i64, b: i64| Some(call("add", json!({"a": a, "b": b})));
    let first = client.result(json!(2), "tools/call", add(1, 2)).await;
    assert_eq!(first["isError"], false, "{first}");
    assert_eq!(
        first["structuredContent"]["data"],
        json!({"sum": 3, "summary": "1 + 2 = 3"})
    );
    assert_described(&schema, &first);
    let text: Value = serde_json::from_str(first["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, first["structuredContent"]["data"]);

    // The same call again comes from the result cache: same data, still described.
    let cached = client.result(json!(3), "tools/call", add(1, 2)).await;
    assert_eq!(
        cached["structuredContent"]["meta"]["cached"], true,
        "{cached}"
    );
    assert_eq!(
        cached["structuredContent"]["data"],
        first["structuredContent"]["data"]
    );
    assert_described(&schema, &cached);

    // A failure of the tool and invalid arguments: error envelopes, described too.
    let failed = client.result(json!(4), "tools/call", add(6, 7)).await;
    assert_eq!(tool_error_code(&failed), "TOOL_FAILED");
    assert_described(&schema, &failed);
    let invalid = client
        .result(json!(5), "tools/call", Some(call("add", json!({"a": "x"}))))
        .await;
    assert_eq!(tool_error_code(&invalid), "VALIDATION_FAILED");
    assert_described(&schema, &invalid);
}

#[tokio::test]
async fn an_output_violating_its_definition_is_never_sent() {
    let mut client = TestClient::start(server(Limits::default()));
    let list = client
        .result(json!(1), "tools/list", Some(modern(json!({}))))
        .await;
    let schema = published_output_schema(&list, "add");
    let over = client
        .result(
            json!(2),
            "tools/call",
            Some(modern(call("add", json!({"a": 999, "b": 999})))),
        )
        .await;
    assert_eq!(tool_error_code(&over), "INTERNAL", "{over}");
    assert!(
        !over.to_string().contains("1998"),
        "the invalid output leaked: {over}"
    );
    assert_described(&schema, &over);
    let fine = client
        .result(
            json!(3),
            "tools/call",
            Some(modern(call("add", json!({"a": 500, "b": 500})))),
        )
        .await;
    assert_eq!(fine["structuredContent"]["data"]["sum"], 1000, "{fine}");
    assert_described(&schema, &fine);
}

#[tokio::test]
async fn a_typed_text_output_is_never_cut_to_fit() {
    let small = limits(json!({"response": {"maxResponseBytes": 4096}}));
    let mut client = legacy_client(server(small), "2025-11-25").await;
    let list = client.result(json!(1), "tools/list", None).await;
    let schema = published_output_schema(&list, "letters");
    let result = client
        .result(json!(2), "tools/call", Some(call("letters", json!({}))))
        .await;
    assert_eq!(tool_error_code(&result), "RESPONSE_TOO_LARGE", "{result}");
    assert_described(&schema, &result);
}

#[test]
fn an_output_definition_that_does_not_match_its_type_is_refused() {
    let mismatched =
        ToolDefinition::<()>::new("mismatched", |_ctx: ToolContext, _args: NoArguments| {
            Ok(Mismatched(String::new()))
        })
        .map(|tool| tool.description("The definition and the type disagree."));
    assert!(mismatched.is_err());
}

#[tokio::test]
async fn returns_content_does_not_change_a_typed_output() {
    let add = ToolDefinition::new("add", |_ctx: ToolContext, args: AddArguments| async move {
        Ok(AddOutput {
            sum: args.a + args.b,
            summary: String::new(),
        })
    })
    .unwrap()
    .description("Adds two integers.")
    .returns_content();
    let server = McpServer::builder("typed-output", "1.0.0")
        .tool(add)
        .build()
        .unwrap();
    let mut client = legacy_client(server, "2025-11-25").await;
    let list = client.result(json!(1), "tools/list", None).await;
    let schema = published_output_schema(&list, "add");
    let result = client
        .result(
            json!(2),
            "tools/call",
            Some(call("add", json!({"a": 2, "b": 2}))),
        )
        .await;
    assert_eq!(result["structuredContent"]["data"]["sum"], 4, "{result}");
    assert_described(&schema, &result);
}
