//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the server, MCP
//! 2026-07-28.
//!
//! - **Negotiation.** A server with a task-capable tool ([`ToolDefinition::task_support`])
//!   declares the extension in `server/discover`. A request may use it only when its
//!   `_meta["io.modelcontextprotocol/clientCapabilities"].extensions` declares it too:
//!   `tasks/get`, `tasks/update` and `tasks/cancel` are `-32021` otherwise, with
//!   `data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"]`.
//! - **Creation is the server's choice.** A `tools/call` of a task-capable tool from a client
//!   that declared the extension answers at once with a `CreateTaskResult` (`resultType:
//!   "task"`, `taskId`, `status: "working"`, `ttlMs`, `pollIntervalMs`), stored before it is
//!   sent, so an immediate `tasks/get` finds it. Without the extension a
//!   [`TaskSupport::Optional`] tool answers as a plain call, a [`TaskSupport::Required`] one
//!   is `-32021`. A legacy `task` param is ignored.
//! - **The work** is the tool's handler, run by the same runner as a call (limits, timeout
//!   category, result cache, cancellation, result envelope). **Timeout:** a task's work has
//!   the tool's timeout, counted from the task's creation; past it the task ends `completed`
//!   with the `TOOL_TIMEOUT` tool error. Unlike a call's, it is not bounded by how long the
//!   client waits (the client only polls); the task's `ttlMs` bounds how long the task and its
//!   result can be read, not how long the work runs (though work still running at the end
//!   of the TTL is stopped on a shared store). A result, even a tool error (`isError: true`),
//!   makes the task `completed` with the result inlined on `tasks/get`; a handler that panics
//!   or fails unexpectedly (`INTERNAL`) or a JSON-RPC error makes it `failed` with `error`.
//! - **Questions.** A question the handler asks the client (`ctx.elicit`, `ctx.sample`, ...)
//!   parks the task as `input_required` with the question under `inputRequests`; `tasks/update`
//!   delivers answers by key (one at a time or all at once), and the handler continues.
//! - **Questions before the task** (SEP-2663 with multi round-trip requests). A tool marked
//!   [`ToolDefinition::task_after_input`] is not a task at once: the call runs as a plain
//!   2026-07-28 call, its questions are `input_required` rounds of the call itself (with
//!   `requestState`, no `taskId`), until the handler calls
//!   [`ToolContext::run_as_task`](crate::tools::ToolContext::run_as_task); on the round
//!   where every question has its answer, the call is answered with a `CreateTaskResult`
//!   (no `requestState`, no `inputRequests`) and the handler runs again, from the start, as
//!   the task's work, with those answers; a question asked after that parks the task.
//! - **Cancellation.** `tasks/cancel` stops the handler (its future is dropped) and settles
//!   the task as `cancelled`;
//!   it is acknowledged with `{resultType: "complete"}`, on a terminal task too.
//! - **TTL.** A task is kept for its `ttlMs` from its creation ([`TaskOptions::ttl`]), then
//!   it is unknown.
//! - **Across instances** (`RedisTaskStore`, `tasks.store: redis` in the limits, feature
//!   `redis`): every instance answers for every task. The store refuses to replace an ended
//!   record, so whichever instance ends a task first wins. A `tasks/cancel` on an instance
//!   that does not run the task settles it `cancelled` in the store at once (every instance
//!   answers `cancelled` from then on), and the instance that runs it, which reads the store
//!   every `pollIntervalMs`, drops the handler within one interval; a result the handler
//!   returns meanwhile is discarded. A `tasks/update` there is kept in the store and handed to
//!   the handler within one interval. A task whose instance stopped stays `working` until
//!   its TTL ends (nothing else can run it).
//! - **Bad input.** An unknown or expired task id, and a task of another identity (when the
//!   server is protected), are the same `-32602` "unknown task", quoting nothing. A store
//!   that fails answers `-32603` "the task store is unavailable" (the cause is logged).
//!   `tasks/result` and `tasks/list` (removed by SEP-2663) are `-32601`.
//! - **Not yet.** The 2025 era.
//!
//! [`ToolDefinition::task_support`]: crate::mcp::ToolDefinition::task_support
//! [`ToolDefinition::task_after_input`]: crate::mcp::ToolDefinition::task_after_input

pub(crate) mod methods;
#[cfg(feature = "redis")]
mod redis_store;
mod runtime;
mod store;

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "redis")]
pub use redis_store::RedisTaskStore;
pub(crate) use runtime::Tasks;
pub use store::{MemoryTaskStore, TaskRecord, TaskStore, TaskStoreError, TaskStoreFuture};

use crate::generated::limits::{TaskLimits, TaskStoreKind};

/// The identifier of the Tasks extension.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether a tool's calls may become tasks ([`ToolDefinition::task_support`]).
///
/// [`ToolDefinition::task_support`]: crate::mcp::ToolDefinition::task_support
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task when the client declared the extension, a plain call otherwise.
    Optional,
    /// Only as a task: a client that did not declare the extension gets `-32021`.
    Required,
}

/// How the server keeps tasks ([`McpServerBuilder::tasks`](crate::mcp::McpServerBuilder::tasks)).
#[derive(Debug, Clone)]
#[must_use]
pub struct TaskOptions {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
}

impl Default for TaskOptions {
    fn default() -> Self {
        let limits = TaskLimits::default();
        Self {
            store: Arc::new(MemoryTaskStore::new()),
            ttl: Duration::from_millis(limits.ttl_ms.get()),
            poll_interval: Duration::from_millis(limits.poll_interval_ms.get()),
        }
    }
}

impl TaskOptions {
    /// In-memory tasks, kept 10 minutes, polled every 500 ms.
    pub fn new() -> Self {
        Self::default()
    }

    /// The options the limits' `tasks` section gives: `ttlMs`, `pollIntervalMs`, and the
    /// store (`memory`, or `redis` at `redisUrl` with `redisTimeoutMs` and
    /// `redisKeyPrefix`: a `RedisTaskStore`, feature `redis`). Does not connect yet.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::Setup`] for a `redisUrl` that is not a Redis URL, or `store:
    /// redis` in a crate built without the `redis` feature.
    pub fn from_limits(limits: &TaskLimits) -> Result<Self, TaskStoreError> {
        let store: Arc<dyn TaskStore> = match limits.store {
            TaskStoreKind::Memory => Arc::new(MemoryTaskStore::new()),
            #[cfg(feature = "redis")]
            TaskStoreKind::Redis => Arc::new(RedisTaskStore::from_limits(limits)?),
            #[cfg(not(feature = "redis"))]
            TaskStoreKind::Redis => {
                return Err(TaskStoreError::Setup(
                    "tasks.store redis needs the crate's redis feature".to_owned(),
                ))
            }
        };
        Ok(Self {
            store,
            ttl: Duration::from_millis(limits.ttl_ms.get()),
            poll_interval: Duration::from_millis(limits.poll_interval_ms.get()),
        })
    }

    /// Where tasks are kept (a shared store lets every instance of a cluster answer
    /// `tasks/get`).
    pub fn store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.store = store;
        self
    }

    /// How long a task is kept after its creation (`ttlMs`; at least 1 ms).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl.max(Duration::from_millis(1));
        self
    }

    /// How often clients are asked to poll (`pollIntervalMs`; at least 1 ms).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// `ms` (milliseconds since the Unix epoch) as RFC 3339 UTC, to the millisecond.
pub(crate) fn rfc3339(ms: u64) -> String {
    let days = ms / 86_400_000;
    let in_day = ms % 86_400_000;
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = i64::try_from(days).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339(1_795_856_645_123), "2026-11-28T09:04:05.123Z");
    }
}
