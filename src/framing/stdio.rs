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
//!
//! On Linux, [`stdio`] also asks the kernel to hold up to [`PIPE_BYTES`] in each pipe
//! (`F_SETPIPE_SZ`; a pipe already larger is left as it is). With the default 64 KiB, a
//! 64 KiB request arrives in pieces and a 128 KiB answer leaves in pieces, each piece one
//! more wait for the client to catch up (measured in `BENCHMARKS.md`, "Issue 12, stop 27").
//! The capacity is the pipe's, so the client's ends see it too; the kernel takes its pages
//! only as data is written. Where the kernel refuses (`/proc/sys/fs/pipe-max-size` is
//! lower, or the user's pipe quota is spent) the pipe keeps its size.

use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

/// An async reader of this process's stdin.
pub type StdinReader = Pin<Box<dyn AsyncRead + Send>>;
/// An async writer of this process's stdout.
pub type StdoutWriter = Pin<Box<dyn AsyncWrite + Send>>;

/// The capacity [`stdio`] asks for each of its pipes, in bytes (Linux only): 256 KiB.
///
/// A call with a 64 KiB text then fits both ways (its request, and its answer, which carries
/// the text twice); 1 MiB measured no faster. It also keeps a user's pipes far from the
/// kernel's per-user soft limit (`/proc/sys/fs/pipe-user-pages-soft`, 64 MiB by default),
/// beyond which every new pipe of that user gets 8 KiB: that would take 128 servers at
/// this size, against 32 at 1 MiB.
pub const PIPE_BYTES: usize = 256 * 1024;

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
    #[cfg(target_os = "linux")]
    for (name, pipe) in [("stdin", input.as_fd()), ("stdout", output.as_fd())] {
        if let Err(error) = enlarge_pipe(pipe, PIPE_BYTES) {
            tracing::debug!(%error, pipe = name, "the pipe keeps its size");
        }
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

/// Makes the pipe `pipe` hold at least `bytes` (never less than it holds now) and returns
/// its capacity.
#[cfg(target_os = "linux")]
fn enlarge_pipe(pipe: std::os::fd::BorrowedFd<'_>, bytes: usize) -> std::io::Result<usize> {
    use std::os::fd::AsRawFd;

    let wanted = libc::c_int::try_from(bytes).unwrap_or(libc::c_int::MAX);
    // SAFETY: `F_GETPIPE_SZ` takes no argument and `F_SETPIPE_SZ` an `int`; neither reads or
    // writes memory of this process, and `pipe` is an open descriptor for the whole call.
    let now = unsafe { libc::fcntl(pipe.as_raw_fd(), libc::F_GETPIPE_SZ) };
    if now < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if now >= wanted {
        return Ok(usize::try_from(now).unwrap_or(0));
    }
    // SAFETY: as above.
    let set = unsafe { libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, wanted) };
    if set < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(usize::try_from(set).unwrap_or(0))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::os::fd::AsFd;

    use super::enlarge_pipe;

    #[tokio::test]
    async fn a_pipe_grows_and_never_shrinks() {
        let (sender, receiver) = tokio::net::unix::pipe::pipe().unwrap();
        let default = enlarge_pipe(sender.as_fd(), 0).unwrap();
        assert!(default > 0, "a pipe has a capacity");
        let grown = enlarge_pipe(sender.as_fd(), default * 2).unwrap();
        assert_eq!(grown, default * 2);
        // Both ends are the same pipe.
        assert_eq!(enlarge_pipe(receiver.as_fd(), 0).unwrap(), default * 2);
        // Asking for less than it holds changes nothing.
        assert_eq!(enlarge_pipe(sender.as_fd(), default).unwrap(), default * 2);
    }

    #[test]
    fn a_file_that_is_no_pipe_is_an_error() {
        let file = std::fs::File::open("/dev/null").unwrap();
        assert!(enlarge_pipe(file.as_fd(), 1 << 20).is_err());
    }
}
