//! An `echo` tool on rmcp 3.9, the comparison point of the stdio benchmarks:
//! `rmcp_echo stdio` serves over `rmcp::transport::stdio()` (tokio's stdin/stdout, every read
//! and write on the blocking pool), `rmcp_echo pipes` over `rmcp::transport::stdio_pipes()`
//! (the pipes reopened non-blocking and driven by the IO reactor). Same runtime as the
//! typed-mcp demo server: multi-thread, one worker per core. No logging subscriber.

use std::process::ExitCode;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

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

async fn serve(pipes: bool) -> Result<(), String> {
    let running = if pipes {
        Echo.serve(rmcp::transport::stdio_pipes()).await
    } else {
        Echo.serve(rmcp::transport::stdio()).await
    };
    let running = running.map_err(|error| format!("initialize: {error}"))?;
    running
        .waiting()
        .await
        .map(drop)
        .map_err(|error| error.to_string())
}

fn main() -> ExitCode {
    let pipes = match std::env::args().nth(1).as_deref() {
        Some("stdio") => false,
        Some("pipes") => true,
        _ => {
            eprintln!("usage: rmcp_echo stdio|pipes");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("rmcp_echo: tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(serve(pipes));
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rmcp_echo: {message}");
            ExitCode::FAILURE
        }
    }
}
