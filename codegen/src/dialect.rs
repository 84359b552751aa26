//! Reading the JSON Schema dialects published tool schemas are written in, into the one
//! dialect the emitters know (2020-12).
//!
//! A tool's `inputSchema` pasted under `$defs` keeps its `$schema` (draft-07 from
//! zod-to-json-schema, 2020-12 from pydantic) and its own `$defs` / `definitions`. This pass,
//! run before the keyword check, makes such a definition an ordinary one:
//!
//! - `$schema` is accepted at any resource root (the root of a definition or deeper) and
//!   selects the dialect of everything below it; it is then dropped.
//! - In a draft-07 (or older) resource, the keywords that changed meaning are rewritten:
//!   `items: [..]` + `additionalItems` become `prefixItems` + `items`; `dependencies` is split
//!   into `dependentRequired` (arrays) and `dependentSchemas` (schemas); boolean
//!   `exclusiveMinimum` / `exclusiveMaximum` become the numeric form; and a `$ref` ignores
//!   its sibling keywords (annotations `description` and `title` are kept as docs).
//!   The shape-only rewrites (array `items`, `dependencies`, boolean `exclusive*`) are applied
//!   whatever the declared dialect, since those forms mean nothing else in 2020-12.
//! - Nested `$defs` / `definitions` are lifted out by [`take_nested_defs`]; the document
//!   turns them into definitions of their own and rewrites the references to them.
//!
//! Error `schemaPath`s of rewritten keywords point at the 2020-12 keyword (`prefixItems`,
//! `dependentRequired`, ...) under the original location.

use serde_json::{Map, Value};

/// The dialects the generator distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Draft 2020-12 (and 2019-09, which agrees on every keyword we rewrite).
    Current,
    /// Draft-07, draft-06 or draft-04.
    Draft07,
}

impl Dialect {
    /// The dialect a `$schema` URI names; `None` for a URI this pass does not know (the
    /// enclosing dialect then stays in force).
    pub(crate) fn from_uri(uri: &str) -> Option<Self> {
        if ["draft-07", "draft-06", "draft-04"]
            .iter()
            .any(|d| uri.contains(d))
        {
            Some(Self::Draft07)
        } else if uri.contains("2020-12") || uri.contains("2019-09") {
            Some(Self::Current)
        } else {
            None
        }
    }
}

/// Keywords whose value is one schema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "items",
    "propertyNames",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Keywords whose value is an array of schemas.
const ARRAY_KEYWORDS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const MAP_KEYWORDS: &[&str] = &[
    "properties",
    "dependentSchemas",
    "dependencies",
    "patternProperties",
];

/// Rewrites `schema` (and everything below it) into 2020-12; `dialect` is the one in force
/// where `schema` sits.
pub(crate) fn normalize(schema: &mut Value, dialect: Dialect) {
    let Value::Object(map) = schema else {
        return;
    };
    let dialect = match map.remove("$schema") {
        Some(Value::String(uri)) => Dialect::from_uri(&uri).unwrap_or(dialect),
        _ => dialect,
    };
    if dialect == Dialect::Draft07 && map.contains_key("$ref") {
        map.retain(|key, _| {
            matches!(
                key.as_str(),
                "$ref" | "description" | "title" | "$defs" | "definitions"
            ) || key.starts_with("x-")
        });
    }
    rewrite_counts(map);
    rewrite_items(map);
    rewrite_dependencies(map);
    rewrite_exclusive(map, "exclusiveMinimum", "minimum");
    rewrite_exclusive(map, "exclusiveMaximum", "maximum");
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        if SCHEMA_KEYWORDS.contains(&key) {
            normalize(value, dialect);
        } else if ARRAY_KEYWORDS.contains(&key) {
            if let Value::Array(branches) = value {
                branches.iter_mut().for_each(|b| normalize(b, dialect));
            }
        } else if MAP_KEYWORDS.contains(&key) || key == "$defs" || key == "definitions" {
            if let Value::Object(subs) = value {
                subs.values_mut().for_each(|s| normalize(s, dialect));
            }
        }
    }
}

/// A count written as an integral decimal (`"maxItems": 2.0`) → the integer (`2`): the
/// same number in JSON Schema, and the form the emitters read.
fn rewrite_counts(map: &mut Map<String, Value>) {
    for keyword in [
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "minProperties",
        "maxProperties",
        "minContains",
        "maxContains",
    ] {
        let Some(Value::Number(count)) = map.get(keyword) else {
            continue;
        };
        let integral = count
            .as_f64()
            .filter(|f| count.as_u64().is_none() && f.fract() == 0.0 && *f >= 0.0);
        if let Some(whole) = integral {
            // Exact for every count a real schema writes (below 2^53).
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let whole = whole as u64;
            map.insert(keyword.into(), Value::from(whole));
        }
    }
}

/// `items: [a, b]` (+ `additionalItems: s`) → `prefixItems: [a, b]` (+ `items: s`). A schema
/// `items` makes `additionalItems` meaningless (draft-07), so it is dropped.
fn rewrite_items(map: &mut Map<String, Value>) {
    if matches!(map.get("items"), Some(Value::Array(_))) {
        let prefix = map.remove("items").unwrap_or_default();
        map.insert("prefixItems".into(), prefix);
        if let Some(rest) = map.remove("additionalItems") {
            map.insert("items".into(), rest);
        }
    } else {
        map.remove("additionalItems");
    }
}

/// `dependencies: {a: ["b"], c: {..}}` → `dependentRequired: {a: ["b"]}`,
/// `dependentSchemas: {c: {..}}`.
fn rewrite_dependencies(map: &mut Map<String, Value>) {
    let Some(Value::Object(dependencies)) = map.remove("dependencies") else {
        return;
    };
    let mut required = Map::new();
    let mut schemas = Map::new();
    for (name, dependency) in dependencies {
        if dependency.is_array() {
            required.insert(name, dependency);
        } else {
            schemas.insert(name, dependency);
        }
    }
    for (keyword, entries) in [
        ("dependentRequired", required),
        ("dependentSchemas", schemas),
    ] {
        if entries.is_empty() {
            continue;
        }
        let merged = map
            .entry(keyword)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(existing) = merged {
            existing.extend(entries);
        }
    }
}

/// Draft-04 style `exclusiveMinimum: true` next to `minimum: m` → `exclusiveMinimum: m`;
/// `exclusiveMinimum: false` is dropped.
fn rewrite_exclusive(map: &mut Map<String, Value>, exclusive: &str, inclusive: &str) {
    match map.get(exclusive) {
        Some(Value::Bool(true)) => {
            map.remove(exclusive);
            if let Some(bound) = map.remove(inclusive) {
                map.insert(exclusive.into(), bound);
            }
        }
        Some(Value::Bool(false)) => {
            map.remove(exclusive);
        }
        _ => {}
    }
}

/// Removes every `$defs` / `definitions` map found in `schema` (at its root or deeper) and
/// returns their entries as `(pointer relative to schema, name, schema)`, outermost first.
pub(crate) fn take_nested_defs(schema: &mut Value, at: &str) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    take_below(schema, at, &mut out);
    out
}

fn take_below(schema: &mut Value, at: &str, out: &mut Vec<(String, String, Value)>) {
    let Value::Object(map) = schema else {
        return;
    };
    for container in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.remove(container) {
            for (name, sub) in defs {
                let pointer = format!("{at}/{container}/{}", crate::doc::escape_pointer(&name));
                out.push((pointer, name, sub));
            }
        }
    }
    for (key, value) in map.iter_mut() {
        let here = format!("{at}/{}", crate::doc::escape_pointer(key));
        let key = key.as_str();
        if SCHEMA_KEYWORDS.contains(&key) {
            take_below(value, &here, out);
        } else if ARRAY_KEYWORDS.contains(&key) {
            if let Value::Array(branches) = value {
                for (i, b) in branches.iter_mut().enumerate() {
                    take_below(b, &format!("{here}/{i}"), out);
                }
            }
        } else if MAP_KEYWORDS.contains(&key) {
            if let Value::Object(subs) = value {
                for (name, s) in subs.iter_mut() {
                    let p = format!("{here}/{}", crate::doc::escape_pointer(name));
                    take_below(s, &p, out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn draft07_keywords_become_2020_12() {
        let mut schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "t": {"type": "array", "items": [{"type": "string"}], "additionalItems": false},
                "n": {"type": "number", "minimum": 1, "exclusiveMinimum": true,
                      "maximum": 5, "exclusiveMaximum": false},
                "r": {"$ref": "#/definitions/X", "description": "d", "minimum": 3}
            },
            "dependencies": {"a": ["b"], "c": {"required": ["d"]}}
        });
        normalize(&mut schema, Dialect::Current);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "t": {"type": "array", "prefixItems": [{"type": "string"}], "items": false},
                    "n": {"type": "number", "exclusiveMinimum": 1, "maximum": 5},
                    "r": {"$ref": "#/definitions/X", "description": "d"}
                },
                "dependentRequired": {"a": ["b"]},
                "dependentSchemas": {"c": {"required": ["d"]}}
            })
        );
    }

    #[test]
    fn ref_siblings_stay_in_2020_12() {
        let mut schema = json!({"$ref": "#/$defs/X", "minimum": 3});
        normalize(&mut schema, Dialect::Current);
        assert_eq!(schema, json!({"$ref": "#/$defs/X", "minimum": 3}));
    }

    #[test]
    fn nested_definitions_are_taken_out_with_their_pointers() {
        let mut schema = json!({
            "type": "object",
            "$defs": {"A": {"type": "string"}},
            "properties": {"p": {"definitions": {"B": {"type": "integer"}}}}
        });
        let taken = take_nested_defs(&mut schema, "/$defs/T");
        let names: Vec<_> = taken
            .iter()
            .map(|(p, n, _)| (p.as_str(), n.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("/$defs/T/$defs/A", "A"),
                ("/$defs/T/properties/p/definitions/B", "B")
            ]
        );
        assert_eq!(schema, json!({"type": "object", "properties": {"p": {}}}));
    }
}
