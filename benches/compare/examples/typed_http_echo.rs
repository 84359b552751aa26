//! The typed-mcp side of the HTTP benchmarks: an `echo` tool exactly as the demo server
//! defines it (typed arguments generated from `schema/echo_arguments.json`, the text sent
//! back as one text block), served by `McpServer::serve_http` on `127.0.0.1:0`
//! (`http://ADDR/mcp`, default limits and HTTP options). Like the demo server it runs on a
//! multi-thread runtime with one worker per core, logs at `info` to stderr, and writes
//! `listening on URL` to stderr once it accepts connections; it stops on SIGTERM / SIGINT.

#[path = "support/runtime.rs"]
mod runtime;

use std::process::ExitCode;

use serde_json::Value;
use tracing::level_filters::LevelFilter;
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::ToolContext;

/// The generated argument type of `schema/echo_arguments.json` (see `build.rs`).
#[allow(missing_docs, unreachable_pub, dead_code)]
mod arguments {
    include!(concat!(env!("OUT_DIR"), "/echo/echo_arguments.rs"));
}

use arguments::EchoArguments;

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    use tokio::signal::unix::{signal, SignalKind};
    let echo = ToolDefinition::new(
        "echo",
        |_ctx: ToolContext, args: EchoArguments| async move { Ok(Value::String(args.text)) },
    )?
    .description("Sends the text back unchanged.")
    .in_place();
    let server = McpServer::builder("typed-http-echo", env!("CARGO_PKG_VERSION"))
        .tool(echo)
        .build()?;
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let running = server.serve_http("127.0.0.1:0".parse()?).await?;
    eprintln!("listening on {}", running.url());
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    running.shutdown().await?;
    Ok(())
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::INFO) {
        eprintln!("typed_http_echo: {error}");
    }
    runtime::run("typed_http_echo", serve())
}
