//! Real-clock timeout overshoot of the tool runner (TIMEOUT-001): how long after its
//! deadline a timed-out call is answered, for an async handler that never returns and for a
//! synchronous handler that blocks its blocking-pool thread.
//!
//! Run with `cargo bench -p typed-mcp --bench timeout_overshoot`. Prints p50 / p99 / max
//! overshoot in milliseconds over `RUNS` calls of each kind (target: far below 100 ms).

use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use typed_mcp::generated::limits::Limits;
use typed_mcp::tools::{
    CallOptions, CallOutcome, ToolArguments, ToolEntry, ToolHandler, ToolRunner,
};

const RUNS: usize = 300;
const TIMEOUT_MS: u64 = 20;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let limits: Limits =
        serde_json::from_value(json!({"timeouts": {"defaultTimeoutMs": TIMEOUT_MS}}))
            .expect("limits");
    let runner = ToolRunner::new(&limits);

    let never = ToolEntry::new(ToolHandler::from_async(|_context, _arguments| async {
        std::future::pending::<()>().await;
        Ok(Value::Null)
    }));
    let async_overshoot = runtime.block_on(measure(&runner, &never, || {}));
    report("async handler that never returns", async_overshoot);

    // Each blocking handler blocks its thread until released, after its call was answered.
    let release: Arc<Mutex<Option<mpsc::Sender<()>>>> = Arc::default();
    let slot = release.clone();
    let blocking = ToolEntry::new(ToolHandler::blocking(move |_context, _arguments| {
        let (tx, rx) = mpsc::channel();
        *slot.lock().expect("release slot") = Some(tx);
        // An error means the sender was dropped: released either way.
        if rx.recv().is_err() {
            eprintln!("released by drop");
        }
        Ok(Value::Null)
    }));
    let blocking_overshoot = runtime.block_on(measure(&runner, &blocking, || {
        if let Some(tx) = release.lock().expect("release slot").take() {
            if tx.send(()).is_err() {
                eprintln!("blocking handler already gone");
            }
        }
    }));
    report(
        "blocking handler that blocks its thread",
        blocking_overshoot,
    );
    let stats = runner.stats();
    println!(
        "timed out: {}, late results discarded: {}",
        stats.timed_out, stats.late_results_discarded
    );
    // Do not wait for a blocking handler that missed its release.
    runtime.shutdown_timeout(Duration::from_secs(1));
}

async fn measure(runner: &ToolRunner, entry: &ToolEntry, after_each: impl Fn()) -> Vec<f64> {
    let timeout = Duration::from_millis(TIMEOUT_MS);
    let mut overshoot = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let options = CallOptions::with_line_overhead(40);
        let started = options.started;
        let outcome = runner
            .call("bench", entry, ToolArguments::Absent, options)
            .await;
        let elapsed = started.elapsed();
        match outcome {
            CallOutcome::Respond(result) if result.is_error => {}
            other => panic!("expected a timeout, got {other:?}"),
        }
        overshoot.push(elapsed.saturating_sub(timeout).as_secs_f64() * 1000.0);
        after_each();
    }
    overshoot
}

fn report(label: &str, mut samples: Vec<f64>) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label}: {} runs, timeout {TIMEOUT_MS} ms, overshoot p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        samples.len(),
        at(0.50),
        at(0.99),
        at(1.0)
    );
}
