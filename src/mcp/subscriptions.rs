//! Resource subscriptions of the 2025 versions: `resources/subscribe`,
//! `resources/unsubscribe`, and `notifications/resources/updated` to every connection that
//! subscribed to a URI.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::generated::mcp::protocol::{validate, ResourceUpdatedNotificationParams};
use crate::server::Peer;

/// The subscriptions of every connection of a server.
#[derive(Debug, Default)]
pub(crate) struct Subscriptions {
    next_connection: AtomicU64,
    by_connection: Mutex<HashMap<u64, Subscriber>>,
}

#[derive(Debug)]
struct Subscriber {
    peer: Peer,
    uris: HashSet<String>,
}

impl Subscriptions {
    /// A number for a new connection.
    pub(crate) fn connection_id(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::Relaxed)
    }

    /// Subscribes `connection` (reached through `peer`) to `uri`.
    pub(crate) fn subscribe(&self, connection: u64, peer: Peer, uri: &str) {
        let mut all = self
            .by_connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let subscriber = all.entry(connection).or_insert_with(|| Subscriber {
            peer,
            uris: HashSet::new(),
        });
        let _new = subscriber.uris.insert(uri.to_owned());
    }

    /// Ends `connection`'s subscription to `uri`; `false` if it had none.
    pub(crate) fn unsubscribe(&self, connection: u64, uri: &str) -> bool {
        let mut all = self
            .by_connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(subscriber) = all.get_mut(&connection) else {
            return false;
        };
        let removed = subscriber.uris.remove(uri);
        if subscriber.uris.is_empty() {
            let _gone = all.remove(&connection);
        }
        removed
    }

    /// Forgets a connection that ended.
    pub(crate) fn drop_connection(&self, connection: u64) {
        let _gone = self
            .by_connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&connection);
    }

    /// Sends `notifications/resources/updated` for `uri` to every subscriber; returns how
    /// many were notified. Subscribers whose output has closed are forgotten.
    pub(crate) async fn notify_updated(&self, uri: &str) -> usize {
        let peers: Vec<(u64, Peer)> = self
            .by_connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|(_, subscriber)| subscriber.uris.contains(uri))
            .map(|(id, subscriber)| (*id, subscriber.peer.clone()))
            .collect();
        if peers.is_empty() {
            return 0;
        }
        let params = ResourceUpdatedNotificationParams {
            meta: None,
            uri: uri.to_owned(),
        };
        let Ok(value) = serde_json::to_value(&params) else {
            return 0;
        };
        if validate::resource_updated_notification_params(&value).is_err() {
            tracing::error!("resource update not sent: the URI is not a valid URI");
            return 0;
        }
        let Ok(raw) = serde_json::value::to_raw_value(&value) else {
            return 0;
        };
        let mut notified = 0;
        for (connection, peer) in peers {
            match peer
                .notify("notifications/resources/updated", Some(raw.clone()))
                .await
            {
                Ok(()) => notified += 1,
                Err(_) => self.drop_connection(connection),
            }
        }
        notified
    }
}
