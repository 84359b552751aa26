//! Helpers on JSON values for generated validators: type names, JSON equality, uniqueness,
//! and the summaries put in an error's `actual`.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use serde_json::{Number, Value};

use super::error::Part;
use super::numbers::{bound_of, cmp_bounds, is_integer, Bound};
use super::text::ShortText;

/// The JSON Schema type name of a value (`integer` for numbers without a fractional part).
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Longest string echoed back in an error's `actual`.
pub const MAX_ECHO_BYTES: usize = 64;

/// What an error's `actual` may say about `value`: the value itself when it is a number, a
/// boolean, null or a string of at most [`MAX_ECHO_BYTES`] bytes, otherwise its type name.
pub fn summary(value: &Value) -> Part {
    match value {
        Value::Null => Part::Null,
        Value::Bool(b) => Part::Bool(*b),
        Value::Number(n) => Part::Number(n.clone()),
        Value::String(s) => summary_str(s),
        other => Part::Str(type_name(other)),
    }
}

/// [`summary`] of a string (an object key).
pub fn summary_str(s: &str) -> Part {
    if s.len() <= MAX_ECHO_BYTES {
        Part::Text(ShortText::from(s))
    } else {
        Part::Str("string")
    }
}

/// A JSON number as an error's `actual`.
pub fn number_value(n: &Number) -> Part {
    Part::Number(n.clone())
}

/// JSON equality as JSON Schema defines it: numbers by mathematical value (`1 == 1.0`),
/// arrays item by item, objects by their member sets.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            cmp_bounds(bound_of(x), bound_of(y)) == Some(std::cmp::Ordering::Equal)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        (x, y) => x == y,
    }
}

/// A hash consistent with [`json_equal`] (equal values hash alike).
fn hash_value(value: &Value, state: &mut impl Hasher) {
    match value {
        Value::Null => 0u8.hash(state),
        Value::Bool(b) => (1u8, b).hash(state),
        Value::Number(n) => {
            2u8.hash(state);
            // Equal numbers have equal f64 images (the converse need not hold).
            let f = match bound_of(n) {
                Bound::U(u) => u as f64,
                Bound::I(i) => i as f64,
                Bound::F(f) => f,
            };
            let f = if f == 0.0 { 0.0 } else { f };
            f.to_bits().hash(state);
        }
        Value::String(s) => (3u8, s).hash(state),
        Value::Array(items) => {
            (4u8, items.len()).hash(state);
            for item in items {
                hash_value(item, state);
            }
        }
        Value::Object(map) => {
            (5u8, map.len()).hash(state);
            // Order-independent combination of the members.
            let mut combined = 0u64;
            for (k, v) in map {
                let mut h = DefaultHasher::new();
                k.hash(&mut h);
                hash_value(v, &mut h);
                combined = combined.wrapping_add(h.finish());
            }
            combined.hash(state);
        }
    }
}

/// The first pair of equal items `(i, j)`, `i < j`, if any (`uniqueItems`).
pub fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    if items.len() <= 16 {
        for j in 1..items.len() {
            if let Some(i) = (0..j).find(|&i| json_equal(&items[i], &items[j])) {
                return Some((i, j));
            }
        }
        return None;
    }
    let mut seen: HashMap<u64, Vec<usize>> = HashMap::with_capacity(items.len());
    for (j, item) in items.iter().enumerate() {
        let mut h = DefaultHasher::new();
        hash_value(item, &mut h);
        let bucket = seen.entry(h.finish()).or_default();
        if let Some(&i) = bucket.iter().find(|&&i| json_equal(&items[i], item)) {
            return Some((i, j));
        }
        bucket.push(j);
    }
    None
}

/// Number of Unicode code points in `s` (what `minLength` / `maxLength` count).
#[inline]
pub fn char_count(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// Parses JSON text written by the generator (schema content, always valid JSON).
pub fn json_literal(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equality_follows_json_schema() {
        assert!(json_equal(&json!([1, {"a": 2.0}]), &json!([1.0, {"a": 2}])));
        assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!json_equal(&json!("1"), &json!(1)));
    }

    #[test]
    fn duplicates_are_found_in_small_and_large_arrays() {
        assert_eq!(
            first_duplicate(&[json!(1), json!(2), json!(1.0)]),
            Some((0, 2))
        );
        let mut many: Vec<Value> = (0..100).map(|i| json!({ "k": i })).collect();
        assert_eq!(first_duplicate(&many), None);
        many.push(json!({ "k": 42.0 }));
        assert_eq!(first_duplicate(&many), Some((42, 100)));
    }

    #[test]
    fn summaries_never_copy_large_input() {
        assert_eq!(summary(&json!("short")).to_value(), json!("short"));
        let longest = "é".repeat(MAX_ECHO_BYTES / 2);
        assert_eq!(summary(&json!(longest)).to_value(), json!(longest));
        assert_eq!(summary(&json!("x".repeat(65))).to_value(), json!("string"));
        assert_eq!(summary(&json!([1, 2])).to_value(), json!("array"));
        assert_eq!(summary(&json!(2.5)).to_value(), json!(2.5));
        assert_eq!(summary(&json!(null)).to_value(), json!(null));
        assert_eq!(summary(&json!(false)).to_value(), json!(false));
    }
}
