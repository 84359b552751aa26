//! Property-test strategies shared by the readers of this module (`to_value`,
//! `parse::long_frame`), which both check themselves against `serde_json`, and by
//! `validation::reused_value` (its own strings and member names, through [`json_value_of`]).

use proptest::prelude::*;
use serde_json::{json, Value};

/// A string from pieces that reach every branch of a string reader: plain runs on both sides
/// of a 32- or 64-byte boundary, quotes, backslashes, control characters, and characters
/// outside ASCII and the BMP.
pub(super) fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z ]{0,80}",
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just("\n\t\u{1}\u{1f}".to_owned()),
        Just("é🦀\u{7f}\u{2028}".to_owned()),
    ];
    prop::collection::vec(piece, 0..6).prop_map(|pieces| pieces.concat())
}

/// Any JSON value, a few levels deep, with [`text`] for its strings and member names.
pub(super) fn json_value() -> impl Strategy<Value = Value> {
    json_value_of(text().boxed(), text().boxed(), 48)
}

/// Any JSON value, up to 4 levels and about `size` nodes deep, with `string` for its string
/// values and `key` for its member names.
pub(crate) fn json_value_of(
    string: BoxedStrategy<String>,
    key: BoxedStrategy<String>,
    size: u32,
) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|n| json!(n)),
        string.prop_map(Value::from),
    ];
    leaf.prop_recursive(4, size, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..5)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}
