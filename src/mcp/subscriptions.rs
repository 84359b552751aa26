//! Who gets which server-initiated notifications: `notifications/resources/updated` for the
//! URIs a connection subscribed to (`resources/subscribe`, 2025 versions), and
//! `notifications/{tools,resources,prompts}/list_changed` for every initialized 2025
//! connection (stdio, or an HTTP session's GET stream); in 2026-07-28, what each
//! `subscriptions/listen` stream opted in to, tagged with its subscription id.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::OwnedMutexGuard;

use crate::generated::protocol::validate;
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
    next_stream: AtomicU64,
    subscribers: Mutex<HashMap<Key, Subscriber>>,
}

/// A connection's own subscriptions (2025), or one of its listen streams (2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    connection: u64,
    stream: Option<u64>,
}

#[derive(Debug)]
struct Subscriber {
    peer: Peer,
    uris: HashSet<String>,
    lists: ListFilter,
    /// The listen request's id, carried in `_meta` of every notification of its stream.
    tag: Option<Value>,
    /// A listen stream's gate, held by its registration until the acknowledgement is queued:
    /// the stream's notifications wait for it, so none comes before the acknowledgement and
    /// none that happens while it is being sent is lost.
    gate: Option<Gate>,
}

/// See [`Subscriber::gate`].
type Gate = Arc<tokio::sync::Mutex<()>>;

impl Subscriber {
    fn new(peer: Peer) -> Self {
        Self {
            peer,
            uris: HashSet::new(),
            lists: ListFilter::default(),
            tag: None,
            gate: None,
        }
    }
}

/// One `subscriptions/listen` stream's registration: removed when dropped (the stream
/// ended, was cancelled, or its HTTP client left).
#[derive(Debug)]
pub(crate) struct ListenRegistration<'a> {
    subscriptions: &'a Subscriptions,
    key: Key,
    /// Held until [`ListenRegistration::acknowledged`].
    held: Option<OwnedMutexGuard<()>>,
}

impl ListenRegistration<'_> {
    /// The stream's acknowledgement is queued: its notifications may follow.
    pub(crate) fn acknowledged(&mut self) {
        self.held = None;
    }
}

impl Drop for ListenRegistration<'_> {
    fn drop(&mut self) {
        let _gone = self.subscriptions.all().remove(&self.key);
    }
}

impl Subscriptions {
    /// A number for a new connection.
    pub(crate) fn connection_id(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::Relaxed)
    }

    fn all(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Subscriber>> {
        self.subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn own(connection: u64) -> Key {
        Key {
            connection,
            stream: None,
        }
    }

    /// Subscribes `connection` (reached through `peer`) to `uri`.
    pub(crate) fn subscribe(&self, connection: u64, peer: Peer, uri: &str) {
        let mut all = self.all();
        let subscriber = all
            .entry(Self::own(connection))
            .or_insert_with(|| Subscriber::new(peer));
        let _new = subscriber.uris.insert(uri.to_owned());
    }

    /// Tells `connection` (reached through `peer`) of every list change from now on.
    pub(crate) fn watch_lists(&self, connection: u64, peer: Peer) {
        let mut all = self.all();
        let subscriber = all
            .entry(Self::own(connection))
            .or_insert_with(|| Subscriber::new(peer));
        subscriber.lists = ListFilter::ALL;
    }

    /// Registers a listen stream of `connection`: its notifications go to `peer`, tagged
    /// with `tag`, for the lists and URIs given, once [`ListenRegistration::acknowledged`]
    /// says the acknowledgement is queued (those that happen before wait for it).
    pub(crate) fn listen(
        &self,
        connection: u64,
        peer: Peer,
        tag: Value,
        lists: ListFilter,
        uris: HashSet<String>,
    ) -> ListenRegistration<'_> {
        let key = Key {
            connection,
            stream: Some(self.next_stream.fetch_add(1, Ordering::Relaxed)),
        };
        let gate = Gate::default();
        let held = Arc::clone(&gate).try_lock_owned().ok();
        let subscriber = Subscriber {
            peer,
            uris,
            lists,
            tag: Some(tag),
            gate: Some(gate),
        };
        let _none = self.all().insert(key, subscriber);
        ListenRegistration {
            subscriptions: self,
            key,
            held,
        }
    }

    /// Ends `connection`'s subscription to `uri`; `false` if it had none.
    pub(crate) fn unsubscribe(&self, connection: u64, uri: &str) -> bool {
        let mut all = self.all();
        let key = Self::own(connection);
        let Some(subscriber) = all.get_mut(&key) else {
            return false;
        };
        let removed = subscriber.uris.remove(uri);
        if subscriber.uris.is_empty() && subscriber.lists.is_empty() {
            let _gone = all.remove(&key);
        }
        removed
    }

    /// Forgets a connection that ended, and its listen streams.
    pub(crate) fn drop_connection(&self, connection: u64) {
        self.all().retain(|key, _| key.connection != connection);
    }

    /// Sends `notifications/resources/updated` for `uri` to every subscriber; returns how
    /// many were notified.
    pub(crate) async fn notify_updated(&self, uri: &str) -> usize {
        let targets = self.targets(|subscriber| subscriber.uris.contains(uri));
        if validate::resource_updated_notification_params(&json!({ "uri": uri })).is_err() {
            tracing::error!("resource update not sent: the URI is not a valid URI");
            return 0;
        }
        self.send(targets, "notifications/resources/updated", |tag| {
            let mut params = json!({ "uri": uri });
            if let Some(tag) = tag {
                params["_meta"] = json!({ SUBSCRIPTION_ID_KEY: tag });
            }
            Some(params)
        })
        .await
    }

    /// Sends the list-changed notification of `kind` to every subscriber that watches it;
    /// returns how many were notified.
    pub(crate) async fn notify_list_changed(&self, kind: ListKind) -> usize {
        let targets = self.targets(|subscriber| subscriber.lists.wants(kind));
        self.send(targets, kind.method(), |tag| {
            tag.map(|tag| json!({ "_meta": { SUBSCRIPTION_ID_KEY: tag } }))
        })
        .await
    }

    fn targets(&self, wanted: impl Fn(&Subscriber) -> bool) -> Vec<Target> {
        self.all()
            .iter()
            .filter(|(_, subscriber)| wanted(subscriber))
            .map(|(key, subscriber)| Target {
                key: *key,
                peer: subscriber.peer.clone(),
                tag: subscriber.tag.clone(),
                gate: subscriber.gate.clone(),
            })
            .collect()
    }

    /// Sends `method` to each target with the params `params` builds from its tag;
    /// targets whose output has closed are forgotten.
    async fn send(
        &self,
        targets: Vec<Target>,
        method: &'static str,
        params: impl Fn(Option<&Value>) -> Option<Value>,
    ) -> usize {
        let mut notified = 0;
        for Target {
            key,
            peer,
            tag,
            gate,
        } in targets
        {
            let raw: Option<Box<RawValue>> =
                match params(tag.as_ref()).map(|value| serde_json::value::to_raw_value(&value)) {
                    None => None,
                    Some(Ok(raw)) => Some(raw),
                    Some(Err(error)) => {
                        tracing::error!(%error, method, "notification not sent");
                        continue;
                    }
                };
            if let Some(gate) = gate {
                // Waits while the stream's acknowledgement is being queued.
                let _open = gate.lock().await;
            }
            match peer.notify(method, raw).await {
                Ok(()) => notified += 1,
                Err(_) => {
                    let _gone = self.all().remove(&key);
                }
            }
        }
        notified
    }
}

/// Where one notification goes: a subscriber as [`Subscriptions::targets`] found it.
struct Target {
    key: Key,
    peer: Peer,
    tag: Option<Value>,
    gate: Option<Gate>,
}

/// The `_meta` key naming the listen stream a notification belongs to.
pub(crate) const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::{message_channel, MessageReceiver, Outbound};

    /// The method of the next queued message.
    async fn next_method(receiver: &mut MessageReceiver) -> String {
        match receiver.recv().await {
            Some(Outbound::Message(message)) => message.method().unwrap_or("").to_owned(),
            other => panic!("expected a message, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_change_while_the_acknowledgement_is_sent_waits_for_it_and_is_not_lost() {
        let subscriptions = Subscriptions::default();
        let (writer, mut receiver) = message_channel(8);
        let peer = Peer::new(writer);
        let lists = ListFilter {
            tools: true,
            ..ListFilter::default()
        };
        let mut registration =
            subscriptions.listen(1, peer.clone(), json!(7), lists, HashSet::new());
        // The tool list changes after the stream is registered, before its acknowledgement
        // is queued: the notification waits.
        let change = subscriptions.notify_list_changed(ListKind::Tools);
        tokio::pin!(change);
        for _ in 0..10 {
            tokio::select! {
                biased;
                _ = &mut change => panic!("sent before the acknowledgement"),
                () = tokio::task::yield_now() => {}
            }
        }
        peer.notify("notifications/subscriptions/acknowledged", None)
            .await
            .expect("queued");
        registration.acknowledged();
        assert_eq!(change.await, 1, "the change reaches the stream");
        assert_eq!(
            next_method(&mut receiver).await,
            "notifications/subscriptions/acknowledged"
        );
        assert_eq!(
            next_method(&mut receiver).await,
            "notifications/tools/list_changed"
        );
    }
}
