//! Writing a value as a `RawValue` into a buffer of exactly its size.
//!
//! `serde_json::value::to_raw_value` writes into a buffer that starts at 128 bytes and
//! doubles, then shrinks it to the text: a 131 KiB tool result passes through a 256 KiB
//! buffer. Above glibc's mmap threshold (128 KiB at first) that buffer is `mmap`ped, its
//! pages faulted in, `mremap`ped down and `munmap`ped on every request, and because the chunk
//! freed is the shrunk one, glibc's dynamic threshold never rises past it; with the growing
//! copies this cost more server CPU than the rest of a 64 KiB `tools/call` (measured in
//! `BENCHMARKS.md`, "Server CPU per request"). [`to_raw_exact`] measures the text first and
//! writes it once into a buffer of its size.

use std::io;

use serde::Serialize;
use serde_json::value::RawValue;

/// `value` as compact JSON, like `serde_json::value::to_raw_value`, written into one
/// allocation of exactly the text's size.
///
/// The value is serialized twice: once into a counter, once into the buffer. Meant for values
/// whose long parts are already written (`&RawValue` members, pasted in one `memcpy`), where
/// the first pass costs little.
pub(crate) fn to_raw_exact<T: Serialize + ?Sized>(
    value: &T,
) -> Result<Box<RawValue>, serde_json::Error> {
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value)?;
    to_raw_in(value, Vec::with_capacity(counter.0))
}

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

/// An `io::Write` that only counts bytes.
struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0 += bytes.len();
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use serde_json::value::{to_raw_value, RawValue};

    use super::{to_raw_exact, to_raw_sized};

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

    #[test]
    fn writes_what_to_raw_value_writes_in_a_buffer_of_its_size() {
        let long = "é\"\\\u{1}x".repeat(40_000);
        let pasted = to_raw_value(&long).unwrap();
        let values = [
            json!(null),
            json!({"a": [1, 2.5, "x\n"], "b": {"c": true}}),
            json!({"text": long, "n": -3}),
        ];
        for value in &values {
            let exact = to_raw_exact(value).unwrap();
            assert_eq!(exact.get(), to_raw_value(value).unwrap().get());
            let text: Box<str> = exact.into();
            assert_eq!(text.len(), to_raw_value(value).unwrap().get().len());
        }
        let with_raw = json!({"k": 1});
        #[derive(serde::Serialize)]
        struct Out<'a> {
            data: &'a RawValue,
            other: &'a serde_json::Value,
        }
        let out = Out {
            data: &pasted,
            other: &with_raw,
        };
        assert_eq!(
            to_raw_exact(&out).unwrap().get(),
            to_raw_value(&out).unwrap().get()
        );
    }
}
