//! The calls of clients generated from a server snapshot (`typed-mcp-codegen`'s
//! `Config::server_snapshot`): typed arguments checked by their generated validator before
//! they are sent, and a result checked by the output type's validator before it is decoded.
//! Generated code reaches these through `__private::v1` only.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::generated::protocol::ContentBlock;
use crate::validation::ValidationError;

use super::{Client, ClientError, ToolReply};

/// A generated validator: every violation of `value`, or `Ok`.
pub type Check = fn(&Value) -> Result<(), Vec<ValidationError>>;

/// The check of a schema the generator could not type: accepts everything.
///
/// # Errors
///
/// Never.
pub fn accept_any(_: &Value) -> Result<(), Vec<ValidationError>> {
    Ok(())
}

/// Calls `tool` with `arguments` (checked by `check_arguments` first) and returns its
/// `structuredContent`, checked by `check_output` and decoded.
///
/// # Errors
///
/// [`ClientError::InvalidRequest`] for arguments that break their schema (nothing is sent);
/// [`ClientError::ToolFailed`] for a result with `isError`; [`ClientError::InvalidMessage`]
/// for a result without `structuredContent` or one that breaks the output schema (each
/// violation under `/structuredContent`); any request error.
pub async fn call_tool_output<A: Serialize, O: DeserializeOwned>(
    client: &Client,
    tool: &str,
    arguments: &A,
    check_arguments: Check,
    check_output: Check,
) -> Result<O, ClientError> {
    let result = call(client, tool, arguments, check_arguments).await?;
    let invalid = |errors| ClientError::InvalidMessage {
        what: format!("tools/call result of `{tool}`"),
        definition: "outputSchema",
        errors,
    };
    let Some(structured) = result.structured_content() else {
        return Err(invalid(single(
            "/structuredContent",
            "required",
            "the result has no structuredContent",
        )));
    };
    check_output(&structured).map_err(|errors| invalid(prefixed("/structuredContent", errors)))?;
    serde_json::from_value(structured).map_err(|_| {
        invalid(single(
            "/structuredContent",
            "type",
            "the structured result does not decode into the output type",
        ))
    })
}

/// Calls `tool` (a tool without an `outputSchema`) with `arguments` (checked by
/// `check_arguments` first) and returns its content blocks.
///
/// # Errors
///
/// As [`call_tool_output`], without the output checks.
pub async fn call_tool_content<A: Serialize>(
    client: &Client,
    tool: &str,
    arguments: &A,
    check_arguments: Check,
) -> Result<Vec<ContentBlock>, ClientError> {
    let result = call(client, tool, arguments, check_arguments).await?;
    Ok(match result {
        ToolReply::Modern(result) => result.content,
        ToolReply::Legacy(result) => result.content,
    })
}

/// The checked call, a failure reported by the tool made an error.
async fn call<A: Serialize>(
    client: &Client,
    tool: &str,
    arguments: &A,
    check_arguments: Check,
) -> Result<ToolReply, ClientError> {
    let invalid = |errors| ClientError::InvalidRequest {
        method: "tools/call".to_owned(),
        errors,
    };
    let arguments = serde_json::to_value(arguments).map_err(|_| {
        invalid(single(
            "/params/arguments",
            "type",
            "the arguments cannot be written as JSON",
        ))
    })?;
    check_arguments(&arguments).map_err(|errors| invalid(prefixed("/params/arguments", errors)))?;
    let result = client.call_tool(tool, arguments).await?;
    if result.is_error() {
        return Err(ClientError::ToolFailed {
            tool: tool.to_owned(),
            result: Box::new(result),
        });
    }
    Ok(result)
}

fn prefixed(prefix: &str, errors: Vec<ValidationError>) -> Vec<ValidationError> {
    errors
        .into_iter()
        .map(|mut error| {
            error.prefix_path(prefix);
            error
        })
        .collect()
}

fn single(path: &str, keyword: &str, message: &str) -> Vec<ValidationError> {
    vec![ValidationError::new(
        path,
        "",
        keyword,
        Value::Null,
        Value::Null,
        message,
    )]
}
