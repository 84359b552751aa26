//! JSON string literals written the way `serde_json` writes them, looking at sixteen (then
//! eight) bytes at a time where nothing needs escaping (most of a long text), instead of at
//! every byte. The one escaper of the crate: envelopes, ids, methods, error messages and cache
//! keys all go through [`write_json_string`].

use super::wide_scan::clean_blocks;

/// Text a JSON string literal can be written into: a `String` or a byte buffer.
pub(crate) trait JsonText {
    /// Appends `text`.
    fn put(&mut self, text: &str);
}

impl JsonText for String {
    fn put(&mut self, text: &str) {
        self.push_str(text);
    }
}

impl JsonText for Vec<u8> {
    fn put(&mut self, text: &str) {
        self.extend_from_slice(text.as_bytes());
    }
}

/// `text` as a JSON string literal, quotes included (see [`write_json_string`]).
pub(crate) fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    write_json_string(&mut out, text);
    out
}

/// Appends `text` as a JSON string literal, quotes included, byte for byte what `serde_json`
/// writes: `"` and `\` escaped with a backslash, `\b \f \n \r \t` in their short forms, every
/// other control character (below U+0020) as `\u00xx` in lowercase hex, and everything else
/// (DEL and non-ASCII included) as it is.
pub(crate) fn write_json_string(out: &mut impl JsonText, text: &str) {
    const HEX: &str = "0123456789abcdef";
    let bytes = text.as_bytes();
    out.put("\"");
    let mut run_start = 0;
    let mut at = 0;
    while at < bytes.len() {
        at = clean_until(bytes, at);
        let Some(&byte) = bytes.get(at) else {
            break;
        };
        let short = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => {
                at += 1;
                continue;
            }
        };
        // `at` is an ASCII byte, so both slices end on character boundaries.
        out.put(&text[run_start..at]);
        if short.is_empty() {
            let (high, low) = (usize::from(byte >> 4), usize::from(byte & 0xf));
            out.put("\\u00");
            out.put(&HEX[high..=high]);
            out.put(&HEX[low..=low]);
        } else {
            out.put(short);
        }
        at += 1;
        run_start = at;
    }
    out.put(&text[run_start..]);
    out.put("\"");
}

/// The length of `text` as a JSON string literal, quotes included: the length of what
/// [`write_json_string`] writes, counted without writing it (clean runs skipped a block at a
/// time, as there).
pub(crate) fn json_string_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut len = bytes.len() + 2;
    let mut at = 0;
    while at < bytes.len() {
        at = clean_until(bytes, at);
        let Some(&byte) = bytes.get(at) else {
            break;
        };
        len += match byte {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            0x00..=0x1f => 5,
            _ => 0,
        };
        at += 1;
    }
    len
}

/// The first index from `from` on whose 16-byte (then 8-byte) block holds a byte to escape,
/// or the start of the last partial block: everything before it needs no escape.
///
/// Clean 64-byte blocks are passed first with a test the compiler turns into vector code
/// (about twice as fast as the words below on a long clean text; AVX2 where the CPU has it,
/// see [`wide_scan`](super::wide_scan)); the block that holds the byte is then narrowed down
/// a word at a time.
pub(crate) fn clean_until(bytes: &[u8], from: usize) -> usize {
    let clean_blocks = clean_blocks(bytes.get(from..).unwrap_or_default());
    let mut at = from + clean_blocks * 64;
    let rest = bytes.get(at..).unwrap_or_default();
    for pair in rest.chunks_exact(16) {
        let (first, second) = pair.split_at(8);
        if escape_bits(word(first)) | escape_bits(word(second)) != 0 {
            break;
        }
        at += 16;
    }
    if let Some(block) = bytes.get(at..at + 8) {
        if escape_bits(word(block)) == 0 {
            at += 8;
        }
    }
    at
}

/// The index of the first byte from `from` on that is `"`, `\` or below 0x20, looked for
/// sixteen bytes at a time ([`specials_16`]): a short string (a member name, a version)
/// costs one block test, not [`clean_until`]'s setup. After 64 clean bytes (a long string)
/// the search goes on through [`clean_until`]; where fewer than sixteen bytes are left it
/// goes on eight at a time and stops when fewer than eight are left. So the byte at the
/// index returned is either the one looked for or a clean one the caller steps over.
#[inline]
pub(crate) fn next_special(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    for _ in 0..4 {
        match specials_16(bytes, at) {
            Some(0) => at += 16,
            Some(found) => return at + found.trailing_zeros() as usize,
            None => {
                // The tail: at most one clean word, then the caller's byte steps.
                while let Some(block) = bytes.get(at..at + 8) {
                    let bits = escape_bits(word(block));
                    if bits != 0 {
                        // The lowest byte flagged is one looked for: a false positive
                        // needs a borrow from a lower byte, which only a byte looked for
                        // makes.
                        return at + (bits.trailing_zeros() / 8) as usize;
                    }
                    at += 8;
                }
                return at;
            }
        }
    }
    clean_until(bytes, at)
}

/// The sixteen bytes from `at`, one bit each (bit `i` for the byte at `at + i`), set for a
/// `"`, a `\` or a byte below 0x20; `None` when fewer than sixteen bytes are left. Only
/// the lowest bit set is exact everywhere (it is all the callers read).
#[inline(always)]
fn specials_16(bytes: &[u8], at: usize) -> Option<u32> {
    block_mask::<true>(bytes, at)
}

/// [`specials_16`] without the control bytes: a `"` or a `\` (the end of a string already
/// checked, or its next escape).
#[inline(always)]
pub(crate) fn quotes_16(bytes: &[u8], at: usize) -> Option<u32> {
    block_mask::<false>(bytes, at)
}

/// [`specials_16`] (with `CONTROLS`) or [`quotes_16`] (without). With SSE2 (every x86-64
/// CPU has it): two or three byte compares and a mask.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn block_mask<const CONTROLS: bool>(bytes: &[u8], at: usize) -> Option<u32> {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let block = bytes.get(at..at.checked_add(16)?)?;
    // SAFETY: `block` is sixteen readable bytes, the unaligned load's requirement; the
    // other calls need SSE2, which this build has (`cfg(target_feature = "sse2")`).
    let mask = unsafe {
        let bytes = _mm_loadu_si128(block.as_ptr().cast());
        let quotes = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'"' as i8));
        let backslashes = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b'\\' as i8));
        let mut any = _mm_or_si128(quotes, backslashes);
        if CONTROLS {
            // A byte below 0x20 is its own minimum with 0x1f (an unsigned compare).
            let low = _mm_min_epu8(bytes, _mm_set1_epi8(0x1f));
            any = _mm_or_si128(any, _mm_cmpeq_epi8(low, bytes));
        }
        _mm_movemask_epi8(any)
    };
    Some(mask as u32 & 0xffff)
}

/// [`block_mask`] elsewhere, from two word tests.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn block_mask<const CONTROLS: bool>(bytes: &[u8], at: usize) -> Option<u32> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let flags = |word: u64| {
        let zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
        let quotes = zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\')));
        if CONTROLS {
            escape_bits(word)
        } else {
            quotes
        }
    };
    let block = bytes.get(at..at.checked_add(16)?)?;
    let (low, high) = block.split_at(8);
    let (low, high) = (flags(word(low)), flags(word(high)));
    Some(if low != 0 {
        1 << (low.trailing_zeros() / 8)
    } else if high != 0 {
        1 << (8 + high.trailing_zeros() / 8)
    } else {
        0
    })
}

/// Eight bytes as a word (`block` is eight bytes long; a shorter one reads as zeros, which
/// only makes it look like it needs escaping).
fn word(block: &[u8]) -> u64 {
    <[u8; 8]>::try_from(block).map_or(0, u64::from_le_bytes)
}

/// Non-zero when one of the eight bytes of `word` is `"`, `\` or below 0x20 (exact: no false
/// positive, no false negative, since the three tests are only combined for "any").
const fn escape_bits(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    // A byte below 0x20 (the test holds for bounds up to 0x80), then a zero byte after
    // XOR with each of the two characters.
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = (word ^ QUOTES).wrapping_sub(ONES) & !(word ^ QUOTES);
    let backslash = (word ^ BACKSLASHES).wrapping_sub(ONES) & !(word ^ BACKSLASHES);
    (control | quote | backslash) & HIGHS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serde(text: &str) -> String {
        serde_json::to_string(text).unwrap()
    }

    #[test]
    fn next_special_finds_the_first_quote_backslash_or_control_byte() {
        let alphabet = [b'a', b'"', b'\\', 0x1f, 0x20, 0x7f, 0x80, 0xff, b'!', 0x00];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for len in 0..100 {
            for _ in 0..10 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Mostly clean bytes, so that runs of every length occur.
                        if seed.is_multiple_of(8) {
                            alphabet[(seed >> 8) as usize % alphabet.len()]
                        } else {
                            b'a' + (seed >> 8) as u8 % 26
                        }
                    })
                    .collect();
                for from in 0..=len {
                    let first = (from..len)
                        .find(|&at| matches!(bytes[at], b'"' | b'\\' | 0x00..=0x1f))
                        .unwrap_or(len);
                    let found = next_special(&bytes, from);
                    assert!(
                        found <= first,
                        "{bytes:?} from {from}: {found} past {first}"
                    );
                    assert!(
                        found == first || found + 8 > len || found >= from + 64,
                        "{bytes:?} from {from}: stopped at clean byte {found}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_character_alone_and_among_others_is_written_as_serde_json_does() {
        let chars = (0u32..0x3000)
            .chain(0xd7f0..0xe010)
            .chain(0xfff0..0x10100)
            .chain(0x10_fff0..=0x10_ffff)
            .filter_map(char::from_u32);
        for c in chars {
            let alone = c.to_string();
            assert_eq!(json_string(&alone), serde(&alone), "{:#x}", u32::from(c));
            assert_eq!(json_string_len(&alone), serde(&alone).len());
            // At every offset of a word, with clean bytes around it.
            for before in 0..9 {
                let text = format!("{}{c}{}", "a".repeat(before), "é".repeat(5));
                assert_eq!(
                    json_string(&text),
                    serde(&text),
                    "{:#x} at {before}",
                    u32::from(c)
                );
                assert_eq!(json_string_len(&text), serde(&text).len());
            }
        }
    }

    #[test]
    fn long_mixed_texts_are_written_as_serde_json_does() {
        let pieces = [
            "abcdefgh", "\"", "\\", "\n", "\u{1}", "\u{1f}", " ", "\u{7f}", "é", "🦀",
        ];
        let mut text = String::new();
        let mut state = 12345u64;
        for _ in 0..5000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let index = usize::try_from(state >> 33).unwrap_or(0) % pieces.len();
            text.push_str(pieces[index]);
            if text.len().is_multiple_of(97) {
                assert_eq!(json_string(&text), serde(&text));
                assert_eq!(json_string_len(&text), serde(&text).len());
            }
        }
        assert_eq!(json_string(&text), serde(&text));
        assert_eq!(json_string(""), "\"\"");
        let mut bytes = Vec::new();
        write_json_string(&mut bytes, &text);
        assert_eq!(
            bytes,
            serde(&text).into_bytes(),
            "the byte sink writes the same"
        );
    }

    #[test]
    fn the_word_test_is_exact() {
        for byte in 0u8..=255 {
            for at in 0..8 {
                let mut word = [b'a'; 8];
                word[at] = byte;
                let expected = byte < 0x20 || byte == b'"' || byte == b'\\';
                let found = escape_bits(u64::from_le_bytes(word)) != 0;
                assert_eq!(found, expected, "{byte} at {at}");
            }
        }
    }
}
