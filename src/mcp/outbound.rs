//! Outbound validation: every result the server writes is checked with the generated
//! validator of its result type first. A result that fails is logged to stderr with every
//! violation and replaced by `-32603` (the request loop adds the request id), so a malformed
//! message never reaches the wire.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::params::{internal_error, Validator};
use crate::server::HandlerResult;
use crate::validation::SchemaDefinition;

/// A result type the server writes: its schema definition's name (for logs) and its
/// generated validator, both taken from the type's generated [`SchemaDefinition`] impl.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResultKind {
    /// The schema definition's name (for logs).
    name: &'static str,
    validator: Validator,
}

impl ResultKind {
    /// The kind of the generated result type `T`.
    pub(crate) const fn of<T: SchemaDefinition>() -> Self {
        Self {
            name: T::NAME,
            validator: T::validate_value,
        }
    }
}

/// Serializes `result`, validates it with its type's generated validator and returns it as
/// the response's `result`.
pub(crate) fn respond<T: SchemaDefinition + Serialize>(result: &T) -> HandlerResult {
    let kind = ResultKind::of::<T>();
    match serde_json::to_value(result) {
        Ok(value) => respond_value(kind, &value),
        Err(error) => {
            tracing::error!(result = kind.name, %error, "serializing a result failed");
            Err(internal_error("the server failed to build its result"))
        }
    }
}

/// Validates an already built result value as `kind` and returns it as raw JSON.
pub(crate) fn respond_value(kind: ResultKind, value: &Value) -> HandlerResult {
    respond_value_checked(kind, value)?;
    serde_json::value::to_raw_value(value).map_err(|error| {
        tracing::error!(result = kind.name, %error, "serializing a result failed");
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

/// Validates `value`, the value `rendered` was written from (built from the same
/// `Serialize` value, so no text is parsed back), and sends `rendered` as it is.
pub(crate) fn respond_checked(
    kind: ResultKind,
    value: &Value,
    rendered: Box<RawValue>,
) -> HandlerResult {
    respond_value_checked(kind, value)?;
    Ok(rendered)
}

/// The validation half of [`respond_value`].
fn respond_value_checked(
    kind: ResultKind,
    value: &Value,
) -> Result<(), crate::jsonrpc::ErrorObject<'static>> {
    if let Err(errors) = (kind.validator)(value) {
        let listed: Vec<String> = errors.iter().map(ToString::to_string).collect();
        tracing::error!(
            result = kind.name,
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
    use crate::generated::protocol::{LegacyListToolsResult, ListToolsResult};
    use crate::jsonrpc::ErrorCode;
    use serde_json::json;

    #[test]
    fn a_valid_result_is_sent_unchanged() {
        let value = json!({ "tools": [] });
        let raw = respond_value(ResultKind::of::<LegacyListToolsResult>(), &value).unwrap();
        assert_eq!(raw.get(), r#"{"tools":[]}"#);
    }

    #[test]
    fn a_kind_takes_its_name_and_validator_from_the_generated_type() {
        let kind = ResultKind::of::<ListToolsResult>();
        assert_eq!(kind.name, "ListToolsResult");
        assert!((kind.validator)(&json!({ "tools": [] })).is_err());
        let legacy = ResultKind::of::<LegacyListToolsResult>();
        assert_eq!(legacy.name, "LegacyListToolsResult");
        assert!((legacy.validator)(&json!({ "tools": [] })).is_ok());
    }

    #[test]
    fn a_kept_value_is_validated_and_the_rendered_text_sent() {
        let kind = ResultKind::of::<LegacyListToolsResult>();
        let rendered = serde_json::value::to_raw_value(&json!({ "tools": [] })).unwrap();
        let sent = respond_checked(kind, &json!({ "tools": [] }), rendered.clone()).unwrap();
        assert_eq!(sent.get(), rendered.get());
        // The kept value decides: an invalid one is refused, whatever the text.
        let error = respond_checked(kind, &json!({ "tools": 1 }), rendered).unwrap_err();
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    }

    #[test]
    fn an_invalid_result_becomes_an_internal_error() {
        // A modern list result without its cache hints.
        let value = json!({ "resultType": "complete", "tools": [] });
        let error = respond_value(ResultKind::of::<ListToolsResult>(), &value).unwrap_err();
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
        assert!(error.data.is_none());
    }
}
