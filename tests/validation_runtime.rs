//! The runtime support generated validators call: exact numbers, JSON equality, uniqueness,
//! format checks (against `jsonschema`'s own format checks), and the `ValidationError` wire
//! shape (against `schema/errors.json`).

use proptest::prelude::*;
use serde_json::{json, Number, Value};
use typed_mcp::__private as rt;
use typed_mcp::validation::ValidationError;

fn number(v: Value) -> Number {
    match v {
        Value::Number(n) => n,
        other => panic!("not a number: {other}"),
    }
}

/// `jsonschema`'s verdict on `text` for `format`.
fn format_oracle(format: &str) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(&json!({"type": "string", "format": format}))
        .expect("format schema")
}

proptest! {
    #[test]
    fn integer_bounds_compare_like_i128(a in any::<i64>(), b in any::<u64>(), c in any::<i64>()) {
        let n = number(json!(a));
        prop_assert_eq!(rt::number_lt(&n, rt::Bound::U(b)), i128::from(a) < i128::from(b));
        prop_assert_eq!(rt::number_gt(&n, rt::Bound::I(c)), a > c);
        prop_assert_eq!(rt::number_eq(&n, rt::Bound::I(c)), a == c);
        let big = number(json!(b));
        prop_assert_eq!(rt::number_le(&big, rt::Bound::I(c)), i128::from(b) <= i128::from(c));
    }

    #[test]
    fn integer_float_comparisons_are_exact(i in -(1i64 << 53)..(1i64 << 53), f in any::<f64>()) {
        prop_assume!(f.is_finite());
        // Within ±2^53 an integer converts to f64 exactly, so f64 comparison is the oracle.
        let n = number(json!(i));
        let exact = (i as f64).partial_cmp(&f).unwrap();
        prop_assert_eq!(rt::number_lt(&n, rt::Bound::F(f)), exact.is_lt());
        prop_assert_eq!(rt::number_ge(&n, rt::Bound::F(f)), exact.is_ge());
        let g = number(json!(f));
        prop_assert_eq!(rt::number_gt(&g, rt::Bound::I(i)), exact.is_lt());
    }

    #[test]
    fn multiple_of_integers_is_modulo(v in any::<i64>(), d in 1u64..1000) {
        let n = number(json!(v));
        prop_assert_eq!(rt::is_multiple_of(&n, rt::Bound::U(d)), v.unsigned_abs() % d == 0);
    }

    #[test]
    fn multiple_of_dyadic_fractions_is_exact(k in -10_000i64..10_000, j in 0u32..8, odd in 0i64..2) {
        // value = (2k + odd) / 2^j, divisor = 1 / 2^j: a multiple exactly when... always;
        // divisor 2 / 2^j: a multiple exactly when the numerator is even.
        let scale = f64::from(1u32 << j);
        let numerator = 2 * k + odd;
        let value = number(json!(numerator as f64 / scale));
        prop_assert!(rt::is_multiple_of(&value, rt::Bound::F(1.0 / scale)));
        prop_assert_eq!(rt::is_multiple_of(&value, rt::Bound::F(2.0 / scale)), odd == 0);
    }

    #[test]
    fn duplicates_match_the_quadratic_definition(
        items in proptest::collection::vec(
            prop_oneof![
                (0i64..6).prop_map(Value::from),
                (0i64..6).prop_map(|i| json!(i as f64)),
                "[ab]{0,2}".prop_map(Value::from),
                proptest::collection::vec((0i64..3).prop_map(Value::from), 0..3).prop_map(Value::Array),
                (0i64..3).prop_map(|i| json!({"k": i})),
            ],
            0..40,
        )
    ) {
        let naive = (1..items.len())
            .find_map(|j| (0..j).find(|&i| rt::json_equal(&items[i], &items[j])).map(|i| (i, j)));
        // Both find the first `j` that repeats an earlier item; `i` may differ only if
        // several earlier items are equal, which the earliest `j` rules out.
        prop_assert_eq!(rt::first_duplicate(&items), naive);
    }

    #[test]
    fn uri_and_uri_template_agree_with_jsonschema(
        text in prop_oneof![
            // `'` is left out: RFC 6570 excludes it from literals, `jsonschema` accepts it (see
            // `uri_template_follows_rfc_6570_where_jsonschema_is_lenient`).
            "[a-zA-Z0-9:/?#@.%{}\\[\\]=+,*~!$&()-]{0,16}",
            "[a-z][a-z0-9+.-]{0,3}:(//([a-z0-9]{0,3}@)?([a-z0-9.-]{0,6}|\\[[0-9a-f:]{2,8}\\])(:[0-9]{0,3})?)?(/[a-z0-9%]{0,3}){0,3}(\\?[a-z=&]{0,5})?(#[a-z/?]{0,3})?",
            "([a-z/]{0,3}(\\{[+#./;?&]?[a-z_.%0-9]{0,4}(:[0-9]{1,5}|\\*)?(,[a-z]{1,2})?\\})?){0,3}",
        ]
    ) {
        prop_assert_eq!(rt::is_uri(&text), format_oracle("uri").is_valid(&json!(text)), "uri {:?}", text);
        prop_assert_eq!(
            rt::is_uri_template(&text),
            format_oracle("uri-template").is_valid(&json!(text)),
            "uri-template {:?}", text
        );
    }

    #[test]
    fn date_time_agrees_with_jsonschema(
        text in prop_oneof![
            "[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,3})?([Zz]|[+-][0-9]{2}:[0-9]{2})?",
            "20(00|23|24)-0[1-3]-(28|29|30|31)T2[0-4]:(00|59|60):(00|59|60|61)([Zz]|[+-](00|01|23|24):(00|59|60))",
        ]
    ) {
        prop_assert_eq!(
            rt::is_date_time(&text),
            format_oracle("date-time").is_valid(&json!(text)),
            "date-time {:?}", text
        );
    }
}

#[test]
fn uri_template_follows_rfc_6570_where_jsonschema_is_lenient() {
    assert!(!rt::is_uri_template("it's/{x}"));
    assert!(rt::is_uri_template("its/{x}"));
}

#[test]
fn emails_agree_with_jsonschema_on_common_shapes() {
    for text in [
        "a@example.com",
        "first.last+tag@sub.example.org",
        "\"quoted name\"@example.com",
        "x@[192.0.2.1]",
        "x@[IPv6:2001:db8::1]",
        "no-at-sign",
        "@example.com",
        "a@",
        "a..b@example.com",
        ".a@example.com",
        "a.@example.com",
        "a@-example.com",
        "a@exa_mple.com",
        "a b@example.com",
        "a@[300.1.1.1]",
    ] {
        assert_eq!(
            rt::is_email(text),
            format_oracle("email").is_valid(&json!(text)),
            "email {text:?}"
        );
    }
}

#[test]
fn validation_errors_match_the_published_error_schema() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/schema/errors.json"))
        .expect("schema/errors.json");
    let mut schema: Value = serde_json::from_str(&text).unwrap();
    schema["$ref"] = json!("#/$defs/ValidationError");
    let oracle = jsonschema::validator_for(&schema).expect("errors.json compiles");
    let error = ValidationError::new(
        "/items/3/a~1b",
        "/$defs/List/items/properties/a~1b/maxLength",
        "maxLength",
        json!(5),
        json!(9),
        "string has 9 characters, longer than 5",
    );
    let wire = serde_json::to_value(&error).unwrap();
    assert!(oracle.is_valid(&wire), "{wire}");
    assert_eq!(
        wire["schemaPath"],
        "/$defs/List/items/properties/a~1b/maxLength"
    );
    let back: ValidationError = serde_json::from_value(wire).unwrap();
    assert_eq!(back, error);
    // An error without the optional members still reads back.
    let minimal: ValidationError =
        serde_json::from_value(json!({"path": "", "keyword": "type", "message": "m"})).unwrap();
    assert_eq!((minimal.limit(), minimal.schema_path()), (Value::Null, ""));
}

#[test]
fn collector_counts_without_building_in_check_mode() {
    let root = rt::Location::Root;
    let mut checking = rt::Collector::check_only();
    let mut built = 0;
    checking.fail(&root, "/x", "type", || {
        built += 1;
        (rt::Part::Null, rt::Part::Null, rt::Message::Static(""))
    });
    assert_eq!((checking.failures(), built), (1, 0));
    assert!(checking.into_result().is_err());
    let mut collecting = rt::Collector::new();
    let key = root.key("a/b");
    collecting.fail(&key, "/x", "type", || {
        (
            rt::Part::Str("string"),
            rt::Part::Value(Box::new(json!("integer"))),
            rt::Message::Template("{actual} is not {limit}; {other}"),
        )
    });
    let errors = collecting.into_result().unwrap_err();
    assert_eq!(errors[0].path(), "/a~1b");
    assert_eq!(
        errors[0].to_string(),
        "/a~1b: integer is not string; {other}"
    );
    assert_eq!(
        (errors[0].limit(), errors[0].actual()),
        (json!("string"), json!("integer"))
    );
}
