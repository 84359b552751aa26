//! The client side of the Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663,
//! 2026-07-28): [`Client::call_tool_as_task`] calls a tool, and when the server answers with
//! a task, polls `tasks/get` at the interval the server suggests until the task ends,
//! answering its questions (`tasks/update`) through the client's handler; cancelled
//! ([`TaskWait::cancel_on`]), past its deadline, or dropped, it sends `tasks/cancel`.
//! [`Client::get_task`] and [`Client::cancel_task`] are the single requests.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::generated::protocol::{validate as protocol, CallToolResult};
use crate::generated::tasks::{validate, CreateTaskResult, DetailedTask, TaskStatus};
use crate::jsonrpc::ErrorCode;
use crate::mcp::tasks::TASKS_EXTENSION;
use crate::validation::ValidationError;

use super::call::{decode, Call};
use super::{handler, Client, ClientError, RequestOptions, ToolReply, Versioned};

/// The interval used when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// The longest wait between two polls, whatever the server suggests: a task is never left
/// unwatched longer than this.
const MAX_POLL: Duration = Duration::from_secs(60);

/// Where a task stands, as one poll of [`Client::call_tool_as_task`] saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskUpdate {
    /// The task's identifier.
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// The server's note on the status, if any.
    pub status_message: Option<String>,
    /// How many times `tasks/get` was asked so far (0: the task was just created).
    pub polls: u32,
    /// The interval the server suggests, honoured until the next poll.
    pub poll_interval: Duration,
}

/// A callback receiving each [`TaskUpdate`].
pub type TaskCallback = Arc<dyn Fn(&TaskUpdate) + Send + Sync>;

/// How [`Client::call_tool_as_task`] waits for its task.
#[derive(Clone, Default)]
#[must_use]
pub struct TaskWait {
    on_update: Option<TaskCallback>,
    cancel: Option<CancellationToken>,
    max_total: Option<Duration>,
    request: RequestOptions,
}

impl std::fmt::Debug for TaskWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskWait")
            .field("on_update", &self.on_update.is_some())
            .field("cancel", &self.cancel.is_some())
            .field("max_total", &self.max_total)
            .field("request", &self.request)
            .finish()
    }
}

impl TaskWait {
    /// Waits as long as the task lives (its TTL bounds it), polling as the server suggests.
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls `callback` with the task as created, then after every poll.
    pub fn on_update(mut self, callback: impl Fn(&TaskUpdate) + Send + Sync + 'static) -> Self {
        self.on_update = Some(Arc::new(callback));
        self
    }

    /// Cancels the task (`tasks/cancel`) when `token` is cancelled; the call then ends with
    /// [`ClientError::TaskCancelled`].
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// The longest the whole wait may take: past it the task is cancelled and the call ends
    /// with [`ClientError::Timeout`].
    pub fn max_total(mut self, max_total: Duration) -> Self {
        self.max_total = Some(max_total);
        self
    }

    /// The options of each request (`tools/call`, every `tasks/get`): timeouts.
    pub fn request_options(mut self, options: RequestOptions) -> Self {
        self.request = options;
        self
    }
}

/// Sends `tasks/cancel` if dropped while armed (the caller gave up on the task).
struct CancelOnDrop {
    client: Client,
    task_id: Option<String>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(task_id) = self.task_id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let client = self.client.clone();
        drop(runtime.spawn(async move {
            if let Err(error) = client.cancel_task(&task_id).await {
                tracing::debug!(%error, "cancelling an abandoned task failed");
            }
        }));
    }
}

impl Client {
    /// `tools/call` as a task (2026-07-28, the Tasks extension, which the client must have
    /// declared with [`ClientOptions::extension`](super::ClientOptions::extension)): when
    /// the server answers with a task, polls `tasks/get` at the server's `pollIntervalMs`
    /// (1 s when it gives none, at most 60 s) until the task ends, and returns the tool's
    /// result as [`Client::call_tool`] would. Questions the task asks (`input_required`)
    /// are answered through the client's handler with `tasks/update`. A server that runs the
    /// call at once (the tool is not task-capable) answers directly. Dropping the future
    /// sends `tasks/cancel`.
    ///
    /// # Errors
    ///
    /// [`ClientError::NotInEra`] on a 2025 connection; [`ClientError::ExtensionNotDeclared`]
    /// when the client did not declare the extension; [`ClientError::TaskCancelled`] when
    /// the task was cancelled (by [`TaskWait::cancel_on`] or by anyone else);
    /// [`ClientError::Timeout`] past [`TaskWait::max_total`]; [`ClientError::Rpc`] with the
    /// task's error when it `failed`; any request error.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        wait: TaskWait,
    ) -> Result<ToolReply, ClientError> {
        let version = self.tasks_version("tools/call")?;
        let started = Instant::now();
        let mut params = Map::new();
        params.insert("name".to_owned(), Value::from(name));
        params.insert("arguments".to_owned(), arguments);
        let raw = self
            .era_request(
                "tools/call",
                params,
                Some(name),
                &wait.request,
                protocol::call_tool_request,
                protocol::legacy_call_tool_request,
            )
            .await?;
        let value: Value =
            serde_json::from_str(raw.get()).map_err(|_| ClientError::MalformedMessage {
                reason: "the result is not valid JSON".to_owned(),
            })?;
        if value.get("resultType").and_then(Value::as_str) != Some("task") {
            let result: CallToolResult = decode(
                "tools/call",
                &raw,
                protocol::call_tool_result,
                "CallToolResult",
            )?;
            return Ok(Versioned::Modern(result));
        }
        let created: CreateTaskResult = received(
            "tools/call",
            value,
            validate::create_task_result,
            "CreateTaskResult",
        )?;
        let task_id = created.task_id.0.clone();
        let mut guard = CancelOnDrop {
            client: self.clone(),
            task_id: Some(task_id.clone()),
        };
        let mut update = TaskUpdate {
            task_id: task_id.clone(),
            status: created.status,
            status_message: created.status_message,
            polls: 0,
            poll_interval: interval(created.poll_interval_ms),
        };
        let deadline = wait.max_total.map(|total| started + total);
        let cancel = wait.cancel.clone().unwrap_or_default();
        loop {
            if let Some(callback) = &wait.on_update {
                callback(&update);
            }
            if matches!(
                update.status,
                TaskStatus::Working | TaskStatus::InputRequired
            ) {
                let sleep = tokio::time::sleep_until(
                    deadline.map_or(Instant::now() + update.poll_interval, |deadline| {
                        deadline.min(Instant::now() + update.poll_interval)
                    }),
                );
                tokio::select! {
                    () = sleep => {}
                    () = cancel.cancelled() => {
                        guard.task_id = None;
                        self.cancel_task(&task_id).await?;
                        return Err(ClientError::TaskCancelled { tool: name.to_owned() });
                    }
                }
                if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                    guard.task_id = None;
                    self.cancel_task(&task_id).await?;
                    return Err(ClientError::Timeout {
                        method: "tools/call".to_owned(),
                        elapsed: started.elapsed(),
                    });
                }
            }
            let detailed = self
                .get_task_with(&task_id, &version, &wait.request)
                .await?;
            update.polls = update.polls.saturating_add(1);
            update.status = detailed.status;
            update.status_message.clone_from(&detailed.status_message);
            update.poll_interval = interval(detailed.poll_interval_ms);
            match detailed.status {
                TaskStatus::Working => {}
                TaskStatus::InputRequired => {
                    self.answer_task(&task_id, &version, detailed, &wait.request)
                        .await?;
                }
                TaskStatus::Completed => {
                    guard.task_id = None;
                    if let Some(callback) = &wait.on_update {
                        callback(&update);
                    }
                    let result = detailed.result.map(|r| Value::Object(r.0));
                    let result: CallToolResult = received(
                        "tasks/get",
                        result.unwrap_or(Value::Null),
                        protocol::call_tool_result,
                        "CallToolResult",
                    )?;
                    return Ok(Versioned::Modern(result));
                }
                TaskStatus::Failed => {
                    guard.task_id = None;
                    let error = detailed.error;
                    return Err(ClientError::Rpc {
                        method: "tools/call".to_owned(),
                        code: ErrorCode(
                            error
                                .as_ref()
                                .map_or(ErrorCode::INTERNAL_ERROR.0, |e| e.code),
                        ),
                        message: error
                            .as_ref()
                            .map_or_else(|| "the task failed".to_owned(), |e| e.message.clone()),
                        data: error.and_then(|e| e.data),
                    });
                }
                TaskStatus::Cancelled => {
                    guard.task_id = None;
                    return Err(ClientError::TaskCancelled {
                        tool: name.to_owned(),
                    });
                }
            }
        }
    }

    /// `tasks/get`: the task's status and, once it ended, its result or error.
    ///
    /// # Errors
    ///
    /// As [`Client::call_tool_as_task`]; an unknown (or expired, or another identity's)
    /// task is a [`ClientError::Rpc`] `-32602`.
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, ClientError> {
        let version = self.tasks_version("tasks/get")?;
        self.get_task_with(task_id, &version, &RequestOptions::new())
            .await
    }

    /// `tasks/cancel`: stops the task (acknowledged on a task that already ended too).
    ///
    /// # Errors
    ///
    /// As [`Client::get_task`].
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        let version = self.tasks_version("tasks/cancel")?;
        let mut params = Map::new();
        params.insert("taskId".to_owned(), Value::from(task_id));
        let _ack = self
            .inner
            .request(
                tasks_call("tasks/cancel", task_id, params, &version, task_request),
                &RequestOptions::new(),
            )
            .await?;
        Ok(())
    }

    /// The connection's version, if it may use tasks.
    fn tasks_version(&self, method: &'static str) -> Result<String, ClientError> {
        let negotiated = self.negotiated();
        if !negotiated.modern {
            return Err(ClientError::NotInEra {
                method,
                version: negotiated.version,
            });
        }
        let declared = self
            .inner
            .options
            .capabilities
            .get("extensions")
            .and_then(|extensions| extensions.get(TASKS_EXTENSION))
            .is_some_and(Value::is_object);
        if !declared {
            return Err(ClientError::ExtensionNotDeclared {
                id: TASKS_EXTENSION,
            });
        }
        Ok(negotiated.version)
    }

    async fn get_task_with(
        &self,
        task_id: &str,
        version: &str,
        options: &RequestOptions,
    ) -> Result<DetailedTask, ClientError> {
        let mut params = Map::new();
        params.insert("taskId".to_owned(), Value::from(task_id));
        let raw = self
            .inner
            .request(
                tasks_call("tasks/get", task_id, params, version, task_request),
                options,
            )
            .await?;
        let value = serde_json::from_str(raw.get()).map_err(|_| ClientError::MalformedMessage {
            reason: "the result is not valid JSON".to_owned(),
        })?;
        received("tasks/get", value, validate::detailed_task, "DetailedTask")
    }

    /// Answers the questions of an `input_required` task through the handler.
    async fn answer_task(
        &self,
        task_id: &str,
        version: &str,
        task: DetailedTask,
        options: &RequestOptions,
    ) -> Result<(), ClientError> {
        let mut responses = Map::new();
        for (key, request) in task.input_requests.map(|r| r.0).unwrap_or_default() {
            let method = request["method"].as_str().unwrap_or_default().to_owned();
            let params = request
                .get("params")
                .cloned()
                .unwrap_or(Value::Object(Map::new()));
            let answer = handler::serve(self.inner.router.handler(), method, params)
                .await
                .map_err(|error| {
                    tracing::warn!(%error, "a question of a task was refused");
                    ClientError::InputRequired {
                        method: "tasks/update".to_owned(),
                    }
                })?;
            responses.insert(key, answer);
        }
        if responses.is_empty() {
            return Ok(());
        }
        let mut params = Map::new();
        params.insert("taskId".to_owned(), Value::from(task_id));
        params.insert("inputResponses".to_owned(), Value::Object(responses));
        let _ack = self
            .inner
            .request(
                tasks_call("tasks/update", task_id, params, version, update_request),
                options,
            )
            .await?;
        Ok(())
    }
}

/// A `tasks/*` request with the 2026-07-28 `_meta`.
fn tasks_call<'a>(
    method: &'static str,
    task_id: &'a str,
    params: Map<String, Value>,
    version: &'a str,
    validator: super::call::Validator,
) -> Call<'a> {
    Call {
        method,
        params,
        // `Mcp-Name` over HTTP: the task.
        name: Some(task_id),
        validator,
        modern_meta: Some(version),
        headers: Vec::new(),
    }
}

/// The params of a `tasks/get` or `tasks/cancel` message, checked by the generated validator.
fn task_request(message: &Value) -> Result<(), Vec<ValidationError>> {
    validate::task_request_params(&message["params"])
}

/// The params of a `tasks/update` message, checked by the generated validator.
fn update_request(message: &Value) -> Result<(), Vec<ValidationError>> {
    validate::update_task_request_params(&message["params"])
}

/// The server's suggested interval, bounded.
fn interval(suggested: Option<std::num::NonZeroU64>) -> Duration {
    suggested.map_or(DEFAULT_POLL, |ms| {
        Duration::from_millis(ms.get()).min(MAX_POLL)
    })
}

/// `value` checked by `validator` and decoded.
fn received<T: serde::de::DeserializeOwned>(
    method: &str,
    value: Value,
    validator: super::call::Validator,
    definition: &'static str,
) -> Result<T, ClientError> {
    let invalid = |errors| ClientError::InvalidMessage {
        what: format!("{method} result"),
        definition,
        errors,
    };
    let mut value = value;
    super::call::validate_received(&mut value, validator, definition).map_err(invalid)?;
    serde_json::from_value(value).map_err(|_| invalid(Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suggested_interval_is_honoured_within_bounds() {
        assert_eq!(interval(None), DEFAULT_POLL);
        assert_eq!(
            interval(std::num::NonZeroU64::new(50)),
            Duration::from_millis(50)
        );
        assert_eq!(interval(std::num::NonZeroU64::new(u64::MAX)), MAX_POLL);
    }
}
