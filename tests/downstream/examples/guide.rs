//! The guide's code (`docs/guide/`), compiled: `tests/readme.rs` checks that every ```rust
//! block of the guide appears in this fixture crate, as it does for the README.

// The fragments are compiled, not run.
#![allow(dead_code)]

use serde_json::json;
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

/// Types and validators generated from `schema/math_tools.json` by `build.rs`.
mod math_tools {
    include!(concat!(env!("OUT_DIR"), "/math_tools.rs"));
}

use math_tools::{RoundArguments, RoundArgumentsMode};

/// Guide, "Types": a generated enum is matched like any Rust enum.
fn direction(mode: RoundArgumentsMode) -> &'static str {
    match mode {
        RoundArgumentsMode::Up => "towards +inf",
        RoundArgumentsMode::Down => "towards -inf",
        RoundArgumentsMode::Nearest => "to the nearest integer",
    }
}

/// Guide, "Types": the generated validator, called directly.
fn validate_by_hand() {
    let arguments = json!({"value": 2.5, "mode": "sideways"});
    if let Err(errors) = math_tools::validate::round_arguments(&arguments) {
        for error in errors {
            eprintln!("{error}"); // instance path, keyword, and what was expected
        }
    }
}

/// Guide, "Tools": a typed tool whose handler returns an error the caller sees.
fn round_tool() -> Result<ToolDefinition, Box<dyn std::error::Error>> {
    let round = ToolDefinition::new(
        "round",
        |_ctx: ToolContext, args: RoundArguments| async move {
            let value = args
                .value
                .as_f64()
                .ok_or_else(|| ToolCallError::failed("not a number"))?;
            let rounded = match args.mode {
                RoundArgumentsMode::Up => value.ceil(),
                RoundArgumentsMode::Down => value.floor(),
                RoundArgumentsMode::Nearest => value.round(),
            };
            Ok(json!({ "rounded": rounded }))
        },
    )?
    .title("Round a number");
    Ok(round)
}

/// Guide, "stdio": a server with a limits file, over stdin/stdout.
async fn serve_over_stdio(round: ToolDefinition) -> Result<(), Box<dyn std::error::Error>> {
    let server = McpServer::builder("calculator", "1.0.0")
        .limits(typed_mcp::config::load_limits("limits.json")?)
        .tool(round)
        .build()?;
    let report = server.serve_stdio().await?; // returns when stdin ends
    eprintln!("{report:?}");
    Ok(())
}

/// Guide, "HTTP": the same server over Streamable HTTP, on a port the OS picks.
async fn serve_over_http(server: McpServer) -> Result<(), Box<dyn std::error::Error>> {
    let running = server.serve_http("127.0.0.1:0".parse()?).await?;
    eprintln!("listening on {}", running.url()); // http://127.0.0.1:PORT/mcp
    running.wait().await?;
    Ok(())
}

/// Guide, "Clients": the client over Streamable HTTP.
async fn client_over_http() -> Result<(), Box<dyn std::error::Error>> {
    use typed_mcp::client::{Client, ClientOptions};
    let options = ClientOptions::new("my-agent", "1.0.0");
    let client = Client::connect_http("http://127.0.0.1:8080/mcp", options).await?;
    let result = client.call_tool("round", json!({"value": 2.5})).await?;
    eprintln!("{result:?}");
    Ok(())
}

fn main() {}
