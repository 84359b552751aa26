//! The running side of tasks: creating a task and running its work, the tasks of this
//! instance that are still running (their cancellation and pending questions), and the
//! answers to `tasks/get`, `tasks/update` and `tasks/cancel`.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{json, Map, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::store::TaskRecord;
use super::{now_ms, rfc3339, TaskOptions, TASKS_EXTENSION};
use crate::generated::tasks::{CreateTaskResult, DetailedTask, TaskAck, TaskStatus};
use crate::jsonrpc::{ErrorCode, ErrorObject};
use crate::mcp::client_requests::missing_capability;
use crate::mcp::outbound::{parse_rendered, respond_value, ResultKind};
use crate::mcp::params::{error_with_data, internal_error, invalid_params, violation};
use crate::server::HandlerResult;
use crate::tools::{ClientRequest, ClientRequestError, ClientRequester};

/// The tasks of a server: the store, and the tasks this instance runs.
#[derive(Debug)]
pub(crate) struct Tasks {
    options: TaskOptions,
    live: Mutex<HashMap<String, Arc<Live>>>,
}

/// A task this instance runs.
#[derive(Debug)]
struct Live {
    /// Stops the handler (`tasks/cancel`).
    cancel: CancellationToken,
    /// The task's record and its pending questions; every write of the record on this
    /// instance happens under this lock, so a late end never overwrites `cancelled`.
    state: Mutex<LiveState>,
}

#[derive(Debug)]
struct LiveState {
    record: TaskRecord,
    /// The questions waiting for `tasks/update`, by key.
    pending: BTreeMap<String, (Value, oneshot::Sender<Value>)>,
    /// Questions asked so far (names keyless ones `<kind>-<n>`).
    asked: u64,
}

/// `-32021` for a tasks method or a task-only tool used without the extension.
pub(crate) fn not_negotiated(message: &str) -> ErrorObject<'static> {
    error_with_data(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        message.to_owned(),
        &json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}),
    )
}

/// `-32602` for a task id that is unknown, expired or another identity's (one answer for
/// all three, so nothing is learnt about other tasks; the id is not quoted).
fn unknown_task() -> ErrorObject<'static> {
    invalid_params(
        "unknown task",
        vec![violation("/taskId", "enum", "no task of this id")],
    )
}

fn store_failed(error: &super::TaskStoreError) -> ErrorObject<'static> {
    tracing::error!(%error, "the task store failed");
    internal_error("the task store is unavailable")
}

/// The task id: 128 random bits, hex.
fn new_task_id() -> Result<String, ErrorObject<'static>> {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes).map_err(|_| internal_error("no randomness for a task id"))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

impl Tasks {
    pub(crate) fn new(options: TaskOptions) -> Self {
        Self {
            options,
            live: Mutex::new(HashMap::new()),
        }
    }

    /// Creates a task for `owner`, stores it, starts `work` on its own tokio task and
    /// answers with the `CreateTaskResult`. `work` gets the task's cancellation token and
    /// the requester that parks the task on a question.
    pub(crate) fn start<F, Fut>(
        self: &Arc<Self>,
        owner: Option<String>,
        declared: Value,
        work: F,
    ) -> HandlerResult
    where
        F: FnOnce(CancellationToken, ClientRequester) -> Fut,
        Fut: Future<Output = HandlerResult> + Send + 'static,
    {
        let now = now_ms();
        let ttl_ms = u64::try_from(self.options.ttl.as_millis()).unwrap_or(u64::MAX);
        let record = TaskRecord {
            id: new_task_id()?,
            owner,
            status: TaskStatus::Working,
            status_message: None,
            created_at: rfc3339(now),
            last_updated_at: rfc3339(now),
            ttl_ms,
            poll_interval_ms: u64::try_from(self.options.poll_interval.as_millis())
                .unwrap_or(u64::MAX),
            expires_at_ms: now.saturating_add(ttl_ms),
            result: None,
            error: None,
            input_requests: None,
        };
        // Stored before the answer: an immediate tasks/get finds it.
        self.options
            .store
            .put(&record)
            .map_err(|e| store_failed(&e))?;
        let answer = created(&record);
        let id = record.id.clone();
        let live = Arc::new(Live {
            cancel: CancellationToken::new(),
            state: Mutex::new(LiveState {
                record,
                pending: BTreeMap::new(),
                asked: 0,
            }),
        });
        let _previous = self
            .live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), Arc::clone(&live));
        let requester = self.requester(Arc::clone(&live), declared);
        let running = work(live.cancel.clone(), requester);
        let tasks = Arc::clone(self);
        drop(tokio::spawn(async move {
            // The runner notices a cancel only when its caller polls it (the request task
            // waits on the token for a call; nothing does for a task): the work is dropped
            // here on `tasks/cancel`, which stops the handler.
            let cancel = live.cancel.clone();
            let outcome = tokio::select! {
                outcome = running => outcome,
                () = cancel.cancelled() => Err(internal_error("the task was cancelled")),
            };
            tasks.finish(&id, &live, outcome);
        }));
        answer
    }

    /// Records the end of a task's work (unless it was cancelled meanwhile).
    fn finish(&self, id: &str, live: &Live, outcome: HandlerResult) {
        {
            let mut state = live.state.lock().unwrap_or_else(PoisonError::into_inner);
            if !state.record.is_terminal() {
                let record = &mut state.record;
                match outcome {
                    Ok(rendered) => match parse_rendered(&rendered) {
                        Ok(result) if failed_unexpectedly(&result) => {
                            record.status = TaskStatus::Failed;
                            record.error = Some(json!({
                                "code": ErrorCode::INTERNAL_ERROR.0,
                                "message": "the tool failed unexpectedly",
                            }));
                        }
                        Ok(result) => {
                            record.status = TaskStatus::Completed;
                            record.result = Some(result);
                        }
                        Err(error) => record.fail(&error),
                    },
                    Err(error) => record.fail(&error),
                }
                record.input_requests = None;
                record.last_updated_at = rfc3339(now_ms());
                if let Err(error) = self.options.store.put(record) {
                    let _logged = store_failed(&error);
                }
            }
        }
        let _gone = self
            .live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
    }

    /// The record of `id` if `owner` may see it.
    fn record(&self, owner: Option<&str>, id: &str) -> Result<TaskRecord, ErrorObject<'static>> {
        let live = self.live_task(id);
        let record = match live {
            Some(live) => Some(
                live.state
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .record
                    .clone(),
            ),
            None => self
                .options
                .store
                .get(id, now_ms())
                .map_err(|e| store_failed(&e))?,
        };
        match record {
            Some(record) if record.owner.as_deref() == owner && record.expires_at_ms > now_ms() => {
                Ok(record)
            }
            _ => Err(unknown_task()),
        }
    }

    fn live_task(&self, id: &str) -> Option<Arc<Live>> {
        self.live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// `tasks/get`.
    pub(crate) fn get(&self, owner: Option<&str>, id: &str) -> HandlerResult {
        let record = self.record(owner, id)?;
        respond_value(ResultKind::of::<DetailedTask>(), &detailed(&record))
    }

    /// `tasks/cancel`: stops the work and settles the task as `cancelled`; a terminal task
    /// is left as it is. Acknowledged either way.
    pub(crate) fn cancel(&self, owner: Option<&str>, id: &str) -> HandlerResult {
        let mut record = self.record(owner, id)?;
        match self.live_task(id) {
            Some(live) => {
                let mut state = live.state.lock().unwrap_or_else(PoisonError::into_inner);
                if !state.record.is_terminal() {
                    live.cancel.cancel();
                    state.pending.clear();
                    let record = &mut state.record;
                    record.status = TaskStatus::Cancelled;
                    record.input_requests = None;
                    record.last_updated_at = rfc3339(now_ms());
                    self.options
                        .store
                        .put(record)
                        .map_err(|e| store_failed(&e))?;
                }
            }
            None if !record.is_terminal() => {
                // Running on another instance (or lost with a restart): settle it here.
                record.status = TaskStatus::Cancelled;
                record.input_requests = None;
                record.last_updated_at = rfc3339(now_ms());
                self.options
                    .store
                    .put(&record)
                    .map_err(|e| store_failed(&e))?;
            }
            None => {}
        }
        ack()
    }

    /// `tasks/update`: delivers the answers to questions the task waits for; answers to
    /// other keys, or that are not objects, are ignored. Acknowledged.
    pub(crate) fn update(
        &self,
        owner: Option<&str>,
        id: &str,
        responses: &Map<String, Value>,
    ) -> HandlerResult {
        let _visible = self.record(owner, id)?;
        if let Some(live) = self.live_task(id) {
            let mut state = live.state.lock().unwrap_or_else(PoisonError::into_inner);
            for (key, answer) in responses {
                if !answer.is_object() {
                    continue;
                }
                if let Some((_question, sender)) = state.pending.remove(key) {
                    let _delivered = sender.send(answer.clone());
                }
            }
            self.park(&mut state);
        }
        ack()
    }

    /// Writes the pending questions into the record: `input_required` while any waits,
    /// `working` once none does.
    fn park(&self, state: &mut LiveState) {
        if state.record.is_terminal() {
            return;
        }
        let pending: Map<String, Value> = state
            .pending
            .iter()
            .map(|(key, (question, _))| (key.clone(), question.clone()))
            .collect();
        let record = &mut state.record;
        if pending.is_empty() {
            record.status = TaskStatus::Working;
            record.input_requests = None;
        } else {
            record.status = TaskStatus::InputRequired;
            record.input_requests = Some(pending);
        }
        record.last_updated_at = rfc3339(now_ms());
        if let Err(error) = self.options.store.put(record) {
            let _logged = store_failed(&error);
        }
    }

    /// The requester of a task's handler: a question parks the task until `tasks/update`
    /// brings its answer.
    fn requester(self: &Arc<Self>, live: Arc<Live>, declared: Value) -> ClientRequester {
        let tasks = Arc::clone(self);
        Arc::new(move |request: ClientRequest| {
            let tasks = Arc::clone(&tasks);
            let live = Arc::clone(&live);
            let missing = missing_capability(&request, &declared);
            Box::pin(async move {
                if let Some(capability) = missing {
                    return Err(ClientRequestError::MissingCapability(capability));
                }
                let (sender, receiver) = oneshot::channel();
                {
                    let mut state = live.state.lock().unwrap_or_else(PoisonError::into_inner);
                    if state.record.is_terminal() {
                        return Err(ClientRequestError::Closed);
                    }
                    state.asked += 1;
                    let key = request.key.clone().unwrap_or_else(|| {
                        let kind = request.method.split('/').next().unwrap_or("input");
                        format!("{kind}-{}", state.asked)
                    });
                    let question = json!({"method": request.method, "params": request.params});
                    let _replaced = state.pending.insert(key, (question, sender));
                    tasks.park(&mut state);
                }
                receiver.await.map_err(|_| ClientRequestError::Closed)
            })
        })
    }
}

impl TaskRecord {
    /// Ends the task as `failed` with `error`.
    fn fail(&mut self, error: &ErrorObject<'_>) {
        self.status = TaskStatus::Failed;
        let mut inlined = json!({"code": error.code.0, "message": error.message.as_ref()});
        if let Some(data) = error
            .data
            .as_ref()
            .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        {
            inlined["data"] = data;
        }
        self.error = Some(inlined);
    }
}

/// Whether a tool result reports an unexpected failure of the tool (a panic, `INTERNAL`):
/// a protocol-level error for a task, not a tool error.
fn failed_unexpectedly(result: &Value) -> bool {
    result["isError"] == true && result["structuredContent"]["error"]["code"] == "INTERNAL"
}

/// The members every task answer shares.
fn task_members(record: &TaskRecord) -> Map<String, Value> {
    let mut members = Map::new();
    members.insert("taskId".to_owned(), Value::from(record.id.clone()));
    members.insert(
        "status".to_owned(),
        serde_json::to_value(record.status).unwrap_or(Value::Null),
    );
    if let Some(message) = &record.status_message {
        members.insert("statusMessage".to_owned(), Value::from(message.clone()));
    }
    members.insert(
        "createdAt".to_owned(),
        Value::from(record.created_at.clone()),
    );
    members.insert(
        "lastUpdatedAt".to_owned(),
        Value::from(record.last_updated_at.clone()),
    );
    members.insert("ttlMs".to_owned(), Value::from(record.ttl_ms));
    members.insert(
        "pollIntervalMs".to_owned(),
        Value::from(record.poll_interval_ms),
    );
    members
}

/// The `CreateTaskResult` of a new task.
fn created(record: &TaskRecord) -> HandlerResult {
    let mut members = task_members(record);
    members.insert("resultType".to_owned(), Value::from("task"));
    respond_value(
        ResultKind::of::<CreateTaskResult>(),
        &Value::Object(members),
    )
}

/// The `tasks/get` answer of a task.
fn detailed(record: &TaskRecord) -> Value {
    let mut members = task_members(record);
    members.insert("resultType".to_owned(), Value::from("complete"));
    match record.status {
        TaskStatus::Completed => {
            if let Some(result) = &record.result {
                members.insert("result".to_owned(), result.clone());
            }
        }
        TaskStatus::Failed => {
            if let Some(error) = &record.error {
                members.insert("error".to_owned(), error.clone());
            }
        }
        TaskStatus::InputRequired => {
            if let Some(requests) = &record.input_requests {
                members.insert("inputRequests".to_owned(), Value::Object(requests.clone()));
            }
        }
        _ => {}
    }
    Value::Object(members)
}

/// The acknowledgement of `tasks/cancel` and `tasks/update`.
fn ack() -> HandlerResult {
    respond_value(
        ResultKind::of::<TaskAck>(),
        &json!({"resultType": "complete"}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(value: &Value) -> HandlerResult {
        Ok(serde_json::value::to_raw_value(value).unwrap())
    }

    #[tokio::test]
    async fn another_identity_sees_no_task_and_learns_nothing() {
        let tasks = Arc::new(Tasks::new(TaskOptions::new()));
        let created = tasks
            .start(
                Some("sub:alice".to_owned()),
                json!({}),
                |_cancel, _ask| async {
                    rendered(&json!({"resultType": "complete", "content": []}))
                },
            )
            .unwrap();
        let created: Value = serde_json::from_str(created.get()).unwrap();
        let id = created["taskId"].as_str().unwrap();
        assert!(tasks.get(Some("sub:alice"), id).is_ok());
        let unknown = tasks.get(Some("sub:alice"), "no-such-task").unwrap_err();
        for intruder in [Some("sub:mallory"), None] {
            let refused = tasks.get(intruder, id).unwrap_err();
            assert_eq!(refused.code, ErrorCode::INVALID_PARAMS);
            // The same answer as for a task that does not exist.
            assert_eq!(refused.message, unknown.message);
            assert!(tasks.cancel(intruder, id).is_err());
        }
    }

    #[tokio::test]
    async fn a_panicking_handler_fails_the_task_and_a_tool_error_completes_it() {
        let tasks = Arc::new(Tasks::new(TaskOptions::new()));
        let internal = json!({"resultType": "complete", "isError": true, "content": [],
            "structuredContent": {"ok": false, "error": {"code": "INTERNAL", "message": "x"}}});
        let failed = json!({"resultType": "complete", "isError": true, "content": [],
            "structuredContent": {"ok": false, "error": {"code": "TOOL_FAILED", "message": "x"}}});
        let mut ids = Vec::new();
        for result in [internal, failed] {
            let created = tasks
                .start(None, json!({}), move |_cancel, _ask| async move {
                    rendered(&result)
                })
                .unwrap();
            let created: Value = serde_json::from_str(created.get()).unwrap();
            ids.push(created["taskId"].as_str().unwrap().to_owned());
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let answer = |id: &str| -> Value {
            serde_json::from_str(tasks.get(None, id).unwrap().get()).unwrap()
        };
        let first = answer(&ids[0]);
        assert_eq!(first["status"], "failed", "{first}");
        assert_eq!(first["error"]["code"], -32603);
        assert!(first.get("result").is_none());
        let second = answer(&ids[1]);
        assert_eq!(second["status"], "completed", "{second}");
        assert_eq!(second["result"]["isError"], true);
    }
}
