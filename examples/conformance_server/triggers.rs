//! The suite's hooks for list changes while serving: `test_trigger_tool_change` and
//! `test_trigger_prompt_change` each toggle one item (added when absent, removed when present)
//! through the server's own `add_*` / `remove_*`, so every open `subscriptions/listen` stream
//! (and every 2025 session) that asked for it is told `notifications/*/list_changed`.

use std::sync::{Arc, OnceLock};

use serde_json::Value;
use typed_mcp::mcp::{user_text, McpError, McpServer, PromptDefinition, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

use super::arguments::NoArguments;

/// The running server, filled in once it is built (the hooks change it while it serves).
pub(crate) type ServerSlot = Arc<OnceLock<McpServer>>;

fn server(slot: &ServerSlot) -> Result<&McpServer, ToolCallError> {
    slot.get().ok_or_else(|| ToolCallError::Internal {
        message: "the server is not built yet".to_owned(),
    })
}

fn internal(error: McpError) -> ToolCallError {
    ToolCallError::Internal {
        message: format!("changing the list failed: {error}"),
    }
}

/// The tool the tool hook adds and removes.
fn dynamic_tool() -> Result<ToolDefinition, McpError> {
    ToolDefinition::new(
        "test_dynamic_tool",
        |_ctx: ToolContext, _args: NoArguments| async move { Ok(Value::from("dynamic")) },
    )
    .map(|tool| tool.description("Added and removed by test_trigger_tool_change."))
}

/// The two hook tools.
pub(crate) fn trigger_tools(slot: &ServerSlot) -> Result<Vec<ToolDefinition>, McpError> {
    let tools_slot = Arc::clone(slot);
    let tool_change = ToolDefinition::new(
        "test_trigger_tool_change",
        move |_ctx: ToolContext, _args: NoArguments| {
            let slot = Arc::clone(&tools_slot);
            async move {
                let server = server(&slot)?;
                if server.remove_tool("test_dynamic_tool").await {
                    return Ok(Value::from("removed test_dynamic_tool"));
                }
                let tool = dynamic_tool().map_err(internal)?;
                server.add_tool(tool).await.map_err(internal)?;
                Ok(Value::from("added test_dynamic_tool"))
            }
        },
    )?
    .description("Adds test_dynamic_tool, or removes it when present (tools list_changed).");
    let prompts_slot = Arc::clone(slot);
    let prompt_change = ToolDefinition::new(
        "test_trigger_prompt_change",
        move |_ctx: ToolContext, _args: NoArguments| {
            let slot = Arc::clone(&prompts_slot);
            async move {
                let server = server(&slot)?;
                if server.remove_prompt("test_dynamic_prompt").await {
                    return Ok(Value::from("removed test_dynamic_prompt"));
                }
                let prompt = PromptDefinition::new(
                    "test_dynamic_prompt",
                    "Added and removed by test_trigger_prompt_change.",
                    |_| Ok(vec![user_text("A prompt that comes and goes.")]),
                );
                server.add_prompt(prompt).await.map_err(internal)?;
                Ok(Value::from("added test_dynamic_prompt"))
            }
        },
    )?
    .description("Adds test_dynamic_prompt, or removes it when present (prompts list_changed).");
    Ok(vec![tool_change, prompt_change])
}
