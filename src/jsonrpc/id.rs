//! Request ids, kept as the exact JSON text the peer sent.

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde_json::value::RawValue;

/// A JSON-RPC request id, kept as its raw JSON text.
///
/// Ids are echoed back byte for byte: `"a\u0062"` stays `"a\u0062"` (it is not rewritten to
/// `"ab"`), and `18446744073709551615`, `1.0`, `-0` or `1e3` keep their notation. Only strings
/// and integer-valued numbers are valid ids; [`Id::from_raw`] enforces that.
///
/// Equality and hashing compare the raw text, so `1` and `1.0` are different ids. That is the
/// right notion for matching a response to a request we sent (we choose the spelling) and a
/// safe one for tracking the peer's in-flight requests.
#[derive(Clone)]
pub struct Id<'a>(Cow<'a, RawValue>);

/// The JSON type of a valid [`Id`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IdKind {
    /// A JSON string.
    String,
    /// An integer-valued JSON number, in any notation.
    Number,
}

/// Why a JSON value cannot be a request id.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum IdRejection {
    /// `null`: only responses may carry it.
    Null,
    /// A boolean, object, array or non-integral number.
    WrongType,
}

impl<'a> Id<'a> {
    /// Wraps a raw JSON value if it is a valid request id (a string or an integer-valued
    /// number); returns `None` otherwise.
    #[must_use]
    pub fn from_raw(raw: &'a RawValue) -> Option<Self> {
        classify(raw.get()).ok().map(|_| Self(Cow::Borrowed(raw)))
    }

    /// `raw` as an id, already found valid by [`classify`] (not checked again).
    pub(crate) fn classified(raw: &'a RawValue) -> Self {
        Self(Cow::Borrowed(raw))
    }

    /// The id exactly as received (or as built), as JSON text.
    #[must_use]
    pub fn as_json(&self) -> &str {
        self.0.get()
    }

    /// The raw JSON value.
    #[must_use]
    pub fn as_raw(&self) -> &RawValue {
        &self.0
    }

    /// Whether the id is a string or a number.
    #[must_use]
    pub fn kind(&self) -> IdKind {
        if self.as_json().starts_with('"') {
            IdKind::String
        } else {
            IdKind::Number
        }
    }

    /// The id as a `u64`, when it is written as a plain non-negative integer that fits.
    #[must_use]
    pub fn as_u64(&self) -> Option<u64> {
        self.as_json().parse().ok()
    }

    /// Detaches the id from the input buffer it borrows from.
    #[must_use]
    pub fn into_owned(self) -> Id<'static> {
        Id(Cow::Owned(self.0.into_owned()))
    }

    /// Borrows this id without copying.
    #[must_use]
    pub fn borrowed(&self) -> Id<'_> {
        Id(Cow::Borrowed(&self.0))
    }
}

impl Id<'static> {
    /// A numeric id, e.g. for a request this side sends.
    #[must_use]
    pub fn from_u64(value: u64) -> Self {
        Self::owned_from_json(value.to_string())
    }

    /// A string id; the text is JSON-escaped as needed.
    #[must_use]
    pub fn from_string(value: &str) -> Self {
        Self::owned_from_json(super::escape::json_string(value))
    }

    fn owned_from_json(json: String) -> Self {
        let raw = RawValue::from_string(json)
            .expect("a decimal integer or an escaped JSON string is valid JSON");
        Self(Cow::Owned(raw))
    }
}

impl PartialEq for Id<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_json() == other.as_json()
    }
}

impl Eq for Id<'_> {}

impl Hash for Id<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_json().hash(state);
    }
}

impl fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.as_json())
    }
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_json())
    }
}

/// Classifies the raw JSON text of an `id` member (already known to be valid JSON).
pub(crate) fn classify(raw: &str) -> Result<IdKind, IdRejection> {
    match raw.as_bytes().first() {
        Some(b'"') => Ok(IdKind::String),
        Some(b'-' | b'0'..=b'9') if is_integral_number(raw) => Ok(IdKind::Number),
        Some(b'n') => Err(IdRejection::Null),
        _ => Err(IdRejection::WrongType),
    }
}

/// Whether a valid JSON number literal denotes an integer, decided exactly on the decimal
/// text (no floating point): `1.0`, `-0`, `1e3`, `1.50e1` are integers; `1.5`, `1e-1` are not.
fn is_integral_number(literal: &str) -> bool {
    let unsigned = literal.strip_prefix('-').unwrap_or(literal);
    // The usual id, digits only: an integer, decided without taking the literal apart.
    unsigned.bytes().all(|byte| byte.is_ascii_digit()) || is_integral_by_parts(unsigned)
}

/// [`is_integral_number`] of an unsigned literal with a fraction or an exponent (any literal,
/// in fact: the digits-only case is decided the same way).
fn is_integral_by_parts(unsigned: &str) -> bool {
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], parse_exponent(&unsigned[at + 1..])),
        None => (unsigned, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = int_part.bytes().chain(frac_part.bytes());
    let significant_len = digits.clone().count();
    let trailing_zeros = int_part
        .bytes()
        .chain(frac_part.bytes())
        .rev()
        .take_while(|&b| b == b'0')
        .count();
    if trailing_zeros == significant_len {
        return true; // the value is zero
    }
    // value = (significant digits without trailing zeros) * 10^scale
    let frac_len = i64::try_from(frac_part.len()).unwrap_or(i64::MAX);
    let zeros = i64::try_from(trailing_zeros).unwrap_or(i64::MAX);
    exponent.saturating_sub(frac_len).saturating_add(zeros) >= 0
}

/// Parses an exponent (`+12`, `-3`, `7`), saturating instead of overflowing.
fn parse_exponent(text: &str) -> i64 {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = digits.bytes().fold(0i64, |acc, d| {
        acc.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_numbers_in_any_notation() {
        for ok in [
            "0", "-0", "7", "1.0", "1e3", "1E+3", "1.50e1", "0.0e-5", "1e400", "120e-1",
        ] {
            assert!(is_integral_number(ok), "{ok}");
        }
        for bad in ["1.5", "1e-1", "0.001", "-2.25", "15e-1", "1e-400"] {
            assert!(!is_integral_number(bad), "{bad}");
        }
    }

    proptest::proptest! {
        /// The digits-only shortcut gives the verdict of the literal taken apart.
        #[test]
        fn digits_only_literals_are_integers_taken_apart_too(digits in "[0-9]{1,30}") {
            proptest::prop_assert!(is_integral_by_parts(&digits));
            proptest::prop_assert!(is_integral_number(&digits));
            let negative = format!("-{digits}");
            proptest::prop_assert!(is_integral_number(&negative));
        }
    }
}
