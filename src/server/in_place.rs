//! Requests started on the reading task ([`Handler::runs_in_place`]): their first poll
//! there, and the task of those still pending after it.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use tokio::sync::OwnedSemaphorePermit;

use crate::framing::{Outbound, Reservation};
use crate::jsonrpc::Response;

use super::handler::Handler;
use super::task::{run_request, send, PendingRequest, Shared};

/// A request started on the reading task ([`Handler::runs_in_place`]): its work up to its
/// answer, which the loop queues itself (so that a full output holds the loop back, as it
/// does a task), boxed so that it can move to a task if its first poll leaves it pending.
pub(crate) type InPlace = Pin<Box<dyn Future<Output = Option<Response<'static>>> + Send>>;

/// The work of a request started on the reading task: [`run_request`], owning what it needs.
#[allow(clippy::manual_async_fn)] // an `async fn` would keep its arguments twice
pub(crate) fn in_place<H: Handler>(
    shared: Arc<Shared<H>>,
    request: PendingRequest,
) -> impl std::future::Future<Output = Option<Response<'static>>> + Send {
    async move { run_request(&shared, request).await }
}

/// The task of a request started on the reading task and still pending after its first
/// poll: the rest of it, then its answer queued, as [`single_task`] does.
#[allow(clippy::manual_async_fn)] // an `async fn` would keep its arguments twice
pub(crate) fn in_place_task<H: Handler>(
    shared: Arc<Shared<H>>,
    work: InPlace,
    permit: Option<OwnedSemaphorePermit>,
    reservation: Option<Reservation>,
) -> impl std::future::Future<Output = ()> {
    async move {
        let response = work.await;
        send(&shared, response.map(Outbound::from)).await;
        drop(permit);
        drop(reservation);
    }
}

/// How the first poll of a request started on the reading task went.
pub(super) enum FirstPoll<T> {
    /// It is over, with this output.
    Ready(T),
    /// It waits: it moves to a task of its own.
    Pending,
    /// It panicked outside its handler (whose own panics it answers itself).
    Panicked,
}

/// Polls a request's work once, here on the reading task ([`Handler::runs_in_place`]).
///
/// The poll gets a waker that does nothing: work still pending is spawned next, and the
/// task's first poll, which comes at once, registers the task's own waker wherever this one
/// registered (a future checks its resources again at every poll).
pub(super) fn first_poll_in_place<T>(
    work: Pin<&mut (dyn Future<Output = T> + Send)>,
) -> FirstPoll<T> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    // Outside the reading task's cooperative budget: spent by the frames read before, it
    // would make the request's first wait yield at once, and every request of a burst move
    // to a task after all. The loop still yields on its own reads.
    let mut work = tokio::task::unconstrained(work);
    match catch_unwind(AssertUnwindSafe(|| Pin::new(&mut work).poll(&mut cx))) {
        Ok(Poll::Ready(output)) => FirstPoll::Ready(output),
        Ok(Poll::Pending) => FirstPoll::Pending,
        Err(_panic) => FirstPoll::Panicked,
    }
}
