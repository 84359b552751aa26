//! The process's stdin and stdout as async streams.
//!
//! `tokio::io::stdin()`/`stdout()` perform every read and write on tokio's blocking pool:
//! each request costs thread hand-offs (measured in `BENCHMARKS.md`: ~47 µs of a 57 µs
//! sequential round trip). When stdin and stdout are pipes — the usual case for an MCP
//! server spawned by its client — [`stdio`] instead drives them from the reactor as
//! non-blocking FIFOs. Anything else (a terminal, a file) falls back to tokio's streams.
//!
//! Setting a pipe non-blocking changes its open file description, which the process that
//! holds the same description would also see; a client spawning us with fresh pipes (as
//! every MCP client does) holds the other ends, so nothing else is affected.

use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

/// An async reader of this process's stdin.
pub type StdinReader = Pin<Box<dyn AsyncRead + Send>>;
/// An async writer of this process's stdout.
pub type StdoutWriter = Pin<Box<dyn AsyncWrite + Send>>;

/// Which implementation [`stdio`] chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StdioKind {
    /// Both are pipes, driven by the reactor without blocking threads.
    Pipes,
    /// tokio's blocking-pool streams (stdin or stdout is not a pipe).
    Blocking,
}

/// This process's stdin and stdout, as non-blocking pipes when they are pipes.
#[must_use]
pub fn stdio() -> (StdinReader, StdoutWriter, StdioKind) {
    #[cfg(unix)]
    match pipes() {
        Ok((input, output)) => return (Box::pin(input), Box::pin(output), StdioKind::Pipes),
        Err(error) => tracing::debug!(%error, "stdin/stdout are not both pipes: blocking streams"),
    }
    (
        Box::pin(tokio::io::stdin()),
        Box::pin(tokio::io::stdout()),
        StdioKind::Blocking,
    )
}

#[cfg(unix)]
fn pipes() -> std::io::Result<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    use tokio::net::unix::pipe;

    let input = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let output = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
    // Both checks happen before either end is made non-blocking.
    if !is_fifo(&input)? || !is_fifo(&output)? {
        return Err(std::io::Error::other("not a FIFO"));
    }
    Ok((
        pipe::Receiver::from_file(input)?,
        pipe::Sender::from_file(output)?,
    ))
}

#[cfg(unix)]
fn is_fifo(file: &std::fs::File) -> std::io::Result<bool> {
    use std::os::unix::fs::FileTypeExt;
    Ok(file.metadata()?.file_type().is_fifo())
}
