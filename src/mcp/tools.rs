//! A tool: what `tools/list` publishes about it ([`ToolDefinition`]) and the schema of its
//! arguments. Tools are made with [`ToolDefinition::new`] (see the module `typed_tool`).
//!
//! Before the handler runs, the arguments pass the request limits (see
//! [`crate::tools`]), then the generated validator of the type (`A::validate_value`): a
//! violation is answered with a `VALIDATION_FAILED` result listing every violation with its
//! path, and the handler is not called. Registration checks that every `examples` entry of
//! the definition is accepted by the type's validator, which catches a definition paired with
//! the wrong type.
//!
//! The definition may use any keyword the generator accepts, and `$ref` other definitions of
//! its file (`#/$defs/Address`): the published `inputSchema` is the definition as written,
//! with the definitions it refers to, transitively, in its `$defs` (see the module
//! `schema_refs`), and the shared definitions are shared Rust types. A definition that refers
//! to something only its file can resolve (another document, a `$anchor`, a pointer into a
//! definition) is refused at registration, naming the reference; such a schema can be given
//! to a tool taking [`serde_json::Value`] arguments with [`ToolDefinition::input_schema`]
//! (feature `runtime-schema`): published as written, checked at run time by the `jsonschema`
//! crate, handed over as JSON.
//!
//! A tool whose handler returns a generated type publishes that type's definition as its
//! `outputSchema`, and its output is validated before it is sent.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::McpError;
use crate::generated::protocol::{Tool, ToolAnnotations, ToolInputSchema};
use crate::tools::{ToolCallError, ToolEntry, ToolHandler};
use crate::validation::reads::{has_integral_fraction, integral_fractions_to_integers};
use crate::validation::SchemaValidate;

/// The JSON Schema of a tool's arguments: one definition with `type: "object"`, with the
/// definitions of its file it refers to merged into its `$defs` (see the module
/// `schema_refs`), so it is self-contained.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ArgumentSchema {
    definition: Map<String, Value>,
}

impl ArgumentSchema {
    /// The definition `name` of a schema file's `$defs`, from the file's text, taken alone.
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidToolSchema`] when the text is not JSON, has no such definition, or
    /// the definition is not a self-contained object schema.
    #[cfg(test)]
    pub(crate) fn from_defs(file_text: &str, name: &str) -> Result<Self, McpError> {
        Self::from_parts(
            name,
            &super::schema_refs::definition_text(file_text, name)?,
            &[],
        )
    }

    /// The argument definition generated type `A` carries (see
    /// [`SchemaDefinition`](crate::SchemaDefinition)), with the definitions it refers to.
    ///
    /// # Errors
    ///
    /// As [`ArgumentSchema::from_value`].
    pub(crate) fn of<A: crate::SchemaDefinition>() -> Result<Self, McpError> {
        Self::from_parts(A::NAME, A::SCHEMA, A::REFERENCED)
    }

    /// The definition `name` (its JSON text) with the definitions it refers to (a
    /// `SchemaDefinition::REFERENCED`) merged in.
    fn from_parts(
        name: &str,
        schema: &str,
        referenced: &[&crate::validation::ReferencedDefinition],
    ) -> Result<Self, McpError> {
        let invalid = |reason: String| McpError::InvalidToolSchema {
            name: name.to_owned(),
            reason,
        };
        let (mut definition, referenced) = super::schema_refs::read(name, schema, referenced)?;
        if let Value::Object(root) = &mut definition {
            super::schema_refs::merge_into(root, &referenced).map_err(|reason| {
                invalid(format!("the argument schema cannot be published: {reason}"))
            })?;
        }
        Self::from_value(definition).map_err(|error| match error {
            McpError::InvalidToolSchema { reason, .. } => invalid(reason),
            other => other,
        })
    }

    /// A schema given directly as a JSON value.
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidToolSchema`] unless the value is an object schema with
    /// `type: "object"` whose every `$ref` names one of its own `$defs`.
    pub(crate) fn from_value(schema: Value) -> Result<Self, McpError> {
        let invalid = |reason: String| McpError::InvalidToolSchema {
            name: String::new(),
            reason,
        };
        if let Some(reference) = super::schema_refs::unpublishable(&schema, &schema) {
            return Err(invalid(format!(
                "a tool's argument schema may refer only to definitions of its own file \
                 (#/$defs/<name>); it has {reference}"
            )));
        }
        let Value::Object(definition) = schema else {
            return Err(invalid(
                "a tool's argument schema must be a JSON object".to_owned(),
            ));
        };
        if definition.get("type") != Some(&Value::from("object")) {
            return Err(invalid(
                "a tool's argument schema must have type \"object\"".to_owned(),
            ));
        }
        Ok(Self { definition })
    }

    /// The definition, as published.
    #[cfg(test)]
    pub(crate) fn as_map(&self) -> &Map<String, Value> {
        &self.definition
    }

    /// The schema as a tool's `inputSchema`, once every `examples` entry of it is accepted
    /// by `A`'s validator and decodes into `A` (which catches a definition paired with the
    /// wrong type).
    pub(crate) fn checked_against<A: DeserializeOwned + SchemaValidate>(
        &self,
        tool: &str,
    ) -> Result<ToolInputSchema, McpError> {
        for (index, example) in self.examples().enumerate() {
            let accepted = A::validate_value(example).is_ok() && A::deserialize(example).is_ok();
            if !accepted {
                return Err(McpError::InvalidToolSchema {
                    name: tool.to_owned(),
                    reason: format!(
                        "example {index} of the argument schema is rejected by the argument \
                         type's validator or does not decode into it: the example is wrong, or \
                         the type was generated from another definition"
                    ),
                });
            }
        }
        self.to_input_schema().map_err(|error| match error {
            McpError::InvalidToolSchema { reason, .. } => McpError::InvalidToolSchema {
                name: tool.to_owned(),
                reason,
            },
            other => other,
        })
    }

    fn examples(&self) -> impl Iterator<Item = &Value> {
        self.definition
            .get("examples")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    }

    fn to_input_schema(&self) -> Result<ToolInputSchema, McpError> {
        serde_json::from_value(Value::Object(self.definition.clone())).map_err(|_| {
            McpError::InvalidToolSchema {
                name: String::new(),
                reason: "the schema does not fit a tool's inputSchema".to_owned(),
            }
        })
    }
}

/// Makes a tool's handler from the server's state (tools whose handler takes the state).
pub(crate) type Binder<S> = Arc<dyn Fn(Arc<S>) -> ToolHandler + Send + Sync>;

/// A tool: what `tools/list` publishes about it and how the runtime runs it.
///
/// Made with [`ToolDefinition::new`]. `S` is the server state its handler takes (any `S`
/// for a handler that takes none): [`McpServerBuilder::tool`](super::McpServerBuilder::tool) accepts the tools of the
/// builder's state type and hands them the state, so a tool cannot be registered on a server
/// whose state it does not know.
pub struct ToolDefinition<S = ()> {
    pub(crate) tool: Tool,
    pub(crate) entry: ToolEntry,
    pub(crate) required_capabilities: Vec<String>,
    /// Whether calls may become tasks (the Tasks extension).
    pub(crate) task_support: super::tasks::TaskSupport,
    /// The task starts in the handler, after its `input_required` rounds.
    pub(crate) task_after_input: bool,
    pub(crate) content_blocks: bool,
    /// A published `outputSchema` describes the output: it is never cut.
    pub(crate) structured_output: bool,
    /// The handler takes its arguments as JSON ([`ToolDefinition::input_schema`] may give
    /// their schema).
    pub(crate) verbatim_arguments: bool,
    /// Until [`ToolDefinition::bind`]: makes `entry`'s handler from the state.
    pub(crate) unbound: Option<Binder<S>>,
}

impl<S> Clone for ToolDefinition<S> {
    fn clone(&self) -> Self {
        Self {
            tool: self.tool.clone(),
            entry: self.entry.clone(),
            required_capabilities: self.required_capabilities.clone(),
            task_support: self.task_support,
            task_after_input: self.task_after_input,
            content_blocks: self.content_blocks,
            structured_output: self.structured_output,
            verbatim_arguments: self.verbatim_arguments,
            unbound: self.unbound.clone(),
        }
    }
}

impl<S> std::fmt::Debug for ToolDefinition<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDefinition")
            .field("tool", &self.tool)
            .field("entry", &self.entry)
            .field("required_capabilities", &self.required_capabilities)
            .field("content_blocks", &self.content_blocks)
            .field("structured_output", &self.structured_output)
            .field("takes_state", &self.unbound.is_some())
            .finish()
    }
}

impl<S> ToolDefinition<S> {
    /// A tool publishing `input_schema`, run by `entry`.
    pub(crate) fn with_input_schema(
        name: String,
        description: Option<String>,
        input_schema: ToolInputSchema,
        entry: ToolEntry,
    ) -> Self {
        Self {
            tool: Tool {
                annotations: None,
                description,
                icons: None,
                input_schema,
                meta: None,
                name,
                output_schema: None,
                title: None,
            },
            entry,
            required_capabilities: Vec::new(),
            task_support: super::tasks::TaskSupport::Forbidden,
            task_after_input: false,
            content_blocks: false,
            structured_output: false,
            verbatim_arguments: false,
            unbound: None,
        }
    }
}

impl<S> ToolDefinition<S> {
    /// The handler returns content blocks, not data: its output must be a JSON array of
    /// content blocks (build them with [`crate::mcp::content`]), sent as the result's
    /// `content` (images, audio, embedded resources, links, text). `structuredContent`
    /// keeps the uniform envelope with `data: null`. Blocks are never truncated: a result
    /// over `maxResponseBytes` is `RESPONSE_TOO_LARGE`; invalid blocks are `INTERNAL`.
    ///
    /// A tool with a typed output returns its output type, not blocks: for it this does
    /// nothing but log an error (its published `outputSchema` keeps describing what is sent).
    #[must_use]
    pub fn returns_content(mut self) -> Self {
        if self.structured_output {
            tracing::error!(
                tool = %self.tool.name,
                "returns_content() ignored: the tool has a typed output"
            );
            return self;
        }
        self.content_blocks = true;
        self
    }

    /// Declares that the tool needs a client capability (`sampling`, `elicitation`,
    /// `roots`, ...; dotted when nested, e.g. `elicitation.url` for URL-mode elicitation):
    /// a call from a client that did not declare it is refused with `-32021`
    /// (`data.requiredCapabilities`, e.g. `{"elicitation": {"url": {}}}`), in both eras,
    /// before the handler runs.
    #[must_use]
    pub fn requires_client_capability(mut self, capability: impl Into<String>) -> Self {
        self.required_capabilities.push(capability.into());
        self
    }

    /// Lets calls of this tool become tasks (the Tasks extension, see
    /// [`crate::mcp::tasks`]): with [`TaskSupport::Optional`](super::tasks::TaskSupport::Optional)
    /// a call from a client that declared `io.modelcontextprotocol/tasks` is answered at once
    /// with a task and runs in the background, other calls run as usual; with
    /// [`TaskSupport::Required`](super::tasks::TaskSupport::Required) other calls are `-32021`.
    /// The server declares the extension while it has such a tool.
    #[must_use]
    pub fn task_support(mut self, support: super::tasks::TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// Makes the task of a task-capable tool ([`ToolDefinition::task_support`]) start in
    /// its handler rather than at once (SEP-2663's composition with multi round-trip
    /// requests): a call from a client that declared the Tasks extension first runs as a
    /// plain 2026-07-28 call, whose questions are `input_required` rounds, until the handler
    /// calls [`ToolContext::run_as_task`](crate::tools::ToolContext::run_as_task); once
    /// every question has its answer, the call is answered with a task whose work is the
    /// handler, run again with those answers. A handler that never calls it answers as a
    /// plain call. Other calls are as [`ToolDefinition::task_support`] says.
    #[must_use]
    pub fn task_after_input(mut self) -> Self {
        self.task_after_input = true;
        self
    }

    /// Declares the largest answer a call to this tool produces: the whole response line
    /// (`{"jsonrpc":"2.0","id":..,"result":..}` and its newline), in bytes, as
    /// `maxResponseBytes` counts it. Worth declaring for tools with large answers.
    ///
    /// - **Admission.** On a stream transport (stdio, [`McpServer::serve`](super::McpServer::serve)),
    ///   a call to the tool starts only while the output budget (`response.maxQueuedBytes`,
    ///   default 4 MiB) has room for this bound besides the answers waiting for the client and
    ///   the bounds of the other calls running; the bound stays reserved until the answer is
    ///   queued. So a burst of calls against a client that stops reading holds about the budget
    ///   in answers, even before the first answer exists. Without a declaration a call is
    ///   admitted on an estimate learnt from earlier answers, which a cold burst outruns.
    ///   (Calls are never refused for it: they wait for room, and a bound above the budget
    ///   still runs, alone.)
    /// - **Enforcement.** The bound takes the place of `maxResponseBytes` when smaller: a text
    ///   output over it is cut (`_meta.truncated: true`, `_meta.originalSizeBytes`), any other
    ///   output is a `RESPONSE_TOO_LARGE` tool error (`details.maxResponseBytes` is then the
    ///   bound), as for the response limit. Nothing is dropped without saying so.
    ///
    /// A bound above `maxResponseBytes` reserves `maxResponseBytes` (no answer is larger), so
    /// `max_answer_bytes(usize::MAX)` declares "as large as the response limit allows". Very
    /// small bounds leave room for nothing but an error (a minimal error result takes about
    /// 200 bytes).
    #[must_use]
    pub fn max_answer_bytes(mut self, bytes: usize) -> Self {
        self.entry = self.entry.with_max_answer_bytes(bytes);
        self
    }

    /// Declares that the async handler never blocks its thread: its first poll runs on the
    /// calling task (over stdio, the connection's reading task, unless the tool is
    /// cacheable), and a call that finishes in it costs no task of its own (see
    /// [`ToolEntry::in_place`](crate::tools::ToolEntry::in_place), and what a handler that
    /// breaks the declaration costs). No effect on a blocking tool.
    #[must_use]
    pub fn in_place(mut self) -> Self {
        self.entry.in_place = true;
        self
    }

    /// Sets the category selecting the tool's timeout (`toolTimeouts[category]`).
    #[must_use]
    pub fn category(mut self, category: impl Into<String>) -> Self {
        self.entry = self.entry.with_category(category);
        self
    }

    /// Whether, and for how long, successful results may be served from the result cache
    /// (default: never; see [`CachePolicy`](crate::cache::CachePolicy)).
    #[must_use]
    pub fn cache(mut self, policy: crate::cache::CachePolicy) -> Self {
        self.entry = self.entry.cache(policy);
        self
    }

    /// Lets successful results be served from the result cache, with the cache's TTL
    /// (`cacheable(true)` is `cache(CachePolicy::cacheable())`).
    #[must_use]
    pub fn cacheable(self, cacheable: bool) -> Self {
        self.cache(if cacheable {
            crate::cache::CachePolicy::cacheable()
        } else {
            crate::cache::CachePolicy::Uncacheable
        })
    }

    /// Sets the description `tools/list` shows (by default the argument definition's
    /// `description`).
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.tool.description = Some(description.into());
        self
    }

    /// Sets a human-readable title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// Sets the behaviour hints (`readOnlyHint`, ...).
    #[must_use]
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = Some(annotations);
        self
    }

    /// The tool's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.tool.name
    }

    /// The tool as `tools/list` publishes it.
    #[must_use]
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Hands the tool the server state its handler takes (done by
    /// [`McpServerBuilder::tool`](super::McpServerBuilder::tool); call it yourself for a tool
    /// added while serving with [`McpServer::add_tool`](super::McpServer::add_tool)).
    #[must_use]
    pub fn bind(self, state: Arc<S>) -> ToolDefinition {
        let mut entry = self.entry;
        if let Some(binder) = self.unbound {
            entry.handler = binder(state);
        }
        ToolDefinition {
            tool: self.tool,
            entry,
            required_capabilities: self.required_capabilities,
            task_support: self.task_support,
            task_after_input: self.task_after_input,
            content_blocks: self.content_blocks,
            structured_output: self.structured_output,
            verbatim_arguments: self.verbatim_arguments,
            unbound: None,
        }
    }
}

/// Runs `A`'s generated validator on the arguments, then decodes them.
///
/// JSON Schema counts `1.0` as an integer, and the validator agrees; the generated integer
/// members (`i64`, `u64`, `NonZeroU64`, ...) do not take it. Arguments holding an integral
/// number written with a fraction are therefore decoded as written first (a `number` member
/// keeps its `1.0`), and if that fails, once more with those numbers as integers.
pub(crate) fn typed_arguments<A: DeserializeOwned + SchemaValidate>(
    arguments: Value,
) -> Result<A, ToolCallError> {
    A::validate_value(&arguments).map_err(ToolCallError::InvalidArguments)?;
    if !has_integral_fraction(&arguments) {
        return serde_json::from_value(arguments).map_err(shape_error);
    }
    match <A as serde::Deserialize>::deserialize(&arguments) {
        Ok(decoded) => Ok(decoded),
        Err(_) => {
            let mut arguments = arguments;
            integral_fractions_to_integers(&mut arguments);
            serde_json::from_value(arguments).map_err(shape_error)
        }
    }
}

/// The error of arguments the validator accepted and the generated type did not (a number
/// beyond the type's range, say).
fn shape_error(error: serde_json::Error) -> ToolCallError {
    tracing::warn!(%error, "tool arguments passed validation but did not decode");
    ToolCallError::InvalidArguments(vec![crate::validation::ValidationError::new(
        "",
        "",
        "type",
        Value::Null,
        Value::Null,
        "the arguments do not have the expected shape",
    )])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_definition_is_taken_from_the_defs_of_a_file() {
        let file =
            r#"{"$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}}}"#;
        let schema = ArgumentSchema::from_defs(file, "A").unwrap();
        assert_eq!(schema.as_map()["properties"]["x"]["type"], "string");
        assert!(ArgumentSchema::from_defs(file, "B").is_err());
    }

    #[test]
    fn schemas_must_be_self_contained_objects() {
        assert!(ArgumentSchema::from_value(json!({"type": "array"})).is_err());
        assert!(ArgumentSchema::from_value(
            json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}})
        )
        .is_err());
        assert!(ArgumentSchema::from_value(json!({"type": "object",
            "properties": {"x": {"$ref": "#/$defs/X"}}, "$defs": {"X": {"type": "string"}}}))
        .is_ok());
        assert!(ArgumentSchema::from_value(json!({"type": "object"})).is_ok());
    }

    #[test]
    fn the_definitions_referred_to_are_published_with_the_definition() {
        let schema = r##"{"type": "object", "properties": {"to": {"$ref": "#/$defs/Address"}}}"##;
        static ADDRESS: crate::validation::ReferencedDefinition =
            crate::validation::ReferencedDefinition {
                container: "$defs",
                name: "Address",
                schema: r#"{"type": "object"}"#,
                refers_to: &[],
            };
        let published = ArgumentSchema::from_parts("Route", schema, &[&ADDRESS]).unwrap();
        assert_eq!(published.as_map()["$defs"]["Address"]["type"], "object");
        let McpError::InvalidToolSchema { name, reason } =
            ArgumentSchema::from_parts("Route", schema, &[]).unwrap_err()
        else {
            panic!("an invalid tool schema")
        };
        assert_eq!(name, "Route");
        assert!(reason.contains("$ref: #/$defs/Address"), "{reason}");
    }
}
