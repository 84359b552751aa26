//! A 2025 session another instance opened, rebuilt in this process from its record in a
//! shared [`SessionStore`](super::SessionStore): the `initialize` request answered again on
//! a new connection, `notifications/initialized`, then the resource subscriptions. And the
//! record kept up to date when the client subscribes or unsubscribes.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::jsonrpc::{BatchPolicy, Id, Request};
use crate::mcp::{Connection, ServerState};
use crate::server::{NotificationContext, SharedAuth, SharedBatchPolicy};

use super::exchange::{self, Answer, Delivery};
use super::sessions::{HttpSession, NewSession, SessionTable};

/// Whether `id` has the form of this server's session ids (64 hex digits): anything else is
/// not looked up in the store.
fn is_session_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Runs `method` with `params` on `connection` as the client would; whether it succeeded.
async fn replay(
    connection: &Arc<Connection>,
    id: u64,
    method: &'static str,
    params: Box<RawValue>,
    auth: SharedAuth,
) -> bool {
    let request = Request {
        id: Id::from_u64(id),
        method: Cow::Borrowed(method),
        params: Some(Cow::Owned(params)),
    };
    let answer = exchange::run(
        Arc::clone(connection),
        request,
        CancellationToken::new(),
        Delivery::JsonOnly,
        None,
        auth,
        None,
    )
    .await;
    succeeded(&answer)
}

/// Session `id` from the shared store, opened in this process; `None` when the store is not
/// shared, holds no such session, or cannot be read.
pub(crate) async fn restore(
    state: &Arc<ServerState>,
    table: &SessionTable,
    id: &str,
    auth: SharedAuth,
) -> Option<Arc<HttpSession>> {
    let store = table.store();
    if !store.is_shared() || !is_session_id(id) {
        return None;
    }
    let record = match store.load(id).await {
        Ok(record) => record?,
        Err(error) => {
            tracing::warn!(%error, "a session could not be looked up in the shared store");
            return None;
        }
    };
    let Ok(params) = RawValue::from_string(record.initialize.clone()) else {
        tracing::warn!("a stored session record is malformed");
        return None;
    };
    let batches = SharedBatchPolicy::new(BatchPolicy::Reject);
    let connection = Arc::new(Connection::new(Arc::clone(state), batches.clone()));
    if !replay(&connection, 0, "initialize", params, auth.clone()).await {
        tracing::warn!("a stored session's initialize is no longer accepted");
        return None;
    }
    let version = connection
        .legacy_version()
        .filter(|version| *version == record.version)?;
    let subscriptions = record.subscriptions.clone();
    let session = table.build(
        id,
        NewSession {
            connection: Arc::clone(&connection),
            batches,
            version,
            record,
        },
    );
    connection.set_standalone(session.standalone.clone());
    connection
        .deliver_notification(
            NotificationContext::new(session.standalone.clone()),
            "notifications/initialized",
            None,
        )
        .await;
    for (n, uri) in (1_u64..).zip(subscriptions) {
        let params = serde_json::json!({ "uri": uri }).to_string();
        let Ok(params) = RawValue::from_string(params) else {
            continue;
        };
        if !replay(&connection, n, "resources/subscribe", params, auth.clone()).await {
            tracing::warn!("a stored resource subscription is no longer accepted");
        }
    }
    match table.insert(session) {
        Ok(session) => {
            tracing::debug!("HTTP session rebuilt from the shared store");
            Some(session)
        }
        Err(error) => {
            tracing::warn!(?error, "a stored session could not be opened here");
            None
        }
    }
}

/// Brings a session this process has up to date with its record in a shared store (read on
/// every request: another instance may have changed its subscriptions, or ended it).
/// `false` when the store no longer has the session: it was deleted or expired elsewhere.
/// A store that cannot be read leaves the session as it is.
pub(crate) async fn sync(session: &HttpSession, auth: SharedAuth) -> bool {
    if !session.store.is_shared() {
        return true;
    }
    let stored = match session.store.load(&session.id).await {
        Ok(Some(stored)) => stored,
        Ok(None) => return false,
        Err(error) => {
            tracing::warn!(%error, "a session's record could not be read: used as it is");
            return true;
        }
    };
    let local = session.record().subscriptions;
    if local == stored.subscriptions {
        return true;
    }
    let added = stored
        .subscriptions
        .iter()
        .filter(|uri| !local.contains(uri));
    let removed = local
        .iter()
        .filter(|uri| !stored.subscriptions.contains(uri));
    let changes = added
        .map(|uri| ("resources/subscribe", uri))
        .chain(removed.map(|uri| ("resources/unsubscribe", uri)));
    for (n, (method, uri)) in (1_u64..).zip(changes) {
        let params = serde_json::json!({ "uri": uri }).to_string();
        let Ok(params) = RawValue::from_string(params) else {
            continue;
        };
        if !replay(&session.connection, n, method, params, auth.clone()).await {
            tracing::warn!(method, "a stored subscription change is not accepted here");
        }
    }
    session.set_record(stored);
    true
}

/// The subscription change a request makes, if it is `resources/subscribe` or
/// `resources/unsubscribe`: (subscribe?, uri).
pub(crate) fn subscription_change(request: &Request<'_>) -> Option<(bool, String)> {
    let subscribe = match request.method.as_ref() {
        "resources/subscribe" => true,
        "resources/unsubscribe" => false,
        _ => return None,
    };
    #[derive(serde::Deserialize)]
    struct Params {
        uri: String,
    }
    let params: Params = serde_json::from_str(request.params.as_deref()?.get()).ok()?;
    Some((subscribe, params.uri))
}

/// Whether `answer` is a success (a JSON result).
pub(crate) fn succeeded(answer: &Answer) -> bool {
    matches!(answer, Answer::Json(response) if !response.is_error())
}

/// Records in the session's record a subscription change that succeeded.
pub(crate) async fn track_subscription(
    session: &HttpSession,
    change: Option<(bool, String)>,
    succeeded: bool,
) {
    let Some((subscribe, uri)) = change else {
        return;
    };
    if !succeeded {
        return;
    }
    session
        .update_record(|record| {
            record.subscriptions.retain(|kept| *kept != uri);
            if subscribe {
                record.subscriptions.push(uri);
            }
        })
        .await;
}
