//! Requests the server sends to the client in the 2025 versions (sampling, elicitation,
//! roots): ids, the table of requests awaiting their answer, the requester a tool call
//! gets, and the client capability each request needs (both eras).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};
use tokio::sync::oneshot;

use crate::jsonrpc::{Id, Response, ResponsePayload};
use crate::server::Peer;
use crate::tools::elicitation::{is_url_mode, COMPLETE_METHOD, ELICIT_METHOD};
use crate::tools::{ClientRequest, ClientRequestError, ClientRequester, RUN_AS_TASK};

/// The server's requests awaiting the client's answer, by id.
#[derive(Debug, Default)]
pub(crate) struct PendingRequests {
    next_id: AtomicU64,
    waiting: Mutex<HashMap<String, oneshot::Sender<Response<'static>>>>,
}

/// Removes a request from the table when its waiter goes away (answered, cancelled, timed
/// out).
struct Waiting {
    pending: Arc<PendingRequests>,
    id: String,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let _gone = self
            .pending
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

impl PendingRequests {
    /// Hands a response from the client to the request waiting for it; `false` when no
    /// request of ours has its id (logged by the caller).
    pub(crate) fn deliver(&self, response: Response<'static>) -> bool {
        let Some(id) = response.id.as_ref().map(|id| id.as_json().to_owned()) else {
            return false;
        };
        let waiter = self
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        match waiter {
            Some(waiter) => waiter.send(response).is_ok(),
            None => false,
        }
    }
}

/// Whether `declared` (a client's capabilities object) has the member at `path`, dotted
/// when nested (`sampling`, `elicitation.url`).
pub(crate) fn declares(declared: &Value, path: &str) -> bool {
    path.split('.')
        .try_fold(declared, |value, name| value.get(name))
        .is_some()
}

/// A `ClientCapabilities` object declaring every member of `paths` (`{}` leaves), for
/// `data.requiredCapabilities` of `-32021`.
pub(crate) fn capabilities_object<'a>(paths: impl IntoIterator<Item = &'a str>) -> Value {
    let mut object = Value::Object(Map::new());
    for path in paths {
        let mut at = &mut object;
        for name in path.split('.') {
            let Value::Object(map) = at else { break };
            at = map
                .entry(name.to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
        }
    }
    object
}

/// The capability `request` needs that `declared` lacks, if any. Elicitation depends on the
/// mode: URL mode needs `elicitation.url`; form mode needs `elicitation.form`, or an
/// `elicitation` that names no mode (2025-06-18 clients; form only by the 2025-11-25 rule).
pub(crate) fn missing_capability(
    request: &ClientRequest,
    declared: &Value,
) -> Option<&'static str> {
    let needed = match request.method {
        "sampling/createMessage" => "sampling",
        "roots/list" => "roots",
        ELICIT_METHOD if is_url_mode(&request.params) => "elicitation.url",
        COMPLETE_METHOD => "elicitation.url",
        ELICIT_METHOD if declares(declared, "elicitation.url") => "elicitation.form",
        ELICIT_METHOD => "elicitation",
        _ => return None,
    };
    (!declares(declared, needed)).then_some(needed)
}

/// A requester sending through `peer`, for a client that declared `capabilities`.
pub(crate) fn requester(
    pending: Arc<PendingRequests>,
    peer: Peer,
    capabilities: Value,
) -> ClientRequester {
    Arc::new(move |request: ClientRequest| {
        if request.method == RUN_AS_TASK {
            // No task in the 2025 versions: the call goes on as it is.
            return Box::pin(async { Ok(Value::Bool(false)) });
        }
        let missing = missing_capability(&request, &capabilities);
        let ClientRequest { method, params, .. } = request;
        let pending = Arc::clone(&pending);
        let peer = peer.clone();
        Box::pin(async move {
            if let Some(name) = missing {
                return Err(ClientRequestError::MissingCapability(name));
            }
            let params = serde_json::value::to_raw_value(&params).map_err(|_| {
                ClientRequestError::Malformed("the params do not serialize".to_owned())
            })?;
            if method == COMPLETE_METHOD {
                peer.notify(method, Some(params))
                    .await
                    .map_err(|_| ClientRequestError::Closed)?;
                return Ok(Value::Null);
            }
            let number = pending.next_id.fetch_add(1, Ordering::Relaxed);
            let id = Id::from_string(&format!("typed-mcp-{number}"));
            let (sender, receiver) = oneshot::channel();
            let key = id.as_json().to_owned();
            let _previous = pending
                .waiting
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(key.clone(), sender);
            let _waiting = Waiting {
                pending: Arc::clone(&pending),
                id: key,
            };
            peer.request(id, method, Some(params))
                .await
                .map_err(|_| ClientRequestError::Closed)?;
            let response = receiver.await.map_err(|_| ClientRequestError::Closed)?;
            match response.payload {
                ResponsePayload::Result(raw) => {
                    let value: Value = serde_json::from_str(raw.get()).map_err(|_| {
                        ClientRequestError::Malformed("the result is not JSON".to_owned())
                    })?;
                    if value.is_object() {
                        Ok(value)
                    } else {
                        Err(ClientRequestError::Malformed(
                            "the result is not an object".to_owned(),
                        ))
                    }
                }
                ResponsePayload::Error(error) => Err(ClientRequestError::Refused {
                    code: error.code.0,
                    message: error.message.into_owned(),
                }),
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request(method: &'static str, params: Value) -> ClientRequest {
        ClientRequest {
            key: None,
            method,
            params,
        }
    }

    #[test]
    fn each_request_needs_its_capability_and_elicitation_its_mode() {
        let form = request("elicitation/create", json!({"message": "m"}));
        let url = request("elicitation/create", json!({"mode": "url"}));
        let complete = request("notifications/elicitation/complete", json!({}));
        let cases = [
            (
                json!({}),
                [
                    Some("elicitation"),
                    Some("elicitation.url"),
                    Some("elicitation.url"),
                ],
            ),
            (
                json!({"elicitation": {}}),
                [None, Some("elicitation.url"), Some("elicitation.url")],
            ),
            (
                json!({"elicitation": {"form": {}}}),
                [None, Some("elicitation.url"), Some("elicitation.url")],
            ),
            (
                json!({"elicitation": {"url": {}}}),
                [Some("elicitation.form"), None, None],
            ),
            (
                json!({"elicitation": {"form": {}, "url": {}}}),
                [None, None, None],
            ),
        ];
        for (declared, wanted) in cases {
            let found = [&form, &url, &complete].map(|r| missing_capability(r, &declared));
            assert_eq!(found, wanted, "{declared}");
        }
        let sampling = request("sampling/createMessage", json!({}));
        assert_eq!(missing_capability(&sampling, &json!({})), Some("sampling"));
        assert_eq!(
            missing_capability(&sampling, &json!({"sampling": {}})),
            None
        );
    }

    #[test]
    fn required_capabilities_nest_dotted_paths() {
        assert_eq!(
            capabilities_object(["sampling", "elicitation.url", "elicitation.form"]),
            json!({"sampling": {}, "elicitation": {"url": {}, "form": {}}})
        );
        assert!(declares(
            &json!({"elicitation": {"url": {}}}),
            "elicitation.url"
        ));
        assert!(!declares(&json!({"elicitation": {}}), "elicitation.url"));
    }
}
