//! Typed tool outputs: a tool may declare its output as a definition of the user's schema
//! file; its `outputSchema` is published and its output is the generated type, validated
//! before it is sent.
//!
//! # How the published `outputSchema` and the uniform envelope coexist
//!
//! Every `tools/call` result of typed-mcp carries the uniform envelope of
//! `schema/errors.json` as its `structuredContent`, and a typed tool keeps it: its output
//! `O` is the envelope's `data`. So the `outputSchema` published for the tool is the schema
//! of what is actually sent, the envelope with `data` narrowed to the tool's definition:
//!
//! ```json
//! {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
//!  "oneOf": [{"$ref": "#/$defs/ToolSuccess"}, {"$ref": "#/$defs/ToolFailure"}],
//!  "$defs": {"ToolSuccess": {"properties": {"ok": {"const": true},
//!                                           "data": <the tool's output definition>,
//!                                           "meta": {"$ref": "#/$defs/ResultMeta"}}, ...},
//!            "ToolFailure": ..., "ToolError": ..., "ResultMeta": ..., ...}}
//! ```
//!
//! - A success (`isError: false`) is `{"ok": true, "data": <O as JSON>, "meta": {...}}`:
//!   `durationMs`, `truncated` (always `false`: a typed output is never cut; one that does
//!   not fit the response limit is a `RESPONSE_TOO_LARGE` error instead) and `cached` (a
//!   cacheable tool's output served from the result cache is the same validated value).
//! - A failure (`isError: true`) is `{"ok": false, "error": {code, message, retryable, ...},
//!   "meta": {...}}`, also described by the published schema (the `ToolFailure` branch).
//! - The text content is the compact JSON text of `data`, as for every data tool.
//! - Before sending, the output is serialized and checked by the generated validator of the
//!   output definition; an output that fails is never sent: the call is answered with an
//!   `INTERNAL` error (the violations are logged to stderr, not sent).
//!
//! The output definition may `$ref` other definitions of its file, as argument definitions
//! may: those it refers to join the envelope's `$defs` (a name the envelope uses, such as
//! `ToolError`, for another schema is refused at registration). The envelope parts are copied
//! from `schema/errors.json` without their `x-` annotations.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{McpError, ToolDefinition};
use crate::generated::protocol::ToolOutputSchema;
use crate::tools::ToolCallError;
use crate::validation::SchemaValidate;

/// The envelope definitions, from the file the runtime's envelope types are generated from.
const ERRORS_SCHEMA: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/schema/errors.json"));

/// The envelope parts the published output schema refers to.
const ENVELOPE_DEFS: [&str; 6] = [
    "ToolSuccess",
    "ToolFailure",
    "ToolError",
    "ToolErrorCode",
    "ValidationError",
    "ResultMeta",
];

/// The JSON Schema of a tool's output: one definition of the user's schema file, of any
/// type, with the definitions of the file it refers to (see the module `schema_refs`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OutputSchema {
    definition: Value,
    /// The `$defs` / `definitions` the definition refers to, merged into the envelope's.
    referenced: Map<String, Value>,
}

impl OutputSchema {
    /// The definition `name` of a schema file's `$defs`, from the file's text, taken alone.
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidToolSchema`] when the text is not JSON, has no such definition, or
    /// the definition is not a self-contained schema object.
    #[cfg(test)]
    pub(crate) fn from_defs(file_text: &str, name: &str) -> Result<Self, McpError> {
        Self::from_parts(
            name,
            &super::schema_refs::definition_text(file_text, name)?,
            &[],
        )
    }

    /// The output definition generated type `O` carries (see
    /// [`SchemaDefinition`](crate::SchemaDefinition)), with the definitions it refers to.
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidToolSchema`] when the definition is not a schema object, or refers
    /// to something a published schema cannot carry.
    pub(crate) fn of<O: crate::SchemaDefinition>() -> Result<Self, McpError> {
        Self::from_parts(O::NAME, O::SCHEMA, O::REFERENCED)
    }

    /// The definition `name` (its JSON text) and the definitions it refers to (a
    /// `SchemaDefinition::REFERENCED`).
    fn from_parts(
        name: &str,
        schema: &str,
        referenced: &[&crate::validation::ReferencedDefinition],
    ) -> Result<Self, McpError> {
        let invalid = |reason: String| McpError::InvalidToolSchema {
            name: name.to_owned(),
            reason,
        };
        let (definition, referenced) = super::schema_refs::read(name, schema, referenced)?;
        if !definition.is_object() {
            return Err(invalid(
                "an output definition must be a JSON object".to_owned(),
            ));
        }
        // The definition and what it refers to, alone: every reference must resolve there.
        let alone = Value::Object(referenced.clone());
        if let Some(reference) = super::schema_refs::unpublishable(&definition, &alone) {
            return Err(invalid(format!(
                "an output definition may refer only to definitions of its own file \
                 (#/$defs/<name>); it has {reference}"
            )));
        }
        Ok(Self {
            definition,
            referenced,
        })
    }

    /// The tool's output definition, as it appears under `data` in the published schema.
    #[cfg(test)]
    pub(crate) fn definition(&self) -> &Value {
        &self.definition
    }

    /// The `outputSchema` published for a tool with this output (see the module docs).
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidToolSchema`] should the envelope definitions be unusable (they are
    /// part of the crate, checked by its tests), or a definition the output refers to have
    /// the name of an envelope definition.
    pub(crate) fn published(&self) -> Result<Value, McpError> {
        let broken = || McpError::InvalidToolSchema {
            name: "ToolResultEnvelope".to_owned(),
            reason: "the envelope definitions of schema/errors.json are unusable".to_owned(),
        };
        let errors: Value = serde_json::from_str(ERRORS_SCHEMA).map_err(|_| broken())?;
        let mut defs = Map::new();
        for name in ENVELOPE_DEFS {
            let definition = errors["$defs"].get(name).ok_or_else(broken)?;
            defs.insert(name.to_owned(), without_annotations(definition));
        }
        let mut data = self.definition.clone();
        if let (Value::Object(data), Some(description)) = (
            &mut data,
            defs["ToolSuccess"]["properties"]["data"]["description"].as_str(),
        ) {
            data.entry("description")
                .or_insert_with(|| Value::from(description));
        }
        defs["ToolSuccess"]["properties"]["data"] = data;
        let mut published = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "description": "typed-mcp's uniform result envelope: {ok: true, data, meta} on \
                success, {ok: false, error, meta} when isError is true.",
            "oneOf": [{"$ref": "#/$defs/ToolSuccess"}, {"$ref": "#/$defs/ToolFailure"}],
            "$defs": defs,
        });
        if let Value::Object(root) = &mut published {
            super::schema_refs::merge_into(root, &self.referenced).map_err(|reason| {
                McpError::InvalidToolSchema {
                    name: String::new(),
                    reason: format!(
                        "the output schema cannot be published inside the result envelope: \
                         {reason}"
                    ),
                }
            })?;
        }
        Ok(published)
    }

    fn examples(&self) -> impl Iterator<Item = &Value> {
        self.definition
            .get("examples")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    }
}

/// `value` without its `x-` keys (annotations of this project, unknown to other validators).
fn without_annotations(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| !key.starts_with("x-"))
                .map(|(key, value)| (key.clone(), without_annotations(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_annotations).collect()),
        other => other.clone(),
    }
}

/// Serializes a typed output and checks it with its generated validator.
pub(crate) fn checked_output<O: Serialize + SchemaValidate>(
    tool: &str,
    output: &O,
) -> Result<Value, ToolCallError> {
    let internal = || ToolCallError::Internal {
        message: "the tool's output does not match its published output schema".to_owned(),
    };
    let value = serde_json::to_value(output).map_err(|error| {
        tracing::error!(tool, %error, "a typed tool output does not serialize");
        internal()
    })?;
    if let Err(violations) = O::validate_value(&value) {
        for violation in &violations {
            tracing::error!(tool, %violation, "a typed tool output violates its schema");
        }
        return Err(internal());
    }
    Ok(value)
}

impl<S> ToolDefinition<S> {
    /// Publishes `output`'s envelope schema and marks the output as never cut.
    pub(crate) fn with_output<O: DeserializeOwned + SchemaValidate>(
        mut self,
        output: &OutputSchema,
    ) -> Result<Self, McpError> {
        for (index, example) in output.examples().enumerate() {
            if O::validate_value(example).is_err() || O::deserialize(example).is_err() {
                return Err(McpError::InvalidToolSchema {
                    name: self.tool.name,
                    reason: format!(
                        "example {index} of the output definition is rejected by the output \
                         type's validator or does not decode into it: the example is wrong, or \
                         the type was generated from another definition"
                    ),
                });
            }
        }
        let published: ToolOutputSchema =
            serde_json::from_value(output.published()?).map_err(|_| {
                McpError::InvalidToolSchema {
                    name: self.tool.name.clone(),
                    reason: "the output schema does not fit a tool's outputSchema".to_owned(),
                }
            })?;
        self.tool.output_schema = Some(published);
        self.structured_output = true;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::ReferencedDefinition;

    const FILE: &str = r##"{"$defs": {
        "Total": {"type": "object", "properties": {"sum": {"type": "integer"}},
                  "required": ["sum"], "additionalProperties": false},
        "Linked": {"type": "object", "properties": {"x": {"$ref": "#/$defs/Total"}}}
    }}"##;

    #[test]
    fn output_definitions_are_self_contained_definitions_of_the_file() {
        let output = OutputSchema::from_defs(FILE, "Total").unwrap();
        assert_eq!(output.definition()["required"][0], "sum");
        assert!(OutputSchema::from_defs(FILE, "Linked").is_err());
        assert!(OutputSchema::from_defs(FILE, "Missing").is_err());
        assert!(OutputSchema::from_defs("{", "Total").is_err());
    }

    static TOTAL: ReferencedDefinition = ReferencedDefinition {
        container: "$defs",
        name: "Total",
        schema: r#"{"type": "integer"}"#,
        refers_to: &[],
    };
    static CLASH: ReferencedDefinition = ReferencedDefinition {
        container: "$defs",
        name: "ToolError",
        schema: r#"{"type": "integer"}"#,
        refers_to: &[],
    };

    #[test]
    fn referred_definitions_join_the_envelope_definitions() {
        let schema = r##"{"type": "object", "properties": {"x": {"$ref": "#/$defs/Total"}}}"##;
        let output = OutputSchema::from_parts("Linked", schema, &[&TOTAL]).unwrap();
        let published = output.published().unwrap();
        assert_eq!(published["$defs"]["Total"]["type"], "integer");
        assert_eq!(
            published["$defs"]["ToolSuccess"]["properties"]["data"]["properties"]["x"]["$ref"],
            "#/$defs/Total"
        );
        let schema = r##"{"items": {"$ref": "#/$defs/ToolError"}}"##;
        let output = OutputSchema::from_parts("Clash", schema, &[&CLASH]).unwrap();
        assert!(output.published().is_err());
    }

    #[test]
    fn the_published_schema_is_the_envelope_with_data_narrowed() {
        let published = OutputSchema::from_defs(FILE, "Total")
            .unwrap()
            .published()
            .unwrap();
        let success = &published["$defs"]["ToolSuccess"];
        assert_eq!(success["properties"]["data"]["required"][0], "sum");
        assert_eq!(success["properties"]["ok"]["const"], true);
        assert_eq!(
            published["$defs"]["ToolFailure"]["properties"]["ok"]["const"],
            false
        );
        assert!(!published.to_string().contains("\"x-"), "{published}");
        // Every reference resolves inside the published schema.
        for name in ENVELOPE_DEFS {
            assert!(published["$defs"].get(name).is_some(), "{name}");
        }
    }
}
