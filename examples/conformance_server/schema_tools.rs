//! The fixture tools whose schemas go beyond plain generated arguments.

use serde_json::Value;
use typed_mcp::mcp::{McpError, ToolDefinition, VerbatimSchema};
use typed_mcp::tools::{ToolCallError, ToolContext};

use super::arguments::{AddArguments, AddOutput};

/// `json_schema_2020_12_tool`: its argument schema uses JSON Schema 2020-12 beyond what the
/// generator types (`$defs` + `$ref`, `$anchor`, `allOf` / `anyOf`, `if` / `then` / `else`),
/// so it is published verbatim and enforced by the runtime validator.
pub(crate) fn json_schema_2020_12() -> Result<ToolDefinition, McpError> {
    let schema = VerbatimSchema::from_json_text(include_str!("json_schema_2020_12_tool.json"))?;
    ToolDefinition::new(
        "json_schema_2020_12_tool",
        |_ctx: ToolContext, args: Value| async move {
            let contact = ["phone", "email"]
                .into_iter()
                .find(|field| args.get(*field).is_some())
                .unwrap_or("nothing");
            Ok(Value::from(format!(
                "Arguments accepted; contact by {contact}."
            )))
        },
    )?
    .description("Tool with JSON Schema 2020-12 features")
    .input_schema(schema)
}

/// `test_typed_output`: adds two integers and returns the generated `AddOutput`, published
/// as its `outputSchema` (inside the uniform envelope). A sum over 1000 violates the output
/// definition (`maximum: 1000`) and is refused before sending (an `INTERNAL` error result).
pub(crate) fn typed_output() -> Result<ToolDefinition, McpError> {
    ToolDefinition::new(
        "test_typed_output",
        |_ctx: ToolContext, args: AddArguments| async move {
            let sum = args.a + args.b;
            Ok::<_, ToolCallError>(AddOutput {
                sum,
                summary: format!("{} + {} = {sum}", args.a, args.b),
            })
        },
    )
    .map(|tool| tool.description("Adds two integers; the output is typed (a sum of at most 1000)."))
}
