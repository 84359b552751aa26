//! Tool execution: request limits, timeouts and the response envelope.
//!
//! Tools are defined with [`crate::mcp::ToolDefinition`]; this module holds what their
//! handlers get and return ([`ToolContext`], [`ToolResult`], [`ToolCallError`]) and the
//! runner the server calls them through. The server loop calls a [`ToolRunner`] for each `tools/call`:
//!
//! 1. [`ToolRunner::prepare`] checks the request limits on the raw arguments before any
//!    handler runs: every array longer than `toolArrayLimits[tool]` / `maxArraySize`
//!    (`ARRAY_TOO_LARGE`, all violations with their JSON Pointers) and nesting deeper than
//!    `maxDepth` (`VALIDATION_FAILED`), without recursion.
//! 2. The server may consult its result cache with [`PreparedCall::arguments`] when the
//!    tool's cache policy allows it, and answer a hit with
//!    [`ToolRunner::render_cached`].
//! 3. [`ToolRunner::execute`] runs the handler (async, or blocking on the blocking pool)
//!    under its timeout (`toolOverrides` > `toolTimeouts[category]` > `defaultTimeoutMs`) and
//!    the client's cancel, and renders the `CallToolResult` (see [`envelope`](self)) within
//!    `maxResponseBytes` for the response line. A success of a cacheable tool carries its
//!    output in [`ToolCallResult::cacheable_output`] for the cache to store.
//!
//! With the cache's single-flight `get_or_compute`, the computation can be
//! `execute(..)` mapped to `Ok(cacheable_output)` for a cacheable success and `Err(outcome)`
//! otherwise; the shared value is then rendered with [`ToolRunner::render_output`].
//!
//! [`ToolRunner::call`] does 1 and 3. The outcome is either a result to send or
//! [`CallOutcome::Cancelled`]: send nothing.
//!
//! ```
//! # tokio_test::block_on(async {
//! use serde_json::json;
//! use typed_mcp::generated::limits::Limits;
//! use typed_mcp::tools::{CallOptions, CallOutcome, ToolArguments, ToolEntry, ToolHandler, ToolRunner};
//!
//! let runner = ToolRunner::new(&Limits::default());
//! let entry = ToolEntry::new(ToolHandler::from_async(|_context, arguments| async move {
//!     Ok(json!({ "echo": arguments }))
//! }));
//! let outcome = runner
//!     .call("echo", &entry, ToolArguments::Raw(br#"{"x":1}"#), CallOptions::with_line_overhead(40))
//!     .await;
//! let CallOutcome::Respond(result) = outcome else { panic!("not cancelled") };
//! let json: serde_json::Value = serde_json::from_str(result.json.get()).unwrap();
//! assert_eq!(json["structuredContent"]["data"]["echo"]["x"], 1);
//! assert_eq!(json["isError"], false);
//! # });
//! ```

mod arguments;
mod call_options;
mod client;
mod content;
pub(crate) mod elicitation;
mod envelope;
mod envelope_text;
mod envelope_writer;
pub(crate) use envelope::RESULT_TYPE_MEMBER;
mod error;
mod execution;
mod handler;
mod policy;
mod progress;
mod runner;
mod stats;

pub(crate) use client::RUN_AS_TASK;
pub use client::{ClientRequest, ClientRequestError, ClientRequester, ClientResponse};
pub use elicitation::UrlElicitation;
pub use envelope::{ToolCallResult, META_KEY, TRUNCATION_MARKER};
pub use error::ToolCallError;
pub use handler::{ToolContext, ToolResult};
// The runner's own view of a tool, for the server and for tests and fuzzing of the runner:
// tools are defined with `mcp::ToolDefinition`.
pub use call_options::CallOptions;
#[doc(hidden)]
pub use handler::{ToolEntry, ToolFuture, ToolHandler};
pub use policy::{
    arguments_depth_limit, array_limit, resolve_timeout, ResolvedTimeout, TimeoutSource,
    ARGUMENTS_DEPTH_OFFSET,
};
pub use progress::{LogMessage, LogSink, ProgressReporter, ProgressSink, ProgressUpdate};
pub use runner::{CallOutcome, PreparedCall, ToolArguments, ToolRunner};
pub use stats::RunnerStats;
