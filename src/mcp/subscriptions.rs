//! Who gets which server-initiated notifications: `notifications/resources/updated` for the
//! URIs a connection subscribed to (`resources/subscribe`, 2025 versions), and
//! `notifications/{tools,resources,prompts}/list_changed` for every initialized 2025
//! connection (stdio, or an HTTP session's GET stream).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::generated::mcp::protocol::validate;
use crate::server::Peer;

/// A list whose changes are announced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// `tools/list`.
    Tools,
    /// `resources/list` and `resources/templates/list`.
    Resources,
    /// `prompts/list`.
    Prompts,
}

impl ListKind {
    /// The notification announcing a change of this list.
    pub(crate) fn method(self) -> &'static str {
        match self {
            Self::Tools => "notifications/tools/list_changed",
            Self::Resources => "notifications/resources/list_changed",
            Self::Prompts => "notifications/prompts/list_changed",
        }
    }
}

/// Which list changes a subscriber is told of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ListFilter {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
}

impl ListFilter {
    /// Every list.
    pub(crate) const ALL: Self = Self {
        tools: true,
        resources: true,
        prompts: true,
    };

    fn wants(self, kind: ListKind) -> bool {
        match kind {
            ListKind::Tools => self.tools,
            ListKind::Resources => self.resources,
            ListKind::Prompts => self.prompts,
        }
    }

    fn is_empty(self) -> bool {
        self == Self::default()
    }
}

/// The subscribers of every connection of a server.
#[derive(Debug, Default)]
pub(crate) struct Subscriptions {
    next_connection: AtomicU64,
    by_connection: Mutex<HashMap<u64, Subscriber>>,
}

#[derive(Debug)]
struct Subscriber {
    peer: Peer,
    uris: HashSet<String>,
    lists: ListFilter,
}

impl Subscriber {
    fn new(peer: Peer) -> Self {
        Self {
            peer,
            uris: HashSet::new(),
            lists: ListFilter::default(),
        }
    }
}

impl Subscriptions {
    /// A number for a new connection.
    pub(crate) fn connection_id(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::Relaxed)
    }

    fn all(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Subscriber>> {
        self.by_connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Subscribes `connection` (reached through `peer`) to `uri`.
    pub(crate) fn subscribe(&self, connection: u64, peer: Peer, uri: &str) {
        let mut all = self.all();
        let subscriber = all
            .entry(connection)
            .or_insert_with(|| Subscriber::new(peer));
        let _new = subscriber.uris.insert(uri.to_owned());
    }

    /// Tells `connection` (reached through `peer`) of every list change from now on.
    pub(crate) fn watch_lists(&self, connection: u64, peer: Peer) {
        let mut all = self.all();
        let subscriber = all
            .entry(connection)
            .or_insert_with(|| Subscriber::new(peer));
        subscriber.lists = ListFilter::ALL;
    }

    /// Ends `connection`'s subscription to `uri`; `false` if it had none.
    pub(crate) fn unsubscribe(&self, connection: u64, uri: &str) -> bool {
        let mut all = self.all();
        let Some(subscriber) = all.get_mut(&connection) else {
            return false;
        };
        let removed = subscriber.uris.remove(uri);
        if subscriber.uris.is_empty() && subscriber.lists.is_empty() {
            let _gone = all.remove(&connection);
        }
        removed
    }

    /// Forgets a connection that ended.
    pub(crate) fn drop_connection(&self, connection: u64) {
        let _gone = self.all().remove(&connection);
    }

    /// Sends `notifications/resources/updated` for `uri` to every subscriber; returns how
    /// many were notified. Subscribers whose output has closed are forgotten.
    pub(crate) async fn notify_updated(&self, uri: &str) -> usize {
        let peers = self.peers(|subscriber| subscriber.uris.contains(uri));
        let params = json!({ "uri": uri });
        if validate::resource_updated_notification_params(&params).is_err() {
            tracing::error!("resource update not sent: the URI is not a valid URI");
            return 0;
        }
        self.send(peers, "notifications/resources/updated", Some(&params))
            .await
    }

    /// Sends the list-changed notification of `kind` to every subscriber that watches it;
    /// returns how many were notified.
    pub(crate) async fn notify_list_changed(&self, kind: ListKind) -> usize {
        let peers = self.peers(|subscriber| subscriber.lists.wants(kind));
        self.send(peers, kind.method(), None).await
    }

    fn peers(&self, wanted: impl Fn(&Subscriber) -> bool) -> Vec<(u64, Peer)> {
        self.all()
            .iter()
            .filter(|(_, subscriber)| wanted(subscriber))
            .map(|(id, subscriber)| (*id, subscriber.peer.clone()))
            .collect()
    }

    async fn send(
        &self,
        peers: Vec<(u64, Peer)>,
        method: &'static str,
        params: Option<&Value>,
    ) -> usize {
        let raw: Option<Box<RawValue>> = match params.map(serde_json::value::to_raw_value) {
            None => None,
            Some(Ok(raw)) => Some(raw),
            Some(Err(error)) => {
                tracing::error!(%error, method, "notification not sent");
                return 0;
            }
        };
        let mut notified = 0;
        for (connection, peer) in peers {
            match peer.notify(method, raw.clone()).await {
                Ok(()) => notified += 1,
                Err(_) => self.drop_connection(connection),
            }
        }
        notified
    }
}
