//! The running side of tasks: creating a task and running its work, the tasks of this
//! instance that are still running (their cancellation and pending questions), and the
//! answers to `tasks/get`, `tasks/update` and `tasks/cancel`.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{json, Map, Value};
use tokio::sync::{oneshot, Mutex as AsyncMutex};
use tokio_util::sync::CancellationToken;

use super::store::TaskRecord;
use super::{now_ms, rfc3339, TaskOptions, TASKS_EXTENSION};
use crate::generated::tasks::{CreateTaskResult, DetailedTask, TaskAck, TaskStatus};
use crate::jsonrpc::{ErrorCode, ErrorObject};
use crate::mcp::client_requests::missing_capability;
use crate::mcp::outbound::{parse_rendered, respond_value, ResultKind};
use crate::mcp::params::{error_with_data, internal_error, invalid_params, violation};
use crate::server::HandlerResult;
use crate::tools::{ClientRequest, ClientRequestError, ClientRequester, RUN_AS_TASK};

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
    /// instance happens under this lock (held across the store's write, so this
    /// instance's writes reach the store in order). Across instances, the store refuses
    /// to replace an ended record: a late end never overwrites `cancelled`.
    state: AsyncMutex<LiveState>,
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

/// Whether `id` can be a task id this server issued (32 hex digits): any other is unknown
/// without asking the store.
fn well_formed(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// Settles `record` as `cancelled`.
fn settle_cancelled(record: &mut TaskRecord) {
    record.status = TaskStatus::Cancelled;
    record.input_requests = None;
    record.last_updated_at = rfc3339(now_ms());
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
    pub(crate) async fn start<F, Fut>(
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
        // Stored before the answer: an immediate tasks/get finds it, on any instance.
        let _stored = self
            .options
            .store
            .put(&record)
            .await
            .map_err(|e| store_failed(&e))?;
        let answer = created(&record);
        let id = record.id.clone();
        let live = Arc::new(Live {
            cancel: CancellationToken::new(),
            state: AsyncMutex::new(LiveState {
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
            // here on `tasks/cancel`, which stops the handler. On a shared store, `watch`
            // ends it too when another instance cancelled the task.
            let cancel = live.cancel.clone();
            let outcome = tokio::select! {
                outcome = running => Some(outcome),
                () = cancel.cancelled() => None,
                () = tasks.watch(&id, &live) => None,
            };
            tasks.finish(&id, &live, outcome).await;
        }));
        answer
    }

    /// While a task runs on a shared store, every poll interval: ends when another instance
    /// cancelled the task (or it expired), and delivers the answers other instances
    /// received for it. Never ends on an unshared store.
    async fn watch(&self, id: &str, live: &Live) {
        if !self.options.store.is_shared() {
            return std::future::pending().await;
        }
        let mut tick = tokio::time::interval(self.options.poll_interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let _first = tick.tick().await;
        loop {
            let _ticked = tick.tick().await;
            match self.options.store.get(id, now_ms()).await {
                Ok(Some(stored)) if stored.is_terminal() => {
                    let mut state = live.state.lock().await;
                    state.pending.clear();
                    state.record = stored;
                    return;
                }
                // Expired: nobody can read its result any more.
                Ok(None) => return,
                Ok(Some(_)) => {}
                Err(error) => {
                    let _logged = store_failed(&error);
                    continue;
                }
            }
            match self.options.store.take_answers(id).await {
                Ok(batches) => {
                    for answers in &batches {
                        self.deliver(live, answers).await;
                    }
                }
                Err(error) => {
                    let _logged = store_failed(&error);
                }
            }
        }
    }

    /// Records the end of a task's work (`None`: cancelled or expired, already recorded).
    /// The store keeps a record that ended meanwhile (cancelled on another instance).
    async fn finish(&self, id: &str, live: &Live, outcome: Option<HandlerResult>) {
        if let Some(outcome) = outcome {
            let mut state = live.state.lock().await;
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
                if let Err(error) = self.options.store.put(record).await {
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

    /// The record of `id` if `owner` may see it, as the store has it (the store is written
    /// on every change, so it is as fresh as this instance's own copy).
    async fn record(
        &self,
        owner: Option<&str>,
        id: &str,
    ) -> Result<TaskRecord, ErrorObject<'static>> {
        if !well_formed(id) {
            return Err(unknown_task());
        }
        let record = self
            .options
            .store
            .get(id, now_ms())
            .await
            .map_err(|e| store_failed(&e))?;
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
    pub(crate) async fn get(&self, owner: Option<&str>, id: &str) -> HandlerResult {
        let record = self.record(owner, id).await?;
        respond_value(ResultKind::of::<DetailedTask>(), &detailed(&record))
    }

    /// `tasks/cancel`: stops the work and settles the task as `cancelled`; a terminal task
    /// is left as it is. Acknowledged either way. A task running on another instance (on a
    /// shared store) is settled in the store at once, and that instance stops its handler
    /// within one poll interval.
    pub(crate) async fn cancel(&self, owner: Option<&str>, id: &str) -> HandlerResult {
        let mut record = self.record(owner, id).await?;
        if record.is_terminal() {
            return ack();
        }
        match self.live_task(id) {
            Some(live) => {
                let mut state = live.state.lock().await;
                if !state.record.is_terminal() {
                    live.cancel.cancel();
                    state.pending.clear();
                    settle_cancelled(&mut state.record);
                    let _stored = self
                        .options
                        .store
                        .put(&state.record)
                        .await
                        .map_err(|e| store_failed(&e))?;
                }
            }
            None => {
                // Running on another instance (or lost with a restart): settled in the
                // store, unless it ended meanwhile (then it stays as it ended).
                settle_cancelled(&mut record);
                let _stored = self
                    .options
                    .store
                    .put(&record)
                    .await
                    .map_err(|e| store_failed(&e))?;
            }
        }
        ack()
    }

    /// `tasks/update`: delivers the answers to questions the task waits for; answers to
    /// other keys, or that are not objects, are ignored. Acknowledged. For a task running
    /// on another instance (shared store), the answers are kept in the store for it.
    pub(crate) async fn update(
        &self,
        owner: Option<&str>,
        id: &str,
        responses: &Map<String, Value>,
    ) -> HandlerResult {
        let record = self.record(owner, id).await?;
        if let Some(live) = self.live_task(id) {
            self.deliver(&live, responses).await;
        } else if !record.is_terminal() && self.options.store.is_shared() {
            self.options
                .store
                .send_answers(id, responses, record.expires_at_ms)
                .await
                .map_err(|e| store_failed(&e))?;
        }
        ack()
    }

    /// Hands the answers to the questions of `live` they answer, then records what is
    /// still pending.
    async fn deliver(&self, live: &Live, responses: &Map<String, Value>) {
        let mut state = live.state.lock().await;
        for (key, answer) in responses {
            if !answer.is_object() {
                continue;
            }
            if let Some((_question, sender)) = state.pending.remove(key) {
                let _delivered = sender.send(answer.clone());
            }
        }
        self.park(&live.cancel, &mut state).await;
    }

    /// Writes the pending questions into the record: `input_required` while any waits,
    /// `working` once none does. A task the store says has ended (cancelled on another
    /// instance) is stopped.
    async fn park(&self, cancel: &CancellationToken, state: &mut LiveState) {
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
        match self.options.store.put(record).await {
            Ok(true) => {}
            Ok(false) => cancel.cancel(),
            Err(error) => {
                let _logged = store_failed(&error);
            }
        }
    }

    /// The requester of a task's handler: a question parks the task until `tasks/update`
    /// brings its answer.
    fn requester(self: &Arc<Self>, live: Arc<Live>, declared: Value) -> ClientRequester {
        let tasks = Arc::clone(self);
        Arc::new(move |request: ClientRequest| {
            if request.method == RUN_AS_TASK {
                return Box::pin(async { Ok(Value::Bool(true)) });
            }
            let tasks = Arc::clone(&tasks);
            let live = Arc::clone(&live);
            let missing = missing_capability(&request, &declared);
            Box::pin(async move {
                if let Some(capability) = missing {
                    return Err(ClientRequestError::MissingCapability(capability));
                }
                let (sender, receiver) = oneshot::channel();
                {
                    let mut state = live.state.lock().await;
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
                    tasks.park(&live.cancel, &mut state).await;
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
            .await
            .unwrap();
        let created: Value = serde_json::from_str(created.get()).unwrap();
        let id = created["taskId"].as_str().unwrap();
        assert!(tasks.get(Some("sub:alice"), id).await.is_ok());
        let unknown = tasks
            .get(Some("sub:alice"), "no-such-task")
            .await
            .unwrap_err();
        for intruder in [Some("sub:mallory"), None] {
            let refused = tasks.get(intruder, id).await.unwrap_err();
            assert_eq!(refused.code, ErrorCode::INVALID_PARAMS);
            // The same answer as for a task that does not exist.
            assert_eq!(refused.message, unknown.message);
            assert!(tasks.cancel(intruder, id).await.is_err());
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
                .await
                .unwrap();
            let created: Value = serde_json::from_str(created.get()).unwrap();
            ids.push(created["taskId"].as_str().unwrap().to_owned());
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let answer = |id: String| {
            let tasks = Arc::clone(&tasks);
            async move {
                let got = tasks.get(None, &id).await.unwrap();
                serde_json::from_str::<Value>(got.get()).unwrap()
            }
        };
        let first = answer(ids[0].clone()).await;
        assert_eq!(first["status"], "failed", "{first}");
        assert_eq!(first["error"]["code"], -32603);
        assert!(first.get("result").is_none());
        let second = answer(ids[1].clone()).await;
        assert_eq!(second["status"], "completed", "{second}");
        assert_eq!(second["result"]["isError"], true);
    }
}
