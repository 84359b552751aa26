//! Cross-checks against the official MCP schemas in `../shared/spec/mcp` (skipped, with a
//! message on stderr, when that folder is absent): error codes and their names, the request id
//! type, and the official example instances against our envelopes and error shapes.

#[path = "../reference_data.rs"]
mod reference_data;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{assert_no_problems, def_validator, defs, enum_key, enum_values, schema_file};

/// Folder of the official MCP schemas (see `tests/reference_data.rs`), or `None` (with a
/// message) when it is not on a user's machine; a missing folder fails in CI.
fn official_dir() -> Option<PathBuf> {
    reference_data::require_spec_dir(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
        "the cross-check against the official schemas",
    )
}

fn official_schema(dir: &Path, version: &str) -> Value {
    let path = dir.join(version).join("schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("official schema is JSON")
}

/// Every `(definition name, code)` where an official definition pins an error `code` by `const`.
fn official_error_codes(schema: &Value) -> Vec<(String, i64)> {
    fn find(value: &Value, out: &mut Vec<i64>) {
        match value {
            Value::Object(map) => {
                if let Some(code) = map
                    .get("properties")
                    .and_then(|p| p["code"]["const"].as_i64())
                {
                    out.push(code);
                }
                map.values().for_each(|v| find(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| find(v, out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for (name, def) in schema["$defs"].as_object().expect("official $defs") {
        let mut codes = Vec::new();
        find(def, &mut codes);
        found.extend(codes.into_iter().map(|c| (name.clone(), c)));
    }
    found
}

/// `URLElicitationRequiredError` → `URL_ELICITATION_REQUIRED_ERROR`.
fn screaming_snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let starts_word = i > 0
            && c.is_ascii_uppercase()
            && (chars[i - 1].is_ascii_lowercase()
                || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()));
        if starts_word {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

#[test]
fn error_codes_match_the_official_mcp_schemas() {
    let Some(dir) = official_dir() else { return };
    let root = schema_file("errors.json");
    let mut names = Map::new();
    for def in ["JsonRpcErrorCode", "McpErrorCode"] {
        names.extend(defs(&root)[def]["x-names"].as_object().unwrap().clone());
    }
    let legacy: BTreeSet<String> = defs(&root)["McpErrorCode"]["x-legacy"]
        .as_array()
        .unwrap()
        .iter()
        .map(enum_key)
        .collect();
    let mut problems = Vec::new();
    let mut modern_codes = BTreeSet::new();
    for version in ["2025-11-25", "2026-07-28"] {
        let found = official_error_codes(&official_schema(&dir, version));
        assert!(!found.is_empty(), "no error codes found in MCP {version}");
        for (def, code) in found {
            if version == "2026-07-28" {
                modern_codes.insert(code.to_string());
            }
            let expected = screaming_snake(&def);
            match names.get(&code.to_string()).and_then(Value::as_str) {
                None => problems.push(format!(
                    "{version}: {def} uses {code}, unknown to errors.json"
                )),
                Some(ours) if ours != expected && format!("{ours}_ERROR") != expected => {
                    problems.push(format!("{version}: {code} is {def}, we call it {ours}"));
                }
                Some(_) => {}
            }
        }
    }
    for code in names.keys() {
        let is_legacy = legacy.contains(code);
        if is_legacy == modern_codes.contains(code) {
            problems.push(format!(
                "{code}: legacy={is_legacy} but present in 2026-07-28={}",
                !is_legacy
            ));
        }
    }
    assert_no_problems("error codes vs official MCP schemas", &problems);

    let official_id = &official_schema(&dir, "2026-07-28")["$defs"]["RequestId"]["type"];
    let jsonrpc = schema_file("jsonrpc.json");
    let ours = &defs(&jsonrpc)["RequestId"]["type"];
    let as_set =
        |v: &Value| -> BTreeSet<String> { v.as_array().unwrap().iter().map(enum_key).collect() };
    assert_eq!(
        as_set(official_id),
        as_set(ours),
        "RequestId types differ from MCP 2026-07-28"
    );
}

#[test]
fn official_examples_fit_our_envelopes_and_error_shapes() {
    let Some(dir) = official_dir() else { return };
    let examples = dir.join("2026-07-28").join("examples");
    let message = def_validator("jsonrpc.json", "Message");
    let error_object = def_validator("jsonrpc.json", "ErrorObject");
    let mut known_code = enum_values("errors.json", "JsonRpcErrorCode");
    known_code.extend(enum_values("errors.json", "McpErrorCode"));
    let version_data = def_validator("errors.json", "UnsupportedProtocolVersionData");
    let capability_data = def_validator("errors.json", "MissingRequiredClientCapabilityData");
    let (mut envelopes, mut errors, mut problems) = (0, 0, Vec::new());
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&examples)
        .expect("examples folder")
        .map(|e| e.unwrap().path())
        .collect();
    folders.sort();
    for folder in folders {
        let type_name = folder.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&folder)
            .expect("example folder")
            .map(|e| e.unwrap().path())
        {
            let instance: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap())
                .expect("example is JSON");
            let label = format!(
                "{type_name}/{}",
                file.file_name().unwrap().to_string_lossy()
            );
            let error = if instance.get("jsonrpc").is_some() {
                envelopes += 1;
                if let Err(e) = message.validate(&instance) {
                    problems.push(format!("{label}: not a Message: {e}"));
                }
                instance.get("error")
            } else if type_name.ends_with("Error") {
                Some(&instance)
            } else {
                None
            };
            let Some(error) = error else { continue };
            errors += 1;
            if let Err(e) = error_object.validate(error) {
                problems.push(format!("{label}: not an ErrorObject: {e}"));
            }
            if !known_code.contains(&error["code"]) {
                problems.push(format!("{label}: code {} not in our enums", error["code"]));
            }
            let data_validator = match error["code"].as_i64() {
                Some(-32022) => Some(&version_data),
                Some(-32021) => Some(&capability_data),
                _ => None,
            };
            if let Some(validator) = data_validator {
                if let Err(e) = validator.validate(&error["data"]) {
                    problems.push(format!("{label}: error data does not fit our schema: {e}"));
                }
            }
        }
    }
    assert!(
        envelopes >= 20 && errors >= 5,
        "only {envelopes} envelopes / {errors} errors found"
    );
    assert_no_problems("official examples", &problems);
}
