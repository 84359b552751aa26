//! A downstream MCP server whose tool arguments are generated from `schema/` by `build.rs`.
//!
//! Each tool publishes its schema definition as `inputSchema`; the runtime validates a
//! call's arguments with the generated validator before decoding them into the generated
//! type, so a handler only ever sees arguments its schema accepts.

use serde_json::{json, Number, Value};
use typed_mcp::generated::limits::Limits;
use typed_mcp::mcp::{McpError, McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext, ToolResult};

/// Types and validators generated from `schema/text_tools.json`.
pub mod text_tools {
    include!(concat!(env!("OUT_DIR"), "/text_tools.rs"));
}

/// Types and validators generated from `schema/math_tools.json`.
pub mod math_tools {
    include!(concat!(env!("OUT_DIR"), "/math_tools.rs"));
}

use math_tools::{MeanArguments, RoundArguments, RoundArgumentsMode};
use text_tools::{CountWordsArguments, ShoutArguments};

fn number(value: f64) -> ToolResult {
    Number::from_f64(value)
        .map(Value::Number)
        .ok_or_else(|| ToolCallError::failed("the result is not a finite number"))
}

fn as_f64(number: &Number) -> f64 {
    number.as_f64().unwrap_or(f64::NAN)
}

/// The server's tools: `shout`, `count_words`, `mean` and `round`.
///
/// # Errors
///
/// If a tool's schema and its generated type disagree (an `examples` entry is rejected).
pub fn tools() -> Result<Vec<ToolDefinition>, McpError> {
    // The schema, validator and (unless overridden) description come with the type.
    let shout = ToolDefinition::new(
        "shout",
        |_ctx: ToolContext, args: ShoutArguments| async move {
            let times = usize::try_from(args.times.get())
                .map_err(|_| ToolCallError::failed("times out of range"))?;
            let loud = args.text.to_uppercase();
            Ok(Value::String(vec![loud; times].join(" ")))
        },
    )?
    .description("Upper-cases a text and repeats it `times` times.");
    let count_words = ToolDefinition::new(
        "count_words",
        |_ctx: ToolContext, args: CountWordsArguments| {
            Ok(json!({ "words": args.text.split_whitespace().count() }))
        },
    )?
    .description("Counts the whitespace-separated words of a text; answers {words}.");
    let mean = ToolDefinition::new(
        "mean",
        |_ctx: ToolContext, args: MeanArguments| async move {
            let sum: f64 = args.values.iter().map(as_f64).sum();
            // The validator guarantees at least one value (`minItems: 1`).
            Ok(json!({ "mean": number(sum / args.values.len() as f64)? }))
        },
    )?
    .description("The arithmetic mean of 1 to 100 numbers; answers {mean}.");
    let round = ToolDefinition::new(
        "round",
        |_ctx: ToolContext, args: RoundArguments| async move {
            let value = as_f64(&args.value);
            let rounded = match args.mode {
                RoundArgumentsMode::Up => value.ceil(),
                RoundArgumentsMode::Down => value.floor(),
                RoundArgumentsMode::Nearest => value.round(),
            };
            Ok(json!({ "rounded": number(rounded)? }))
        },
    )?
    .description("Rounds a number up, down or to the nearest integer; answers {rounded}.");
    Ok(vec![shout, count_words, mean, round])
}

/// The server, with `limits`.
///
/// # Errors
///
/// As [`tools`], or if the limits are unusable.
pub fn server(limits: Limits) -> Result<McpServer, McpError> {
    tools()?
        .into_iter()
        .fold(
            McpServer::builder("typed-mcp-downstream", env!("CARGO_PKG_VERSION")).limits(limits),
            |builder, tool| builder.tool(tool),
        )
        .build()
}
