//! The work of one request (or one batch) on its own task.

use std::collections::HashMap;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use serde_json::value::RawValue;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::framing::{Outbound, Reservation, WriterHandle};
use crate::jsonrpc::params_index::ParamsIndex;
use crate::jsonrpc::{ErrorCode, ErrorObject, Id, Response};

use super::handler::{Handler, HandlerResult, Peer, RequestContext};
use super::in_flight::{bump, Counters, InFlight, Ticket};

/// What every task shares with the loop.
pub(crate) struct Shared<H> {
    pub(crate) handler: H,
    pub(crate) in_flight: InFlight,
    pub(crate) counters: Counters,
    pub(crate) writer: WriterHandle,
    /// Fired when an answer could not be queued because the writer stopped: the loop stops.
    pub(crate) output_closed: CancellationToken,
    /// What the reading loop waits on to stop: a child of the caller's stop token, also fired
    /// by the signal listener and with `output_closed` ([`Shared::close_output`]), so the
    /// loop polls one wait per turn for all three.
    pub(crate) stop_reading: CancellationToken,
}

impl<H> Shared<H> {
    /// Records that the output is closed, which stops the loop.
    pub(crate) fn close_output(&self) {
        self.output_closed.cancel();
        self.stop_reading.cancel();
    }
}

/// A request read and registered, not started yet.
#[derive(Debug)]
pub(crate) struct PendingRequest {
    pub(crate) ticket: Ticket,
    pub(crate) method: Arc<str>,
    pub(crate) params: Option<Box<RawValue>>,
    /// The largest answer the handler declared for it ([`Handler::max_answer_bytes`]).
    pub(crate) answer_bound: Option<usize>,
    /// Whether it may start on the reading task ([`Handler::runs_in_place`]).
    pub(crate) in_place: bool,
    /// Where the members of `params` lie in their text, when the frame's check recorded
    /// them; handed to the handler in its context.
    pub(crate) params_index: Option<Box<ParamsIndex>>,
}

/// One member of a batch answer, in input order.
#[derive(Debug)]
pub(crate) enum Slot {
    /// Answered while reading (an invalid member or a duplicate id).
    Ready(Response<'static>),
    /// A request to run.
    Pending(PendingRequest),
    /// A member that gets no answer (a notification, or a request cancelled by the client).
    Silent,
}

impl Slot {
    /// The answers of a finished batch, in input order (requests still pending and silent
    /// members give none).
    pub(crate) fn answers(slots: Vec<Slot>) -> Vec<Response<'static>> {
        slots
            .into_iter()
            .filter_map(|slot| match slot {
                Slot::Ready(response) => Some(response),
                Slot::Pending(_) | Slot::Silent => None,
            })
            .collect()
    }
}

/// Work waiting for a free slot.
#[derive(Debug)]
pub(crate) enum Job {
    /// One request.
    Single(PendingRequest),
    /// A batch holding at least one request.
    Batch(Vec<Slot>),
}

impl Job {
    /// The requests of this job (a batch's members that are not answered yet).
    pub(crate) fn requests(&self) -> usize {
        match self {
            Self::Single(_) => 1,
            Self::Batch(slots) => slots
                .iter()
                .filter(|slot| matches!(slot, Slot::Pending(_)))
                .count(),
        }
    }

    /// Slots this job occupies: one per request, at most `max_in_flight`.
    pub(crate) fn permits_needed(&self, max_in_flight: usize) -> u32 {
        let requests = self.requests();
        u32::try_from(requests.clamp(1, max_in_flight)).unwrap_or(u32::MAX)
    }

    /// The bytes to reserve for this job's answers: the declared bound of a single request,
    /// or the sum of a batch's declared bounds (its members without one are admitted on
    /// the estimate, as a batch always was). `None` when no request of it declares one.
    pub(crate) fn answer_bound(&self) -> Option<usize> {
        match self {
            Self::Single(request) => request.answer_bound,
            Self::Batch(slots) => slots
                .iter()
                .filter_map(|slot| match slot {
                    Slot::Pending(request) => request.answer_bound,
                    Slot::Ready(_) | Slot::Silent => None,
                })
                .reduce(usize::saturating_add),
        }
    }
}

/// Runs a request's handler until it answers or its token fires (the client's cancel, or
/// the end of the shutdown grace period). `None`: the token fired first.
///
/// An `async` block, not an `async fn`, here and in [`single_task`]: an `async fn`'s future
/// keeps its arguments twice (as passed, and moved into its body).
#[allow(clippy::manual_async_fn)] // an `async fn` would keep its arguments twice
fn run_handler<'a, H: Handler>(
    shared: &'a Shared<H>,
    request: &'a PendingRequest,
    params_index: Option<Box<ParamsIndex>>,
) -> impl std::future::Future<Output = Option<HandlerResult>> + 'a {
    async move {
        let ticket = &request.ticket;
        if ticket.token.is_cancelled() {
            return None;
        }
        let peer = Peer::new(shared.writer.clone());
        let ctx = RequestContext::new(ticket.id.clone(), ticket.token.clone(), peer)
            .with_params_index(params_index);
        let method = &*request.method;
        tracing::trace!(id = %ticket.id, method, "request started");
        tokio::select! {
            biased;
            result = shared.handler.handle_request(ctx, method, request.params.as_deref()) => Some(result),
            () = ticket.token.cancelled() => None,
        }
    }
}

/// Runs a request and returns its response, or `None` if the client cancelled it. A panic of
/// the handler is caught here (on the request's own task, or on the reading task for a
/// request in place) and answered with `-32603`.
#[allow(clippy::manual_async_fn)] // an `async fn` would keep its arguments twice
pub(super) fn run_request<H: Handler>(
    shared: &Shared<H>,
    mut request: PendingRequest,
) -> impl std::future::Future<Output = Option<Response<'static>>> + '_ {
    async move {
        let outcome = {
            // Dropped at the end of this block: it borrows the request.
            let params_index = request.params_index.take();
            let running = std::pin::pin!(run_handler(shared, &request, params_index));
            match catching_panics(running).await {
                Ok(outcome) => outcome,
                Err(Panicked) => return panicked(shared, &request.ticket),
            }
        };
        let ticket = &request.ticket;
        if !shared.in_flight.finish(ticket) {
            tracing::debug!(id = %ticket.id, "request cancelled by the client: no response");
            bump(&shared.counters.cancelled_by_client);
            return None;
        }
        bump(&shared.counters.requests_answered);
        if let Some(params) = request.params {
            crate::long_strings::recycle_raw(params);
        }
        let id = request.ticket.id;
        Some(match outcome {
            Some(Ok(result)) => Response::result(id, result),
            Some(Err(error)) => Response::error(Some(id), error),
            None => {
                tracing::warn!(%id, "request cancelled at the end of the grace period");
                bump(&shared.counters.cancelled_at_shutdown);
                shutdown_response(id)
            }
        })
    }
}

/// A future panicked while it was polled.
pub(crate) struct Panicked;

/// Polls `future` to its end, catching a panic of any of its polls (it is not polled again
/// after one). It takes the future pinned where the caller keeps it: a future passed by
/// value would be stored twice in the caller's own future.
pub(crate) fn catching_panics<F: Future>(
    mut future: Pin<&mut F>,
) -> impl Future<Output = Result<F::Output, Panicked>> + '_ {
    std::future::poll_fn(move |cx| {
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_panic) => Poll::Ready(Err(Panicked)),
        }
    })
}

/// The answer to a request cancelled because the server shut down.
pub(crate) fn shutdown_response(id: Id<'static>) -> Response<'static> {
    let data = RawValue::from_string(r#"{"reason":"shutdown"}"#.to_owned()).ok();
    let mut error = ErrorObject::new(
        ErrorCode::INTERNAL_ERROR,
        "the server shut down before the request completed",
    );
    if let Some(data) = data {
        error = error.with_data(data);
    }
    Response::error(Some(id), error)
}

/// The answer to a request whose handler panicked.
pub(crate) fn panic_response(id: Id<'static>) -> Response<'static> {
    Response::error(
        Some(id),
        ErrorObject::new(ErrorCode::INTERNAL_ERROR, "the request handler failed"),
    )
}

/// Sends an answer; a closed output fires [`Shared::output_closed`], which stops the loop.
pub(super) async fn send(shared: &Shared<impl Handler>, outbound: Option<Outbound>) {
    let Some(outbound) = outbound else {
        return;
    };
    if let Err(error) = shared.writer.send(outbound).await {
        tracing::error!(%error, "an answer could not be queued: the output is closed");
        bump(&shared.counters.unanswered_at_output_failure);
        shared.close_output();
    }
}

/// The task of one request. The permit (none once the grace period is over) and the
/// reservation of its declared answer bound (if any) are held until the answer is queued.
#[allow(clippy::manual_async_fn)] // an `async fn` would keep its arguments twice
pub(crate) fn single_task<H: Handler>(
    shared: Arc<Shared<H>>,
    request: PendingRequest,
    permit: Option<OwnedSemaphorePermit>,
    reservation: Option<Reservation>,
) -> impl std::future::Future<Output = ()> {
    async move {
        let response = run_request(&shared, request).await;
        send(&shared, response.map(Outbound::from)).await;
        drop(permit);
        drop(reservation);
    }
}

/// The task of a batch: its requests run concurrently, at most as many at once as the
/// permits it holds; the answer is one array in input order, without the members that get
/// no answer. A panic outside the members' handlers (each member answers its own) is
/// logged and counted as a handler panic; the batch then gets no answer.
pub(crate) async fn batch_task<H: Handler>(
    shared: Arc<Shared<H>>,
    slots: Vec<Slot>,
    permits: Option<OwnedSemaphorePermit>,
    reservation: Option<Reservation>,
) {
    let batch = std::pin::pin!(run_batch(&shared, slots, permits, reservation));
    if catching_panics(batch).await.is_err() {
        tracing::error!("batch task panicked");
        bump(&shared.counters.handler_panics);
    }
}

/// The body of [`batch_task`].
async fn run_batch<H: Handler>(
    shared: &Arc<Shared<H>>,
    mut slots: Vec<Slot>,
    permits: Option<OwnedSemaphorePermit>,
    reservation: Option<Reservation>,
) {
    let concurrency = permits.as_ref().map_or(slots.len(), |p| p.num_permits());
    let gate = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut members = JoinSet::new();
    let mut index_of = HashMap::new();
    for (index, slot) in slots.iter_mut().enumerate() {
        if !matches!(slot, Slot::Pending(_)) {
            continue;
        }
        let Slot::Pending(request) = std::mem::replace(slot, Slot::Silent) else {
            continue;
        };
        let ticket = request.ticket.clone();
        let gate = Arc::clone(&gate);
        let shared = Arc::clone(shared);
        let handle = members.spawn(async move {
            // The gate is never closed, so acquiring only waits.
            let _turn = match gate.acquire_owned().await {
                Ok(turn) => Some(turn),
                Err(error) => {
                    tracing::error!(%error, "batch gate closed: member runs unbounded");
                    None
                }
            };
            run_request(&shared, request).await
        });
        let _previous = index_of.insert(handle.id(), (index, ticket));
    }
    while let Some(joined) = members.join_next_with_id().await {
        let (task_id, response) = match joined {
            Ok((task_id, response)) => (task_id, response),
            // A member's handler panic is answered in its task; this one panicked outside
            // its handler (its own bookkeeping) and is still owed an answer.
            Err(error) => {
                let response = index_of
                    .get(&error.id())
                    .and_then(|(_, ticket)| panicked(shared, ticket));
                (error.id(), response)
            }
        };
        if let (Some((index, _)), Some(response)) = (index_of.get(&task_id), response) {
            slots[*index] = Slot::Ready(response);
        }
    }
    let responses = Slot::answers(slots);
    let outbound = (!responses.is_empty()).then_some(Outbound::Batch(responses));
    send(shared, outbound).await;
    drop(permits);
    drop(reservation);
}

/// Accounts for a request whose handler panicked (or whose task was aborted) and builds the
/// answer it is still owed, unless the client cancelled it.
pub(crate) fn panicked<H: Handler>(
    shared: &Shared<H>,
    ticket: &Ticket,
) -> Option<Response<'static>> {
    tracing::error!(id = %ticket.id, "request handler panicked");
    bump(&shared.counters.handler_panics);
    if !shared.in_flight.finish(ticket) {
        bump(&shared.counters.cancelled_by_client);
        return None;
    }
    bump(&shared.counters.requests_answered);
    Some(panic_response(ticket.id.clone()))
}

/// The size of the future of one request's task for handler `H` (a test keeps it bounded).
#[cfg(test)]
pub(crate) fn request_task_size<H: Handler>() -> usize {
    fn returned<A, B, C, D, R>(_: fn(A, B, C, D) -> R) -> usize {
        std::mem::size_of::<R>()
    }
    returned(single_task::<H> as fn(_, _, _, _) -> _)
}
