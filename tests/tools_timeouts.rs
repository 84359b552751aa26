//! Timeouts and cancellation of tool calls: TIMEOUT-001 .. TIMEOUT-005.
//!
//! Async cases run on tokio's paused clock, so "within its limit" is checked exactly
//! (`durationMs` equals the timeout) without timing anything. The blocking-thread case needs
//! real time; it asserts the order of events and the outcome, never a duration.

mod tools_support;

use std::collections::BTreeMap;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use tools_support::{checked, error_of, limits, respond, DropSignal};
use typed_mcp::generated::limits::TimeoutLimits;
use typed_mcp::tools::{
    resolve_timeout, CallOptions, CallOutcome, ProgressUpdate, TimeoutSource, ToolArguments,
    ToolCallError, ToolContext, ToolEntry, ToolHandler, ToolRunner,
};

/// An async handler that never returns; it hands out its token and signals when dropped.
fn never_returning(
    tokens: Arc<Mutex<Vec<CancellationToken>>>,
    dropped: Arc<Mutex<Option<oneshot::Sender<()>>>>,
) -> ToolHandler {
    ToolHandler::from_async(move |context: ToolContext, _arguments| {
        tokens
            .lock()
            .unwrap()
            .push(context.cancellation_token().clone());
        let signal = DropSignal(dropped.lock().unwrap().take());
        async move {
            let _signal = signal;
            std::future::pending::<()>().await;
            Ok(Value::Null)
        }
    })
}

fn options() -> CallOptions {
    CallOptions::with_line_overhead(40)
}

async fn timeout_run(runner: &ToolRunner, tool: &str, entry: &ToolEntry) -> Value {
    let result = respond(
        runner
            .call(tool, entry, ToolArguments::Absent, options())
            .await,
    );
    let json = checked(&result);
    assert_eq!(error_of(&json)["code"], "TOOL_TIMEOUT");
    json
}

/// Marks the calling thread blocked, blocks it until the test sends on `release`, then
/// marks it free. The generous bound only turns a runner that waits for this thread into a
/// failure instead of a hang; nothing is timed.
fn block_until_released(blocked: &AtomicBool, release: &Mutex<mpsc::Receiver<()>>) {
    blocked.store(true, Ordering::SeqCst);
    let released = release
        .lock()
        .unwrap()
        .recv_timeout(Duration::from_secs(60));
    assert!(released.is_ok(), "the answer did not wait for this thread");
    blocked.store(false, Ordering::SeqCst);
}

fn duration_of(json: &Value) -> u64 {
    json["_meta"][typed_mcp::tools::META_KEY]["durationMs"]
        .as_u64()
        .expect("durationMs")
}

#[tokio::test(start_paused = true)]
async fn inv_timeout_001_never_returning_handler() {
    let runner = ToolRunner::new(&limits(json!({"timeouts": {"defaultTimeoutMs": 250}})));
    let tokens = Arc::new(Mutex::new(Vec::new()));
    let (drop_tx, drop_rx) = oneshot::channel();
    let dropped = Arc::new(Mutex::new(Some(drop_tx)));
    let entry = ToolEntry::new(never_returning(tokens.clone(), dropped));

    let json = timeout_run(&runner, "stuck", &entry).await;
    // Paused clock: the answer comes exactly at the deadline, not later.
    assert_eq!(duration_of(&json), 250);
    let token = tokens.lock().unwrap()[0].clone();
    assert!(token.is_cancelled(), "the handler's token fired");
    drop_rx.await.expect("the handler's future was dropped");
    assert_eq!(runner.stats().timed_out, 1);
}

#[tokio::test(start_paused = true)]
async fn inv_timeout_001_result_after_deadline_is_discarded() {
    let runner = ToolRunner::new(&limits(json!({"timeouts": {"defaultTimeoutMs": 100}})));
    let finished = Arc::new(AtomicBool::new(false));
    let flag = finished.clone();
    let entry = ToolEntry::new(ToolHandler::from_async(move |_context, _arguments| {
        let flag = flag.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(101)).await;
            flag.store(true, Ordering::SeqCst);
            Ok(json!("late"))
        }
    }));
    let json = timeout_run(&runner, "slow", &entry).await;
    assert_eq!(duration_of(&json), 100);
    // Let the handler's own timer pass: its future was dropped, so it never completes.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        !finished.load(Ordering::SeqCst),
        "the late handler never ran to completion"
    );

    // And a handler finishing before its deadline is answered normally.
    let quick = ToolEntry::new(ToolHandler::from_async(|_context, _arguments| async {
        tokio::time::sleep(Duration::from_millis(99)).await;
        Ok(json!("on time"))
    }));
    let result = respond(
        runner
            .call("quick", &quick, ToolArguments::Absent, options())
            .await,
    );
    let json = checked(&result);
    assert_eq!(json["structuredContent"]["data"], "on time");
    assert_eq!(duration_of(&json), 99);
}

/// A blocking handler that blocks its thread until released; the timeout answer must not
/// wait for it. Real clock: only the order of events is asserted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inv_timeout_001_blocking_handler_answered_at_deadline() {
    let runner = ToolRunner::new(&limits(json!({"timeouts": {"defaultTimeoutMs": 50}})));
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Arc::new(Mutex::new(release_rx));
    let still_blocked = Arc::new(AtomicBool::new(false));
    let saw_cancel = Arc::new(AtomicBool::new(false));
    let late_progress_forwarded = Arc::new(AtomicBool::new(true));
    let (blocked, cancel_seen, late_progress) = (
        still_blocked.clone(),
        saw_cancel.clone(),
        late_progress_forwarded.clone(),
    );
    let entry = ToolEntry::new(ToolHandler::blocking(move |context, _arguments| {
        // Blocks this thread until the test releases it, whatever the token says.
        block_until_released(&blocked, &release_rx);
        cancel_seen.store(context.is_cancelled(), Ordering::SeqCst);
        late_progress.store(context.progress().report(1.0, None, None), Ordering::SeqCst);
        Ok(json!("too late"))
    }));
    let forwarded = Arc::new(Mutex::new(Vec::<ProgressUpdate>::new()));
    let sink_log = forwarded.clone();
    let options = options().progress_sink(Arc::new(move |update| {
        sink_log.lock().unwrap().push(update)
    }));

    let result = respond(
        runner
            .call("blocker", &entry, ToolArguments::Absent, options)
            .await,
    );
    // The answer is out while the handler's thread is provably still blocked: it cannot
    // leave `recv` before the release below.
    assert!(
        still_blocked.load(Ordering::SeqCst),
        "handler thread still busy"
    );
    let json = checked(&result);
    assert_eq!(error_of(&json)["code"], "TOOL_TIMEOUT");
    assert_eq!(runner.stats().late_results_discarded, 0);

    release_tx.send(()).expect("handler waiting");
    while runner.stats().late_results_discarded == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(
        saw_cancel.load(Ordering::SeqCst),
        "the handler's token had fired"
    );
    assert!(
        !late_progress_forwarded.load(Ordering::SeqCst),
        "late progress is refused"
    );
    assert!(
        forwarded.lock().unwrap().is_empty(),
        "nothing reached the sink after the answer"
    );
    assert_eq!(runner.stats().progress_after_close, 1);
    assert_eq!(
        runner.stats().succeeded,
        0,
        "the late result was never rendered"
    );
}

/// An `async` handler that blocks its thread (a mistake, but one users make: a synchronous
/// lock or sleep inside `async`) is answered at the deadline too, not when it lets go: it
/// runs on a task of its own, never on the request's. Real clock: only the order of events
/// is asserted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inv_timeout_001_async_handler_blocking_its_thread_answered_at_deadline() {
    let runner = ToolRunner::new(&limits(json!({"timeouts": {"defaultTimeoutMs": 50}})));
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Arc::new(Mutex::new(release_rx));
    let still_blocked = Arc::new(AtomicBool::new(false));
    let blocked = still_blocked.clone();
    let entry = ToolEntry::new(ToolHandler::from_async(move |_context, _arguments| {
        let (blocked, release_rx) = (blocked.clone(), release_rx.clone());
        Box::pin(async move {
            // Blocks the thread polling this future until the test releases it.
            block_until_released(&blocked, &release_rx);
            Ok(json!("too late"))
        })
    }));
    let result = respond(
        runner
            .call("async-blocker", &entry, ToolArguments::Absent, options())
            .await,
    );
    assert!(
        still_blocked.load(Ordering::SeqCst),
        "answered while the handler's thread is still blocked"
    );
    assert_eq!(error_of(&checked(&result))["code"], "TOOL_TIMEOUT");
    // Its task was aborted with the answer; letting it go ends it at its next await.
    release_tx.send(()).expect("handler waiting");
}

#[tokio::test(start_paused = true)]
async fn inv_timeout_002_category_default() {
    let runner = ToolRunner::new(&limits(json!({"timeouts": {
        "defaultTimeoutMs": 10000,
        "toolTimeouts": {"search": 120, "build": 700},
        "toolCategories": {"web_search": "search", "code_search": "search", "other": "unknown"}
    }})));
    let tokens = Arc::new(Mutex::new(Vec::new()));
    let handler = || never_returning(tokens.clone(), Arc::new(Mutex::new(None)));
    for tool in ["web_search", "code_search"] {
        let json = timeout_run(&runner, tool, &ToolEntry::new(handler())).await;
        assert_eq!(
            duration_of(&json),
            120,
            "{tool} uses its category's timeout"
        );
    }
    // A category declared by the registry entry applies when the config names none.
    let declared = ToolEntry::new(handler()).with_category("build");
    assert_eq!(
        duration_of(&timeout_run(&runner, "compile", &declared).await),
        700
    );
    // A configured category wins over the declared one.
    let declared = ToolEntry::new(handler()).with_category("build");
    assert_eq!(
        duration_of(&timeout_run(&runner, "web_search", &declared).await),
        120
    );
    // A category missing from toolTimeouts falls back to the default.
    assert_eq!(
        duration_of(&timeout_run(&runner, "other", &ToolEntry::new(handler())).await),
        10000
    );
}

fn timeout_config() -> impl Strategy<Value = (TimeoutLimits, String, Option<String>)> {
    let name = prop::sample::select(vec!["a", "b", "c", "d"]).prop_map(str::to_owned);
    let category = prop::sample::select(vec!["x", "y", "z"]).prop_map(str::to_owned);
    let ms = 1u64..100_000;
    (
        ms.clone(),
        prop::option::of(prop::collection::btree_map(
            category.clone(),
            ms.clone(),
            0..3,
        )),
        prop::option::of(prop::collection::btree_map(
            name.clone(),
            category.clone(),
            0..4,
        )),
        prop::option::of(prop::collection::btree_map(name.clone(), ms, 0..3)),
        name,
        prop::option::of(category),
    )
        .prop_map(
            |(default, timeouts, categories, overrides, tool, declared)| {
                // Each map may be absent (None) as well as empty or filled.
                let nz = |m: Option<BTreeMap<String, u64>>| {
                    m.map(|m| {
                        m.into_iter()
                            .map(|(k, v)| (k, NonZeroU64::new(v).unwrap()))
                            .collect::<BTreeMap<_, _>>()
                    })
                };
                let limits = TimeoutLimits {
                    default_timeout_ms: NonZeroU64::new(default).unwrap(),
                    tool_timeouts: nz(timeouts),
                    tool_categories: categories,
                    tool_overrides: nz(overrides),
                };
                (limits, tool, declared)
            },
        )
}

proptest! {
    /// TIMEOUT-003: toolOverrides[tool] > toolTimeouts[category] > defaultTimeoutMs, the
    /// category being toolCategories[tool], else the entry's declared one.
    #[test]
    fn inv_timeout_003_precedence((config, tool, declared) in timeout_config()) {
        let resolved = resolve_timeout(&config, &tool, declared.as_deref());
        let ms = u64::try_from(resolved.duration.as_millis()).unwrap();
        let over = config.tool_overrides.as_ref().and_then(|o| o.get(&tool));
        let category = config
            .tool_categories
            .as_ref()
            .and_then(|c| c.get(&tool).cloned())
            .or(declared.clone());
        let by_category = category
            .as_ref()
            .and_then(|c| config.tool_timeouts.as_ref().and_then(|t| t.get(c)));
        if let Some(over) = over {
            prop_assert_eq!(ms, over.get());
            prop_assert_eq!(resolved.source, TimeoutSource::Override);
        } else if let Some(cat) = by_category {
            prop_assert_eq!(ms, cat.get());
            prop_assert_eq!(resolved.source, TimeoutSource::Category);
        } else {
            prop_assert_eq!(ms, config.default_timeout_ms.get());
            prop_assert_eq!(resolved.source, TimeoutSource::Default);
        }
    }
}

#[tokio::test(start_paused = true)]
async fn inv_timeout_003_override_beats_category_end_to_end() {
    let runner = ToolRunner::new(&limits(json!({"timeouts": {
        "defaultTimeoutMs": 5000,
        "toolTimeouts": {"search": 300},
        "toolCategories": {"web_search": "search"},
        "toolOverrides": {"web_search": 40}
    }})));
    let entry = ToolEntry::new(never_returning(Arc::default(), Arc::default()));
    assert_eq!(
        duration_of(&timeout_run(&runner, "web_search", &entry).await),
        40
    );
    assert_eq!(
        duration_of(&timeout_run(&runner, "plain", &entry).await),
        5000
    );
}

#[tokio::test(start_paused = true)]
async fn inv_timeout_004_timeout_yields_tool_timeout() {
    let runner = ToolRunner::new(&limits(json!({"timeouts": {"defaultTimeoutMs": 30}})));
    let entry = ToolEntry::new(never_returning(Arc::default(), Arc::default()));
    let json = timeout_run(&runner, "t", &entry).await;
    let error = error_of(&json);
    assert_eq!(error["retryable"], true);
    assert_eq!(error["details"]["timeoutMs"], 30);
    assert!(json["isError"].as_bool().unwrap());
}

#[tokio::test(start_paused = true)]
async fn inv_timeout_005_every_result_has_duration() {
    let runner = ToolRunner::new(&limits(json!({
        "timeouts": {"defaultTimeoutMs": 80},
        "request": {"maxArraySize": 2}
    })));
    let sleeping = |ms: u64, result: Result<Value, ToolCallError>| {
        ToolEntry::new(ToolHandler::from_async(move |_context, _arguments| {
            let result = result.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                result
            }
        }))
    };
    let cases: Vec<(ToolEntry, &[u8], u64)> = vec![
        (sleeping(37, Ok(json!({"ok": 1}))), b"{}", 37),
        (sleeping(12, Err(ToolCallError::failed("no"))), b"{}", 12),
        (sleeping(500, Ok(json!(1))), b"{}", 80),
        (sleeping(0, Ok(json!(1))), br#"{"a":[1,2,3]}"#, 0),
        (
            ToolEntry::new(ToolHandler::from_async(|_c, _a| async { panic!("boom") })),
            b"{}",
            0,
        ),
    ];
    for (entry, arguments, expected) in cases {
        let outcome = runner
            .call("t", &entry, ToolArguments::Raw(arguments), options())
            .await;
        let result = respond(outcome);
        let json = checked(&result);
        assert_eq!(duration_of(&json), expected, "{json}");
        assert_eq!(result.meta.duration_ms, expected);
    }
    assert_eq!(runner.stats().panicked, 1);
}

#[tokio::test(start_paused = true)]
async fn inv_timeout_cancel_fires_token_drops_future_sends_nothing() {
    let runner = ToolRunner::new(&limits(json!({})));
    let tokens = Arc::new(Mutex::new(Vec::new()));
    let (drop_tx, drop_rx) = oneshot::channel();
    let entry = ToolEntry::new(never_returning(
        tokens.clone(),
        Arc::new(Mutex::new(Some(drop_tx))),
    ));
    let client_cancel = CancellationToken::new();
    let options = options().cancel_token(client_cancel.clone());
    let call = runner.call("t", &entry, ToolArguments::Absent, options);
    let cancel_later = async {
        tokio::time::sleep(Duration::from_millis(10)).await;
        client_cancel.cancel();
    };
    let (outcome, ()) = tokio::join!(call, cancel_later);
    assert!(
        matches!(outcome, CallOutcome::Cancelled),
        "cancelled: send nothing"
    );
    assert!(tokens.lock().unwrap()[0].is_cancelled());
    drop_rx.await.expect("future dropped");
    assert_eq!(runner.stats().cancelled, 1);
    assert_eq!(runner.stats().succeeded + runner.stats().failed, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inv_timeout_cancel_blocking_handler_sends_nothing() {
    let runner = ToolRunner::new(&limits(json!({})));
    let entered = Arc::new(tokio::sync::Notify::new());
    let observed = Arc::new(AtomicUsize::new(0));
    let (notify, seen) = (entered.clone(), observed.clone());
    let entry = ToolEntry::new(ToolHandler::blocking(move |context, _arguments| {
        notify.notify_one();
        while !context.is_cancelled() {
            std::thread::sleep(Duration::from_millis(1));
        }
        seen.fetch_add(1, Ordering::SeqCst);
        Err(ToolCallError::Cancelled)
    }));
    let client_cancel = CancellationToken::new();
    let options = options().cancel_token(client_cancel.clone());
    let call = runner.call("t", &entry, ToolArguments::Absent, options);
    let cancel = async {
        entered.notified().await;
        client_cancel.cancel();
    };
    let (outcome, ()) = tokio::join!(call, cancel);
    assert!(matches!(outcome, CallOutcome::Cancelled));
    while runner.stats().late_results_discarded == 0 {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert_eq!(
        observed.load(Ordering::SeqCst),
        1,
        "the handler saw its token fire"
    );
}

#[tokio::test(start_paused = true)]
async fn progress_is_forwarded_while_running() {
    let runner = ToolRunner::new(&limits(json!({})));
    let forwarded = Arc::new(Mutex::new(Vec::<ProgressUpdate>::new()));
    let log = forwarded.clone();
    let entry = ToolEntry::new(ToolHandler::from_async(|context, _arguments| async move {
        assert!(context
            .progress()
            .report(0.5, Some(1.0), Some("half".to_owned())));
        Ok(json!(null))
    }));
    let options = options().progress_sink(Arc::new(move |update| log.lock().unwrap().push(update)));
    let result = respond(
        runner
            .call("p", &entry, ToolArguments::Absent, options)
            .await,
    );
    checked(&result);
    let updates = forwarded.lock().unwrap();
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0].message.as_deref(), Some("half"));
}

#[tokio::test]
async fn handler_panics_become_internal_errors() {
    let runner = ToolRunner::new(&limits(json!({})));
    let early = ToolEntry::new(ToolHandler::from_async(|_context, _arguments| {
        panic!("before the future");
        #[allow(unreachable_code)]
        async {
            Ok(Value::Null)
        }
    }));
    let blocking = ToolEntry::new(ToolHandler::blocking(|_context, _arguments| {
        panic!("in thread")
    }));
    for entry in [early, blocking] {
        let result = respond(
            runner
                .call("p", &entry, ToolArguments::Absent, options())
                .await,
        );
        assert_eq!(error_of(&checked(&result))["code"], "INTERNAL");
    }
    assert_eq!(runner.stats().panicked, 2);
}
