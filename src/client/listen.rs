//! `subscriptions/listen` (2026-07-28): a long-lived request whose stream carries the
//! notifications the client opted in to, each tagged with the request's id in
//! `_meta["io.modelcontextprotocol/subscriptionId"]`.
//!
//! The server acknowledges the stream first (`notifications/subscriptions/acknowledged`,
//! naming what it agreed to send); [`Client::listen`] returns once that arrives. The
//! client ends a stream by dropping its [`Subscription`]: `notifications/cancelled` over
//! stdio, the response closed over HTTP (the request is then never answered). The server
//! ends it gracefully with a `SubscriptionsListenResult` (e.g. when it shuts down). Every
//! message of the stream is checked by its generated validator.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio::time::Instant;

use crate::generated::protocol::{
    validate, ResourceUpdatedNotificationParams, SubscriptionFilter,
    SubscriptionsAcknowledgedNotificationParams,
};

use super::call::{encode, validate_received, Validator};
use super::more_requests::params_of;
use super::router::{Answer, Reply, Tagged};
use super::{Client, ClientError, Inner, Transport};

const METHOD: &str = "subscriptions/listen";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// A notification delivered on a [`Subscription`], validated and typed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListenNotification {
    /// `notifications/tools/list_changed`: list the tools again.
    ToolsListChanged,
    /// `notifications/resources/list_changed`: list the resources (and templates) again.
    ResourcesListChanged,
    /// `notifications/prompts/list_changed`: list the prompts again.
    PromptsListChanged,
    /// `notifications/resources/updated`: the resource at `uri` changed; read it again.
    ResourceUpdated {
        /// The URI of the resource that changed.
        uri: String,
    },
}

/// An open `subscriptions/listen` stream of a 2026-07-28 connection, from
/// [`Client::listen`]. Dropping it ends the stream. It keeps the connection open while it
/// lives.
#[derive(Debug)]
pub struct Subscription {
    inner: Arc<Inner>,
    id: u64,
    key: String,
    granted: SubscriptionFilter,
    events: mpsc::UnboundedReceiver<Tagged>,
    /// The answer to the listen request (the graceful end); `None` once it arrived.
    end: Option<oneshot::Receiver<Answer>>,
    /// The task holding the HTTP response open.
    http: Option<AbortHandle>,
}

impl Client {
    /// `subscriptions/listen` (2026-07-28): opens a stream of the notifications `filter`
    /// opts in to, and waits for the server's acknowledgement. What the server agreed to
    /// send is [`Subscription::granted`]; the notifications come from
    /// [`Subscription::next`]. Works over stdio (several streams share the connection,
    /// told apart by their subscription id) and over HTTP (one response stream each).
    ///
    /// # Errors
    ///
    /// [`ClientError::NotInEra`] in a 2025 session (use [`Client::subscribe`]);
    /// [`ClientError::InvalidRequest`] for a filter that breaks the schema;
    /// [`ClientError::Timeout`] when no acknowledgement comes within the request timeout
    /// (the stream is then cancelled); [`ClientError::InvalidMessage`] for an
    /// acknowledgement that breaks the schema; any request error.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        let negotiated = self.negotiated();
        if !negotiated.modern {
            return Err(ClientError::NotInEra {
                method: METHOD,
                version: negotiated.version,
            });
        }
        let (id, end) = self.inner.router.register(METHOD)?;
        let key = Value::from(id).to_string();
        let (sink, events) = mpsc::unbounded_channel();
        self.inner.router.watch_subscription(key.clone(), sink);
        let mut subscription = Subscription {
            inner: Arc::clone(&self.inner),
            id,
            key,
            granted: SubscriptionFilter::default(),
            events,
            end: Some(end),
            http: None,
        };
        let mut params = Map::new();
        params.insert(
            "notifications".to_owned(),
            serde_json::to_value(&filter).unwrap_or(Value::Null),
        );
        params.insert(
            "_meta".to_owned(),
            Value::Object(self.inner.modern_meta(&negotiated.version)),
        );
        let message = serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": METHOD, "params": params,
        });
        let check: Validator = validate::subscriptions_listen_request_params;
        if let Err(errors) = params_of(&message, check) {
            subscription.end = None;
            return Err(ClientError::InvalidRequest {
                method: METHOD.to_owned(),
                errors,
            });
        }
        let body = encode(&message);
        match &self.inner.transport {
            Transport::Stream(stream) => stream.send(body).await?,
            #[cfg(feature = "http")]
            Transport::Http(http) => {
                let http = Arc::clone(http);
                let task = tokio::spawn(async move {
                    let outgoing = super::http::Outgoing {
                        id: Some(id),
                        method: METHOD,
                        name: None,
                        headers: &[],
                        body,
                    };
                    if let Err(error) = http.post(outgoing).await {
                        tracing::debug!(%error, "the listen stream failed");
                    }
                });
                subscription.http = Some(task.abort_handle());
            }
        }
        let started = Instant::now();
        let limit = self.inner.options.request_timeout;
        match tokio::time::timeout(limit, subscription.acknowledgement()).await {
            Ok(Ok(())) => Ok(subscription),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(ClientError::Timeout {
                method: METHOD.to_owned(),
                elapsed: started.elapsed(),
            }),
        }
    }
}

/// What arrived on a subscription: one of its notifications, or its end.
enum Arrival {
    Notification(Tagged),
    End(Result<Answer, oneshot::error::RecvError>),
}

impl Subscription {
    /// What the server agreed to send (the acknowledgement's `notifications`): the kinds it
    /// does not offer and the URIs it does not know are left out.
    #[must_use]
    pub fn granted(&self) -> &SubscriptionFilter {
        &self.granted
    }

    /// The subscription id: the JSON-RPC id of the listen request.
    #[must_use]
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The next notification of the stream; `Ok(None)` once the server ended the stream
    /// gracefully (a `SubscriptionsListenResult`), and on every call after the end.
    /// Notifications of kinds not granted are logged and skipped; those of methods this
    /// client does not know go to the client's handler.
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidMessage`] for a notification (or closing result) that breaks
    /// the schema (the stream goes on); [`ClientError::ConnectionClosed`] when the
    /// connection or the HTTP response ended without the graceful end; [`ClientError::Rpc`]
    /// when the server answered the listen request with an error.
    pub async fn next(&mut self) -> Result<Option<ListenNotification>, ClientError> {
        loop {
            match self.arrival().await {
                None => return Ok(None),
                Some(Arrival::End(answer)) => return self.closing(answer).map(|()| None),
                Some(Arrival::Notification(tagged)) => {
                    if let Some(notification) = self.typed(tagged)? {
                        return Ok(Some(notification));
                    }
                }
            }
        }
    }

    /// Waits for a notification (first) or the end of the stream.
    async fn arrival(&mut self) -> Option<Arrival> {
        let end = self.end.as_mut()?;
        let arrival = tokio::select! {
            biased;
            Some(tagged) = self.events.recv() => Arrival::Notification(tagged),
            answer = end => Arrival::End(answer),
        };
        if matches!(arrival, Arrival::End(_)) {
            self.end = None;
        }
        Some(arrival)
    }

    /// Waits for the acknowledgement, which must come before anything else of the stream.
    async fn acknowledgement(&mut self) -> Result<(), ClientError> {
        match self.arrival().await {
            Some(Arrival::Notification(Tagged { method, params })) if method == ACKNOWLEDGED => {
                self.granted = decode::<SubscriptionsAcknowledgedNotificationParams>(
                    ACKNOWLEDGED,
                    params,
                    validate::subscriptions_acknowledged_notification_params,
                    "SubscriptionsAcknowledgedNotificationParams",
                )?
                .notifications;
                Ok(())
            }
            Some(Arrival::Notification(_)) => Err(ClientError::MalformedMessage {
                reason: "a notification of the subscription came before its acknowledgement"
                    .to_owned(),
            }),
            Some(Arrival::End(answer)) => {
                self.closing(answer)?;
                Err(ClientError::MalformedMessage {
                    reason: "the subscription ended before it was acknowledged".to_owned(),
                })
            }
            None => Err(ClientError::Closed),
        }
    }

    /// The end of the stream: the graceful result is validated, anything else is an error.
    fn closing(
        &self,
        answer: Result<Answer, oneshot::error::RecvError>,
    ) -> Result<(), ClientError> {
        let closed = || ClientError::ConnectionClosed {
            method: METHOD.to_owned(),
        };
        match answer.map_err(|_| closed())?? {
            Reply::Result(raw) => {
                let value: Value =
                    serde_json::from_str(raw.get()).map_err(|_| ClientError::MalformedMessage {
                        reason: "the result is not valid JSON".to_owned(),
                    })?;
                decode::<Map<String, Value>>(
                    "subscriptions/listen result",
                    value,
                    validate::subscriptions_listen_result,
                    "SubscriptionsListenResult",
                )?;
                Ok(())
            }
            Reply::Error {
                code,
                message,
                data,
            } => Err(ClientError::Rpc {
                method: METHOD.to_owned(),
                code,
                message,
                data,
            }),
        }
    }

    /// The typed notification, `None` for one to skip.
    fn typed(&self, tagged: Tagged) -> Result<Option<ListenNotification>, ClientError> {
        let Tagged { method, params } = tagged;
        let granted = &self.granted;
        let (notification, wanted) = match method.as_str() {
            "notifications/resources/updated" => {
                let p: ResourceUpdatedNotificationParams = decode(
                    &method,
                    params,
                    validate::resource_updated_notification_params,
                    "ResourceUpdatedNotificationParams",
                )?;
                let wanted = granted
                    .resource_subscriptions
                    .as_ref()
                    .is_some_and(|uris| uris.contains(&p.uri));
                (ListenNotification::ResourceUpdated { uri: p.uri }, wanted)
            }
            other => {
                let (notification, wanted) = match other {
                    "notifications/tools/list_changed" => (
                        ListenNotification::ToolsListChanged,
                        granted.tools_list_changed,
                    ),
                    "notifications/resources/list_changed" => (
                        ListenNotification::ResourcesListChanged,
                        granted.resources_list_changed,
                    ),
                    "notifications/prompts/list_changed" => (
                        ListenNotification::PromptsListChanged,
                        granted.prompts_list_changed,
                    ),
                    _ => {
                        self.inner.router.handler().notification(&method, params);
                        return Ok(None);
                    }
                };
                let params = if params.is_null() {
                    Value::Object(Map::new())
                } else {
                    params
                };
                let _: Map<String, Value> = decode(
                    &method,
                    params,
                    validate::list_changed_notification_params,
                    "ListChangedNotificationParams",
                )?;
                (notification, wanted == Some(true))
            }
        };
        if !wanted {
            tracing::warn!(
                method,
                "a notification the subscription was not granted, ignored"
            );
            return Ok(None);
        }
        Ok(Some(notification))
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.inner.router.unwatch_subscription(&self.key);
        self.inner.router.forget(self.id);
        if let Some(http) = self.http.take() {
            // Over HTTP the stream ends when its response is closed.
            http.abort();
        } else if self.end.is_some() {
            self.inner.send_cancelled(self.id);
        }
    }
}

/// Validates params of the stream (after dropping undeclared members), then decodes them.
fn decode<T: serde::de::DeserializeOwned>(
    what: &str,
    mut value: Value,
    validator: Validator,
    definition: &'static str,
) -> Result<T, ClientError> {
    let invalid = |errors| ClientError::InvalidMessage {
        what: what.to_owned(),
        definition,
        errors,
    };
    validate_received(&mut value, validator, definition).map_err(invalid)?;
    serde_json::from_value(value).map_err(|_| invalid(Vec::new()))
}
