//! Helpers shared by the `tools_*` tests: building runners, reading results, and checking
//! every result against `schema/errors.json` (generated validators) and, when the official
//! MCP schema is present, against its `CallToolResult`.

#![allow(dead_code)]

#[path = "../reference_data.rs"]
mod reference_data;

use std::path::Path;
use std::sync::OnceLock;

use serde_json::{json, Value};
use typed_mcp::generated::errors::{validate, ToolErrorCode};
use typed_mcp::generated::limits::Limits;
use typed_mcp::jsonrpc::{Id, Response};
use typed_mcp::tools::{CallOutcome, ToolCallResult, META_KEY};

/// Limits from a JSON config (validated by the generated validator first).
pub(crate) fn limits(config: Value) -> Limits {
    if let Err(errors) = typed_mcp::generated::limits::validate::limits(&config) {
        panic!("test config is invalid: {errors:?}");
    }
    serde_json::from_value(config).expect("config deserializes")
}

/// The result of an outcome that must be answered.
pub(crate) fn respond(outcome: CallOutcome) -> ToolCallResult {
    match outcome {
        CallOutcome::Respond(result) => result,
        CallOutcome::Cancelled => panic!("expected a result, got Cancelled"),
    }
}

/// The result as a JSON value, after checking it is a well-formed envelope.
pub(crate) fn checked(result: &ToolCallResult) -> Value {
    let json: Value = serde_json::from_str(result.json.get()).expect("result is JSON");
    check_envelope(&json);
    assert_eq!(json["isError"], Value::Bool(result.is_error));
    assert_eq!(
        json["_meta"][META_KEY]["durationMs"].as_u64(),
        Some(result.meta.duration_ms)
    );
    json
}

/// RESP-001: the `CallToolResult` carries the envelope of `schema/errors.json`.
pub(crate) fn check_envelope(json: &Value) {
    let envelope = &json["structuredContent"];
    if let Err(errors) = validate::tool_result_envelope(envelope) {
        panic!("structuredContent is not a ToolResultEnvelope: {errors:?}\n{envelope}");
    }
    let meta = &json["_meta"][META_KEY];
    if let Err(errors) = validate::result_meta(meta) {
        panic!("_meta is not a ResultMeta: {errors:?}");
    }
    assert_eq!(&envelope["meta"], meta, "envelope meta and _meta agree");
    let ok = envelope["ok"].as_bool().expect("ok is a boolean");
    assert_eq!(
        json["isError"],
        Value::Bool(!ok),
        "isError is the negation of ok"
    );
    if ok {
        assert!(validate::tool_success(envelope).is_ok());
    } else {
        assert!(validate::tool_failure(envelope).is_ok());
        let code: ToolErrorCode =
            serde_json::from_value(envelope["error"]["code"].clone()).expect("generated code");
        assert_eq!(
            envelope["error"]["retryable"],
            Value::Bool(code.is_retryable())
        );
    }
    assert_eq!(json["resultType"], "complete");
    let content = json["content"].as_array().expect("content array");
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "text");
    assert!(content[0]["text"].is_string());
    assert!(meta["durationMs"].as_u64().is_some(), "durationMs present");
    if let Some(validator) = official_call_tool_result() {
        let errors: Vec<String> = validator.iter_errors(json).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "not an official CallToolResult: {errors:?}"
        );
    }
}

/// The official `CallToolResult` validator, or `None` (with a printed reason) when the
/// official schema is not on this machine.
pub(crate) fn official_call_tool_result() -> Option<&'static jsonschema::Validator> {
    static VALIDATOR: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            let dir = reference_data::require_spec_dir(
                Path::new(env!("CARGO_MANIFEST_DIR")),
                &["2026-07-28"],
                "the official CallToolResult check",
            )?;
            let text = std::fs::read_to_string(dir.join("2026-07-28/schema.json"))
                .expect("read the official schema");
            let mut schema: Value = serde_json::from_str(&text).expect("official schema is JSON");
            schema["$ref"] = json!("#/$defs/CallToolResult");
            Some(
                jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(&schema)
                    .expect("official schema compiles"),
            )
        })
        .as_ref()
}

/// The `schema/errors.json` document.
pub(crate) fn errors_schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/errors.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("read errors.json")).expect("JSON")
}

/// Every `ToolErrorCode` the schema lists, with its `x-retryable` membership.
pub(crate) fn schema_codes() -> Vec<(ToolErrorCode, bool)> {
    let schema = errors_schema();
    let def = &schema["$defs"]["ToolErrorCode"];
    let retryable: Vec<&str> = def["x-retryable"]
        .as_array()
        .expect("x-retryable")
        .iter()
        .map(|v| v.as_str().expect("string"))
        .collect();
    def["enum"]
        .as_array()
        .expect("enum")
        .iter()
        .map(|v| {
            let name = v.as_str().expect("string");
            (
                name.parse().expect("generated code"),
                retryable.contains(&name),
            )
        })
        .collect()
}

/// The response line the server would write for `result` under request id `id_json`.
pub(crate) fn response_line(id_json: &str, result: &ToolCallResult) -> Vec<u8> {
    let raw = serde_json::value::RawValue::from_string(id_json.to_owned()).expect("id JSON");
    let id = Id::from_raw(&raw).expect("valid id");
    let mut line = Vec::new();
    Response::result(id, result.json.as_ref()).encode_line(&mut line);
    line
}

/// The `CallOptions` for a request with id `id_json`.
pub(crate) fn options_for(id_json: &str) -> typed_mcp::tools::CallOptions {
    let raw = serde_json::value::RawValue::from_string(id_json.to_owned()).expect("id JSON");
    let id = Id::from_raw(&raw).expect("valid id");
    typed_mcp::tools::CallOptions::for_request(&id)
}

/// The envelope's error object.
pub(crate) fn error_of(json: &Value) -> &Value {
    &json["structuredContent"]["error"]
}

/// Sends on its channel when dropped: proves a handler's future was dropped.
pub(crate) struct DropSignal(pub(crate) Option<tokio::sync::oneshot::Sender<()>>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(sender) = self.0.take() {
            // The receiver may be gone when the test no longer waits; nothing to report then.
            if sender.send(()).is_err() {
                eprintln!("drop signal not awaited");
            }
        }
    }
}
