//! Single-flight: concurrent misses on one key share one computation.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::Value;
use tokio::sync::watch;

use super::key::CacheKey;

/// An error of a computation, shared with the callers that waited for it. Type-erased
/// because one cache serves computations of any error type; waiters get it back by
/// downcasting to their own error type.
pub(crate) type SharedError = Arc<dyn Any + Send + Sync>;

/// The state of one computation, as its waiters see it.
#[derive(Clone)]
pub(crate) enum FlightState {
    /// The leader is still computing.
    Running,
    /// The computation succeeded with this value.
    Value(Arc<Value>),
    /// The computation failed with this error.
    Error(SharedError),
}

/// How a wait ended.
pub(crate) enum FlightEnd {
    /// The leader finished; its outcome.
    Done(FlightState),
    /// The leader went away without an outcome (its future was dropped, or it panicked).
    Abandoned,
}

/// The computations in progress, by key.
#[derive(Default)]
pub(crate) struct Flights {
    running: Mutex<HashMap<CacheKey, watch::Receiver<FlightState>>>,
}

/// What a caller is to do about a key with no cached value.
pub(crate) enum Role<'a> {
    /// Compute the value, then report through the guard.
    Leader(FlightGuard<'a>),
    /// Wait for the leader's outcome.
    Waiter(watch::Receiver<FlightState>),
}

impl Flights {
    fn lock(&self) -> MutexGuard<'_, HashMap<CacheKey, watch::Receiver<FlightState>>> {
        // Nothing panics while this lock is held (map operations only), so a poisoned map
        // is still a consistent map.
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Joins the computation of `key` if one is running, or else starts one (the caller
    /// becomes its leader).
    pub(crate) fn join_or_lead(&self, key: &CacheKey) -> Role<'_> {
        let mut running = self.lock();
        if let Some(rx) = running.get(key) {
            // A leader that went away without finishing removes its entry as it is dropped;
            // should one be left behind anyway, take over instead of waiting on it forever.
            let abandoned =
                rx.has_changed().is_err() && matches!(*rx.borrow(), FlightState::Running);
            if !abandoned {
                return Role::Waiter(rx.clone());
            }
        }
        let (tx, rx) = watch::channel(FlightState::Running);
        // Replaces an abandoned flight, if there was one.
        let _abandoned = running.insert(key.clone(), rx.clone());
        Role::Leader(FlightGuard {
            flights: self,
            key: key.clone(),
            channel: Some((tx, rx)),
        })
    }

    /// How many computations are in progress.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn forget(&self, key: &CacheKey, ours: &watch::Receiver<FlightState>) {
        let mut running = self.lock();
        if running.get(key).is_some_and(|rx| rx.same_channel(ours)) {
            let _ours = running.remove(key);
        }
    }
}

/// Held by the leader of a computation. [`finish`](Self::finish) publishes the outcome to
/// the waiters; dropping the guard without finishing (the leader's future was dropped, or
/// the computation panicked) tells them the computation was abandoned, and they retry.
pub(crate) struct FlightGuard<'a> {
    flights: &'a Flights,
    key: CacheKey,
    channel: Option<(watch::Sender<FlightState>, watch::Receiver<FlightState>)>,
}

impl FlightGuard<'_> {
    /// Publishes the outcome and ends the computation; later callers no longer join it.
    pub(crate) fn finish(mut self, outcome: FlightState) {
        if let Some((tx, rx)) = self.channel.take() {
            // `send_replace` stores the value even when nobody is waiting.
            drop(tx.send_replace(outcome));
            self.flights.forget(&self.key, &rx);
        }
    }
}

impl Drop for FlightGuard<'_> {
    fn drop(&mut self) {
        if let Some((tx, rx)) = self.channel.take() {
            self.flights.forget(&self.key, &rx);
            // Dropping the sender while the state is `Running` wakes the waiters with a
            // closed channel: they see `FlightEnd::Abandoned`.
            drop(tx);
        }
    }
}

/// Waits for the outcome of the computation behind `rx`.
pub(crate) async fn wait(mut rx: watch::Receiver<FlightState>) -> FlightEnd {
    let outcome = match rx
        .wait_for(|state| !matches!(state, FlightState::Running))
        .await
    {
        Ok(state) => FlightEnd::Done(state.clone()),
        Err(_closed) => FlightEnd::Abandoned,
    };
    outcome
}
