//! Tools declared `in_place` on the MCP server: a call of one (whose results are not cached)
//! starts on the request loop's reading task, and its handler's first poll runs there; a
//! call of any other tool gets a task of its own, as does a cacheable tool declared in place
//! (a cache store may block on I/O).

mod mcp_server_support;

use std::collections::HashSet;

use mcp_server_support::demo::arguments::EchoArguments;
use mcp_server_support::{call, envelope, legacy_client, limits, TestClient};
use serde_json::{json, Value};
use typed_mcp::cache::CachePolicy;
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::ToolContext;

/// A tool answering the id of the task its handler runs on.
fn where_it_runs(name: &str) -> ToolDefinition {
    ToolDefinition::new(name, |_ctx: ToolContext, _args: EchoArguments| async move {
        let task = tokio::task::try_id().map(|id| id.to_string());
        Ok(json!(task))
    })
    .expect("tool")
    .description("Answers the id of the task it runs on.")
}

/// The tasks three calls of `name` ran on.
async fn tasks(client: &mut TestClient, name: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    for n in 0..3 {
        let id = json!(format!("{name}-{n}"));
        let arguments = json!({"text": format!("call {n}")});
        let result = client
            .result(id, "tools/call", Some(call(name, arguments)))
            .await;
        let task = envelope(&result)["data"].clone();
        assert!(task.is_string(), "{result}");
        seen.push(task);
    }
    seen
}

#[tokio::test]
async fn only_uncached_tools_declared_in_place_run_on_the_reading_task() {
    let server = McpServer::builder("in-place", "1.0.0")
        .limits(limits(json!({})))
        .tool(where_it_runs("in-place").in_place())
        .tool(where_it_runs("own-task"))
        .tool(
            where_it_runs("cached")
                .in_place()
                .cache(CachePolicy::cacheable()),
        )
        .build()
        .expect("server");
    let mut client = legacy_client(server, "2025-11-25").await;
    let distinct = |tasks: &[Value]| {
        tasks
            .iter()
            .map(ToString::to_string)
            .collect::<HashSet<_>>()
    };
    let in_place = tasks(&mut client, "in-place").await;
    assert_eq!(
        distinct(&in_place).len(),
        1,
        "one task for all: {in_place:?}"
    );
    let own = tasks(&mut client, "own-task").await;
    assert_eq!(distinct(&own).len(), 3, "a task each: {own:?}");
    let cached = tasks(&mut client, "cached").await;
    assert_eq!(distinct(&cached).len(), 3, "a task each: {cached:?}");
    assert!(!own.contains(&in_place[0]) && !cached.contains(&in_place[0]));
}
