//! Tools whose schema is on their generated types: [`ToolDefinition::new`] and its blocking
//! and stateful twins.
//!
//! The argument type `A` is generated from a definition of the user's schema file and
//! carries it ([`SchemaDefinition`]): the tool publishes that definition as `inputSchema`,
//! takes its `description`, and checks every call with its generated validator. The output
//! is either a [`serde_json::Value`] (no `outputSchema`), or a generated type whose
//! definition is published as the tool's `outputSchema` (inside the uniform envelope, see
//! [`OutputSchema::published`]), serialized and checked by its validator before it is sent.
//!
//! # Server state
//!
//! [`McpServerBuilder::state`](super::McpServerBuilder::state) gives the server one value of
//! a type `S`; a tool built with [`ToolDefinition::with_state`] gets it on every call (an
//! `Arc<S>`, cloned per call; `&S` for blocking handlers). As with axum's `State`, the state
//! type is checked at compile time: the builder becomes `McpServerBuilder<S>`, and its
//! [`tool`](super::McpServerBuilder::tool) takes only `ToolDefinition<S>`, so a tool cannot
//! be registered on a server whose state it does not know. Unlike axum, nothing is cloned
//! but the `Arc`: `S` needs no `Clone`, and shared mutation is the state's own business (a
//! `Mutex` or `RwLock` inside it).

use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::output_schema::checked_output;
use super::tools::{typed_arguments, Binder};
use super::{ArgumentSchema, McpError, OutputSchema, ToolDefinition};
use crate::tools::{ToolCallError, ToolContext, ToolEntry, ToolHandler, ToolResult};
use crate::SchemaDefinition;

/// What a tool built with [`ToolDefinition::new`] may return: a [`serde_json::Value`]
/// (published without `outputSchema`), or a type generated from a schema definition, which
/// is published as the tool's `outputSchema` and validated before it is sent.
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

/// A handler that must be given the state first (never run: [`ToolDefinition::bind`]
/// replaces it).
fn unbound_placeholder() -> ToolHandler {
    ToolHandler::blocking(|_context, _arguments| {
        Err(ToolCallError::Internal {
            message: "the tool was registered without its state".to_owned(),
        })
    })
}

impl<S: Send + Sync + 'static> ToolDefinition<S> {
    /// A tool named `name` with an async handler taking the generated argument type `A`:
    /// its `inputSchema`, description and validator come from `A`'s schema definition.
    ///
    /// ```ignore
    /// let add = ToolDefinition::new("add_note", |_ctx, args: AddNoteArguments| async move {
    ///     Ok(serde_json::json!({"title": args.title}))
    /// })?;
    /// ```
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidToolSchema`] when a definition does not fit a tool (an argument
    /// definition must be a self-contained object schema), or an `examples` entry of one is
    /// rejected by its type.
    pub fn new<A, Out, F, Fut>(name: impl Into<String>, handler: F) -> Result<Self, McpError>
    where
        A: SchemaDefinition + DeserializeOwned + Send + 'static,
        Out: ToolOutput,
        F: Fn(ToolContext, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Out, ToolCallError>> + Send + 'static,
    {
        let name = name.into();
        let tool = Arc::<str>::from(name.as_str());
        let handler = Arc::new(handler);
        let run = ToolHandler::from_async(move |context, arguments| {
            let (handler, tool) = (Arc::clone(&handler), Arc::clone(&tool));
            async move {
                let arguments = typed_arguments::<A>(arguments)?;
                handler(context, arguments).await?.into_data(&tool)
            }
        });
        Self::typed::<A, Out>(name, run, None)
    }

    /// Like [`ToolDefinition::new`], with a synchronous handler run on the blocking pool (it
    /// should check [`ToolContext::is_cancelled`] now and then).
    ///
    /// # Errors
    ///
    /// As [`ToolDefinition::new`].
    pub fn new_blocking<A, Out, F>(name: impl Into<String>, handler: F) -> Result<Self, McpError>
    where
        A: SchemaDefinition + DeserializeOwned + Send + 'static,
        Out: ToolOutput,
        F: Fn(ToolContext, A) -> Result<Out, ToolCallError> + Send + Sync + 'static,
    {
        let name = name.into();
        let tool = name.clone();
        let run = ToolHandler::blocking(move |context, arguments| {
            handler(context, typed_arguments::<A>(arguments)?)?.into_data(&tool)
        });
        Self::typed::<A, Out>(name, run, None)
    }

    /// Like [`ToolDefinition::new`], with a handler that also takes the server state
    /// ([`McpServerBuilder::state`](super::McpServerBuilder::state)) as an `Arc<S>`.
    ///
    /// # Errors
    ///
    /// As [`ToolDefinition::new`].
    pub fn with_state<A, Out, F, Fut>(name: impl Into<String>, handler: F) -> Result<Self, McpError>
    where
        A: SchemaDefinition + DeserializeOwned + Send + 'static,
        Out: ToolOutput,
        F: Fn(Arc<S>, ToolContext, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Out, ToolCallError>> + Send + 'static,
    {
        let name = name.into();
        let tool = Arc::<str>::from(name.as_str());
        let handler = Arc::new(handler);
        let binder: Binder<S> = Arc::new(move |state: Arc<S>| {
            let (handler, tool) = (Arc::clone(&handler), Arc::clone(&tool));
            ToolHandler::from_async(move |context, arguments| {
                let (handler, tool, state) =
                    (Arc::clone(&handler), Arc::clone(&tool), Arc::clone(&state));
                async move {
                    let arguments = typed_arguments::<A>(arguments)?;
                    handler(state, context, arguments).await?.into_data(&tool)
                }
            })
        });
        Self::typed::<A, Out>(name, unbound_placeholder(), Some(binder))
    }

    /// Like [`ToolDefinition::with_state`], with a synchronous handler (taking `&S`) run on
    /// the blocking pool.
    ///
    /// # Errors
    ///
    /// As [`ToolDefinition::new`].
    pub fn with_state_blocking<A, Out, F>(
        name: impl Into<String>,
        handler: F,
    ) -> Result<Self, McpError>
    where
        A: SchemaDefinition + DeserializeOwned + Send + 'static,
        Out: ToolOutput,
        F: Fn(&S, ToolContext, A) -> Result<Out, ToolCallError> + Send + Sync + 'static,
    {
        let name = name.into();
        let tool = Arc::<str>::from(name.as_str());
        let handler = Arc::new(handler);
        let binder: Binder<S> = Arc::new(move |state: Arc<S>| {
            let (handler, tool) = (Arc::clone(&handler), Arc::clone(&tool));
            ToolHandler::blocking(move |context, arguments| {
                handler(&state, context, typed_arguments::<A>(arguments)?)?.into_data(&tool)
            })
        });
        Self::typed::<A, Out>(name, unbound_placeholder(), Some(binder))
    }

    /// The tool of `A`'s definition, run by `handler` (or by what `binder` makes of the state).
    fn typed<A, Out>(
        name: String,
        handler: ToolHandler,
        binder: Option<Binder<S>>,
    ) -> Result<Self, McpError>
    where
        A: SchemaDefinition + DeserializeOwned,
        Out: ToolOutput,
    {
        let schema = ArgumentSchema::of::<A>().map_err(|error| named(error, &name))?;
        let stateless =
            ToolDefinition::assemble::<A>(name, String::new(), &schema, ToolEntry::new(handler))?;
        let mut definition = ToolDefinition {
            tool: stateless.tool,
            entry: stateless.entry,
            required_capabilities: stateless.required_capabilities,
            content_blocks: stateless.content_blocks,
            structured_output: stateless.structured_output,
            unbound: binder,
        };
        definition.tool.description = A::DESCRIPTION.map(str::to_owned);
        Out::declare(definition)
    }
}
