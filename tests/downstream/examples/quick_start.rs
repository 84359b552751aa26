//! The README's quick start ("Using typed-mcp in your own crate"), compiled: one tool over stdio.

use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::{ToolContext, ToolResult};

// Every definition of the schema gets a type and a validator, used or not.
#[allow(dead_code)]
mod text_tools {
    include!(concat!(env!("OUT_DIR"), "/text_tools.rs"));
}
use text_tools::ShoutArguments;

async fn shout(_ctx: ToolContext, args: ShoutArguments) -> ToolResult {
    let times = args.times.get() as usize;
    Ok(args.text.to_uppercase().repeat(times).into())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = McpServer::builder("my-server", "1.0.0")
        .tool(ToolDefinition::new("shout", shout)?)
        .build()?;
    server.serve_stdio().await?;
    Ok(())
}
