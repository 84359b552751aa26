//! The interval task that sweeps expired entries out of the store.

use std::sync::Weak;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::{interval_at, Instant, MissedTickBehavior};

use super::handle::Inner;

/// The running cleanup task, owned by the cache.
///
/// The task holds only a weak reference to the cache, so it never keeps the cache alive.
/// It stops on [`stop`](Self::stop), and also on its own when the cache is dropped: dropping
/// the cache drops `stop_tx`, which wakes the task.
#[derive(Debug)]
pub(crate) struct CleanupTask {
    stop_tx: oneshot::Sender<()>,
    handle: JoinHandle<()>,
}

impl CleanupTask {
    /// Spawns the sweep of `inner` every `period` on `runtime`.
    pub(crate) fn spawn(
        runtime: &tokio::runtime::Handle,
        inner: Weak<Inner>,
        period: Duration,
    ) -> Self {
        let (stop_tx, stop_rx) = oneshot::channel();
        let handle = runtime.spawn(run(inner, period, stop_rx));
        Self { stop_tx, handle }
    }

    /// Stops the task and waits until it has ended.
    pub(crate) async fn stop(self) {
        if self.stop_tx.send(()).is_err() {
            tracing::debug!("cache cleanup task had already ended");
        }
        if let Err(error) = self.handle.await {
            tracing::error!(%error, "cache cleanup task failed");
        }
    }
}

async fn run(inner: Weak<Inner>, period: Duration, mut stop_rx: oneshot::Receiver<()>) {
    let mut ticks = interval_at(Instant::now() + period, period);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            stopped = &mut stop_rx => {
                match stopped {
                    Ok(()) => tracing::debug!("cache cleanup task stopped by shutdown"),
                    Err(_) => tracing::debug!("cache cleanup task stopped: cache dropped"),
                }
                return;
            }
            _instant = ticks.tick() => {
                let Some(inner) = inner.upgrade() else {
                    return;
                };
                let purged = inner.purge_expired_now();
                tracing::trace!(purged, "cache cleanup sweep");
            }
        }
    }
}
