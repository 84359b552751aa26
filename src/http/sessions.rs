//! The sessions of the 2025 protocol versions in this process: unguessable ids, idle expiry,
//! a bound on their number, and each session's connection and requests in flight. Its record
//! and event log are in the [`SessionStore`].

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::fast_map::FastMap;
use crate::framing::message_channel;
use crate::mcp::Connection;
use crate::server::{InFlight, Peer, SharedBatchPolicy, Ticket};

use super::exchange::{self, Answer, Delivery};
use super::restore::{subscription_change, succeeded, track_subscription};
use super::session_store::{SessionRecord, SessionStore, GET_STREAM};
use super::sse::outbound_json;

/// Server-to-client messages outside any request that may wait to enter the event log.
const STANDALONE_QUEUE: usize = 64;

/// One session: what `initialize` opened.
pub(crate) struct HttpSession {
    /// The `Mcp-Session-Id`.
    pub(crate) id: Box<str>,
    /// The protocol version negotiated by `initialize`.
    pub(crate) version: &'static str,
    /// The MCP connection: its era state, tools, resources, prompts.
    pub(crate) connection: Arc<Connection>,
    /// Whether batches are processed (2025-03-26 only), as the connection set it.
    pub(crate) batches: SharedBatchPolicy,
    /// Requests in flight, by id (duplicates refused, cancellation by the client).
    pub(crate) in_flight: InFlight,
    /// Where its record and event log are kept.
    pub(crate) store: Arc<dyn SessionStore>,
    /// The id of the newest event this process appended (wakes the open GET stream).
    pub(crate) appended: tokio::sync::watch::Sender<u64>,
    /// Counts the events this process appended to the session's POST streams (wakes the
    /// GET streams resuming one).
    pub(crate) posted: tokio::sync::watch::Sender<u64>,
    /// What another instance needs to rebuild it (kept up to date with subscriptions).
    pub(crate) record: Mutex<SessionRecord>,
    /// Sends to the server-to-client stream.
    pub(crate) standalone: Peer,
    /// Fires when the session ends (DELETE, expiry): cancels its requests and streams.
    pub(crate) closed: CancellationToken,
    /// Whether a GET stream is open (one at a time).
    pub(crate) stream_open: AtomicBool,
    /// How many GET streams resuming a POST's stream are open in this process.
    pub(crate) resuming: AtomicUsize,
    last_seen: Mutex<Instant>,
    /// The idle timeout.
    idle: Duration,
    /// When its expiry in a shared store was last started again.
    refreshed: Mutex<Instant>,
    pump: JoinHandle<()>,
}

impl std::fmt::Debug for HttpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSession")
            .field("version", &self.version)
            .field("in_flight", &self.in_flight.len())
            .finish_non_exhaustive()
    }
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        self.closed.cancel();
        self.pump.abort();
    }
}

impl HttpSession {
    /// Marks the session as used now.
    pub(crate) fn touch(&self) {
        *self
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    /// How long the session may stay unused before it expires.
    pub(crate) fn idle_timeout(&self) -> Duration {
        self.idle
    }

    fn idle_for(&self, now: Instant) -> Duration {
        now.saturating_duration_since(
            *self
                .last_seen
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// In a shared store, starts the session's expiry again when a quarter of the idle
    /// timeout passed since the last time (in the background).
    pub(crate) fn refresh_shared(&self) {
        if !self.store.is_shared() {
            return;
        }
        {
            let mut refreshed = self
                .refreshed
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let now = Instant::now();
            if now.saturating_duration_since(*refreshed) < self.idle / 4 {
                return;
            }
            *refreshed = now;
        }
        let store = Arc::clone(&self.store);
        let id = self.id.clone();
        drop(tokio::spawn(async move {
            if let Err(error) = store.load(&id).await {
                tracing::warn!(%error, "the session's expiry could not be renewed");
            }
        }));
    }

    /// Stores the session's record again after `change`. In a shared store the change is
    /// made to the stored record, which another instance may have changed meanwhile.
    pub(crate) async fn update_record(&self, change: impl FnOnce(&mut SessionRecord)) {
        let stored = if self.store.is_shared() {
            self.store.load(&self.id).await.ok().flatten()
        } else {
            None
        };
        let record = {
            let mut record = self.record.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(stored) = stored {
                *record = stored;
            }
            change(&mut record);
            record.clone()
        };
        if let Err(error) = self.store.save(&self.id, &record).await {
            tracing::warn!(%error, "the session's record could not be stored");
        }
    }

    /// A copy of its record as this process knows it.
    pub(crate) fn record(&self) -> SessionRecord {
        self.record
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces its record as this process knows it.
    pub(crate) fn set_record(&self, record: SessionRecord) {
        *self.record.lock().unwrap_or_else(PoisonError::into_inner) = record;
    }

    /// Registers a request of this session.
    pub(crate) fn register(&self, id: &crate::jsonrpc::Id<'_>) -> Option<Ticket> {
        self.in_flight.register(id, &self.closed).ok()
    }
}

/// A request registered in its session's in-flight table; removed from it when settled or
/// dropped.
pub(crate) struct SessionTicket {
    session: Arc<HttpSession>,
    ticket: Ticket,
    settled: bool,
}

impl SessionTicket {
    pub(crate) fn new(session: Arc<HttpSession>, ticket: Ticket) -> Self {
        Self {
            session,
            ticket,
            settled: false,
        }
    }

    /// Removes the request from the table as answered; `false` if the client cancelled it
    /// first (then it must not be answered).
    pub(crate) fn settle(&mut self) -> bool {
        self.settled = true;
        self.session.in_flight.finish(&self.ticket)
    }
}

impl Drop for SessionTicket {
    fn drop(&mut self) {
        if !self.settled {
            let _was_in_flight = self.session.in_flight.finish(&self.ticket);
        }
    }
}

/// Why a session could not be opened.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum OpenError {
    /// `http.maxSessions` sessions are open and none has expired.
    Full,
    /// The operating system gave no randomness for the id.
    NoRandomness,
}

/// Every session open in this process.
#[derive(Debug)]
pub(crate) struct SessionTable {
    /// Keyed with `foldhash` ([`FastMap`]): the ids are the server's own random ones, so a
    /// client cannot place colliding keys, and a lookup hashes about 40 bytes per request.
    sessions: Mutex<FastMap<Box<str>, Arc<HttpSession>>>,
    max: usize,
    idle: Duration,
    store: Arc<dyn SessionStore>,
}

/// What a session is opened with.
pub(crate) struct NewSession {
    pub(crate) connection: Arc<Connection>,
    pub(crate) batches: SharedBatchPolicy,
    pub(crate) version: &'static str,
    pub(crate) record: SessionRecord,
}

impl SessionTable {
    pub(crate) fn new(max: usize, idle: Duration, store: Arc<dyn SessionStore>) -> Self {
        Self {
            sessions: Mutex::new(FastMap::default()),
            max,
            idle,
            store,
        }
    }

    /// The store of the sessions' records and event logs.
    pub(crate) fn store(&self) -> &Arc<dyn SessionStore> {
        &self.store
    }

    /// Opens a session for a connection whose `initialize` succeeded, under a new id.
    pub(crate) fn open(&self, new: NewSession) -> Result<Arc<HttpSession>, OpenError> {
        let id = new_session_id().ok_or(OpenError::NoRandomness)?;
        self.insert(self.build(&id, new))
    }

    /// A session of id `id`, not yet in the table (for [`insert`](Self::insert)).
    pub(crate) fn build(&self, id: &str, new: NewSession) -> Arc<HttpSession> {
        let id: Box<str> = id.into();
        let (appended, _) = tokio::sync::watch::channel(0);
        let (writer, mut receiver) = message_channel(STANDALONE_QUEUE);
        let pump_store = Arc::clone(&self.store);
        let pump_id = id.clone();
        let pump_appended = appended.clone();
        let pump = tokio::spawn(async move {
            while let Some(outbound) = receiver.recv().await {
                let json = outbound_json(&outbound);
                match pump_store.append(&pump_id, GET_STREAM, &json).await {
                    Ok(event) => {
                        let _previous = pump_appended.send_replace(event);
                    }
                    Err(error) => {
                        tracing::error!(
                            %error,
                            "a server-to-client message was lost: the session store failed"
                        );
                    }
                }
            }
        });
        let now = Instant::now();
        Arc::new(HttpSession {
            id,
            version: new.version,
            connection: new.connection,
            batches: new.batches,
            in_flight: InFlight::default(),
            store: Arc::clone(&self.store),
            appended,
            posted: tokio::sync::watch::channel(0).0,
            record: Mutex::new(new.record),
            standalone: Peer::new(writer),
            closed: CancellationToken::new(),
            stream_open: AtomicBool::new(false),
            resuming: AtomicUsize::new(0),
            last_seen: Mutex::new(now),
            idle: self.idle,
            refreshed: Mutex::new(now),
            pump,
        })
    }

    /// Puts `session` in the table; the session already there under its id, if any (then
    /// `session` is dropped).
    pub(crate) fn insert(&self, session: Arc<HttpSession>) -> Result<Arc<HttpSession>, OpenError> {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(open) = sessions.get(&session.id) {
            return Ok(Arc::clone(open));
        }
        if sessions.len() >= self.max {
            let now = Instant::now();
            sessions.retain(|id, session| {
                let keep = session.idle_for(now) < self.idle;
                if !keep {
                    tracing::debug!("session expired");
                    self.store.forget(id);
                }
                keep
            });
            if sessions.len() >= self.max {
                return Err(OpenError::Full);
            }
        }
        let _previous = sessions.insert(session.id.clone(), Arc::clone(&session));
        Ok(session)
    }

    /// The live session of this id (an expired one is removed and not returned).
    pub(crate) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let session = sessions.get(id)?;
        if session.idle_for(Instant::now()) >= self.idle {
            tracing::debug!("session expired");
            let _expired = sessions.remove(id);
            self.store.forget(id);
            return None;
        }
        let session = Arc::clone(session);
        session.touch();
        Some(session)
    }

    /// Ends a session; `false` if there was none of this id.
    pub(crate) fn close(&self, id: &str) -> bool {
        let removed = self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        match removed {
            Some(session) => {
                session.closed.cancel();
                true
            }
            None => false,
        }
    }

    /// How many sessions are open (expired ones not yet swept included).
    pub(crate) fn len(&self) -> usize {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// Runs a request of a session: registered in flight (duplicate ids refused, cancellable by
/// `notifications/cancelled`), answered unless cancelled.
pub(crate) async fn session_request(
    session: &Arc<HttpSession>,
    request: crate::jsonrpc::Request<'static>,
    delivery: Delivery,
    auth: crate::server::SharedAuth,
) -> Answer {
    let Some(ticket) = session.register(&request.id) else {
        let error = crate::jsonrpc::ErrorObject::new(
            crate::jsonrpc::ErrorCode::INVALID_REQUEST,
            "a request with this id is already in flight",
        );
        return Answer::Json(crate::jsonrpc::Response::error(Some(request.id), error));
    };
    let token = ticket.token.clone();
    let ticket = SessionTicket::new(Arc::clone(session), ticket);
    let change = subscription_change(&request);
    // An answer that may be an event stream is a resumable one, which the handler may end
    // early (`close_event_stream`).
    let closer = (delivery != Delivery::JsonOnly).then(CancellationToken::new);
    let answer = exchange::run(
        Arc::clone(&session.connection),
        request,
        token,
        delivery,
        Some(ticket),
        auth,
        closer,
    )
    .await;
    if change.is_some() {
        track_subscription(session, change, succeeded(&answer)).await;
    }
    answer
}

/// 256 bits of OS randomness as 64 hex digits (visible ASCII, as the spec requires);
/// `None` if the OS has no randomness to give.
fn new_session_id() -> Option<String> {
    let mut bytes = [0_u8; 32];
    if let Err(error) = getrandom::fill(&mut bytes) {
        tracing::error!(%error, "the operating system's random number generator failed");
        return None;
    }
    let mut id = String::with_capacity(64);
    for byte in bytes {
        let _infallible = write!(id, "{byte:02x}");
    }
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_long_random_and_distinct() {
        let ids: std::collections::HashSet<String> =
            (0..1000).map(|_| new_session_id().unwrap()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids
            .iter()
            .all(|id| id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit())));
    }
}
