//! The *shape* of a definition the runtime's evaluator validates (see [`crate::interp`]).
//!
//! Such a definition uses keywords the emitted validators do not implement one by one
//! (`$dynamicRef`, `$id` / `$anchor` resources, remote references, ...). Its validator
//! is the evaluator, which is complete; its *type* need not be a bare `serde_json::Value`:
//! most of those keywords only narrow which instances are valid, so the type of what remains
//! (`type`, `properties`, `required`, `additionalProperties`, `items`, local `$ref`s) holds
//! every valid instance, and the evaluator enforces the rest.
//!
//! The shape keeps only what shapes a Rust type and can only *widen* the set of instances the
//! type accepts:
//! - a subschema whose meaning depends on what the shape cannot follow (`$id`, which moves the
//!   base of references, `$dynamicRef`, `$recursiveRef`, a reference other than to a
//!   definition of the document, a `type` list, no `type` at all) becomes `{}`: that member
//!   alone is a `serde_json::Value`;
//! - constraints (`not`, `if`/`then`/`else`, `contains`, `enum`, `const`, `allOf`, `anyOf`,
//!   `oneOf`, `dependentSchemas`, `propertyNames`, `unevaluated*`, formats, bounds, ...) are
//!   dropped: the type is wider, the evaluator checks them;
//! - `additionalProperties: false` is kept only where `properties` alone then decide which
//!   members exist (no `patternProperties`); otherwise the object stays open, its unknown
//!   members kept in the flattened map the types view gives open objects.
//!
//! A definition whose shape is `{}` keeps the `serde_json::Value` type it had.

use serde_json::{Map, Value};

use crate::doc::SchemaDoc;

/// The JSON types a shape keeps as its `type`.
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "integer", "string",
];

/// The shape of the evaluated definition `name` of `doc`, or `None` when it is `{}` (the
/// definition stays a `serde_json::Value`).
pub(crate) fn shape_of(doc: &SchemaDoc, name: &str) -> Option<Value> {
    let def = doc.get(name)?;
    let written = doc.raw.pointer(&def.pointer)?;
    let shaped = shape(doc, written);
    (shaped != Value::Object(Map::new())).then_some(shaped)
}

/// The shape of `schema`. A `$id` ends the walk (`{}`), so a `$ref` met below is always
/// resolved against the document and `#/$defs/..` names one of its definitions.
fn shape(doc: &SchemaDoc, schema: &Value) -> Value {
    let open = || Value::Object(Map::new());
    let Value::Object(map) = schema else {
        return open();
    };
    if ["$id", "$dynamicRef", "$recursiveRef"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        return open();
    }
    if let Some(reference) = map.get("$ref") {
        // `$ref` with siblings means both apply: the referenced type alone is wider.
        return match reference.as_str().and_then(crate::doc::ref_target) {
            Some(target) if doc.get(&target).is_some() => {
                let mut only = Map::new();
                only.insert(
                    "$ref".into(),
                    Value::String(format!("#/$defs/{}", crate::doc::escape_pointer(&target))),
                );
                Value::Object(only)
            }
            _ => open(),
        };
    }
    let Some(kind) = map
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| TYPES.contains(t))
    else {
        return open();
    };
    let mut out = Map::new();
    out.insert("type".into(), Value::String(kind.into()));
    if let Some(Value::String(text)) = map.get("description") {
        out.insert("description".into(), Value::String(text.clone()));
    }
    match kind {
        "object" => shape_object(doc, map, &mut out),
        "array" => shape_array(doc, map, &mut out),
        _ => {}
    }
    Value::Object(out)
}

fn shape_object(doc: &SchemaDoc, map: &Map<String, Value>, out: &mut Map<String, Value>) {
    if let Some(Value::Object(properties)) = map.get("properties") {
        let shaped: Map<String, Value> = properties
            .iter()
            .map(|(name, member)| (name.clone(), shape(doc, member)))
            .collect();
        out.insert("properties".into(), Value::Object(shaped));
    }
    if let Some(Value::Array(required)) = map.get("required") {
        if required.iter().all(Value::is_string) {
            out.insert("required".into(), Value::Array(required.clone()));
        }
    }
    let patterned = map
        .get("patternProperties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    match map.get("additionalProperties") {
        Some(Value::Bool(false)) if !patterned => {
            out.insert("additionalProperties".into(), Value::Bool(false));
        }
        Some(member @ Value::Object(_)) if !patterned => {
            out.insert("additionalProperties".into(), shape(doc, member));
        }
        _ => {}
    }
}

fn shape_array(doc: &SchemaDoc, map: &Map<String, Value>, out: &mut Map<String, Value>) {
    if let Some(Value::Array(prefix)) = map.get("prefixItems") {
        let shaped = prefix.iter().map(|item| shape(doc, item)).collect();
        out.insert("prefixItems".into(), Value::Array(shaped));
        // The count keywords decide whether the array is a tuple (see the types view).
        for keyword in ["minItems", "maxItems"] {
            if let Some(count) = map.get(keyword) {
                out.insert(keyword.into(), count.clone());
            }
        }
        match map.get("items") {
            Some(Value::Bool(false)) => {
                out.insert("items".into(), Value::Bool(false));
            }
            Some(item @ Value::Object(_)) => {
                out.insert("items".into(), shape(doc, item));
            }
            _ => {}
        }
    } else if let Some(item @ Value::Object(_)) = map.get("items") {
        out.insert("items".into(), shape(doc, item));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(raw: Value) -> SchemaDoc {
        SchemaDoc::from_value(std::path::Path::new("shape.json"), raw).unwrap()
    }

    #[test]
    fn constraints_are_dropped_and_members_kept() {
        let d = doc(json!({"$defs": {"A": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "not": {"const": "root"}},
                "tags": {"type": "array", "items": {"type": "string"}, "contains": {"const": "x"}},
                "any": {"if": {"type": "string"}, "then": {"minLength": 1}}
            },
            "required": ["name"],
            "if": {"required": ["tags"]}, "then": {"required": ["any"]},
            "unevaluatedProperties": false
        }}}));
        assert_eq!(
            shape_of(&d, "A").unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "any": {}
                },
                "required": ["name"]
            })
        );
    }

    #[test]
    fn what_the_shape_cannot_follow_is_a_json_value() {
        let d = doc(json!({"$defs": {
            "B": {"type": "string"},
            "A": {"type": "object", "properties": {
                "moved": {"$id": "http://example.com/x", "type": "object"},
                "dynamic": {"$dynamicRef": "#node"},
                "remote": {"$ref": "http://example.com/y.json"},
                "local": {"$ref": "#/$defs/B", "maxLength": 3},
                "either": {"type": ["string", "null"]}
            }, "not": {"required": ["x"]}}
        }}));
        assert_eq!(
            shape_of(&d, "A").unwrap()["properties"],
            json!({
                "moved": {}, "dynamic": {}, "remote": {},
                "local": {"$ref": "#/$defs/B"}, "either": {}
            })
        );
    }

    #[test]
    fn pattern_properties_keep_the_object_open() {
        let d = doc(json!({"$defs": {"A": {
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": false,
            "not": {"required": ["b"]}
        }}}));
        let shaped = shape_of(&d, "A").unwrap();
        assert!(shaped.get("additionalProperties").is_none(), "{shaped}");
    }

    #[test]
    fn an_untyped_root_stays_a_json_value() {
        let d = doc(json!({"$defs": {"A": {"not": {"type": "string"}}}}));
        assert_eq!(shape_of(&d, "A"), None);
    }
}
