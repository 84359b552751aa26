//! Writing messages as single compact lines.
//!
//! Every message is written as one compact JSON object followed by `\n`, with no other `\n`
//! (or `\r`) byte in it: strings are escaped here, and raw JSON members are copied without
//! their insignificant whitespace. That is lossless because in valid JSON a raw line break can
//! only be insignificant whitespace (strings cannot hold raw control characters), so even
//! pretty-printed [`RawValue`]s cannot break the framing. The envelope is written directly
//! (no `serde` round trip), into a caller-provided buffer that can be reused.

use serde_json::value::RawValue;

use super::escape::write_json_string;
use super::{ErrorObject, Id, Message, Notification, Request, Response, ResponsePayload};

const HEADER: &[u8] = br#"{"jsonrpc":"2.0""#;

impl Message<'_> {
    /// Appends the message to `buf` as one compact JSON line ending in `\n`.
    pub fn encode_line(&self, buf: &mut Vec<u8>) {
        match self {
            Self::Request(request) => request.encode_line(buf),
            Self::Notification(notification) => notification.encode_line(buf),
            Self::Response(response) => response.encode_line(buf),
        }
    }

    /// The message as one compact JSON line ending in `\n`.
    #[must_use]
    pub fn to_line(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        self.encode_line(&mut buf);
        buf
    }
}

impl Request<'_> {
    /// Appends the request to `buf` as one compact JSON line ending in `\n`.
    pub fn encode_line(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(HEADER);
        write_id(buf, Some(&self.id));
        write_call(buf, &self.method, self.params.as_deref());
        buf.push(b'\n');
    }
}

impl Notification<'_> {
    /// Appends the notification to `buf` as one compact JSON line ending in `\n`.
    pub fn encode_line(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(HEADER);
        write_call(buf, &self.method, self.params.as_deref());
        buf.push(b'\n');
    }
}

impl Response<'_> {
    /// Appends the response to `buf` as one compact JSON line ending in `\n`.
    pub fn encode_line(&self, buf: &mut Vec<u8>) {
        self.write_object(buf);
        buf.push(b'\n');
    }

    /// Appends the response as [`encode_line`](Self::encode_line) does, except when it is a
    /// result of at least `min_result_bytes` bytes that is compact already: then only what
    /// comes before the result is appended, and the result's bytes are returned, for the
    /// caller to put on the wire after `buf` and before [`RESULT_LINE_END`], without copying.
    pub(crate) fn encode_line_around_result(
        &self,
        buf: &mut Vec<u8>,
        min_result_bytes: usize,
    ) -> Option<&[u8]> {
        if let ResponsePayload::Result(result) = &self.payload {
            let bytes = result.get().as_bytes();
            if bytes.len() >= min_result_bytes && !has_whitespace_outside_strings(bytes) {
                buf.extend_from_slice(HEADER);
                write_id(buf, self.id.as_ref());
                buf.extend_from_slice(br#","result":"#);
                return Some(bytes);
            }
        }
        self.encode_line(buf);
        None
    }

    fn write_object(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(HEADER);
        write_id(buf, self.id.as_ref());
        match &self.payload {
            ResponsePayload::Result(result) => {
                buf.extend_from_slice(br#","result":"#);
                write_raw(buf, result);
            }
            ResponsePayload::Error(error) => {
                buf.extend_from_slice(br#","error":"#);
                write_error_object(buf, error);
            }
        }
        buf.push(b'}');
    }
}

/// What ends the line of a response whose result
/// [`Response::encode_line_around_result`] left out of the buffer.
pub(crate) const RESULT_LINE_END: &[u8] = b"}\n";

/// A response's result at least this long is worth sending from its own allocation, after
/// the bytes before it, instead of copying it into one buffer with them (stdio's writer, an
/// HTTP body); below it a copy costs less than one more piece to write.
pub(crate) const UNCOPIED_RESULT_BYTES: usize = 16 * 1024;

/// Appends the answer to a batch: a JSON array of `responses` on one line ending in `\n`.
///
/// Writes nothing and returns `false` when `responses` is empty (a batch of notifications
/// only is not answered).
pub fn encode_batch_line(responses: &[Response<'_>], buf: &mut Vec<u8>) -> bool {
    if responses.is_empty() {
        return false;
    }
    buf.push(b'[');
    for (index, response) in responses.iter().enumerate() {
        if index > 0 {
            buf.push(b',');
        }
        response.write_object(buf);
    }
    buf.extend_from_slice(b"]\n");
    true
}

fn write_id(buf: &mut Vec<u8>, id: Option<&Id<'_>>) {
    buf.extend_from_slice(br#","id":"#);
    match id {
        Some(id) => write_raw(buf, id.as_raw()),
        None => buf.extend_from_slice(b"null"),
    }
}

fn write_call(buf: &mut Vec<u8>, method: &str, params: Option<&RawValue>) {
    buf.extend_from_slice(br#","method":"#);
    write_json_string(buf, method);
    if let Some(params) = params {
        buf.extend_from_slice(br#","params":"#);
        write_raw(buf, params);
    }
    buf.push(b'}');
}

fn write_error_object(buf: &mut Vec<u8>, error: &ErrorObject<'_>) {
    buf.extend_from_slice(br#"{"code":"#);
    buf.extend_from_slice(error.code.0.to_string().as_bytes());
    buf.extend_from_slice(br#","message":"#);
    write_json_string(buf, &error.message);
    if let Some(data) = &error.data {
        buf.extend_from_slice(br#","data":"#);
        write_raw(buf, data);
    }
    buf.push(b'}');
}

/// Copies raw JSON without its insignificant whitespace, so the output is compact and free
/// of line breaks even for pretty-printed input.
///
/// Without any whitespace byte, the text is copied as it is. Otherwise strings are skipped
/// with `memchr` (to their closing quote or next escape), so a long text costs about a copy;
/// only the bytes between strings are looked at one by one.
fn write_raw(buf: &mut Vec<u8>, raw: &RawValue) {
    let bytes = raw.get().as_bytes();
    if is_compact(bytes) {
        buf.extend_from_slice(bytes);
        return;
    }
    buf.reserve(bytes.len());
    // Raw JSON is valid, so outside strings whitespace is insignificant, and inside strings
    // no raw control character (hence no line break) can occur.
    let mut run_start = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = string_end(bytes, at + 1),
            b' ' | b'\n' | b'\r' | b'\t' => {
                buf.extend_from_slice(&bytes[run_start..at]);
                at += 1;
                run_start = at;
            }
            _ => at += 1,
        }
    }
    buf.extend_from_slice(&bytes[run_start..]);
}

/// Whether raw JSON has no whitespace byte at all, so it can be copied as it is. Compact
/// JSON (all this crate writes) never has.
///
/// Valid JSON has no byte below 0x20 but whitespace (inside strings, control characters are
/// escaped), so this is "no byte up to a space": one vectorised pass
/// ([`wide_scan`](super::wide_scan)) instead of `memchr3` and `memchr`.
fn is_compact(bytes: &[u8]) -> bool {
    !super::wide_scan::has_byte_up_to_space(bytes)
}

/// Whether raw JSON has whitespace between its tokens, which copying it drops. Whitespace
/// inside strings is their content (a text with spaces), and raw JSON never has a line break
/// there; strings are skipped with `memchr`, so a long text costs about one look at it.
fn has_whitespace_outside_strings(bytes: &[u8]) -> bool {
    if is_compact(bytes) {
        return false;
    }
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = string_end(bytes, at + 1),
            b' ' | b'\n' | b'\r' | b'\t' => return true,
            _ => at += 1,
        }
    }
    false
}

/// The index just past the closing quote of the string whose contents start at `from`
/// (`bytes.len()` when it is not closed); a backslash escapes the byte after it.
///
/// The quote (or the next escape) is found by [`quote_or_backslash`]: eight bytes at a time
/// over a string's first bytes, `memchr` past them. Also used by the depth scan of inbound
/// frames (`depth::nests_deeper_than`) and the member walk (`members`).
pub(crate) fn string_end(bytes: &[u8], mut from: usize) -> usize {
    while let Some(at) = quote_or_backslash(bytes, from) {
        if bytes[at] == b'"' {
            return at + 1;
        }
        // An escape: the next byte is escaped (a quote, a backslash, `u`, ...).
        from = at + 2;
    }
    bytes.len()
}

/// Bytes of a string looked at a block at a time before `memchr` takes the rest: member names
/// and short values end sooner, and a block loop costs less than the search's setup.
pub(crate) const WORD_SCAN: usize = 64;

/// The index of the first `"` or `\` at or after `from`; `None` when there is none.
///
/// The first [`WORD_SCAN`] bytes are read sixteen at a time (`escape::quotes_16`), the last
/// fewer than sixteen eight at a time (a word holds one of the two bytes when one of its
/// bytes XORed with it is zero, the classic SWAR test, whose lowest flagged byte is exact),
/// then one by one where fewer than eight are left; `memchr2` takes the rest.
pub(crate) fn quote_or_backslash(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const QUOTES: u64 = u64::from_ne_bytes([b'"'; 8]);
    const BACKSLASHES: u64 = u64::from_ne_bytes([b'\\'; 8]);
    let zero_bytes = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
    let short_end = from.saturating_add(WORD_SCAN).min(bytes.len());
    let mut at = from;
    while at < short_end {
        match super::escape::quotes_16(bytes, at) {
            Some(0) => at += 16,
            Some(found) => return Some(at + found.trailing_zeros() as usize),
            None => break,
        }
    }
    while at < short_end {
        let Some(chunk) = bytes.get(at..at + 8) else {
            break;
        };
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        let found = zero_bytes(word ^ QUOTES) | zero_bytes(word ^ BACKSLASHES);
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    while at < short_end {
        if matches!(bytes[at], b'"' | b'\\') {
            return Some(at);
        }
        at += 1;
    }
    memchr::memchr2(b'"', b'\\', bytes.get(at..)?).map(|offset| at + offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compacted(text: &str) -> String {
        let raw = RawValue::from_string(text.to_owned()).unwrap();
        let mut buf = Vec::new();
        write_raw(&mut buf, &raw);
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn whitespace_goes_outside_strings_and_stays_inside_them() {
        assert_eq!(
            compacted("{\n  \"a b\" : [ 1 ,\t2 ],\r\n  \"c\": \"x  y\"\n}"),
            r#"{"a b":[1,2],"c":"x  y"}"#
        );
    }

    #[test]
    fn escaped_quotes_and_backslashes_do_not_end_a_string_early() {
        let text =
            r#"{ "q": "say \"hi \" there", "b": "ends in a backslash \\", "u": "\u0022 \\\" x" }"#;
        assert_eq!(
            compacted(text),
            r#"{"q":"say \"hi \" there","b":"ends in a backslash \\","u":"\u0022 \\\" x"}"#
        );
        let parsed: serde_json::Value = serde_json::from_str(&compacted(text)).unwrap();
        assert_eq!(
            parsed,
            serde_json::from_str::<serde_json::Value>(text).unwrap()
        );
    }

    #[test]
    fn escapes_anywhere_around_the_short_scan_are_kept() {
        for at in 0..140 {
            let inner = format!("{}\\\"{}", "a".repeat(at), "b c".repeat(20));
            let text = format!("{{ \"k\" : \"{inner}\" , \"n\" : 1 }}");
            assert_eq!(
                compacted(&text),
                format!("{{\"k\":\"{inner}\",\"n\":1}}"),
                "{at}"
            );
        }
    }

    /// `quote_or_backslash` against a byte loop, for each of the two bytes at every position
    /// around the word steps, the word-scan's end and the tail shorter than a word.
    #[test]
    fn the_word_scan_finds_the_first_quote_or_backslash() {
        let by_bytes = |bytes: &[u8], from: usize| {
            (from..bytes.len()).find(|&at| matches!(bytes[at], b'"' | b'\\'))
        };
        for len in 0..(WORD_SCAN + 24) {
            let plain = vec![b'x'; len];
            for from in [0, 1, 3, 7, 8, 9] {
                assert_eq!(quote_or_backslash(&plain, from), None, "{len} {from}");
            }
            for at in 0..len {
                for found in [b'"', b'\\'] {
                    let mut bytes = plain.clone();
                    bytes[at] = found;
                    // Near misses: after it a byte one off (the borrow of the word test's
                    // subtraction reaches it), before it one with the high bit set.
                    if at + 1 < len {
                        bytes[at + 1] = found ^ 1;
                    }
                    if at > 0 {
                        bytes[at - 1] = found | 0x80;
                    }
                    for from in [0, 1, 7, 8, 9, at, at + 1] {
                        assert_eq!(
                            quote_or_backslash(&bytes, from),
                            by_bytes(&bytes, from),
                            "{len} {at} {from}"
                        );
                    }
                }
            }
        }
        assert_eq!(string_end(br#"ab\\"cd"#, 0), 5);
        assert_eq!(
            string_end(br#"ab\"cd"#, 0),
            6,
            "an escaped quote, not closed"
        );
        assert_eq!(string_end(br#"ab\"#, 0), 3);
    }

    #[test]
    fn a_whitespace_byte_anywhere_makes_raw_json_not_compact() {
        for len in 0..200 {
            let clean = vec![b'x'; len];
            assert!(is_compact(&clean), "{len}");
            for at in 0..len {
                for space in [b' ', b'\t', b'\n', b'\r'] {
                    let mut spaced = clean.clone();
                    spaced[at] = space;
                    assert!(!is_compact(&spaced), "{space} at {at} of {len}");
                }
            }
        }
        assert!(
            is_compact(b"!~\x7f\xc3\xa9"),
            "bytes above a space are not whitespace"
        );
    }

    #[test]
    fn whitespace_counts_only_between_tokens() {
        for (text, outside) in [
            (r#"{"a":"x y","b":["\t "]}"#, false),
            (r#"{"a":"x\" y","b":1}"#, false),
            (r#"{"a": "x"}"#, true),
            ("{\"a\":\"x\"}\n", true),
            (r#"{"a":"x\\" ,"b":1}"#, true),
            (r#"["ends in a backslash \\"]"#, false),
        ] {
            assert_eq!(
                has_whitespace_outside_strings(text.as_bytes()),
                outside,
                "{text}"
            );
            let raw = RawValue::from_string(text.to_owned()).unwrap();
            let mut copied = Vec::new();
            write_raw(&mut copied, &raw);
            assert_eq!(copied != text.as_bytes(), outside, "{text}");
        }
    }

    #[test]
    fn a_long_string_is_copied_whole() {
        let text = format!(
            "[ \"{}\" , \"\\\\{}\" ]",
            "x y".repeat(10_000),
            "z".repeat(5)
        );
        let expected = format!("[\"{}\",\"\\\\{}\"]", "x y".repeat(10_000), "z".repeat(5));
        assert_eq!(compacted(&text), expected);
    }
}
