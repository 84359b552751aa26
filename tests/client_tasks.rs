//! The client side of the Tasks extension against our server, in process (2026-07-28):
//! `call_tool_as_task` polls to the result at the server's interval, reports each status,
//! answers a task's question through the handler, cancels on request, past its deadline and
//! when dropped; and the bad input of the task methods — an unknown id, a task polled after
//! its cancellation, an update of a finished task — each a clear JSON-RPC error quoting
//! nothing.

mod tasks_support;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use typed_mcp::client::{
    Client, ClientError, ClientHandler, ClientOptions, HandlerFuture, TaskUpdate, TaskWait,
    VersionChoice,
};
use typed_mcp::generated::tasks::TaskStatus;
use typed_mcp::mcp::tasks::{TaskOptions, TaskSupport, TASKS_EXTENSION};
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

/// Tools: `slow` and `ask` (tasks, see `tasks_support`), `greet_later` (its task starts after
/// an input round), `now` (no task).
fn server(started: Arc<AtomicU32>, stopped: Arc<AtomicU32>) -> McpServer {
    let slow = tasks_support::slow(started, stopped);
    let ask = tasks_support::ask();
    // Asks a name in plain input_required rounds, then runs as a task (where it asks again).
    let greet_later =
        ToolDefinition::new("greet_later", |ctx: ToolContext, _args: Value| async move {
            GREET_LATER_RUNS.fetch_add(1, Ordering::SeqCst);
            let params = json!({"message": "name?", "requestedSchema": {"type": "object"}});
            let failed =
                |e: typed_mcp::tools::ClientRequestError| ToolCallError::failed(e.to_string());
            let name = ctx
                .ask(Some("name"), "elicitation/create", params.clone())
                .await
                .map_err(failed)?;
            let as_task = ctx.run_as_task().await.map_err(failed)?;
            let go = ctx
                .ask(Some("go"), "elicitation/create", params)
                .await
                .map_err(failed)?;
            Ok(json!({"name": name["content"]["name"], "task": as_task, "go": go["action"]}))
        })
        .unwrap()
        .task_support(TaskSupport::Optional)
        .task_after_input();
    let now = ToolDefinition::new("now", |_ctx: ToolContext, _args: Value| async move {
        Ok(json!("now"))
    })
    .unwrap();
    McpServer::builder("tasks", "1")
        .tasks(TaskOptions::new().poll_interval(Duration::from_millis(40)))
        .tool(slow)
        .tool(ask)
        .tool(greet_later)
        .tool(now)
        .build()
        .unwrap()
}

/// How many times `greet_later`'s handler started (one test calls it).
static GREET_LATER_RUNS: AtomicU32 = AtomicU32::new(0);

/// Accepts every elicitation, with the name Alice.
struct Accept;

impl ClientHandler for Accept {
    fn elicit(&self, _params: Value) -> HandlerFuture {
        Box::pin(async { Ok(json!({"action": "accept", "content": {"name": "Alice"}})) })
    }
}

fn tasks_options() -> ClientOptions {
    ClientOptions::new("tasks-client", "1")
        .version(VersionChoice::parse("2026-07-28").unwrap())
        .capabilities(json!({"elicitation": {}}))
        .extension(TASKS_EXTENSION, Map::new())
        .handler(Accept)
}

struct Fixture {
    client: Client,
    started: Arc<AtomicU32>,
    stopped: Arc<AtomicU32>,
}

async fn connect(options: ClientOptions) -> Fixture {
    let started = Arc::new(AtomicU32::new(0));
    let stopped = Arc::new(AtomicU32::new(0));
    let server = server(Arc::clone(&started), Arc::clone(&stopped));
    let (client_io, server_io) = tokio::io::duplex(256 * 1024);
    let (server_in, server_out) = tokio::io::split(server_io);
    drop(tokio::spawn(async move {
        server.serve(server_in, server_out).await
    }));
    let (client_in, client_out) = tokio::io::split(client_io);
    let client = Client::connect_io(client_in, client_out, options)
        .await
        .expect("the client connects");
    Fixture {
        client,
        started,
        stopped,
    }
}

/// Waits (bounded) until `counter` reaches `value`.
async fn reaches(counter: &AtomicU32, value: u32) -> bool {
    for _ in 0..200 {
        if counter.load(Ordering::SeqCst) >= value {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// A wait that records every status update it reports, and the record.
fn recording() -> (TaskWait, Arc<Mutex<Vec<TaskUpdate>>>) {
    let updates: Arc<Mutex<Vec<TaskUpdate>>> = Arc::default();
    let seen = Arc::clone(&updates);
    let wait = TaskWait::new().on_update(move |update| seen.lock().unwrap().push(update.clone()));
    (wait, updates)
}

#[tokio::test]
async fn a_task_is_polled_at_the_servers_interval_to_its_result() {
    let fixture = connect(tasks_options()).await;
    let (wait, updates) = recording();
    let reply = fixture
        .client
        .call_tool_as_task("slow", json!({"ms": 150}), wait)
        .await
        .expect("the task completes");
    assert!(!reply.is_error());
    assert_eq!(
        reply.structured_content().unwrap()["data"],
        json!({"slept": 150})
    );
    let updates = updates.lock().unwrap();
    let first = updates.first().unwrap();
    assert_eq!(first.status, TaskStatus::Working);
    assert_eq!(first.polls, 0);
    assert_eq!(first.poll_interval, Duration::from_millis(40));
    let last = updates.last().unwrap();
    assert_eq!(last.status, TaskStatus::Completed);
    // 150 ms of work polled every 40 ms: a handful of polls, not a busy loop.
    assert!((2..=20).contains(&last.polls), "{} polls", last.polls);
    assert!(updates.iter().all(|u| u.task_id == first.task_id));
}

#[tokio::test]
async fn a_tool_that_is_not_task_capable_answers_at_once() {
    let fixture = connect(tasks_options()).await;
    let reply = fixture
        .client
        .call_tool_as_task("now", json!({}), TaskWait::new())
        .await
        .unwrap();
    assert_eq!(reply.structured_content().unwrap()["data"], "now");
}

#[tokio::test]
async fn a_tasks_question_is_answered_through_the_handler() {
    let fixture = connect(tasks_options()).await;
    let (wait, updates) = recording();
    let reply = fixture
        .client
        .call_tool_as_task("ask", json!({}), wait)
        .await
        .unwrap();
    assert_eq!(
        reply.structured_content().unwrap()["data"],
        json!({"answered": "accept"})
    );
    assert!(updates
        .lock()
        .unwrap()
        .iter()
        .any(|update| update.status == TaskStatus::InputRequired));
}

/// SEP-2663 with multi round-trip requests: the question asked before `run_as_task` is an
/// `input_required` round of the call itself (answered through the handler), then the call
/// is answered with a task whose handler has that answer and asks one more question as a
/// task (`input_required` task, `tasks/update`). A client without the extension gets the
/// same answers as a plain call.
#[tokio::test]
async fn a_task_starts_after_the_calls_input_rounds() {
    let fixture = connect(tasks_options()).await;
    let (wait, updates) = recording();
    let reply = fixture
        .client
        .call_tool_as_task("greet_later", json!({}), wait)
        .await
        .expect("the task completes");
    assert_eq!(
        reply.structured_content().unwrap()["data"],
        json!({"name": "Alice", "task": true, "go": "accept"})
    );
    let updates = updates.lock().unwrap().clone();
    // The call was answered with a task (the first update is its CreateTaskResult), and
    // the question asked in the task parked it.
    assert_eq!(updates.first().unwrap().status, TaskStatus::Working);
    assert!(updates
        .iter()
        .any(|u| u.status == TaskStatus::InputRequired));
    assert_eq!(updates.last().unwrap().status, TaskStatus::Completed);
    // Round 1 (input_required), round 2 (asks to run as a task), the task: a task started
    // at once would have run the handler once.
    assert_eq!(GREET_LATER_RUNS.load(Ordering::SeqCst), 3);

    let plain = connect(
        ClientOptions::new("plain", "1")
            .version(VersionChoice::parse("2026-07-28").unwrap())
            .capabilities(json!({"elicitation": {}}))
            .handler(Accept),
    )
    .await;
    let reply = plain
        .client
        .call_tool("greet_later", json!({}))
        .await
        .expect("a plain call");
    assert_eq!(
        reply.structured_content().unwrap()["data"],
        json!({"name": "Alice", "task": false, "go": "accept"})
    );
}

#[tokio::test]
async fn cancelling_the_wait_cancels_the_task_on_the_server() {
    let fixture = connect(tasks_options()).await;
    let token = CancellationToken::new();
    let canceller = token.clone();
    let (wait, updates) = recording();
    drop(tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        canceller.cancel();
    }));
    let error = fixture
        .client
        .call_tool_as_task("slow", json!({"ms": 0}), wait.cancel_on(token))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ClientError::TaskCancelled { tool } if tool == "slow"),
        "{error}"
    );
    assert!(
        reaches(&fixture.stopped, 1).await,
        "the handler was stopped"
    );
    // Polled again after the cancellation: still cancelled, with no result.
    let task_id = updates.lock().unwrap()[0].task_id.clone();
    let task = fixture.client.get_task(&task_id).await.unwrap();
    assert_eq!(task.status, TaskStatus::Cancelled);
    assert!(task.result.is_none() && task.error.is_none());
}

#[tokio::test]
async fn the_deadline_cancels_the_task_and_times_out() {
    let fixture = connect(tasks_options()).await;
    let error = fixture
        .client
        .call_tool_as_task(
            "slow",
            json!({"ms": 0}),
            TaskWait::new().max_total(Duration::from_millis(120)),
        )
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::Timeout { .. }), "{error}");
    assert!(
        reaches(&fixture.stopped, 1).await,
        "the handler was stopped"
    );
}

#[tokio::test]
async fn dropping_the_wait_cancels_the_task() {
    let fixture = connect(tasks_options()).await;
    let waiting = fixture
        .client
        .call_tool_as_task("slow", json!({"ms": 0}), TaskWait::new());
    let gave_up = tokio::time::timeout(Duration::from_millis(150), waiting).await;
    assert!(gave_up.is_err(), "the task never ends by itself");
    assert!(reaches(&fixture.started, 1).await);
    assert!(
        reaches(&fixture.stopped, 1).await,
        "the dropped wait cancelled the task"
    );
}

#[tokio::test]
async fn bad_task_ids_are_clear_errors_quoting_nothing() {
    let fixture = connect(tasks_options()).await;
    let secret = "0123456789abcdef-not-a-task-of-this-server";
    for error in [
        fixture.client.get_task(secret).await.unwrap_err(),
        fixture.client.cancel_task(secret).await.unwrap_err(),
    ] {
        let ClientError::Rpc {
            code,
            message,
            data,
            ..
        } = &error
        else {
            panic!("a JSON-RPC error: {error}");
        };
        assert_eq!(code.0, -32602, "{error}");
        assert_eq!(message, "unknown task");
        let shown = format!("{error} {data:?}");
        assert!(
            !shown.contains(secret),
            "the id is not quoted back: {shown}"
        );
    }
}

#[tokio::test]
async fn without_the_extension_nothing_is_sent() {
    let options =
        ClientOptions::new("plain", "1").version(VersionChoice::parse("2026-07-28").unwrap());
    let fixture = connect(options).await;
    let error = fixture
        .client
        .call_tool_as_task("slow", json!({"ms": 10}), TaskWait::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, ClientError::ExtensionNotDeclared { id } if id == TASKS_EXTENSION),
        "{error}"
    );
    assert_eq!(
        fixture.started.load(Ordering::SeqCst),
        0,
        "no call was made"
    );
}

#[tokio::test]
async fn a_2025_connection_has_no_tasks() {
    let options = ClientOptions::new("legacy", "1")
        .version(VersionChoice::parse("2025-11-25").unwrap())
        .extension(TASKS_EXTENSION, Map::new());
    let fixture = connect(options).await;
    let error = fixture.client.get_task("x").await.unwrap_err();
    assert!(
        matches!(
            error,
            ClientError::NotInEra {
                method: "tasks/get",
                ..
            }
        ),
        "{error}"
    );
}

/// Bearer tokens `alice` and `bob`, each its own subject.
struct TwoUsers;

impl typed_mcp::http::auth::TokenValidator for TwoUsers {
    fn validate<'a>(
        &'a self,
        token: &'a str,
    ) -> typed_mcp::http::auth::BoxFuture<
        'a,
        Result<typed_mcp::server::AuthInfo, typed_mcp::http::auth::TokenError>,
    > {
        Box::pin(async move {
            match token {
                "alice" | "bob" => {
                    let mut claims = Map::new();
                    claims.insert("sub".to_owned(), Value::from(token));
                    Ok(typed_mcp::server::AuthInfo::from_claims(claims))
                }
                _ => Err(typed_mcp::http::auth::TokenError::Invalid(
                    "unknown".to_owned(),
                )),
            }
        })
    }
}

#[tokio::test]
async fn another_identitys_task_is_unknown_quoting_nothing() {
    use typed_mcp::http::auth::ResourceServer;
    use typed_mcp::http::HttpOptions;

    let server = server(Arc::default(), Arc::default());
    let resource = ResourceServer::new("http://127.0.0.1/mcp", "https://issuer.invalid", TwoUsers);
    let running = server
        .serve_http_with(
            "127.0.0.1:0".parse().unwrap(),
            HttpOptions::default().auth(resource),
        )
        .await
        .unwrap();
    let url = running.url();
    let user = |token: &str| {
        typed_mcp::client::ClientOptions::bearer_token(tasks_options(), token).unwrap()
    };
    let alice = Client::connect_http(&url, user("alice")).await.unwrap();
    let bob = Client::connect_http(&url, user("bob")).await.unwrap();
    let (wait, updates) = recording();
    let reply = alice
        .call_tool_as_task("slow", json!({"ms": 20}), wait)
        .await
        .unwrap();
    assert!(!reply.is_error());
    let task_id = updates.lock().unwrap()[0].task_id.clone();
    assert_eq!(
        alice.get_task(&task_id).await.unwrap().status,
        TaskStatus::Completed
    );
    for error in [
        bob.get_task(&task_id).await.unwrap_err(),
        bob.cancel_task(&task_id).await.unwrap_err(),
    ] {
        let ClientError::Rpc {
            code,
            message,
            data,
            ..
        } = &error
        else {
            panic!("a JSON-RPC error: {error}");
        };
        assert_eq!(
            (code.0, message.as_str()),
            (-32602, "unknown task"),
            "{error}"
        );
        let shown = format!("{error} {data:?}");
        assert!(
            !shown.contains(&task_id),
            "the id is not quoted back: {shown}"
        );
    }
    alice.close().await;
    bob.close().await;
}
