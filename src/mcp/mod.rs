//! The MCP server: both protocol eras on one connection type, typed tools, resources and
//! prompts, built on the request loop ([`crate::server`]), the tool runtime
//! ([`crate::tools`]), the result cache ([`crate::cache`]) and the generated protocol types
//! ([`crate::generated::protocol`]).
//!
//! - **Eras.** A connection opened by `initialize` speaks a 2025 version (the client's when
//!   supported, else 2025-11-25), with `ping` and, in 2025-03-26 only, JSON-RPC batches. A
//!   connection whose first request carries `params._meta["io.modelcontextprotocol/protocolVersion"]`
//!   speaks 2026-07-28: stateless, `server/discover`, `resultType` and cache hints on results,
//!   `-32022` for a version it does not speak, no `ping`. See [`era`].
//! - **Batches.** Allowed from the frame after the `initialize` that negotiated 2025-03-26
//!   has been handled (clients wait for its answer before sending more); rejected with
//!   `-32600` in every other session.
//! - **Dispatch.** The method first (`-32601` if unknown), then the era, then the params:
//!   the generated validator of the method's params runs before decoding, and its
//!   violations (path, keyword, limit, actual) are the `data.validationErrors` of `-32602`.
//!   Notifications are never answered.
//! - **Tools.** [`ToolDefinition`]s with generated argument (and output) types, which carry
//!   their schema definitions ([`ToolDefinition::new`], one constructor for every handler
//!   shape: async or blocking, with or without the server state); the
//!   runner applies the limits, timeouts, cancellation and the response envelope; cacheable
//!   tools go through the result cache; a request's `progressToken` turns the handler's
//!   progress reports into `notifications/progress`.
//! - **Outbound validation.** Every result is checked with its generated validator before it
//!   is written; a failure is logged and answered with `-32603` instead.
//! - **Lists.** Every list method is paged (`limits.lists.pageSize`). A cursor is opaque and
//!   sealed (HMAC) and names the last item delivered: it survives other changes to the
//!   list, and fails with `-32602` once that item is removed, or when altered.
//! - **Changes while serving.** `McpServer::add_tool` / `remove_tool` (and the same for
//!   resources, templates, prompts) change the offer of every connection; each change is
//!   announced with `notifications/*/list_changed` to every initialized 2025 connection,
//!   and to every 2026-07-28 `subscriptions/listen` stream that opted in.
//! - **Resources.** URIs checked (RFC 3986 and a [`UriPolicy`]) at registration and on
//!   `resources/read`; an unknown URI is `-32002` (2025) or `-32602` (2026-07-28).
//!
//! ```
//! # tokio_test::block_on(async {
//! use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//! use typed_mcp::mcp::McpServer;
//!
//! let server = McpServer::builder("example", "1.0.0").build().unwrap();
//! let (client, server_io) = tokio::io::duplex(64 * 1024);
//! let (input, output) = tokio::io::split(server_io);
//! let serving = tokio::spawn(async move { server.serve(input, output).await });
//! let (reader, mut writer) = tokio::io::split(client);
//! writer.write_all(concat!(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"#,
//!     r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
//!     r#""io.modelcontextprotocol/clientCapabilities":{}}}}"#, "\n"
//! ).as_bytes()).await.unwrap();
//! let mut line = String::new();
//! BufReader::new(reader).read_line(&mut line).await.unwrap();
//! let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
//! assert_eq!(answer["result"]["supportedVersions"][0], "2026-07-28");
//! drop(writer);
//! serving.await.unwrap().unwrap();
//! # });
//! ```

mod answer_bound;
pub mod apps;
mod builder;
mod call_params;
mod catalog;
mod client_requests;
mod completion;
pub mod content;
mod dispatch;
mod dynamic;
pub mod era;
mod extensions;
#[cfg(test)]
mod future_size;
mod in_place;
mod input_required;
mod listen;
mod outbound;
mod output_schema;
mod pagination;
mod params;
mod prompts;
mod resource_templates;
mod resources;
mod schema_refs;
#[cfg(feature = "skills")]
pub mod skills;
mod subscriptions;
pub mod tasks;
mod tool_call;
mod tools;
pub(crate) mod typed_tool;
mod uri_template;
#[cfg(feature = "runtime-schema")]
mod verbatim_schema;

#[cfg(feature = "http")]
pub(crate) use builder::ServerState;
pub use builder::{CacheHints, McpServer, McpServerBuilder, DEFAULT_TTL_MS};
#[cfg(feature = "http")]
pub(crate) use dispatch::Connection;
pub use prompts::{
    user_text, AskingPromptRenderer, PromptArguments, PromptCompleter, PromptContext,
    PromptDefinition, PromptError, PromptFuture, PromptRenderer,
};
pub use resource_templates::{
    ResourceTemplateDefinition, TemplateCompleter, TemplateParams, TemplateReader,
};
pub use resources::{ResourceDefinition, ResourceError, ResourceReader, UriPolicy};
pub use tools::ToolDefinition;
pub use typed_tool::{ToolFn, ToolInput, ToolOutput};
pub use uri_template::{UriTemplate, UriTemplateError};
#[cfg(feature = "runtime-schema")]
pub use verbatim_schema::VerbatimSchema;

/// Errors of the MCP server layer: building a server, and serving a connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A tool's argument or output schema is unusable, or one of its `examples` is rejected
    /// by the tool's type.
    #[error("tool schema {name:?}: {reason}")]
    InvalidToolSchema {
        /// The tool concerned, or the schema definition when no tool is named yet (empty
        /// when the schema was given as a value).
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A resource's URI is invalid or refused by the URI policy.
    #[error("resource {name:?}: {reason}")]
    InvalidResourceUri {
        /// The resource's name.
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// Two tools, resources or prompts share a name (or URI).
    #[error("two {kind}s are called {name:?}")]
    DuplicateName {
        /// `tool`, `resource` or `prompt`.
        kind: &'static str,
        /// The shared name.
        name: String,
    },
    /// An extension identifier given to
    /// [`McpServerBuilder::extension`] breaks the `_meta` key rule (a dotted prefix, `/`,
    /// a name: `io.modelcontextprotocol/tasks`).
    #[error("extension identifier {id:?} is not a prefixed `_meta` key (as `com.example/name`)")]
    InvalidExtensionId {
        /// The identifier given.
        id: String,
    },
    /// An app (the MCP Apps extension, [`apps`]) is malformed: an app resource whose URI is
    /// not `ui://` or whose `_meta.ui` does not validate, or a tool linked to no app resource
    /// of the server.
    #[error("app {name:?}: {reason}")]
    InvalidApp {
        /// The resource or tool concerned.
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A skill (the Skills extension, `skills`, feature `skills`) is malformed: no
    /// `SKILL.md`, frontmatter without a valid `name` and `description`, a name that is not
    /// the path's last segment, a bad file path, a file given twice with different bytes,
    /// over the extension's limits, or a directory that cannot be read.
    #[error("skill {skill:?}: {reason}")]
    InvalidSkill {
        /// The skill's path.
        skill: String,
        /// What is wrong.
        reason: String,
    },
    /// The result cache could not be built from the limits.
    #[error("building the result cache failed")]
    Cache(#[source] crate::cache::CacheError),
    /// The task store the limits' `tasks` section names could not be set up (a `redisUrl`
    /// that is not a Redis URL, or `store: redis` without the `redis` feature).
    #[error("setting up the task store failed")]
    Tasks(#[source] tasks::TaskStoreError),
    /// The server's key set could not be read, or none is configured and no random one
    /// could be drawn (see [`crate::secrets`]).
    #[error("setting up the server keys failed")]
    Keys(#[source] crate::secrets::KeyError),
    /// Serving the connection failed.
    #[error("serving failed")]
    Serve(#[source] crate::server::ServerError),
    /// The task serving stdio ([`McpServer::serve_stdio`]) was cancelled before its end:
    /// the runtime is shutting down.
    #[error("the stdio loop's task was cancelled (the runtime is shutting down)")]
    LoopCancelled,
}
