//! Where the 2025 sessions' shared state and server-to-client event logs live: in this
//! process ([`MemorySessionStore`], the default), or on a Redis server that every instance of
//! a cluster reads (`http.sessionStore: redis`, `RedisSessionStore` with the feature
//! `redis`), so that any instance serves any session and a client resumes its event stream
//! anywhere.
//!
//! What a store holds of a session is its [`SessionRecord`] (what another instance needs to
//! rebuild the session: the `initialize` request and the resource subscriptions) and the
//! event logs of its streams: stream 0, the server-to-client GET stream, and one log per
//! POST answered as an event stream (a [`StreamId`] drawn at random), so that a client cut
//! off mid-answer resumes it. Each log's events are numbered from 1 without gaps, the last
//! `http.sseReplayEvents` of them kept for `Last-Event-ID`. What a store never holds: the
//! requests in flight (a request runs, and is cancelled, on the instance that received it),
//! which instance has the session's GET stream open, and the client's `logging/setLevel`.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};

use bytes::Bytes;

use crate::fast_map::FastMap;

use super::sse::stream_event;

/// Which event stream of a session a log belongs to: [`GET_STREAM`] (0) for the
/// server-to-client GET stream, another value for the event stream answering one POST.
pub type StreamId = u64;

/// The [`StreamId`] of a session's server-to-client GET stream.
pub const GET_STREAM: StreamId = 0;

/// How many POST streams' logs a [`MemorySessionStore`] keeps per session (the oldest is
/// dropped first).
const POST_LOGS: usize = 64;

/// What a [`SessionStore`] operation returns.
pub type SessionFuture<T> = Pin<Box<dyn Future<Output = Result<T, SessionStoreError>> + Send>>;

/// Why a [`SessionStore`] operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionStoreError {
    /// The store could not be reached, timed out, or answered with an error.
    #[error("the session store is unavailable: {reason}")]
    Unavailable {
        /// What failed (never a session id or a stored value).
        reason: String,
    },
    /// A stored value is not one this server wrote.
    #[error("a stored session value is malformed")]
    Malformed,
}

/// What another instance needs to serve a session: stored as JSON.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct SessionRecord {
    /// The protocol version `initialize` negotiated.
    pub version: String,
    /// The `params` of the client's `initialize` request (JSON text): an instance that
    /// rebuilds the session answers it again, so the session's capabilities and client
    /// information are the same everywhere.
    pub initialize: String,
    /// The resource URIs the client subscribed to (`resources/subscribe`), in order.
    #[serde(default)]
    pub subscriptions: Vec<String>,
}

impl SessionRecord {
    /// A record of a session opened by `initialize` with `params` (JSON text).
    #[must_use]
    pub fn new(version: &str, initialize: &str) -> Self {
        Self {
            version: version.to_owned(),
            initialize: initialize.to_owned(),
            subscriptions: Vec::new(),
        }
    }
}

/// The events of a session's stream after a cursor.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Replay {
    /// The kept events after the cursor, oldest first: their id and their encoded
    /// `text/event-stream` form.
    pub events: Vec<(u64, Bytes)>,
    /// How many events after the cursor are no longer kept.
    pub lost: u64,
}

/// A place for the 2025 sessions' shared state and event logs. Implement it to keep them
/// elsewhere; give it with [`HttpOptions::session_store`](super::HttpOptions::session_store).
/// Event ids must grow by one per event of a session, whichever instance appends it.
pub trait SessionStore: Send + Sync + std::fmt::Debug {
    /// Whether other processes see what this store holds: then an instance rebuilds a
    /// session it does not know from its record, reads the record again on each request of
    /// a session it knows (subscriptions changed, or the session ended, on another
    /// instance), and open event streams also look for events other instances appended
    /// (every 200 ms).
    fn is_shared(&self) -> bool;

    /// Stores (or replaces) the record of session `id`.
    fn save(&self, id: &str, record: &SessionRecord) -> SessionFuture<()>;

    /// The record of session `id`, if it is stored; marks the session as used (its expiry
    /// starts again).
    fn load(&self, id: &str) -> SessionFuture<Option<SessionRecord>>;

    /// Removes session `id`: its record and the event logs of all its streams (the GET
    /// stream's and every POST stream's); `true` if there was one.
    fn remove(&self, id: &str) -> SessionFuture<bool>;

    /// Session `id` expired in this process: a store of this process alone drops it, a
    /// shared one keeps it for the other instances (it expires there by itself).
    fn forget(&self, id: &str);

    /// Appends `json` (one JSON-RPC message) to the event log of session `id`'s stream
    /// `stream`; returns its number in that log. The event's `text/event-stream` form
    /// carries the id [`event_id`]`(stream, number)`.
    fn append(&self, id: &str, stream: StreamId, json: &[u8]) -> SessionFuture<u64>;

    /// The kept events of session `id`'s stream `stream` after event number `cursor`.
    fn after(&self, id: &str, stream: StreamId, cursor: u64) -> SessionFuture<Replay>;

    /// The number of the newest event of session `id`'s stream `stream` (0: none yet).
    fn latest(&self, id: &str, stream: StreamId) -> SessionFuture<u64>;
}

/// Sessions kept in this process (the default): a session lives and dies with its instance.
#[derive(Debug)]
pub struct MemorySessionStore {
    sessions: Mutex<FastMap<Box<str>, MemorySession>>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct MemorySession {
    record: Option<SessionRecord>,
    /// The GET stream's log.
    events: Log,
    /// The POST streams' logs, oldest first.
    posts: VecDeque<(StreamId, Log)>,
}

#[derive(Debug, Default)]
struct Log {
    events: VecDeque<(u64, Bytes)>,
    latest: u64,
}

impl MemorySession {
    fn log(&self, stream: StreamId) -> Option<&Log> {
        if stream == GET_STREAM {
            return Some(&self.events);
        }
        self.posts
            .iter()
            .find_map(|(id, log)| (*id == stream).then_some(log))
    }

    fn log_mut(&mut self, stream: StreamId) -> &mut Log {
        if stream == GET_STREAM {
            return &mut self.events;
        }
        let at = match self.posts.iter().position(|(id, _)| *id == stream) {
            Some(at) => at,
            None => {
                if self.posts.len() >= POST_LOGS {
                    let _oldest = self.posts.pop_front();
                }
                self.posts.push_back((stream, Log::default()));
                self.posts.len() - 1
            }
        };
        &mut self.posts[at].1
    }
}

/// The id an event carries on the wire: its number on the GET stream (`7`), the stream and
/// the number on a POST stream (`12345-7`). A `Last-Event-ID` names the stream to resume.
#[must_use]
pub fn event_id(stream: StreamId, number: u64) -> String {
    if stream == GET_STREAM {
        number.to_string()
    } else {
        format!("{stream}-{number}")
    }
}

/// The stream and event number a `Last-Event-ID` names; `None` if it is not an id
/// [`event_id`] makes.
#[must_use]
pub fn parse_event_id(text: &str) -> Option<(StreamId, u64)> {
    let number = |digits: &str| {
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse::<u64>().ok())
            .flatten()
    };
    match text.split_once('-') {
        None => Some((GET_STREAM, number(text)?)),
        Some((stream, event)) => {
            let stream = number(stream).filter(|stream| *stream != GET_STREAM)?;
            Some((stream, number(event)?))
        }
    }
}

impl MemorySessionStore {
    /// A store keeping the last `capacity` events of each session.
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            sessions: Mutex::new(FastMap::default()),
            capacity,
        }
    }

    fn with<T>(&self, id: &str, f: impl FnOnce(&mut MemorySession) -> T) -> T {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let session = sessions.entry(id.into()).or_default();
        f(session)
    }

    fn peek<T>(&self, id: &str, f: impl FnOnce(Option<&MemorySession>) -> T) -> T {
        let sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        f(sessions.get(id))
    }
}

fn ready<T: Send + 'static>(value: T) -> SessionFuture<T> {
    Box::pin(std::future::ready(Ok(value)))
}

/// The kept events of `events` after `cursor`, and how many after it are lost, given the
/// newest id.
pub(crate) fn replay_after(
    events: impl Iterator<Item = (u64, Bytes)>,
    cursor: u64,
    latest: u64,
) -> Replay {
    let events: Vec<(u64, Bytes)> = events.filter(|(id, _)| *id > cursor).collect();
    let first = events.first().map_or(latest + 1, |(id, _)| *id);
    Replay {
        lost: first.saturating_sub(cursor + 1),
        events,
    }
}

impl SessionStore for MemorySessionStore {
    fn is_shared(&self) -> bool {
        false
    }

    fn save(&self, id: &str, record: &SessionRecord) -> SessionFuture<()> {
        self.with(id, |session| session.record = Some(record.clone()));
        ready(())
    }

    fn load(&self, id: &str) -> SessionFuture<Option<SessionRecord>> {
        ready(self.peek(id, |session| session.and_then(|s| s.record.clone())))
    }

    fn remove(&self, id: &str) -> SessionFuture<bool> {
        let removed = self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id)
            .is_some();
        ready(removed)
    }

    fn forget(&self, id: &str) {
        let _removed = self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
    }

    fn append(&self, id: &str, stream: StreamId, json: &[u8]) -> SessionFuture<u64> {
        let capacity = self.capacity;
        let number = self.with(id, |session| {
            let log = session.log_mut(stream);
            log.latest += 1;
            let number = log.latest;
            log.events
                .push_back((number, stream_event(stream, number, json)));
            while log.events.len() > capacity {
                let _dropped = log.events.pop_front();
            }
            number
        });
        ready(number)
    }

    fn after(&self, id: &str, stream: StreamId, cursor: u64) -> SessionFuture<Replay> {
        let replay = self.peek(id, |session| match session.and_then(|s| s.log(stream)) {
            Some(log) => replay_after(log.events.iter().cloned(), cursor, log.latest),
            None => Replay::default(),
        });
        ready(replay)
    }

    fn latest(&self, id: &str, stream: StreamId) -> SessionFuture<u64> {
        ready(self.peek(id, |session| {
            session
                .and_then(|s| s.log(stream))
                .map_or(0, |log| log.latest)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn events_are_numbered_and_replayed_from_a_cursor() {
        let store = MemorySessionStore::new(3);
        assert_eq!(store.latest("s", GET_STREAM).await.unwrap(), 0);
        for n in 1..=5_u64 {
            let json = format!("{{\"n\":{n}}}");
            assert_eq!(
                store
                    .append("s", GET_STREAM, json.as_bytes())
                    .await
                    .unwrap(),
                n
            );
        }
        let replay = store.after("s", GET_STREAM, 3).await.unwrap();
        let ids: Vec<u64> = replay.events.iter().map(|(id, _)| *id).collect();
        assert_eq!((ids, replay.lost), (vec![4, 5], 0));
        let replay = store.after("s", GET_STREAM, 0).await.unwrap();
        let ids: Vec<u64> = replay.events.iter().map(|(id, _)| *id).collect();
        assert_eq!((ids, replay.lost), (vec![3, 4, 5], 2));
        assert_eq!(
            &replay.events[0].1[..],
            b"id: 3\nevent: message\ndata: {\"n\":3}\n\n"
        );
        assert_eq!(
            store.after("other", GET_STREAM, 0).await.unwrap(),
            Replay::default()
        );
    }

    #[tokio::test]
    async fn each_post_stream_has_its_own_log_and_ids_naming_it() {
        let store = MemorySessionStore::new(8);
        assert_eq!(store.append("s", GET_STREAM, b"{}").await.unwrap(), 1);
        assert_eq!(store.append("s", 77, b"{\"a\":1}").await.unwrap(), 1);
        assert_eq!(store.append("s", 77, b"{\"a\":2}").await.unwrap(), 2);
        assert_eq!(store.append("s", 78, b"{}").await.unwrap(), 1);
        assert_eq!(store.latest("s", 77).await.unwrap(), 2);
        assert_eq!(store.latest("s", GET_STREAM).await.unwrap(), 1);
        let replay = store.after("s", 77, 0).await.unwrap();
        assert_eq!(
            &replay.events[1].1[..],
            b"id: 77-2\nevent: message\ndata: {\"a\":2}\n\n"
        );
        assert_eq!(store.after("s", 79, 0).await.unwrap(), Replay::default());
        // The oldest POST logs go first.
        for stream in 100..100 + POST_LOGS as u64 {
            let _number = store.append("s", stream, b"{}").await.unwrap();
        }
        assert_eq!(store.latest("s", 77).await.unwrap(), 0);
        assert_eq!(store.latest("s", GET_STREAM).await.unwrap(), 1);
    }

    #[test]
    fn event_ids_name_their_stream() {
        assert_eq!(event_id(GET_STREAM, 7), "7");
        assert_eq!(event_id(12, 0), "12-0");
        assert_eq!(parse_event_id("7"), Some((GET_STREAM, 7)));
        assert_eq!(parse_event_id("12-0"), Some((12, 0)));
        for bad in [
            "",
            "-",
            "x",
            "0-1",
            "1-",
            "-1",
            "1-2-3",
            "+1",
            "1 ",
            "99999999999999999999",
        ] {
            assert_eq!(parse_event_id(bad), None, "{bad:?}");
        }
    }

    #[tokio::test]
    async fn records_are_kept_until_removed_or_forgotten() {
        let store = MemorySessionStore::new(3);
        let record = SessionRecord::new("2025-11-25", "{}");
        store.save("a", &record).await.unwrap();
        store.save("b", &record).await.unwrap();
        assert_eq!(store.load("a").await.unwrap(), Some(record));
        assert!(store.remove("a").await.unwrap());
        assert!(!store.remove("a").await.unwrap());
        store.forget("b");
        assert_eq!(store.load("b").await.unwrap(), None);
    }
}
