//! A string kept inline when it is short: the paths and echoed strings of validation errors
//! are usually a few bytes, and a validator reporting many violations should not pay an
//! allocation for each.

use std::fmt;

/// Bytes held without allocating.
pub(crate) const INLINE: usize = 22;

/// An immutable string, inline up to 22 bytes, on the heap beyond (24 bytes in all).
#[doc(hidden)]
#[derive(Clone)]
pub struct ShortText(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

impl ShortText {
    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                let bytes = &bytes[..usize::from(*len)];
                // Only ever filled from whole `&str`s (see `TextBuilder::push`).
                std::str::from_utf8(bytes).unwrap_or_default()
            }
            Repr::Heap(text) => text,
        }
    }
}

impl ShortText {
    /// The text of `bytes`, which must be UTF-8 (an invalid text reads as empty).
    #[inline]
    pub(crate) fn from_utf8_bytes(bytes: &[u8]) -> Self {
        if bytes.len() <= INLINE {
            let mut copy = [0u8; INLINE];
            copy[..bytes.len()].copy_from_slice(bytes);
            ShortText(Repr::Inline {
                // At most INLINE (22), so it fits.
                len: bytes.len() as u8,
                bytes: copy,
            })
        } else {
            ShortText::from(std::str::from_utf8(bytes).unwrap_or_default())
        }
    }
}

impl ShortText {
    /// The empty text.
    pub(crate) const EMPTY: ShortText = ShortText(Repr::Inline {
        len: 0,
        bytes: [0; INLINE],
    });

    /// Makes the text `len` zero bytes held inline (at most [`INLINE`]) and returns them to
    /// be overwritten, with whole `&str`s only (an invalid text reads as empty).
    pub(crate) fn inline_room(&mut self, len: usize) -> &mut [u8] {
        let len = len.min(INLINE);
        *self = ShortText(Repr::Inline {
            // At most INLINE (22), so it fits.
            len: len as u8,
            bytes: [0; INLINE],
        });
        match &mut self.0 {
            Repr::Inline { bytes, .. } => &mut bytes[..len],
            Repr::Heap(_) => &mut [],
        }
    }
}

impl From<&str> for ShortText {
    fn from(text: &str) -> Self {
        let mut builder = TextBuilder::new();
        builder.push(text);
        builder.finish()
    }
}

impl fmt::Debug for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// Builds a [`ShortText`] piece by piece, on the stack until it outgrows the inline room.
pub(crate) struct TextBuilder {
    len: usize,
    bytes: [u8; INLINE],
    heap: Option<String>,
}

impl TextBuilder {
    /// An empty text.
    #[inline]
    pub(crate) fn new() -> Self {
        Self {
            len: 0,
            bytes: [0; INLINE],
            heap: None,
        }
    }

    /// Appends `text`.
    #[inline]
    pub(crate) fn push(&mut self, text: &str) {
        let end = self.len + text.len();
        if end <= INLINE && self.heap.is_none() {
            self.bytes[self.len..end].copy_from_slice(text.as_bytes());
            self.len = end;
        } else {
            self.push_heap(text);
        }
    }

    #[cold]
    fn push_heap(&mut self, text: &str) {
        match &mut self.heap {
            Some(heap) => heap.push_str(text),
            None => {
                let mut heap = String::with_capacity(2 * (self.len + text.len()));
                heap.push_str(self.inline());
                heap.push_str(text);
                self.heap = Some(heap);
            }
        }
    }

    /// Appends the decimal digits of `n`.
    pub(crate) fn push_index(&mut self, mut n: usize) {
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        loop {
            start -= 1;
            digits[start] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        // ASCII digits.
        self.push(std::str::from_utf8(&digits[start..]).unwrap_or_default());
    }

    fn inline(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }

    /// The text built.
    #[inline]
    pub(crate) fn finish(self) -> ShortText {
        match self.heap {
            Some(heap) => ShortText(Repr::Heap(heap.into_boxed_str())),
            None => ShortText(Repr::Inline {
                // At most INLINE (22), so it fits.
                len: self.len as u8,
                bytes: self.bytes,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_texts_read_back_as_written() {
        for text in [
            "",
            "/a",
            "/ünïcödé/ключ",
            &"x".repeat(INLINE),
            &"y".repeat(INLINE + 1),
            &"é".repeat(40),
        ] {
            assert_eq!(ShortText::from(text).as_str(), text);
        }
    }

    #[test]
    fn pieces_crossing_the_inline_room_keep_their_order() {
        let mut builder = TextBuilder::new();
        let mut expected = String::new();
        for i in 0..40 {
            builder.push("/k");
            builder.push_index(i * 997);
            expected.push_str(&format!("/k{}", i * 997));
            assert_eq!(
                {
                    let mut copy = TextBuilder::new();
                    copy.push(&expected);
                    copy.finish().as_str().to_owned()
                },
                expected
            );
        }
        assert_eq!(builder.finish().as_str(), expected);
        let mut zero = TextBuilder::new();
        zero.push_index(0);
        zero.push_index(usize::MAX);
        assert_eq!(zero.finish().as_str(), format!("0{}", usize::MAX));
    }
}
