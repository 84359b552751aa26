//! JSON value and number semantics: types, equality, bounds and exact `multipleOf`.

use super::*;
use crate::validation::numbers;

/// A keyword's count (`minLength: 2` or `2.0`).
pub(crate) fn as_count(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0)
            .map(|f| f as u64)
    })
}

pub(crate) fn has_type(instance: &Value, name: &str) -> bool {
    match (name, instance) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("string", Value::String(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => numbers::is_integer(n),
        _ => false,
    }
}

/// JSON equality, numbers compared as numbers.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(std::cmp::Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Two JSON numbers compared exactly, by the generated validators' rules
/// ([`numbers::cmp_bounds`]: integers never rounded through `f64`).
pub(crate) fn compare(a: &Number, b: &Number) -> Option<std::cmp::Ordering> {
    numbers::cmp_bounds(numbers::bound_of(a), numbers::bound_of(b))
}

/// `n / d` is an integer, in exact decimal arithmetic ([`numbers::is_multiple_of`]).
pub(crate) fn multiple_of(n: &Number, d: &Number) -> bool {
    numbers::is_multiple_of(n, numbers::bound_of(d))
}
