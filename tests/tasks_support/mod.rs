//! The task tools the Tasks tests share: `client_tasks.rs` (our client against one server in
//! process) and `tasks_redis.rs` (two HTTP instances on one Redis) run the same `slow` and
//! `ask`, so a change of the fixture reaches both.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use typed_mcp::mcp::tasks::TaskSupport;
use typed_mcp::mcp::ToolDefinition;
use typed_mcp::tools::{ToolCallError, ToolContext};

/// `slow`, a task when the client allows: answers `{"slept": ms}` after its argument `ms`
/// milliseconds (never when 0) unless cancelled. Counts its handlers started in `started`,
/// and in `stopped` those that ended before their answer (dropped, or cancelled).
pub(crate) fn slow(started: Arc<AtomicU32>, stopped: Arc<AtomicU32>) -> ToolDefinition {
    ToolDefinition::new("slow", move |ctx: ToolContext, args: Value| {
        let (started, stopped) = (Arc::clone(&started), Arc::clone(&stopped));
        async move {
            started.fetch_add(1, Ordering::SeqCst);
            // Counts the handler's end before its result: the runner drops it when cancelled.
            let mut stop = Stopped(stopped, false);
            let ms = args["ms"].as_u64().unwrap_or(0);
            let wait = if ms == 0 { 3_600_000 } else { ms };
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(wait)) => {
                    stop.1 = true;
                    Ok(json!({"slept": ms}))
                }
                () = ctx.cancelled() => Err(ToolCallError::failed("cancelled")),
            }
        }
    })
    .expect("a valid tool")
    .task_support(TaskSupport::Optional)
}

/// `ask`, a task when the client allows: asks the client whether to go on (an elicitation
/// under the key `ok`), then answers `{"answered": ACTION}`.
pub(crate) fn ask() -> ToolDefinition {
    ToolDefinition::new("ask", |ctx: ToolContext, _args: Value| async move {
        let params = json!({"message": "go on?", "requestedSchema": {"type": "object"}});
        let answer = ctx
            .ask(Some("ok"), "elicitation/create", params)
            .await
            .map_err(|e| ToolCallError::failed(e.to_string()))?;
        Ok(json!({"answered": answer["action"]}))
    })
    .expect("a valid tool")
    .task_support(TaskSupport::Optional)
}

/// Counts a handler stopped before its end (dropped, or cancelled), unless `.1` is set.
struct Stopped(Arc<AtomicU32>, bool);

impl Drop for Stopped {
    fn drop(&mut self) {
        if !self.1 {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}
