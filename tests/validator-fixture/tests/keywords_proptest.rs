//! Property tests: on mutated and random instances, the generated validators agree with
//! `jsonschema` on validity, report errors only at locations that exist in the instance,
//! and union selectors never reject a valid value.

mod common;

use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use validator_fixture::keywords::{self, registry};

fn schema() -> Value {
    serde_json::from_str(include_str!("../schemas/keywords.json")).expect("fixture schema")
}

/// The `jsonschema` validator of `def`, compiled once per test binary.
fn oracle(def: &str) -> &'static jsonschema::Validator {
    static ORACLES: OnceLock<Vec<(&'static str, jsonschema::Validator)>> = OnceLock::new();
    let oracles = ORACLES.get_or_init(|| {
        let schema = schema();
        registry::VALIDATORS
            .iter()
            // Hoisted unions are not definitions of the original file.
            .filter(|(name, _, _)| schema["$defs"].get(*name).is_some())
            .map(|(name, _, _)| (*name, common::oracle(&schema, name)))
            .collect()
    });
    &oracles
        .iter()
        .find(|(name, _)| *name == def)
        .expect("known def")
        .1
}

/// A valid `Everything` using every property.
fn valid_everything() -> Value {
    json!({
        "str": "abc", "pat": "abc1", "uri": "https://e.com/x", "byte": "Zm9v", "tmpl": "/x/{y}",
        "when": "2026-07-28T12:00:00Z", "mail": "a@b.co", "int": 3, "num": 5.5, "mult": 1.25,
        "big": 12, "list": ["a", null], "color": "red", "fixed": 1, "fixedObj": {"k": [1, "x"]},
        "obj": {"a": 1}, "closed": {"a": null}, "both": {"x": "s"}, "refsib": {"x": "y"},
        "anything": [1], "flag": true, "nothing": null, "multi": "m", "choice": "c",
        "shape": {"kind": "circle", "r": 2}, "inline": "ab", "tree": {"name": "t", "children": []}
    })
}

/// Strings that exercise the formats and patterns, near their edges.
const STRINGS: &[&str] = &[
    "",
    "a",
    "abc",
    "abcdef",
    "ééé",
    "Abc",
    "abc12",
    "abc1x",
    "circle",
    "square",
    "red",
    "https://example.com/a?b#c",
    "urn:x",
    "http://[::1]:80/",
    "http://h/%zz",
    "/rel",
    "a b",
    "Zm9v",
    "Zm9vYg==",
    "Zm9vYg=",
    "Zm9vYh==",
    "/x/{y}",
    "{a,b*}",
    "{",
    "{a:0}",
    "2026-07-28T12:00:00Z",
    "2026-07-28T12:00:00.5-03:30",
    "2024-02-29T23:59:60Z",
    "2023-02-29T00:00:00Z",
    "2026-07-28t12:00:00z",
    "a@b.co",
    "a.b@c",
    "a..b@c.d",
    "@c.d",
    "\"q\"@c.d",
    "a@[127.0.0.1]",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-20i64..120).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (0u32..900).prop_map(|q| json!(f64::from(q) * 0.125)),
        (-1e3f64..1e3).prop_map(|f| json!(f)),
        proptest::sample::select(STRINGS).prop_map(Value::from),
        "[a-z0-9:/?#@.%{}=+-]{0,10}".prop_map(Value::from),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(
            &[
                "str",
                "int",
                "list",
                "obj",
                "closed",
                "shape",
                "kind",
                "r",
                "side",
                "x",
                "a",
                "name",
                "children",
                "resultType",
                "content",
                "requests",
                "k",
            ][..]
        )
        .prop_map(String::from),
        "[a-z]{1,3}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 32, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(key(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// Our verdict equals the oracle's, and every error path exists in the instance.
fn agree(def: &str, instance: &Value) -> Result<(), TestCaseError> {
    let oracle = oracle(def);
    let validate = validator_fixture::lookup(registry::VALIDATORS, def).expect("known def");
    let ours = validate(instance);
    prop_assert_eq!(
        ours.is_ok(),
        oracle.is_valid(instance),
        "{}: verdict differs for {} (ours: {:?})",
        def,
        instance,
        ours
    );
    if let Err(errors) = &ours {
        prop_assert!(!errors.is_empty());
        for error in errors {
            prop_assert!(
                instance.pointer(error.path()).is_some(),
                "error path {} not in {}",
                error.path(),
                instance
            );
            prop_assert!(error.schema_path().starts_with("/$defs/"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn mutated_everything_agrees_with_jsonschema(
        replacements in proptest::collection::vec((0usize..40, json_value()), 0..4),
        removals in proptest::collection::vec(0usize..40, 0..3),
        extra in proptest::option::of((key(), json_value())),
    ) {
        let mut instance = valid_everything();
        let map = instance.as_object_mut().unwrap();
        let keys: Vec<String> = map.keys().cloned().collect();
        for (index, value) in replacements {
            map.insert(keys[index % keys.len()].clone(), value);
        }
        for index in removals {
            map.remove(&keys[index % keys.len()]);
        }
        if let Some((k, v)) = extra {
            map.insert(k, v);
        }
        agree("Everything", &instance)?;
    }

    #[test]
    fn random_values_agree_with_jsonschema(value in json_value(), def in proptest::sample::select(
        &["Shape", "Outcome", "Choice", "Tree", "Named", "Circle", "Square"][..]
    )) {
        agree(def, &value)?;
    }

    #[test]
    fn shaped_union_members_agree_and_select(
        kind in proptest::sample::select(&["circle", "square", "other"][..]),
        members in proptest::collection::btree_map(key(), json_value(), 0..4),
        result_type in proptest::option::of(leaf()),
    ) {
        let mut object: Map<String, Value> = members.into_iter().collect();
        object.insert("kind".into(), json!(kind));
        let shape = Value::Object(object.clone());
        agree("Shape", &shape)?;
        if keywords::shape(&shape).is_ok() {
            prop_assert!(keywords::select_shape(&shape).is_some());
        }
        object.remove("kind");
        if let Some(rt) = result_type {
            object.insert("resultType".into(), rt);
        }
        let outcome = Value::Object(object);
        agree("Outcome", &outcome)?;
        if keywords::outcome(&outcome).is_ok() {
            prop_assert!(keywords::select_outcome(&outcome).is_some());
        }
    }

    #[test]
    fn format_strings_agree_with_jsonschema(
        field in proptest::sample::select(&["uri", "byte", "tmpl", "when", "mail"][..]),
        text in prop_oneof![
            proptest::sample::select(STRINGS).prop_map(String::from),
            "[a-zA-Z0-9:/?#@.%{}\\[\\]=+,*-]{0,16}",
            "[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,3})?([Zz]|[+-][0-9]{2}:[0-9]{2})",
            "[a-z]{1,5}:(//[a-z0-9.@:\\[\\]]{0,10})?[/a-z0-9%?#]{0,8}",
            "[A-Za-z0-9+/]{0,8}={0,2}",
            "[a-z.\"+_-]{0,6}@[a-z0-9.\\[\\]:-]{0,10}",
        ],
    ) {
        let instance = json!({"str": "abc", field: text});
        agree("Everything", &instance)?;
    }

    #[test]
    fn other_format_strings_agree_with_jsonschema(
        field in proptest::sample::select(&[
            // Not `idnHost`, `idnMail`: `jsonschema` accepts any string there
            // (see keywords_oracle.rs).
            "date", "time", "duration", "ipv4", "ipv6", "host", "uuid",
            "uriRef", "iri", "iriRef", "pointer", "relPointer", "regex",
        ][..]),
        text in prop_oneof![
            proptest::sample::select(STRINGS).prop_map(String::from),
            "[0-9]{4}-[0-9]{2}-[0-9]{2}",
            "[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,3})?([Zz]|[+-][0-9]{2}:[0-9]{2})?",
            "P([0-9]{1,2}[YMDW]){0,3}(T([0-9]{1,2}[HMS]){0,3})?",
            "[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}",
            "[0-9a-f:]{0,12}",
            "[a-z0-9-]{0,6}(\\.[a-z0-9-]{0,6}){0,2}",
            "[0-9a-fA-F-]{36}",
            "[0-9]{0,2}[#/]?(/[a-z~01]{0,3}){0,3}",
            "[a-z(|)\\[\\]*+?.\\\\]{0,8}",
        ],
    ) {
        // `jsonschema` 0.60 does not know the index manipulation of `relative-json-pointer`
        // (`0-1`, `1+2/a`), which draft 2020-12's reference for the format
        // (draft-bhutton-relative-json-pointer-00) defines: there the verdict is the grammar's,
        // pinned by the unit tests of `src/validation/formats/pointer.rs`, not the oracle's.
        prop_assume!(!(field == "relPointer" && has_index_manipulation(&text)));
        let instance = json!({ field: text });
        agree("Formats", &instance)?;
    }
}

/// Whether `text` starts like a relative JSON pointer with an index manipulation: digits,
/// then `+` or `-`.
fn has_index_manipulation(text: &str) -> bool {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && matches!(text.as_bytes().get(digits), Some(b'+' | b'-'))
}
