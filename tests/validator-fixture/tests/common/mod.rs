//! Shared helpers: the `jsonschema` oracle and error summaries.

use base64::Engine as _;
use serde_json::{json, Value};
use typed_mcp::validation::ValidationError;

/// A `jsonschema` validator for definition `def` of `schema`, with format assertion on and
/// the OpenAPI `byte` format checked by the `base64` crate (an independent implementation).
pub(crate) fn oracle(schema: &Value, def: &str) -> jsonschema::Validator {
    let mut root = schema.clone();
    root["$ref"] = json!(format!("#/$defs/{def}"));
    jsonschema::options()
        .should_validate_formats(true)
        .with_format("byte", |s: &str| {
            base64::engine::general_purpose::STANDARD.decode(s).is_ok()
        })
        .build(&root)
        .expect("the fixture schema compiles")
}

/// `(path, keyword)` of every error, sorted.
#[allow(dead_code, reason = "not every test binary compares error lists")]
pub(crate) fn summary(errors: &[ValidationError]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = errors
        .iter()
        .map(|e| (e.path().to_owned(), e.keyword().to_owned()))
        .collect();
    out.sort();
    out
}

/// Reads a JSON file.
#[allow(dead_code, reason = "not every test binary reads files")]
pub(crate) fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).expect("readable file");
    serde_json::from_str(&text).expect("valid JSON")
}
