//! The floor of the stdio benchmarks: a blocking loop that parses each line into
//! `serde_json::Value` and writes a fixed-shape reply (the request's id and the echoed
//! `params.arguments.text` in a template), flushing whenever no more input is buffered.
//! No validation, no dispatch, no handshake logic (every request gets the same shape of
//! answer): the least any JSON-RPC server over stdio can do. Notifications (no id) are not
//! answered. Exits at end of input.
//!
//! `floor_echo structured` writes the answer typed-mcp's `echo` gives instead: the text
//! twice, in its text block and in `structuredContent` (`{"ok":true,"data":TEXT}`; the
//! `meta` typed-mcp adds is left out). It is the same floor for an answer of that size, the
//! yardstick of what typed-mcp's wire contract costs by itself at 64 KiB.
//!
//! `floor_echo tokio` is the same loop (plain answer) on a tokio multi-thread runtime, reading
//! and writing stdin/stdout as non-blocking pipes from a task on a worker, as typed-mcp's
//! `serve_stdio` and rmcp's `stdio_pipes()` do: the least a server on that runtime spends per
//! request, its wake-ups included (`scripts/sequential_cpu.py`, BENCHMARKS.md "Issue 12,
//! stop 26"); the harness's `floor-tokio` row. Its stdin and stdout must be pipes.
//!
//! In every mode, stdin and stdout are enlarged first when they are pipes (Linux), to the
//! size typed-mcp's `stdio()` asks for: the kernel's share of a 64 KiB call then stays a floor
//! for ours (BENCHMARKS.md, "Issue 12, stop 27").

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::ExitCode;

use serde_json::Value;

fn write_reply(
    output: &mut impl Write,
    id: &Value,
    text: &str,
    structured: bool,
) -> std::io::Result<()> {
    output.write_all(br#"{"jsonrpc":"2.0","id":"#)?;
    serde_json::to_writer(&mut *output, id)?;
    output.write_all(br#","result":{"content":[{"type":"text","text":"#)?;
    serde_json::to_writer(&mut *output, text)?;
    if structured {
        output.write_all(br#"}],"structuredContent":{"ok":true,"data":"#)?;
        serde_json::to_writer(&mut *output, text)?;
        return output.write_all(b"}}}\n");
    }
    output.write_all(b"}]}}\n")
}

/// Parses one line and writes its reply (none for a notification or a line that is not JSON).
fn answer(line: &[u8], output: &mut impl Write, structured: bool) -> std::io::Result<()> {
    if let Ok(request) = serde_json::from_slice::<Value>(line) {
        if let Some(id) = request.get("id") {
            let text = request
                .pointer("/params/arguments/text")
                .and_then(Value::as_str)
                .unwrap_or("");
            write_reply(output, id, text, structured)?;
        }
    }
    Ok(())
}

fn serve(structured: bool) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut output = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = Vec::with_capacity(1 << 16);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        answer(&line, &mut output, structured)?;
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}

/// [`serve`]'s loop on a tokio multi-thread runtime over non-blocking pipes.
fn serve_on_tokio() -> std::io::Result<()> {
    use std::os::fd::AsFd;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::unix::pipe;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let stdin = std::io::stdin().as_fd().try_clone_to_owned()?;
    let stdout = std::io::stdout().as_fd().try_clone_to_owned()?;
    runtime.block_on(async move {
        let task = tokio::spawn(async move {
            let mut input = pipe::Receiver::from_file(std::fs::File::from(stdin))?;
            let mut output = pipe::Sender::from_file(std::fs::File::from(stdout))?;
            let mut buffer = vec![0_u8; 1 << 16];
            let mut filled = 0;
            let mut answers = Vec::with_capacity(1 << 16);
            loop {
                if filled == buffer.len() {
                    buffer.resize(buffer.len() * 2, 0);
                }
                let read = input.read(&mut buffer[filled..]).await?;
                if read == 0 {
                    return Ok(());
                }
                filled += read;
                let mut start = 0;
                while let Some(end) = buffer[start..filled].iter().position(|&b| b == b'\n') {
                    answer(&buffer[start..start + end], &mut answers, false)?;
                    start += end + 1;
                }
                buffer.copy_within(start..filled, 0);
                filled -= start;
                if !answers.is_empty() {
                    output.write_all(&answers).await?;
                    answers.clear();
                }
            }
        });
        task.await.map_err(std::io::Error::other)?
    })
}

/// Asks for pipes of typed-mcp's size (`typed_mcp::framing::PIPE_BYTES`) on stdin and stdout
/// (nothing happens for files, terminals, or where the kernel refuses).
#[cfg(target_os = "linux")]
fn enlarge_pipes() {
    use std::os::fd::AsRawFd;
    let bytes = libc::c_int::try_from(typed_mcp::framing::PIPE_BYTES).unwrap_or(libc::c_int::MAX);
    for fd in [std::io::stdin().as_raw_fd(), std::io::stdout().as_raw_fd()] {
        // SAFETY: `F_SETPIPE_SZ` takes an `int` and touches no memory of this process.
        let _capacity: libc::c_int = unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, bytes) };
    }
}

#[cfg(not(target_os = "linux"))]
fn enlarge_pipes() {}

fn main() -> ExitCode {
    enlarge_pipes();
    let served = match std::env::args().nth(1).as_deref() {
        None => serve(false),
        Some("structured") => serve(true),
        Some("tokio") => serve_on_tokio(),
        Some(_) => {
            eprintln!("usage: floor_echo [structured|tokio]");
            return ExitCode::from(2);
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("floor_echo: {error}");
            ExitCode::FAILURE
        }
    }
}
