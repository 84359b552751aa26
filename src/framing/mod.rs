//! Newline-delimited framing: a bounded line reader and a single-owner line writer.
//!
//! - [`FrameReader`] splits any [`tokio::io::AsyncRead`] into lines with a length limit
//!   (default [`DEFAULT_MAX_LINE_BYTES`]); an oversize line becomes one
//!   [`FramingError::LineTooLong`] and reading goes on. [`LineDecoder`] is the same logic over
//!   a [`LineBuffer`] filled by hand.
//! - [`spawn_writer`] starts the one task that owns the output; everything else sends
//!   through a [`WriterHandle`], so messages never interleave.
//! - [`stdio()`] gives this process's stdin/stdout, as non-blocking pipes when they are pipes.

mod budget;
mod buffer;
mod decoder;
mod lazy_queue;
mod reader;
mod stdio;
mod writer;

use std::borrow::Cow;

use serde_json::value::RawValue;

use crate::jsonrpc::{ErrorCode, ErrorObject, Response};

pub use budget::DEFAULT_MAX_QUEUED_BYTES;
pub(crate) use budget::{OutputBudget, Reservation};
pub use buffer::LineBuffer;
pub use decoder::LineDecoder;
pub use reader::{FrameReader, DEFAULT_READ_CHUNK_BYTES};
pub use stdio::{stdio, StdinReader, StdioKind, StdoutWriter, PIPE_BYTES};
pub(crate) use writer::spawn_budgeted_writer;
pub use writer::{
    message_channel, spawn_writer, MessageReceiver, Outbound, WriterHandle, WriterTask,
    DEFAULT_WRITER_QUEUE,
};

/// Default longest accepted line: 16 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Errors of the framing layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FramingError {
    /// A line exceeded the length limit. It is reported once, and discarded.
    #[error("line of at least {actual_at_least} bytes exceeds the limit of {limit} bytes")]
    LineTooLong {
        /// The limit, in bytes.
        limit: usize,
        /// How many bytes of the line had arrived when it was reported (its whole length if
        /// it was complete by then), not counting the line terminator.
        actual_at_least: usize,
    },
    /// Reading the input or writing the output failed.
    #[error("I/O error")]
    Io(#[from] std::io::Error),
    /// The writer task no longer accepts messages (it was shut down or failed).
    #[error("the writer has stopped")]
    WriterClosed,
    /// The writer task panicked or was cancelled.
    #[error("the writer task panicked or was cancelled")]
    WriterTaskFailed,
}

impl FramingError {
    /// The error response that answers this error, if any: for
    /// [`LineTooLong`](Self::LineTooLong), `-32600` with `id: null` and
    /// `data: {"limit": .., "actualAtLeast": ..}`.
    #[must_use]
    pub fn to_error_response(&self) -> Option<Response<'static>> {
        let Self::LineTooLong {
            limit,
            actual_at_least,
        } = self
        else {
            return None;
        };
        let data = format!(r#"{{"limit":{limit},"actualAtLeast":{actual_at_least}}}"#);
        let data = RawValue::from_string(data).ok()?;
        let error = ErrorObject::new(ErrorCode::INVALID_REQUEST, Cow::Owned(self.to_string()))
            .with_data(Cow::Owned(data));
        Some(Response::error(None, error))
    }
}
