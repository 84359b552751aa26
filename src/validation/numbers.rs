//! Exact numeric comparisons for generated validators.
//!
//! JSON numbers arrive as `u64`, `i64` or `f64`; schema bounds are kept in the same three
//! forms ([`Bound`]). Every comparison here is exact: integers are never rounded through
//! `f64`, and an integer is compared with a float by its mathematical value.

use std::cmp::Ordering;

use serde_json::Number;

/// A number written in a schema (a bound, a `multipleOf`, a `const`), as exact as JSON
/// parsing kept it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// A non-negative integer.
    U(u64),
    /// A negative integer.
    I(i64),
    /// Any other number (never NaN or infinite).
    F(f64),
}

/// The exact value of a JSON number, in the same three forms as [`Bound`].
#[inline]
pub fn bound_of(n: &Number) -> Bound {
    if let Some(u) = n.as_u64() {
        Bound::U(u)
    } else if let Some(i) = n.as_i64() {
        Bound::I(i)
    } else {
        Bound::F(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Compares an integer with a float by mathematical value (`None` for NaN).
fn cmp_int_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // Every i128 we build (from u64 / i64) is far inside ±2^100.
    const LIMIT: f64 = 1.2676506002282294e30; // 2^100
    if f >= LIMIT {
        return Some(Ordering::Less);
    }
    if f <= -LIMIT {
        return Some(Ordering::Greater);
    }
    let whole = f.trunc();
    // `whole` is an integer of magnitude < 2^100: the conversion is exact.
    let whole_int = whole as i128;
    match i.cmp(&whole_int) {
        Ordering::Equal => {
            let frac = f - whole;
            Some(if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            })
        }
        other => Some(other),
    }
}

/// Compares two exact numbers (`None` only when a NaN is involved).
pub fn cmp_bounds(a: Bound, b: Bound) -> Option<Ordering> {
    fn int(b: Bound) -> Option<i128> {
        match b {
            Bound::U(u) => Some(i128::from(u)),
            Bound::I(i) => Some(i128::from(i)),
            Bound::F(_) => None,
        }
    }
    match (a, b) {
        (Bound::F(x), Bound::F(y)) => x.partial_cmp(&y),
        (Bound::F(x), other) => cmp_int_float(int(other)?, x).map(Ordering::reverse),
        (other, Bound::F(y)) => cmp_int_float(int(other)?, y),
        (x, y) => Some(int(x)?.cmp(&int(y)?)),
    }
}

/// Compares a JSON number with a schema bound, exactly.
#[inline]
pub fn cmp_number(n: &Number, bound: Bound) -> Option<Ordering> {
    // The usual case, a non-negative integer against a non-negative integer bound, without
    // the general comparison's call.
    if let (Bound::U(limit), Some(u)) = (bound, n.as_u64()) {
        return Some(u.cmp(&limit));
    }
    cmp_bounds(bound_of(n), bound)
}

/// `n < bound` (a `minimum` violation).
#[inline]
pub fn number_lt(n: &Number, bound: Bound) -> bool {
    cmp_number(n, bound) == Some(Ordering::Less)
}

/// `n > bound` (a `maximum` violation).
#[inline]
pub fn number_gt(n: &Number, bound: Bound) -> bool {
    cmp_number(n, bound) == Some(Ordering::Greater)
}

/// `n <= bound` (an `exclusiveMinimum` violation).
#[inline]
pub fn number_le(n: &Number, bound: Bound) -> bool {
    matches!(cmp_number(n, bound), Some(Ordering::Less | Ordering::Equal))
}

/// `n >= bound` (an `exclusiveMaximum` violation).
#[inline]
pub fn number_ge(n: &Number, bound: Bound) -> bool {
    matches!(
        cmp_number(n, bound),
        Some(Ordering::Greater | Ordering::Equal)
    )
}

/// `n == bound`, exactly (so `1 == 1.0`).
#[inline]
pub fn number_eq(n: &Number, bound: Bound) -> bool {
    cmp_number(n, bound) == Some(Ordering::Equal)
}

/// `true` when `n` is one of `bounds`.
#[inline]
pub fn number_in(n: &Number, bounds: &[Bound]) -> bool {
    bounds.iter().any(|b| number_eq(n, *b))
}

/// `true` when the number has no fractional part (`1.0` is an integer in JSON Schema 2020-12).
#[inline]
pub fn is_integer(n: &Number) -> bool {
    n.is_u64()
        || n.is_i64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// `true` when `n / divisor` is an integer, computed exactly in decimal on the numbers'
/// shortest texts (as JSON Schema means it: `0.0075` is a multiple of `0.0001`, though not in
/// binary floating point). The divisor is positive, as the schema loader checks.
pub fn is_multiple_of(n: &Number, divisor: Bound) -> bool {
    let value = bound_of(n);
    if let (Bound::U(_) | Bound::I(_), Bound::U(d)) = (value, divisor) {
        if d == 0 {
            return false;
        }
        return match value {
            Bound::U(u) => u % d == 0,
            Bound::I(i) => i.unsigned_abs() % d == 0,
            Bound::F(_) => false,
        };
    }
    let divisor_text = match divisor {
        Bound::U(d) => d.to_string(),
        Bound::I(d) => d.to_string(),
        Bound::F(d) => d.to_string(),
    };
    let (Some((a, ea)), Some((b, eb))) = (decimal(&n.to_string()), decimal(&divisor_text)) else {
        return false;
    };
    if a == 0 {
        return true;
    }
    if b == 0 {
        return false;
    }
    // n / d = (a / b) * 10^(ea - eb), with a and b free of trailing zeros.
    if ea >= eb {
        let mut rest = a % b;
        for _ in 0..(ea - eb) {
            if rest == 0 {
                break;
            }
            rest = (rest * 10) % b;
        }
        rest == 0
    } else {
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

/// A number's decimal text as `(digits, exponent of ten)` with no trailing zero in the
/// digits, the sign dropped; `None` when it is not a finite number's text or has more than
/// 38 significant digits.
fn decimal(text: &str) -> Option<(u128, i64)> {
    let text = text.trim_start_matches('-');
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Zeros are dropped as text before the digits are parsed, so that `1e300` written out
    // in full (as `f64`'s `Display` does) still fits.
    let significant = digits.trim_start_matches('0');
    let stripped = significant.trim_end_matches('0');
    let trailing_zeros = i64::try_from(significant.len() - stripped.len()).ok()?;
    let value: u128 = if stripped.is_empty() {
        0
    } else {
        stripped.parse().ok()?
    };
    let exponent = exponent - i64::try_from(fraction.len()).ok()? + trailing_zeros;
    Some((value, exponent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn num(v: serde_json::Value) -> Number {
        match v {
            serde_json::Value::Number(n) => n,
            _ => unreachable!("test input is a number"),
        }
    }

    #[test]
    fn big_integers_are_not_rounded() {
        let big = num(json!(u64::MAX));
        assert!(number_gt(&big, Bound::U(u64::MAX - 1)));
        // `u64::MAX as f64` rounds up to 2^64: only an exact comparison sees it is smaller.
        assert!(number_lt(&big, Bound::F(2f64.powi(64))));
        assert!(!number_eq(&big, Bound::F(2f64.powi(64))));
        let n = num(json!(9_007_199_254_740_993u64));
        assert!(number_gt(&n, Bound::F(9_007_199_254_740_992.0)));
        assert!(number_lt(&num(json!(i64::MIN)), Bound::I(i64::MIN + 1)));
    }

    #[test]
    fn integers_and_floats_compare_by_value() {
        assert!(number_eq(&num(json!(1.0)), Bound::U(1)));
        assert!(number_eq(&num(json!(1)), Bound::F(1.0)));
        assert!(number_lt(&num(json!(2)), Bound::F(2.5)));
        assert!(number_gt(&num(json!(-2)), Bound::F(-2.5)));
        assert!(is_integer(&num(json!(1.0))));
        assert!(!is_integer(&num(json!(1.5))));
    }

    #[test]
    fn multiple_of_is_exact() {
        assert!(is_multiple_of(&num(json!(10)), Bound::U(5)));
        assert!(!is_multiple_of(&num(json!(11)), Bound::U(5)));
        assert!(is_multiple_of(&num(json!(-10)), Bound::U(5)));
        assert!(is_multiple_of(&num(json!(1.5)), Bound::F(0.5)));
        assert!(is_multiple_of(&num(json!(4.0)), Bound::U(2)));
        // Decimal, not binary: 0.3 is three times 0.1, 0.0075 is 75 times 0.0001.
        assert!(is_multiple_of(&num(json!(0.3)), Bound::F(0.1)));
        assert!(is_multiple_of(&num(json!(0.0075)), Bound::F(0.0001)));
        assert!(!is_multiple_of(&num(json!(0.00751)), Bound::F(0.0001)));
        assert!(!is_multiple_of(&num(json!(0.35)), Bound::F(0.1)));
        assert!(is_multiple_of(&num(json!(1e308)), Bound::F(0.5)));
        assert!(is_multiple_of(&num(json!(0)), Bound::F(0.1)));
        assert!(is_multiple_of(&num(json!(0.75)), Bound::F(0.25)));
        // A large float divisor (its `Display` text has 301 digits) is still exact.
        assert!(is_multiple_of(&num(json!(3e300)), Bound::F(1e300)));
        assert!(!is_multiple_of(&num(json!(1.5e300)), Bound::F(1e300)));
        assert!(is_multiple_of(&num(json!(0)), Bound::F(1e300)));
    }
}
