//! The suite's `input_required` fixtures (2026-07-28: a handler's question is a result the
//! client answers by retrying; 2025: a request on the connection): tools asking one, several
//! and successive questions, and a prompt that asks before it renders.

use serde_json::{json, Value};
use typed_mcp::mcp::{user_text, McpError, PromptDefinition, PromptError, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

use super::arguments::NoArguments;

/// Asks the client under `key` (2025: a request on the connection; 2026-07-28: an
/// `input_required` result until the retry brings the answer).
async fn ask(
    ctx: &ToolContext,
    key: &str,
    method: &'static str,
    params: Value,
) -> Result<Value, ToolCallError> {
    ctx.ask(Some(key), method, params)
        .await
        .map_err(|error| ToolCallError::failed(error.to_string()))
}

/// An elicitation of one required field.
fn elicitation_params(message: &str, field: &str, kind: &str) -> Value {
    json!({
        "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    })
}

/// A sampling request of one user message.
fn sampling_params(text: &str, max_tokens: u32) -> Value {
    json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": max_tokens})
}

/// The name (elicitation), a greeting (sampling) and the roots, asked at once: in
/// 2026-07-28 one `input_required` result carries every question the client can answer.
async fn three_questions(
    ctx: &ToolContext,
) -> (
    Result<Value, ToolCallError>,
    Result<Value, ToolCallError>,
    Result<Value, ToolCallError>,
) {
    tokio::join!(
        ask(
            ctx,
            "user_name",
            "elicitation/create",
            elicitation_params("What is your name?", "name", "string"),
        ),
        ask(
            ctx,
            "greeting",
            "sampling/createMessage",
            sampling_params("Generate a greeting", 50),
        ),
        ask(ctx, "client_roots", "roots/list", json!({})),
    )
}

/// A tool that asks for a confirmation under `confirm`, then answers `done`.
fn confirming(
    name: &str,
    description: &str,
    done: &'static str,
) -> Result<ToolDefinition, McpError> {
    ToolDefinition::new(
        name,
        move |ctx: ToolContext, _args: NoArguments| async move {
            let _answer = ask(
                &ctx,
                "confirm",
                "elicitation/create",
                elicitation_params("Please confirm", "ok", "boolean"),
            )
            .await?;
            Ok(Value::from(done))
        },
    )
    .map(|tool| tool.description(description))
}

/// The `test_input_required_result_*` tools and `test_streaming_elicitation`.
pub(crate) fn tools() -> Result<Vec<ToolDefinition>, McpError> {
    let elicitation = ToolDefinition::new(
        "test_input_required_result_elicitation",
        |ctx: ToolContext, _args: NoArguments| async move {
            let answer = ask(
                &ctx,
                "user_name",
                "elicitation/create",
                elicitation_params("What is your name?", "name", "string"),
            )
            .await?;
            Ok(Value::from(format!(
                "Hello, {}!",
                answer["content"]["name"].as_str().unwrap_or("stranger")
            )))
        },
    )?
    .description("Asks the user's name (input_required in 2026-07-28, key user_name).");
    let sampling = ToolDefinition::new(
        "test_input_required_result_sampling",
        |ctx: ToolContext, _args: NoArguments| async move {
            let answer = ask(
                &ctx,
                "capital_question",
                "sampling/createMessage",
                sampling_params("What is the capital of France?", 100),
            )
            .await?;
            Ok(Value::from(
                answer["content"]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            ))
        },
    )?
    .description("Asks the client's model a question (input_required).");
    let roots = ToolDefinition::new(
        "test_input_required_result_list_roots",
        |ctx: ToolContext, _args: NoArguments| async move {
            let answer = ask(&ctx, "client_roots", "roots/list", json!({})).await?;
            let roots: Vec<&str> = answer["roots"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|root| root["uri"].as_str())
                .collect();
            Ok(Value::from(format!(
                "Found {} root(s): {}",
                roots.len(),
                roots.join(", ")
            )))
        },
    )?
    .description("Asks for the client's roots (input_required).");
    let multiple = ToolDefinition::new(
        "test_input_required_result_multiple_inputs",
        |ctx: ToolContext, _args: NoArguments| async move {
            let (name, greeting, roots) = three_questions(&ctx).await;
            let (name, greeting, _roots) = (name?, greeting?, roots?);
            Ok(Value::from(format!(
                "{} {}",
                greeting["content"]["text"].as_str().unwrap_or("Hello"),
                name["content"]["name"].as_str().unwrap_or("stranger")
            )))
        },
    )?
    .description("Asks three questions at once (elicitation, sampling, roots).");
    let rounds = ToolDefinition::new(
        "test_input_required_result_multi_round",
        |ctx: ToolContext, _args: NoArguments| async move {
            let name = ask(
                &ctx,
                "step1",
                "elicitation/create",
                elicitation_params("Step 1: What is your name?", "name", "string"),
            )
            .await?;
            let color = ask(
                &ctx,
                "step2",
                "elicitation/create",
                elicitation_params("Step 2: What is your favorite color?", "color", "string"),
            )
            .await?;
            Ok(Value::from(format!(
                "Multi-round complete for {} who likes {}",
                name["content"]["name"].as_str().unwrap_or("someone"),
                color["content"]["color"].as_str().unwrap_or("something")
            )))
        },
    )?
    .description("Asks a name, then a colour (two rounds).");
    let streaming = ToolDefinition::new(
        "test_streaming_elicitation",
        |ctx: ToolContext, _args: NoArguments| async move {
            let answer = ctx
                .elicit(elicitation_params("Anything to add?", "note", "string"))
                .await
                .map_err(|error| ToolCallError::failed(error.to_string()))?;
            Ok(Value::from(format!("Noted: {}", answer["content"]["note"])))
        },
    )?
    .description(
        "Elicits while the call runs: in 2026-07-28 the question is an input_required result, \
         never a request on the response stream.",
    );
    let capabilities = ToolDefinition::new(
        "test_input_required_result_capabilities",
        |ctx: ToolContext, _args: NoArguments| async move {
            let (name, greeting, roots) = three_questions(&ctx).await;
            let answered = [name, greeting, roots]
                .into_iter()
                .filter(Result::is_ok)
                .count();
            Ok(Value::from(format!("{answered} question(s) answered")))
        },
    )?
    .description(
        "Would like elicitation, sampling and roots; asks only what the client can answer.",
    );
    Ok(vec![
        elicitation,
        sampling,
        roots,
        confirming(
            "test_input_required_result_request_state",
            "Asks for a confirmation; the answer round-trips through requestState.",
            "state-ok: requestState validated",
        )?,
        multiple,
        rounds,
        confirming(
            "test_input_required_result_tampered_state",
            "Asks for a confirmation; an altered requestState is refused.",
            "confirmed",
        )?,
        capabilities,
        streaming,
    ])
}

/// `test_input_required_result_prompt`: asks the user for context before rendering.
pub(crate) fn prompt() -> PromptDefinition {
    PromptDefinition::asking(
        "test_input_required_result_prompt",
        "Asks the user for context before rendering (input_required in 2026-07-28).",
        |ctx, _args| async move {
            let answer = ctx
                .ask(
                    Some("user_context"),
                    "elicitation/create",
                    elicitation_params("What context should the prompt use?", "context", "string"),
                )
                .await
                .map_err(|error| PromptError::Failed(error.to_string()))?;
            Ok(vec![user_text(format!(
                "Prompt with context: {}",
                answer["content"]["context"].as_str().unwrap_or_default()
            ))])
        },
    )
}
