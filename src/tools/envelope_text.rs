//! The text of a successful `tools/call` result, written by hand: the envelope's fixed parts
//! as literals, the output and its text copy escaped once by the crate's escaper, the metadata
//! written once and pasted twice, into one buffer of the text's exact size, measured first so
//! that a result over its budget is never written.
//!
//! Byte for byte what `serde_json` writes from the envelope's `Serialize` types (the
//! `by_hand` property tests of `envelope_tests.rs` compare both over arbitrary texts,
//! outputs, metadata and shapes); its `RawValue` is made without parsing the text again.

use serde_json::value::RawValue;

use super::envelope::{Shape, RESULT_TYPE_MEMBER};
use super::envelope_writer::meta_members;
use crate::generated::errors::ResultMeta;
use crate::jsonrpc::escape::{json_string_len, write_json_string};
use crate::validation::reused_value::Scalar;

/// From the opening brace (after `resultType`, when written) to the text copy.
const BEFORE_TEXT: &str = r#""content":[{"type":"text","text":"#;
/// From the text copy to the output.
const BEFORE_DATA: &str = r#"}],"structuredContent":{"ok":true,"data":"#;
/// From the output to the envelope's metadata.
const BEFORE_META: &str = r#","meta":"#;
/// From the envelope's metadata to the published copy (`_meta`, under
/// [`META_KEY`](super::envelope::META_KEY)).
const BEFORE_PUBLISHED: &str = r#"},"isError":false,"_meta":{"io.typed-mcp/meta":"#;
/// After the published metadata.
const END: &str = "}}";

/// The output of a successful call, as its text and its JSON.
#[derive(Debug, Clone, Copy)]
pub(super) enum Output<'a> {
    /// A text output: its JSON is the text as a JSON string, the same as its text copy's.
    Text(&'a str),
    /// A structured output, already written as compact JSON by `serde_json`; its text copy is
    /// that JSON as a JSON string.
    Json(&'a str),
}

/// A measured success, ready to be written (see [`SuccessText::write`]).
#[derive(Debug)]
pub(super) struct SuccessText<'a> {
    output: Output<'a>,
    shape: Shape,
    meta: MetaText,
    /// The length of the text copy as a JSON string.
    text_len: usize,
    len: usize,
}

impl<'a> SuccessText<'a> {
    /// Measures the success of `output` with `meta` in `shape`.
    pub(super) fn measure(output: Output<'a>, meta: &ResultMeta, shape: Shape) -> Self {
        let meta = MetaText::new(meta);
        let (text_len, data_len) = match output {
            Output::Text(text) => {
                let len = json_string_len(text);
                (len, len)
            }
            Output::Json(json) => (json_string_len(json), json.len()),
        };
        let result_type = if shape.legacy {
            0
        } else {
            RESULT_TYPE_MEMBER.len()
        };
        let len = 1
            + result_type
            + BEFORE_TEXT.len()
            + text_len
            + BEFORE_DATA.len()
            + data_len
            + BEFORE_META.len()
            + 2 * meta.len
            + BEFORE_PUBLISHED.len()
            + END.len();
        Self {
            output,
            shape,
            meta,
            text_len,
            len,
        }
    }

    /// The length of the text, in bytes.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Writes the text into a buffer of its size.
    pub(super) fn write(&self) -> Box<RawValue> {
        let mut out = crate::long_strings::buffer(self.len);
        out.push('{');
        if !self.shape.legacy {
            out.push_str(RESULT_TYPE_MEMBER);
        }
        out.push_str(BEFORE_TEXT);
        let text_at = out.len();
        match self.output {
            // Nothing to escape (the measure found the string two quotes longer than the
            // text, and each escape adds at least a byte): copied, not scanned again.
            Output::Text(text) | Output::Json(text) if self.text_len == text.len() + 2 => {
                out.push('"');
                out.push_str(text);
                out.push('"');
            }
            Output::Text(text) | Output::Json(text) => write_json_string(&mut out, text),
        }
        out.push_str(BEFORE_DATA);
        match self.output {
            Output::Text(_) => {
                // The text output is the same JSON string as its text copy: pasted.
                out.extend_from_within(text_at..text_at + self.text_len);
            }
            Output::Json(json) => out.push_str(json),
        }
        out.push_str(BEFORE_META);
        out.push_str(self.meta.as_str());
        out.push_str(BEFORE_PUBLISHED);
        out.push_str(self.meta.as_str());
        out.push_str(END);
        debug_assert_eq!(
            out.len(),
            self.len,
            "the measured length is the written one"
        );
        // SAFETY: `out` is one JSON object without surrounding whitespace: fixed members
        // written as literals, strings escaped by `write_json_string` (what serde_json writes,
        // tested character by character), a structured output as serde_json wrote it, and
        // integers and booleans (`MetaText`). The property tests compare the whole text with
        // serde_json's for arbitrary results, and `from_string_unchecked` re-parses it in
        // debug builds, so every test run checks every text written.
        unsafe { RawValue::from_string_unchecked(out) }
    }
}

/// `ResultMeta` as compact JSON, as its derived `Serialize` writes it (absent members left
/// out), in a buffer on the stack.
#[derive(Debug)]
struct MetaText {
    bytes: [u8; MetaText::CAPACITY],
    len: usize,
}

impl MetaText {
    /// Room for every member at its longest (109 bytes).
    const CAPACITY: usize = 128;

    fn new(meta: &ResultMeta) -> Self {
        let mut text = Self {
            bytes: [0; Self::CAPACITY],
            len: 0,
        };
        let mut numbers = itoa::Buffer::new();
        let mut separator = "{\"";
        for (key, value) in meta_members(meta) {
            let value = match value {
                None => continue,
                Some(Scalar::Bool(value)) => bool_text(value),
                Some(Scalar::U64(value)) => numbers.format(value),
            };
            text.put(separator);
            separator = ",\"";
            text.put(key);
            text.put("\":");
            text.put(value);
        }
        text.put("}");
        text
    }

    fn put(&mut self, part: &str) {
        let end = self.len + part.len();
        debug_assert!(end <= Self::CAPACITY, "the longest metadata fits");
        if let Some(room) = self.bytes.get_mut(self.len..end) {
            room.copy_from_slice(part.as_bytes());
            self.len = end;
        }
    }

    fn as_str(&self) -> &str {
        // Only whole `&str`s are copied in (`put`), so the bytes are UTF-8.
        std::str::from_utf8(self.bytes.get(..self.len).unwrap_or_default()).unwrap_or_default()
    }
}

fn bool_text(value: bool) -> &'static str {
    if value {
        "true"
    } else {
        "false"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_key_is_the_meta_key() {
        let key = crate::jsonrpc::escape::json_string(super::super::envelope::META_KEY);
        assert!(BEFORE_PUBLISHED.ends_with(&format!("{{{key}:")));
    }

    #[test]
    fn the_longest_metadata_fits_and_is_what_serde_json_writes() {
        let longest = ResultMeta {
            cached: Some(false),
            duration_ms: u64::MAX,
            original_size_bytes: Some(u64::MAX),
            truncated: Some(false),
        };
        let text = MetaText::new(&longest);
        assert_eq!(text.as_str(), serde_json::to_string(&longest).unwrap());
        assert!(text.len <= MetaText::CAPACITY);
    }
}
