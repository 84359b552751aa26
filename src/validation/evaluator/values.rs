//! JSON value and number semantics: types, equality, bounds and exact `multipleOf`.

use super::*;

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
        ("integer", Value::Number(n)) => {
            n.is_u64()
                || n.is_i64()
                || n.as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
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

pub(crate) fn compare(a: &Number, b: &Number) -> Option<std::cmp::Ordering> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return Some(x.cmp(&y));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// A number's shortest decimal text as `(digits, exponent of ten)`, sign dropped.
pub(crate) fn decimal(n: &Number) -> Option<(u128, i64)> {
    let text = n.to_string();
    let text = text.trim_start_matches('-');
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    let mut value: u128 = digits.trim_start_matches('0').parse().unwrap_or(0);
    let mut exponent = exponent - fraction.len() as i64;
    while value != 0 && value.is_multiple_of(10) {
        value /= 10;
        exponent += 1;
    }
    Some((value, exponent))
}

/// `n / d` is an integer, in exact decimal arithmetic.
pub(crate) fn multiple_of(n: &Number, d: &Number) -> bool {
    let (Some((a, ea)), Some((b, eb))) = (decimal(n), decimal(d)) else {
        return false;
    };
    if a == 0 {
        return true;
    }
    if b == 0 {
        return false;
    }
    if ea >= eb {
        // (a * 10^(ea - eb)) mod b == 0
        let mut rest = a % b;
        for _ in 0..(ea - eb) {
            rest = (rest * 10) % b;
            if rest == 0 {
                break;
            }
        }
        rest == 0
    } else {
        // a must be divisible by b * 10^(eb - ea)
        let mut a = a;
        for _ in 0..(eb - ea) {
            if a % 10 != 0 {
                return false;
            }
            a /= 10;
        }
        a % b == 0
    }
}
