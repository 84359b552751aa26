//! The client side of the stdio benchmarks: spawns a server binary,
//! performs the legacy handshake (`initialize` at 2025-11-25, then
//! `notifications/initialized`; every server under test speaks it), warms up, then sends
//! `tools/call echo` requests, identical bytes for every server.
//!
//! In the 2026-07-28 era ([`Era::Modern`]) every request carries the `_meta` that era
//! requires (version, client capabilities, client identity), written as typed-mcp's own
//! client writes it (members in key order: `_meta`, `arguments`, `name`). typed-mcp and
//! rmcp get no handshake (the era is stateless; rmcp 3.9 serves a first request carrying
//! that `_meta` without one); the floors speak no protocol, so they get the legacy
//! handshake and then the same request bytes (they parse the larger `_meta` and ignore it).
//!
//! - **Sequential**: one request, wait for its answer, the next.
//! - **Pipelined**: one thread writes every request as fast as the pipe takes them while
//!   this thread reads the answers, so neither side can block the other; latency is from
//!   the moment a request was handed to the writer to the moment its answer was read, so it
//!   includes queueing.
//!
//! Server CPU is the difference of the child's per-thread on-CPU time (`schedstat`) across
//! the measured requests; peak RSS is its `VmHWM` after them. A watchdog kills the child if
//! a run exceeds its deadline, which turns a hang into an error instead of a stuck bench.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use typed_mcp_bench::{cpu_ns, peak_rss_kib, quantile};

use crate::servers::Server;

/// How the requests are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Wait for each answer before the next request.
    Sequential,
    /// Write all requests while reading answers on another thread.
    Pipelined,
}

/// The protocol era the requests are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2025-11-25: `initialize` first, requests without a version.
    Legacy,
    /// 2026-07-28: no handshake, each request names its version in `params._meta`.
    Modern,
}

impl Era {
    /// Both eras, legacy first.
    pub(crate) const BOTH: [Era; 2] = [Era::Legacy, Era::Modern];

    /// The era's name in the report.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Era::Legacy => "2025-11-25",
            Era::Modern => "2026-07-28",
        }
    }

    /// The `params` of a `tools/call echo` of `text` in this era, as JSON text.
    pub(crate) fn echo_params(self, text: &str) -> String {
        match self {
            Era::Legacy => format!(r#"{{"name":"echo","arguments":{{"text":"{text}"}}}}"#),
            Era::Modern => format!(
                r#"{{"_meta":{{{MODERN_META}}},"arguments":{{"text":"{text}"}},"name":"echo"}}"#
            ),
        }
    }
}

/// The members of a 2026-07-28 request's `_meta`, in the order typed-mcp's client writes
/// them.
const MODERN_META: &str = concat!(
    r#""io.modelcontextprotocol/clientCapabilities":{},"#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"typed-mcp-bench","version":"0.1.0"},"#,
    r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#
);

/// One cell of the matrix: a mode, a payload size and how many requests.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Workload {
    /// The protocol era of the requests.
    pub(crate) era: Era,
    /// Sequential or pipelined.
    pub(crate) mode: Mode,
    /// Length of the echoed text, in bytes.
    pub(crate) payload: usize,
    /// Measured requests (after the warm-up).
    pub(crate) requests: usize,
}

/// What one run of one server measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Measured {
    /// Answers per second over the measured requests.
    pub(crate) per_second: f64,
    /// Median latency.
    pub(crate) p50: Duration,
    /// 99th percentile latency.
    pub(crate) p99: Duration,
    /// Server CPU time per request, in nanoseconds.
    pub(crate) cpu_ns_per_request: f64,
    /// Peak resident set of the server, in KiB.
    pub(crate) peak_rss_kib: u64,
}

/// Requests answered before measuring (lazy initialisation, caches, thread start-up).
const WARM_UP: usize = 200;
/// A run taking longer than this is a hang.
const DEADLINE: Duration = Duration::from_secs(120);

/// How a server process is started: its binary, optionally under a wrapper (`valgrind`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Launcher {
    /// Program and arguments put before the server's binary, e.g. `valgrind --tool=callgrind`.
    pub(crate) wrapper: Vec<String>,
}

impl Launcher {
    fn spawn(&self, server: Server) -> Result<Child, String> {
        let (binary, args) = server.command()?;
        let mut command = match self.wrapper.split_first() {
            Some((program, wrapper_args)) => {
                let mut command = Command::new(program);
                command.args(wrapper_args).arg(&binary);
                command
            }
            None => Command::new(&binary),
        };
        command
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("spawning {}: {e}", binary.display()))
    }
}

/// The bytes of request `id`: `tools/call echo` with a text of `payload` bytes.
struct RequestTemplate {
    prefix: &'static [u8],
    suffix: Vec<u8>,
}

impl RequestTemplate {
    fn new(payload: usize, era: Era) -> Self {
        let text = "x".repeat(payload);
        let params = era.echo_params(&text);
        let suffix = format!(r#","method":"tools/call","params":{params}}}"#);
        let mut suffix = suffix.into_bytes();
        suffix.push(b'\n');
        Self {
            prefix: br#"{"jsonrpc":"2.0","id":"#,
            suffix,
        }
    }

    fn write(&self, out: &mut impl Write, id: u64) -> std::io::Result<()> {
        out.write_all(self.prefix)?;
        write!(out, "{id}")?;
        out.write_all(&self.suffix)
    }
}

const INITIALIZE: &[u8] = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","#,
    r#""capabilities":{},"clientInfo":{"name":"typed-mcp-bench","version":"0.1.0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
)
.as_bytes();

/// The integer id of an answer line (`"id":<digits>`), found by a byte scan.
fn answer_id(line: &[u8]) -> Option<u64> {
    let at = memchr_find(line, br#""id":"#)? + 5;
    let digits = line[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&line[at..at + digits])
        .ok()?
        .parse()
        .ok()
}

fn memchr_find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Whether an answer is a successful echo: no error member, not `isError`, and (checked on
/// the first answer of a run) the text came back.
fn is_success(line: &[u8]) -> bool {
    memchr_find(line, br#""error":{"#).is_none()
        && memchr_find(line, br#""isError":true"#).is_none()
}

/// Runs `workload` against a fresh process of `server`.
pub(crate) fn run(
    launcher: &Launcher,
    server: Server,
    workload: Workload,
) -> Result<Measured, String> {
    let mut child = launcher.spawn(server)?;
    let pid = child.id();
    let stdin = child.stdin.take().ok_or("no stdin pipe")?;
    let stdout = child.stdout.take().ok_or("no stdout pipe")?;
    let child = Arc::new(Mutex::new(child));
    let (done, finished) = mpsc::channel::<()>();
    let watchdog = {
        let child = Arc::clone(&child);
        thread::spawn(move || {
            if finished.recv_timeout(DEADLINE).is_err() {
                if let Ok(mut child) = child.lock() {
                    // Closing its pipes unblocks the reader with an early end of file.
                    if let Err(error) = child.kill() {
                        eprintln!("watchdog: kill failed: {error}");
                    }
                }
            }
        })
    };
    let outcome = measure(pid, stdin, stdout, workload, server.speaks_modern());
    // Stop the watchdog, then wait for the server to exit on end of input.
    if done.send(()).is_err() {
        eprintln!("watchdog already fired");
    }
    if watchdog.join().is_err() {
        eprintln!("watchdog thread panicked");
    }
    let mut child = child.lock().map_err(|_| "child lock poisoned")?;
    if outcome.is_err() {
        // A failed run may leave the writer blocked on a full pipe: end the server.
        if let Err(error) = child.kill() {
            eprintln!("ending {} after a failed run: {error}", server.name());
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for {}: {e}", server.name()))?;
    let measured = outcome.map_err(|e| format!("{}: {e} (exit: {status})", server.name()))?;
    Ok(measured)
}

fn measure(
    pid: u32,
    mut stdin: ChildStdin,
    stdout: ChildStdout,
    workload: Workload,
    speaks_modern: bool,
) -> Result<Measured, String> {
    let io = |e: std::io::Error| format!("pipe: {e}");
    let mut reader = BufReader::with_capacity(1 << 18, stdout);
    let mut line = Vec::with_capacity(workload.payload + 512);
    if workload.era == Era::Legacy || !speaks_modern {
        stdin.write_all(INITIALIZE).map_err(io)?;
        stdin.flush().map_err(io)?;
        read_answer(&mut reader, &mut line)?;
        if answer_id(&line) != Some(0) || !is_success(&line) {
            return Err("initialize was not answered with a result".to_owned());
        }
    }
    let template = RequestTemplate::new(workload.payload, workload.era);
    let echoed = format!("\"{}\"", "x".repeat(workload.payload)).into_bytes();
    let mut stdin = BufWriter::with_capacity(1 << 16, stdin);
    for id in 1..=WARM_UP as u64 {
        template.write(&mut stdin, id).map_err(io)?;
        stdin.flush().map_err(io)?;
        read_answer(&mut reader, &mut line)?;
        let good = answer_id(&line) == Some(id) && is_success(&line);
        if !good || (id == 1 && memchr_find(&line, &echoed).is_none()) {
            return Err(format!("warm-up request {id} was not echoed"));
        }
    }
    let first = WARM_UP as u64 + 1;
    let cpu_before = cpu_ns(pid).map_err(|e| e.to_string())?;
    let (latencies, elapsed) = match workload.mode {
        Mode::Sequential => sequential(
            &template,
            &mut stdin,
            &mut reader,
            &mut line,
            first,
            workload,
        )?,
        Mode::Pipelined => {
            let (timed, returned) =
                pipelined(template, stdin, &mut reader, &mut line, first, workload)?;
            stdin = returned;
            timed
        }
    };
    // Read before closing stdin: the server exits at end of input.
    let cpu_after = cpu_ns(pid).map_err(|e| e.to_string())?;
    let peak = peak_rss_kib(pid).map_err(|e| e.to_string())?;
    drop(stdin);
    let mut latencies = latencies;
    latencies.sort_unstable();
    let n = workload.requests as f64;
    Ok(Measured {
        per_second: n / elapsed.as_secs_f64(),
        p50: quantile(&latencies, 0.50).unwrap_or_default(),
        p99: quantile(&latencies, 0.99).unwrap_or_default(),
        cpu_ns_per_request: cpu_after.saturating_sub(cpu_before) as f64 / n,
        peak_rss_kib: peak,
    })
}

fn read_answer(reader: &mut impl BufRead, line: &mut Vec<u8>) -> Result<(), String> {
    line.clear();
    let read = reader
        .read_until(b'\n', line)
        .map_err(|e| format!("reading: {e}"))?;
    if read == 0 {
        return Err("the server closed its output early".to_owned());
    }
    Ok(())
}

type Timed = (Vec<Duration>, Duration);

fn sequential(
    template: &RequestTemplate,
    stdin: &mut BufWriter<ChildStdin>,
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    first: u64,
    workload: Workload,
) -> Result<Timed, String> {
    let io = |e: std::io::Error| format!("pipe: {e}");
    let mut latencies = Vec::with_capacity(workload.requests);
    let started = Instant::now();
    for id in first..first + workload.requests as u64 {
        let sent = Instant::now();
        template.write(stdin, id).map_err(io)?;
        stdin.flush().map_err(io)?;
        read_answer(reader, line)?;
        latencies.push(sent.elapsed());
        if answer_id(line) != Some(id) || !is_success(line) {
            return Err(format!("request {id} got a wrong or failed answer"));
        }
    }
    Ok((latencies, started.elapsed()))
}

fn pipelined(
    template: RequestTemplate,
    mut stdin: BufWriter<ChildStdin>,
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    first: u64,
    workload: Workload,
) -> Result<(Timed, BufWriter<ChildStdin>), String> {
    let count = workload.requests;
    let started = Instant::now();
    type Written = Result<(Vec<Instant>, BufWriter<ChildStdin>), String>;
    let writer = thread::spawn(move || -> Written {
        let mut sent = Vec::with_capacity(count);
        for id in first..first + count as u64 {
            sent.push(Instant::now());
            template
                .write(&mut stdin, id)
                .map_err(|e| format!("writing request {id}: {e}"))?;
        }
        stdin.flush().map_err(|e| format!("flushing: {e}"))?;
        // Keep the pipe open until every answer is read and the server measured.
        Ok((sent, stdin))
    });
    let mut received = vec![None::<Instant>; count];
    let mut failures = 0usize;
    for _ in 0..count {
        read_answer(reader, line)?;
        let now = Instant::now();
        match answer_id(line).and_then(|id| id.checked_sub(first)) {
            Some(index) if (index as usize) < count && is_success(line) => {
                received[index as usize] = Some(now);
            }
            _ => failures += 1,
        }
    }
    let elapsed = started.elapsed();
    let (sent, stdin) = writer
        .join()
        .map_err(|_| "writer thread panicked".to_owned())??;
    if failures > 0 {
        return Err(format!(
            "{failures} of {count} answers were wrong or failed"
        ));
    }
    let latencies = sent
        .iter()
        .zip(&received)
        .map(|(sent, received)| received.map(|r| r.duration_since(*sent)))
        .collect::<Option<Vec<_>>>()
        .ok_or("an answer was missing or repeated")?;
    Ok(((latencies, elapsed), stdin))
}
