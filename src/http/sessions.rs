//! The sessions of the 2025 protocol versions: unguessable ids, idle expiry, a bound on
//! their number, and each session's connection, requests in flight and event log.

use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::fast_map::FastMap;
use crate::framing::message_channel;
use crate::mcp::Connection;
use crate::server::{InFlight, Peer, SharedBatchPolicy, Ticket};

use super::sse::{outbound_json, EventLog};

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
    /// The server-to-client stream's events, kept for resumption.
    pub(crate) log: Arc<EventLog>,
    /// Sends to the server-to-client stream.
    pub(crate) standalone: Peer,
    /// Fires when the session ends (DELETE, expiry): cancels its requests and streams.
    pub(crate) closed: CancellationToken,
    /// Whether a GET stream is open (one at a time).
    pub(crate) stream_open: AtomicBool,
    last_seen: Mutex<Instant>,
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

    fn idle_for(&self, now: Instant) -> Duration {
        now.saturating_duration_since(
            *self
                .last_seen
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
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

/// Every open session.
#[derive(Debug)]
pub(crate) struct SessionStore {
    /// Keyed with `foldhash` ([`FastMap`]): the ids are the server's own random ones, so a
    /// client cannot place colliding keys, and a lookup hashes about 40 bytes per request.
    sessions: Mutex<FastMap<Box<str>, Arc<HttpSession>>>,
    max: usize,
    idle: Duration,
    replay: usize,
}

impl SessionStore {
    pub(crate) fn new(max: usize, idle: Duration, replay: usize) -> Self {
        Self {
            sessions: Mutex::new(FastMap::default()),
            max,
            idle,
            replay,
        }
    }

    /// Opens a session for a connection whose `initialize` succeeded.
    pub(crate) fn open(
        &self,
        connection: Arc<Connection>,
        batches: SharedBatchPolicy,
        version: &'static str,
    ) -> Result<Arc<HttpSession>, OpenError> {
        let id = new_session_id().ok_or(OpenError::NoRandomness)?;
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        if sessions.len() >= self.max {
            let now = Instant::now();
            sessions.retain(|_, session| {
                let keep = session.idle_for(now) < self.idle;
                if !keep {
                    tracing::debug!("session expired");
                }
                keep
            });
            if sessions.len() >= self.max {
                return Err(OpenError::Full);
            }
        }
        let log = Arc::new(EventLog::new(self.replay));
        let (writer, mut receiver) = message_channel(STANDALONE_QUEUE);
        let pump_log = Arc::clone(&log);
        let pump = tokio::spawn(async move {
            while let Some(outbound) = receiver.recv().await {
                let _id = pump_log.push(&outbound_json(&outbound));
            }
        });
        let session = Arc::new(HttpSession {
            id: id.into(),
            version,
            connection,
            batches,
            in_flight: InFlight::default(),
            log,
            standalone: Peer::new(writer),
            closed: CancellationToken::new(),
            stream_open: AtomicBool::new(false),
            last_seen: Mutex::new(Instant::now()),
            pump,
        });
        let previous = sessions.insert(session.id.clone(), Arc::clone(&session));
        debug_assert!(previous.is_none(), "256 random bits collided");
        Ok(session)
    }

    /// The live session of this id (an expired one is removed and not returned).
    pub(crate) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let session = sessions.get(id)?;
        if session.idle_for(Instant::now()) >= self.idle {
            tracing::debug!("session expired");
            let _expired = sessions.remove(id);
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
