//! Async tools declared never to block (`ToolEntry::in_place`): their first poll runs on the
//! caller's task. Everything else about a call stays as for any async tool (panics, the
//! deadline, the client's cancel, a handler still pending); the one documented difference is
//! pinned too: a first poll that blocks past the deadline is answered when it returns.
//!
//! Async cases run on tokio's paused clock; the blocking case needs real time and asserts the
//! order of events only.

mod tools_support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use tools_support::{checked, error_of, limits, respond, DropSignal};
use typed_mcp::tools::{
    CallOptions, CallOutcome, ToolArguments, ToolContext, ToolEntry, ToolHandler, ToolRunner,
};

fn options() -> CallOptions {
    CallOptions::with_line_overhead(40)
}

fn in_place<F, Fut>(handler: F) -> ToolEntry
where
    F: Fn(ToolContext, Value) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = typed_mcp::tools::ToolResult> + Send + 'static,
{
    let entry = ToolEntry::new(ToolHandler::from_async(handler)).in_place();
    assert!(entry.in_place);
    entry
}

/// An in-place handler that never finishes; it hands out its token and signals when its
/// future is dropped.
fn never_finishing(
    token: Arc<Mutex<Option<CancellationToken>>>,
    dropped: oneshot::Sender<()>,
) -> ToolEntry {
    let dropped = Arc::new(Mutex::new(Some(dropped)));
    in_place(move |context: ToolContext, _arguments| {
        *token.lock().unwrap() = Some(context.cancellation_token().clone());
        let signal = DropSignal(dropped.lock().unwrap().take());
        async move {
            let _signal = signal;
            std::future::pending::<()>().await;
            Ok(Value::Null)
        }
    })
}

#[tokio::test(start_paused = true)]
async fn a_handler_finishing_in_its_first_poll_is_answered() {
    let runner = ToolRunner::new(&limits(json!({})));
    let entry = in_place(|_context, arguments| async move { Ok(arguments) });
    let result = respond(
        runner
            .call(
                "e",
                &entry,
                ToolArguments::Value(json!({"text": "hi"})),
                options(),
            )
            .await,
    );
    assert_eq!(checked(&result)["structuredContent"]["data"]["text"], "hi");
    assert_eq!(runner.stats().succeeded, 1);
}

#[tokio::test(start_paused = true)]
async fn a_panic_in_the_first_poll_is_an_internal_error() {
    let runner = ToolRunner::new(&limits(json!({})));
    let entry = in_place(|_context, _arguments| async { panic!("in the first poll") });
    let result = respond(
        runner
            .call("p", &entry, ToolArguments::Absent, options())
            .await,
    );
    assert_eq!(error_of(&checked(&result))["code"], "INTERNAL");
    assert_eq!(runner.stats().panicked, 1);
}

/// Ready at once, but the call started 200 ms ago with a 100 ms timeout: the deadline passed
/// before it ended, so it timed out and its token fired, as when a task runs past it.
#[tokio::test(start_paused = true)]
async fn a_result_reached_after_the_deadline_is_a_timeout() {
    let runner = ToolRunner::new(&limits(json!({"timeouts": {"defaultTimeoutMs": 100}})));
    let token = Arc::new(Mutex::new(None::<CancellationToken>));
    let seen = token.clone();
    let entry = in_place(move |context: ToolContext, _arguments| {
        *seen.lock().unwrap() = Some(context.cancellation_token().clone());
        async { Ok(json!("done")) }
    });
    let late = options().started_at(tokio::time::Instant::now() - Duration::from_millis(200));
    let result = respond(runner.call("q", &entry, ToolArguments::Absent, late).await);
    assert_eq!(error_of(&checked(&result))["code"], "TOOL_TIMEOUT");
    assert!(token.lock().unwrap().as_ref().unwrap().is_cancelled());
    assert_eq!(runner.stats().timed_out, 1);
}

/// Pending in its first poll: the handler moves to a task of its own, finishes there, and the
/// wake it registered from the caller's task still reaches it.
#[tokio::test(start_paused = true)]
async fn a_handler_pending_in_its_first_poll_finishes_in_its_own_task() {
    let runner = ToolRunner::new(&limits(json!({})));
    let entry = in_place(|_context, _arguments| async {
        tokio::time::sleep(Duration::from_millis(10)).await;
        tokio::task::yield_now().await;
        Ok(json!("slept"))
    });
    let result = respond(
        runner
            .call("s", &entry, ToolArguments::Absent, options())
            .await,
    );
    assert_eq!(checked(&result)["structuredContent"]["data"], "slept");
}

/// A handler that never finishes is answered exactly at its deadline, its token fired and its
/// future dropped: TIMEOUT-001 as for any async tool.
#[tokio::test(start_paused = true)]
async fn a_handler_that_never_finishes_is_answered_at_its_deadline() {
    let runner = ToolRunner::new(&limits(json!({"timeouts": {"defaultTimeoutMs": 250}})));
    let token = Arc::new(Mutex::new(None));
    let (dropped, was_dropped) = oneshot::channel();
    let entry = never_finishing(token.clone(), dropped);
    let started = tokio::time::Instant::now();
    let result = respond(
        runner
            .call("stuck", &entry, ToolArguments::Absent, options())
            .await,
    );
    assert_eq!(error_of(&checked(&result))["code"], "TOOL_TIMEOUT");
    assert_eq!(started.elapsed(), Duration::from_millis(250));
    assert!(token.lock().unwrap().as_ref().unwrap().is_cancelled());
    was_dropped.await.expect("the handler's future was dropped");
}

/// The client's cancel: before the call, the handler is never polled (its token fires if it
/// was made);
/// while it waits, nothing is sent and its future is dropped.
#[tokio::test(start_paused = true)]
async fn a_cancelled_call_sends_nothing() {
    let runner = ToolRunner::new(&limits(json!({})));
    let polled = Arc::new(AtomicUsize::new(0));
    let count = polled.clone();
    let token = Arc::new(Mutex::new(None::<CancellationToken>));
    let seen = token.clone();
    let entry = in_place(move |context: ToolContext, _arguments| {
        *seen.lock().unwrap() = Some(context.cancellation_token().clone());
        let count = count.clone();
        async move {
            count.fetch_add(1, Ordering::SeqCst);
            Ok(Value::Null)
        }
    });
    let cancelled = CancellationToken::new();
    cancelled.cancel();
    let outcome = runner
        .call(
            "c",
            &entry,
            ToolArguments::Absent,
            options().cancel_token(cancelled),
        )
        .await;
    assert!(matches!(outcome, CallOutcome::Cancelled));
    assert_eq!(polled.load(Ordering::SeqCst), 0, "never polled");
    if let Some(token) = token.lock().unwrap().as_ref() {
        assert!(token.is_cancelled(), "a handler made is told at once");
    }

    let token = Arc::new(Mutex::new(None));
    let (dropped, was_dropped) = oneshot::channel();
    let entry = never_finishing(token.clone(), dropped);
    let client_cancel = CancellationToken::new();
    let call = runner.call(
        "w",
        &entry,
        ToolArguments::Absent,
        options().cancel_token(client_cancel.clone()),
    );
    let cancel_later = async {
        tokio::time::sleep(Duration::from_millis(10)).await;
        client_cancel.cancel();
    };
    let (outcome, ()) = tokio::join!(call, cancel_later);
    assert!(matches!(outcome, CallOutcome::Cancelled));
    assert!(token.lock().unwrap().as_ref().unwrap().is_cancelled());
    was_dropped.await.expect("the handler's future was dropped");
    assert_eq!(runner.stats().cancelled, 2);
}

/// What the declaration gives up, as documented: a handler that breaks it by blocking its
/// thread in its first poll past the deadline is answered `TOOL_TIMEOUT` once that poll
/// returns (a handler not declared in place is answered at the deadline:
/// `tools_timeouts::inv_timeout_001_async_handler_blocking_its_thread_answered_at_deadline`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_poll_blocking_past_the_deadline_is_answered_when_it_returns() {
    let runner = ToolRunner::new(&limits(json!({"timeouts": {"defaultTimeoutMs": 20}})));
    let returned = Arc::new(AtomicBool::new(false));
    let flag = returned.clone();
    let entry = in_place(move |_context, _arguments| {
        let flag = flag.clone();
        async move {
            std::thread::sleep(Duration::from_millis(80));
            flag.store(true, Ordering::SeqCst);
            Ok(json!("late"))
        }
    });
    let result = respond(
        runner
            .call("b", &entry, ToolArguments::Absent, options())
            .await,
    );
    assert!(
        returned.load(Ordering::SeqCst),
        "answered only once the blocking poll returned"
    );
    assert_eq!(error_of(&checked(&result))["code"], "TOOL_TIMEOUT");
    assert_eq!(runner.stats().timed_out, 1);
}
