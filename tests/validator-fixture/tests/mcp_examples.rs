//! Smoke test over the official MCP 2026-07-28 schema and examples (read in place, only when
//! the specification is checked out beside the repository): verdicts agree with
//! `jsonschema`, and every union selector picks the branch each example was written for.

#![cfg(mcp_schema)]

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;
use validator_fixture::mcp::registry;

fn spec_dir() -> PathBuf {
    PathBuf::from(env!("MCP_SPEC_DIR"))
}

fn schema() -> Value {
    common::read_json(&spec_dir().join("schema.json"))
}

/// `(definition name, example file, example)` for every official example.
fn examples() -> Vec<(String, PathBuf, Value)> {
    let mut out = Vec::new();
    let root = spec_dir().join("examples");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("examples folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let def = folder.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .expect("example folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in files {
            let value = common::read_json(&file);
            out.push((def.clone(), file, value));
        }
    }
    out
}

/// Resolves a JSON Pointer in `doc`.
fn at<'a>(doc: &'a Value, pointer: &str) -> &'a Value {
    doc.pointer(pointer)
        .unwrap_or_else(|| panic!("{pointer} exists"))
}

fn name_of(file: &Path) -> String {
    file.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn verdicts_match_jsonschema_on_every_official_example() {
    let schema = schema();
    let examples = examples();
    assert!(examples.len() > 50, "the examples were found");
    let mut oracles = std::collections::HashMap::new();
    for (def, file, example) in &examples {
        let validate = validator_fixture::lookup(registry::VALIDATORS, def)
            .unwrap_or_else(|| panic!("a validator for {def}"));
        let oracle = oracles
            .entry(def.clone())
            .or_insert_with(|| common::oracle(&schema, def));
        let ours = validate(example);
        assert_eq!(
            ours.is_ok(),
            oracle.is_valid(example),
            "{def}/{}: verdict differs from jsonschema: {ours:?}",
            name_of(file)
        );
    }
}

#[test]
fn selectors_pick_the_branch_each_example_was_written_for() {
    let schema = schema();
    let examples = examples();
    let mut checked = 0;
    for (union, pointer, select) in registry::SELECTORS {
        let node = at(&schema, pointer);
        let branches = node
            .get("anyOf")
            .or_else(|| node.get("oneOf"))
            .and_then(Value::as_array)
            .expect("a union");
        for (index, branch) in branches.iter().enumerate() {
            let Some(target) = branch
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            else {
                continue;
            };
            for (_, file, example) in examples.iter().filter(|(def, _, _)| def == target) {
                assert_eq!(
                    select(example),
                    Some(index),
                    "{union}: example {target}/{} selects the wrong branch",
                    name_of(file)
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} examples were checked against selectors"
    );
}

#[test]
fn a_call_tool_result_inside_a_response_is_checked_as_a_call_tool_result() {
    // `CallToolResultResponse.result` is `InputRequiredResult | CallToolResult`; both accept
    // open objects with a `resultType`. When no branch accepts the value, the errors come
    // from the most specific one (`CallToolResult`, which declares `content`), pointing at
    // the inner field.
    let validate =
        validator_fixture::lookup(registry::VALIDATORS, "CallToolResultResponse").unwrap();
    let response = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"resultType": 5, "content": [{"type": "text", "text": 5}]}
    });
    let errors = validate(&response).unwrap_err();
    assert_eq!(
        common::summary(&errors),
        [
            ("/result/content/0/text".to_string(), "type".to_string()),
            ("/result/resultType".to_string(), "type".to_string()),
        ]
    );
    // A valid tool result selects `CallToolResult` (branch 1), not the first match.
    let (_, pointer, select) = registry::SELECTORS
        .iter()
        .find(|(_, pointer, _)| *pointer == "/$defs/CallToolResultResponse/properties/result")
        .expect("the hoisted union has a selector");
    assert!(!pointer.is_empty());
    let result =
        serde_json::json!({"resultType": "complete", "content": [{"type": "text", "text": "hi"}]});
    assert_eq!(select(&result), Some(1));
    let waiting = serde_json::json!({"resultType": "input_required", "inputRequests": {}});
    assert_eq!(select(&waiting), Some(0));
}
