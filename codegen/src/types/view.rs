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
//!   `serde_json::Number`, so `50` round-trips as `50`, not `50.0`;
//! - an object that does not say `additionalProperties` is open (the validator accepts
//!   unknown members), so it gets `additionalProperties: {}`: its type keeps unknown members
//!   in a flattened map instead of refusing them. Only `additionalProperties: false` closes
//!   a type (`deny_unknown_fields`);
//! - tuples (`prefixItems`) become arrays of any JSON value: the validator checks the items;
//! - applicators that only narrow (`not`, `if`/`then`/`else`, `contains`, `unevaluated*`)
//!   are dropped, and an object with `patternProperties` stays open (the validator checks
//!   those members);
//! - a `default` the type cannot hold safely is an annotation only (see [`keep_default`]).

use serde_json::{Map, Value};

use crate::doc::{visit_schemas_mut, SchemaDoc};

/// Name of the extra definition standing for an exact JSON number.
pub(crate) const NUMBER_DEF: &str = "TypedMcpExactNumber";

/// Keywords typify never needs: the validators enforce them.
const VALIDATION_ONLY: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "contains",
    "minContains",
    "maxContains",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
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
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Returns the types view of every definition, plus the number definition, in doc order.
///
/// With `shapes`, a definition the runtime's evaluator validates is typed by its
/// [`shape`](super::shape) (a struct whose members the shape cannot follow are
/// `serde_json::Value`s); without, it is a `serde_json::Value` as a whole.
pub(crate) fn types_view(doc: &SchemaDoc, shapes: bool) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = doc
        .defs
        .iter()
        .map(|def| {
            let shaped = (shapes && crate::interp::is_evaluated(&def.schema))
                .then(|| super::shape::shape_of(doc, &def.name))
                .flatten();
            let source = shaped.as_ref().unwrap_or(&def.schema);
            if needs_value_type(source) {
                return (def.name.clone(), Value::Object(Map::new()));
            }
            let mut schema = source.clone();
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

/// Whether a definition's type is `serde_json::Value` (its validator stays the emitted one),
/// because the type typify would make could not hold every valid instance as it is:
/// - a root without `type` but with object or array keywords (it also accepts `12`, `""`,
///   `null`, ...);
/// - a root `enum` / `const` without `type` holding anything but strings (typify makes
///   numbers `f64`, so `2` would come back as `2.0`, and compares arrays as text);
/// - a root `type: "integer"` (typify's `i64` refuses `1.0` and integers beyond it);
/// - property names that are not distinct once made Rust identifiers, or hold control
///   characters.
///
/// (An optional member that may be `null` keeps its `Option`, which writes an explicit `null`
/// back as an absent member: pydantic's optional members are written that way, and a typed
/// struct is worth more there.)
///
/// Unions and string enums, which the generator types itself, are never affected.
pub(crate) fn needs_value_type(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    if crate::types::is_union(schema) || crate::types::is_own_enum(schema) {
        return false;
    }
    let typed = map.contains_key("type");
    let composed = ["$ref", "allOf", "anyOf", "oneOf", "enum", "const"]
        .iter()
        .any(|k| map.contains_key(*k));
    let shaped = [
        "properties",
        "required",
        "items",
        "prefixItems",
        "additionalProperties",
        "minProperties",
        "maxProperties",
        "minItems",
        "maxItems",
        "uniqueItems",
        "dependentRequired",
        "dependentSchemas",
        "propertyNames",
    ]
    .iter()
    .any(|k| map.contains_key(*k));
    if !typed && !composed && shaped {
        return true;
    }
    let literals = map
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(map.get("const"));
    if !typed && literals.clone().any(|v| !v.is_string()) {
        return true;
    }
    if map.get("type") == Some(&Value::String("integer".into())) && !map.contains_key("enum") {
        return true;
    }
    unfaithful_members(schema)
}

/// Whether `schema` (or a schema below it) has members its struct cannot keep as they are.
fn unfaithful_members(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    if let Some(Value::Object(properties)) = map.get("properties") {
        let mut idents = std::collections::BTreeSet::new();
        for (name, member) in properties {
            let ident = heck::ToSnakeCase::to_snake_case(
                name.chars()
                    .map(|c| if c.is_alphanumeric() { c } else { '_' })
                    .collect::<String>()
                    .as_str(),
            );
            if name.chars().any(char::is_control) || !idents.insert(ident) {
                return true;
            }
            if unfaithful_members(member) {
                return true;
            }
        }
    }
    ["items", "additionalProperties"]
        .iter()
        .filter_map(|k| map.get(*k))
        .any(unfaithful_members)
}

/// Whether typify is given the `default` of the schema `map`. Dropped (the member is then an
/// `Option`, absent stays absent) are:
/// - `null`, which pydantic writes on optional members whose type does not allow it: the
///   absent member *is* the "no value" it means;
/// - a value whose JSON type the schema's `type` or `enum` does not allow;
/// - a non-empty object or array: typify writes it as a Rust literal field by field, which
///   does not compile once fields are post-processed (and cannot hold unknown members).
///   `{}` and `[]` stay: they are the type's own `Default`.
fn keep_default(map: &Map<String, Value>, default: &Value) -> bool {
    match default {
        Value::Null => return false,
        Value::Object(m) if !m.is_empty() => return false,
        Value::Array(a) if !a.is_empty() => return false,
        _ => {}
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        if !values.contains(default) {
            return false;
        }
    }
    let allowed = |t: &str| match t {
        "null" => default.is_null(),
        "boolean" => default.is_boolean(),
        "object" => default.is_object(),
        "array" => default.is_array(),
        "string" => default.is_string(),
        "number" => default.is_number(),
        "integer" => default.as_i64().is_some() || default.as_u64().is_some(),
        _ => false,
    };
    match map.get("type") {
        Some(Value::String(t)) => allowed(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(allowed),
        _ => true,
    }
}

/// The length of every valid instance of an array schema with `prefixItems`, when that
/// length is fixed (by `minItems` and `maxItems` or `items: false`) and within the prefix: the
/// array is then a Rust tuple of the first that many prefix schemas. `None` otherwise (the
/// array is a `Vec` of JSON values, its items checked by the validator). Read before the
/// count keywords are stripped.
fn tuple_arity(map: &Map<String, Value>) -> Option<usize> {
    let prefix = map.get("prefixItems")?.as_array()?;
    if map.get("type").and_then(Value::as_str) != Some("array") {
        return None;
    }
    let count = |key: &str| {
        map.get(key)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    };
    let least = count("minItems").unwrap_or(0);
    let closed = (map.get("items") == Some(&Value::Bool(false))).then_some(prefix.len());
    let most = match (count("maxItems"), closed) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    (least == most && most > 0 && most <= prefix.len()).then_some(most)
}

fn rewrite(map: &mut Map<String, Value>) {
    // The tuple decision needs the counts the retain below strips.
    let arity = tuple_arity(map);
    // Members a pattern claims are not `additionalProperties`' to type: the object stays
    // open (its members kept in the flattened map), the validator checks them.
    if map
        .get("patternProperties")
        .and_then(Value::as_object)
        .is_some_and(|patterns| !patterns.is_empty())
    {
        map.remove("additionalProperties");
    }
    map.retain(|key, _| !VALIDATION_ONLY.contains(&key.as_str()) && !key.starts_with("x-"));
    // `minimum` only matters to typify for integers (it picks u64 for `minimum >= 0`).
    if map.get("type").and_then(Value::as_str) != Some("integer") {
        map.remove("minimum");
    }
    if let Some(value) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![value]));
    }
    if let Some(Value::Array(prefix)) = map.remove("prefixItems") {
        map.remove("items");
        match arity {
            Some(arity) => {
                let members = prefix.into_iter().take(arity).collect();
                map.insert("items".into(), Value::Array(members));
                map.insert("minItems".into(), arity.into());
                map.insert("maxItems".into(), arity.into());
            }
            None => {
                map.insert("items".into(), Value::Object(Map::new()));
            }
        }
    }
    let is_object = map.get("type").and_then(Value::as_str) == Some("object")
        || map.contains_key("properties")
        || map.contains_key("required");
    let open = matches!(
        map.get("additionalProperties"),
        None | Some(Value::Bool(true))
    );
    if is_object && open {
        map.insert("additionalProperties".into(), Value::Object(Map::new()));
    }
    if map
        .get("default")
        .is_some_and(|default| !keep_default(map, default))
    {
        map.remove("default");
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

/// Whether any schema of the view has a `default`.
pub(crate) fn has_defaults(view: &[(String, Value)]) -> bool {
    fn any(value: &Value) -> bool {
        match value {
            Value::Object(map) => map.contains_key("default") || map.values().any(any),
            Value::Array(items) => items.iter().any(any),
            _ => false,
        }
    }
    view.iter().any(|(_, schema)| any(schema))
}

/// The view with every `default` removed.
pub(crate) fn without_defaults(mut view: Vec<(String, Value)>) -> Vec<(String, Value)> {
    for (_, schema) in &mut view {
        let outcome = visit_schemas_mut(schema, "", &mut |map, _| {
            map.remove("default");
            Ok(())
        });
        debug_assert!(outcome.is_ok(), "the visitor above never fails");
    }
    view
}
