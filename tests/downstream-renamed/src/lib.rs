//! Tools whose argument types are generated with `runtime_path("::mcp")`, in a crate that
//! names its `typed-mcp` dependency `mcp` and has no other dependency.

use mcp::mcp::{McpError, McpServer, ToolDefinition};
use mcp::tools::{ToolCallError, ToolContext, ToolResult};

/// Types and validators generated from `schema/tools.json`.
pub mod tools {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

use tools::{ReverseArguments, ScaleArguments, ScaleArgumentsFactor};

/// A server with the tools `reverse` and `scale`.
///
/// # Errors
///
/// If a tool's schema and its generated type disagree.
pub fn server() -> Result<McpServer, McpError> {
    let reverse = ToolDefinition::new(
        "reverse",
        |_ctx: ToolContext, args: ReverseArguments| async move {
            ToolResult::Ok(args.text.chars().rev().collect::<String>().into())
        },
    )?
    .description("Reverses a text.");
    let scale = ToolDefinition::new("scale", |_ctx: ToolContext, args: ScaleArguments| {
        let value = args.value.as_f64().unwrap_or(f64::NAN);
        let scaled = match args.factor {
            ScaleArgumentsFactor::Half => value / 2.0,
            ScaleArgumentsFactor::Double => value * 2.0,
        };
        if scaled.is_finite() {
            ToolResult::Ok(scaled.into())
        } else {
            Err(ToolCallError::failed("the result is not a finite number"))
        }
    })?
    .description("Halves or doubles a number.");
    McpServer::builder("typed-mcp-downstream-renamed", "0.0.0")
        .tool(reverse)
        .tool(scale)
        .build()
}
