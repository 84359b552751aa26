//! Outbound validation: every result the server writes is checked with the generated
//! validator of its result type first. A result that fails is logged to stderr with every
//! violation and replaced by `-32603` (the request loop adds the request id), so a malformed
//! message never reaches the wire.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::params::{internal_error, Validator};
use crate::generated::mcp::protocol::validate;
use crate::server::HandlerResult;

/// The result types the server writes, each with its generated validator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResultKind {
    Initialize,
    Empty,
    Discover,
    LegacyListTools,
    ListTools,
    LegacyCallTool,
    CallTool,
    LegacyListResources,
    ListResources,
    LegacyListResourceTemplates,
    ListResourceTemplates,
    LegacyReadResource,
    ReadResource,
    LegacyListPrompts,
    ListPrompts,
    LegacyGetPrompt,
    GetPrompt,
    LegacyComplete,
    Complete,
    InputRequired,
}

impl ResultKind {
    /// The schema definition's name (for logs).
    pub(crate) fn type_name(self) -> &'static str {
        match self {
            Self::Initialize => "InitializeResult",
            Self::Empty => "EmptyResult",
            Self::Discover => "DiscoverResult",
            Self::LegacyListTools => "LegacyListToolsResult",
            Self::ListTools => "ListToolsResult",
            Self::LegacyCallTool => "LegacyCallToolResult",
            Self::CallTool => "CallToolResult",
            Self::LegacyListResources => "LegacyListResourcesResult",
            Self::ListResources => "ListResourcesResult",
            Self::LegacyListResourceTemplates => "LegacyListResourceTemplatesResult",
            Self::ListResourceTemplates => "ListResourceTemplatesResult",
            Self::LegacyReadResource => "LegacyReadResourceResult",
            Self::ReadResource => "ReadResourceResult",
            Self::LegacyListPrompts => "LegacyListPromptsResult",
            Self::ListPrompts => "ListPromptsResult",
            Self::LegacyGetPrompt => "LegacyGetPromptResult",
            Self::GetPrompt => "GetPromptResult",
            Self::LegacyComplete => "LegacyCompleteResult",
            Self::Complete => "CompleteResult",
            Self::InputRequired => "InputRequiredResult",
        }
    }

    fn validator(self) -> Validator {
        match self {
            Self::Initialize => validate::initialize_result,
            Self::Empty => validate::empty_result,
            Self::Discover => validate::discover_result,
            Self::LegacyListTools => validate::legacy_list_tools_result,
            Self::ListTools => validate::list_tools_result,
            Self::LegacyCallTool => validate::legacy_call_tool_result,
            Self::CallTool => validate::call_tool_result,
            Self::LegacyListResources => validate::legacy_list_resources_result,
            Self::ListResources => validate::list_resources_result,
            Self::LegacyListResourceTemplates => validate::legacy_list_resource_templates_result,
            Self::ListResourceTemplates => validate::list_resource_templates_result,
            Self::LegacyReadResource => validate::legacy_read_resource_result,
            Self::ReadResource => validate::read_resource_result,
            Self::LegacyListPrompts => validate::legacy_list_prompts_result,
            Self::ListPrompts => validate::list_prompts_result,
            Self::LegacyGetPrompt => validate::legacy_get_prompt_result,
            Self::GetPrompt => validate::get_prompt_result,
            Self::LegacyComplete => validate::legacy_complete_result,
            Self::Complete => validate::complete_result,
            Self::InputRequired => validate::input_required_result,
        }
    }
}

/// Serializes `result`, validates it as `kind` and returns it as the response's `result`.
pub(crate) fn respond<T: Serialize>(kind: ResultKind, result: &T) -> HandlerResult {
    match serde_json::to_value(result) {
        Ok(value) => respond_value(kind, &value),
        Err(error) => {
            tracing::error!(result = kind.type_name(), %error, "serializing a result failed");
            Err(internal_error("the server failed to build its result"))
        }
    }
}

/// Validates an already built result value as `kind` and returns it as raw JSON.
pub(crate) fn respond_value(kind: ResultKind, value: &Value) -> HandlerResult {
    respond_value_checked(kind, value)?;
    serde_json::value::to_raw_value(value).map_err(|error| {
        tracing::error!(result = kind.type_name(), %error, "serializing a result failed");
        internal_error("the server failed to build its result")
    })
}

/// Validates a result the tool runner already rendered as compact JSON, and sends that text
/// as it is: parsing it once for the validator is needed, serializing it again is not.
pub(crate) fn respond_rendered(kind: ResultKind, rendered: Box<RawValue>) -> HandlerResult {
    let value = parse_rendered(&rendered)?;
    respond_value_checked(kind, &value)?;
    Ok(rendered)
}

/// The validation half of [`respond_value`].
fn respond_value_checked(
    kind: ResultKind,
    value: &Value,
) -> Result<(), crate::jsonrpc::ErrorObject<'static>> {
    if let Err(errors) = (kind.validator())(value) {
        let listed: Vec<String> = errors.iter().map(ToString::to_string).collect();
        tracing::error!(
            result = kind.type_name(),
            violations = errors.len(),
            errors = %listed.join("; "),
            "outbound validation failed: the result was replaced by an internal error"
        );
        return Err(internal_error(
            "the server produced an invalid result; it was not sent",
        ));
    }
    Ok(())
}

/// Parses a result the tool runner rendered, for [`respond_value`].
pub(crate) fn parse_rendered(
    raw: &RawValue,
) -> Result<Value, crate::jsonrpc::ErrorObject<'static>> {
    serde_json::from_str(raw.get()).map_err(|error| {
        tracing::error!(%error, "a rendered tool result is not valid JSON");
        internal_error("the server failed to build its result")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::ErrorCode;
    use serde_json::json;

    #[test]
    fn a_valid_result_is_sent_unchanged() {
        let value = json!({ "tools": [] });
        let raw = respond_value(ResultKind::LegacyListTools, &value).unwrap();
        assert_eq!(raw.get(), r#"{"tools":[]}"#);
    }

    #[test]
    fn an_invalid_result_becomes_an_internal_error() {
        // A modern list result without its cache hints.
        let value = json!({ "resultType": "complete", "tools": [] });
        let error = respond_value(ResultKind::ListTools, &value).unwrap_err();
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
        assert!(error.data.is_none());
    }
}
