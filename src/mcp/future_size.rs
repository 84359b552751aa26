//! The size of a request's future. Every request in flight holds one, in its task's
//! allocation (64 in flight by default), so its size is memory per request in flight; under
//! a pipelined flood these allocations are most of what the heap turns over (BENCHMARKS.md,
//! "Issue 12, stop 20"). The bounds are the sizes measured when they were set: a change that
//! grows the future (a large local held across an `.await`, a rare path inlined into the hot
//! one) fails here and should box the rare path or drop the local before the `.await`.

use super::dispatch::Connection;
use super::tool_call::ToolSet;
use crate::server::{request_task_size, Handler};
use crate::tools::ToolRunner;

fn returned2<A, B, R>(_: fn(A, B) -> R) -> usize {
    std::mem::size_of::<R>()
}

fn returned4<A, B, C, D, R>(_: fn(A, B, C, D) -> R) -> usize {
    std::mem::size_of::<R>()
}

/// The whole task of one request to the MCP server: measured 1,680 bytes with rustc 1.95
/// (1,624 before the index of a request's params members, an `Option<Box<ParamsIndex>>`,
/// travelled from the frame's check to the handler in the pending request and the
/// request's context, 56 bytes; 1,592 before the handler could end its resumable HTTP event stream early, an
/// `Option<CancellationToken>` in the request's context, the call's options and the tool's
/// context, 32 bytes; 1,568 before a task-augmented `tools/call` and the `tasks/*` methods awaited the task
/// store, which became asynchronous for Redis: their futures are boxed, the await points
/// still hold the box and what is live around it, 24 bytes; 1,552 before a 2026-07-28 `tools/call` read from its params' text kept a pointer to it,
/// 16 bytes; 1,536 before such a call kept the params' text, 16 bytes, to compute its
/// state's scope only when the handler asks a question; 3,784 before issue 12's stop 20; 1,360 before declared answer bounds added their
/// reservation and option, 48 bytes; 1,408 before the task caught its handler's panics
/// itself, 40 bytes, instead of the loop's `JoinSet`; 1,456 before the in-place flags of the
/// request and of the tool's run, 24 bytes; 1,480 before the caller's identity, an
/// `Option<Arc<AuthInfo>>` in the request's context, the call's options and the tool's
/// context, 56 bytes), plus 16 bytes of headroom for other compilers' layouts. Any path of
/// the earlier 3,784 put back inline exceeds it by far.
const REQUEST_TASK_BOUND: usize = 1696;

#[test]
fn the_request_task_stays_small() {
    let task = request_task_size::<Connection>();
    let handler = returned4(<Connection as Handler>::handle_request as fn(_, _, _, _) -> _);
    let call = returned2(ToolSet::call as fn(_, _) -> _);
    let execute = returned4(ToolRunner::execute as fn(_, _, _, _) -> _);
    eprintln!("request task {task} B: handler {handler}, tools/call {call}, runner {execute}");
    assert!(
        task <= REQUEST_TASK_BOUND,
        "the request task's future is {task} bytes, over its bound of {REQUEST_TASK_BOUND}"
    );
}
