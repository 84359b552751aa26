//! The table of requests read and not yet answered, and the loop's event counters.

use std::sync::atomic::{AtomicU64, Ordering};
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
    entries: Mutex<FastMap<Box<str>, Entry>>,
    next_seq: AtomicU64,
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
    fn lock(&self) -> MutexGuard<'_, FastMap<Box<str>, Entry>> {
        // The map stays consistent even if a holder panicked: every update is one call.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a request; its token is a child of `parent` (cancelled at the end of the
    /// shutdown grace period).
    pub(crate) fn register(
        &self,
        id: &Id<'_>,
        parent: &CancellationToken,
    ) -> Result<Ticket, DuplicateId> {
        let mut entries = self.lock();
        // One lookup: the key is needed to insert it anyway.
        let std::collections::hash_map::Entry::Vacant(vacant) = entries.entry(id.as_json().into())
        else {
            return Err(DuplicateId);
        };
        let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
        let token = parent.child_token();
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

    /// Cancels an in-flight request at the client's wish: it is removed (so it will get no
    /// response) and its token fires. Returns whether the id was in flight.
    pub(crate) fn cancel(&self, id: &Id<'_>) -> bool {
        let removed = self.lock().remove(id.as_json());
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
        match entries.remove_entry(ticket.id.as_json()) {
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
