//! Reading newline-delimited frames from any `AsyncRead`.

use tokio::io::{AsyncRead, AsyncReadExt};

use super::{FramingError, LineBuffer, LineDecoder, DEFAULT_MAX_LINE_BYTES};

/// Bytes asked for per read by default.
pub const DEFAULT_READ_CHUNK_BYTES: usize = 64 * 1024;

/// Reads newline-delimited frames from an [`AsyncRead`] with bounded memory.
///
/// Frames are handed out as slices of the internal buffer (no copy); each is valid until the
/// next call. The buffer never holds more than the line limit + 2 bytes (a `\r\n`) + one read
/// chunk, however long the lines the peer sends. See [`LineDecoder`] for the line rules.
///
/// # Examples
///
/// ```
/// use typed_mcp::framing::{FrameReader, FramingError};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let input: &[u8] = b"{\"a\":1}\r\n\n  \n0123456789\nlast";
/// let mut reader = FrameReader::new(input).with_max_line_bytes(8);
/// assert_eq!(reader.next_frame().await.unwrap().unwrap(), b"{\"a\":1}");
/// assert!(matches!(
///     reader.next_frame().await.unwrap(),
///     Err(FramingError::LineTooLong { limit: 8, actual_at_least: 10 })
/// ));
/// assert_eq!(reader.next_frame().await.unwrap().unwrap(), b"last");
/// assert!(reader.next_frame().await.is_none());
/// # });
/// ```
pub struct FrameReader<R> {
    /// The input stream.
    input: R,
    /// Bytes read but not yet returned as frames.
    buffer: LineBuffer,
    /// Line splitting and the length bound.
    decoder: LineDecoder,
    /// Bytes asked for per read.
    chunk_bytes: usize,
    /// Where the reader is in the input's life.
    state: State,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// The input may have more bytes.
    Reading,
    /// The input ended; remaining buffered bytes are still to be returned.
    Ended,
    /// Everything was returned (or reading failed).
    Done,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    /// A reader with the default line limit ([`DEFAULT_MAX_LINE_BYTES`], 16 MiB) and read size.
    #[must_use]
    pub fn new(input: R) -> Self {
        Self {
            input,
            buffer: LineBuffer::new(),
            decoder: LineDecoder::with_max_length(DEFAULT_MAX_LINE_BYTES),
            chunk_bytes: DEFAULT_READ_CHUNK_BYTES,
            state: State::Reading,
        }
    }

    /// Sets the longest accepted line in bytes, not counting `\r\n` / `\n` (from the
    /// `request.maxLineBytes` limit).
    #[must_use]
    pub fn with_max_line_bytes(mut self, max_line_bytes: usize) -> Self {
        self.decoder = LineDecoder::with_max_length(max_line_bytes);
        self
    }

    /// Sets how many bytes are asked for per read (at least 1).
    #[must_use]
    pub fn with_read_chunk_bytes(mut self, chunk_bytes: usize) -> Self {
        self.chunk_bytes = chunk_bytes.max(1);
        self
    }

    /// The longest accepted line, in bytes.
    #[must_use]
    pub fn max_line_bytes(&self) -> usize {
        self.decoder.max_length()
    }

    /// Bytes currently allocated for the input buffer.
    #[must_use]
    pub fn buffer_allocated(&self) -> usize {
        self.buffer.allocated()
    }

    /// The upper bound on [`buffer_allocated`](Self::buffer_allocated).
    #[must_use]
    pub fn buffer_bound(&self) -> usize {
        self.max_line_bytes()
            .saturating_add(2)
            .saturating_add(self.chunk_bytes)
    }

    /// The next frame (a line without its terminator, never blank), an error for an oversize
    /// line or a failed read, or `None` once the input has ended and every line was returned.
    ///
    /// After [`FramingError::LineTooLong`], reading continues with the next line; after
    /// [`FramingError::Io`], the reader is finished. Cancel-safe: dropping the future loses no
    /// input.
    pub async fn next_frame(&mut self) -> Option<Result<&[u8], FramingError>> {
        loop {
            let decoded = match self.state {
                State::Done => return None,
                State::Reading => self.decoder.decode_range(&mut self.buffer),
                State::Ended => self.decoder.decode_eof_range(&mut self.buffer),
            };
            match decoded {
                Ok(Some(range)) => return Some(Ok(self.buffer.slice(range))),
                Err(error) => return Some(Err(error)),
                Ok(None) if self.state == State::Ended => {
                    self.state = State::Done;
                    return None;
                }
                Ok(None) => {}
            }
            let bound = self.buffer_bound();
            let room = self.buffer.make_read_room(self.chunk_bytes, bound);
            match self.input.read(room).await {
                Ok(0) => {
                    tracing::trace!("input ended");
                    self.state = State::Ended;
                }
                Ok(count) => {
                    tracing::trace!(bytes = count, "read input");
                    self.buffer.commit(count);
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    tracing::error!(%error, "reading input failed");
                    self.state = State::Done;
                    return Some(Err(FramingError::Io(error)));
                }
            }
        }
    }

    /// Gives back the input stream; buffered bytes are dropped.
    pub fn into_inner(self) -> R {
        self.input
    }
}
