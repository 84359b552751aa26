//! The value of a successful `tools/call` result, the one outbound validation reads, written
//! by hand rather than through `serde`: over a value kept from an earlier call (see
//! [`reused_value`]), entry by entry, the keys of the envelope checked in place and never
//! looked up through a serializer. Tested against the parse of the text `serde_json` writes
//! for the same result, over arbitrary texts, outputs and metadata, in both shapes
//! (`envelope_tests.rs`).
//!
//! The text itself is written by hand too, in `envelope_text`.

use serde_json::{Error, Value};

use super::envelope::{Shape, META_KEY};
use crate::generated::errors::ResultMeta;
use crate::validation::reused_value::{self, ReusedValue, Scalar};

/// The value of a successful result in `shape` (the text copy `text`, the output `data`), as
/// `serde_json` writes it from the envelope's `Serialize` types, written over a value kept
/// from an earlier call.
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
    write_success(meta, shape, &mut |text_slot, data_slot| {
        let held = reused_value::write_str(text_slot, text);
        Ok(held.saturating_add(match data {
            Value::String(data) => reused_value::write_str(data_slot, data),
            data => reused_value::write_into(data_slot, data)?,
        }))
    })
}

/// [`success_value`] of a text output the caller gives up: copied into the text copy's slot,
/// then moved, not copied, into the output's. The string the output's slot held before goes
/// to [`long_strings`](crate::long_strings), for the next long text on the thread.
pub(super) fn text_success_value(
    text: String,
    meta: &ResultMeta,
    shape: Shape,
) -> Result<ReusedValue, Error> {
    let mut text = Some(text);
    write_success(meta, shape, &mut |text_slot, data_slot| {
        let text = text.take().unwrap_or_default();
        let held = reused_value::write_str(text_slot, &text);
        let (data_held, displaced) = reused_value::put_string(data_slot, text);
        if let Some(displaced) = displaced {
            crate::long_strings::recycle(Value::String(displaced));
        }
        Ok(held.saturating_add(data_held))
    })
}

/// Writes a successful result in `shape` over a kept value: the envelope and `meta` here,
/// the text copy and the output by `write_output` (into their two slots, in that order; it
/// is called once). One body for both callers, not one per closure: the hot path of a short
/// call then runs the same code as before this writer had two callers.
fn write_success(
    meta: &ResultMeta,
    shape: Shape,
    write_output: &mut dyn FnMut(&mut Value, &mut Value) -> Result<usize, Error>,
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
            .saturating_add(reused_value::write_str(kind, "text"));
        held = held.saturating_add(reused_value::write_scalar(is_error, Scalar::Bool(false)));
        let ([data_slot, envelope_meta, ok], envelope_held) =
            reused_value::fields(structured, &["data", "meta", "ok"]);
        held = held
            .saturating_add(envelope_held)
            .saturating_add(write_output(text_slot, data_slot)?);
        held = held.saturating_add(meta_value(envelope_meta, meta));
        held = held.saturating_add(reused_value::write_scalar(ok, Scalar::Bool(true)));
        let ([published], published_held) = reused_value::fields(meta_slot, &[META_KEY]);
        Ok(held
            .saturating_add(published_held)
            .saturating_add(meta_value(published, meta)))
    })
}

/// The members of `meta` in the order its derived `Serialize` writes them, each `None` when
/// absent (left out). The one list of them: the value here and the text
/// (`envelope_text`) are both written from it.
pub(super) fn meta_members(meta: &ResultMeta) -> [(&'static str, Option<Scalar>); 4] {
    // Every field named: a field added to the schema does not compile until written here.
    let ResultMeta {
        cached,
        duration_ms,
        original_size_bytes,
        truncated,
    } = meta;
    [
        ("cached", cached.map(Scalar::Bool)),
        ("durationMs", Some(Scalar::U64(*duration_ms))),
        ("originalSizeBytes", original_size_bytes.map(Scalar::U64)),
        ("truncated", truncated.map(Scalar::Bool)),
    ]
}

/// Writes the value of `meta` over `slot`: its members as the generated `ResultMeta`
/// serializes them, absent ones left out; returns roughly how many bytes it holds.
fn meta_value(slot: &mut Value, meta: &ResultMeta) -> usize {
    let mut present = [("", Scalar::Bool(false)); 4];
    let mut len = 0;
    for (key, value) in meta_members(meta) {
        if let (Some(value), Some(place)) = (value, present.get_mut(len)) {
            *place = (key, value);
            len += 1;
        }
    }
    reused_value::write_scalars(slot, present.get(..len).unwrap_or_default())
}
