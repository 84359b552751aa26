//! Protocol versions and eras, and the per-connection session that picks one.
//!
//! A connection's era is decided by the first request that selects one: a valid
//! `initialize` opens a **legacy** session (version negotiated: the client's if we support
//! it, else our latest legacy version); a request whose `params._meta` carries
//! `io.modelcontextprotocol/protocolVersion` with a supported modern version opens a
//! **modern** one. Requests that select nothing (a `-32022`, invalid params) leave the
//! connection undecided, so a client probing with `server/discover` can still fall back to
//! `initialize`.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;

use crate::generated::protocol::LoggingLevel;
use crate::jsonrpc::BatchPolicy;

/// The 2026-07-28 revision: stateless, versioned per request.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The modern versions this server speaks, newest first.
pub const MODERN_VERSIONS: &[&str] = &[MODERN_VERSION];

/// The legacy (handshake) versions this server speaks, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// The legacy version answered when the client offers one we do not speak.
pub const LATEST_LEGACY_VERSION: &str = "2025-11-25";

/// The `_meta` key naming a modern request's protocol version.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// The versions a request may name in `params._meta`: the `supportedVersions` of
/// `server/discover` and the `data.supported` of `-32022`, which are the same list (the 2025
/// versions are not named per request: `initialize` negotiates them).
#[must_use]
pub fn supported_versions() -> Vec<String> {
    MODERN_VERSIONS.iter().map(|v| (*v).to_owned()).collect()
}

/// The version a legacy server answers `initialize` with, given the client's offer.
#[must_use]
pub fn negotiate_legacy(offered: &str) -> &'static str {
    LEGACY_VERSIONS
        .iter()
        .find(|v| **v == offered)
        .copied()
        .unwrap_or(LATEST_LEGACY_VERSION)
}

/// The protocol era of a request or a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// A 2025 version, after the `initialize` handshake.
    Legacy(&'static str),
    /// 2026-07-28.
    Modern,
}

impl Era {
    /// The protocol version spoken.
    #[must_use]
    pub fn version(self) -> &'static str {
        match self {
            Self::Legacy(version) => version,
            Self::Modern => MODERN_VERSION,
        }
    }

    /// Whether this is the modern era.
    #[must_use]
    pub fn is_modern(self) -> bool {
        self == Self::Modern
    }
}

/// Where a connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionState {
    /// No request has selected an era yet.
    Undecided,
    /// `initialize` was answered with this version.
    Legacy {
        /// The negotiated version.
        version: &'static str,
        /// Whether `notifications/initialized` arrived.
        initialized: bool,
    },
    /// A modern request was served.
    Modern,
}

/// The session of one connection, shared by its concurrently running requests.
#[derive(Debug)]
pub(crate) struct Session {
    state: Mutex<SessionState>,
    /// The lowest severity of log messages the client asked for (`logging/setLevel`).
    log_level: Mutex<Option<LoggingLevel>>,
    /// The capabilities the client declared in `initialize` (2025 versions).
    client_capabilities: Mutex<Option<serde_json::Value>>,
    /// Woken when the era is chosen.
    decided: Notify,
}

impl Session {
    pub(crate) fn new() -> Self {
        Self {
            state: Mutex::new(SessionState::Undecided),
            log_level: Mutex::new(None),
            client_capabilities: Mutex::new(None),
            decided: Notify::new(),
        }
    }

    /// Waits (at most `limit`) for an era to be chosen. Requests run concurrently, so a
    /// client that writes `initialize` and its first requests without waiting for the
    /// answer would otherwise race its own handshake.
    pub(crate) async fn settle(&self, limit: Duration) {
        let notified = self.decided.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.state() != SessionState::Undecided {
            return;
        }
        if tokio::time::timeout(limit, notified).await.is_err() {
            tracing::debug!(?limit, "no era chosen while the request waited");
        }
    }

    pub(crate) fn state(&self) -> SessionState {
        *self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a legacy session; `false` if an era was already chosen.
    pub(crate) fn open_legacy(&self, version: &'static str) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if *state != SessionState::Undecided {
            return false;
        }
        *state = SessionState::Legacy {
            version,
            initialized: false,
        };
        self.decided.notify_waiters();
        true
    }

    /// Opens a modern session (or keeps it); `false` if the session is legacy.
    pub(crate) fn open_modern(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match *state {
            SessionState::Undecided => {
                *state = SessionState::Modern;
                self.decided.notify_waiters();
                true
            }
            // Decided by an earlier call: nobody waits for it.
            SessionState::Modern => true,
            SessionState::Legacy { .. } => false,
        }
    }

    /// Records the client's `logging/setLevel`.
    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(level);
    }

    /// The severity the client asked for, if it did.
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the capabilities `initialize` declared.
    pub(crate) fn set_client_capabilities(&self, capabilities: serde_json::Value) {
        *self
            .client_capabilities
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(capabilities);
    }

    /// The capabilities `initialize` declared (none before it).
    pub(crate) fn client_capabilities(&self) -> Option<serde_json::Value> {
        self.client_capabilities
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Records `notifications/initialized`.
    pub(crate) fn mark_initialized(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let SessionState::Legacy { version, .. } = *state {
            *state = SessionState::Legacy {
                version,
                initialized: true,
            };
        }
    }
}

/// Whether JSON-RPC batches are processed in a session speaking `version`.
#[must_use]
pub fn batch_policy(version: &str) -> BatchPolicy {
    BatchPolicy::for_protocol_version(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_keeps_a_supported_offer_and_replaces_others() {
        assert_eq!(negotiate_legacy("2025-06-18"), "2025-06-18");
        assert_eq!(negotiate_legacy("2025-03-26"), "2025-03-26");
        assert_eq!(negotiate_legacy("2024-11-05"), LATEST_LEGACY_VERSION);
        assert_eq!(negotiate_legacy("2026-07-28"), LATEST_LEGACY_VERSION);
    }

    #[test]
    fn a_session_chooses_its_era_once() {
        let session = Session::new();
        assert!(session.open_legacy("2025-06-18"));
        assert!(!session.open_legacy("2025-11-25"));
        assert!(!session.open_modern());
        session.mark_initialized();
        assert_eq!(
            session.state(),
            SessionState::Legacy {
                version: "2025-06-18",
                initialized: true
            }
        );
        let modern = Session::new();
        assert!(modern.open_modern());
        assert!(modern.open_modern());
        assert!(!modern.open_legacy("2025-06-18"));
    }
}
