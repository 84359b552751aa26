//! Readers for members of generated types, where serde's derive alone would lose what JSON
//! Schema keeps (named by generated `#[serde(deserialize_with = "...")]` attributes through
//! `__private`), and the number normalisation they share with the tool-argument decoder.

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::{Number, Value};

/// Reads a member whose type holds Rust integers: as written first, then, if that fails, with
/// every integral number (`3.0`, an integer to JSON Schema) written as an integer.
///
/// # Errors
///
/// The member does not decode into `T`, even with its integral numbers as integers.
pub fn integral<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let mut value = Value::deserialize(deserializer)?;
    if let Ok(typed) = T::deserialize(&value) {
        return Ok(typed);
    }
    integral_fractions_to_integers(&mut value);
    T::deserialize(value).map_err(D::Error::custom)
}

/// Reads a member that is present (an explicit `null` included) as `Some`; an absent one is
/// `None` through `#[serde(default)]`.
///
/// # Errors
///
/// The member does not decode into `T`.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// `number` as an integer, when it is written with a fraction of zero and fits `i64`/`u64`.
fn as_integer(number: &Number) -> Option<Number> {
    if !number.is_f64() {
        return None;
    }
    let float = number.as_f64()?;
    if float.fract() != 0.0 || !float.is_finite() {
        return None;
    }
    // Within ±2^63 (or below 2^64 for positives) the conversion is exact.
    if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&float) {
        #[allow(clippy::cast_possible_truncation)]
        return Some((float as i64).into());
    }
    if (0.0..1.844_674_407_370_955_2e19).contains(&float) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        return Some((float as u64).into());
    }
    None
}

/// Whether some number in `value` is integral but written with a fraction (`2.0`).
pub(crate) fn has_integral_fraction(value: &Value) -> bool {
    match value {
        Value::Number(number) => as_integer(number).is_some(),
        Value::Array(items) => items.iter().any(has_integral_fraction),
        Value::Object(members) => members.values().any(has_integral_fraction),
        Value::Null | Value::Bool(_) | Value::String(_) => false,
    }
}

/// Rewrites every integral number written with a fraction in `value` as an integer.
pub(crate) fn integral_fractions_to_integers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            if let Some(integer) = as_integer(number) {
                *number = integer;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_fractions_to_integers),
        Value::Object(members) => members
            .values_mut()
            .for_each(integral_fractions_to_integers),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integral_numbers_with_a_fraction_become_integers_and_others_stay() {
        let mut value = json!({"a": 2.0, "b": [1.5, -3.0, 1e300], "c": 7, "d": "2.0"});
        assert!(has_integral_fraction(&value));
        integral_fractions_to_integers(&mut value);
        assert_eq!(
            value.to_string(),
            r#"{"a":2,"b":[1.5,-3,1e+300],"c":7,"d":"2.0"}"#
        );
        assert!(!has_integral_fraction(&value));
        let mut big = json!([18_446_744_073_709_549_568.0_f64]);
        integral_fractions_to_integers(&mut big);
        assert_eq!(big[0].as_u64(), Some(18_446_744_073_709_549_568));
    }
}
