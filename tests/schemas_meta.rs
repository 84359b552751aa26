//! Checks the project's own JSON Schemas under `schema/` and `schema/mcp/`: each file is a valid draft 2020-12
//! schema, uses only the keywords the generator supports, documents every definition and
//! property, keeps its vendor keywords consistent with the enums they annotate, and agrees
//! with the official MCP schemas on error codes and envelope shapes (when those are present).
//!
//! Sample instances and property tests live in `schemas_meta/samples.rs`, the cross-checks
//! against the official MCP schemas in `schemas_meta/official.rs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use jsonschema::{Draft, Validator};
use serde_json::{json, Map, Value};

#[path = "schemas_meta/official.rs"]
mod official;
#[path = "schemas_meta/samples.rs"]
mod samples;

const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";
const ID_PREFIX: &str = "https://typed-mcp.invalid/schema/";

/// Keywords the generator accepts inside a schema (plus any `x-...` vendor keyword).
const ALLOWED_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "format",
    "default",
    "description",
    "title",
    "$comment",
    "examples",
];

/// Keywords allowed at the root of a file.
const ROOT_KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "title",
    "description",
    "$defs",
    "$comment",
];

/// `format` values the generator checks.
const ALLOWED_FORMATS: &[&str] = &["uri", "byte", "uri-template", "date-time", "email"];

/// Vendor keywords our schemas use; each one is documented in `schema/README.md`.
const VENDOR_KEYWORDS: &[&str] = &[
    "x-names",
    "x-descriptions",
    "x-retryable",
    "x-legacy",
    "x-discriminator",
];

/// Directory of the project's schemas.
fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schema")
}

/// Every `*.json` file of `schema/`, parsed, sorted by file name.
fn schema_files() -> Vec<(String, Value)> {
    json_files_in(&schema_dir(), "")
}

/// [`schema_files`] plus the MCP message schemas of `schema/mcp/`, named `mcp/<file>`.
fn all_schema_files() -> Vec<(String, Value)> {
    let mut all = schema_files();
    all.extend(json_files_in(&schema_dir().join("mcp"), "mcp/"));
    all
}

/// Every `*.json` file of `dir`, parsed, named `<prefix><file name>`, sorted by name.
fn json_files_in(dir: &Path, prefix: &str) -> Vec<(String, Value)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{} is readable: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let name = format!("{prefix}{}", path.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&path).expect("schema file is readable");
            let value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{name} is not valid JSON: {e}"));
            (name, value)
        })
        .collect()
}

/// One schema file, parsed.
fn schema_file(name: &str) -> Value {
    all_schema_files()
        .into_iter()
        .find(|(file, _)| file == name)
        .unwrap_or_else(|| panic!("schema/{name} exists"))
        .1
}

/// The `$defs` of a schema file.
fn defs(root: &Value) -> &Map<String, Value> {
    root["$defs"].as_object().expect("`$defs` is an object")
}

/// Compiles a schema as draft 2020-12.
fn compile(schema: &Value) -> Validator {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .build(schema)
        .unwrap_or_else(|e| panic!("schema does not compile: {e}"))
}

/// A validator for the definition `def` of the schema file `file`.
fn def_validator(file: &str, def: &str) -> Validator {
    let mut root = schema_file(file);
    assert!(defs(&root).contains_key(def), "{file} defines {def}");
    root.as_object_mut()
        .unwrap()
        .insert("$ref".into(), json!(format!("#/$defs/{def}")));
    compile(&root)
}

/// Where a schema sits in its file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Place {
    /// A direct member of `$defs`.
    Definition,
    /// A member of some `properties`.
    Property,
    /// Anything else (items, union branch, additionalProperties).
    Nested,
}

/// RFC 6901 escaping of one pointer token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Calls `visit` on every schema object at or below `schema`, with its pointer and place.
fn walk<'a, F: FnMut(&'a Map<String, Value>, &str, Place)>(
    schema: &'a Value,
    at: &str,
    place: Place,
    visit: &mut F,
) {
    let Value::Object(map) = schema else {
        return;
    };
    visit(map, at, place);
    for (key, value) in map {
        let here = format!("{at}/{}", escape(key));
        match key.as_str() {
            "properties" => {
                for (name, sub) in value.as_object().into_iter().flatten() {
                    let pointer = format!("{here}/{}", escape(name));
                    walk(sub, &pointer, Place::Property, visit);
                }
            }
            "additionalProperties" | "items" => walk(value, &here, Place::Nested, visit),
            "anyOf" | "oneOf" | "allOf" => {
                for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                    walk(sub, &format!("{here}/{i}"), Place::Nested, visit);
                }
            }
            _ => {}
        }
    }
}

/// Calls `visit` on every schema object of a file (every definition and all below).
fn walk_file<'a, F: FnMut(&'a Map<String, Value>, &str, Place)>(root: &'a Value, visit: &mut F) {
    for (name, def) in defs(root) {
        walk(
            def,
            &format!("/$defs/{}", escape(name)),
            Place::Definition,
            visit,
        );
    }
}

/// Key under which an enum value appears in `x-names` / `x-descriptions`.
fn enum_key(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The values of the enum definition `def` in `file`.
fn enum_values(file: &str, def: &str) -> Vec<Value> {
    defs(&schema_file(file))[def]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("{def} has an enum"))
        .clone()
}

/// Fails with every problem found, one a line.
fn assert_no_problems(what: &str, problems: &[String]) {
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
}

#[test]
fn schema_files_parse_and_declare_draft_2020_12() {
    let files = all_schema_files();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for expected in ["errors.json", "jsonrpc.json", "limits.json"] {
        assert!(names.contains(&expected), "schema/{expected} is missing");
    }
    let mut problems = Vec::new();
    for (name, root) in &files {
        let root_map = root.as_object().expect("a schema file is an object");
        if root["$schema"] != DRAFT_2020_12 {
            problems.push(format!("{name}: $schema is not {DRAFT_2020_12}"));
        }
        if root["$id"] != format!("{ID_PREFIX}{name}").as_str() {
            problems.push(format!("{name}: $id is not {ID_PREFIX}{name}"));
        }
        for key in ["title", "description"] {
            if root[key].as_str().is_none_or(|s| s.trim().is_empty()) {
                problems.push(format!("{name}: root `{key}` missing or empty"));
            }
        }
        if root["$defs"].as_object().is_none_or(|d| d.is_empty()) {
            problems.push(format!("{name}: `$defs` missing or empty"));
        }
        for key in root_map.keys() {
            if !ROOT_KEYWORDS.contains(&key.as_str()) {
                problems.push(format!("{name}: unexpected root keyword `{key}`"));
            }
        }
    }
    assert_no_problems("schema file roots", &problems);
}

#[test]
fn schema_files_are_valid_against_the_meta_schema_and_compile() {
    for (name, root) in all_schema_files() {
        if let Err(e) = jsonschema::meta::validate(&root) {
            panic!(
                "{name} violates the 2020-12 meta-schema at {}: {e}",
                e.instance_path()
            );
        }
        let built = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .build(&root);
        assert!(built.is_ok(), "{name} does not compile: {:?}", built.err());
        for def in defs(&root).keys() {
            // Resolves every `$ref` reachable from the definition.
            drop(def_validator(&name, def));
        }
    }
}

#[test]
fn only_supported_keywords_appear() {
    let mut problems = Vec::new();
    for (name, root) in all_schema_files() {
        let def_names: BTreeSet<&String> = defs(&root).keys().collect();
        walk_file(&root, &mut |map, at, _| {
            for (key, value) in map {
                if key.starts_with("x-") {
                    if !VENDOR_KEYWORDS.contains(&key.as_str()) {
                        problems.push(format!("{name}{at}: undocumented vendor keyword `{key}`"));
                    }
                    continue;
                }
                if !ALLOWED_KEYWORDS.contains(&key.as_str()) {
                    problems.push(format!("{name}{at}: unsupported keyword `{key}`"));
                }
                match key.as_str() {
                    "format" if !ALLOWED_FORMATS.contains(&value.as_str().unwrap_or("")) => {
                        problems.push(format!("{name}{at}: unsupported format {value}"));
                    }
                    "items" if !value.is_object() => {
                        problems.push(format!("{name}{at}: `items` must be a schema object"));
                    }
                    "$ref" => {
                        let target = value.as_str().and_then(|r| r.strip_prefix("#/$defs/"));
                        if !target.is_some_and(|t| def_names.contains(&t.to_string())) {
                            problems.push(format!("{name}{at}: $ref {value} is not a local def"));
                        }
                    }
                    _ => {}
                }
            }
        });
    }
    assert_no_problems("unsupported keywords", &problems);
}

#[test]
fn every_definition_and_property_has_a_description() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for (name, root) in all_schema_files() {
        walk_file(&root, &mut |map, at, place| {
            if place == Place::Nested {
                return;
            }
            checked += 1;
            let ok = map
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| !d.trim().is_empty());
            if !ok {
                problems.push(format!("{name}{at}: no description ({place:?})"));
            }
        });
    }
    assert!(checked > 50, "the walk reached only {checked} schemas");
    assert_no_problems("missing descriptions", &problems);
}

#[test]
fn vendor_keywords_agree_with_their_enums() {
    let mut problems = Vec::new();
    for (name, root) in all_schema_files() {
        walk_file(&root, &mut |map, at, _| {
            let keys: BTreeSet<String> = map
                .get("enum")
                .and_then(Value::as_array)
                .map(|values| values.iter().map(enum_key).collect())
                .unwrap_or_default();
            for vendor in ["x-names", "x-descriptions", "x-retryable", "x-legacy"] {
                if map.contains_key(vendor) && keys.is_empty() {
                    problems.push(format!("{name}{at}: `{vendor}` without an `enum`"));
                }
            }
            for vendor in ["x-names", "x-descriptions"] {
                let Some(entries) = map.get(vendor) else {
                    continue;
                };
                let Some(entries) = entries.as_object() else {
                    problems.push(format!("{name}{at}: `{vendor}` is not an object"));
                    continue;
                };
                let covered: BTreeSet<String> = entries.keys().cloned().collect();
                if covered != keys {
                    problems.push(format!(
                        "{name}{at}: `{vendor}` keys {covered:?} != {keys:?}"
                    ));
                }
                if entries
                    .values()
                    .any(|v| v.as_str().is_none_or(str::is_empty))
                {
                    problems.push(format!(
                        "{name}{at}: `{vendor}` has an empty or non-string value"
                    ));
                }
            }
            if let Some(names) = map.get("x-names").and_then(Value::as_object) {
                let distinct: BTreeSet<String> = names.values().map(enum_key).collect();
                if distinct.len() != names.len() {
                    problems.push(format!("{name}{at}: `x-names` repeats a name"));
                }
                let screaming = |s: &str| {
                    s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                        && s.chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                };
                if !names.values().all(|v| v.as_str().is_some_and(screaming)) {
                    problems.push(format!(
                        "{name}{at}: `x-names` must be SCREAMING_SNAKE_CASE"
                    ));
                }
            }
            for vendor in ["x-retryable", "x-legacy"] {
                let Some(listed) = map.get(vendor) else {
                    continue;
                };
                let listed: Vec<String> = listed
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(enum_key)
                    .collect();
                let distinct: BTreeSet<&String> = listed.iter().collect();
                if listed.is_empty() || distinct.len() != listed.len() {
                    problems.push(format!("{name}{at}: `{vendor}` empty or repeats a value"));
                }
                for value in &listed {
                    if !keys.contains(value) {
                        problems.push(format!(
                            "{name}{at}: `{vendor}` lists {value}, not in the enum"
                        ));
                    }
                }
            }
        });
    }
    assert_no_problems("vendor keywords", &problems);
}

#[test]
fn tool_error_codes_are_the_closed_set_with_sound_retry_classes() {
    let codes: BTreeSet<String> = enum_values("errors.json", "ToolErrorCode")
        .iter()
        .map(enum_key)
        .collect();
    for required in [
        "VALIDATION_FAILED",
        "ARRAY_TOO_LARGE",
        "TOOL_TIMEOUT",
        "TOOL_NOT_FOUND",
        "TOOL_FAILED",
        "RESPONSE_TOO_LARGE",
        "CANCELLED",
        "RATE_LIMITED",
        "UNAVAILABLE",
        "INTERNAL",
    ] {
        assert!(codes.contains(required), "ToolErrorCode lacks {required}");
    }
    let root = schema_file("errors.json");
    let retryable: BTreeSet<String> = defs(&root)["ToolErrorCode"]["x-retryable"]
        .as_array()
        .expect("ToolErrorCode declares x-retryable")
        .iter()
        .map(enum_key)
        .collect();
    for transient in ["TOOL_TIMEOUT", "RATE_LIMITED", "UNAVAILABLE"] {
        assert!(
            retryable.contains(transient),
            "{transient} must be retryable"
        );
    }
    // The same input always gives the same outcome for these: retrying cannot help.
    for deterministic in [
        "VALIDATION_FAILED",
        "ARRAY_TOO_LARGE",
        "TOOL_NOT_FOUND",
        "RESPONSE_TOO_LARGE",
    ] {
        assert!(
            !retryable.contains(deterministic),
            "{deterministic} must not be retryable"
        );
    }
}

#[test]
fn discriminators_name_exactly_the_union_branches() {
    let mut problems = Vec::new();
    let mut seen = 0;
    for (name, root) in all_schema_files() {
        walk_file(&root, &mut |map, at, _| {
            let Some(disc) = map.get("x-discriminator") else {
                return;
            };
            seen += 1;
            let branches: BTreeSet<String> = ["anyOf", "oneOf"]
                .iter()
                .filter_map(|k| map.get(*k).and_then(Value::as_array))
                .flatten()
                .map(|b| enum_key(&b["$ref"]))
                .collect();
            let named: BTreeSet<String> = match disc["by"].as_str() {
                Some("presence") => disc["rules"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|r| enum_key(&r["variant"]))
                    .collect(),
                Some("property") => {
                    let property = disc["property"].as_str().unwrap_or_default();
                    let mapping = disc["mapping"].as_object().cloned().unwrap_or_default();
                    for (key, target) in &mapping {
                        let def = target
                            .as_str()
                            .and_then(|t| t.strip_prefix("#/$defs/"))
                            .unwrap_or_default();
                        let constant = &defs(&root)[def]["properties"][property]["const"];
                        if constant.is_null() || enum_key(constant) != *key {
                            problems.push(format!(
                                "{name}{at}: mapping `{key}` -> {def} disagrees with its const"
                            ));
                        }
                    }
                    mapping.values().map(enum_key).collect()
                }
                other => {
                    problems.push(format!("{name}{at}: unknown discriminator kind {other:?}"));
                    BTreeSet::new()
                }
            };
            if named != branches {
                problems.push(format!(
                    "{name}{at}: discriminator names {named:?}, branches are {branches:?}"
                ));
            }
        });
    }
    assert!(
        seen >= 2,
        "expected discriminators on Message and ToolResultEnvelope"
    );
    assert_no_problems("discriminators", &problems);
}

#[test]
fn defaults_and_examples_satisfy_their_own_schemas() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for (name, root) in all_schema_files() {
        walk_file(&root, &mut |map, at, _| {
            let mut instances: Vec<&Value> = map
                .get("examples")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .collect();
            instances.extend(map.get("default"));
            if instances.is_empty() {
                return;
            }
            let mut wrapper = map.clone();
            wrapper.insert("$schema".into(), json!(DRAFT_2020_12));
            wrapper.insert("$defs".into(), root["$defs"].clone());
            let validator = compile(&Value::Object(wrapper));
            for instance in instances {
                checked += 1;
                if let Err(e) = validator.validate(instance) {
                    problems.push(format!("{name}{at}: {instance} rejected: {e}"));
                }
            }
        });
    }
    assert!(checked >= 20, "only {checked} defaults/examples found");
    assert_no_problems("defaults and examples", &problems);
}

#[test]
fn readme_describes_every_file_and_vendor_keyword() {
    let readme =
        std::fs::read_to_string(schema_dir().join("README.md")).expect("schema/README.md exists");
    for (name, _) in all_schema_files() {
        assert!(readme.contains(&name), "README does not mention {name}");
    }
    for vendor in VENDOR_KEYWORDS {
        assert!(readme.contains(vendor), "README does not document {vendor}");
    }
}
