//! Process signals that begin a graceful shutdown.
//!
//! A small task listens for the signals and passes their names on through a channel, then
//! fires the loop's stop token: the reading loop waits for that token (with the caller's stop
//! and a closed output) rather than polling the channel on every turn, and takes the name
//! when it wakes; the drain waits on the channel for a second signal.

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::ServerError;

/// Signal names not yet read; more are not kept (the loop acts on the first, and on a
/// second while draining).
const PENDING_SIGNALS: usize = 4;

/// The signals the loop listens to; none when disabled.
pub(crate) struct Signals {
    /// The names of the signals received, in order; `None` when disabled.
    names: Option<mpsc::Receiver<&'static str>>,
    /// The listening task, stopped when the loop ends.
    listener: Option<JoinHandle<()>>,
}

impl Drop for Signals {
    fn drop(&mut self) {
        if let Some(listener) = self.listener.take() {
            listener.abort();
        }
    }
}

impl Signals {
    /// Installs the handlers (SIGTERM and SIGINT on Unix, Ctrl-C elsewhere) if `enabled`;
    /// `wake` is fired after each signal's name is queued.
    pub(crate) fn new(enabled: bool, wake: CancellationToken) -> Result<Self, ServerError> {
        if !enabled {
            return Ok(Self {
                names: None,
                listener: None,
            });
        }
        let (sender, names) = mpsc::channel(PENDING_SIGNALS);
        let listener = tokio::spawn(listen(sender, wake, install()?));
        Ok(Self {
            names: Some(names),
            listener: Some(listener),
        })
    }

    /// The name of a signal received and not read yet, if any.
    pub(crate) fn try_recv(&mut self) -> Option<&'static str> {
        self.names.as_mut()?.try_recv().ok()
    }

    /// Waits for the next signal and returns its name; never completes when disabled.
    pub(crate) async fn recv(&mut self) -> &'static str {
        match &mut self.names {
            Some(names) => match names.recv().await {
                Some(name) => name,
                // The listener ended (its listeners failed): no signal will come.
                None => std::future::pending().await,
            },
            None => std::future::pending().await,
        }
    }
}

#[cfg(unix)]
type Listeners = [(tokio::signal::unix::Signal, &'static str); 2];

#[cfg(not(unix))]
type Listeners = ();

/// Installs the signal handlers (errors are returned, before any task is started).
#[cfg(unix)]
fn install() -> Result<Listeners, ServerError> {
    use tokio::signal::unix::{signal, SignalKind};
    let term = signal(SignalKind::terminate()).map_err(ServerError::Signal)?;
    let int = signal(SignalKind::interrupt()).map_err(ServerError::Signal)?;
    Ok([(term, "SIGTERM"), (int, "SIGINT")])
}

#[cfg(not(unix))]
fn install() -> Result<Listeners, ServerError> {
    Ok(())
}

/// Passes each signal's name on, and fires `wake`, until the loop stops reading them.
#[cfg(unix)]
async fn listen(sender: mpsc::Sender<&'static str>, wake: CancellationToken, listeners: Listeners) {
    let [(mut term, term_name), (mut int, int_name)] = listeners;
    loop {
        let name = tokio::select! {
            Some(()) = term.recv() => term_name,
            Some(()) = int.recv() => int_name,
            else => return,
        };
        if sender.send(name).await.is_err() {
            return;
        }
        wake.cancel();
    }
}

#[cfg(not(unix))]
async fn listen(sender: mpsc::Sender<&'static str>, wake: CancellationToken, (): Listeners) {
    loop {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "listening for Ctrl-C failed");
            return;
        }
        if sender.send("Ctrl-C").await.is_err() {
            return;
        }
        wake.cancel();
    }
}
