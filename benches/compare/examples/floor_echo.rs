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

fn serve(structured: bool) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut output = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = Vec::with_capacity(1 << 16);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if let Ok(request) = serde_json::from_slice::<Value>(&line) {
            if let Some(id) = request.get("id") {
                let text = request
                    .pointer("/params/arguments/text")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                write_reply(&mut output, id, text, structured)?;
            }
        }
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}

fn main() -> ExitCode {
    let structured = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("structured") => true,
        Some(_) => {
            eprintln!("usage: floor_echo [structured]");
            return ExitCode::from(2);
        }
    };
    match serve(structured) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("floor_echo: {error}");
            ExitCode::FAILURE
        }
    }
}
