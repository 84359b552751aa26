//! A session's server-to-client side: the GET event stream (with resumption) and the
//! notifications a client POSTs into its session.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response as HttpResponse;
use bytes::Bytes;
use futures_util::stream;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::jsonrpc::{ErrorCode, Id, Notification};
use crate::server::{NotificationContext, CANCELLED_NOTIFICATION};

use super::headers::{single, LAST_EVENT_ID};
use super::log_follower::{Followed, LogFollower};
use super::post_stream;
use super::reply;
use super::session_store::{parse_event_id, Replay, GET_STREAM};
use super::sessions::HttpSession;
use super::sse::{self, KEEP_ALIVE};

/// Handles a notification POSTed into a session: `notifications/cancelled` cancels the
/// request it names; others go to the MCP connection.
pub(crate) async fn session_notification(
    session: &Arc<HttpSession>,
    notification: &Notification<'_>,
) {
    if notification.method == CANCELLED_NOTIFICATION {
        #[derive(Deserialize)]
        struct Cancelled<'a> {
            #[serde(borrow, rename = "requestId")]
            request_id: &'a RawValue,
        }
        let id = notification
            .params
            .as_deref()
            .and_then(|params| serde_json::from_str::<Cancelled<'_>>(params.get()).ok())
            .and_then(|cancelled| Id::from_raw(cancelled.request_id));
        match id {
            Some(id) if session.in_flight.cancel(&id) => {
                tracing::debug!(id = %id.as_json(), "request cancelled by the client");
            }
            _ => tracing::debug!("cancellation ignored: no such request in flight"),
        }
        return;
    }
    let ctx = NotificationContext::new(session.standalone.clone());
    session
        .connection
        .deliver_notification(ctx, &notification.method, notification.params.as_deref())
        .await;
}

/// Marks the session's GET stream as open for as long as it lives.
struct OpenStream {
    session: Arc<HttpSession>,
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.session.stream_open.store(false, Ordering::Release);
    }
}

/// Opens the session's GET stream, replaying what a resuming client (`Last-Event-ID`)
/// missed. One stream at a time in a process: a message is never sent on two streams. A
/// `Last-Event-ID` of a POST's stream resumes that stream instead (only its events).
pub(crate) async fn open(
    session: Arc<HttpSession>,
    headers: &HeaderMap,
    keep_alive: Duration,
) -> HttpResponse {
    let cursor = match single(headers, &LAST_EVENT_ID) {
        Err(()) => None,
        Ok(None) => Some(None),
        Ok(Some(text)) => parse_event_id(text).map(Some),
    };
    let cursor = match cursor {
        // A POST's stream, cut off: its events are replayed and followed to its answer.
        Some(Some((stream, cursor))) if stream != GET_STREAM => {
            return post_stream::resume(session, stream, cursor, keep_alive).await;
        }
        Some(cursor) => Some(cursor.map(|(_, cursor)| cursor)),
        None => None,
    };
    let Some(cursor) = cursor else {
        return reply::error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorCode::INVALID_REQUEST,
            "the Last-Event-ID header does not name an event of this server",
        );
    };
    if session
        .stream_open
        .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        return reply::error(
            StatusCode::CONFLICT,
            None,
            ErrorCode::INVALID_REQUEST,
            "this session already has an open event stream",
        );
    }
    let open = OpenStream { session };
    let session = &open.session;
    // Subscribed first: an event appended from now on wakes the stream.
    let updates = session.appended.subscribe();
    let replay = match cursor {
        None => session
            .store
            .latest(&session.id, GET_STREAM)
            .await
            .map(|latest| Replay {
                events: Vec::new(),
                lost: latest,
            }),
        Some(cursor) => session.store.after(&session.id, GET_STREAM, cursor).await,
    };
    let (cursor, pending) = match (cursor, replay) {
        (None, Ok(replay)) => (replay.lost, VecDeque::new()),
        (Some(cursor), Ok(replay)) => {
            if replay.lost > 0 {
                tracing::warn!(
                    lost = replay.lost,
                    "a resuming client missed events no longer kept"
                );
            }
            (cursor, replay.events.into_iter().collect())
        }
        (_, Err(error)) => {
            tracing::error!(%error, "the session's event log could not be read");
            return reply::busy(1, "the session store is unavailable: retry later");
        }
    };
    let follower = LogFollower::new(
        Arc::clone(session),
        GET_STREAM,
        cursor,
        pending,
        updates,
        keep_alive,
    );
    let state = GetStream {
        _open: open,
        follower,
    };
    let events = stream::unfold(state, |mut state| async move {
        let next = state.next().await?;
        Some((next, state))
    });
    sse::response(events)
}

struct GetStream {
    /// Held for the stream's life (it marks the session's GET stream open).
    _open: OpenStream,
    follower: LogFollower,
}

impl GetStream {
    async fn next(&mut self) -> Option<Bytes> {
        match self.follower.next().await {
            Followed::Event(event) => Some(event),
            Followed::KeepAlive => {
                let session = self.follower.session();
                session.touch();
                session.refresh_shared();
                Some(Bytes::from_static(KEEP_ALIVE))
            }
            Followed::Closed => None,
        }
    }
}
