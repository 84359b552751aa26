//! The fixture tools whose schemas go beyond plain generated arguments.

use serde_json::Value;
use typed_mcp::mcp::{McpError, ToolDefinition, VerbatimSchema};
use typed_mcp::tools::ToolContext;

/// `json_schema_2020_12_tool`: its argument schema uses JSON Schema 2020-12 beyond what the
/// generator types (`$defs` + `$ref`, `$anchor`, `allOf` / `anyOf`, `if` / `then` / `else`),
/// so it is published verbatim and enforced by the runtime validator.
pub(crate) fn json_schema_2020_12() -> Result<ToolDefinition, McpError> {
    let schema = VerbatimSchema::from_json_text(include_str!("json_schema_2020_12_tool.json"))?;
    ToolDefinition::from_json_async(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        schema,
        |_ctx: ToolContext, args: Value| async move {
            let contact = ["phone", "email"]
                .into_iter()
                .find(|field| args.get(*field).is_some())
                .unwrap_or("nothing");
            Ok(Value::from(format!(
                "Arguments accepted; contact by {contact}."
            )))
        },
    )
}
