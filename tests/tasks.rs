//! The Tasks extension (`io.modelcontextprotocol/tasks`) on the server, 2026-07-28, over an
//! in-memory duplex: negotiation, creation, `tasks/get` until the inlined result, questions
//! answered with `tasks/update`, cancellation, TTL, and the errors of bad input.

mod mcp_server_support;

use std::time::Duration;

use mcp_server_support::demo::arguments::EchoArguments;
use mcp_server_support::{modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::generated::tasks::validate;
use typed_mcp::mcp::tasks::{TaskOptions, TaskSupport, TASKS_EXTENSION};
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

/// A server with `later` (optional task: echoes after 100 ms, or after the text's number of
/// seconds when it is one), `only_task` (required) and `confirm` (asks the client first).
fn server(ttl: Duration) -> McpServer {
    let later = ToolDefinition::new(
        "later",
        |ctx: ToolContext, args: EchoArguments| async move {
            let wait = args.text.parse::<u64>().map_or(100, |s| s * 1000);
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(wait)) => {}
                () = ctx.cancelled() => return Err(ToolCallError::failed("cancelled")),
            }
            Ok(Value::String(args.text))
        },
    )
    .unwrap()
    .task_support(TaskSupport::Optional)
    .description("Echoes later.");
    let only_task = ToolDefinition::new(
        "only_task",
        |_ctx: ToolContext, args: EchoArguments| async move { Ok(Value::String(args.text)) },
    )
    .unwrap()
    .task_support(TaskSupport::Required)
    .description("Echoes, as a task only.");
    let confirm = ToolDefinition::new(
        "confirm",
        |ctx: ToolContext, args: EchoArguments| async move {
            let params = json!({"message": args.text, "requestedSchema": {"type": "object"}});
            let answer = ctx
                .ask(Some("ok"), "elicitation/create", params)
                .await
                .map_err(|e| ToolCallError::failed(e.to_string()))?;
            Ok(Value::String(format!("answered {}", answer["action"])))
        },
    )
    .unwrap()
    .task_support(TaskSupport::Optional)
    .description("Asks, then answers.");
    McpServer::builder("tasks", "1")
        .tasks(
            TaskOptions::new()
                .ttl(ttl)
                .poll_interval(Duration::from_millis(50)),
        )
        .tool(later)
        .tool(only_task)
        .tool(confirm)
        .build()
        .unwrap()
}

/// Modern params declaring the Tasks extension (and elicitation).
fn with_tasks(extra: Value) -> Value {
    let mut params = modern(extra);
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}, "extensions": {TASKS_EXTENSION: {}}});
    params
}

fn call(name: &str, text: &str) -> Value {
    json!({"name": name, "arguments": {"text": text}})
}

/// Polls `tasks/get` until the task is terminal.
async fn settled(client: &mut TestClient, id: &Value) -> Value {
    for _ in 0..200 {
        let task = client
            .result(
                json!("poll"),
                "tasks/get",
                Some(with_tasks(json!({"taskId": id}))),
            )
            .await;
        validate::detailed_task(&task).expect("a valid DetailedTask");
        if ["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap()) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the task did not settle");
}

#[tokio::test]
async fn a_task_capable_call_becomes_a_task_polled_to_its_result() {
    let mut client = TestClient::start(server(Duration::from_secs(60)));
    let discover = client
        .result(json!(0), "server/discover", Some(with_tasks(json!({}))))
        .await;
    assert_eq!(
        discover["capabilities"]["extensions"][TASKS_EXTENSION],
        json!({})
    );
    let created = client
        .result(
            json!(1),
            "tools/call",
            Some(with_tasks(call("later", "hi"))),
        )
        .await;
    validate::create_task_result(&created).expect("a valid CreateTaskResult");
    assert_eq!(created["resultType"], "task");
    assert_eq!(created["status"], "working");
    assert_eq!(created["ttlMs"], 60_000);
    assert_eq!(created["pollIntervalMs"], 50);
    let id = created["taskId"].clone();
    let done = settled(&mut client, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "hi");
    assert_eq!(done["resultType"], "complete");
}

#[tokio::test]
async fn without_the_extension_calls_run_plainly_and_the_tasks_methods_are_refused() {
    let mut client = TestClient::start(server(Duration::from_secs(60)));
    let plain = client
        .result(json!(1), "tools/call", Some(modern(call("later", "hi"))))
        .await;
    assert_eq!(plain["resultType"], "complete");
    assert_eq!(plain["content"][0]["text"], "hi");
    let refused = client
        .error(json!(2), "tools/call", Some(modern(call("only_task", "x"))))
        .await;
    assert_eq!(refused["code"], -32021);
    assert_eq!(
        refused["data"]["requiredCapabilities"]["extensions"][TASKS_EXTENSION],
        json!({})
    );
    for method in ["tasks/get", "tasks/cancel"] {
        let error = client
            .error(json!(3), method, Some(modern(json!({"taskId": "abc"}))))
            .await;
        assert_eq!(error["code"], -32021, "{method}");
    }
    for removed in ["tasks/result", "tasks/list"] {
        let error = client
            .error(
                json!(4),
                removed,
                Some(with_tasks(json!({"taskId": "abc"}))),
            )
            .await;
        assert_eq!(error["code"], -32601, "{removed}");
    }
}

#[tokio::test]
async fn an_unknown_task_is_invalid_params_quoting_nothing() {
    let mut client = TestClient::start(server(Duration::from_secs(60)));
    for method in ["tasks/get", "tasks/cancel"] {
        let error = client
            .error(
                json!(1),
                method,
                Some(with_tasks(json!({"taskId": "secret-looking-id"}))),
            )
            .await;
        assert_eq!(error["code"], -32602, "{method}");
        assert!(!error.to_string().contains("secret-looking-id"), "{error}");
    }
    let error = client
        .error(
            json!(2),
            "tasks/update",
            Some(with_tasks(json!({"taskId": "nope", "inputResponses": {}}))),
        )
        .await;
    assert_eq!(error["code"], -32602);
}

#[tokio::test]
async fn a_cancelled_task_stays_cancelled_and_cancel_is_idempotent() {
    let mut client = TestClient::start(server(Duration::from_secs(60)));
    let created = client
        .result(
            json!(1),
            "tools/call",
            Some(with_tasks(call("later", "60"))),
        )
        .await;
    let id = created["taskId"].clone();
    for round in 0..2 {
        let ack = client
            .result(
                json!(2),
                "tasks/cancel",
                Some(with_tasks(json!({"taskId": id}))),
            )
            .await;
        assert_eq!(ack, json!({"resultType": "complete"}), "round {round}");
    }
    let task = settled(&mut client, &id).await;
    assert_eq!(task["status"], "cancelled");
    assert!(task.get("result").is_none() && task.get("error").is_none());
}

#[tokio::test]
async fn a_question_parks_the_task_until_tasks_update_answers_it() {
    let mut client = TestClient::start(server(Duration::from_secs(60)));
    let created = client
        .result(
            json!(1),
            "tools/call",
            Some(with_tasks(call("confirm", "sure?"))),
        )
        .await;
    let id = created["taskId"].clone();
    let mut parked = Value::Null;
    for _ in 0..200 {
        parked = client
            .result(
                json!(2),
                "tasks/get",
                Some(with_tasks(json!({"taskId": id}))),
            )
            .await;
        if parked["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(parked["status"], "input_required", "{parked}");
    assert_eq!(
        parked["inputRequests"]["ok"]["method"],
        "elicitation/create"
    );
    let ack = client
        .result(
            json!(3),
            "tasks/update",
            Some(with_tasks(json!({
                "taskId": id,
                "inputResponses": {"ok": {"action": "accept", "content": {}}, "other": {}}
            }))),
        )
        .await;
    assert_eq!(ack, json!({"resultType": "complete"}));
    let done = settled(&mut client, &id).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "answered \"accept\"");
}

#[tokio::test]
async fn a_task_is_unknown_once_its_ttl_has_passed() {
    let mut client = TestClient::start(server(Duration::from_millis(300)));
    let created = client
        .result(
            json!(1),
            "tools/call",
            Some(with_tasks(call("later", "hi"))),
        )
        .await;
    let id = created["taskId"].clone();
    assert_eq!(created["ttlMs"], 300);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let error = client
        .error(
            json!(2),
            "tasks/get",
            Some(with_tasks(json!({"taskId": id}))),
        )
        .await;
    assert_eq!(error["code"], -32602);
}
