//! Where messages from the server go: answers to the requests in flight (by id), progress
//! reports (by token), notifications of `subscriptions/listen` streams (by subscription id),
//! and the server's own requests and notifications.
//!
//! A message that cannot be attributed to one request (a malformed line, an oversized line,
//! an answer with an id never used) fails **every** request in flight with the typed
//! error: one of them was probably waiting for it, and failing fast beats a timeout. The
//! connection stays usable. A second answer to a finished request is logged and counted.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::framing::FramingError;
use crate::generated::protocol::validate;
use crate::jsonrpc::{
    parse_message, ErrorCode, ErrorObject, Id, Message, Request, Response, ResponsePayload,
};

use super::handler::{self, ClientHandler};
use super::options::Progress;
use super::ClientError;

/// The answer to a request the server sent, once the handler has run: one line.
pub(crate) type ServerCall = Pin<Box<dyn Future<Output = Vec<u8>> + Send>>;

/// What the server answered to one request.
#[derive(Debug)]
pub(crate) enum Reply {
    /// The `result` member.
    Result(Box<RawValue>),
    /// The `error` member.
    Error {
        /// The code.
        code: ErrorCode,
        /// The message.
        message: String,
        /// The data, if any.
        data: Option<Value>,
    },
}

/// What a request's answer channel carries.
pub(crate) type Answer = Result<Reply, ClientError>;

/// A notification of a `subscriptions/listen` stream: its method and params.
#[derive(Debug)]
pub(crate) struct Tagged {
    /// The notification's method.
    pub(crate) method: String,
    /// Its params (`null` when absent).
    pub(crate) params: Value,
}

/// The `_meta` key naming the listen stream a notification belongs to.
const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

struct Pending {
    method: String,
    answer: oneshot::Sender<Answer>,
}

/// The shared state of one connection's inbound side.
pub(crate) struct Router {
    pending: Mutex<HashMap<u64, Pending>>,
    progress: Mutex<HashMap<String, mpsc::UnboundedSender<Progress>>>,
    /// Open listen streams, by their subscription id as JSON text.
    subscriptions: Mutex<HashMap<String, mpsc::UnboundedSender<Tagged>>>,
    next_id: AtomicU64,
    closed: AtomicBool,
    duplicates: AtomicU64,
    handler: Arc<dyn ClientHandler>,
}

impl std::fmt::Debug for Router {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Router")
            .field("next_id", &self.next_id)
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}

impl Router {
    pub(crate) fn new(handler: Arc<dyn ClientHandler>) -> Self {
        Self {
            handler,
            pending: Mutex::new(HashMap::new()),
            progress: Mutex::new(HashMap::new()),
            subscriptions: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            closed: AtomicBool::new(false),
            duplicates: AtomicU64::new(0),
        }
    }

    /// Reserves an id for a request and the channel its answer arrives on.
    pub(crate) fn register(
        &self,
        method: &str,
    ) -> Result<(u64, oneshot::Receiver<Answer>), ClientError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(ClientError::Closed);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (answer, receiver) = oneshot::channel();
        let pending = Pending {
            method: method.to_owned(),
            answer,
        };
        self.lock_pending().insert(id, pending);
        Ok((id, receiver))
    }

    /// Forgets a request (answered, timed out or dropped).
    pub(crate) fn forget(&self, id: u64) {
        self.lock_pending().remove(&id);
    }

    /// Fails one request, if still waiting.
    pub(crate) fn fail(&self, id: u64, error: ClientError) {
        let pending = self.lock_pending().remove(&id);
        if let Some(pending) = pending {
            if pending.answer.send(Err(error)).is_err() {
                tracing::trace!(id, "request gone before its failure arrived");
            }
        }
    }

    /// The method of a request in flight.
    #[cfg_attr(
        not(feature = "http"),
        allow(dead_code, reason = "used by the HTTP transport")
    )]
    pub(crate) fn method_of(&self, id: u64) -> Option<String> {
        self.lock_pending().get(&id).map(|p| p.method.clone())
    }

    /// Starts routing progress reports tagged `token` to `sink`.
    pub(crate) fn watch_progress(&self, token: String, sink: mpsc::UnboundedSender<Progress>) {
        self.lock_progress().insert(token, sink);
    }

    /// Stops routing progress reports tagged `token`.
    pub(crate) fn unwatch_progress(&self, token: &str) {
        self.lock_progress().remove(token);
    }

    /// Starts routing the notifications tagged with subscription id `key` (JSON text) to
    /// `sink`.
    pub(crate) fn watch_subscription(&self, key: String, sink: mpsc::UnboundedSender<Tagged>) {
        self.lock_subscriptions().insert(key, sink);
    }

    /// Stops routing the notifications tagged with subscription id `key`.
    pub(crate) fn unwatch_subscription(&self, key: &str) {
        self.lock_subscriptions().remove(key);
    }

    /// How many answers arrived for requests already finished.
    pub(crate) fn duplicate_responses(&self) -> u64 {
        self.duplicates.load(Ordering::Relaxed)
    }

    /// Whether the connection ended.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// The connection ended: every waiting request fails with `ConnectionClosed`.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        let drained: Vec<Pending> = self.lock_pending().drain().map(|(_, p)| p).collect();
        for pending in drained {
            let error = ClientError::ConnectionClosed {
                method: pending.method,
            };
            if pending.answer.send(Err(error)).is_err() {
                tracing::trace!("request gone before the connection closed");
            }
        }
    }

    /// Fails every request in flight with (a copy of) `error`.
    pub(crate) fn fail_all(&self, error: &ClientError) {
        let drained: Vec<Pending> = self.lock_pending().drain().map(|(_, p)| p).collect();
        if drained.is_empty() {
            tracing::warn!(%error, "unattributable message from the server, no request in flight");
        }
        for pending in drained {
            if pending.answer.send(Err(error.duplicate())).is_err() {
                tracing::trace!("request gone before its failure arrived");
            }
        }
    }

    /// Handles a framing error of a line-based transport.
    pub(crate) fn framing_error(&self, error: FramingError) {
        match error {
            FramingError::LineTooLong {
                limit,
                actual_at_least,
            } => self.fail_all(&ClientError::LineTooLong {
                limit,
                actual_at_least,
            }),
            other => tracing::warn!(error = %other, "reading from the server failed"),
        }
    }

    /// Handles one message (a line, an event's data, a response body). `scope` is the
    /// request the message belongs to when the transport knows it (an HTTP response): its
    /// unattributable failures then fail that request only. Returns the answer to send
    /// back when the server sent a request (it runs the handler).
    pub(crate) fn deliver(&self, frame: &[u8], scope: Option<u64>) -> Option<ServerCall> {
        let message = match parse_message(frame) {
            Ok(message) => message,
            Err(error) => {
                let reason = error.to_string();
                let target = scope.or_else(|| {
                    error
                        .id()
                        .and_then(our_id)
                        .filter(|id| self.lock_pending().contains_key(id))
                });
                match target {
                    Some(id) => self.fail(id, ClientError::MalformedMessage { reason }),
                    None => self.fail_all(&ClientError::MalformedMessage { reason }),
                }
                return None;
            }
        };
        match message {
            Message::Response(response) => {
                self.response(response, scope);
                None
            }
            Message::Notification(notification) => {
                if notification.method == "notifications/progress" {
                    self.progress_report(frame);
                } else {
                    let params = notification
                        .params
                        .and_then(|raw| serde_json::from_str(raw.get()).ok())
                        .unwrap_or(Value::Null);
                    let method = notification.method.to_string();
                    if let Some((method, params)) = self.to_subscription(method, params) {
                        self.handler.notification(&method, params);
                    }
                }
                None
            }
            Message::Request(request) => Some(self.server_call(&request)),
        }
    }

    fn response(&self, response: Response<'_>, scope: Option<u64>) {
        let unattributable = |error: ClientError| match scope {
            Some(id) => self.fail(id, error),
            None => self.fail_all(&error),
        };
        let number = match (response.id.as_ref(), scope) {
            // An HTTP error status often carries the error with a null id (the server could
            // not read ours): it answers the request of that exchange.
            (None, Some(id)) if response.is_error() => id,
            (None, _) => {
                let reason = "an error response with a null id".to_owned();
                unattributable(ClientError::MalformedMessage { reason });
                return;
            }
            (Some(id), _) => match our_id(id) {
                Some(number) if scope.is_none_or(|scope| scope == number) => number,
                _ => {
                    unattributable(ClientError::UnexpectedResponse { kind: "wrong id" });
                    return;
                }
            },
        };
        let pending = self.lock_pending().remove(&number);
        let Some(pending) = pending else {
            if number < self.next_id.load(Ordering::Relaxed) {
                self.duplicates.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(id = number, "second answer to a finished request, ignored");
            } else {
                unattributable(ClientError::UnexpectedResponse { kind: "wrong id" });
            }
            return;
        };
        let reply = match response.payload {
            ResponsePayload::Result(raw) => Reply::Result(raw.into_owned()),
            ResponsePayload::Error(error) => error_reply(error),
        };
        if pending.answer.send(Ok(reply)).is_err() {
            tracing::trace!(id = number, "answer arrived after the request was dropped");
        }
    }

    fn progress_report(&self, frame: &[u8]) {
        let mut value: Value = match serde_json::from_slice(frame) {
            Ok(value) => value,
            Err(_) => return,
        };
        if let Err(errors) = super::call::validate_received(
            &mut value,
            validate::progress_notification,
            "ProgressNotification",
        ) {
            let error = ClientError::InvalidMessage {
                what: "notifications/progress".to_owned(),
                definition: "ProgressNotification",
                errors,
            };
            tracing::warn!(%error, "ignored a progress report");
            return;
        }
        let params = &value["params"];
        let token = params["progressToken"].to_string();
        let report = Progress {
            progress: params["progress"].as_f64().unwrap_or(0.0),
            total: params["total"].as_f64(),
            message: params["message"].as_str().map(str::to_owned),
        };
        let sink = self.lock_progress().get(&token).cloned();
        match sink {
            Some(sink) => {
                if sink.send(report).is_err() {
                    tracing::trace!("progress for a finished request");
                }
            }
            None => tracing::debug!("progress report for no request in flight"),
        }
    }

    /// Hands a notification tagged with the id of an open listen stream to that stream;
    /// gives it back when it belongs to none.
    fn to_subscription(&self, method: String, params: Value) -> Option<(String, Value)> {
        let key = match params
            .get("_meta")
            .and_then(|meta| meta.get(SUBSCRIPTION_ID_KEY))
        {
            Some(tag) => tag.to_string(),
            None => return Some((method, params)),
        };
        let sink = self.lock_subscriptions().get(&key).cloned();
        let Some(sink) = sink else {
            return Some((method, params));
        };
        match sink.send(Tagged { method, params }) {
            Ok(()) => None,
            Err(returned) => Some((returned.0.method, returned.0.params)),
        }
    }

    /// The handler's run for a request the server sent (`ping` is answered `{}`).
    fn server_call(&self, request: &Request<'_>) -> ServerCall {
        let id = request.id.clone().into_owned();
        let method = request.method.to_string();
        let params = request
            .params
            .as_ref()
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
        let handler = Arc::clone(&self.handler);
        Box::pin(async move {
            tracing::debug!(method, "request from the server");
            let outcome = handler::serve(handler, method, params).await;
            answer_line(id, outcome)
        })
    }

    /// The application's handler.
    pub(crate) fn handler(&self) -> Arc<dyn ClientHandler> {
        Arc::clone(&self.handler)
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock_subscriptions(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::UnboundedSender<Tagged>>> {
        self.subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn lock_progress(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::UnboundedSender<Progress>>> {
        self.progress.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The id as one of ours: a plain decimal integer, exactly as the client wrote it.
fn our_id(id: &Id<'_>) -> Option<u64> {
    let text = id.as_json();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) || text.starts_with('0') {
        return None;
    }
    text.parse().ok()
}

fn error_reply(error: ErrorObject<'_>) -> Reply {
    Reply::Error {
        code: error.code,
        message: error.message.into_owned(),
        data: error
            .data
            .and_then(|raw| serde_json::from_str(raw.get()).ok()),
    }
}

/// One answer line to a request the server sent.
fn answer_line(id: Id<'static>, outcome: Result<Value, handler::HandlerError>) -> Vec<u8> {
    let response = match outcome.map(|value| RawValue::from_string(value.to_string())) {
        Ok(Ok(raw)) => Response::result(id, raw),
        Ok(Err(_)) => Response::error(
            Some(id),
            ErrorObject::new(ErrorCode::INTERNAL_ERROR, "internal error"),
        ),
        Err(error) => Response::error(Some(id), ErrorObject::new(error.code, error.message)),
    };
    let mut line = Vec::new();
    response.encode_line(&mut line);
    line
}
