//! The fixtures of the suite's Tasks scenarios (`tasks-*`, SEP-2663): a plain tool
//! (`greet`) and task-capable ones (`slow_compute`, `failing_job`, `protocol_error_job`,
//! `confirm_delete`, `multi_input`, and `test_tool_with_task`, whose task starts after an
//! `input_required` round).

use std::time::Duration;

use serde_json::{json, Value};
use typed_mcp::mcp::tasks::TaskSupport;
use typed_mcp::mcp::{McpError, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

use super::arguments::{ConfirmDeleteArguments, GreetArguments, NoArguments, SlowComputeArguments};

/// An elicitation asking to confirm, with one boolean field.
fn confirmation(message: &str) -> Value {
    json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {"confirm": {"type": "boolean"}},
            "required": ["confirm"]
        }
    })
}

/// Asks the client `params` under `key`, as an elicitation.
async fn elicit(ctx: &ToolContext, key: &str, params: Value) -> Result<Value, ToolCallError> {
    ctx.ask(Some(key), "elicitation/create", params)
        .await
        .map_err(|error| ToolCallError::failed(error.to_string()))
}

/// The task fixtures.
pub(crate) fn task_tools() -> Result<Vec<ToolDefinition>, McpError> {
    let greet = ToolDefinition::new(
        "greet",
        |_ctx: ToolContext, args: GreetArguments| async move {
            Ok(Value::String(format!("Hello, {}!", args.name)))
        },
    )?
    .description("Greets by name (never a task).");
    let slow_compute = ToolDefinition::new(
        "slow_compute",
        |ctx: ToolContext, args: SlowComputeArguments| async move {
            let seconds = args.seconds.as_f64().unwrap_or(0.0).clamp(0.0, 600.0);
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => {}
                () = ctx.cancelled() => return Err(ToolCallError::failed("cancelled")),
            }
            let label = args.label.unwrap_or_default();
            Ok(Value::String(format!("computed {label} in {seconds} s")))
        },
    )?
    .task_support(TaskSupport::Optional)
    .description("Sleeps the given seconds, then answers (a task when the client allows).");
    let failing_job = ToolDefinition::new(
        "failing_job",
        |_ctx: ToolContext, _args: NoArguments| async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            Err::<Value, _>(ToolCallError::failed("the job failed, as it always does"))
        },
    )?
    .task_support(TaskSupport::Required)
    .description("Always ends with a tool error (task only).");
    let protocol_error_job = ToolDefinition::new(
        "protocol_error_job",
        |_ctx: ToolContext, _args: NoArguments| async move {
            if std::hint::black_box(true) {
                panic!("protocol_error_job fails unexpectedly, on purpose");
            }
            Ok(Value::Null)
        },
    )?
    .task_support(TaskSupport::Optional)
    .description("Panics: the task fails with a protocol-level error.");
    let confirm_delete = ToolDefinition::new(
        "confirm_delete",
        |ctx: ToolContext, args: ConfirmDeleteArguments| async move {
            let message = format!("Delete {}?", args.filename);
            let answer = elicit(&ctx, "confirm", confirmation(&message)).await?;
            let confirmed = answer["action"] == "accept" && answer["content"]["confirm"] == true;
            Ok(Value::String(if confirmed {
                format!("deleted {}", args.filename)
            } else {
                format!("kept {}", args.filename)
            }))
        },
    )?
    .task_support(TaskSupport::Optional)
    .description("Asks the user to confirm a deletion (elicitation).");
    let multi_input = ToolDefinition::new(
        "multi_input",
        |ctx: ToolContext, _args: NoArguments| async move {
            let (first, second) = tokio::join!(
                elicit(&ctx, "first", confirmation("First question?")),
                elicit(&ctx, "second", confirmation("Second question?")),
            );
            let (first, second) = (first?, second?);
            Ok(Value::String(format!(
                "answers: {} and {}",
                first["action"], second["action"]
            )))
        },
    )?
    .task_support(TaskSupport::Optional)
    .description("Asks two questions at once (two pending inputs).");
    let with_task = ToolDefinition::new(
        "test_tool_with_task",
        |ctx: ToolContext, _args: NoArguments| async move {
            let question = json!({
                "message": "What is your name?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"]
                }
            });
            let answer = elicit(&ctx, "user_name", question).await?;
            let name = answer["content"]["name"]
                .as_str()
                .unwrap_or("stranger")
                .to_owned();
            ctx.run_as_task()
                .await
                .map_err(|error| ToolCallError::failed(error.to_string()))?;
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok(Value::String(format!("Hello, {name}! (from a task)")))
        },
    )?
    .task_support(TaskSupport::Required)
    .task_after_input()
    .description("Asks for a name (input_required), then runs as a task that greets it.");
    Ok(vec![
        greet,
        slow_compute,
        failing_job,
        protocol_error_job,
        confirm_delete,
        multi_input,
        with_task,
    ])
}
