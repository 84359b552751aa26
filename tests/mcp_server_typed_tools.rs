//! Tools whose schema comes with their generated types (`ToolDefinition::new` and its
//! stateful and blocking twins), served over an in-memory duplex: what `tools/list`
//! publishes is the definition of the schema file, descriptions can be overridden, state is
//! shared between tools, and a per-tool cache TTL set on the definition reaches the cache.

mod mcp_server_support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcp_server_support::{call, legacy_client, tool_error_code, TestClient};
use serde_json::{json, Value};
use typed_mcp::cache::CachePolicy;
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext, ToolResult};
use typed_mcp::SchemaDefinition;

/// The notes server's generated types (`examples/notes_server/notes.json`).
#[allow(missing_docs, unreachable_pub, dead_code)]
mod notes {
    include!(concat!(env!("OUT_DIR"), "/notes/notes.rs"));
}
use notes::{AddNoteArguments, AddNoteOutput, DeleteNoteArguments, SearchNotesArguments};

const NOTES: &str = include_str!("../examples/notes_server/notes.json");

/// The definition `name` of the schema file, as the test reads it.
fn definition(name: &str) -> Value {
    let file: Value = serde_json::from_str(NOTES).expect("JSON");
    file["$defs"][name].clone()
}

/// Checks that `published` is the uniform envelope with `data` narrowed to `definition`
/// (how the envelope itself is assembled is checked by the crate's unit tests).
fn assert_envelope_of(published: &Value, definition: &Value) {
    assert_eq!(
        published["oneOf"].as_array().map(Vec::len),
        Some(2),
        "{published}"
    );
    let data = &published["$defs"]["ToolSuccess"]["properties"]["data"];
    for (key, value) in definition.as_object().expect("an object definition") {
        assert_eq!(&data[key], value, "{key} in {published}");
    }
    assert_eq!(
        published["$defs"]["ToolFailure"]["properties"]["ok"]["const"],
        false
    );
}

fn listed(list: &Value, tool: &str) -> Value {
    list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == tool)
        .unwrap_or_else(|| panic!("{tool} listed: {list}"))
        .clone()
}

async fn echo_title(_ctx: ToolContext, args: AddNoteArguments) -> ToolResult {
    Ok(Value::String(args.title))
}

#[test]
fn generated_types_carry_their_definition() {
    assert_eq!(AddNoteArguments::NAME, "AddNoteArguments");
    let carried: Value = serde_json::from_str(AddNoteArguments::SCHEMA).expect("JSON");
    assert_eq!(carried, definition("AddNoteArguments"));
    assert_eq!(
        AddNoteArguments::DESCRIPTION,
        Some("Adds a note and answers its id.")
    );
    let carried: Value = serde_json::from_str(AddNoteOutput::SCHEMA).expect("JSON");
    assert_eq!(carried, definition("AddNoteOutput"));
}

#[tokio::test]
async fn a_tool_publishes_its_argument_definition_and_description_and_its_output_type() {
    let typed = ToolDefinition::new("add", |_ctx, args: AddNoteArguments| async move {
        match u64::try_from(args.title.len())
            .ok()
            .and_then(std::num::NonZeroU64::new)
        {
            Some(id) => Ok(AddNoteOutput { id }),
            None => Err(ToolCallError::failed("an empty title")),
        }
    })
    .unwrap();
    let renamed = ToolDefinition::new("title", |_ctx, args: AddNoteArguments| {
        Ok(Value::String(args.title))
    })
    .unwrap()
    .description("Answers the title.");
    let server = McpServer::builder("typed", "1.0.0")
        .tool(typed)
        .tool(renamed)
        .tool(ToolDefinition::new("echo_title", echo_title).unwrap())
        .build()
        .unwrap();
    let mut client = legacy_client(server, "2025-11-25").await;
    let list = client.result(json!(1), "tools/list", None).await;

    let add = listed(&list, "add");
    assert_eq!(add["inputSchema"], definition("AddNoteArguments"));
    assert_eq!(add["description"], "Adds a note and answers its id.");
    assert_envelope_of(&add["outputSchema"], &definition("AddNoteOutput"));
    let title = listed(&list, "title");
    assert_eq!(title["description"], "Answers the title.");
    assert!(title.get("outputSchema").is_none(), "{title}");

    let result = client
        .result(
            json!(2),
            "tools/call",
            Some(call("add", json!({"title": "abc", "body": ""}))),
        )
        .await;
    assert_eq!(
        result["structuredContent"]["data"],
        json!({"id": 3}),
        "{result}"
    );
    let result = client
        .result(
            json!(3),
            "tools/call",
            Some(call("echo_title", json!({"title": "x", "body": ""}))),
        )
        .await;
    assert_eq!(result["structuredContent"]["data"], "x", "{result}");
    let rejected = client
        .result(
            json!(4),
            "tools/call",
            Some(call("title", json!({"title": "", "body": ""}))),
        )
        .await;
    assert_eq!(
        tool_error_code(&rejected),
        "VALIDATION_FAILED",
        "{rejected}"
    );
}

/// A state two tools share.
#[derive(Default)]
struct Counter(AtomicU64);

#[tokio::test]
async fn tools_share_the_server_state() {
    let bump = ToolDefinition::new(
        "bump",
        |counter: Arc<Counter>, _ctx, args: DeleteNoteArguments| async move {
            let total = counter.0.fetch_add(args.id.get(), Ordering::SeqCst) + args.id.get();
            Ok(Value::from(total))
        },
    )
    .unwrap();
    let read = ToolDefinition::new(
        "read",
        |counter: &Counter, _ctx, _args: SearchNotesArguments| {
            Ok(Value::from(counter.0.load(Ordering::SeqCst)))
        },
    )
    .unwrap();
    let server = McpServer::builder("stateful", "1.0.0")
        .state(Counter::default())
        .tool(bump)
        .tool(read)
        .tool(ToolDefinition::new("echo_title", echo_title).unwrap())
        .build()
        .unwrap();
    let mut client = legacy_client(server, "2025-11-25").await;
    for (id, by) in [(1, 2), (2, 5)] {
        client
            .result(
                json!(id),
                "tools/call",
                Some(call("bump", json!({"id": by}))),
            )
            .await;
    }
    let total = client
        .result(
            json!(3),
            "tools/call",
            Some(call("read", json!({"query": ""}))),
        )
        .await;
    assert_eq!(total["structuredContent"]["data"], 7, "{total}");
    // JSON Schema counts 3.0 as an integer, and so does the generated `NonZeroU64` member.
    let bumped = client
        .result(
            json!(4),
            "tools/call",
            Some(call("bump", json!({"id": 3.0}))),
        )
        .await;
    assert_eq!(bumped["isError"], false, "{bumped}");
    assert_eq!(bumped["structuredContent"]["data"], 10, "{bumped}");
    // 2.5 is not: the validator says so, with the path.
    let refused = client
        .result(
            json!(5),
            "tools/call",
            Some(call("bump", json!({"id": 2.5}))),
        )
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(tool_error_code(&refused), "VALIDATION_FAILED", "{refused}");
    assert_eq!(
        refused["structuredContent"]["error"]["validationErrors"][0]["path"],
        "/id"
    );
    // An integer no Rust integer member holds: valid to the schema, refused by the type, as
    // a validation failure (never a panic or an internal error).
    let beyond = client
        .result(
            json!(6),
            "tools/call",
            Some(call(
                "bump",
                serde_json::from_str(r#"{"id": 18446744073709551616}"#).unwrap(),
            )),
        )
        .await;
    assert_eq!(beyond["isError"], true, "{beyond}");
    assert_eq!(tool_error_code(&beyond), "VALIDATION_FAILED", "{beyond}");
}

#[tokio::test(start_paused = true)]
async fn a_tool_s_own_cache_ttl_reaches_the_cache() {
    let calls = Arc::new(AtomicU64::new(0));
    let counting = |name: &'static str, policy: CachePolicy| {
        let calls = Arc::clone(&calls);
        ToolDefinition::new(name, move |_ctx, _args: SearchNotesArguments| {
            let calls = Arc::clone(&calls);
            async move { Ok(Value::from(calls.fetch_add(1, Ordering::SeqCst))) }
        })
        .unwrap()
        .cache(policy)
    };
    let ttl = std::num::NonZeroU64::new(1_000).unwrap();
    let server = McpServer::builder("cached", "1.0.0")
        .tool(counting("short", CachePolicy::cacheable_with_ttl_ms(ttl)))
        .tool(counting("default", CachePolicy::cacheable()))
        .build()
        .unwrap();
    let mut client = TestClient::start(server);
    let mut id = 0;
    assert!(!cached(&mut client, "short", &mut id).await);
    assert!(!cached(&mut client, "default", &mut id).await);
    assert!(
        cached(&mut client, "short", &mut id).await,
        "within its TTL"
    );
    assert!(cached(&mut client, "default", &mut id).await);
    // Past the tool's own TTL (1 s), within the cache's (60 s).
    tokio::time::advance(Duration::from_millis(1_500)).await;
    assert!(
        !cached(&mut client, "short", &mut id).await,
        "expired after its own TTL"
    );
    assert!(
        cached(&mut client, "default", &mut id).await,
        "the cache's TTL still holds"
    );
}

/// Calls `tool` (2026-07-28) and answers whether the result came from the cache.
async fn cached(client: &mut TestClient, tool: &str, id: &mut u64) -> bool {
    *id += 1;
    let params = mcp_server_support::modern(call(tool, json!({"query": "q"})));
    let result = client.result(json!(*id), "tools/call", Some(params)).await;
    assert_eq!(result["isError"], false, "{result}");
    result["structuredContent"]["meta"]["cached"] == true
}
