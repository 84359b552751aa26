//! The Tasks extension's entry points in the request dispatch: a `tools/call` that becomes a
//! task, and `tasks/get`, `tasks/update`, `tasks/cancel`.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::runtime::not_negotiated;
use super::{TaskSupport, TASKS_EXTENSION};
use crate::generated::tasks::{validate, TaskRequestParams, UpdateTaskRequestParams};
use crate::jsonrpc::ErrorObject;
use crate::mcp::builder::ServerState;
use crate::mcp::catalog::Sets;
use crate::mcp::era::Era;
use crate::mcp::extensions::{negotiate, Negotiated};
use crate::mcp::input_required::{answered_then, Inputs};
use crate::mcp::params::decode;
use crate::mcp::tool_call::CallRequest;
use crate::server::{HandlerResult, RequestContext};

/// Whether a call of a tool with `support` becomes a task, given what the request
/// negotiated.
///
/// # Errors
///
/// `-32021` for a [`TaskSupport::Required`] tool called without the extension.
pub(crate) fn as_task(
    support: TaskSupport,
    extensions: &Negotiated,
) -> Result<bool, ErrorObject<'static>> {
    let negotiated = extensions
        .as_deref()
        .is_some_and(|both| both.contains_key(TASKS_EXTENSION));
    match support {
        TaskSupport::Required if !negotiated => Err(not_negotiated(
            "this tool runs only as a task: declare the io.modelcontextprotocol/tasks extension",
        )),
        TaskSupport::Optional | TaskSupport::Required => Ok(negotiated),
        TaskSupport::Forbidden => Ok(false),
    }
}

/// The caller's identity a task is bound to (the verified subject, else the client id).
fn owner(ctx: &RequestContext) -> Option<String> {
    let auth = ctx.shared_auth()?;
    auth.subject
        .as_ref()
        .map(|subject| format!("sub:{subject}"))
        .or_else(|| {
            auth.client_id
                .as_ref()
                .map(|client| format!("client:{client}"))
        })
}

/// What a call that becomes a task needs.
pub(crate) struct TaskCall {
    /// The tool.
    pub(crate) name: String,
    /// Its arguments.
    pub(crate) arguments: Option<Map<String, Value>>,
    /// The client's capabilities (for the questions the handler asks).
    pub(crate) declared: Value,
    /// The extensions the call negotiated.
    pub(crate) extensions: Negotiated,
    /// For a task that starts in the handler, after `input_required` rounds: the answers
    /// of those rounds, which the handler gets again.
    pub(crate) answered: Option<BTreeMap<String, Value>>,
}

/// Starts `call` as a task and answers with its `CreateTaskResult`.
pub(crate) async fn start(
    state: &ServerState,
    sets: Arc<Sets>,
    ctx: &RequestContext,
    call: TaskCall,
) -> HandlerResult {
    let request_id = ctx.id().clone();
    let peer = ctx.peer().clone();
    let auth = ctx.shared_auth();
    let TaskCall {
        name,
        arguments,
        declared,
        extensions,
        answered,
    } = call;
    state
        .tasks
        .start(owner(ctx), declared, move |cancel, requester| async move {
            let requester = match answered {
                Some(answers) => answered_then(answers, requester),
                None => requester,
            };
            let task_ctx = RequestContext::new(request_id, cancel, peer).with_auth(auth);
            sets.tools
                .call(CallRequest {
                    ctx: &task_ctx,
                    era: Era::Modern,
                    name: &name,
                    arguments,
                    progress_token: None,
                    log_level: None,
                    client: Some(requester),
                    extensions,
                })
                .await
        })
        .await
}

/// Starts the call of `name` (whose params were `raw`) as a task once its handler asked to
/// run as one ([`ToolContext::run_as_task`](crate::tools::ToolContext::run_as_task)) and
/// every question it asked has its answer in `inputs`: the handler runs again as the task's
/// work, with those answers. Answers with the `CreateTaskResult`.
pub(crate) async fn start_after_input(
    state: &ServerState,
    sets: Arc<Sets>,
    ctx: &RequestContext,
    name: &str,
    raw: Option<&RawValue>,
    inputs: &Inputs,
) -> HandlerResult {
    // The arguments went to the handler's first run: read again from the params as
    // received (the same object the call decoded).
    let arguments = raw
        .and_then(|raw| crate::jsonrpc::to_value(raw).ok())
        .and_then(|params| match params {
            Value::Object(mut members) => members.remove("arguments"),
            _ => None,
        })
        .and_then(|arguments| match arguments {
            Value::Object(arguments) => Some(arguments),
            _ => None,
        });
    let extensions = negotiate(sets.capabilities.extensions.as_ref(), inputs.declared());
    let call = TaskCall {
        name: name.to_owned(),
        arguments,
        declared: inputs.declared().clone(),
        extensions,
        answered: Some(inputs.answers().clone()),
    };
    start(state, sets, ctx, call).await
}

/// Answers `tasks/get`, `tasks/update` or `tasks/cancel` (2026-07-28).
pub(crate) async fn answer(
    state: &ServerState,
    sets: &Sets,
    ctx: &RequestContext,
    method: &str,
    params: Option<&Value>,
) -> HandlerResult {
    let declared = params
        .and_then(|p| p.get("_meta"))
        .and_then(|meta| meta.get("io.modelcontextprotocol/clientCapabilities"))
        .cloned()
        .unwrap_or_default();
    let negotiated = negotiate(sets.capabilities.extensions.as_ref(), &declared)
        .is_some_and(|both| both.contains_key(TASKS_EXTENSION));
    if !negotiated {
        return Err(not_negotiated(
            "the tasks methods need the io.modelcontextprotocol/tasks extension, declared by both sides",
        ));
    }
    let owner = owner(ctx);
    let tasks = &state.tasks;
    if method == "tasks/update" {
        let p: UpdateTaskRequestParams =
            decode(method, params, validate::update_task_request_params, false)?;
        return tasks
            .update(owner.as_deref(), &p.task_id, &p.input_responses.0)
            .await;
    }
    let p: TaskRequestParams = decode(method, params, validate::task_request_params, false)?;
    if method == "tasks/cancel" {
        tasks.cancel(owner.as_deref(), &p.task_id).await
    } else {
        tasks.get(owner.as_deref(), &p.task_id).await
    }
}
