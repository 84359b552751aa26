//! Memory when the client misbehaves (`--only memory`):
//! - **stalled reader**: the demo server answers `tools/call big` (1,000,000-byte texts) to a
//!   client that writes 200 requests and reads nothing for a while, then reads everything.
//!   Peak RSS is the server's `VmHWM`; every answer must then arrive, once, as a success.
//!   Run with the default limits (output budget `response.maxQueuedBytes` = 4 MiB) and, side
//!   by side, with the budget set to 1 GiB (in effect off: the queue is then bounded by
//!   message count alone), each *warm* (a few `big` answers read first, so the server knows
//!   their size) and *cold* (the stall starts with the first request).
//! - **flood**: 1,000,000 pipelined 16-byte `echo` requests (the stdio driver's pipelined
//!   mode); peak RSS.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use typed_mcp_bench::peak_rss_kib;

use crate::driver::{self, Era, Launcher, Mode, Workload};
use crate::servers::Server;

/// Requests written while the client reads nothing.
const STALLED_REQUESTS: u64 = 200;
/// The text each `big` call returns.
const BIG_BYTES: u64 = 1_000_000;
/// Answers read before the stall in the warm runs.
const WARM_ANSWERS: u64 = 4;
/// How long the client reads nothing.
const STALL: Duration = Duration::from_secs(3);

/// One stalled-reader run.
#[derive(Debug, Clone)]
pub(crate) struct StalledRun {
    /// The configuration's label.
    pub(crate) label: String,
    /// Peak RSS of the server, KiB, after everything was answered.
    pub(crate) peak_rss_kib: u64,
    /// Successful answers received (should be every request).
    pub(crate) answered: u64,
    /// Answers missing, repeated or failed.
    pub(crate) wrong: u64,
}

fn limits_file(dir: &Path, max_queued_bytes: Option<u64>) -> Result<PathBuf, String> {
    let path = dir.join(match max_queued_bytes {
        Some(bytes) => format!("bench-limits-{bytes}.json"),
        None => "bench-limits-default.json".to_owned(),
    });
    let text = match max_queued_bytes {
        Some(bytes) => format!(r#"{{"response":{{"maxQueuedBytes":{bytes}}}}}"#),
        None => "{}".to_owned(),
    };
    std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    Ok(path)
}

fn spawn(server: Server, limits: &Path) -> Result<Child, String> {
    let (binary, _) = server.command()?;
    Command::new(&binary)
        .arg("--limits")
        .arg(limits)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawning {}: {e}", binary.display()))
}

fn big_request(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"big","arguments":{{"bytes":{BIG_BYTES}}}}}}}"#
    ) + "\n"
}

const INITIALIZE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","#,
    r#""capabilities":{},"clientInfo":{"name":"typed-mcp-bench","version":"0.1.0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

/// The integer id of an answer line and whether it is a success, by a byte scan.
fn answer(line: &str) -> Option<(u64, bool)> {
    let at = line.find(r#""id":"#)? + 5;
    let digits: String = line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let ok = !line.contains(r#""error":{"#) && !line.contains(r#""isError":true"#);
    Some((digits.parse().ok()?, ok))
}

/// One stalled-reader run against a fresh server.
pub(crate) fn stalled(
    server: Server,
    label: &str,
    max_queued_bytes: Option<u64>,
    warm: bool,
) -> Result<StalledRun, String> {
    let dir = std::env::temp_dir();
    let limits = limits_file(&dir, max_queued_bytes)?;
    let mut child = spawn(server, &limits)?;
    let pid = child.id();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut reader = BufReader::with_capacity(1 << 20, child.stdout.take().ok_or("no stdout")?);
    let io = |e: std::io::Error| format!("pipe: {e}");
    let mut line = String::new();
    stdin.write_all(INITIALIZE.as_bytes()).map_err(io)?;
    stdin.flush().map_err(io)?;
    reader.read_line(&mut line).map_err(io)?;
    let mut first = 1;
    if warm {
        for id in 1..=WARM_ANSWERS {
            stdin.write_all(big_request(id).as_bytes()).map_err(io)?;
            stdin.flush().map_err(io)?;
            line.clear();
            reader.read_line(&mut line).map_err(io)?;
            if answer(&line) != Some((id, true)) {
                return Err(format!("warm-up request {id} failed"));
            }
        }
        first = WARM_ANSWERS + 1;
    }
    let last = first + STALLED_REQUESTS;
    let writer = thread::spawn(move || -> Result<std::process::ChildStdin, String> {
        for id in first..last {
            stdin
                .write_all(big_request(id).as_bytes())
                .map_err(|e| format!("writing request {id}: {e}"))?;
            stdin.flush().map_err(|e| format!("flushing: {e}"))?;
        }
        Ok(stdin)
    });
    thread::sleep(STALL);
    let mut seen = vec![0u32; STALLED_REQUESTS as usize];
    let mut wrong = 0;
    let started = Instant::now();
    for _ in first..last {
        line.clear();
        if reader.read_line(&mut line).map_err(io)? == 0 {
            break;
        }
        match answer(&line) {
            Some((id, true)) if (first..last).contains(&id) => seen[(id - first) as usize] += 1,
            _ => wrong += 1,
        }
        if started.elapsed() > Duration::from_secs(120) {
            return Err("answers stopped coming".to_owned());
        }
    }
    let peak = peak_rss_kib(pid).map_err(|e| e.to_string())?;
    let stdin = writer.join().map_err(|_| "writer panicked")??;
    drop(stdin);
    let status = child.wait().map_err(|e| format!("waiting: {e}"))?;
    if !status.success() {
        return Err(format!("the server exited with {status}"));
    }
    let answered = seen.iter().filter(|&&n| n == 1).count() as u64;
    wrong += seen.iter().filter(|&&n| n != 1).count() as u64;
    Ok(StalledRun {
        label: label.to_owned(),
        peak_rss_kib: peak,
        answered,
        wrong,
    })
}

/// Every stalled-reader configuration, then the flood; prints the tables. Returns whether
/// something failed.
pub(crate) fn run_all() -> bool {
    let mut failed = false;
    println!("### Memory: a client that stops reading (`tools/call big`, {BIG_BYTES}-byte texts, {STALLED_REQUESTS} requests, {} s without reading)\n", STALL.as_secs());
    println!("| server configuration | start | peak RSS | answered once, as a success | missing, repeated or failed |");
    println!("|---|---|---|---|---|");
    let mut configurations = vec![
        (
            Server::Typed,
            "typed-mcp, default limits (maxQueuedBytes 4 MiB)",
            None,
        ),
        (
            Server::Typed,
            "typed-mcp, maxQueuedBytes 1 GiB (budget off)",
            Some(1 << 30),
        ),
    ];
    if let Some(baseline) = Server::baseline() {
        configurations.push((baseline, "typed-mcp (baseline), default limits", None));
    }
    for warm in [true, false] {
        for &(server, label, bytes) in &configurations {
            match stalled(server, label, bytes, warm) {
                Ok(run) => {
                    failed |= run.wrong > 0 || run.answered != STALLED_REQUESTS;
                    println!(
                        "| {} | {} | {:.1} MB | {} | {} |",
                        run.label,
                        if warm { "warm" } else { "cold" },
                        run.peak_rss_kib as f64 / 1024.0,
                        run.answered,
                        run.wrong
                    );
                }
                Err(message) => {
                    failed = true;
                    println!(
                        "| {label} | {} | failed: {message} | | |",
                        if warm { "warm" } else { "cold" }
                    );
                }
            }
        }
    }
    println!();
    let flood = Workload {
        era: Era::Legacy,
        mode: Mode::Pipelined,
        payload: 16,
        requests: 1_000_000,
    };
    println!("### Memory: a pipelined flood of 1,000,000 16-byte `echo` requests\n");
    println!("| server | peak RSS | req/s |");
    println!("|---|---|---|");
    for server in [Some(Server::Typed), Server::baseline(), Some(Server::Floor)]
        .into_iter()
        .flatten()
    {
        match driver::run(&Launcher::default(), server, flood) {
            Ok(measured) => println!(
                "| {} | {:.1} MB | {:.0} |",
                server.name(),
                measured.peak_rss_kib as f64 / 1024.0,
                measured.per_second
            ),
            Err(message) => {
                failed = true;
                println!("| {} | failed: {message} | |", server.name());
            }
        }
    }
    println!();
    failed
}
