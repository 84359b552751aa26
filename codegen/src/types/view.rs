//! The "types view" of a schema: what typify is given.
//!
//! typify only has to produce the *shape* of the Rust types; everything that is a check
//! (bounds, lengths, patterns, formats, `const` values beyond the type) is enforced by the
//! emitted validators. So this view strips validation-only keywords (which also keeps the
//! generated types free of `regress`/`chrono` newtypes) and rewrites the constructs typify
//! mishandles (see `shared/notes/codegen-findings.md`):
//!
//! - `const` becomes a one-value `enum`, so a wrong `jsonrpc`/`method`/`type` fails to
//!   deserialize instead of being accepted as a plain `String`;
//! - `{"$ref": .., <siblings>}` becomes `{"allOf": [{"$ref": ..}], <siblings>}` (typify panics
//!   on the former inside an `allOf` merge);
//! - `"type": "number"` becomes a reference to a definition that is replaced by
//!   `serde_json::Number`, so `50` round-trips as `50`, not `50.0`.

use serde_json::{Map, Value};

use crate::doc::{visit_schemas_mut, SchemaDoc};

/// Name of the extra definition standing for an exact JSON number.
pub(crate) const NUMBER_DEF: &str = "TypedMcpExactNumber";

/// Keywords typify never needs: the validators enforce them.
const VALIDATION_ONLY: &[&str] = &[
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "examples",
    "$comment",
];

/// Returns the types view of every definition, plus the number definition, in doc order.
pub(crate) fn types_view(doc: &SchemaDoc) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = doc
        .defs
        .iter()
        .map(|def| {
            let mut schema = def.schema.clone();
            let outcome = visit_schemas_mut(&mut schema, "", &mut |map, _| {
                rewrite(map);
                Ok(())
            });
            debug_assert!(outcome.is_ok(), "the rewrite never fails");
            (def.name.clone(), schema)
        })
        .collect();
    out.push((
        NUMBER_DEF.to_string(),
        serde_json::json!({ "type": "number" }),
    ));
    out
}

fn rewrite(map: &mut Map<String, Value>) {
    map.retain(|key, _| !VALIDATION_ONLY.contains(&key.as_str()) && !key.starts_with("x-"));
    // `minimum` only matters to typify for integers (it picks u64 for `minimum >= 0`).
    if map.get("type").and_then(Value::as_str) != Some("integer") {
        map.remove("minimum");
    }
    if let Some(value) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![value]));
    }
    if map.get("type").and_then(Value::as_str) == Some("number") {
        map.remove("type");
        map.remove("minimum");
        map.insert(
            "$ref".into(),
            Value::String(format!("#/$defs/{NUMBER_DEF}")),
        );
    }
    if map.contains_key("$ref") && map.len() > 1 {
        let target = map.remove("$ref").expect("checked above");
        let mut only_ref = Map::new();
        only_ref.insert("$ref".into(), target);
        map.insert("allOf".into(), Value::Array(vec![Value::Object(only_ref)]));
    }
}
