//! `subscriptions/listen` (2026-07-28): a long-lived request whose stream carries the
//! notifications the client opted in to.
//!
//! - **Acknowledgement.** The first message of the stream is
//!   `notifications/subscriptions/acknowledged`, listing what the server will send: list
//!   changes of the kinds it offers, and updates of the requested URIs that name a resource
//!   (fixed, or matching a template). Nothing is sent on the stream before it.
//! - **Tagging.** Every notification of the stream carries the request's id in
//!   `_meta["io.modelcontextprotocol/subscriptionId"]`, so a stdio client with several
//!   streams can tell them apart.
//! - **End.** The client ends a stream by cancelling the request (`notifications/cancelled`
//!   on stdio, closing the response over HTTP): it is not answered. When the server stops
//!   reading (its input ended, a signal), each stream is answered with a
//!   `SubscriptionsListenResult` naming its subscription.

use std::collections::HashSet;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::builder::ServerState;
use super::catalog::Sets;
use super::era::Era;
use super::params::{decode, internal_error};
use super::subscriptions::{ListFilter, SUBSCRIPTION_ID_KEY};
use crate::generated::protocol::{validate, SubscriptionsListenRequestParams};
use crate::server::{HandlerResult, RequestContext};

/// Serves one `subscriptions/listen` request of connection `connection` until the client
/// cancels it or `closing` fires.
pub(crate) async fn listen(
    state: &ServerState,
    sets: &Sets,
    connection: u64,
    ctx: &RequestContext,
    params: Option<&Value>,
    closing: &CancellationToken,
) -> HandlerResult {
    let p: SubscriptionsListenRequestParams = decode(
        "subscriptions/listen",
        params,
        validate::subscriptions_listen_request_params,
        false,
    )?;
    let asked = &p.notifications;
    let offered = &sets.capabilities;
    let lists = ListFilter {
        tools: asked.tools_list_changed == Some(true) && offered.tools.is_some(),
        resources: asked.resources_list_changed == Some(true) && offered.resources.is_some(),
        prompts: asked.prompts_list_changed == Some(true) && offered.prompts.is_some(),
    };
    let uris: Vec<String> = asked
        .resource_subscriptions
        .iter()
        .flatten()
        .filter(|uri| sets.resources.check_known(uri, Era::Modern).is_ok())
        .cloned()
        .collect();
    let tag: Value = serde_json::from_str(ctx.id().as_json())
        .map_err(|_| internal_error("the request id is not JSON"))?;
    let mut honored = serde_json::Map::new();
    for (key, on) in [
        ("toolsListChanged", lists.tools),
        ("resourcesListChanged", lists.resources),
        ("promptsListChanged", lists.prompts),
    ] {
        if on {
            let _none = honored.insert(key.to_owned(), Value::Bool(true));
        }
    }
    if asked.resource_subscriptions.is_some() && offered.resources.is_some() {
        let _none = honored.insert("resourceSubscriptions".to_owned(), json!(uris));
    }
    let acknowledgement = json!({
        "_meta": { SUBSCRIPTION_ID_KEY: tag },
        "notifications": honored,
    });
    if validate::subscriptions_acknowledged_notification_params(&acknowledgement).is_err() {
        return Err(internal_error("the acknowledgement could not be built"));
    }
    let raw = serde_json::value::to_raw_value(&acknowledgement)
        .map_err(|_| internal_error("the acknowledgement could not be built"))?;
    // Registered before the acknowledgement is sent, so that no change that happens while it
    // is on its way is lost, and held until it is queued, so that nothing of this stream
    // precedes it.
    let mut registration = state.subscriptions.listen(
        connection,
        ctx.peer().clone(),
        tag.clone(),
        lists,
        uris.into_iter().collect::<HashSet<_>>(),
    );
    if ctx
        .peer()
        .notify("notifications/subscriptions/acknowledged", Some(raw))
        .await
        .is_err()
    {
        return Err(internal_error("the stream closed"));
    }
    registration.acknowledged();
    tokio::select! {
        () = ctx.cancellation().cancelled() => {
            // Cancelled by the client (or at the end of the shutdown grace period): the
            // request loop answers nothing, or its own shutdown error.
            Err(internal_error("the subscription was cancelled"))
        }
        () = closing.cancelled() => {
            let result = json!({
                "resultType": "complete",
                "_meta": {
                    SUBSCRIPTION_ID_KEY: tag,
                    "io.modelcontextprotocol/serverInfo": state.info,
                },
            });
            if validate::subscriptions_listen_result(&result).is_err() {
                return Err(internal_error("the closing result could not be built"));
            }
            serde_json::value::to_raw_value(&result)
                .map_err(|_| internal_error("the closing result could not be built"))
        }
    }
}
