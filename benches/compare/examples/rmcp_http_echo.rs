//! rmcp 3.9's side of the HTTP benchmarks: the `echo` tool of `rmcp_echo.rs`
//! (`ServerHandler::call_tool`, no macros) behind rmcp's `StreamableHttpService` with a
//! `LocalSessionManager`, mounted at `/mcp` of an axum router and served by `axum::serve`
//! on `127.0.0.1:0`, as rmcp's documentation does, with `TCP_NODELAY` on each connection
//! (as typed-mcp's listener sets it). Writes `listening on URL` to stderr once
//! it accepts connections, then serves until SIGTERM / SIGINT. Same runtime as typed-mcp's
//! server: multi-thread, one worker per core. No logging subscriber.
//!
//! `rmcp_http_echo session` (the default, and what the benchmark compares): rmcp's default
//! configuration, `legacy_session_mode` on, so `initialize` opens a session and every
//! answer is an event stream. `rmcp_http_echo stateless`: `legacy_session_mode` off and
//! `json_response` on (no session, plain JSON answers), rmcp's fastest mode, for reference.

#[path = "support/runtime.rs"]
mod runtime;

use std::process::ExitCode;
use std::sync::Arc;

use axum::serve::ListenerExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The text argument back as one text content block.
#[derive(Debug, Clone, Copy)]
struct Echo;

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "echo" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("text"))
            .and_then(Value::as_str)
            .ok_or_else(|| ErrorData::invalid_params("echo needs a string `text`", None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

async fn serve(stateless: bool) -> Result<(), Box<dyn std::error::Error>> {
    use tokio::signal::unix::{signal, SignalKind};
    let stop = CancellationToken::new();
    let mut config =
        StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    if stateless {
        config = config
            .with_legacy_session_mode(false)
            .with_json_response(true);
    }
    let service = StreamableHttpService::new(
        || Ok(Echo),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    // As typed-mcp's listener does. Without it, each event-stream answer (written in
    // several small pieces) waits on the client's delayed ACK: about 40 ms per request.
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            eprintln!("rmcp_http_echo: TCP_NODELAY: {error}");
        }
    });
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let server = tokio::spawn({
        let stop = stop.clone();
        async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async move { stop.cancelled_owned().await })
                .await
        }
    });
    eprintln!("listening on {url}");
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    stop.cancel();
    server.await??;
    Ok(())
}

fn main() -> ExitCode {
    let stateless = match std::env::args().nth(1).as_deref() {
        None | Some("session") => false,
        Some("stateless") => true,
        _ => {
            eprintln!("usage: rmcp_http_echo [session|stateless]");
            return ExitCode::from(2);
        }
    };
    runtime::run("rmcp_http_echo", serve(stateless))
}
