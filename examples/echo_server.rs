//! `echo_server` (example): a tiny JSON-RPC 2.0 server over stdio, built on the request loop
//! ([`typed_mcp::server::serve`]).
//!
//! - `ping` is answered with `{}`; `echo` with its `params` (or `null`);
//! - `sleep` with `{"ms": n}` waits n milliseconds, then answers `{"slept": n}`;
//! - any other request gets `-32601`; notifications and responses are never answered;
//! - malformed frames get `-32700` / `-32600` as the JSON-RPC layer decides; oversize lines
//!   get `-32600` with `id: null`.
//!
//! Requests run concurrently. On end of input, SIGTERM or SIGINT the server stops reading,
//! lets running requests finish within the grace period, answers the rest with an error,
//! flushes everything and exits 0.
//!
//! Options: `--max-line-bytes N` (default 16 MiB, or the configuration's
//! `request.maxLineBytes`), `--protocol-version V`, which decides whether batches are
//! accepted (default: the latest version, which rejects them), `--max-in-flight N`,
//! `--grace-ms N`, and `--config FILE`, a `schema/limits.json` document: if it is invalid,
//! every violation is printed to stderr and the server does not start (exit 2). Logs go to
//! stderr only (`RUST_LOG` sets the filter, default `info`).

use std::process::ExitCode;
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use tracing::level_filters::LevelFilter;
use typed_mcp::jsonrpc::{BatchPolicy, ErrorCode, ErrorObject};
use typed_mcp::server::{
    serve, Handler, HandlerResult, RequestContext, ServeOptions, SharedBatchPolicy,
};

/// The protocol version assumed when none is given.
const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// Command-line options.
struct Options {
    serve: ServeOptions,
}

fn parse_number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value.parse().map_err(|_| format!("{flag} needs a number"))
}

fn parse_options() -> Result<Options, String> {
    let mut serve = ServeOptions::default()
        .batch_policy(SharedBatchPolicy::new(BatchPolicy::for_protocol_version(
            LATEST_PROTOCOL_VERSION,
        )))
        .stop_on_signals(true);
    let mut max_line_bytes = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--max-line-bytes" => max_line_bytes = Some(parse_number(&flag, &value)?),
            "--protocol-version" => {
                serve = serve.batch_policy(SharedBatchPolicy::new(
                    BatchPolicy::for_protocol_version(&value),
                ));
            }
            "--max-in-flight" => serve = serve.max_in_flight(parse_number(&flag, &value)?),
            "--grace-ms" => {
                serve = serve.grace_period(Duration::from_millis(parse_number(&flag, &value)?));
            }
            "--config" => {
                let limits = typed_mcp::config::load_limits(&value).map_err(|e| e.to_string())?;
                let from_limits = ServeOptions::from_limits(&limits);
                serve = serve.max_line_bytes(from_limits.max_line_bytes_value());
            }
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if let Some(max) = max_line_bytes {
        serve = serve.max_line_bytes(max);
    }
    Ok(Options { serve })
}

/// The echo server's methods.
struct Echo;

#[derive(Deserialize)]
struct SleepParams {
    ms: u64,
}

impl Handler for Echo {
    async fn handle_request(
        &self,
        _ctx: RequestContext,
        method: &str,
        params: Option<&RawValue>,
    ) -> HandlerResult {
        match method {
            "ping" => raw("{}".to_owned()),
            "echo" => Ok(params.map_or_else(|| RawValue::NULL.to_owned(), RawValue::to_owned)),
            "sleep" => {
                let Some(SleepParams { ms }) =
                    params.and_then(|p| serde_json::from_str(p.get()).ok())
                else {
                    return Err(ErrorObject::new(
                        ErrorCode::INVALID_PARAMS,
                        "sleep needs params {\"ms\": <non-negative integer>}",
                    ));
                };
                tokio::time::sleep(Duration::from_millis(ms)).await;
                raw(format!(r#"{{"slept":{ms}}}"#))
            }
            _ => Err(ErrorObject::new(
                ErrorCode::METHOD_NOT_FOUND,
                "method not found",
            )),
        }
    }
}

fn raw(json: String) -> HandlerResult {
    RawValue::from_string(json).map_err(|error| {
        tracing::error!(%error, "built an invalid result");
        ErrorObject::new(ErrorCode::INTERNAL_ERROR, "internal error")
    })
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::INFO) {
        eprintln!("echo_server: {error}");
    }
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            tracing::error!("not starting: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!("echo server starting");
    let result = runtime.block_on(serve(
        tokio::io::stdin(),
        tokio::io::stdout(),
        Echo,
        options.serve,
    ));
    // Everything is flushed. A read of stdin may still be blocked on its thread (after a
    // signal, the client may keep stdin open): do not wait for it.
    runtime.shutdown_background();
    match result {
        Ok(report) => {
            tracing::info!(reason = ?report.reason, "echo server done");
            ExitCode::SUCCESS
        }
        Err(error) => {
            tracing::error!(error = %typed_mcp::logging::ErrorChain(&error), "echo server failed");
            ExitCode::FAILURE
        }
    }
}
