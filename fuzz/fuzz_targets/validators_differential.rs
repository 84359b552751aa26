//! The generated validators against the `jsonschema` crate, on the very schemas they were
//! generated from (`schema/mcp/protocol.json`, `schema/limits.json`): for arbitrary JSON,
//! any disagreement on valid / invalid is a crash. `jsonschema` does not know the OpenAPI
//! format `byte` the MCP schema uses; the oracle checks it with the `base64` crate (standard
//! alphabet, canonical padding), an implementation independent of ours.
//!
//! Input: byte 0 picks the definition, the rest is JSON text (non-JSON input is skipped).
#![no_main]

use std::sync::OnceLock;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use typed_mcp::generated::limits::Limits;
use typed_mcp::generated::protocol;
use typed_mcp::validation::{SchemaValidate, ValidationError};

type Ours = fn(&Value) -> Result<(), Vec<ValidationError>>;

/// (schema file, definition, generated validator).
const DEFINITIONS: &[(&str, &str, Ours)] = &[
    (
        "protocol",
        "Implementation",
        protocol::validate::implementation,
    ),
    ("protocol", "Tool", protocol::validate::tool),
    (
        "protocol",
        "ContentBlock",
        protocol::validate::content_block,
    ),
    (
        "protocol",
        "CallToolRequest",
        protocol::validate::call_tool_request,
    ),
    (
        "protocol",
        "InitializeRequest",
        protocol::validate::initialize_request,
    ),
    ("limits", "Limits", Limits::validate_value),
];

fn schema_text(file: &str) -> &'static str {
    match file {
        "protocol" => include_str!("../../schema/mcp/protocol.json"),
        _ => include_str!("../../schema/limits.json"),
    }
}

/// The `jsonschema` validator of each definition, built once.
fn oracles() -> &'static Vec<jsonschema::Validator> {
    static ORACLES: OnceLock<Vec<jsonschema::Validator>> = OnceLock::new();
    ORACLES.get_or_init(|| {
        DEFINITIONS
            .iter()
            .map(|(file, name, _)| {
                let mut root: Value =
                    serde_json::from_str(schema_text(file)).expect("the schema is JSON");
                let map = root.as_object_mut().expect("a schema object");
                map.insert(
                    "allOf".into(),
                    json!([{ "$ref": format!("#/$defs/{name}") }]),
                );
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .should_validate_formats(true)
                    .with_format("byte", |s: &str| STANDARD.decode(s).is_ok())
                    .build(&root)
                    .unwrap_or_else(|e| panic!("{name} compiles: {e}"))
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let [selector, text @ ..] = data else {
        return;
    };
    let Ok(value) = serde_json::from_slice::<Value>(text) else {
        return;
    };
    let index = usize::from(*selector) % DEFINITIONS.len();
    let (_, name, ours) = DEFINITIONS[index];
    let ours = ours(&value);
    let theirs = oracles()[index].is_valid(&value);
    assert_eq!(
        ours.is_ok(),
        theirs,
        "{name}: generated validator says {ours:?}, jsonschema says valid={theirs} for {value}"
    );
});
