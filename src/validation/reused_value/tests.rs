//! `to_value` written over kept values gives what `serde_json::to_value` gives.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::{to_value, KEEP_BYTES_MAX, KEEP_VALUES_MAX, KEPT};
use crate::jsonrpc::test_strategies::json_value_of;

/// Empties this thread's keep.
fn forget_kept() {
    KEPT.with(|kept| kept.borrow_mut().clear());
}

fn kept_count() -> usize {
    KEPT.with(|kept| kept.borrow().len())
}

#[derive(Debug, Clone, Serialize)]
enum Variant {
    Unit,
    Newtype(i64),
    Tuple(u8, String),
    Struct { a: f64 },
}

/// A struct with every shape the writer reuses or hands to `serde_json`.
#[derive(Debug, Clone, Serialize)]
struct Envelope {
    #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
    result_type: Option<String>,
    content: Vec<Value>,
    #[serde(rename = "isError")]
    is_error: bool,
    count: u64,
    delta: i32,
    ratio: f32,
    nested: Option<Box<Envelope>>,
    variant: Variant,
    pair: (String, Option<u8>),
    #[serde(flatten)]
    extra: BTreeMap<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    numbered: Option<BTreeMap<u32, String>>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
enum Sample {
    Json(Value),
    Envelope(Envelope),
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec!["a", "b", "type", "text", "content", "isError"])
            .prop_map(str::to_owned),
        "\\PC{0,6}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_value_of("\\PC{0,12}".boxed(), key().boxed(), 40)
}

fn variant() -> impl Strategy<Value = Variant> {
    prop_oneof![
        Just(Variant::Unit),
        any::<i64>().prop_map(Variant::Newtype),
        (any::<u8>(), "\\PC{0,4}").prop_map(|(n, s)| Variant::Tuple(n, s)),
        any::<f64>().prop_map(|a| Variant::Struct { a }),
    ]
}

/// What [`flat_envelope`] builds an [`Envelope`] from.
type Parts = (
    Option<&'static str>,
    Vec<Value>,
    bool,
    u64,
    i32,
    f32,
    Variant,
    (String, Option<u8>),
    BTreeMap<String, Value>,
    Option<Value>,
    Option<BTreeMap<u32, String>>,
);

fn flat_envelope() -> impl Strategy<Value = Envelope> {
    let flat = (
        prop::option::of(prop::sample::select(vec!["complete", "input_required"])),
        prop::collection::vec(json_value(), 0..3),
        any::<bool>(),
        any::<u64>(),
        any::<i32>(),
        any::<f32>(),
        variant(),
        ("\\PC{0,4}", prop::option::of(any::<u8>())),
        prop::collection::btree_map(key(), json_value(), 0..3),
        prop::option::of(json_value()),
        prop::option::of(prop::collection::btree_map(any::<u32>(), "\\PC{0,3}", 0..3)),
    );
    let build = |(
        result_type,
        content,
        is_error,
        count,
        delta,
        ratio,
        variant,
        pair,
        extra,
        raw,
        numbered,
    ): Parts| Envelope {
        result_type: result_type.map(str::to_owned),
        content,
        is_error,
        count,
        delta,
        ratio,
        nested: None,
        variant,
        pair,
        // A flattened key the struct also writes would make both writers fail alike;
        // keep the flattened ones distinct from the fields.
        extra: extra
            .into_iter()
            .map(|(key, value)| (format!("x-{key}"), value))
            .collect(),
        raw: raw.map(|value| serde_json::value::to_raw_value(&value).unwrap()),
        numbered,
    };
    flat.prop_map(build)
}

fn envelope() -> impl Strategy<Value = Envelope> {
    (flat_envelope(), prop::option::of(flat_envelope())).prop_map(|(mut outer, inner)| {
        outer.nested = inner.map(Box::new);
        outer
    })
}

fn sample() -> impl Strategy<Value = Sample> {
    prop_oneof![
        json_value().prop_map(Sample::Json),
        envelope().prop_map(Sample::Envelope),
    ]
}

proptest! {
    /// Whatever was written before, the value written over it is `serde_json::to_value`'s.
    #[test]
    fn writing_over_a_kept_value_gives_what_to_value_gives(
        samples in prop::collection::vec(sample(), 1..8),
    ) {
        forget_kept();
        for sample in &samples {
            let expected = serde_json::to_value(sample).unwrap();
            let written = to_value(sample).unwrap();
            prop_assert_eq!(written.get(), &expected);
            written.recycle();
        }
    }
}

#[test]
fn a_recycled_value_lends_its_strings_to_the_next_one_of_its_shape() {
    forget_kept();
    let first = to_value(&json!({ "content": [{ "type": "text", "text": "one" }] })).unwrap();
    let text = |value: &Value| value["content"][0]["text"].as_str().unwrap().as_ptr();
    let buffer = text(first.get());
    first.recycle();
    let second = to_value(&json!({ "content": [{ "type": "text", "text": "two" }] })).unwrap();
    assert_eq!(second.get()["content"][0]["text"], "two");
    assert_eq!(text(second.get()), buffer, "the string's buffer was reused");
}

#[test]
fn only_small_values_are_kept_and_only_a_few() {
    forget_kept();
    to_value(&"x".repeat(KEEP_BYTES_MAX + 1)).unwrap().recycle();
    assert_eq!(kept_count(), 0, "a large value is dropped");
    to_value(&"x".repeat(64 * 1024)).unwrap().recycle();
    assert_eq!(kept_count(), 1, "a 64 KiB text is kept");
    forget_kept();
    for _ in 0..KEEP_VALUES_MAX + 2 {
        let values: Vec<_> = (0..KEEP_VALUES_MAX + 2)
            .map(|n| to_value(&json!({ "n": n })).unwrap())
            .collect();
        values.into_iter().for_each(super::ReusedValue::recycle);
    }
    assert_eq!(kept_count(), KEEP_VALUES_MAX);
}

/// A hand-written struct that writes `a` twice, and `n` fields though it announces 1.
struct Odd {
    fields: usize,
}

impl Serialize for Odd {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        const KEYS: [&str; 20] = [
            "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q",
            "r", "s", "t",
        ];
        let mut state = serializer.serialize_struct("Odd", 1)?;
        state.serialize_field("a", &1)?;
        for key in KEYS.iter().take(self.fields) {
            state.serialize_field(key, &2)?;
        }
        state.serialize_field("a", &3)?;
        state.end()
    }
}

#[test]
fn hand_written_structs_give_what_to_value_gives() {
    for (before, after) in [(0, 1), (3, 1), (1, 3), (19, 2), (2, 19), (20, 20)] {
        forget_kept();
        to_value(&Odd { fields: before }).unwrap().recycle();
        let written = to_value(&Odd { fields: after }).unwrap();
        let expected = serde_json::to_value(Odd { fields: after }).unwrap();
        assert_eq!(written.get(), &expected, "{before} then {after} fields");
    }
}

#[test]
fn a_failing_serialization_fails_as_to_value_does() {
    struct Fails;
    impl Serialize for Fails {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no"))
        }
    }
    forget_kept();
    to_value(&json!({ "a": [1, 2, 3] })).unwrap().recycle();
    let error = to_value(&json!({ "a": 1 })).map(|_| ());
    assert!(error.is_ok());
    let ours = to_value(&(1, Fails)).unwrap_err().to_string();
    let theirs = serde_json::to_value((1, Fails)).unwrap_err().to_string();
    assert_eq!(ours, theirs);
}
