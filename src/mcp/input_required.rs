//! 2026-07-28 `input_required` results: a handler's questions to the client (sampling,
//! elicitation, roots) become `inputRequests`; the client retries with `inputResponses` and
//! the `requestState` it received, and the same handler runs again, now getting its answers.
//!
//! - **Keys.** A question asked with a key ([`ToolContext::ask`]) is filed under it; others
//!   under `<kind>-<n>` in the order asked. An answer that is not a JSON object is no answer
//!   (the question is asked again); answers to keys nobody asks for are ignored, and not
//!   carried into the next state. `inputResponses` that is not an object is `-32602`.
//! - **State.** `requestState` carries every answer the handler used so far, so a multi-round
//!   exchange needs only the latest `inputResponses`. It is sealed with HMAC-SHA256 under a
//!   signing key of the server's [`KeySet`] (shared by the instances of a cluster, see
//!   [`crate::secrets`]): altered state, or state sealed by a key the server does not have,
//!   is refused with `-32602` and never decoded. It is bound to the request it answers: the tool (or prompt) and its
//!   arguments, compared as canonical JSON, so a state cannot be replayed on another tool,
//!   a prompt of the same name, or the same tool with other arguments.
//! - **Capabilities.** A question the client's declared capabilities cannot answer fails in
//!   the handler with [`ClientRequestError::MissingCapability`] and is not sent (URL-mode
//!   elicitation needs `elicitation.url`).
//! - **URL mode.** A URL-mode elicitation is filed under its elicitation id and sent without
//!   `elicitationId`, which the 2026-07-28 request does not have.
//!
//! [`ToolContext::ask`]: crate::tools::ToolContext::ask

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{json, Map, Value};

use super::client_requests::missing_capability;
use super::outbound::{respond_value, ResultKind};
use super::params::{invalid_params, violation};
use crate::generated::protocol::InputRequiredResult;
use crate::secrets::KeySet;
use crate::server::HandlerResult;
use crate::tools::elicitation::{is_url_mode, COMPLETE_METHOD, ELICIT_METHOD};
use crate::tools::{ClientRequest, ClientRequestError, ClientRequester, RUN_AS_TASK};

/// The answers a `requestState` carries, sealed for `scope`.
pub(crate) fn seal_answers(
    keys: &KeySet,
    scope: &str,
    answers: &BTreeMap<String, Value>,
) -> String {
    keys.seal(scope, &serde_json::to_vec(answers).unwrap_or_default())
}

/// The answers `state` carries, if it is intact and was sealed for `scope` by a key of
/// the set.
pub(crate) fn open_answers(
    keys: &KeySet,
    scope: &str,
    state: &str,
) -> Option<BTreeMap<String, Value>> {
    serde_json::from_slice(&keys.open(scope, state)?).ok()
}

/// The answers of one retried request, and the questions its handler asks.
///
/// Every 2026-07-28 call has one, and most ask nothing: what a call that asks nothing leaves
/// empty costs nothing to drop (no answers is `None`, the questions and the keys used are
/// vectors, a handful at most).
#[derive(Debug)]
pub(crate) struct Inputs {
    /// `None` when the request brought no answer.
    answers: Option<BTreeMap<String, Value>>,
    declared: Value,
    /// The scope the request's state was opened for, when it carried one (see
    /// [`inputs_of`]); kept here rather than in the request's future, across its handler.
    scope: Option<String>,
    /// The questions asked without an answer, by key (a key asked again keeps its last
    /// question).
    asked: Mutex<Vec<(String, Value)>>,
    /// The keys of the answers the handler used: only these go into the next state.
    used: Mutex<Vec<String>>,
    counter: AtomicU64,
    /// The call may become a task in its handler ([`Inputs::allow_task`]).
    task_allowed: AtomicBool,
    /// The handler asked to run as a task ([`Inputs::task_requested`]).
    task_requested: AtomicBool,
}

impl Inputs {
    /// From the verified state's answers, this request's `inputResponses` (objects only),
    /// the client's declared capabilities and the request's scope, when known.
    pub(crate) fn new(
        mut answers: BTreeMap<String, Value>,
        responses: Option<&Value>,
        declared: Value,
        scope: Option<String>,
    ) -> Self {
        if let Some(Value::Object(responses)) = responses {
            for (key, answer) in responses {
                if answer.is_object() {
                    let _previous = answers.insert(key.clone(), answer.clone());
                }
            }
        }
        Self {
            answers: (!answers.is_empty()).then_some(answers),
            declared,
            scope,
            asked: Mutex::new(Vec::new()),
            used: Mutex::new(Vec::new()),
            counter: AtomicU64::new(0),
            task_allowed: AtomicBool::new(false),
            task_requested: AtomicBool::new(false),
        }
    }

    /// Lets the handler turn the call into a task
    /// ([`ToolContext::run_as_task`](crate::tools::ToolContext::run_as_task)): a tool whose
    /// task starts in its handler, called by a client that declared the Tasks extension.
    pub(crate) fn allow_task(&self) {
        self.task_allowed.store(true, Ordering::Relaxed);
    }

    /// Whether the handler asked to run as a task (then, unless it asked a question
    /// without an answer too, the call becomes a task: see [`Inputs::result`]).
    pub(crate) fn task_requested(&self) -> bool {
        self.task_requested.load(Ordering::Relaxed)
    }

    /// The answers the request brought (its `requestState`'s and its `inputResponses`),
    /// for the handler's run as a task.
    pub(crate) fn answers(&self) -> &BTreeMap<String, Value> {
        static NONE: BTreeMap<String, Value> = BTreeMap::new();
        self.answers.as_ref().unwrap_or(&NONE)
    }

    /// The client's declared capabilities.
    pub(crate) fn declared(&self) -> &Value {
        &self.declared
    }

    /// The requester a handler asks through.
    pub(crate) fn requester(self: &Arc<Self>) -> ClientRequester {
        let inputs = Arc::clone(self);
        Arc::new(move |request: ClientRequest| {
            let outcome = inputs.answer(request);
            Box::pin(async move { outcome })
        })
    }

    fn answer(&self, mut request: ClientRequest) -> Result<Value, ClientRequestError> {
        if request.method == RUN_AS_TASK {
            if !self.task_allowed.load(Ordering::Relaxed) {
                return Ok(Value::Bool(false));
            }
            self.task_requested.store(true, Ordering::Relaxed);
            return Err(ClientRequestError::BecomesTask);
        }
        if request.method == COMPLETE_METHOD {
            return Err(ClientRequestError::Unavailable(
                "2026-07-28 has no elicitation completion notification",
            ));
        }
        let number = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(capability) = missing_capability(&request, &self.declared) {
            return Err(ClientRequestError::MissingCapability(capability));
        }
        // 2026-07-28 URL-mode elicitations have no `elicitationId`: the key is their id.
        if request.method == ELICIT_METHOD && is_url_mode(&request.params) {
            if let Value::Object(params) = &mut request.params {
                let _id = params.remove("elicitationId");
            }
        }
        let key = request.key.unwrap_or_else(|| {
            let kind = request.method.split('/').next().unwrap_or("input");
            format!("{kind}-{number}")
        });
        if let Some(answer) = self.answers().get(&key) {
            let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
            if !used.contains(&key) {
                used.push(key);
            }
            return Ok(answer.clone());
        }
        let question = json!({"method": request.method, "params": request.params});
        let mut asked = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
        match asked.iter_mut().find(|(asked_key, _)| *asked_key == key) {
            Some((_, previous)) => *previous = question,
            None => asked.push((key, question)),
        }
        Err(ClientRequestError::InputRequired)
    }

    /// The `input_required` result when the handler asked anything it had no answer to;
    /// the request's scope (see [`request_scope`]) is the one [`inputs_of`] was given, or
    /// else `scope()`, asked for only then.
    pub(crate) fn result(
        &self,
        keys: &KeySet,
        scope: impl FnOnce() -> String,
    ) -> Option<HandlerResult> {
        let asked = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
        if asked.is_empty() {
            return None;
        }
        let scope = self.scope.clone().unwrap_or_else(scope);
        // By key, as before the questions were kept in asking order.
        let mut questions: Vec<&(String, Value)> = asked.iter().collect();
        questions.sort_by(|(a, _), (b, _)| a.cmp(b));
        let requests: Map<String, Value> = questions
            .into_iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        // Answers nobody asked for are not carried on: the state holds what the handler used.
        let used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        let kept: BTreeMap<String, Value> = self
            .answers()
            .iter()
            .filter(|(k, _)| used.contains(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let value = json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": seal_answers(keys, &scope, &kept),
        });
        Some(respond_value(
            ResultKind::of::<InputRequiredResult>(),
            &value,
        ))
    }
}

/// The requester of a handler run again as a task after its `input_required` rounds: a
/// question answered in those rounds gets its answer (keyless ones numbered as
/// [`Inputs`] numbers them, so the same question finds the same answer), any other goes
/// to `task`'s requester (it parks the task), and
/// [`ToolContext::run_as_task`](crate::tools::ToolContext::run_as_task) answers `true`.
pub(crate) fn answered_then(
    answers: BTreeMap<String, Value>,
    task: ClientRequester,
) -> ClientRequester {
    let counter = Arc::new(AtomicU64::new(0));
    Arc::new(move |mut request: ClientRequest| {
        if request.method == RUN_AS_TASK {
            return Box::pin(async { Ok(Value::Bool(true)) });
        }
        if request.method != COMPLETE_METHOD {
            let number = counter.fetch_add(1, Ordering::Relaxed) + 1;
            let key = request.key.take().unwrap_or_else(|| {
                let kind = request.method.split('/').next().unwrap_or("input");
                format!("{kind}-{number}")
            });
            if let Some(answer) = answers.get(&key) {
                let answer = answer.clone();
                return Box::pin(async move { Ok(answer) });
            }
            request.key = Some(key);
        }
        task(request)
    })
}

/// The scope a `requestState` is sealed for: what the request is (`tool` or `prompt`), its
/// name and its arguments as canonical JSON (absent arguments as `null`), each part
/// length-prefixed so that no two requests share a scope.
pub(crate) fn request_scope(kind: &str, name: &str, arguments: &Value) -> String {
    let arguments = crate::cache::canonical_json(arguments);
    format!(
        "{kind}:{}:{name}:{}:{arguments}",
        name.len(),
        arguments.len()
    )
}

/// The scope of a `tools/call` of `name` whose params were `raw`: [`request_scope`] of its
/// arguments read again from the params as received (the same value the call decoded:
/// `arguments` when it is an object, else `null`).
pub(crate) fn tool_scope(name: &str, raw: Option<&serde_json::value::RawValue>) -> String {
    let arguments = raw
        .and_then(|raw| crate::jsonrpc::to_value(raw).ok())
        .and_then(|params| match params {
            Value::Object(mut members) => members.remove("arguments"),
            _ => None,
        })
        .filter(Value::is_object)
        .unwrap_or(Value::Null);
    request_scope("tool", name, &arguments)
}

/// Whether a 2026-07-28 request's params carry a `requestState`: only then is the request's
/// scope needed before its handler runs (to open the state), so only then is it computed
/// (a canonical copy of the arguments, as long as they are).
pub(crate) fn carries_state(params: &Map<String, Value>) -> bool {
    params.contains_key("requestState")
}

/// The inputs of a (possibly retried) 2026-07-28 request sealed for `scope`: the answers
/// its `requestState` carries and its `inputResponses`, read from the params' members.
/// `scope` is `None` only for params without a `requestState` ([`carries_state`]); it is
/// kept in the inputs for [`Inputs::result`].
pub(crate) fn inputs_of(
    keys: &KeySet,
    scope: Option<String>,
    params: &Map<String, Value>,
    declared: Value,
) -> Result<Arc<Inputs>, crate::jsonrpc::ErrorObject<'static>> {
    let responses = params.get("inputResponses");
    let answers = answers_of(
        keys,
        scope.as_deref(),
        params.get("requestState"),
        responses,
    )?;
    Ok(Arc::new(Inputs::new(answers, responses, declared, scope)))
}

/// The answers a retried request's `requestState` carries (none without one); its
/// `inputResponses`, when present, must be an object (`-32602` otherwise).
fn answers_of(
    keys: &KeySet,
    scope: Option<&str>,
    state: Option<&Value>,
    responses: Option<&Value>,
) -> Result<BTreeMap<String, Value>, crate::jsonrpc::ErrorObject<'static>> {
    if responses.is_some_and(|responses| !responses.is_object()) {
        return Err(invalid_params(
            "the inputResponses must be an object",
            vec![violation("/inputResponses", "type", "not an object")],
        ));
    }
    match state {
        None => Ok(BTreeMap::new()),
        Some(Value::String(state)) => scope
            .and_then(|scope| open_answers(keys, scope, state))
            .ok_or_else(|| {
                invalid_params(
                    "the requestState was altered or belongs to another request",
                    vec![violation(
                        "/requestState",
                        "requestState",
                        "not a state this server sealed",
                    )],
                )
            }),
        Some(_) => Err(invalid_params(
            "the requestState must be a string",
            vec![violation("/requestState", "type", "not a string")],
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_state_opens_only_intact_and_in_its_scope() {
        let keys = KeySet::random().unwrap();
        let mut answers = BTreeMap::new();
        let _none = answers.insert("a".to_owned(), json!({"x": 1}));
        let state = seal_answers(&keys, "tool", &answers);
        assert_eq!(open_answers(&keys, "tool", &state), Some(answers));
        assert_eq!(open_answers(&keys, "other", &state), None);
        assert_eq!(
            open_answers(&keys, "tool", &format!("{state}-TAMPERED")),
            None
        );
        assert_eq!(
            open_answers(&KeySet::random().unwrap(), "tool", &state),
            None
        );
        let (sealed, tag) = state.rsplit_once('.').unwrap();
        let (id, _payload) = sealed.split_once('.').unwrap();
        let forged = base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            br#"{"a":{"x":2}}"#,
        );
        assert_eq!(
            open_answers(&keys, "tool", &format!("{id}.{forged}.{tag}")),
            None
        );
        assert!(open_answers(&keys, "tool", sealed).is_none());
    }
}
