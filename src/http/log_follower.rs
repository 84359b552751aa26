//! Following one event log of a session: the GET stream's (`GET_STREAM`) or a POST answer's.
//!
//! Both streams wait the same way: for the session to close, for an event appended on this
//! instance, for a poll of a shared store (events other instances appended), or for the
//! keep-alive tick; after a wake they read the log past their cursor. What ends a stream
//! (its response, an idle timeout) and what a keep-alive does is the caller's.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::watch;
use tokio::time::{Instant, Interval, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use super::session_store::StreamId;
use super::sessions::HttpSession;

/// How often a stream on a shared store looks for events other instances appended.
const SHARED_POLL: Duration = Duration::from_millis(200);

/// What [`LogFollower::next`] woke up for.
pub(super) enum Followed {
    /// The next event of the log.
    Event(Bytes),
    /// A keep-alive interval passed without an event.
    KeepAlive,
    /// The session closed (or its notifier is gone): the stream ends.
    Closed,
}

/// One event log of a session, read from a cursor on as events are appended.
pub(super) struct LogFollower {
    session: Arc<HttpSession>,
    stream: StreamId,
    cursor: u64,
    pending: VecDeque<(u64, Bytes)>,
    updates: watch::Receiver<u64>,
    closed: CancellationToken,
    ticker: Interval,
    /// Looks for events other instances appended (a shared store only).
    poll: Option<Interval>,
}

impl LogFollower {
    /// Follows `stream` of `session` after `cursor`, `pending` (already read) first; `updates`
    /// must be subscribed before `pending` was read, so that no append is missed. The first
    /// keep-alive comes one `keep_alive` from now.
    pub(super) fn new(
        session: Arc<HttpSession>,
        stream: StreamId,
        cursor: u64,
        pending: VecDeque<(u64, Bytes)>,
        updates: watch::Receiver<u64>,
        keep_alive: Duration,
    ) -> Self {
        let now = Instant::now();
        let mut ticker = tokio::time::interval_at(now + keep_alive, keep_alive);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let poll = session.store.is_shared().then(|| {
            let mut poll = tokio::time::interval_at(now + SHARED_POLL, SHARED_POLL);
            poll.set_missed_tick_behavior(MissedTickBehavior::Delay);
            poll
        });
        Self {
            closed: session.closed.clone(),
            session,
            stream,
            cursor,
            pending,
            updates,
            ticker,
            poll,
        }
    }

    /// The session whose log this is.
    pub(super) fn session(&self) -> &Arc<HttpSession> {
        &self.session
    }

    /// Waits for the next event, keep-alive or close.
    pub(super) async fn next(&mut self) -> Followed {
        loop {
            if let Some((number, event)) = self.pending.pop_front() {
                self.cursor = number;
                return Followed::Event(event);
            }
            let poll = async {
                match self.poll.as_mut() {
                    Some(poll) => {
                        let _instant = poll.tick().await;
                    }
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                () = self.closed.cancelled() => return Followed::Closed,
                changed = self.updates.changed() => {
                    if changed.is_err() {
                        return Followed::Closed;
                    }
                }
                () = poll => {}
                _ = self.ticker.tick() => return Followed::KeepAlive,
            }
            let session = &self.session;
            match session
                .store
                .after(&session.id, self.stream, self.cursor)
                .await
            {
                Ok(replay) => {
                    if replay.lost > 0 {
                        tracing::warn!(lost = replay.lost, "a slow event stream missed events");
                    }
                    self.pending.extend(replay.events);
                }
                Err(error) => {
                    tracing::warn!(%error, "a session's event log could not be read: trying again");
                }
            }
        }
    }
}
