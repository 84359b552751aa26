//! Tools whose argument schema is published verbatim and enforced by a complete runtime
//! JSON Schema validator (feature `runtime-schema`, off by default).
//!
//! The generated path ([`super::ArgumentSchema`] + a generated type) covers the object
//! definitions `typed-mcp-codegen` types, `$ref`s to other definitions of the same file
//! included. A schema that is not one definition of a schema file the build generates from,
//! or that refers to what only its file can resolve (another document, a `$anchor`, a pointer
//! into a definition), is registered with a [`VerbatimSchema`] instead:
//!
//! - `tools/list` publishes the schema exactly as given, every keyword and value kept;
//! - before the handler runs, the arguments are checked against that same schema by the
//!   `jsonschema` crate (every keyword of the schema's dialect, 2020-12 when `$schema` is
//!   absent; `format` is asserted, not only annotated, like the generated validators do);
//!   a violation is answered with a `VALIDATION_FAILED` result listing every violation (its
//!   instance path, schema path, keyword and the keyword's value; never the input itself),
//!   and the handler is not called;
//! - the handler receives the checked arguments as a [`serde_json::Value`]: there is no
//!   generated Rust type, so reading them is the handler's work.
//!
//! What is *not* enforced: `$ref`s are resolved inside the schema only (a reference to
//! another document makes registration fail: nothing is fetched), and the `contentEncoding` /
//! `contentMediaType` / `contentSchema` keywords are annotations, as in 2020-12.

use std::sync::Arc;

use serde_json::Value;

use super::{McpError, ToolDefinition};
use crate::generated::protocol::ToolInputSchema;
use crate::tools::{ToolCallError, ToolFuture, ToolHandler};
use crate::validation::ValidationError;

/// A tool argument schema published exactly as written and enforced at run time by a
/// complete JSON Schema validator (the `jsonschema` crate, feature `runtime-schema`): every
/// call's arguments are checked against it before the handler runs.
#[derive(Clone)]
pub struct VerbatimSchema {
    published: Value,
    validator: Arc<jsonschema::Validator>,
}

impl std::fmt::Debug for VerbatimSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerbatimSchema")
            .field("published", &self.published)
            .finish_non_exhaustive()
    }
}

impl VerbatimSchema {
    /// The schema given as a JSON value.
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidToolSchema`] unless the value is an object with `type: "object"`
    /// (MCP requires tool arguments to be an object) that compiles as a JSON Schema (a
    /// reference to another document does not), and every `examples` entry of the schema's
    /// root is valid against it.
    pub fn from_value(schema: Value) -> Result<Self, McpError> {
        let invalid = |reason: String| McpError::InvalidToolSchema {
            name: String::new(),
            reason,
        };
        if !schema.is_object() {
            return Err(invalid(
                "a tool's argument schema must be a JSON object".into(),
            ));
        }
        if schema.get("type") != Some(&Value::from("object")) {
            return Err(invalid(
                "a tool's argument schema must have type \"object\"".into(),
            ));
        }
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|error| {
                invalid(format!(
                    "the schema does not compile (at {}: {})",
                    pointer_or_root(error.schema_path().as_str()),
                    error.kind().keyword()
                ))
            })?;
        let examples = schema.get("examples").and_then(Value::as_array);
        for (index, example) in examples.into_iter().flatten().enumerate() {
            if !validator.is_valid(example) {
                return Err(invalid(format!(
                    "example {index} of the schema is rejected by the schema itself"
                )));
            }
        }
        Ok(Self {
            published: schema,
            validator: Arc::new(validator),
        })
    }

    /// The schema from its JSON text (e.g. `include_str!("tool.schema.json")`).
    ///
    /// # Errors
    ///
    /// As [`VerbatimSchema::from_value`], and when the text is not JSON.
    pub fn from_json_text(text: &str) -> Result<Self, McpError> {
        let schema = serde_json::from_str(text).map_err(|_| McpError::InvalidToolSchema {
            name: String::new(),
            reason: "the schema text is not JSON".to_owned(),
        })?;
        Self::from_value(schema)
    }

    /// The schema as `tools/list` publishes it.
    #[must_use]
    pub fn published(&self) -> &Value {
        &self.published
    }

    /// Checks `arguments` against the schema.
    ///
    /// # Errors
    ///
    /// Every violation found (never empty), described without quoting the input.
    pub fn validate(&self, arguments: &Value) -> Result<(), Vec<ValidationError>> {
        let violations: Vec<ValidationError> = self
            .validator
            .iter_errors(arguments)
            .map(|error| self.describe(&error))
            .collect();
        if violations.is_empty() {
            Ok(())
        } else {
            Err(violations)
        }
    }

    /// A violation in the crate's terms: where, which keyword, the keyword's value in the
    /// schema, and the offending value's JSON type (a number is shown as itself).
    fn describe(&self, error: &jsonschema::ValidationError<'_>) -> ValidationError {
        let keyword = error.kind().keyword().to_owned();
        let schema_path = error.schema_path().as_str().to_owned();
        let limit = self
            .published
            .pointer(&schema_path)
            .cloned()
            .unwrap_or(Value::Null);
        let instance: &Value = error.instance();
        let actual = match instance {
            Value::Number(number) => Value::Number(number.clone()),
            other => Value::from(json_type(other)),
        };
        let message = format!("the value does not satisfy the schema's `{keyword}` keyword");
        ValidationError::new(
            error.instance_path().as_str(),
            schema_path,
            keyword,
            limit,
            actual,
            message,
        )
    }

    fn input_schema(&self) -> Result<ToolInputSchema, McpError> {
        serde_json::from_value(self.published.clone()).map_err(|_| McpError::InvalidToolSchema {
            name: String::new(),
            reason: "the schema does not fit a tool's inputSchema".to_owned(),
        })
    }
}

fn pointer_or_root(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(root)"
    } else {
        pointer
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl<S: Send + Sync + 'static> ToolDefinition<S> {
    /// Publishes `schema` as the `inputSchema` of a tool whose handler takes its arguments
    /// as [`serde_json::Value`], and checks every call's arguments against it before the
    /// handler runs (a violation is a `VALIDATION_FAILED` result, the handler is not called).
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// use typed_mcp::mcp::{ToolDefinition, VerbatimSchema};
    ///
    /// let schema = VerbatimSchema::from_value(json!({
    ///     "type": "object",
    ///     "properties": {"when": {"type": "string", "format": "date"}},
    ///     "if": {"required": ["when"]}, "else": {"required": ["now"]}
    /// }))?;
    /// let book: ToolDefinition = ToolDefinition::new("book", |_ctx, args: Value| async move {
    ///     Ok(json!({"booked": args.get("when").is_some()}))
    /// })?
    /// .input_schema(schema)?;
    /// assert_eq!(book.tool().input_schema.extra["else"]["required"][0], "now");
    /// # Ok::<(), typed_mcp::mcp::McpError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidToolSchema`] when the schema does not fit a tool's `inputSchema`, or
    /// the tool's arguments are a generated type (which publishes its own definition).
    pub fn input_schema(mut self, schema: VerbatimSchema) -> Result<Self, McpError> {
        let invalid = |name: &str, reason: String| McpError::InvalidToolSchema {
            name: name.to_owned(),
            reason,
        };
        if !self.verbatim_arguments {
            return Err(invalid(
                &self.tool.name,
                "the tool's arguments are a generated type, which publishes its own definition: \
                 a schema given with input_schema() needs a handler taking serde_json::Value"
                    .to_owned(),
            ));
        }
        let input_schema = schema.input_schema().map_err(|error| match error {
            McpError::InvalidToolSchema { reason, .. } => invalid(&self.tool.name, reason),
            other => other,
        })?;
        self.tool.input_schema = input_schema;
        self.entry.handler = checked(self.entry.handler, schema.clone());
        if let Some(binder) = self.unbound.take() {
            self.unbound = Some(Arc::new(move |state| {
                checked(binder(state), schema.clone())
            }));
        }
        Ok(self)
    }
}

/// `handler`, run only on arguments `schema` accepts.
fn checked(handler: ToolHandler, schema: VerbatimSchema) -> ToolHandler {
    match handler {
        ToolHandler::Async(run) => ToolHandler::Async(Arc::new(move |context, arguments| {
            match schema.validate(&arguments) {
                Ok(()) => run(context, arguments),
                Err(violations) => Box::pin(std::future::ready(Err(
                    ToolCallError::InvalidArguments(violations),
                ))) as ToolFuture,
            }
        })),
        ToolHandler::Blocking(run) => ToolHandler::Blocking(Arc::new(move |context, arguments| {
            schema
                .validate(&arguments)
                .map_err(ToolCallError::InvalidArguments)?;
            run(context, arguments)
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conditional() -> VerbatimSchema {
        VerbatimSchema::from_value(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"$anchor": "addr", "type": "object",
                                  "properties": {"city": {"type": "string"}}}},
            "properties": {
                "address": {"$ref": "#addr"},
                "contactMethod": {"enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string", "format": "email"}
            },
            "if": {"properties": {"contactMethod": {"const": "phone"}},
                   "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        }))
        .unwrap()
    }

    #[test]
    fn every_keyword_is_enforced_including_refs_anchors_and_conditionals() {
        let schema = conditional();
        assert!(schema
            .validate(&json!({"contactMethod": "phone", "phone": "1"}))
            .is_ok());
        assert!(schema.validate(&json!({"email": "a@example.com"})).is_ok());
        let missing_phone = schema
            .validate(&json!({"contactMethod": "phone"}))
            .unwrap_err();
        assert_eq!(missing_phone[0].keyword(), "required");
        let bad_city = schema
            .validate(&json!({"email": "a@example.com", "address": {"city": 5}}))
            .unwrap_err();
        assert_eq!(bad_city[0].path(), "/address/city");
        assert_eq!(bad_city[0].keyword(), "type");
        assert_eq!(bad_city[0].limit(), json!("string"));
        assert_eq!(bad_city[0].actual(), json!(5));
        let bad_format = schema
            .validate(&json!({"email": "not an address"}))
            .unwrap_err();
        assert_eq!(bad_format[0].keyword(), "format");
    }

    #[test]
    fn violations_never_quote_the_input() {
        let secret = "hunter2-secret-value";
        let violations = conditional()
            .validate(&json!({"email": "a@example.com", secret: secret}))
            .unwrap_err();
        let text = serde_json::to_string(&violations).unwrap();
        assert!(!text.contains(secret), "{text}");
    }

    #[test]
    fn the_schema_is_published_as_written() {
        let schema = conditional();
        let published = serde_json::to_value(schema.input_schema().unwrap()).unwrap();
        assert_eq!(&published, schema.published());
    }

    #[test]
    fn unusable_schemas_are_refused_at_registration() {
        assert!(VerbatimSchema::from_value(json!({"type": "array"})).is_err());
        assert!(
            VerbatimSchema::from_value(json!({"type": "object", "minProperties": "x"})).is_err()
        );
        assert!(VerbatimSchema::from_value(
            json!({"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json"}}})
        )
        .is_err());
        assert!(VerbatimSchema::from_value(
            json!({"type": "object", "required": ["x"], "examples": [{}]})
        )
        .is_err());
        assert!(VerbatimSchema::from_json_text("{").is_err());
    }
}
