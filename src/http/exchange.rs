//! One JSON-RPC request over HTTP: the handler runs in the exchange's own future (the HTTP
//! connection's task), not on a task of its own; its answer goes out as `application/json`,
//! or as an event stream when notifications come first.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::stream;
use tokio_util::sync::CancellationToken;

use crate::framing::{message_channel, MessageReceiver, Outbound};
use crate::jsonrpc::{ErrorCode, ErrorObject, Request, Response};
use crate::mcp::Connection;
use crate::server::{catching_panics, Handler, HandlerResult, Panicked, Peer, RequestContext};

use super::headers::Accepted;
use super::sessions::SessionTicket;
use super::sse::{event, outbound_json};

/// How an answer may go out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// JSON only (the client does not accept event streams): notifications are dropped.
    JsonOnly,
    /// JSON, unless a notification comes before the response.
    Auto,
    /// An event stream from the start (the client asked for progress).
    Stream,
}

impl Delivery {
    /// What a request's `Accept` header allows.
    pub(crate) fn for_accept(accepted: Accepted) -> Self {
        if accepted.event_stream {
            Self::Auto
        } else {
            Self::JsonOnly
        }
    }

    /// A stream from the start when the request asked for progress and streams are allowed.
    pub(crate) fn with_progress(self, wants_progress: bool) -> Self {
        match self {
            Self::Auto if wants_progress => Self::Stream,
            other => other,
        }
    }

    /// JSON whatever comes.
    pub(crate) fn json_only(self) -> Self {
        Self::JsonOnly
    }
}

/// Notifications a request's handler may queue before it is held back.
const NOTIFICATION_QUEUE: usize = 64;

/// How the answer to a request goes out.
pub(crate) enum Answer {
    /// The response alone.
    Json(Response<'static>),
    /// An event stream: its notifications, then the response.
    Stream(Streaming),
    /// The request was cancelled: nothing is answered.
    Cancelled,
}

/// A request whose handler is still running, answered as an event stream.
pub(crate) struct Streaming {
    first: VecDeque<Outbound>,
    running: Running,
    /// The response is out (or the request was cancelled): what is queued is the rest.
    done: bool,
}

/// What comes next on an answer's event stream.
pub(crate) enum Next {
    /// A message to send.
    Message(Outbound),
    /// The handler asked to end the stream early (the request goes on).
    Close,
    /// The stream is complete.
    End,
}

/// A running handler and the notifications it sends.
struct Running {
    task: Task,
    receiver: MessageReceiver,
    /// Fired by the handler to end a resumable event stream early.
    closer: Option<CancellationToken>,
}

/// A handler's future, polled by whoever holds its [`Task`]: boxed, so that it can move from
/// the exchange into the event stream that goes on polling it.
type HandlerFuture = Pin<Box<dyn Future<Output = HandlerResult> + Send>>;

/// A running handler: cancelled and dropped when dropped before it finished (the client
/// went away, or cancelled the request).
struct Task {
    /// `None` once it finished (or panicked, or was cancelled).
    handler: Option<HandlerFuture>,
    token: CancellationToken,
    request: Request<'static>,
    /// The session's record of the request, settled when it is answered.
    ticket: Option<SessionTicket>,
}

impl Drop for Task {
    fn drop(&mut self) {
        if let Some(handler) = self.handler.take() {
            self.token.cancel();
            drop(handler);
            tracing::debug!(id = %self.request.id.as_json(), "request abandoned: the HTTP client left");
        }
    }
}

/// What a finished handler task produced.
enum Finished {
    Response(Response<'static>),
    Cancelled,
}

impl Running {
    fn start(
        connection: Arc<Connection>,
        mut request: Request<'static>,
        token: CancellationToken,
        ticket: Option<SessionTicket>,
        auth: crate::server::SharedAuth,
        closer: Option<CancellationToken>,
    ) -> Self {
        let (writer, receiver) = message_channel(NOTIFICATION_QUEUE);
        let ctx = RequestContext::new(request.id.clone(), token.clone(), Peer::new(writer))
            .with_auth(auth)
            .with_stream_closer(closer.clone());
        let method = request.method.clone();
        // The handler takes the params; the request keeps its id and method for the answer
        // and the logs.
        let params = request.params.take();
        let handler: HandlerFuture = Box::pin(async move {
            let result = connection
                .handle_request(ctx, &method, params.as_deref())
                .await;
            if let Some(std::borrow::Cow::Owned(params)) = params {
                crate::long_strings::recycle_raw(params);
            }
            result
        });
        Self {
            task: Task {
                handler: Some(handler),
                token,
                request,
                ticket,
            },
            receiver,
            closer,
        }
    }
}

impl Task {
    /// Runs the handler to its end (not its notifications). Dropping this future before
    /// then leaves the handler where it is, to be run on by a later call.
    async fn finish(&mut self) -> Finished {
        let Some(handler) = self.handler.as_mut() else {
            return Finished::Cancelled;
        };
        let cancelled = self.token.clone();
        let joined = tokio::select! {
            joined = catching_panics(Pin::new(handler)) => joined,
            () = cancelled.cancelled() => {
                // The client cancelled it (notifications/cancelled): no answer; dropping the
                // handler's future ends it.
                self.handler = None;
                return Finished::Cancelled;
            }
        };
        self.handler = None;
        if let Some(ticket) = self.ticket.as_mut() {
            if !ticket.settle() {
                // Cancelled by the client just before it finished: no answer.
                return Finished::Cancelled;
            }
        }
        let id = self.request.id.clone();
        Finished::Response(match joined {
            Ok(Ok(result)) => Response::result(id, std::borrow::Cow::Owned(result)),
            Ok(Err(error)) => Response::error(Some(id), error),
            Err(Panicked) => {
                tracing::error!(method = %self.request.method, "request handler panicked");
                Response::error(
                    Some(id),
                    ErrorObject::new(ErrorCode::INTERNAL_ERROR, "the request handler failed"),
                )
            }
        })
    }
}

/// Runs `request` on `connection` and answers as `delivery` allows. `closer`: the handler
/// may end the answer's event stream early (a resumable stream; it makes an `Auto` answer a
/// stream).
pub(crate) async fn run(
    connection: Arc<Connection>,
    request: Request<'static>,
    token: CancellationToken,
    delivery: Delivery,
    ticket: Option<SessionTicket>,
    auth: crate::server::SharedAuth,
    closer: Option<CancellationToken>,
) -> Answer {
    let mut running = Running::start(connection, request, token, ticket, auth, closer);
    match delivery {
        Delivery::Stream => return Answer::Stream(Streaming::new(VecDeque::new(), running)),
        Delivery::JsonOnly => {
            let finished = running.task.finish().await;
            running.receiver.close();
            let mut dropped = 0_usize;
            while running.receiver.recv().await.is_some() {
                dropped += 1;
            }
            if dropped > 0 {
                tracing::debug!(
                    dropped,
                    "notifications dropped: the client accepts JSON only"
                );
            }
            return match finished {
                Finished::Response(response) => Answer::Json(response),
                Finished::Cancelled => Answer::Cancelled,
            };
        }
        Delivery::Auto => {}
    }
    let closer = running.closer.clone();
    let close = async move {
        match closer {
            Some(closer) => closer.cancelled_owned().await,
            None => std::future::pending().await,
        }
    };
    let first = tokio::select! {
        biased;
        Some(notification) = running.receiver.recv() => notification,
        // Closed before anything was sent: a stream that says only where to resume.
        () = close => return Answer::Stream(Streaming::new(VecDeque::new(), running)),
        finished = running.task.finish() => {
            let Finished::Response(response) = finished else {
                return Answer::Cancelled;
            };
            // Anything the handler queued went out before its answer: keep the order.
            running.receiver.close();
            let mut queued = VecDeque::new();
            while let Some(outbound) = running.receiver.recv().await {
                queued.push_back(outbound);
            }
            if queued.is_empty() {
                return Answer::Json(response);
            }
            queued.push_back(Outbound::from(response));
            let mut streaming = Streaming::new(queued, running);
            streaming.done = true;
            return Answer::Stream(streaming);
        }
    };
    Answer::Stream(Streaming::new(VecDeque::from([first]), running))
}

impl Streaming {
    fn new(first: VecDeque<Outbound>, running: Running) -> Self {
        Self {
            first,
            running,
            done: false,
        }
    }

    /// The next message of this answer: queued messages first, notifications as they
    /// come, the response last. `close`: a close request by the handler ends the stream
    /// ([`Next::Close`], again on every later call); otherwise it is ignored. Dropping this
    /// future loses nothing; dropping the `Streaming` before its end cancels the request.
    pub(crate) async fn next(&mut self, close: bool) -> Next {
        loop {
            if let Some(outbound) = self.first.pop_front() {
                return Next::Message(outbound);
            }
            let running = &mut self.running;
            if self.done || running.task.handler.is_none() {
                self.done = true;
                return Next::End;
            }
            let closer = running.closer.clone().filter(|_| close);
            let closed = async move {
                match closer {
                    Some(closer) => closer.cancelled_owned().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                Some(outbound) = running.receiver.recv() => {
                    self.first.push_back(outbound);
                }
                () = closed => return Next::Close,
                finished = running.task.finish() => {
                    running.receiver.close();
                    while let Some(outbound) = running.receiver.recv().await {
                        self.first.push_back(outbound);
                    }
                    if let Finished::Response(response) = finished {
                        self.first.push_back(Outbound::from(response));
                    }
                    self.done = true;
                }
            }
        }
    }

    /// The events of this answer, without ids (a stream that cannot be resumed). Dropping
    /// the stream before its end cancels the request.
    pub(crate) fn into_events(self) -> impl futures_util::Stream<Item = Bytes> + Send {
        stream::unfold(self, |mut this| async move {
            match this.next(false).await {
                Next::Message(outbound) => Some((event(None, &outbound_json(&outbound)), this)),
                Next::Close | Next::End => None,
            }
        })
    }
}
