//! The event stream answering a POST in a 2025 session, resumable (2025-11-25 Streamable
//! HTTP, "Resumability and Redelivery"): every message it carries is first appended to the
//! session's store under the stream's own [`StreamId`], and goes out with the id
//! `STREAM-NUMBER`. In 2025-11-25 sessions the stream opens with a priming event (event 0:
//! an id, an empty `data` field and a `retry` delay, `http.sseRetryMs`) so that a client cut
//! off before any message can resume too.
//!
//! When the client goes away, or the handler ends the stream early
//! ([`ToolContext::close_event_stream`](crate::tools::ToolContext::close_event_stream)), the
//! request is not cancelled: it runs on in the background, its messages still logged, and a
//! GET with `Last-Event-ID: STREAM-NUMBER` (on any instance, with a shared store) replays
//! that stream's events after NUMBER, follows it until its response, then ends. Only that
//! stream's events: never another POST's, nor the GET stream's.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::Response as HttpResponse;
use bytes::Bytes;
use futures_util::stream;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use crate::framing::Outbound;
use crate::jsonrpc::ErrorCode;

use super::exchange::{Next, Streaming};
use super::log_follower::{Followed, LogFollower};
use super::reply;
use super::session_store::StreamId;
use super::sessions::HttpSession;
use super::sse::{self, event, is_response, outbound_json, priming, stream_event, KEEP_ALIVE};

/// The first protocol version whose clients expect a priming event.
const PRIMING_SINCE: &str = "2025-11-25";

/// How many GET streams resuming POST streams a session may have open in a process.
const MAX_RESUMING: usize = 16;

/// Where the messages of one POST stream are logged.
#[derive(Clone)]
struct PostLog {
    session: Arc<HttpSession>,
    stream: StreamId,
}

/// One message being logged; resolves to the event to send. It owns what it needs, so that a
/// stream dropped meanwhile hands it over to its background task to finish: once an append
/// is sent, the store may hold the message whether or not its answer is awaited, so the
/// message is never logged a second time.
type Recording = Pin<Box<dyn Future<Output = Bytes> + Send>>;

impl PostLog {
    /// Logs `outbound`; the event to send (without an id when the store failed: the client
    /// gets it now, but could not get it again).
    fn record(&self, outbound: &Outbound) -> Recording {
        let json = outbound_json(outbound);
        let log = self.clone();
        Box::pin(async move { log.append(json).await })
    }

    async fn append(self, json: Vec<u8>) -> Bytes {
        let session = &self.session;
        if session.closed.is_cancelled() {
            // The session ended (DELETE, expiry): nothing resumes this stream any more, and
            // its logs are gone from the store; logging it would bring them back.
            return event(None, &json);
        }
        match session.store.append(&session.id, self.stream, &json).await {
            Ok(number) => {
                if session.closed.is_cancelled() {
                    // It ended while the event was being logged, perhaps after its removal
                    // from the store: a store of this process drops what the append brought
                    // back (a shared one lets those keys expire).
                    session.store.forget(&session.id);
                }
                session
                    .posted
                    .send_modify(|count| *count = count.wrapping_add(1));
                stream_event(self.stream, number, &json)
            }
            Err(error) => {
                tracing::warn!(%error, "a POST stream's event could not be logged: it cannot be replayed");
                event(None, &json)
            }
        }
    }
}

/// The events of `streaming`, the answer to a POST in `session`, logged for resumption;
/// `permit` (the bound on requests in progress) is held until the request ends. `retry_ms`:
/// the `retry` delay of the priming event, how long a client cut off waits before it
/// resumes.
pub(crate) fn events(
    streaming: Streaming,
    session: &Arc<HttpSession>,
    permit: OwnedSemaphorePermit,
    retry_ms: u64,
) -> impl futures_util::Stream<Item = Bytes> + Send {
    let stream = new_stream_id();
    let state = PostStream {
        streaming: Some(streaming),
        log: PostLog {
            session: Arc::clone(session),
            stream,
        },
        permit: Some(permit),
        priming: (session.version >= PRIMING_SINCE).then(|| priming(stream, retry_ms)),
        recording: None,
    };
    stream::unfold(state, |mut state| async move {
        let next = state.next().await?;
        Some((next, state))
    })
}

/// A POST stream as the HTTP response body polls it.
struct PostStream {
    /// `None` once it ended or its request went to the background.
    streaming: Option<Streaming>,
    log: PostLog,
    permit: Option<OwnedSemaphorePermit>,
    priming: Option<Bytes>,
    /// A message taken from the request and being logged: finished by the background task if
    /// the body is dropped meanwhile (never logged again: its append may have reached the
    /// store already).
    recording: Option<Recording>,
}

impl PostStream {
    async fn next(&mut self) -> Option<Bytes> {
        if let Some(priming) = self.priming.take() {
            return Some(priming);
        }
        let streaming = self.streaming.as_mut()?;
        match streaming.next(true).await {
            Next::Message(outbound) => {
                let recording = self.recording.insert(self.log.record(&outbound));
                let event = recording.await;
                self.recording = None;
                Some(event)
            }
            Next::End => {
                self.streaming = None;
                None
            }
            Next::Close => {
                tracing::debug!("a POST stream closed by its handler: the request goes on");
                self.detach();
                None
            }
        }
    }

    /// Runs the rest of the request in the background, logging what it sends.
    fn detach(&mut self) {
        let Some(mut streaming) = self.streaming.take() else {
            return;
        };
        let recording = self.recording.take();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // No runtime to run it on (shutting down): dropping it cancels the request.
            return;
        };
        let log = self.log.clone();
        let permit = self.permit.take();
        drop(runtime.spawn(async move {
            let _permit = permit;
            if let Some(recording) = recording {
                let _event = recording.await;
            }
            while let Next::Message(outbound) = streaming.next(false).await {
                let _event = log.record(&outbound).await;
            }
        }));
    }
}

impl Drop for PostStream {
    fn drop(&mut self) {
        // The client went away before the end: a disconnection is not a cancellation.
        self.detach();
    }
}

/// A stream id: random (ids of streams opened on different instances must differ), never
/// [`GET_STREAM`](super::session_store::GET_STREAM), at most 2^53 (exact in JavaScript).
fn new_stream_id() -> StreamId {
    let mut bytes = [0_u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        // Not a secret: any value unlikely to repeat within a session will do.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        bytes = (nanos as u64).to_le_bytes();
    }
    (u64::from_le_bytes(bytes) >> 11).max(1)
}

/// Counts a session's resuming streams for as long as one lives.
struct Resuming {
    session: Arc<HttpSession>,
}

impl Drop for Resuming {
    fn drop(&mut self) {
        let _previous = self.session.resuming.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A GET with `Last-Event-ID: STREAM-CURSOR`: the events of the session's POST stream
/// `stream` after `cursor`, then its events as they come until its response. It ends with
/// the response, with the session, or after the session's idle timeout without an event.
pub(crate) async fn resume(
    session: Arc<HttpSession>,
    stream: StreamId,
    cursor: u64,
    keep_alive: Duration,
) -> HttpResponse {
    if session.resuming.fetch_add(1, Ordering::AcqRel) >= MAX_RESUMING {
        let _previous = session.resuming.fetch_sub(1, Ordering::AcqRel);
        return reply::error(
            StatusCode::CONFLICT,
            None,
            ErrorCode::INVALID_REQUEST,
            "this session has too many resumed event streams open",
        );
    }
    let resuming = Resuming { session };
    let session = &resuming.session;
    // Subscribed first: an event appended from now on wakes the stream.
    let updates = session.posted.subscribe();
    let replay = match session.store.after(&session.id, stream, cursor).await {
        Ok(replay) => replay,
        Err(error) => {
            tracing::error!(%error, "a POST stream's event log could not be read");
            return reply::busy(1, "the session store is unavailable: retry later");
        }
    };
    if replay.lost > 0 {
        tracing::warn!(
            lost = replay.lost,
            "a resuming client missed events no longer kept"
        );
    }
    let follower = LogFollower::new(
        Arc::clone(session),
        stream,
        cursor,
        replay.events.into_iter().collect(),
        updates,
        keep_alive,
    );
    let state = Resumed {
        _resuming: resuming,
        follower,
        last_event: Instant::now(),
        ended: false,
    };
    sse::response(stream::unfold(state, |mut state| async move {
        let next = state.next().await?;
        Some((next, state))
    }))
}

struct Resumed {
    /// Held for the stream's life (it counts the session's resuming streams).
    _resuming: Resuming,
    follower: LogFollower,
    last_event: Instant,
    ended: bool,
}

impl Resumed {
    async fn next(&mut self) -> Option<Bytes> {
        if self.ended {
            return None;
        }
        match self.follower.next().await {
            Followed::Event(event) => {
                self.last_event = Instant::now();
                self.ended = is_response(&event);
                Some(event)
            }
            Followed::KeepAlive => {
                let session = self.follower.session();
                if self.last_event.elapsed() >= session.idle_timeout() {
                    return None;
                }
                session.touch();
                session.refresh_shared();
                Some(Bytes::from_static(KEEP_ALIVE))
            }
            Followed::Closed => None,
        }
    }
}
