//! The typed-mcp demo server: an MCP server over stdio speaking 2025-03-26, 2025-06-18,
//! 2025-11-25 (after `initialize`) and 2026-07-28 (requests carrying their version).
//!
//! ```sh
//! cargo run --release --example demo_server [-- --limits FILE]
//! ```
//!
//! FILE is a limits document (`schema/limits.json`); an invalid one is refused with every
//! violation listed (exit 2). Tools: `echo`, `add`, `sleep`, `spin`, `big`, `sum`, `lookup`;
//! resource `demo://readme`; prompt `greet`. Logs go to stderr (`RUST_LOG`, default `info`);
//! stdout carries protocol messages only. The server exits when stdin closes, or on
//! SIGTERM / SIGINT, after finishing the requests in flight.

use std::process::ExitCode;

use tracing::level_filters::LevelFilter;
use typed_mcp::generated::limits::Limits;

#[path = "demo_server/demo.rs"]
mod demo;

fn parse_limits() -> Result<Limits, String> {
    let mut limits = Limits::default();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--limits" => {
                let path = args.next().ok_or("--limits needs a file")?;
                // The error's text lists every violation with its path.
                limits =
                    typed_mcp::config::load_limits(&path).map_err(|error| error.to_string())?;
            }
            "--help" | "-h" => {
                return Err("usage: demo_server [--limits FILE]".to_owned());
            }
            _ => return Err("unknown option; usage: demo_server [--limits FILE]".to_owned()),
        }
    }
    Ok(limits)
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::INFO) {
        eprintln!("demo_server: {error}");
    }
    let limits = match parse_limits() {
        Ok(limits) => limits,
        Err(message) => {
            tracing::error!("not starting: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        let server = demo::build(limits)?;
        tracing::info!("demo server ready on stdio");
        server.serve_stdio().await
    });
    // Everything is flushed; a read of stdin may still be blocked on its thread.
    runtime.shutdown_background();
    match result {
        Ok(report) => {
            tracing::info!(reason = ?report.reason, answered = report.requests_answered, "demo server done");
            ExitCode::SUCCESS
        }
        Err(error) => {
            tracing::error!(%error, "demo server failed");
            ExitCode::FAILURE
        }
    }
}
