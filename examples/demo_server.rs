//! The typed-mcp demo server: an MCP server over stdio (or Streamable HTTP) speaking
//! 2025-03-26, 2025-06-18, 2025-11-25 (after `initialize`) and 2026-07-28 (requests carrying
//! their version).
//!
//! ```sh
//! cargo run --release --example demo_server [-- --limits FILE] [--http ADDR]
//! ```
//!
//! With `--http ADDR` (e.g. `127.0.0.1:8080`; port 0 picks a free one) it serves
//! `http://ADDR/mcp` instead of stdio and writes `listening on http://ADDR/mcp` to stderr
//! once it accepts connections; it stops on SIGTERM / SIGINT.
//!
//! FILE is a limits document (`schema/limits.json`); an invalid one is refused with every
//! violation listed (exit 2). Tools: `echo`, `add`, `sleep`, `spin`, `big`, `sum`, `lookup`;
//! resource `demo://readme`; prompt `greet`. Logs go to stderr (`RUST_LOG`, default `info`);
//! stdout carries protocol messages only. The server exits when stdin closes, or on
//! SIGTERM / SIGINT, after finishing the requests in flight.

use std::net::SocketAddr;
use std::process::ExitCode;

use tracing::level_filters::LevelFilter;
use typed_mcp::generated::limits::Limits;
use typed_mcp::logging::ErrorChain;
use typed_mcp::mcp::McpServer;

#[path = "demo_server/demo.rs"]
mod demo;

const USAGE: &str = "usage: demo_server [--limits FILE] [--http ADDR]";

/// The command line: the limits, and the HTTP address when serving HTTP.
fn parse_args() -> Result<(Limits, Option<SocketAddr>), String> {
    let mut limits = Limits::default();
    let mut http = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--limits" => {
                let path = args.next().ok_or("--limits needs a file")?;
                // The error's text lists every violation with its path.
                limits =
                    typed_mcp::config::load_limits(&path).map_err(|error| error.to_string())?;
            }
            "--http" => {
                let addr = args
                    .next()
                    .ok_or("--http needs an address such as 127.0.0.1:8080")?;
                let addr = addr
                    .parse()
                    .map_err(|_| "--http needs an address such as 127.0.0.1:8080".to_owned())?;
                http = Some(addr);
            }
            "--help" | "-h" => return Err(USAGE.to_owned()),
            _ => return Err(format!("unknown option; {USAGE}")),
        }
    }
    Ok((limits, http))
}

/// Serves HTTP until SIGTERM / SIGINT.
async fn serve_http(server: McpServer, addr: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    let running = server.serve_http(addr).await?;
    // The line tests and scripts wait for (stderr: stdout stays free of anything else).
    eprintln!("listening on {}", running.url());
    running.shutdown_on_signal().await?;
    Ok(())
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::INFO) {
        eprintln!("demo_server: {error}");
    }
    let (limits, http) = match parse_args() {
        Ok(parsed) => parsed,
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
    if let Some(addr) = http {
        let result = runtime.block_on(async {
            let server = demo::build(limits)?;
            serve_http(server, addr).await
        });
        runtime.shutdown_background();
        return match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                tracing::error!(error = %ErrorChain(&*error), "demo server failed");
                ExitCode::FAILURE
            }
        };
    }
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
            tracing::error!(error = %ErrorChain(&error), "demo server failed");
            ExitCode::FAILURE
        }
    }
}
