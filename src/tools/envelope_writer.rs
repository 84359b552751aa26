//! The envelope of a successful `tools/call` result written by hand: its text, and the value
//! outbound validation reads, without going through `serde`.
//!
//! [`success_json`] writes the bytes `serde_json` writes for the envelope (see
//! [`envelope`](super::envelope)): the constant parts pasted, the text escaped once (and, for
//! a text output, pasted again as the output), the metadata written once and pasted twice.
//! [`success_value`] writes the value of the same result over a value kept from an earlier
//! call (see [`reused_value`]), entry by entry, with no key looked up through `serde`.
//! Both are tested against `serde_json` over arbitrary texts, outputs and metadata, in both
//! shapes (`envelope_tests.rs`).

use serde_json::value::RawValue;
use serde_json::{Error, Value};

use super::envelope::{Shape, META_KEY, RESULT_TYPE_MEMBER};
use crate::generated::errors::ResultMeta;
use crate::jsonrpc::escape::write_json_string;
use crate::validation::reused_value::{self, ReusedValue};

/// Everything before the text, after the optional `resultType` member.
const BEFORE_TEXT: &str = r#""content":[{"type":"text","text":"#;

/// Between the text and the output.
const BEFORE_DATA: &str = r#"}],"structuredContent":{"ok":true,"data":"#;

/// Between the output and the envelope's metadata.
const BEFORE_META: &str = r#","meta":"#;

/// Between the envelope's metadata and the same metadata under `_meta`.
const BEFORE_META_AGAIN: &str = concat!(
    r#"},"isError":false,"_meta":{""#,
    "io.typed-mcp/meta",
    r#"":"#
);

/// After the metadata under `_meta`.
const AFTER_META: &str = "}}";

/// The longest metadata: every member present, every number at its largest.
const META_MAX: usize = r#"{"cached":false,"durationMs":18446744073709551615,"originalSizeBytes":18446744073709551615,"truncated":false}"#.len();

/// The text of a successful result in `shape`, the bytes `serde_json` writes for it: `text`
/// is the text copy; the output is `data_json` as written by `serde_json` (pasted), or, when
/// `None`, the text itself (a text output).
///
/// # Errors
///
/// Should the text written not be one JSON value (it always is: it is checked by
/// `RawValue::from_string`, the crate's `RawValue`s are never made unchecked from text
/// written by hand).
pub(super) fn success_json(
    text: &str,
    data_json: Option<&str>,
    meta: &ResultMeta,
    shape: Shape,
) -> Result<Box<RawValue>, Error> {
    let fixed = 1
        + RESULT_TYPE_MEMBER.len()
        + BEFORE_TEXT.len()
        + BEFORE_DATA.len()
        + BEFORE_META.len()
        + BEFORE_META_AGAIN.len()
        + AFTER_META.len()
        + 2 * META_MAX;
    // Room for the text written twice without escapes: a short text fits without growing.
    let room = fixed
        .saturating_add(text.len().saturating_add(2).saturating_mul(2))
        .saturating_add(data_json.map_or(0, str::len));
    let mut out: Vec<u8> = Vec::with_capacity(room);
    out.push(b'{');
    if !shape.legacy {
        out.extend_from_slice(RESULT_TYPE_MEMBER.as_bytes());
    }
    out.extend_from_slice(BEFORE_TEXT.as_bytes());
    let text_at = out.len();
    write_json_string(&mut out, text);
    let text_end = out.len();
    out.extend_from_slice(BEFORE_DATA.as_bytes());
    match data_json {
        Some(data_json) => out.extend_from_slice(data_json.as_bytes()),
        None => out.extend_from_within(text_at..text_end),
    }
    out.extend_from_slice(BEFORE_META.as_bytes());
    let meta_at = out.len();
    write_meta(&mut out, meta);
    let meta_end = out.len();
    out.extend_from_slice(BEFORE_META_AGAIN.as_bytes());
    out.extend_from_within(meta_at..meta_end);
    out.extend_from_slice(AFTER_META.as_bytes());
    let json = String::from_utf8(out)
        .map_err(|error| Error::io(std::io::Error::new(std::io::ErrorKind::InvalidData, error)))?;
    RawValue::from_string(json)
}

/// Writes `meta` as `serde_json` writes the generated `ResultMeta`: its members in their
/// declared order, absent ones left out.
fn write_meta(out: &mut Vec<u8>, meta: &ResultMeta) {
    // Every field named: a field added to the schema does not compile until written here.
    let ResultMeta {
        cached,
        duration_ms,
        original_size_bytes,
        truncated,
    } = meta;
    out.push(b'{');
    if let Some(cached) = cached {
        out.extend_from_slice(br#""cached":"#);
        write_bool(out, *cached);
        out.push(b',');
    }
    out.extend_from_slice(br#""durationMs":"#);
    write_u64(out, *duration_ms);
    if let Some(size) = original_size_bytes {
        out.extend_from_slice(br#","originalSizeBytes":"#);
        write_u64(out, *size);
    }
    if let Some(truncated) = truncated {
        out.extend_from_slice(br#","truncated":"#);
        write_bool(out, *truncated);
    }
    out.push(b'}');
}

fn write_bool(out: &mut Vec<u8>, value: bool) {
    out.extend_from_slice(if value { b"true" } else { b"false" });
}

/// `value` in decimal, as `serde_json` writes a `u64`.
fn write_u64(out: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        let digit = u8::try_from(value % 10).unwrap_or_else(|_| unreachable!("a digit"));
        if let Some(place) = digits.get_mut(at) {
            *place = b'0' + digit;
        }
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.extend_from_slice(digits.get(at..).unwrap_or_default());
}

/// The value of the successful result [`success_json`] writes (with `data` the output:
/// `text` itself for a text output), written over a value kept from an earlier call.
///
/// # Errors
///
/// Should `data` not be written over its old value (the caller then builds the value with
/// `reused_value::to_value`).
pub(super) fn success_value(
    text: &str,
    data: &Value,
    meta: &ResultMeta,
    shape: Shape,
) -> Result<ReusedValue, Error> {
    reused_value::write_over(|value| {
        let (meta_slot, content, is_error, structured, mut held) = if shape.legacy {
            let ([meta_slot, content, is_error, structured], held) =
                reused_value::fields(value, &["_meta", "content", "isError", "structuredContent"]);
            (meta_slot, content, is_error, structured, held)
        } else {
            let ([meta_slot, content, is_error, result_type, structured], held) =
                reused_value::fields(
                    value,
                    &[
                        "_meta",
                        "content",
                        "isError",
                        "resultType",
                        "structuredContent",
                    ],
                );
            let held = held.saturating_add(reused_value::write_str(result_type, "complete"));
            (meta_slot, content, is_error, structured, held)
        };
        let (item, item_held) = reused_value::one_item(content);
        let ([text_slot, kind], text_held) = reused_value::fields(item, &["text", "type"]);
        held = held
            .saturating_add(item_held)
            .saturating_add(text_held)
            .saturating_add(reused_value::write_str(text_slot, text))
            .saturating_add(reused_value::write_str(kind, "text"));
        *is_error = Value::Bool(false);
        let ([data_slot, envelope_meta, ok], envelope_held) =
            reused_value::fields(structured, &["data", "meta", "ok"]);
        held = held
            .saturating_add(envelope_held)
            .saturating_add(match data {
                Value::String(data) => reused_value::write_str(data_slot, data),
                data => reused_value::write_into(data_slot, data)?,
            });
        held = held.saturating_add(meta_value(envelope_meta, meta));
        *ok = Value::Bool(true);
        let ([published], published_held) = reused_value::fields(meta_slot, &[META_KEY]);
        Ok(held
            .saturating_add(published_held)
            .saturating_add(meta_value(published, meta)))
    })
}

/// Writes the value of `meta` over `slot` (see [`write_meta`]); returns roughly how many
/// bytes it holds.
fn meta_value(slot: &mut Value, meta: &ResultMeta) -> usize {
    let ResultMeta {
        cached,
        duration_ms,
        original_size_bytes,
        truncated,
    } = meta;
    let mut entries = [
        ("cached", cached.map(Value::Bool)),
        ("durationMs", Some(Value::from(*duration_ms))),
        ("originalSizeBytes", original_size_bytes.map(Value::from)),
        ("truncated", truncated.map(Value::Bool)),
    ];
    let mut present = [
        ("", Value::Null),
        ("", Value::Null),
        ("", Value::Null),
        ("", Value::Null),
    ];
    let mut count = 0;
    for (key, value) in &mut entries {
        if let (Some(value), Some(place)) = (value.take(), present.get_mut(count)) {
            *place = (*key, value);
            count += 1;
        }
    }
    reused_value::write_scalars(slot, present.get_mut(..count).unwrap_or_default())
}
