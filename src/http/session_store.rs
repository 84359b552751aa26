//! Where the 2025 sessions' shared state and server-to-client event logs live: in this
//! process ([`MemorySessionStore`], the default), or on a Redis server that every instance of
//! a cluster reads (`http.sessionStore: redis`, `RedisSessionStore` with the feature
//! `redis`), so that any instance serves any session and a client resumes its event stream
//! anywhere.
//!
//! What a store holds of a session is its [`SessionRecord`] (what another instance needs to
//! rebuild the session: the `initialize` request and the resource subscriptions) and the
//! events of its server-to-client stream, numbered from 1 without gaps, the last
//! `http.sseReplayEvents` of them kept for `Last-Event-ID`. What a store never holds: the
//! requests in flight (a request runs, and is cancelled, on the instance that received it),
//! which instance has the session's GET stream open, and the client's `logging/setLevel`.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};

use bytes::Bytes;

use crate::fast_map::FastMap;

use super::sse::event;

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

    /// Removes session `id` (record and events); `true` if there was one.
    fn remove(&self, id: &str) -> SessionFuture<bool>;

    /// Session `id` expired in this process: a store of this process alone drops it, a
    /// shared one keeps it for the other instances (it expires there by itself).
    fn forget(&self, id: &str);

    /// Appends `json` (one JSON-RPC message) to session `id`'s event log; returns its id.
    fn append(&self, id: &str, json: &[u8]) -> SessionFuture<u64>;

    /// The kept events of session `id` after event `cursor`.
    fn after(&self, id: &str, cursor: u64) -> SessionFuture<Replay>;

    /// The id of session `id`'s newest event (0: none yet).
    fn latest(&self, id: &str) -> SessionFuture<u64>;
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
    events: VecDeque<(u64, Bytes)>,
    latest: u64,
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

    fn append(&self, id: &str, json: &[u8]) -> SessionFuture<u64> {
        let capacity = self.capacity;
        let id = self.with(id, |session| {
            session.latest += 1;
            let id = session.latest;
            session.events.push_back((id, event(Some(id), json)));
            while session.events.len() > capacity {
                let _dropped = session.events.pop_front();
            }
            id
        });
        ready(id)
    }

    fn after(&self, id: &str, cursor: u64) -> SessionFuture<Replay> {
        let replay = self.peek(id, |session| match session {
            Some(session) => replay_after(session.events.iter().cloned(), cursor, session.latest),
            None => Replay::default(),
        });
        ready(replay)
    }

    fn latest(&self, id: &str) -> SessionFuture<u64> {
        ready(self.peek(id, |session| session.map_or(0, |s| s.latest)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn events_are_numbered_and_replayed_from_a_cursor() {
        let store = MemorySessionStore::new(3);
        assert_eq!(store.latest("s").await.unwrap(), 0);
        for n in 1..=5_u64 {
            let json = format!("{{\"n\":{n}}}");
            assert_eq!(store.append("s", json.as_bytes()).await.unwrap(), n);
        }
        let replay = store.after("s", 3).await.unwrap();
        let ids: Vec<u64> = replay.events.iter().map(|(id, _)| *id).collect();
        assert_eq!((ids, replay.lost), (vec![4, 5], 0));
        let replay = store.after("s", 0).await.unwrap();
        let ids: Vec<u64> = replay.events.iter().map(|(id, _)| *id).collect();
        assert_eq!((ids, replay.lost), (vec![3, 4, 5], 2));
        assert_eq!(
            &replay.events[0].1[..],
            b"id: 3\nevent: message\ndata: {\"n\":3}\n\n"
        );
        assert_eq!(store.after("other", 0).await.unwrap(), Replay::default());
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
