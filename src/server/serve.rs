//! The request loop: read, dispatch, bound, drain.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{AcquireError, OwnedSemaphorePermit, Semaphore, TryAcquireError};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::framing::{
    spawn_budgeted_writer, FrameReader, FramingError, Outbound, OutputBudget, Reservation,
};
use crate::jsonrpc::params_index::ParamsIndex;
use crate::jsonrpc::{
    parse_frame_indexed, ErrorCode, ErrorObject, Frame, Id, Message, Notification, ParseError,
    Request, Response, ResponsePayload,
};

use super::handler::{Handler, NotificationContext, Peer};
use super::in_flight::{bump, Counters, InFlight};
use super::in_place::{first_poll_in_place, in_place, in_place_task, FirstPoll, InPlace};
use super::options::{ServeOptions, SharedBatchPolicy};
use super::signals::Signals;
use super::task::{batch_task, single_task, Job, PendingRequest, Shared, Slot};
use super::{ServerError, ShutdownReason, ShutdownReport, CANCELLED_NOTIFICATION};

/// Serves JSON-RPC over a pair of byte streams until the input ends, a signal or the stop
/// token asks for shutdown, or the output fails; then shuts down gracefully.
///
/// - Every request runs on its own task, so a slow request never delays another; but a
///   request the handler lets start in place ([`Handler::runs_in_place`], for work that
///   never blocks) starts on the reading task, is answered from there when it finishes in
///   that first poll, and moves to a task of its own otherwise. At most
///   `max_in_flight` run at once; requests read beyond that wait in a queue of at most
///   `max_queued`, and when that is full the loop stops reading until a request finishes, so
///   a client writing faster than the server answers cannot grow its memory.
/// - A request whose id equals one still in flight is answered with `-32600`; the first one
///   is unaffected. Notifications are never answered. Malformed frames are answered as the
///   JSON-RPC layer decides; an oversize line is answered once (`-32600`, `id: null`, with
///   `limit` and `actualAtLeast`) and reading goes on.
/// - `notifications/cancelled` with the `requestId` of a request in flight fires that
///   request's token, drops its handler future, and no response is ever sent for it.
/// - Shutdown: reading stops; queued and running requests get the grace period to finish;
///   then the rest are cancelled and answered with an error (`-32603`, `data.reason:
///   "shutdown"`); [`Handler::on_shutdown`] runs; every answer is flushed.
/// - A handler that panics is answered `-32603` (by its request's own task, or by the loop
///   for a request that ran in place); the loop goes on.
///   Dropping the returned future before it ends fires the token of every request it
///   started, so no handler is left running.
///
/// # Errors
///
/// [`ServerError::Input`] if reading failed (after the graceful drain),
/// [`ServerError::Output`] if writing failed, [`ServerError::Signal`] if the signal handlers
/// could not be installed (nothing is read then).
pub async fn serve<R, W, H>(
    input: R,
    output: W,
    handler: H,
    options: ServeOptions,
) -> Result<ShutdownReport, ServerError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
    H: Handler,
{
    // What the reading loop waits on to stop: the caller's stop, a signal, a closed output.
    let stop_reading = options.stop.child_token();
    let mut signals = Signals::new(options.stop_on_signals, stop_reading.clone())?;
    let mut reader = FrameReader::new(input).with_max_line_bytes(options.max_line_bytes);
    // Before any answer is known, the in-flight and queue bounds alone decide.
    let budget = Arc::new(OutputBudget::new(
        options.max_queued_bytes,
        options.max_in_flight.saturating_add(options.max_queued),
    ));
    let (writer, writer_task) =
        spawn_budgeted_writer(output, options.writer_queue, Some(Arc::clone(&budget)));
    let shared = Arc::new(Shared {
        handler,
        in_flight: InFlight::default(),
        counters: Counters::default(),
        writer,
        output_closed: CancellationToken::new(),
        stop_reading,
    });
    let mut state = State {
        permits: Arc::new(Semaphore::new(options.max_in_flight)),
        shared,
        tasks: TaskTracker::new(),
        queue: VecDeque::new(),
        waiting: VecDeque::new(),
        options,
        budget,
        answered: VecDeque::new(),
        last_method: None,
    };
    tracing::info!(
        max_in_flight = state.options.max_in_flight,
        max_queued = state.options.max_queued,
        "request loop started"
    );

    let (reason, input_error) = state.read_until_stopped(&mut reader, &mut signals).await;
    drop(reader);
    tracing::info!(
        ?reason,
        in_flight = state.shared.in_flight.len(),
        "shutting down"
    );
    state.shared.handler.on_stop_reading().await;
    state.drain(&mut signals).await;
    state.shared.handler.on_shutdown().await;

    let report = state.shared.counters.report(reason);
    // Every task has ended: the guard's cancel, when `state` is dropped, reaches nothing.
    drop(state);
    let written = writer_task.shutdown().await;
    tracing::info!(?report, "request loop stopped");
    match (written, input_error) {
        (Err(error), _) => Err(ServerError::Output(error)),
        (Ok(_), Some(error)) => Err(ServerError::Input(error)),
        (Ok(_), None) => Ok(report),
    }
}

/// Everything the loop owns besides the reader.
struct State<H> {
    shared: Arc<Shared<H>>,
    /// One permit per request allowed to run.
    permits: Arc<Semaphore>,
    /// The tasks of the requests and batches started (a request in place only once its
    /// first poll left it pending); each answers its own request, a panicking handler's
    /// included, so the loop only waits for them at shutdown.
    tasks: TaskTracker,
    /// Work read while every slot was busy, oldest first, with the reservation of its
    /// declared answer bound (if any).
    queue: VecDeque<(Job, Option<Reservation>)>,
    /// Work with a declared answer bound that the output budget has no room for yet, oldest
    /// first: it waits here, and work without a bound read after it is not held back.
    waiting: VecDeque<Job>,
    options: ServeOptions,
    /// Bytes of answers waiting for the writer: reading pauses while they are too many.
    budget: Arc<OutputBudget>,
    /// Answers of requests that ran on this task ([`Handler::runs_in_place`]), each with the
    /// reservation of its declared bound: queued for the writer at the loop's next turn.
    answered: VecDeque<(Response<'static>, Option<Reservation>)>,
    /// The method of the last request accepted: the next request with the same method (a
    /// client's usual run of `tools/call`) shares it instead of copying it (an allocation
    /// here, freed on the worker that answers).
    last_method: Option<Arc<str>>,
}

/// Fires every request's token if the loop's future is dropped before its end (the tasks
/// then end at once, as if the grace period were over); at the loop's own end, every
/// request has been answered and this changes nothing.
impl<H> Drop for State<H> {
    fn drop(&mut self) {
        self.shared.in_flight.cancel_all();
    }
}

impl<H: Handler> State<H> {
    /// The main phase: reads and dispatches until something asks for shutdown.
    async fn read_until_stopped<R: AsyncRead + Unpin>(
        &mut self,
        reader: &mut FrameReader<R>,
        signals: &mut Signals,
    ) -> (ShutdownReason, Option<FramingError>) {
        let stop = self.options.stop.clone();
        let output_closed = self.shared.output_closed.clone();
        // The caller's stop, a signal and a closed output, as one token: one wait to poll
        // per turn, pinned across the whole loop rather than registered anew on every turn.
        let stop_reading = self.shared.stop_reading.clone();
        let mut stopped = std::pin::pin!(stop_reading.cancelled());
        loop {
            if output_closed.is_cancelled() {
                return (ShutdownReason::OutputFailed, None);
            }
            self.start_ready().await;
            let needed = self.permits_needed();
            let output_admits = self.budget.admits(self.shared.in_flight.len());
            let held = !self.waiting.is_empty();
            let read_ahead = self.queue.len() + self.waiting.len();
            let reading = read_ahead < self.options.max_queued && output_admits;
            tokio::select! {
                biased;
                () = &mut stopped => {
                    // In the order their branches had: the caller's stop, a signal (its
                    // name is queued before the token fires), a closed output.
                    let reason = if stop.is_cancelled() {
                        ShutdownReason::Requested
                    } else if let Some(name) = signals.try_recv() {
                        ShutdownReason::Signal { name }
                    } else {
                        ShutdownReason::OutputFailed
                    };
                    return (reason, None);
                }
                // The output budget is spent (or has no room for the bound of the oldest
                // waiting request): wait for the writer or a reservation's end, then look again.
                () = self.budget.wait_written(), if !output_admits || held => {
                    tracing::trace!(
                        queued = self.budget.queued(),
                        reserved = self.budget.reserved(),
                        "output drained a little"
                    );
                }
                permit = Arc::clone(&self.permits).acquire_many_owned(needed),
                    if !self.queue.is_empty() => self.start_queued(permit_or_log(permit)),
                frame = reader.next_frame(), if reading => match frame {
                    None => return (ShutdownReason::InputClosed, None),
                    Some(Ok(bytes)) => self.on_frame(bytes).await,
                    Some(Err(error)) => match error.to_error_response() {
                        Some(response) => {
                            tracing::warn!(%error, "rejecting input line");
                            bump(&self.shared.counters.oversize_lines);
                            self.send(response).await;
                        }
                        None => {
                            tracing::error!(%error, "stopping: reading the input failed");
                            return (ShutdownReason::InputFailed, Some(error));
                        }
                    },
                },
            }
        }
    }

    /// The shutdown phase: runs what was read, within the grace period, then cancels the
    /// rest; returns once every task has ended.
    async fn drain(&mut self, signals: &mut Signals) {
        let deadline = Instant::now() + self.options.grace_period;
        let output_closed = self.shared.output_closed.clone();
        let mut cancelled = false;
        if output_closed.is_cancelled() {
            self.cancel_all();
            cancelled = true;
        }
        // Tasks may still be started (from the queue): `wait` ends once none is running.
        self.tasks.close();
        while !(self.tasks.is_empty() && self.queue.is_empty() && self.waiting.is_empty()) {
            self.start_ready().await;
            let needed = self.permits_needed();
            let held = !self.waiting.is_empty();
            let running = !self.tasks.is_empty();
            tokio::select! {
                biased;
                () = self.tasks.wait(), if running => {}
                () = output_closed.cancelled(), if !cancelled => {}
                () = self.budget.wait_written(), if held => {}
                permit = Arc::clone(&self.permits).acquire_many_owned(needed),
                    if !self.queue.is_empty() => self.start_queued(permit_or_log(permit)),
                () = tokio::time::sleep_until(deadline), if !cancelled => {
                    tracing::warn!(
                        in_flight = self.shared.in_flight.len(),
                        "grace period over: cancelling the remaining requests"
                    );
                    self.cancel_all();
                    cancelled = true;
                }
                name = signals.recv(), if !cancelled => {
                    tracing::warn!(signal = name, "second signal: cancelling the remaining requests");
                    self.cancel_all();
                    cancelled = true;
                }
                else => {
                    // Unreachable: the loop runs while a task or a queued or waiting job is
                    // left, and a waiting job enables the budget's branch.
                    tracing::error!("shutdown drain has nothing to wait for");
                    break;
                }
            }
            if output_closed.is_cancelled() && !cancelled {
                self.cancel_all();
                cancelled = true;
            }
        }
        self.start_ready().await;
    }

    /// Starts the waiting jobs the output budget has room for, and queues the answers of
    /// the requests that ran in place, until neither is left: queueing an answer releases
    /// its reservation, which may make room for a waiting job, which may run in place.
    async fn start_ready(&mut self) {
        loop {
            self.start_waiting();
            if self.answered.is_empty() {
                return;
            }
            self.send_answered().await;
        }
    }

    /// Fires every request's token and starts every queued and waiting job (they end at
    /// once; a waiting job's bound is not reserved).
    fn cancel_all(&mut self) {
        self.shared.in_flight.cancel_all();
        while let Some(job) = self.waiting.pop_front() {
            self.queue.push_back((job, None));
        }
        while !self.queue.is_empty() {
            self.start_queued(None);
        }
    }

    fn permits_needed(&self) -> u32 {
        self.queue
            .front()
            .map_or(1, |(job, _)| job.permits_needed(self.options.max_in_flight))
    }

    /// Starts the oldest queued job with the permits just acquired (`None` at shutdown).
    fn start_queued(&mut self, permit: Option<OwnedSemaphorePermit>) {
        if let Some((job, reservation)) = self.queue.pop_front() {
            self.spawn(job, permit, reservation);
        }
    }

    /// Requests registered and not waiting for the budget (running, or queued for a slot):
    /// what the budget counts as running.
    fn running(&self) -> usize {
        let waiting: usize = self.waiting.iter().map(Job::requests).sum();
        self.shared.in_flight.len().saturating_sub(waiting)
    }

    /// Admits the waiting jobs the output budget now has room for, oldest first.
    fn start_waiting(&mut self) {
        while let Some(job) = self.waiting.front() {
            let bound = job.answer_bound().unwrap_or(0);
            if !self.budget.fits(bound, self.running()) {
                return;
            }
            if let Some(job) = self.waiting.pop_front() {
                let reservation = self.budget.reserve(bound);
                self.submit_admitted(job, Some(reservation));
            }
        }
    }

    /// Starts a job now if there is room, queues it otherwise; a job with a declared answer
    /// bound first needs room in the output budget (else it waits, behind any other waiting).
    fn submit(&mut self, job: Job) {
        let Some(bound) = job.answer_bound() else {
            self.submit_admitted(job, None);
            return;
        };
        // The job's own requests are registered already: they are not among the others.
        let others = self.running().saturating_sub(job.requests());
        if self.waiting.is_empty() && self.budget.fits(bound, others) {
            let reservation = self.budget.reserve(bound);
            self.submit_admitted(job, Some(reservation));
        } else {
            tracing::debug!(
                bound,
                "no room for the declared answer bound: request waits"
            );
            self.waiting.push_back(job);
        }
    }

    /// Starts a job the output budget admitted now if there is a slot, queues it otherwise.
    fn submit_admitted(&mut self, job: Job, reservation: Option<Reservation>) {
        let needed = job.permits_needed(self.options.max_in_flight);
        if !self.queue.is_empty() {
            self.queue.push_back((job, reservation));
            return;
        }
        match Arc::clone(&self.permits).try_acquire_many_owned(needed) {
            Ok(permit) => self.spawn(job, Some(permit), reservation),
            Err(TryAcquireError::NoPermits) => {
                tracing::debug!("every slot is busy: request queued");
                self.queue.push_back((job, reservation));
            }
            Err(TryAcquireError::Closed) => {
                tracing::error!("the in-flight semaphore is closed: request runs unbounded");
                self.spawn(job, None, reservation);
            }
        }
    }

    fn spawn(
        &mut self,
        job: Job,
        permit: Option<OwnedSemaphorePermit>,
        reservation: Option<Reservation>,
    ) {
        let shared = Arc::clone(&self.shared);
        // Boxed: the task's cell then holds a pointer instead of the 1.4 KB future, which
        // tokio moves several times while spawning and overwrites at its end (about 1.4k
        // instructions of copying per request, against one allocation). A request that runs
        // in place is boxed too, so that it can still move to a task after its first poll.
        let work: Pin<Box<dyn Future<Output = ()> + Send>> = match job {
            Job::Single(request) if request.in_place => {
                let mut work: InPlace = Box::pin(in_place(Arc::clone(&shared), request));
                match first_poll_in_place(work.as_mut()) {
                    FirstPoll::Ready(answer) => {
                        drop(permit);
                        if let Some(response) = answer {
                            self.answered.push_back((response, reservation));
                        }
                    }
                    FirstPoll::Panicked => {
                        tracing::error!("a request panicked outside its handler; not answered");
                        bump(&self.shared.counters.handler_panics);
                    }
                    FirstPoll::Pending => {
                        let rest = in_place_task(shared, work, permit, reservation);
                        let _handle = self.tasks.spawn(rest);
                    }
                }
                return;
            }
            Job::Single(request) => Box::pin(single_task(shared, request, permit, reservation)),
            Job::Batch(slots) => Box::pin(batch_task(shared, slots, permit, reservation)),
        };
        // Detached: a task answers its own request (see `tasks`).
        let _handle = self.tasks.spawn(work);
    }

    /// Queues the answers of the requests that ran on this task, each releasing its
    /// reservation once queued.
    async fn send_answered(&mut self) {
        while let Some((response, reservation)) = self.answered.pop_front() {
            self.send(response).await;
            drop(reservation);
        }
    }

    /// Queues a message the loop itself answers with.
    async fn send(&mut self, outbound: impl Into<Outbound>) {
        if let Err(error) = self.shared.writer.send(outbound).await {
            tracing::error!(%error, "the output is closed");
            bump(&self.shared.counters.unanswered_at_output_failure);
            self.shared.close_output();
        }
    }

    async fn on_frame(&mut self, bytes: &[u8]) {
        tracing::trace!(bytes = bytes.len(), "frame received");
        let (frame, params_index) =
            parse_frame_indexed(bytes, self.batch_policy().get(), self.options.max_depth);
        match frame {
            Frame::Single(Ok(message)) => match message {
                Message::Request(request) => match self.accept(request, params_index) {
                    Ok(pending) => self.submit(Job::Single(pending)),
                    Err(response) => self.send(response).await,
                },
                Message::Notification(notification) => self.on_notification(notification).await,
                Message::Response(response) => self.on_response(response).await,
            },
            Frame::Single(Err(error)) => {
                let response = self.rejected(&error);
                self.send(response).await;
            }
            Frame::Batch(members) => self.on_batch(members).await,
        }
    }

    fn batch_policy(&self) -> &SharedBatchPolicy {
        &self.options.batch_policy
    }

    async fn on_batch(&mut self, members: Vec<Result<Message<'_>, ParseError>>) {
        tracing::trace!(members = members.len(), "batch received");
        let mut slots = Vec::with_capacity(members.len());
        for (index, member) in members.into_iter().enumerate() {
            slots.push(match member {
                Ok(Message::Request(request)) => match self.accept(request, None) {
                    Ok(pending) => Slot::Pending(pending),
                    Err(response) => Slot::Ready(response),
                },
                Ok(Message::Notification(notification)) => {
                    self.on_notification(notification).await;
                    Slot::Silent
                }
                Ok(Message::Response(response)) => {
                    self.on_response(response).await;
                    Slot::Silent
                }
                Err(error) => Slot::Ready(self.rejected_member(&error, index)),
            });
        }
        if slots.iter().any(|slot| matches!(slot, Slot::Pending(_))) {
            self.submit(Job::Batch(slots));
            return;
        }
        let responses = Slot::answers(slots);
        if !responses.is_empty() {
            self.send(Outbound::Batch(responses)).await;
        }
    }

    /// Registers a request (with the index of its params, when its frame's check recorded
    /// one), or builds the answer rejecting its duplicate id.
    fn accept(
        &mut self,
        request: Request<'_>,
        params_index: Option<Box<ParamsIndex>>,
    ) -> Result<PendingRequest, Response<'static>> {
        let method = match &self.last_method {
            Some(last) if **last == *request.method => Arc::clone(last),
            _ => Arc::clone(self.last_method.insert(Arc::from(&*request.method))),
        };
        let shared = &self.shared;
        match shared.in_flight.register_own(&request.id) {
            Ok(ticket) => Ok(PendingRequest {
                answer_bound: shared
                    .handler
                    .max_answer_bytes(&request.method, request.params.as_deref()),
                in_place: shared
                    .handler
                    .runs_in_place(&request.method, request.params.as_deref()),
                ticket,
                method,
                params: request.params.map(std::borrow::Cow::into_owned),
                params_index,
            }),
            Err(_duplicate) => {
                tracing::warn!(id = %request.id, "request id already in flight: rejected");
                bump(&shared.counters.duplicate_ids);
                Err(Response::error(
                    Some(request.id.into_owned()),
                    ErrorObject::new(
                        ErrorCode::INVALID_REQUEST,
                        "a request with this id is already in flight",
                    ),
                ))
            }
        }
    }

    /// The answer to an invalid batch member: as for a lone message, with the member's
    /// position in `data.batchIndex` so the client can tell which member it was.
    fn rejected_member(&self, error: &ParseError, index: usize) -> Response<'static> {
        let mut response = self.rejected(error);
        if let ResponsePayload::Error(object) = &mut response.payload {
            let data = serde_json::value::to_raw_value(&serde_json::json!({ "batchIndex": index }));
            match data {
                Ok(raw) => object.data = Some(std::borrow::Cow::Owned(raw)),
                Err(error) => tracing::error!(%error, "batch index not attached"),
            }
        }
        response
    }

    fn rejected(&self, error: &ParseError) -> Response<'static> {
        tracing::debug!(?error, "invalid message");
        bump(&self.shared.counters.invalid_messages);
        error.to_error_response()
    }

    async fn on_notification(&mut self, notification: Notification<'_>) {
        if notification.method == CANCELLED_NOTIFICATION {
            self.on_cancelled(notification.params.as_deref());
            return;
        }
        bump(&self.shared.counters.notifications);
        let ctx = NotificationContext::new(Peer::new(self.shared.writer.clone()));
        self.shared
            .handler
            .handle_notification(ctx, &notification.method, notification.params.as_deref())
            .await;
    }

    async fn on_response(&mut self, response: Response<'_>) {
        bump(&self.shared.counters.responses_received);
        self.shared
            .handler
            .handle_response(response.into_owned())
            .await;
    }

    /// `notifications/cancelled`: cancels the request named by `requestId`, if in flight.
    fn on_cancelled(&self, params: Option<&RawValue>) {
        #[derive(Deserialize)]
        struct CancelledParams<'a> {
            #[serde(rename = "requestId", borrow)]
            request_id: Option<&'a RawValue>,
        }
        let id = params
            .and_then(|raw| serde_json::from_str::<CancelledParams<'_>>(raw.get()).ok())
            .and_then(|params| params.request_id)
            .and_then(Id::from_raw);
        let Some(id) = id else {
            tracing::warn!("cancellation without a valid requestId: ignored");
            bump(&self.shared.counters.ignored_cancellations);
            return;
        };
        if self.shared.in_flight.cancel(&id) {
            tracing::debug!(%id, "request cancelled by the client");
        } else {
            tracing::debug!(%id, "cancellation of a request not in flight: ignored");
            bump(&self.shared.counters.ignored_cancellations);
        }
    }
}

/// The loop never closes its semaphore; should that change, the job still runs and the
/// failure is logged.
fn permit_or_log(
    permit: Result<OwnedSemaphorePermit, AcquireError>,
) -> Option<OwnedSemaphorePermit> {
    permit
        .map_err(|error| tracing::error!(%error, "the in-flight semaphore is closed"))
        .ok()
}
