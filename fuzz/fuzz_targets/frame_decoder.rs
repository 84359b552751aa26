//! The newline frame decoder against a model of its documented rules, with the input split
//! into arbitrary chunks: every split gives the same frames and errors as the model, no
//! frame exceeds the limit, and the buffer never holds more than one line's worth.
//!
//! Input: byte 0 picks the line limit (1..=64), byte 1 seeds the chunk sizes, the rest is
//! the stream.
#![no_main]

use libfuzzer_sys::fuzz_target;
use typed_mcp::framing::{FramingError, LineBuffer, LineDecoder};

#[derive(Debug, PartialEq)]
enum Item {
    Line(Vec<u8>),
    TooLong,
}

/// The documented rules, applied to the whole input at once.
fn model(stream: &[u8], max: usize) -> Vec<Item> {
    let mut items = Vec::new();
    let mut pieces: Vec<&[u8]> = stream.split(|b| *b == b'\n').collect();
    // `split` yields a last piece after the final `\n` (empty when the input ends with one).
    let last = pieces.pop().unwrap_or_default();
    pieces.push(last);
    for piece in pieces {
        let line = piece.strip_suffix(b"\r").unwrap_or(piece);
        if line.len() > max {
            items.push(Item::TooLong);
        } else if !line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            items.push(Item::Line(line.to_vec()));
        }
    }
    items
}

fn record(result: Result<Option<&[u8]>, FramingError>, max: usize, out: &mut Vec<Item>) -> bool {
    match result {
        Ok(Some(line)) => {
            assert!(line.len() <= max, "a frame longer than the limit");
            assert!(!line.contains(&b'\n'), "a frame holding a newline");
            out.push(Item::Line(line.to_vec()));
            true
        }
        Ok(None) => false,
        Err(FramingError::LineTooLong { limit, .. }) => {
            assert_eq!(limit, max);
            out.push(Item::TooLong);
            true
        }
        Err(other) => panic!("unexpected error {other}"),
    }
}

fn decode_in_chunks(stream: &[u8], max: usize, mut seed: u32) -> Vec<Item> {
    let mut decoder = LineDecoder::with_max_length(max);
    let mut buffer = LineBuffer::new();
    let mut items = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let size = 1 + (seed >> 16) as usize % 17;
        let end = (at + size).min(stream.len());
        buffer.extend_from_slice(&stream[at..end]);
        at = end;
        while record(decoder.decode(&mut buffer), max, &mut items) {}
        assert!(
            buffer.len() <= max + 1,
            "the buffer holds {} bytes with a limit of {max}",
            buffer.len()
        );
    }
    while record(decoder.decode_eof(&mut buffer), max, &mut items) {}
    assert!(buffer.is_empty(), "bytes left after the end of input");
    items
}

fuzz_target!(|data: &[u8]| {
    let [limit, seed, stream @ ..] = data else {
        return;
    };
    let max = 1 + usize::from(*limit) % 64;
    let expected = model(stream, max);
    assert_eq!(decode_in_chunks(stream, max, u32::from(*seed)), expected);
    // One chunk holding everything decodes the same way.
    let mut decoder = LineDecoder::with_max_length(max);
    let mut buffer = LineBuffer::new();
    buffer.extend_from_slice(stream);
    let mut whole = Vec::new();
    while record(decoder.decode(&mut buffer), max, &mut whole) {}
    while record(decoder.decode_eof(&mut buffer), max, &mut whole) {}
    assert_eq!(whole, expected);
});
