//! The table of requests read and not yet answered, and the loop's event counters.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio_util::sync::CancellationToken;

use crate::fast_map::FastMap;
use crate::jsonrpc::Id;

use super::{ShutdownReason, ShutdownReport};

/// Requests read and not yet answered (queued or running), by id text.
///
/// Whether a request gets a response is decided in one place, [`InFlight::finish`], under
/// the same lock that [`InFlight::cancel`] takes: a request is either finished first (its
/// response goes out) or cancelled first (nothing goes out), never both.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    entries: Mutex<FastMap<IdKey, Entry>>,
    next_seq: AtomicU64,
    /// Set by [`InFlight::cancel_all`] (under the entries' lock, and read under it): a
    /// request registered after it gets a token already fired.
    closed: AtomicBool,
}

/// An id's JSON text, as the table's key: inline up to [`IdKey::INLINE`] bytes (every
/// integer id and most string ids), so that registering a request copies it without an
/// allocation (one made by the reading loop and freed by the worker that answers); longer
/// ids on the heap. Looked up by the text's bytes.
#[derive(Debug, Clone)]
enum IdKey {
    Inline { len: u8, bytes: [u8; IdKey::INLINE] },
    Heap(Box<[u8]>),
}

impl IdKey {
    const INLINE: usize = 30;

    fn new(text: &str) -> Self {
        let mut bytes = [0; Self::INLINE];
        match (bytes.get_mut(..text.len()), u8::try_from(text.len())) {
            (Some(room), Ok(len)) => {
                room.copy_from_slice(text.as_bytes());
                Self::Inline { len, bytes }
            }
            _ => Self::Heap(text.as_bytes().into()),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or_default(),
            Self::Heap(bytes) => bytes,
        }
    }
}

// Hashed and compared as its bytes, as `Borrow<[u8]>` requires.
impl std::hash::Hash for IdKey {
    fn hash<S: std::hash::Hasher>(&self, state: &mut S) {
        self.as_bytes().hash(state);
    }
}

impl PartialEq for IdKey {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for IdKey {}

impl std::borrow::Borrow<[u8]> for IdKey {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

#[derive(Debug)]
struct Entry {
    /// Tells this request from a later one reusing its id after it was cancelled.
    seq: u64,
    token: CancellationToken,
}

/// One registered request: its id, its registration number and its cancellation token.
#[derive(Clone, Debug)]
pub(crate) struct Ticket {
    pub(crate) id: Id<'static>,
    seq: u64,
    pub(crate) token: CancellationToken,
}

/// A request with this id is already in flight.
#[derive(Debug)]
pub(crate) struct DuplicateId;

impl InFlight {
    fn lock(&self) -> MutexGuard<'_, FastMap<IdKey, Entry>> {
        // The map stays consistent even if a holder panicked: every update is one call.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a request; its token is a child of `parent` (cancelled at the end of the
    /// shutdown grace period). Used by HTTP sessions.
    #[cfg(any(test, feature = "http"))]
    pub(crate) fn register(
        &self,
        id: &Id<'_>,
        parent: &CancellationToken,
    ) -> Result<Ticket, DuplicateId> {
        self.insert(id, || parent.child_token())
    }

    /// Registers a request with a token of its own (no parent): fired by the client's
    /// cancel ([`InFlight::cancel`]) or by [`InFlight::cancel_all`], which reaches every
    /// request in the table, so no parent token (an allocation in its list of children and a
    /// lock on it at each end) is needed.
    pub(crate) fn register_own(&self, id: &Id<'_>) -> Result<Ticket, DuplicateId> {
        self.insert(id, CancellationToken::new)
    }

    /// Enters `id` with the token `token` makes (only once the id is known to be new),
    /// fired at once if [`InFlight::cancel_all`] has run.
    fn insert(
        &self,
        id: &Id<'_>,
        token: impl FnOnce() -> CancellationToken,
    ) -> Result<Ticket, DuplicateId> {
        let mut entries = self.lock();
        // One lookup: the key is needed to insert it anyway.
        let std::collections::hash_map::Entry::Vacant(vacant) =
            entries.entry(IdKey::new(id.as_json()))
        else {
            return Err(DuplicateId);
        };
        let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
        let token = token();
        if self.closed.load(Ordering::Relaxed) {
            token.cancel();
        }
        let _entry = vacant.insert(Entry {
            seq,
            token: token.clone(),
        });
        Ok(Ticket {
            id: id.clone().into_owned(),
            seq,
            token,
        })
    }

    /// Fires the token of every request in the table, and of every request registered
    /// from now on. The requests stay in the table: each
    /// is still answered (or not) through [`InFlight::finish`].
    pub(crate) fn cancel_all(&self) {
        let entries = self.lock();
        self.closed.store(true, Ordering::Relaxed);
        for entry in entries.values() {
            entry.token.cancel();
        }
    }

    /// Cancels an in-flight request at the client's wish: it is removed (so it will get no
    /// response) and its token fires. Returns whether the id was in flight.
    pub(crate) fn cancel(&self, id: &Id<'_>) -> bool {
        let removed = self.lock().remove(id.as_json().as_bytes());
        match removed {
            Some(entry) => {
                entry.token.cancel();
                true
            }
            None => false,
        }
    }

    /// Removes a request that is about to be answered. Returns `false` if the client
    /// cancelled it before: then it must not be answered.
    #[must_use]
    pub(crate) fn finish(&self, ticket: &Ticket) -> bool {
        let mut entries = self.lock();
        // One lookup on the common path (the entry is this request's); a later request
        // reusing the id after a cancel is put back.
        match entries.remove_entry(ticket.id.as_json().as_bytes()) {
            Some((_, entry)) if entry.seq == ticket.seq => true,
            Some((key, entry)) => {
                let _previous = entries.insert(key, entry);
                false
            }
            None => false,
        }
    }

    /// How many requests are in flight.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

/// Counts of the loop's events, for the [`ShutdownReport`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) requests_answered: AtomicU64,
    pub(crate) cancelled_by_client: AtomicU64,
    pub(crate) cancelled_at_shutdown: AtomicU64,
    pub(crate) handler_panics: AtomicU64,
    pub(crate) duplicate_ids: AtomicU64,
    pub(crate) invalid_messages: AtomicU64,
    pub(crate) oversize_lines: AtomicU64,
    pub(crate) notifications: AtomicU64,
    pub(crate) ignored_cancellations: AtomicU64,
    pub(crate) responses_received: AtomicU64,
    pub(crate) unanswered_at_output_failure: AtomicU64,
}

/// Adds one to a counter.
pub(crate) fn bump(counter: &AtomicU64) {
    let _previous = counter.fetch_add(1, Ordering::Relaxed);
}

impl Counters {
    pub(crate) fn report(&self, reason: ShutdownReason) -> ShutdownReport {
        let get = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        ShutdownReport {
            reason,
            requests_answered: get(&self.requests_answered),
            cancelled_by_client: get(&self.cancelled_by_client),
            cancelled_at_shutdown: get(&self.cancelled_at_shutdown),
            handler_panics: get(&self.handler_panics),
            duplicate_ids: get(&self.duplicate_ids),
            invalid_messages: get(&self.invalid_messages),
            oversize_lines: get(&self.oversize_lines),
            notifications: get(&self.notifications),
            ignored_cancellations: get(&self.ignored_cancellations),
            responses_received: get(&self.responses_received),
            unanswered_at_output_failure: get(&self.unanswered_at_output_failure),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids on both sides of the inline bound, and ids whose texts share a prefix.
    fn ids() -> Vec<Id<'static>> {
        let mut ids = vec![Id::from_u64(0), Id::from_u64(u64::MAX)];
        for len in [0, 1, 27, 28, 29, 30, 31, 60] {
            ids.push(Id::from_string(&"x".repeat(len)));
        }
        ids
    }

    #[test]
    fn ids_short_and_long_are_registered_cancelled_and_finished_by_their_text() {
        let table = InFlight::default();
        let parent = CancellationToken::new();
        let tickets: Vec<Ticket> = ids()
            .iter()
            .map(|id| table.register(id, &parent).expect("a new id"))
            .collect();
        assert_eq!(table.len(), tickets.len());
        for id in ids() {
            assert!(table.register(&id, &parent).is_err(), "{id} is in flight");
        }
        let (cancelled, finished) = tickets.split_at(tickets.len() / 2);
        for ticket in cancelled {
            assert!(table.cancel(&ticket.id));
            assert!(ticket.token.is_cancelled());
            assert!(!table.finish(ticket), "a cancelled request is not answered");
        }
        for ticket in finished {
            assert!(!ticket.token.is_cancelled());
            assert!(table.finish(ticket), "{} is answered", ticket.id);
            assert!(!table.cancel(&ticket.id), "nothing left to cancel");
        }
        assert_eq!(table.len(), 0);
    }

    #[test]
    fn cancel_all_fires_every_request_in_the_table_and_every_later_one() {
        let table = InFlight::default();
        let tickets: Vec<Ticket> = ids()
            .iter()
            .map(|id| table.register_own(id).expect("a new id"))
            .collect();
        let answered = &tickets[0];
        assert!(table.finish(answered));
        assert!(tickets.iter().all(|ticket| !ticket.token.is_cancelled()));
        table.cancel_all();
        assert!(
            !answered.token.is_cancelled(),
            "an answered request is left alone"
        );
        for ticket in &tickets[1..] {
            assert!(ticket.token.is_cancelled(), "{} fired", ticket.id);
            assert!(table.finish(ticket), "{} is still answered", ticket.id);
        }
        let later = table.register_own(&Id::from_u64(7)).unwrap();
        assert!(
            later.token.is_cancelled(),
            "registered after: fired at once"
        );
    }

    #[test]
    fn an_id_reused_after_a_cancel_keeps_its_new_request() {
        let table = InFlight::default();
        let parent = CancellationToken::new();
        for id in ids() {
            let first = table.register(&id, &parent).unwrap();
            assert!(table.cancel(&id));
            let second = table.register(&id, &parent).unwrap();
            assert!(!table.finish(&first), "the cancelled one is not answered");
            assert!(table.finish(&second), "the new one still is");
        }
        assert_eq!(table.len(), 0);
    }
}
