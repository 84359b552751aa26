//! Splitting buffered bytes into lines, with a bound on line length.

use std::ops::Range;

use super::{FramingError, LineBuffer, DEFAULT_MAX_LINE_BYTES};

/// Splits a [`LineBuffer`] into newline-delimited frames, like a lines codec with a maximum
/// length.
///
/// - A frame ends at `\n`; a `\r` just before it is dropped, so `\r\n` works too.
/// - Frames that are empty or hold only spaces, tabs and `\r` are skipped.
/// - A line longer than the limit (not counting its `\r\n` / `\n`) yields exactly one
///   [`FramingError::LineTooLong`]; the rest of that line is then discarded as it arrives, and
///   decoding resumes with the next line. The error is reported as soon as the line is known
///   to be too long, so a peer sending an endless line gets an answer and cannot make the
///   buffer grow: an unbounded line length would let any peer exhaust memory.
/// - [`decode_eof`](Self::decode_eof) also yields a last line that has no `\n`.
#[derive(Clone, Debug)]
pub struct LineDecoder {
    /// How many unconsumed bytes were already searched for `\n` without finding one, so a
    /// line arriving in many small reads is scanned only once.
    next_index: usize,
    /// The longest accepted line in bytes, not counting its terminator.
    max_length: usize,
    /// Set after an oversize line was reported and until its `\n` has been discarded.
    is_discarding: bool,
}

impl Default for LineDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl LineDecoder {
    /// A decoder with the default limit, [`DEFAULT_MAX_LINE_BYTES`] (16 MiB).
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_length(DEFAULT_MAX_LINE_BYTES)
    }

    /// A decoder accepting lines of at most `max_length` bytes (not counting `\r\n` / `\n`).
    #[must_use]
    pub fn with_max_length(max_length: usize) -> Self {
        Self {
            next_index: 0,
            max_length,
            is_discarding: false,
        }
    }

    /// The longest accepted line, in bytes.
    #[must_use]
    pub fn max_length(&self) -> usize {
        self.max_length
    }

    /// Takes the next complete, non-blank line out of `buf`, without its terminator.
    ///
    /// Returns `Ok(None)` when `buf` holds no complete line yet (bytes of an oversize line
    /// being discarded are dropped from `buf` right away).
    ///
    /// # Errors
    ///
    /// [`FramingError::LineTooLong`], once per oversize line. Calling `decode` again continues
    /// after that line.
    pub fn decode<'b>(
        &mut self,
        buf: &'b mut LineBuffer,
    ) -> Result<Option<&'b [u8]>, FramingError> {
        let range = self.decode_range(buf)?;
        Ok(range.map(|range| buf.slice(range)))
    }

    /// Like [`decode`](Self::decode), for when the input has ended: after the complete lines,
    /// yields the remaining bytes as a last line (if not blank), then `Ok(None)`.
    ///
    /// # Errors
    ///
    /// [`FramingError::LineTooLong`], once per oversize line.
    pub fn decode_eof<'b>(
        &mut self,
        buf: &'b mut LineBuffer,
    ) -> Result<Option<&'b [u8]>, FramingError> {
        let range = self.decode_eof_range(buf)?;
        Ok(range.map(|range| buf.slice(range)))
    }

    /// [`decode`](Self::decode), returning the line's position in the buffer's storage.
    pub(crate) fn decode_range(
        &mut self,
        buf: &mut LineBuffer,
    ) -> Result<Option<Range<usize>>, FramingError> {
        loop {
            let bytes = buf.as_bytes();
            if self.is_discarding {
                match find_newline(bytes) {
                    Some(newline) => {
                        buf.consume(newline + 1);
                        self.is_discarding = false;
                        continue;
                    }
                    None => {
                        buf.consume(bytes.len());
                        return Ok(None);
                    }
                }
            }
            let Some(found) = find_newline(&bytes[self.next_index..]) else {
                // A line of `max_length` bytes plus `\r` may still be waiting for its `\n`.
                if bytes.len() > self.max_length.saturating_add(1) {
                    let actual_at_least = bytes.len() - usize::from(bytes.ends_with(b"\r"));
                    buf.consume(bytes.len());
                    self.next_index = 0;
                    self.is_discarding = true;
                    return Err(self.too_long(actual_at_least));
                }
                self.next_index = bytes.len();
                return Ok(None);
            };
            let newline = self.next_index + found;
            self.next_index = 0;
            let line_len = newline - usize::from(newline > 0 && bytes[newline - 1] == b'\r');
            if line_len > self.max_length {
                buf.consume(newline + 1);
                return Err(self.too_long(line_len));
            }
            let blank = is_blank(&bytes[..line_len]);
            let start = buf.start();
            buf.consume(newline + 1);
            if !blank {
                return Ok(Some(start..start + line_len));
            }
        }
    }

    /// [`decode_eof`](Self::decode_eof), returning the line's position in the buffer's storage.
    pub(crate) fn decode_eof_range(
        &mut self,
        buf: &mut LineBuffer,
    ) -> Result<Option<Range<usize>>, FramingError> {
        if let Some(range) = self.decode_range(buf)? {
            return Ok(Some(range));
        }
        // `decode_range` left no `\n` and, if discarding, nothing at all.
        self.is_discarding = false;
        self.next_index = 0;
        let bytes = buf.as_bytes();
        let line_len = bytes.len() - usize::from(bytes.ends_with(b"\r"));
        let blank = line_len > self.max_length || is_blank(&bytes[..line_len]);
        let start = buf.start();
        buf.consume(bytes.len());
        if line_len > self.max_length {
            return Err(self.too_long(line_len));
        }
        Ok((!blank).then_some(start..start + line_len))
    }

    fn too_long(&self, actual_at_least: usize) -> FramingError {
        FramingError::LineTooLong {
            limit: self.max_length,
            actual_at_least,
        }
    }
}

fn find_newline(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', bytes)
}

/// Whether a line holds nothing but spaces, tabs and carriage returns.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}
