//! Side-by-side benchmarks of typed-mcp (see `BENCHMARKS.md` at the repository root):
//! 1. stdio `tools/call echo` of the demo server against rmcp 3.9 (`stdio()` and
//!    `stdio_pipes()`) and a `serde_json::Value` floor, sequential and pipelined, 16 B and
//!    64 KiB, each run repeated;
//! 2. generated validators against the `jsonschema` crate;
//! 3. the runtime's cache and timeout-overshoot benches;
//! 4. Streamable HTTP `tools/call echo` against rmcp 3.9's `StreamableHttpService`,
//!    16 B and 64 KiB, 1 and 64 keep-alive connections, each run repeated;
//! 5. memory with a client that stops reading, and under a pipelined flood (`--only memory`).
//!
//! ```sh
//! cargo bench -p typed-mcp-bench                  # everything, 3 repetitions
//! cargo bench -p typed-mcp-bench -- --quick       # a tenth of the requests, 1 repetition
//! cargo bench -p typed-mcp-bench -- --only stdio  # or: validators, existing, http, memory
//! ```
//!
//! `--callgrind` runs each server under `valgrind --tool=callgrind` at two request counts
//! and prints user-space instructions per request, then the code each sequential 16 B request
//! runs (distinct instructions and 64-byte cache lines, [`code_lines`]), then each validator
//! row under it at two validation counts (instructions per validation, ours against
//! jsonschema);
//! `--servers floor,typed-mcp,baseline` limits it to those rows (row labels; `baseline` is
//! the `TYPED_MCP_BENCH_BASELINE` row, `validators` the validator rows), and builds only
//! their binaries.
//! `--payload 65536` keeps the stdio and HTTP cells of that text length, `--connections 64`
//! the HTTP cells of that many connections; only the servers of the parts run are built.
//! The stdio matrix also has a `baseline` row when that variable is set, and `--servers`
//! limits it the same way. The HTTP matrix has one when `TYPED_MCP_BENCH_HTTP_BASELINE`
//! names another build of `typed_http_echo`.
//! The server binaries are built first (see [`servers::build`]).

mod callgrind;
mod code_lines;
mod driver;
mod existing;
mod http;
mod report;
mod servers;
mod stalled;
mod validator_instructions;
mod validators;

use std::process::ExitCode;

use driver::{Era, Launcher, Mode, Workload};
use http::HttpWorkload;

/// Command-line options of a bench run.
#[derive(Debug, Clone)]
struct Options {
    repetitions: usize,
    scale: f64,
    only: Option<String>,
    callgrind: bool,
    /// `--servers a,b`: the callgrind rows to run (row labels; all when absent).
    servers: Option<Vec<String>>,
    /// `--payload N`: only the stdio and HTTP cells of this text length.
    payload: Option<usize>,
    /// `--connections N`: only the HTTP cells of this many connections.
    connections: Option<usize>,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        repetitions: 3,
        scale: 1.0,
        only: None,
        callgrind: false,
        servers: None,
        payload: None,
        connections: None,
    };
    let number = |arg: Option<&String>, flag: &str| {
        arg.and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("{flag} needs a number"))
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => {
                options.repetitions = 1;
                options.scale = 0.1;
            }
            "--reps" => {
                options.repetitions = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--reps needs a number")?;
            }
            "--payload" => options.payload = Some(number(args.next(), "--payload")?),
            "--connections" => {
                options.connections = Some(number(args.next(), "--connections")?);
            }
            "--only" => options.only = Some(args.next().ok_or("--only needs a part")?.clone()),
            "--callgrind" => options.callgrind = true,
            "--servers" => {
                let list = args
                    .next()
                    .ok_or("--servers needs a comma-separated list")?;
                options.servers = Some(list.split(',').map(str::to_owned).collect());
            }
            // Added by `cargo bench`; anything else is ignored the same way.
            _ => {}
        }
    }
    Ok(options)
}

/// The matrix: every era, mode and payload (or only `payload`), with request counts that keep
/// each run to seconds.
fn workloads(scale: f64, payload: Option<usize>) -> Vec<Workload> {
    let n = |count: f64| ((count * scale) as usize).max(50);
    let cells = [
        (Mode::Pipelined, 16, 30_000.0),
        (Mode::Pipelined, 64 * 1024, 1_000.0),
        (Mode::Sequential, 16, 3_000.0),
        (Mode::Sequential, 64 * 1024, 300.0),
    ];
    Era::BOTH
        .iter()
        .flat_map(|&era| {
            cells
                .iter()
                .map(move |&(mode, payload, requests)| Workload {
                    era,
                    mode,
                    payload,
                    requests: n(requests),
                })
        })
        .filter(|cell| payload.is_none_or(|payload| cell.payload == payload))
        .collect()
}

/// The HTTP matrix: both eras, both payloads at 1 and 64 connections (or only `payload`
/// and `connections`).
fn http_workloads(
    scale: f64,
    payload: Option<usize>,
    connections: Option<usize>,
) -> Vec<HttpWorkload> {
    let n = |count: f64| ((count * scale) as usize).max(64);
    let cells = [
        (16, 1, 3_000.0),
        (16, 64, 20_000.0),
        (64 * 1024, 1, 500.0),
        (64 * 1024, 64, 3_000.0),
    ];
    Era::BOTH
        .iter()
        .flat_map(|&era| {
            cells
                .iter()
                .map(move |&(payload, concurrency, requests)| HttpWorkload {
                    era,
                    payload,
                    concurrency,
                    requests: n(requests),
                })
        })
        .filter(|cell| {
            payload.is_none_or(|payload| cell.payload == payload)
                && connections.is_none_or(|connections| cell.concurrency == connections)
        })
        .collect()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match options(&args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let wanted = |part: &str| options.only.as_deref().is_none_or(|only| only == part);
    let validator_rows = options
        .servers
        .as_deref()
        .is_none_or(|names| names.iter().any(|n| n == "validators"));
    let parts = servers::Parts {
        stdio: options.callgrind || wanted("stdio") || wanted("memory"),
        http: !options.callgrind && wanted("http"),
        probe: options.callgrind && validator_rows,
        stdio_rows: options.servers.clone().filter(|_| options.callgrind),
    };
    if parts.stdio || parts.http {
        eprintln!("building the servers under test");
        if let Err(message) = servers::build(parts) {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    }
    if options.callgrind {
        let names = options.servers.as_deref();
        let servers: Option<Vec<String>> = names.map(|names| {
            names
                .iter()
                .filter(|n| *n != "validators")
                .cloned()
                .collect()
        });
        let counted = match servers.as_deref() {
            Some([]) => Ok(()),
            servers => callgrind::run(servers),
        }
        .and_then(|()| {
            validator_rows
                .then(validator_instructions::run)
                .unwrap_or(Ok(()))
        });
        return match counted {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("callgrind: {message}");
                ExitCode::FAILURE
            }
        };
    }
    let mut failed = false;
    report::machine();
    if wanted("stdio") {
        let launcher = Launcher::default();
        let workloads = workloads(options.scale, options.payload);
        let servers = servers::stdio(options.servers.as_deref());
        let mut runs = Vec::new();
        for repetition in 0..options.repetitions {
            eprintln!(
                "stdio: repetition {} of {}",
                repetition + 1,
                options.repetitions
            );
            runs.push(report::stdio_repetition(&launcher, &workloads, &servers));
        }
        failed |= report::stdio(&workloads, &servers, &runs);
    }
    if wanted("validators") {
        let mut runs = Vec::new();
        for repetition in 0..options.repetitions {
            eprintln!(
                "validators: repetition {} of {}",
                repetition + 1,
                options.repetitions
            );
            match validators::measure() {
                Ok(run) => runs.push(run),
                Err(message) => {
                    eprintln!("validators: {message}");
                    failed = true;
                }
            }
        }
        failed |= report::validators(&runs);
    }
    if wanted("existing") {
        for bench in ["cache", "timeout_overshoot"] {
            eprintln!("running the {bench} bench");
            report::existing(bench, existing::run(bench));
        }
    }
    if wanted("http") {
        let workloads = http_workloads(options.scale, options.payload, options.connections);
        let mut runs = Vec::new();
        for repetition in 0..options.repetitions {
            eprintln!(
                "http: repetition {} of {}",
                repetition + 1,
                options.repetitions
            );
            runs.push(report::http_repetition(&workloads));
        }
        failed |= report::http(&workloads, &runs);
    }
    if wanted("memory") {
        failed |= stalled::run_all();
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
