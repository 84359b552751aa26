//! The evaluator's verdicts and diagnostics on schemas of its own.

use serde_json::{json, Value};

use super::super::collector::{validate_with, Collector};
use super::super::ValidationError;
use super::*;

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

/// An evaluator for `schema` as definition `A` of a document, asserting formats when
/// `formats`.
fn evaluator(schema: Value, formats: bool) -> &'static Evaluator {
    let document = json!({"$defs": {"A": schema}}).to_string();
    let document = leak(LazyJson::new(leak(document).as_str()));
    let remotes = leak(LazyJson::new("{}"));
    leak(Evaluator::new(
        document,
        remotes,
        "file:///t.json",
        "/$defs/A",
        formats,
    ))
}

fn errors(schema: Value, instance: Value) -> Vec<ValidationError> {
    let evaluator = evaluator(schema, false);
    let mut collector = Collector::new();
    evaluator.validate(&instance, &Location::Root, &mut collector);
    collector.into_result().err().unwrap_or_default()
}

fn valid(schema: Value, instance: Value) -> bool {
    errors(schema, instance).is_empty()
}

#[test]
fn unevaluated_properties_see_through_applicators() {
    let schema = json!({
        "allOf": [{"properties": {"a": true}}],
        "unevaluatedProperties": false
    });
    assert!(valid(schema.clone(), json!({"a": 1})));
    let found = errors(schema, json!({"a": 1, "b": 2}));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path(), "/b");
    assert_eq!(found[0].schema_path(), "/$defs/A/unevaluatedProperties");
    assert_eq!(found[0].keyword(), "false");
}

#[test]
fn multiple_of_is_exact_decimal() {
    assert!(valid(json!({"multipleOf": 0.0001}), json!(0.0075)));
    assert!(!valid(json!({"multipleOf": 0.123456789}), json!(1e308)));
    assert!(valid(json!({"multipleOf": 1e-8}), json!(12391239123_u64)));
    assert!(valid(json!({"multipleOf": 1e300}), json!(3e300)));
}

#[test]
fn numbers_compare_exactly_as_in_generated_validators() {
    // 2^53 + 1 is not 2^53 (they are equal once rounded to f64).
    let above = json!(9_007_199_254_740_993_u64);
    assert!(!valid(
        json!({"const": 9_007_199_254_740_992.0}),
        above.clone()
    ));
    assert!(!valid(
        json!({"maximum": 9_007_199_254_740_992.0}),
        above.clone()
    ));
    assert!(valid(
        json!({"enum": [1.0, 9_007_199_254_740_993_u64]}),
        above
    ));
    assert!(valid(json!({"const": 1}), json!(1.0)));
    assert!(valid(json!({"type": "integer"}), json!(2.0)));
}

#[test]
fn anchors_and_ids_resolve_and_the_schema_path_goes_through_the_ref() {
    let schema = json!({
        "$id": "http://example.com/root.json",
        "$ref": "item.json#foo",
        "$defs": {"x": {"$id": "item.json", "$defs": {"y": {"$anchor": "foo", "type": "integer"}}}}
    });
    assert!(valid(schema.clone(), json!(1)));
    let found = errors(schema, json!("a"));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].schema_path(), "/$defs/A/$ref/type");
    assert_eq!(found[0].keyword(), "type");
    assert_eq!(found[0].limit(), json!("integer"));
    assert_eq!(found[0].actual(), json!("string"));
}

#[test]
fn every_violation_has_its_path_keyword_limit_and_actual() {
    let schema = json!({
        "properties": {
            "name": {"maxLength": 3},
            "tags": {"items": {"minimum": 2}},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
        },
        "dependentRequired": {"a": ["b"]}
    });
    let found = errors(
        schema,
        json!({"name": "abcd", "tags": [5, 1], "either": null, "a": 1}),
    );
    let seen: Vec<_> = found
        .iter()
        .map(|e| {
            (
                e.path(),
                e.schema_path(),
                e.keyword(),
                e.limit(),
                e.actual(),
            )
        })
        .collect();
    let a = |p, s, k, l, v| (p, s, k, l, v);
    assert!(seen.contains(&a(
        "",
        "/$defs/A/dependentRequired/a",
        "dependentRequired",
        json!("b"),
        Value::Null
    )));
    assert!(seen.contains(&a(
        "/name",
        "/$defs/A/properties/name/maxLength",
        "maxLength",
        json!(3),
        json!(4)
    )));
    assert!(seen.contains(&a(
        "/tags/1",
        "/$defs/A/properties/tags/items/minimum",
        "minimum",
        json!(2),
        json!(1)
    )));
    assert!(seen.contains(&a(
        "/either",
        "/$defs/A/properties/either/anyOf",
        "anyOf",
        json!(2),
        json!(0)
    )));
    assert_eq!(found.len(), 4, "{seen:?}");
}

#[test]
fn formats_are_asserted_only_when_asked() {
    let schema = json!({"format": "date"});
    let instance = json!("2026-13-45");
    let mut collector = Collector::new();
    evaluator(schema.clone(), false).validate(&instance, &Location::Root, &mut collector);
    assert!(collector.is_ok());
    let walker = |value: &Value, at: &Location<'_>, errors: &mut Collector| {
        static EVALUATOR: OnceLock<&'static Evaluator> = OnceLock::new();
        EVALUATOR
            .get_or_init(|| evaluator(json!({"format": "date"}), true))
            .validate(value, at, errors);
    };
    let found = validate_with(&instance, walker).expect_err("an invalid date");
    assert_eq!(found[0].keyword(), "format");
    assert_eq!(found[0].limit(), json!("date"));
    assert_eq!(found[0].actual(), instance);
}

#[test]
fn a_branch_that_fails_reports_nothing_of_its_own() {
    let schema = json!({"not": {"type": "string"}, "oneOf": [{"minimum": 0}, {"maximum": 10}]});
    let found = errors(schema, json!(5));
    let keywords: Vec<_> = found.iter().map(ValidationError::keyword).collect();
    assert_eq!(keywords, ["oneOf"]);
    assert_eq!(found[0].actual(), json!(2));
}
