//! Hand-written cases for every supported keyword: the generated validator must report
//! exactly the expected `(path, keyword)` errors, and agree with `jsonschema` on validity.

mod common;

use serde_json::{json, Value};
use validator_fixture::keywords::{self, registry};

fn schema() -> Value {
    serde_json::from_str(include_str!("../schemas/keywords.json")).expect("fixture schema")
}

/// Checks one instance of `def` against the expected errors (empty: valid).
fn check(schema: &Value, def: &str, instance: Value, expected: &[(&str, &str)]) {
    let validate = validator_fixture::lookup(registry::VALIDATORS, def).expect("known def");
    let ours = validate(&instance);
    let got = ours
        .as_ref()
        .err()
        .map(|e| common::summary(e))
        .unwrap_or_default();
    let mut want: Vec<(String, String)> = expected
        .iter()
        .map(|(p, k)| (p.to_string(), k.to_string()))
        .collect();
    want.sort();
    assert_eq!(got, want, "{def}: errors for {instance}");
    let oracle = common::oracle(schema, def).is_valid(&instance);
    assert_eq!(
        ours.is_ok(),
        oracle,
        "{def}: verdict differs from jsonschema for {instance}"
    );
}

/// `Everything` with `extra` merged into a valid base object.
fn every(extra: Value) -> Value {
    let mut base = json!({"str": "abc"});
    if let (Value::Object(base), Value::Object(extra)) = (&mut base, extra) {
        base.extend(extra);
    }
    base
}

#[test]
fn strings_lengths_patterns_and_types() {
    let s = schema();
    check(&s, "Everything", every(json!({})), &[]);
    check(&s, "Everything", json!({}), &[("", "required")]);
    check(
        &s,
        "Everything",
        every(json!({"str": "a"})),
        &[("/str", "minLength")],
    );
    check(
        &s,
        "Everything",
        every(json!({"str": "abcdef"})),
        &[("/str", "maxLength")],
    );
    // Lengths count code points, not bytes: 5 characters, 10 bytes.
    check(&s, "Everything", every(json!({"str": "ééééé"})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"str": 5})),
        &[("/str", "type")],
    );
    check(&s, "Everything", every(json!({"pat": "abc12"})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"pat": "Abc"})),
        &[("/pat", "pattern")],
    );
    check(
        &s,
        "Everything",
        every(json!({"pat": "abc1x"})),
        &[("/pat", "pattern")],
    );
}

#[test]
fn every_other_2020_12_format_is_asserted() {
    let s = schema();
    for (key, good, bad) in [
        ("date", "2020-02-29", "2021-02-29"),
        ("time", "08:30:06.283185Z", "08:30:06"),
        ("duration", "P4DT12H30M5S", "PT1D"),
        ("ipv4", "192.168.0.1", "256.0.0.1"),
        ("ipv6", "::ffff:192.168.0.1", "1:2:3:4:5:6:7:8:9"),
        ("host", "www.example.com", "-a.example.com"),
        (
            "uuid",
            "2EB8AA08-AA98-11EA-B4AA-73B441D16380",
            "2eb8aa08-aa98-11ea-b4aa-73b441d1638",
        ),
        ("uriRef", "../a/b?c#d", "\\\\WINDOWS\\share"),
        ("iri", "http://ƒøø.ßår/?∂éœ=πîx#πîüx", "/abc"),
        ("iriRef", "/é?x#y", "#a#b"),
        ("pointer", "/foo/0/a~1b", "/foo/~2"),
        ("relPointer", "0/foo/bar", "/foo/bar"),
        ("regex", "([abc])+\\s+$", "^(abc]"),
    ] {
        check(&s, "Formats", json!({ key: good }), &[]);
        let path = format!("/{key}");
        check(&s, "Formats", json!({ key: bad }), &[(&path, "format")]);
    }
    // A format the runtime does not know is an annotation.
    check(&s, "Formats", json!({"unknown": "anything at all"}), &[]);
    // `jsonschema` accepts any string as an `idn-hostname` or `idn-email`, so it is no oracle
    // there: these verdicts come from RFC 5892 (U+302E is DISALLOWED), RFC 5891 (label
    // length) and RFC 6531 (an address needs an `@`).
    let validate = validator_fixture::lookup(registry::VALIDATORS, "Formats").expect("known def");
    let long_label = format!("{}.com", "실례".repeat(40));
    for (key, good, bads) in [
        (
            "idnHost",
            "실례.테스트",
            ["〮실례.테스트", "-> $1.00 <-", long_label.as_str()],
        ),
        (
            "idnMail",
            "실례@실례.테스트",
            ["2962", "실례@〮실례.테스트", "@실례.테스트"],
        ),
    ] {
        assert!(validate(&json!({ key: good })).is_ok(), "{good}");
        for bad in bads {
            let errors = validate(&json!({ key: bad })).expect_err(bad);
            assert_eq!(
                common::summary(&errors),
                [(format!("/{key}"), "format".to_owned())]
            );
        }
    }
}

#[test]
fn formats() {
    let s = schema();
    for (key, good, bad) in [
        ("uri", "https://example.com/a?b#c", "/relative"),
        ("uri", "urn:isbn:0451450523", "not a uri"),
        ("byte", "Zm9vYg==", "Zm9vYg"),
        ("byte", "", "Zm9vY==="),
        ("tmpl", "/items/{id}{?q*}", "/items/{id"),
        (
            "when",
            "2026-07-28T12:00:00.5+02:00",
            "2026-02-30T00:00:00Z",
        ),
        ("when", "2024-02-29T23:59:60Z", "2026-07-28 12:00:00Z"),
        ("mail", "someone@example.com", "someone@"),
        ("mail", "a.b+c@sub.example.org", "a..b@example.org"),
    ] {
        check(&s, "Everything", every(json!({ key: good })), &[]);
        let path = format!("/{key}");
        check(
            &s,
            "Everything",
            every(json!({ key: bad })),
            &[(&path, "format")],
        );
    }
    // Formats only apply to strings.
    check(
        &s,
        "Everything",
        every(json!({"uri": 5})),
        &[("/uri", "type")],
    );
}

#[test]
fn numbers_are_compared_exactly() {
    let s = schema();
    check(&s, "Everything", every(json!({"int": 10})), &[]);
    check(&s, "Everything", every(json!({"int": 1.0})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"int": 11})),
        &[("/int", "maximum")],
    );
    check(
        &s,
        "Everything",
        every(json!({"int": -4})),
        &[("/int", "minimum")],
    );
    check(
        &s,
        "Everything",
        every(json!({"int": 1.5})),
        &[("/int", "type")],
    );
    check(
        &s,
        "Everything",
        every(json!({"num": 0.5})),
        &[("/num", "exclusiveMinimum")],
    );
    check(&s, "Everything", every(json!({"num": 0.51})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"num": 100})),
        &[("/num", "exclusiveMaximum")],
    );
    check(&s, "Everything", every(json!({"num": 99.99})), &[]);
    check(&s, "Everything", every(json!({"mult": 0.75})), &[]);
    check(&s, "Everything", every(json!({"mult": 5})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"mult": 0.3})),
        &[("/mult", "multipleOf")],
    );
    check(
        &s,
        "Everything",
        every(json!({"big": 9_007_199_254_740_993u64})),
        &[],
    );
    check(&s, "Everything", every(json!({"big": i64::MIN})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"big": u64::MAX})),
        &[("/big", "maximum")],
    );
}

#[test]
fn big_integers_beyond_f64_precision() {
    // 2^53 + 2 > 2^53 + 1: only exact integer comparison sees it (an f64 rounds both to the
    // same value). `jsonschema` is not asked here.
    let validate = validator_fixture::lookup(registry::VALIDATORS, "Everything").unwrap();
    let errors = validate(&every(json!({"big": 9_007_199_254_740_994u64}))).unwrap_err();
    assert_eq!(
        common::summary(&errors),
        [("/big".to_string(), "maximum".to_string())]
    );
    assert_eq!(errors[0].actual(), json!(9_007_199_254_740_994u64));
    assert_eq!(errors[0].limit(), json!(9_007_199_254_740_993u64));
}

#[test]
fn arrays_enums_and_consts() {
    let s = schema();
    check(&s, "Everything", every(json!({"list": [null, "x"]})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"list": []})),
        &[("/list", "minItems")],
    );
    check(
        &s,
        "Everything",
        every(json!({"list": ["a", "b", "c", "d"]})),
        &[("/list", "maxItems")],
    );
    check(
        &s,
        "Everything",
        every(json!({"list": ["a", "a"]})),
        &[("/list", "uniqueItems")],
    );
    check(
        &s,
        "Everything",
        every(json!({"list": ["a", 1]})),
        &[("/list/1", "type")],
    );
    for ok in [
        json!("red"),
        json!(1.0),
        json!(null),
        json!(true),
        json!([1, 2.0]),
        json!({"a": 1.0}),
    ] {
        check(&s, "Everything", every(json!({ "color": ok })), &[]);
    }
    for bad in [
        json!("blue"),
        json!(false),
        json!([2, 1]),
        json!({"a": 2}),
        json!(1.5),
    ] {
        check(
            &s,
            "Everything",
            every(json!({ "color": bad })),
            &[("/color", "enum")],
        );
    }
    check(&s, "Everything", every(json!({"fixed": 1.0})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"fixed": 2})),
        &[("/fixed", "const")],
    );
    check(
        &s,
        "Everything",
        every(json!({"fixed": "1"})),
        &[("/fixed", "const")],
    );
    check(
        &s,
        "Everything",
        every(json!({"fixedObj": {"k": [1.0, "x"]}})),
        &[],
    );
    check(
        &s,
        "Everything",
        every(json!({"fixedObj": {"k": [1]}})),
        &[("/fixedObj", "const")],
    );
}

#[test]
fn objects_refs_and_boolean_schemas() {
    let s = schema();
    check(
        &s,
        "Everything",
        every(json!({"obj": {}})),
        &[("/obj", "minProperties")],
    );
    check(
        &s,
        "Everything",
        every(json!({"obj": {"a": 1, "b": 2, "c": 3}})),
        &[("/obj", "maxProperties")],
    );
    check(
        &s,
        "Everything",
        every(json!({"obj": {"a": "x"}})),
        &[("/obj/a", "type")],
    );
    check(&s, "Everything", every(json!({"closed": {"a": [1]}})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"closed": {"b": 1, "a~/": 2}})),
        &[
            ("/closed/b", "additionalProperties"),
            ("/closed/a~0~1", "additionalProperties"),
        ],
    );
    // A declared member whose name a pointer escapes.
    check(
        &s,
        "Everything",
        every(json!({"closed": {"a~/b": "x"}})),
        &[("/closed/a~0~1b", "type")],
    );
    check(&s, "Everything", every(json!({"both": {"x": "s"}})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"both": {}})),
        &[("/both", "required")],
    );
    check(
        &s,
        "Everything",
        every(json!({"both": {"x": 1}})),
        &[("/both/x", "type")],
    );
    check(
        &s,
        "Everything",
        every(json!({"refsib": {"x": 1, "a": 1, "b": 2}})),
        &[("/refsib", "maxProperties"), ("/refsib/x", "type")],
    );
    check(
        &s,
        "Everything",
        every(json!({"never": null})),
        &[("/never", "false")],
    );
    check(
        &s,
        "Everything",
        every(json!({"anything": {"x": [1]}})),
        &[],
    );
    check(
        &s,
        "Everything",
        every(json!({"flag": "true"})),
        &[("/flag", "type")],
    );
    check(
        &s,
        "Everything",
        every(json!({"nothing": 0})),
        &[("/nothing", "type")],
    );
    check(&s, "Everything", every(json!({"multi": 3})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"multi": 1.5})),
        &[("/multi", "type")],
    );
    check(
        &s,
        "Everything",
        every(json!({"tree": {"name": "a", "children": [{"children": [{"name": "long"}]}]}})),
        &[("/tree/children/0/children/0/name", "maxLength")],
    );
    check(
        &s,
        "Everything",
        every(json!({"tree": {"leaf": 1}})),
        &[("/tree/leaf", "additionalProperties")],
    );
}

#[test]
fn every_violation_is_collected() {
    let s = schema();
    check(
        &s,
        "Everything",
        json!({"str": "a", "int": 50, "list": [], "closed": {"z": 1}, "shape": {"kind": "circle", "r": -1}}),
        &[
            ("/str", "minLength"),
            ("/int", "maximum"),
            ("/list", "minItems"),
            ("/closed/z", "additionalProperties"),
            ("/shape/r", "minimum"),
        ],
    );
}

#[test]
fn unions_report_the_selected_branch() {
    let s = schema();
    check(&s, "Shape", json!({"kind": "circle", "r": 1}), &[]);
    check(
        &s,
        "Shape",
        json!({"kind": "circle", "r": -1}),
        &[("/r", "minimum")],
    );
    check(
        &s,
        "Shape",
        json!({"kind": "square", "side": 101}),
        &[("/side", "maximum")],
    );
    check(&s, "Shape", json!({"kind": "square"}), &[("", "required")]);
    check(
        &s,
        "Shape",
        json!({"kind": "circle", "r": 1, "x": 0}),
        &[("/x", "additionalProperties")],
    );
    check(&s, "Shape", json!({"kind": "triangle"}), &[("", "anyOf")]);
    check(&s, "Shape", json!([1, 2]), &[("", "maxItems")]);
    check(&s, "Shape", json!("circle"), &[("", "anyOf")]);
    check(&s, "Everything", every(json!({"inline": "ab"})), &[]);
    check(
        &s,
        "Everything",
        every(json!({"inline": "abc"})),
        &[("/inline", "maxLength")],
    );
    check(
        &s,
        "Everything",
        every(json!({"inline": -1})),
        &[("/inline", "minimum")],
    );
    check(
        &s,
        "Everything",
        every(json!({"inline": 1.5})),
        &[("/inline", "anyOf")],
    );
    check(&s, "Choice", json!(3), &[]);
    check(&s, "Choice", json!(5.5), &[]);
    check(&s, "Choice", json!("s"), &[]);
    check(&s, "Choice", json!(2.5), &[("", "minimum")]);
    check(&s, "Choice", json!(7), &[("", "oneOf")]);
    check(&s, "Choice", json!(true), &[("", "oneOf")]);
}

#[test]
fn selectors_prefer_the_discriminator_then_the_most_specific_valid_branch() {
    let shape = keywords::select_shape;
    assert_eq!(
        shape(&json!({"kind": "square"})),
        Some(1),
        "discriminator wins even if invalid"
    );
    assert_eq!(shape(&json!({"kind": "circle", "r": 1})), Some(0));
    assert_eq!(shape(&json!([])), Some(2));
    assert_eq!(shape(&json!({"kind": "hexagon"})), None);
    assert_eq!(shape(&json!(1)), None);

    let outcome = keywords::select_outcome;
    assert_eq!(
        outcome(&json!({"resultType": "complete", "content": []})),
        Some(2)
    );
    assert_eq!(
        outcome(&json!({"resultType": "x", "requests": {}})),
        Some(1)
    );
    assert_eq!(outcome(&json!({"resultType": "x"})), Some(0));
    // The most specific branch rejects it (too many items): the next valid one is chosen.
    assert_eq!(
        outcome(&json!({"resultType": "x", "content": [1, 2, 3]})),
        Some(0)
    );
    assert_eq!(outcome(&json!({"content": []})), None);

    assert_eq!(keywords::select_choice(&json!(2.5)), Some(1));
    assert_eq!(keywords::select_choice(&json!(true)), None);
}

#[test]
fn error_details_point_into_the_schema_and_never_echo_large_input() {
    let errors = keywords::everything(&every(json!({
        "str": "x".repeat(100),
        "pat": "A".repeat(100),
        "list": ["a", "b", "a"],
        "shape": {"kind": "square", "side": 1000},
    })))
    .unwrap_err();
    let by_keyword = |k: &str| errors.iter().find(|e| e.keyword() == k).expect("reported");
    let long = by_keyword("maxLength");
    assert_eq!(
        long.schema_path(),
        "/$defs/Everything/properties/str/maxLength"
    );
    assert_eq!(
        (long.limit().clone(), long.actual().clone()),
        (json!(5), json!(100))
    );
    let pattern = by_keyword("pattern");
    assert_eq!(
        pattern.actual(),
        json!("string"),
        "a 100-byte string is not echoed"
    );
    assert!(!pattern.message().contains("AAAA"));
    assert_eq!(by_keyword("uniqueItems").actual(), json!([0, 2]));
    let side = by_keyword("maximum");
    assert_eq!(side.path(), "/shape/side");
    assert_eq!(side.schema_path(), "/$defs/Square/properties/side/maximum");
    let json = serde_json::to_value(side).unwrap();
    assert_eq!(json["schemaPath"], "/$defs/Square/properties/side/maximum");
}

#[test]
fn colliding_names_get_distinct_functions() {
    use validator_fixture::naming;
    assert!(naming::type_def(&json!("s")).is_ok());
    assert!(naming::type_def(&json!(1)).is_err());
    assert!(naming::jsonrpc_request(&json!({"id": 1})).is_ok());
    let foo = validator_fixture::lookup(naming::registry::VALIDATORS, "Foo").unwrap();
    let foo_at = validator_fixture::lookup(naming::registry::VALIDATORS, "FooAt").unwrap();
    let foo_lower = validator_fixture::lookup(naming::registry::VALIDATORS, "foo").unwrap();
    assert!(foo(&json!(null)).is_ok() && foo(&json!(1)).is_err());
    assert!(foo_at(&json!(1)).is_ok() && foo_at(&json!("s")).is_err());
    assert!(foo_lower(&json!(true)).is_ok() && foo_lower(&json!(null)).is_err());
}
