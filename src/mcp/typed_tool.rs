//! The one way to define a tool: [`ToolDefinition::new`] with a handler.
//!
//! As with axum's `Handler`, the variation lives in the handler's shape, not in the
//! constructor's name: the handler is any function or closure of one of these forms (see
//! [`ToolFn`]):
//!
//! | handler | runs |
//! |---|---|
//! | `async fn(ToolContext, A) -> Result<Out, ToolCallError>` | as a task |
//! | `fn(ToolContext, A) -> Result<Out, ToolCallError>` | on the blocking pool |
//! | `async fn(Arc<S>, ToolContext, A) -> Result<Out, ToolCallError>` | as a task, with the server state |
//! | `fn(&S, ToolContext, A) -> Result<Out, ToolCallError>` | on the blocking pool, with the server state |
//!
//! - The arguments `A` ([`ToolInput`]) are a type generated from a definition of the
//!   user's schema file (it carries the definition, [`SchemaDefinition`]): the tool publishes
//!   that definition as `inputSchema`, takes its `description`, and checks every call with the
//!   generated validator before the handler runs. Or `A` is [`serde_json::Value`]: the
//!   arguments are handed over verbatim, the published schema is `{"type": "object"}` unless
//!   one is given with [`ToolDefinition::input_schema`] (feature `runtime-schema`), which is
//!   then checked at run time.
//! - The output `Out` ([`ToolOutput`]) is a [`serde_json::Value`] (no `outputSchema`), or a
//!   generated type whose definition is published as the tool's `outputSchema` (inside the
//!   uniform envelope, see the module `output_schema`), serialized and checked by its
//!   validator before it is sent.
//!
//! Closures need their `ToolContext` parameter annotated when they use it (and the state
//! parameter, `&S` or `Arc<S>`, always), as axum handlers name their extractors: the
//! constructor's bound is [`ToolFn`], not a closure signature the compiler could read the
//! types from.
//!
//! # Server state
//!
//! [`McpServerBuilder::state`](super::McpServerBuilder::state) gives the server one value of
//! a type `S`; a handler taking the state gets it on every call (an `Arc<S>`, cloned per
//! call; `&S` for blocking handlers). As with axum's `State`, the state type is checked at
//! compile time: the builder becomes `McpServerBuilder<S>`, and its
//! [`tool`](super::McpServerBuilder::tool) takes only `ToolDefinition<S>`, so a tool cannot
//! be registered on a server whose state it does not know. Unlike axum, nothing is cloned
//! but the `Arc`: `S` needs no `Clone`, and shared mutation is the state's own business (a
//! `Mutex` or `RwLock` inside it). A handler without state makes a `ToolDefinition<S>` for
//! any `S`.

use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::output_schema::{checked_output, OutputSchema};
use super::tools::{typed_arguments, ArgumentSchema, Binder};
use super::{McpError, ToolDefinition};
use crate::generated::protocol::ToolInputSchema;
use crate::tools::{ToolCallError, ToolContext, ToolEntry, ToolHandler, ToolResult};
use crate::SchemaDefinition;

/// What a tool's handler may take as its arguments: a type generated from a schema
/// definition (published as the tool's `inputSchema` and checked by its generated
/// validator), or [`serde_json::Value`] (the arguments verbatim; with the `runtime-schema`
/// feature, `ToolDefinition::input_schema` publishes and checks a schema for them).
pub trait ToolInput: Send + Sized + 'static {
    /// Declares the arguments on `definition` (its `inputSchema` and description).
    #[doc(hidden)]
    fn declare<S>(definition: ToolDefinition<S>) -> Result<ToolDefinition<S>, McpError>;

    /// The call's arguments as `Self`, or why they are refused.
    #[doc(hidden)]
    fn from_arguments(arguments: Value) -> Result<Self, ToolCallError>;
}

impl ToolInput for Value {
    fn declare<S>(mut definition: ToolDefinition<S>) -> Result<ToolDefinition<S>, McpError> {
        definition.verbatim_arguments = true;
        Ok(definition)
    }

    fn from_arguments(arguments: Value) -> Result<Self, ToolCallError> {
        Ok(arguments)
    }
}

impl<A> ToolInput for A
where
    A: SchemaDefinition + DeserializeOwned + Send + 'static,
{
    fn declare<S>(mut definition: ToolDefinition<S>) -> Result<ToolDefinition<S>, McpError> {
        let schema = ArgumentSchema::of::<A>().map_err(|error| named(error, definition.name()))?;
        definition.tool.input_schema = schema.checked_against::<A>(definition.name())?;
        definition.tool.description = A::DESCRIPTION.map(str::to_owned);
        Ok(definition)
    }

    fn from_arguments(arguments: Value) -> Result<Self, ToolCallError> {
        typed_arguments::<A>(arguments)
    }
}

/// What a tool's handler may return: a [`serde_json::Value`] (published without
/// `outputSchema`), or a type generated from a schema definition, which is published as the
/// tool's `outputSchema` and validated before it is sent.
pub trait ToolOutput: Send + Sized + 'static {
    /// Declares the output on `definition` (its `outputSchema`, if any).
    #[doc(hidden)]
    fn declare<S>(definition: ToolDefinition<S>) -> Result<ToolDefinition<S>, McpError>;

    /// The output as the result's `data` (checked against its schema when it has one).
    #[doc(hidden)]
    fn into_data(self, tool: &str) -> ToolResult;
}

impl ToolOutput for Value {
    fn declare<S>(definition: ToolDefinition<S>) -> Result<ToolDefinition<S>, McpError> {
        Ok(definition)
    }

    fn into_data(self, _tool: &str) -> ToolResult {
        Ok(self)
    }
}

impl<T> ToolOutput for T
where
    T: SchemaDefinition + Serialize + DeserializeOwned + Send + 'static,
{
    fn declare<S>(definition: ToolDefinition<S>) -> Result<ToolDefinition<S>, McpError> {
        let output = OutputSchema::of::<T>().map_err(|error| named(error, definition.name()))?;
        definition.with_output::<T>(&output)
    }

    fn into_data(self, tool: &str) -> ToolResult {
        checked_output(tool, &self)
    }
}

/// `error` naming the tool rather than the definition.
fn named(error: McpError, tool: &str) -> McpError {
    match error {
        McpError::InvalidToolSchema { reason, .. } => McpError::InvalidToolSchema {
            name: tool.to_owned(),
            reason,
        },
        other => other,
    }
}

/// A tool's handler: a function or closure of one of these shapes (`M` only tells them
/// apart; you never name it):
///
/// | handler | runs |
/// |---|---|
/// | `async fn(ToolContext, A) -> Result<Out, ToolCallError>` | as a task |
/// | `fn(ToolContext, A) -> Result<Out, ToolCallError>` | on the blocking pool |
/// | `async fn(Arc<S>, ToolContext, A) -> Result<Out, ToolCallError>` | as a task, with the server state |
/// | `fn(&S, ToolContext, A) -> Result<Out, ToolCallError>` | on the blocking pool, with the server state |
///
/// `A` is a [`ToolInput`] (a generated type, or `serde_json::Value`), `Out` a
/// [`ToolOutput`] (`serde_json::Value`, or a generated type). Closures name the type of
/// their `ToolContext` parameter when they use it, and of their state parameter always:
/// the compiler cannot read them from this trait as it would from a closure signature.
pub trait ToolFn<S, M>: Send + Sync + Sized + 'static {
    /// The tool named `name`, run by this handler.
    #[doc(hidden)]
    fn into_definition(self, name: String) -> Result<ToolDefinition<S>, McpError>;
}

/// Tells the handler shapes of [`ToolFn`] apart (public only because the compiler names it
/// in callers' inferred types; reached through `typed_mcp::__private`).
#[derive(Debug)]
pub struct AsyncFn;
/// Tells the handler shapes of [`ToolFn`] apart (see [`AsyncFn`]).
#[derive(Debug)]
pub struct BlockingFn;
/// Tells the handler shapes of [`ToolFn`] apart (see [`AsyncFn`]).
#[derive(Debug)]
pub struct WithState;

impl<S, F, Fut, A, Out> ToolFn<S, (AsyncFn, A)> for F
where
    S: Send + Sync + 'static,
    F: Fn(ToolContext, A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Out, ToolCallError>> + Send + 'static,
    A: ToolInput,
    Out: ToolOutput,
{
    fn into_definition(self, name: String) -> Result<ToolDefinition<S>, McpError> {
        let tool = Arc::<str>::from(name.as_str());
        let handler = Arc::new(self);
        let run = ToolHandler::from_async(move |context, arguments| {
            let (handler, tool) = (Arc::clone(&handler), Arc::clone(&tool));
            async move {
                let arguments = A::from_arguments(arguments)?;
                handler(context, arguments).await?.into_data(&tool)
            }
        });
        assemble::<S, A, Out>(name, run, None)
    }
}

impl<S, F, A, Out> ToolFn<S, (BlockingFn, A)> for F
where
    S: Send + Sync + 'static,
    F: Fn(ToolContext, A) -> Result<Out, ToolCallError> + Send + Sync + 'static,
    A: ToolInput,
    Out: ToolOutput,
{
    fn into_definition(self, name: String) -> Result<ToolDefinition<S>, McpError> {
        let tool = name.clone();
        let run = ToolHandler::blocking(move |context, arguments| {
            self(context, A::from_arguments(arguments)?)?.into_data(&tool)
        });
        assemble::<S, A, Out>(name, run, None)
    }
}

impl<S, F, Fut, A, Out> ToolFn<S, (AsyncFn, WithState, A)> for F
where
    S: Send + Sync + 'static,
    F: Fn(Arc<S>, ToolContext, A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Out, ToolCallError>> + Send + 'static,
    A: ToolInput,
    Out: ToolOutput,
{
    fn into_definition(self, name: String) -> Result<ToolDefinition<S>, McpError> {
        let tool = Arc::<str>::from(name.as_str());
        let handler = Arc::new(self);
        let binder: Binder<S> = Arc::new(move |state: Arc<S>| {
            let (handler, tool) = (Arc::clone(&handler), Arc::clone(&tool));
            ToolHandler::from_async(move |context, arguments| {
                let (handler, tool, state) =
                    (Arc::clone(&handler), Arc::clone(&tool), Arc::clone(&state));
                async move {
                    let arguments = A::from_arguments(arguments)?;
                    handler(state, context, arguments).await?.into_data(&tool)
                }
            })
        });
        assemble::<S, A, Out>(name, unbound_placeholder(), Some(binder))
    }
}

impl<S, F, A, Out> ToolFn<S, (BlockingFn, WithState, A)> for F
where
    S: Send + Sync + 'static,
    F: Fn(&S, ToolContext, A) -> Result<Out, ToolCallError> + Send + Sync + 'static,
    A: ToolInput,
    Out: ToolOutput,
{
    fn into_definition(self, name: String) -> Result<ToolDefinition<S>, McpError> {
        let tool = Arc::<str>::from(name.as_str());
        let handler = Arc::new(self);
        let binder: Binder<S> = Arc::new(move |state: Arc<S>| {
            let (handler, tool) = (Arc::clone(&handler), Arc::clone(&tool));
            ToolHandler::blocking(move |context, arguments| {
                handler(&state, context, A::from_arguments(arguments)?)?.into_data(&tool)
            })
        });
        assemble::<S, A, Out>(name, unbound_placeholder(), Some(binder))
    }
}

/// A handler that must be given the state first (never run: [`ToolDefinition::bind`]
/// replaces it).
fn unbound_placeholder() -> ToolHandler {
    ToolHandler::blocking(|_context, _arguments| {
        Err(ToolCallError::Internal {
            message: "the tool was registered without its state".to_owned(),
        })
    })
}

/// The tool named `name` run by `handler` (or by what `binder` makes of the state), its
/// arguments and output declared by their types.
fn assemble<S, A: ToolInput, Out: ToolOutput>(
    name: String,
    handler: ToolHandler,
    binder: Option<Binder<S>>,
) -> Result<ToolDefinition<S>, McpError> {
    let mut definition =
        ToolDefinition::<S>::with_input_schema(name, None, any_object(), ToolEntry::new(handler));
    definition.unbound = binder;
    Out::declare(A::declare(definition)?)
}

/// `{"type": "object"}`: what a tool taking its arguments verbatim publishes by default.
fn any_object() -> ToolInputSchema {
    serde_json::from_value(serde_json::json!({"type": "object"}))
        .expect("{\"type\": \"object\"} is a tool input schema")
}

impl<S: Send + Sync + 'static> ToolDefinition<S> {
    /// The tool `name`, run by `handler`: an async or blocking function or closure, taking
    /// the server state or not, whose arguments and output types say what the tool publishes
    /// (see [`ToolFn`] for the shapes). A generated argument type is published as the tool's
    /// `inputSchema` (its `description` as the tool's) and checks every call before the
    /// handler runs; a generated output type is published as its `outputSchema` and checks
    /// every output before it is sent.
    ///
    /// ```
    /// use serde::Deserialize;
    /// use typed_mcp::mcp::{McpServer, ToolDefinition};
    /// use typed_mcp::tools::{ToolCallError, ToolContext};
    /// # use typed_mcp::validation::{SchemaValidate, ValidationError};
    ///
    /// // In a real crate, `EchoArguments` is generated from the `$defs` of a schema file
    /// // by `typed-mcp-codegen` in build.rs; written by hand here.
    /// #[derive(Deserialize)]
    /// struct EchoArguments {
    ///     text: String,
    /// }
    /// # impl SchemaValidate for EchoArguments {
    /// #     fn validate_value(_: &serde_json::Value) -> Result<(), Vec<ValidationError>> { Ok(()) }
    /// # }
    /// impl typed_mcp::SchemaDefinition for EchoArguments {
    ///     const NAME: &'static str = "EchoArguments";
    ///     const SCHEMA: &'static str = r#"{"type": "object", "required": ["text"],
    ///         "properties": {"text": {"type": "string"}}}"#;
    ///     const DESCRIPTION: Option<&'static str> = Some("Sends the text back.");
    /// }
    ///
    /// // Async, no state, JSON output.
    /// let echo = ToolDefinition::new("echo", |_ctx, args: EchoArguments| async move {
    ///     Ok(serde_json::Value::String(args.text))
    /// })?;
    /// // Blocking (run on the blocking pool), with the server's state.
    /// let count = ToolDefinition::new(
    ///     "count",
    ///     |calls: &std::sync::atomic::AtomicU64, _ctx: ToolContext, _args: EchoArguments| {
    ///         let before = calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ///         Ok::<_, ToolCallError>(serde_json::json!({ "calls": before + 1 }))
    ///     },
    /// )?;
    /// let server = McpServer::builder("example", "1.0.0")
    ///     .state(std::sync::atomic::AtomicU64::new(0))
    ///     .tool(echo)
    ///     .tool(count)
    ///     .build()?;
    /// assert_eq!(server.name(), "example");
    /// # Ok::<(), typed_mcp::mcp::McpError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidToolSchema`] when a definition does not fit a tool (an argument
    /// definition must be an object schema, and both may `$ref` only definitions of their
    /// file), or an `examples` entry of one is rejected by its type.
    pub fn new<H, M>(name: impl Into<String>, handler: H) -> Result<Self, McpError>
    where
        H: ToolFn<S, M>,
    {
        handler.into_definition(name.into())
    }
}
