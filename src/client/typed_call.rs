//! `tools/call` with typed arguments and a typed, checked result: the arguments are
//! validated by their generated validator before they are sent, and the tool's
//! `structuredContent` against the `outputSchema` the server published for it in
//! `tools/list` (a JSON Schema known only at run time, checked with the `jsonschema` crate;
//! feature `output-schema`), then against the output type's own validator, before it is
//! decoded. A typed-mcp server's uniform envelope (`{"ok": true, "data": .., "meta": ..}`)
//! is unwrapped: the caller gets `data` as its type.

#[cfg(feature = "output-schema")]
use std::collections::HashMap;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

#[cfg(feature = "output-schema")]
use crate::generated::protocol::Tool;
use crate::validation::{SchemaValidate, ValidationError};

use super::{Client, ClientError, ToolReply};

/// The `outputSchema` of each tool listed, by tool name (`None`: the tool has none).
#[cfg(feature = "output-schema")]
pub(crate) type OutputSchemas = HashMap<String, Option<Value>>;

/// Remembers the output schemas of `tools`.
#[cfg(feature = "output-schema")]
pub(crate) fn learn(schemas: &mut OutputSchemas, tools: &[Tool]) {
    schemas.clear();
    for tool in tools {
        let schema = tool
            .output_schema
            .as_ref()
            .and_then(|schema| serde_json::to_value(schema).ok());
        schemas.insert(tool.name.clone(), schema);
    }
}

/// One violation of the published output schema, described without quoting the value.
#[cfg(feature = "output-schema")]
fn violation(error: &jsonschema::ValidationError<'_>) -> ValidationError {
    let keyword = error.kind().keyword().to_owned();
    ValidationError::new(
        format!("/structuredContent{}", error.instance_path()),
        error.schema_path().to_string(),
        keyword.clone(),
        Value::Null,
        Value::Null,
        format!("breaks the `{keyword}` keyword of the tool's outputSchema"),
    )
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

/// Checks `structured` against the published `schema`.
#[cfg(feature = "output-schema")]
fn check_output(schema: &Value, structured: &Value) -> Result<(), Vec<ValidationError>> {
    let validator = jsonschema::validator_for(schema).map_err(|_| {
        single(
            "",
            "outputSchema",
            "the tool's published outputSchema is not a usable JSON Schema",
        )
    })?;
    let errors: Vec<ValidationError> = validator
        .iter_errors(structured)
        .map(|e| violation(&e))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

impl Client {
    /// `tools/call` with typed arguments and a typed result: the tool's data, whatever the
    /// protocol era, without the result envelope.
    ///
    /// `arguments` is checked by `Args`'s generated validator before anything is sent. The
    /// answer's `structuredContent` must be present, valid against the `outputSchema` the
    /// server published for the tool (feature `output-schema`; the tools are listed first if
    /// they were not yet), and against `Out`'s own validator; it is then decoded into `Out`.
    /// When it is a typed-mcp server's uniform envelope (`{"ok": true, "data": .., "meta":
    /// ..}`) and `Out` is not that envelope itself, its `data` is what is checked by `Out`'s
    /// validator and decoded.
    ///
    /// ```no_run
    /// # async fn run(client: typed_mcp::client::Client) -> Result<(), typed_mcp::client::ClientError> {
    /// # use typed_mcp::validation::{SchemaValidate, ValidationError};
    /// # #[derive(serde::Serialize)] struct AddArguments { a: i64, b: i64 }
    /// # #[derive(serde::Deserialize)] struct AddOutput { sum: i64 }
    /// # impl SchemaValidate for AddArguments {
    /// #     fn validate_value(_: &serde_json::Value) -> Result<(), Vec<ValidationError>> { Ok(()) }
    /// # }
    /// # impl SchemaValidate for AddOutput {
    /// #     fn validate_value(_: &serde_json::Value) -> Result<(), Vec<ValidationError>> { Ok(()) }
    /// # }
    /// // `AddArguments` and `AddOutput` are generated from the server's schema file.
    /// let output: AddOutput = client.call_tool_typed("add", &AddArguments { a: 2, b: 3 }).await?;
    /// assert_eq!(output.sum, 5);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidRequest`] for arguments that break `Args`'s schema;
    /// [`ClientError::ToolFailed`] when the tool reports a failure (`isError`);
    /// [`ClientError::InvalidMessage`] when the structured result is missing or breaks the
    /// published schema or `Out`'s (each violation with its path under
    /// `/structuredContent`); any request error.
    pub async fn call_tool_typed<Args, Out>(
        &self,
        name: &str,
        arguments: &Args,
    ) -> Result<Out, ClientError>
    where
        Args: Serialize + SchemaValidate,
        Out: DeserializeOwned + SchemaValidate,
    {
        let invalid_request = |errors| ClientError::InvalidRequest {
            method: "tools/call".to_owned(),
            errors,
        };
        let arguments = serde_json::to_value(arguments).map_err(|_| {
            invalid_request(single(
                "/params/arguments",
                "type",
                "the arguments cannot be written as JSON",
            ))
        })?;
        Args::validate_value(&arguments).map_err(|errors| {
            invalid_request(
                errors
                    .into_iter()
                    .map(|mut error| {
                        error.prefix_path("/params/arguments");
                        error
                    })
                    .collect(),
            )
        })?;
        #[cfg(feature = "output-schema")]
        let published = self.published_output_schema(name).await?;
        #[cfg(not(feature = "output-schema"))]
        let published: Option<Value> = None;
        let result = self.call_tool(name, arguments).await?;
        if result.is_error() {
            return Err(ClientError::ToolFailed {
                tool: name.to_owned(),
                result: Box::new(result),
            });
        }
        structured_output(name, &result, published.as_ref())
    }

    /// The `outputSchema` the server published for `tool` (listing the tools if they were
    /// not listed yet).
    #[cfg(feature = "output-schema")]
    async fn published_output_schema(&self, tool: &str) -> Result<Option<Value>, ClientError> {
        let known = self
            .inner
            .output_schemas
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(tool)
            .cloned();
        if let Some(known) = known {
            return Ok(known);
        }
        self.list_tools().await?;
        Ok(self
            .inner
            .output_schemas
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(tool)
            .cloned()
            .flatten())
    }
}

/// The checked and decoded `structuredContent` of a successful call.
fn structured_output<Out: DeserializeOwned + SchemaValidate>(
    tool: &str,
    result: &ToolReply,
    published: Option<&Value>,
) -> Result<Out, ClientError> {
    let invalid = |definition, errors| ClientError::InvalidMessage {
        what: format!("tools/call result of `{tool}`"),
        definition,
        errors,
    };
    let Some(structured) = result.structured_content() else {
        return Err(invalid(
            "outputSchema",
            single(
                "/structuredContent",
                "required",
                "the result has no structuredContent",
            ),
        ));
    };
    #[cfg(feature = "output-schema")]
    if let Some(schema) = published {
        check_output(schema, &structured).map_err(|errors| invalid("outputSchema", errors))?;
    }
    #[cfg(not(feature = "output-schema"))]
    let _: Option<&Value> = published;
    let (structured, at) = match envelope_data(&structured) {
        Some(data) if Out::validate_value(&structured).is_err() => {
            (data.clone(), "/structuredContent/data")
        }
        _ => (structured, "/structuredContent"),
    };
    let prefixed = |errors: Vec<ValidationError>| {
        errors
            .into_iter()
            .map(|mut error| {
                error.prefix_path(at);
                error
            })
            .collect()
    };
    Out::validate_value(&structured)
        .map_err(|errors| invalid("the output type's schema", prefixed(errors)))?;
    serde_json::from_value(structured).map_err(|_| {
        invalid(
            "the output type's schema",
            single(
                at,
                "type",
                "the structured result does not decode into the output type",
            ),
        )
    })
}

/// The `data` of a successful typed-mcp result envelope (`{"ok": true, "data": .., "meta":
/// ..}`, nothing else), if `structured` is one.
fn envelope_data(structured: &Value) -> Option<&Value> {
    let envelope = structured.as_object()?;
    let only_envelope_keys = envelope
        .keys()
        .all(|key| matches!(key.as_str(), "ok" | "data" | "meta"));
    if only_envelope_keys && envelope.get("ok") == Some(&Value::Bool(true)) {
        envelope
            .get("data")
            .filter(|_| envelope.contains_key("meta"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_successful_envelope_is_unwrapped() {
        let data = serde_json::json!({"sum": 5});
        let envelope = serde_json::json!({"ok": true, "data": data, "meta": {"durationMs": 1}});
        assert_eq!(envelope_data(&envelope), Some(&data));
        for other in [
            serde_json::json!({"ok": false, "error": {}, "meta": {}}),
            serde_json::json!({"ok": true, "data": data}),
            serde_json::json!({"ok": true, "data": data, "meta": {}, "extra": 1}),
            serde_json::json!({"sum": 5}),
            serde_json::json!([1]),
        ] {
            assert_eq!(envelope_data(&other), None, "{other}");
        }
    }

    #[cfg(feature = "output-schema")]
    #[test]
    fn output_violations_point_into_structured_content_without_quoting_it() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"sum": {"type": "number"}},
            "required": ["sum"]
        });
        assert!(check_output(&schema, &serde_json::json!({"sum": 5})).is_ok());
        let errors = check_output(&schema, &serde_json::json!({"sum": "secret-text"}))
            .expect_err("a string is not a number");
        assert_eq!(errors[0].path(), "/structuredContent/sum");
        assert_eq!(errors[0].keyword(), "type");
        assert!(!errors[0].message().contains("secret-text"));
        let unusable = serde_json::json!({"type": 5});
        assert!(check_output(&unusable, &serde_json::json!({})).is_err());
    }
}
