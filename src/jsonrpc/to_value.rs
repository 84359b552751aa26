//! A [`RawValue`] read into a [`serde_json::Value`], with long strings found by `memchr`.
//!
//! `serde_json` reads a string eight bytes at a time, checking every byte for a quote, a
//! backslash or a control character. It does so again when the text is a `RawValue` that it
//! has already checked once, in the frame's parse. For a tool's 64 KiB text argument that
//! second walk costs about 8 µs, while finding the closing quote with `memchr` costs about 1 µs
//! (BENCHMARKS.md, "Issue 12, stop 28").
//!
//! The reader here walks only checked JSON (what a `RawValue` holds). It reads whole only the
//! parts it needs no judgement for: objects, arrays, `true`, `false`, `null`, and strings
//! without a backslash. Every other token (a number, a string with escapes) is handed to
//! `serde_json` on its own, so its value is `serde_json`'s. On anything it does not expect
//! (and on nesting deeper than [`MAX_DEPTH`]) it gives up, and `serde_json::from_str` reads the
//! whole text: the result, a value or an error, is then `serde_json`'s own.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::encode::{quote_or_backslash, string_end};

/// Nesting the reader takes on itself; deeper text is read by `serde_json` (whose own
/// recursion limit, 128, then applies as before).
const MAX_DEPTH: usize = 64;

/// The value of `raw`, as `serde_json::from_str::<Value>(raw.get())` gives it.
///
/// # Errors
///
/// `serde_json`'s error for text it cannot read into a `Value` (a lone surrogate escape in a
/// string, a number out of range, nesting past its recursion limit).
pub(crate) fn to_value(raw: &RawValue) -> Result<Value, serde_json::Error> {
    text_to_value(raw.get())
}

/// [`to_value`] of checked JSON text (a value a `RawValue` holds, or a member of one as
/// [`for_each_member`](super::members::for_each_member) delimits it).
///
/// # Errors
///
/// As [`to_value`].
pub(crate) fn text_to_value(text: &str) -> Result<Value, serde_json::Error> {
    if text.len() < READER_FROM {
        return serde_json::from_str(text);
    }
    read(text)
}

/// Texts shorter than this go straight to `serde_json`: with no long string to find, the
/// reader saves nothing, and on the params of a 16-byte echo call it cost some 300
/// instructions more than `serde_json` (callgrind).
const READER_FROM: usize = 256;

/// `text` (checked JSON) read by the [`Reader`], or by `serde_json` where the reader gives up.
fn read(text: &str) -> Result<Value, serde_json::Error> {
    match (Reader { text, at: 0 }).whole() {
        Some(value) => Ok(value),
        None => serde_json::from_str(text),
    }
}

/// A cursor over checked JSON text. Every method returns `None` to give up.
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    /// The one value the text holds, with nothing but whitespace after it.
    fn whole(mut self) -> Option<Value> {
        let value = self.value(MAX_DEPTH)?;
        self.skip_whitespace();
        (self.at == self.text.len()).then_some(value)
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.text.as_bytes().get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte that is not whitespace (not consumed).
    fn peek(&mut self) -> Option<u8> {
        self.skip_whitespace();
        self.text.as_bytes().get(self.at).copied()
    }

    /// Consumes `byte` if it comes next.
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// A value; `depth` is how many more arrays and objects may open.
    fn value(&mut self, depth: usize) -> Option<Value> {
        match self.peek()? {
            b'{' => self.object(depth.checked_sub(1)?),
            b'[' => self.array(depth.checked_sub(1)?),
            b'"' => self.string().map(Value::String),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// An object, at its `{`. A repeated member keeps its last value, as `serde_json`'s
    /// `Value` does (`Map::insert`).
    fn object(&mut self, depth: usize) -> Option<Value> {
        self.at += 1;
        let mut map = Map::new();
        if self.eat(b'}').is_some() {
            return Some(Value::Object(map));
        }
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string()?;
            self.eat(b':')?;
            let value = self.value(depth)?;
            map.insert(key, value);
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(Value::Object(map));
                }
                _ => return None,
            }
        }
    }

    /// An array, at its `[`.
    fn array(&mut self, depth: usize) -> Option<Value> {
        self.at += 1;
        let mut items = Vec::new();
        if self.eat(b']').is_some() {
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(Value::Array(items));
                }
                _ => return None,
            }
        }
    }

    /// A string, at its opening quote: copied when it has no backslash, read by `serde_json`
    /// when it has (escapes, and the errors of lone surrogates, are then its own).
    fn string(&mut self) -> Option<String> {
        let bytes = self.text.as_bytes();
        let open = self.at;
        let from = open + 1;
        if let Some(close) = clean_string_end(bytes, from) {
            self.at = close + 1;
            return self.text.get(from..close).map(crate::long_strings::copy_of);
        }
        let end = string_end(bytes, from);
        self.at = end;
        serde_json::from_str(self.text.get(open..end)?).ok()
    }

    /// A number, read by `serde_json` from its characters alone (so `-0`, `1e3`, integers past
    /// `u64` and floats come out as its `Value` holds them).
    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        let length = self.text.as_bytes()[start..]
            .iter()
            .take_while(|byte| matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .count();
        self.at += length;
        serde_json::from_str(self.text.get(start..self.at)?).ok()
    }

    /// `word` (`true`, `false` or `null`) as `value`.
    fn literal(&mut self, word: &str, value: Value) -> Option<Value> {
        let end = self.at + word.len();
        (self.text.as_bytes().get(self.at..end)? == word.as_bytes()).then(|| {
            self.at = end;
            value
        })
    }
}

/// The index of the closing quote of the string whose contents start at `from`, when no
/// backslash comes before it; `None` for a string with an escape, or one not closed.
fn clean_string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let found = quote_or_backslash(bytes, from)?;
    (bytes[found] == b'"').then_some(found)
}

#[cfg(test)]
mod tests;
