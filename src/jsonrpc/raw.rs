//! Writing a value as a `RawValue` into a buffer of a chosen starting size, without
//! parsing the text again.
//!
//! `serde_json::value::to_raw_value` writes into a buffer that starts at 128 bytes and
//! doubles, then shrinks it to the text. [`to_raw_sized`] starts where the caller knows the
//! usual size to be. (A long result is never written this way: the success of a tool is
//! measured first and written once into a buffer of its size, `tools::envelope_text`; a
//! 131 KiB text through a doubling buffer is `mmap`ped, faulted in, `mremap`ped and
//! `munmap`ped on every request above glibc's mmap threshold, measured in `BENCHMARKS.md`,
//! "Server CPU per request".)

use std::io;

use serde::Serialize;
use serde_json::value::RawValue;

/// `value` as compact JSON, like `serde_json::value::to_raw_value`, written into a buffer
/// that starts at `capacity` bytes (`to_raw_value` starts at 128 and doubles): a small value
/// whose usual size is known is written without growing the buffer.
pub(crate) fn to_raw_sized<T: Serialize + ?Sized>(
    value: &T,
    capacity: usize,
) -> Result<Box<RawValue>, serde_json::Error> {
    to_raw_in(value, Vec::with_capacity(capacity))
}

/// `value` written by serde_json into `bytes` (empty, with the capacity the caller chose),
/// as a `RawValue` without parsing it again.
fn to_raw_in<T: Serialize + ?Sized>(
    value: &T,
    mut bytes: Vec<u8>,
) -> Result<Box<RawValue>, serde_json::Error> {
    serde_json::to_writer(&mut bytes, value)?;
    let text = String::from_utf8(bytes).map_err(|error| {
        serde_json::Error::io(io::Error::new(io::ErrorKind::InvalidData, error))
    })?;
    // SAFETY: `text` is what serde_json's own serializer wrote for one value: a single
    // well-formed JSON value without surrounding whitespace, the case
    // `from_string_unchecked` documents (and re-checks in debug builds). The `RawValue`s it
    // pastes verbatim are well-formed too: the crate gets them only from serde_json's checked
    // paths (parsing, `RawValue::from_string`, `to_raw_value`) or from this module.
    Ok(unsafe { RawValue::from_string_unchecked(text) })
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use serde_json::value::to_raw_value;

    use super::to_raw_sized;

    #[test]
    fn a_sized_buffer_holds_what_to_raw_value_writes() {
        let values = [
            json!(null),
            json!("é\"\\\u{1}x"),
            json!({"a": [1, 2.5, "x\n"], "b": {"c": true}}),
            json!({"text": "y".repeat(3000)}),
        ];
        for value in &values {
            for capacity in [0, 16, 512] {
                let sized = to_raw_sized(value, capacity).unwrap();
                assert_eq!(sized.get(), to_raw_value(value).unwrap().get());
            }
        }
    }
}
