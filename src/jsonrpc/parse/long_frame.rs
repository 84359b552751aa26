//! The envelope of a frame, read without `serde_json` walking its params.
//!
//! `serde_json` reads a frame's `params` into a borrowed `RawValue` by walking every byte
//! of it eight at a time: 8.5 µs for a 64 KiB text argument. The request's task must own
//! its params anyway, so the frame's params are copied once in any case (`into_owned`).
//! This module checks the JSON itself, a string's clean bytes a word at a time and a long
//! string's in 64-byte blocks with one vectorised test ([`next_special`]). It then makes the
//! params (and the `result`) owned `RawValue`s from the checked text, so that copy happens
//! here and the walk is gone. [`parse_frame_within`](crate::jsonrpc::parse_frame_within)
//! reads every single message here (holding it to its depth bound on the way); the plain
//! parse (`parse_message`) only frames of [`LONG_FRAME`] bytes and more, and owns only
//! members of [`OWNED_MEMBER`] bytes and more. The other members are read by `serde_json`,
//! borrowed.
//!
//! The check accepts exactly the JSON that `serde_json`'s envelope parse accepts: the
//! grammar of RFC 8259, any nesting, and in strings any escape `serde_json` skips
//! (`\u` escapes are not paired here, as it does not pair them when skipping). A member
//! name that needs decoding is decoded by `serde_json`. On anything else (an error, a name
//! it cannot decode, nesting past [`MAX_DEPTH`]) this gives up and `serde_json`'s parse
//! reads the frame. So an invalid frame always gets `serde_json`'s error, with its column.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::{Envelope, Member};
use crate::jsonrpc::escape::next_special;
use crate::jsonrpc::params_index::ParamsIndex;

/// Frames at least this long are read here first by the plain parse; it leaves shorter ones
/// to `serde_json` alone.
pub(super) const LONG_FRAME: usize = 16 * 1024;

/// A `params` or `result` member at least this long becomes an owned copy of the checked
/// text; a shorter one is borrowed through `serde_json`.
const OWNED_MEMBER: usize = 4 * 1024;

/// Nesting checked here; deeper frames go to `serde_json`.
const MAX_DEPTH: usize = 128;

/// The envelope of `text`, a frame whose first significant byte is `{`; `None` when
/// `serde_json` must read it (see the module's documentation).
pub(super) fn envelope(text: &str) -> Option<Envelope<'_>> {
    read(text, OWNED_MEMBER, MAX_DEPTH)
}

/// [`envelope`] of a frame of any length, with `params` and `result` owned whatever their
/// length (`serde_json` does not walk them again; the request's task owns its params
/// anyway), also `None` when the frame's arrays and objects nest deeper than `max_depth`
/// levels (the message object being level 1, as
/// [`parse_frame_within`](crate::jsonrpc::parse_frame_within) counts them). So an envelope
/// read here is one of a frame within the bound: the check walks every value anyway, and no
/// separate scan for the depth is needed.
pub(super) fn envelope_within(text: &str, max_depth: usize) -> Option<Envelope<'_>> {
    read(text, 0, max_depth.checked_sub(1)?.min(MAX_DEPTH))
}

/// [`envelope`], with `params` and `result` owned from `owned_from` bytes on, and the
/// members' values nesting at most `member_depth` levels.
fn read(text: &str, owned_from: usize, member_depth: usize) -> Option<Envelope<'_>> {
    let mut checker = Checker {
        bytes: text.as_bytes(),
        at: 0,
    };
    let mut envelope = Envelope::default();
    checker.skip_whitespace();
    checker.eat(b'{')?;
    checker.skip_whitespace();
    if checker.eat(b'}').is_none() {
        loop {
            let name_start = checker.at;
            let escaped = checker.string()?;
            let name = text.get(name_start..checker.at)?;
            checker.skip_whitespace();
            checker.eat(b':')?;
            checker.skip_whitespace();
            let value_start = checker.at;
            let name = member_name(name, escaped)?;
            if matches!(Member::of(&name), Member::Params)
                && checker.bytes.get(value_start) == Some(&b'{')
            {
                // The params' members (and `_meta`'s) recorded as they are checked; kept
                // (boxed: it travels with the request) only for params with a `_meta`
                // object, the requests whose reading uses it.
                let mut index = ParamsIndex::default();
                checker.indexed_params(member_depth, &mut index)?;
                envelope.params_index = index.has_meta().then(|| Box::new(index));
            } else {
                checker.value(member_depth)?;
            }
            let value = text.get(value_start..checker.at)?;
            envelope.keep(&name, value, owned_from)?;
            checker.skip_whitespace();
            if checker.eat(b',').is_some() {
                checker.skip_whitespace();
                continue;
            }
            checker.eat(b'}')?;
            break;
        }
    }
    checker.skip_whitespace();
    (checker.at == text.len()).then_some(envelope)
}

/// A member's name (`raw` with its quotes), decoded by `serde_json` when it has an escape.
fn member_name(raw: &str, escaped: bool) -> Option<Cow<'_, str>> {
    if escaped {
        return serde_json::from_str::<String>(raw).ok().map(Cow::Owned);
    }
    Some(Cow::Borrowed(raw.get(1..raw.len() - 1)?))
}

impl<'a> Envelope<'a> {
    /// Keeps `value` (checked JSON) under the protocol member `name`, as the `serde_json`
    /// visitor does: other members are skipped, a repeated one marks the envelope.
    fn keep(&mut self, name: &str, value: &'a str, owned_from: usize) -> Option<()> {
        let repeated = match Member::of(name) {
            Member::Params => self
                .params
                .replace(long_or_borrowed(value, owned_from)?)
                .map(drop),
            Member::Result => self
                .result
                .replace(long_or_borrowed(value, owned_from)?)
                .map(drop),
            Member::Jsonrpc => self.jsonrpc.replace(borrowed(value)?).map(drop),
            Member::Id => self.id.replace(borrowed(value)?).map(drop),
            Member::Method => self.method.replace(borrowed(value)?).map(drop),
            Member::Error => self.error.replace(borrowed(value)?).map(drop),
            Member::Other => None,
        };
        self.duplicate |= repeated.is_some();
        Some(())
    }
}

/// A short member, read by `serde_json` as a borrowed `RawValue`.
fn borrowed(value: &str) -> Option<&RawValue> {
    serde_json::from_str(value).ok()
}

/// A member of at least `owned_from` bytes as an owned `RawValue` of its checked text; a
/// shorter one borrowed.
fn long_or_borrowed(value: &str, owned_from: usize) -> Option<Cow<'_, RawValue>> {
    if value.len() < owned_from {
        return borrowed(value).map(Cow::Borrowed);
    }
    // SAFETY (a contract, not memory safety): `from_string_unchecked` needs one JSON value
    // with no surrounding whitespace. `value` is exactly the span the checker read as one
    // value, and the checker accepts only what `serde_json` accepts (module documentation;
    // property-tested against it). serde_json re-checks in debug builds.
    let mut owned = crate::long_strings::buffer(value.len());
    owned.push_str(value);
    Some(Cow::Owned(unsafe {
        RawValue::from_string_unchecked(owned)
    }))
}

/// A cursor that checks JSON. Every method returns `None` at the first byte that is not
/// JSON (or that this module leaves to `serde_json`).
struct Checker<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Checker<'_> {
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// Consumes `byte` if it comes next (whitespace is not skipped).
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.bytes.get(self.at) == Some(&byte)).then(|| self.at += 1)
    }

    /// One value; `depth` is how many more arrays and objects may open.
    fn value(&mut self, depth: usize) -> Option<()> {
        match *self.bytes.get(self.at)? {
            b'{' => self.container(b'}', depth.checked_sub(1)?),
            b'[' => self.container(b']', depth.checked_sub(1)?),
            b'"' => self.string().map(drop),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// An object (`close` is `}`) or an array (`]`), at its opening byte.
    fn container(&mut self, close: u8, depth: usize) -> Option<()> {
        self.at += 1;
        self.skip_whitespace();
        if self.eat(close).is_some() {
            return Some(());
        }
        loop {
            if close == b'}' {
                self.string()?;
                self.skip_whitespace();
                self.eat(b':')?;
                self.skip_whitespace();
            }
            self.value(depth)?;
            self.skip_whitespace();
            if self.eat(b',').is_some() {
                self.skip_whitespace();
                continue;
            }
            return self.eat(close);
        }
    }

    /// The params object, at its `{`, checked as [`value`](Self::value) checks it (`depth`
    /// as it is given), its members recorded into `index` as they are read, and those of its
    /// `_meta` member when that is an object.
    fn indexed_params(&mut self, depth: usize, index: &mut ParamsIndex) -> Option<()> {
        let depth = depth.checked_sub(1)?;
        let base = self.at;
        self.members(|checker, name, name_escaped| {
            let value_start = checker.at;
            let is_meta = !name_escaped
                && checker.bytes.get(name.0..name.1) == Some(b"\"_meta\"".as_slice())
                && checker.bytes.get(value_start) == Some(&b'{');
            let value_escaped = if is_meta {
                index.start_meta();
                let meta_depth = depth.checked_sub(1)?;
                checker.members(|checker, meta_name, meta_name_escaped| {
                    let meta_value_start = checker.at;
                    let escaped = checker.flagged_value(meta_depth)?;
                    index.record_meta_member(
                        base,
                        meta_name,
                        (meta_value_start, checker.at),
                        (meta_name_escaped, escaped),
                    );
                    Some(())
                })?;
                false
            } else {
                checker.flagged_value(depth)?
            };
            index.record_member(
                base,
                name,
                (value_start, checker.at),
                (name_escaped, value_escaped),
            );
            Some(())
        })
    }

    /// The members of an object, at its `{`: `each` is given the checker at the member's
    /// value, the span of its name (quotes included) and whether the name holds an escape,
    /// and checks the value.
    #[inline(always)]
    fn members(
        &mut self,
        mut each: impl FnMut(&mut Self, (usize, usize), bool) -> Option<()>,
    ) -> Option<()> {
        self.at += 1;
        self.skip_whitespace();
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            let name_start = self.at;
            let escaped = self.string()?;
            let name = (name_start, self.at);
            self.skip_whitespace();
            self.eat(b':')?;
            self.skip_whitespace();
            each(self, name, escaped)?;
            self.skip_whitespace();
            if self.eat(b',').is_some() {
                self.skip_whitespace();
                continue;
            }
            return self.eat(b'}');
        }
    }

    /// One value, as [`value`](Self::value) checks it; `Some(true)` when it is a string
    /// holding an escape.
    fn flagged_value(&mut self, depth: usize) -> Option<bool> {
        if self.bytes.get(self.at) == Some(&b'"') {
            return self.string();
        }
        self.value(depth).map(|()| false)
    }

    /// A string, at its opening quote; `Some(true)` when it holds an escape. Clean runs are
    /// passed a word, then a block, at a time ([`next_special`]); a control character is an
    /// error. Inlined: most strings are short, and a call costs more than their test.
    #[inline(always)]
    fn string(&mut self) -> Option<bool> {
        self.eat(b'"')?;
        let mut escaped = false;
        loop {
            self.at = next_special(self.bytes, self.at);
            match *self.bytes.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(escaped);
                }
                b'\\' => {
                    escaped = true;
                    self.escape()?;
                }
                0x00..=0x1f => return None,
                _ => self.at += 1,
            }
        }
    }

    /// An escape, at its backslash: one of `"\/bfnrt`, or `u` and four hex digits.
    fn escape(&mut self) -> Option<()> {
        match *self.bytes.get(self.at + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 2,
            b'u' => {
                let digits = self.bytes.get(self.at + 2..self.at + 6)?;
                if !digits.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                self.at += 6;
            }
            _ => return None,
        }
        Some(())
    }

    /// A number: `-`, then `0` or digits not starting with `0`, then optionally a fraction
    /// and an exponent, each with at least one digit.
    fn number(&mut self) -> Option<()> {
        if let Some(b'-') = self.bytes.get(self.at) {
            self.at += 1;
        }
        match *self.bytes.get(self.at)? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.eat(b'.').is_some() {
            self.digit()?;
            self.digits();
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            self.digit()?;
            self.digits();
        }
        // A digit right after a leading `0` (`01`) is not JSON.
        match self.bytes.get(self.at) {
            Some(b'0'..=b'9') => None,
            _ => Some(()),
        }
    }

    /// One digit, required.
    fn digit(&mut self) -> Option<()> {
        self.bytes
            .get(self.at)
            .is_some_and(u8::is_ascii_digit)
            .then(|| self.at += 1)
    }

    /// Any number of digits.
    fn digits(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }
}

#[cfg(test)]
mod tests;
