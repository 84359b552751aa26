//! Running a handler until it finishes, times out or is cancelled: async handlers as
//! aborted-on-drop tasks (those declared never to block polled once in place first),
//! blocking handlers on the blocking pool with a claim on their result.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::task::Poll;

use serde_json::Value;
use tokio::task::JoinHandle;
use tokio::time::{sleep_until, Instant};
use tokio_util::sync::CancellationToken;

use super::handler::{ToolContext, ToolFuture, ToolResult};
use super::policy::ResolvedTimeout;
use super::stats::Counters;

/// How the handler stage ended.
pub(super) enum Ended {
    Finished(ToolResult),
    TimedOut(ResolvedTimeout),
    Cancelled,
    Panicked,
}

/// Aborts the task and fires the handler's token when dropped, so a call abandoned by the
/// server (its future dropped) does not leave its handler running.
struct AbortOnDrop<T> {
    task: JoinHandle<T>,
    token: CancellationToken,
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        if !self.task.is_finished() {
            self.token.cancel();
            self.task.abort();
        }
    }
}

/// Runs an async handler's future to its end, in its own aborted-on-drop task watched for
/// the client's cancel and the deadline.
///
/// With `in_place` (its tool declared never to block: [`ToolEntry::in_place`]), the first
/// poll happens here, on the caller's own task, and a handler that finishes in it needs no
/// task of its own. A panic in that poll is caught and reported as one in the task would be;
/// a first poll that returns after the deadline (a handler that broke its promise and
/// blocked) is answered as timed out, its result discarded and its token fired; a handler
/// still pending moves to its task.
///
/// An `async` block, not an `async fn`, whose future would keep its arguments twice.
///
/// [`ToolEntry::in_place`]: super::ToolEntry::in_place
#[allow(clippy::manual_async_fn)] // an `async fn` would keep its arguments twice
pub(super) fn run_async(
    mut future: ToolFuture,
    deadline: Instant,
    timeout: ResolvedTimeout,
    (client_cancel, watch): (&CancellationToken, CancelWatch),
    token: CancellationToken,
    in_place: bool,
) -> impl std::future::Future<Output = Ended> + Send + '_ {
    async move {
        if in_place {
            if client_cancel.is_cancelled() {
                // What dropping an unfinished task's guard does.
                token.cancel();
                return Ended::Cancelled;
            }
            let first = std::future::poll_fn(|cx| {
                Poll::Ready(catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))))
            })
            .await;
            match first {
                Ok(Poll::Ready(_)) if Instant::now() > deadline => {
                    token.cancel();
                    return Ended::TimedOut(timeout);
                }
                Ok(Poll::Ready(result)) => return Ended::Finished(result),
                Err(_panic) => {
                    tracing::error!("async tool handler panicked");
                    return Ended::Panicked;
                }
                Ok(Poll::Pending) => {}
            }
        }
        let mut guard = AbortOnDrop {
            task: tokio::spawn(future),
            token,
        };
        tokio::select! {
            biased;
            () = cancelled(client_cancel, watch) => Ended::Cancelled,
            joined = &mut guard.task => match joined {
                Ok(result) => Ended::Finished(result),
                Err(error) => {
                    tracing::error!(%error, "async tool task ended abnormally");
                    Ended::Panicked
                }
            },
            () = sleep_until(deadline) => Ended::TimedOut(timeout),
        }
        // Dropping `guard` fires the token and aborts the task unless it finished.
    }
}

/// Who wakes a call's task when the client's cancel token fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CancelWatch {
    /// The runner: it registers a waiter on the token.
    Own,
    /// The caller, which polls the call under its own wait on the same token (the server's
    /// request task): the runner only checks the token at each poll.
    Caller,
}

/// Resolves once `token` has fired; under [`CancelWatch::Caller`] by a check at each poll,
/// without a waiter of its own (one lock, against a waiter added to and removed from the
/// token's list: about 600 instructions a call).
async fn cancelled(token: &CancellationToken, watch: CancelWatch) {
    match watch {
        CancelWatch::Own => token.cancelled().await,
        CancelWatch::Caller => {
            std::future::poll_fn(|_| {
                if token.is_cancelled() {
                    std::task::Poll::Ready(())
                } else {
                    std::task::Poll::Pending
                }
            })
            .await;
        }
    }
}

const RUNNING: u8 = 0;
const FINISHED: u8 = 1;
const ABANDONED: u8 = 2;

/// A blocking handler running on the blocking pool. Whoever moves `state` out of
/// `RUNNING` first decides the result's fate: the thread (`FINISHED`: the runner takes it)
/// or the runner (`ABANDONED`: the thread's result is discarded and counted).
pub(super) struct BlockingRun {
    state: Arc<AtomicU8>,
    guard: AbortOnDrop<Result<ToolResult, ()>>,
}

impl BlockingRun {
    pub(super) fn start<F>(
        job: F,
        context: ToolContext,
        arguments: Value,
        counters: Arc<Counters>,
        token: CancellationToken,
    ) -> Self
    where
        F: FnOnce(ToolContext, Value) -> ToolResult + Send + 'static,
    {
        let state = Arc::new(AtomicU8::new(RUNNING));
        let thread_state = Arc::clone(&state);
        let task = tokio::task::spawn_blocking(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| job(context, arguments)));
            let claimed = thread_state
                .compare_exchange(RUNNING, FINISHED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
            // A claimed outcome (panic included) is counted by the runner; a late one here.
            if !claimed {
                Counters::bump(&counters.late_results_discarded);
                if outcome.is_err() {
                    Counters::bump(&counters.panicked);
                    tracing::error!("a blocking tool panicked after its call ended");
                } else {
                    tracing::debug!(
                        "a blocking tool finished after its call ended; result discarded"
                    );
                }
            }
            outcome.map_err(|_| ())
        });
        Self {
            state,
            guard: AbortOnDrop { task, token },
        }
    }

    /// Claims the result for the runner's side; `false` when the thread finished first.
    fn abandon(&self) -> bool {
        let abandoned = self
            .state
            .compare_exchange(RUNNING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if abandoned {
            self.guard.token.cancel();
        }
        abandoned
    }

    pub(super) async fn wait(
        mut self,
        deadline: Instant,
        timeout: ResolvedTimeout,
        client_cancel: &CancellationToken,
    ) -> Ended {
        let early = tokio::select! {
            biased;
            () = client_cancel.cancelled() => Some(Ended::Cancelled),
            joined = &mut self.guard.task => return finished(joined),
            () = sleep_until(deadline) => Some(Ended::TimedOut(timeout)),
        };
        match early {
            // After the client's cancel nothing is sent, even if the thread just finished.
            Some(Ended::Cancelled) => {
                self.abandon();
                Ended::Cancelled
            }
            Some(ended) if self.abandon() => ended,
            // The thread finished just now; its result is ready.
            _ => finished((&mut self.guard.task).await),
        }
    }
}

impl Drop for BlockingRun {
    fn drop(&mut self) {
        // An abandoned wait (the server dropped the call) abandons the thread's result.
        self.abandon();
    }
}

fn finished(joined: Result<Result<ToolResult, ()>, tokio::task::JoinError>) -> Ended {
    match joined {
        Ok(Ok(result)) => Ended::Finished(result),
        Ok(Err(())) => Ended::Panicked,
        Err(error) => {
            tracing::error!(%error, "blocking tool task ended abnormally");
            Ended::Panicked
        }
    }
}
