//! The README's quick start ("Using typed-mcp in your own crate"), compiled: one tool over stdio.

use typed_mcp::mcp::{ArgumentSchema, McpServer, ToolDefinition};
use typed_mcp::tools::ToolContext;

// Every definition of the schema gets a type and a validator, used or not.
#[allow(dead_code)]
mod text_tools {
    include!(concat!(env!("OUT_DIR"), "/text_tools.rs"));
}
use text_tools::ShoutArguments;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let shout = ToolDefinition::from_async(
        "shout",
        "Upper-cases a text.",
        ArgumentSchema::from_defs(include_str!("../schema/text_tools.json"), "ShoutArguments")?,
        |_ctx: ToolContext, args: ShoutArguments| async move {
            Ok(args
                .text
                .to_uppercase()
                .repeat(args.times.get() as usize)
                .into())
        },
    )?;
    let server = McpServer::builder("my-server", "1.0.0")
        .tool(shout)
        .build()?;
    server.serve_stdio().await?;
    Ok(())
}
