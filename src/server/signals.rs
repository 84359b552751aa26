//! Process signals that begin a graceful shutdown.

use super::ServerError;

/// The signals the loop listens to; none when disabled.
pub(crate) struct Signals {
    #[cfg(unix)]
    listeners: Option<[(tokio::signal::unix::Signal, &'static str); 2]>,
    #[cfg(not(unix))]
    enabled: bool,
}

impl Signals {
    /// Installs the handlers (SIGTERM and SIGINT on Unix, Ctrl-C elsewhere) if `enabled`.
    pub(crate) fn new(enabled: bool) -> Result<Self, ServerError> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let listeners = if enabled {
                let term = signal(SignalKind::terminate()).map_err(ServerError::Signal)?;
                let int = signal(SignalKind::interrupt()).map_err(ServerError::Signal)?;
                Some([(term, "SIGTERM"), (int, "SIGINT")])
            } else {
                None
            };
            Ok(Self { listeners })
        }
        #[cfg(not(unix))]
        {
            Ok(Self { enabled })
        }
    }

    /// Waits for the next signal and returns its name; never returns when disabled.
    pub(crate) async fn recv(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            let Some([(term, term_name), (int, int_name)]) = &mut self.listeners else {
                return std::future::pending().await;
            };
            tokio::select! {
                Some(()) = term.recv() => term_name,
                Some(()) = int.recv() => int_name,
                else => std::future::pending().await,
            }
        }
        #[cfg(not(unix))]
        {
            if !self.enabled {
                return std::future::pending().await;
            }
            match tokio::signal::ctrl_c().await {
                Ok(()) => "Ctrl-C",
                Err(error) => {
                    tracing::error!(%error, "listening for Ctrl-C failed");
                    std::future::pending().await
                }
            }
        }
    }
}
