//! Shared helpers of the oracle tests: reading the official examples and building the
//! reference validator.

// Each test file uses a different subset of these helpers.
#![allow(dead_code)]

#[path = "../../../reference_data.rs"]
mod reference_data;

use std::path::{Path, PathBuf};

use serde_json::Value;
use typed_mcp_oracle::Definition;

/// The examples folder of 2026-07-28, or `None` (after printing why) when absent.
pub(crate) fn examples_dir() -> Option<PathBuf> {
    let in_ci = reference_data::in_ci();
    let Some(spec) = typed_mcp_oracle::spec_dir() else {
        assert!(
            !in_ci,
            "CI must run the oracle: the official schemas were not found"
        );
        eprintln!("SKIPPED: the official schemas are absent (TYPED_MCP_SPEC_DIR, default ../shared/spec/mcp)");
        return None;
    };
    if typed_mcp_oracle::versions().is_empty() {
        assert!(
            !in_ci,
            "CI must run the oracle: the oracle crate was built without the official schemas"
        );
        eprintln!("SKIPPED: the oracle crate was built without the official schemas");
        return None;
    }
    Some(spec.join("2026-07-28/examples"))
}

/// Every official example: (definition name, file, value), sorted.
pub(crate) fn examples(dir: &Path) -> Vec<(String, PathBuf, Value)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("examples folder") {
        let folder = entry.expect("entry").path();
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&folder).expect("example folder") {
            let file = file.expect("entry").path();
            if file.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&file).expect("example file");
                let value = serde_json::from_str(&text).expect("example is JSON");
                out.push((name.clone(), file, value));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

/// The generated definition called `name` in `version`.
pub(crate) fn definition(version: &str, name: &str) -> Definition {
    let (_, defs) = typed_mcp_oracle::versions()
        .into_iter()
        .find(|(v, _)| *v == version)
        .expect("version generated");
    *defs
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no generated definition `{name}`"))
}

/// The `jsonschema` crate's validator for one definition of an official schema, with
/// format checks on (and `byte` meaning standard base64, as our validators read it).
pub(crate) fn reference_validator(version: &str, name: &str) -> jsonschema::Validator {
    let spec = typed_mcp_oracle::spec_dir().expect("spec present");
    let text = std::fs::read_to_string(spec.join(version).join("schema.json")).expect("schema");
    let mut schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    schema["$ref"] = Value::String(format!("#/$defs/{name}"));
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .with_format("byte", |s: &str| {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.decode(s).is_ok()
        })
        .build(&schema)
        .expect("the official schema compiles")
}
