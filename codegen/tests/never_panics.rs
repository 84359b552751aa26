//! The generator never panics: for random schema shapes (random combinations of `type`,
//! `enum`, `const`, `default`, `properties`, `items`, `format`, `$schema`, nested `$defs`,
//! refs to them), generation returns the code or a typed error naming the file, never a
//! panic. (typify panics on some shapes; those must come back as `Error::TypeGeneration`.)

use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[ -~\n]{0,6}".prop_map(Value::from),
    ]
}

fn type_name() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!("string")),
        Just(json!("integer")),
        Just(json!("number")),
        Just(json!("boolean")),
        Just(json!("object")),
        Just(json!("array")),
        Just(json!("null")),
        Just(json!(["string", "null"])),
    ]
}

/// One schema object: a random subset of keywords, nesting up to `depth`.
fn schema(depth: u32) -> BoxedStrategy<Value> {
    let leaf = (
        proptest::option::of(type_name()),
        proptest::option::of(proptest::collection::vec(scalar(), 1..5)),
        proptest::option::of(scalar()),
        proptest::option::of(scalar()),
        proptest::option::of(prop_oneof![
            Just("uuid"),
            Just("date"),
            Just("int32"),
            Just("uri"),
            Just("email")
        ]),
        proptest::option::of(prop_oneof![
            Just("http://json-schema.org/draft-07/schema#"),
            Just("https://json-schema.org/draft/2020-12/schema")
        ]),
        proptest::option::of(prop_oneof![Just("#/$defs/Local"), Just("#/$defs/Top")]),
    )
        .prop_map(
            |(ty, values, default, constant, format, dialect, reference)| {
                let mut map = Map::new();
                if let Some(t) = ty {
                    map.insert("type".into(), t);
                }
                if let Some(v) = values {
                    map.insert("enum".into(), Value::Array(v));
                }
                if let Some(d) = default {
                    map.insert("default".into(), d);
                }
                if let Some(c) = constant {
                    map.insert("const".into(), c);
                }
                if let Some(f) = format {
                    map.insert("format".into(), json!(f));
                }
                if let Some(s) = dialect {
                    map.insert("$schema".into(), json!(s));
                }
                if let Some(r) = reference {
                    map.insert("$ref".into(), json!(r));
                }
                Value::Object(map)
            },
        )
        .boxed();
    if depth == 0 {
        return leaf;
    }
    (
        leaf,
        proptest::collection::btree_map("[a-z+.\\-]{1,4}", schema(depth - 1), 0..3),
        proptest::option::of(schema(depth - 1)),
        proptest::option::of(schema(depth - 1)),
        any::<bool>(),
    )
        .prop_map(|(base, properties, items, nested, closed)| {
            let Value::Object(mut map) = base else {
                unreachable!("leaves are objects")
            };
            if !properties.is_empty() {
                map.insert("properties".into(), json!(properties));
            }
            if let Some(items) = items {
                map.insert("items".into(), items);
            }
            if let Some(nested) = nested {
                map.insert("$defs".into(), json!({ "Local": nested }));
            }
            if closed {
                map.insert("additionalProperties".into(), json!(false));
            }
            Value::Object(map)
        })
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn generation_returns_code_or_a_typed_error(tool in schema(1), top in schema(0)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tools.json");
        let document = json!({"$defs": {"Tool": tool, "Top": top, "Local": {"type": "string"}}});
        std::fs::write(&path, document.to_string()).unwrap();
        let outcome = std::panic::catch_unwind(|| {
            typed_mcp_codegen::Config::new().generate_string(&path)
        });
        let Ok(result) = outcome else {
            return Err(TestCaseError::fail(format!("the generator panicked on {document}")));
        };
        if let Err(error) = result {
            prop_assert!(error.to_string().contains("tools.json"), "{error}");
        }
    }
}
