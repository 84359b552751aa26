//! `tools/call`: limits, the result cache for cacheable tools, progress notifications, and
//! the result in the shape of the session's protocol version.

use crate::fast_map::FastMap;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::era::Era;
use super::outbound::{
    parse_rendered, respond, respond_checked, respond_rendered, respond_value, ResultKind,
};
use super::params::{invalid_params, violation};
use super::tools::ToolDefinition;
use crate::cache::{Cache, CacheSource};
use crate::generated::protocol::{
    validate, CallToolResult, LegacyCallToolResult, LoggingLevel, LoggingMessageNotificationParams,
    ProgressNotificationParams, ProgressToken,
};
use crate::server::{HandlerResult, Peer, RequestContext};
use crate::tools::{
    CallOptions, CallOutcome, LogMessage, LogSink, ProgressSink, ProgressUpdate, ToolArguments,
    ToolCallResult, ToolRunner, RESULT_TYPE_MEMBER,
};

/// Progress reports waiting to be written, per call; more are dropped (and logged).
const PROGRESS_QUEUE: usize = 64;

/// The tools of a server and what runs them.
#[derive(Debug)]
pub(crate) struct ToolSet {
    pub(crate) list: Vec<crate::generated::protocol::Tool>,
    /// The tools by name; the key is shared with every call of the tool (its
    /// [`PreparedCall`](crate::tools::PreparedCall) and context), not copied for each.
    pub(crate) by_name: FastMap<Arc<str>, ToolDefinition>,
    pub(crate) runner: ToolRunner,
    pub(crate) cache: Option<Cache>,
    /// The tools that declare an answer bound, with it (see [`ToolSet::answer_bound`]).
    pub(crate) answer_bounds: Vec<(Box<str>, usize)>,
}

/// One `tools/call` request, decoded.
pub(crate) struct CallRequest<'a> {
    pub(crate) ctx: &'a RequestContext,
    pub(crate) era: Era,
    pub(crate) name: &'a str,
    pub(crate) arguments: Option<Map<String, Value>>,
    pub(crate) progress_token: Option<ProgressToken>,
    /// The lowest severity of log messages the client wants (none: no log messages).
    pub(crate) log_level: Option<LoggingLevel>,
    /// Sends the handler's requests to the client (2025 versions).
    pub(crate) client: Option<crate::tools::ClientRequester>,
    /// The extensions both sides declared, with the client's settings.
    pub(crate) extensions: super::extensions::Negotiated,
}

impl ToolSet {
    /// `-32021` when the tool needs a client capability `declared` (the client's
    /// capabilities object) lacks; `data.requiredCapabilities` names every missing one.
    pub(crate) fn check_capabilities(
        &self,
        tool: &str,
        declared: &Value,
    ) -> Result<(), crate::jsonrpc::ErrorObject<'static>> {
        match self.by_name.get(tool) {
            Some(definition) => Self::missing_capabilities(definition, declared),
            None => Ok(()),
        }
    }

    /// How `tool` may run as a task (`Forbidden` for an unknown tool: the call then fails
    /// as usual), and whether its task starts in its handler
    /// ([`ToolDefinition::task_after_input`]), once
    /// [`check_capabilities`](Self::check_capabilities) passed: a 2026-07-28 call asks both,
    /// with one look-up of the tool.
    pub(crate) fn task_support(
        &self,
        tool: &str,
        declared: &Value,
    ) -> Result<(super::tasks::TaskSupport, bool), crate::jsonrpc::ErrorObject<'static>> {
        match self.by_name.get(tool) {
            Some(definition) => Self::missing_capabilities(definition, declared)
                .map(|()| (definition.task_support, definition.task_after_input)),
            None => Ok((super::tasks::TaskSupport::Forbidden, false)),
        }
    }

    /// [`check_capabilities`](Self::check_capabilities) of a tool's definition.
    fn missing_capabilities(
        definition: &ToolDefinition,
        declared: &Value,
    ) -> Result<(), crate::jsonrpc::ErrorObject<'static>> {
        let missing: Vec<&str> = definition
            .required_capabilities
            .iter()
            .map(String::as_str)
            .filter(|path| !super::client_requests::declares(declared, path))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let missing = super::client_requests::capabilities_object(missing);
        Err(super::params::error_with_data(
            crate::jsonrpc::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "the client did not declare a capability this tool needs".to_owned(),
            &serde_json::json!({ "requiredCapabilities": missing }),
        ))
    }

    /// Whether a tool may run as a task (the server then declares the Tasks extension).
    pub(crate) fn has_task_tools(&self) -> bool {
        self.by_name
            .values()
            .any(|definition| definition.task_support != super::tasks::TaskSupport::Forbidden)
    }

    /// Answers a `tools/call`.
    ///
    /// An `async` block, not an `async fn`: an `async fn`'s future keeps its arguments twice
    /// (as passed, and moved into its body), and every request in flight holds this future.
    #[allow(clippy::manual_async_fn)] // an `async fn` would keep its arguments twice
    pub(crate) fn call<'a>(
        &'a self,
        request: CallRequest<'a>,
    ) -> impl std::future::Future<Output = HandlerResult> + Send + 'a {
        async move {
            let Some((name, definition)) = self.by_name.get_key_value(request.name) else {
                return Err(unknown_tool());
            };
            let entry = &definition.entry;
            // Set up in a block: a local once borrowed stays in the future until its scope
            // ends, and `options` and the forwarder are borrowed while they are built; only
            // what the call runs with is kept across it.
            let (forwarder, prepared, options) = {
                let mut options = CallOptions::for_request(request.ctx.id())
                    .cancel_token(request.ctx.cancellation().clone())
                    .content_blocks(definition.content_blocks)
                    .structured_output(definition.structured_output)
                    .legacy_result(matches!(request.era, Era::Legacy(_)))
                    .max_answer_bytes(entry.max_answer_bytes)
                    .auth(request.ctx.shared_auth())
                    .extensions(request.extensions.clone())
                    .stream_closer(request.ctx.stream_closer());
                if let Some(client) = request.client.clone() {
                    options = options.client_requester(client);
                }
                let forwarder = (request.progress_token.is_some() || request.log_level.is_some())
                    .then(|| {
                        ProgressForwarder::start(
                            request.progress_token.clone(),
                            request.ctx.peer().clone(),
                        )
                    });
                if let Some(forwarder) = &forwarder {
                    if request.progress_token.is_some() {
                        options = options.progress_sink(forwarder.sink());
                    }
                    if let Some(threshold) = request.log_level {
                        options = options.log_sink(forwarder.log_sink(threshold));
                    }
                }
                let arguments = match request.arguments {
                    Some(map) => ToolArguments::Value(Value::Object(map)),
                    None => ToolArguments::Absent,
                };
                match self.runner.prepare_shared(name, arguments, &options) {
                    Ok(prepared) => (forwarder, prepared, options),
                    Err(rejected) => {
                        let answer = answer_for_era(CallOutcome::Respond(*rejected), request.era);
                        finish(forwarder).await;
                        return answer;
                    }
                }
            };
            // `prepared` and `options` are moved whole into the call (a value moved in part
            // would stay in the future).
            // A call with a verified identity is never served from (or stored in) the shared
            // result cache: its result may depend on who asked.
            let cache = self
                .cache_for(entry)
                .filter(|_| request.ctx.auth().is_none());
            let outcome = match cache {
                // Boxed: the cache's path holds two runs of the tool and the cache's own
                // state; inline, every request's future would carry its size (see
                // future_size.rs).
                Some((cache, policy)) => {
                    Box::pin(self.call_cached(cache, policy, entry, prepared, options, request.ctx))
                        .await
                }
                // Polled right here, in the request's handler future, which the transport
                // polls under its own wait on the request's token (`RequestContext::new`).
                None => self.runner.execute_watched(entry, prepared, options).await,
            };
            // Rendered before the forwarder finishes (the loop sends the answer once this
            // returns, so after every report): the 56-byte answer is kept across that wait,
            // not the 120-byte outcome.
            let answer = answer_for_era(outcome, request.era);
            finish(forwarder).await;
            answer
        }
    }

    /// The result cache and the tool's policy, when the tool's results are cached.
    fn cache_for(
        &self,
        entry: &crate::tools::ToolEntry,
    ) -> Option<(&Cache, crate::cache::CachePolicy)> {
        let policy = entry.cache;
        self.cache
            .as_ref()
            .filter(|_| policy.is_cacheable())
            .map(|cache| (cache, policy))
    }

    /// Runs a cacheable tool through the result cache: served from it, coalesced with an
    /// identical call in flight, or run and stored.
    async fn call_cached(
        &self,
        cache: &Cache,
        policy: crate::cache::CachePolicy,
        entry: &crate::tools::ToolEntry,
        prepared: crate::tools::PreparedCall,
        options: CallOptions,
        ctx: &RequestContext,
    ) -> CallOutcome {
        let key_arguments = prepared.arguments().clone();
        let fallback = prepared.clone();
        let mut computed = None;
        let slot = &mut computed;
        let runner = &self.runner;
        let leader_options = options.clone();
        let shared = cache
            .get_or_compute(
                fallback.tool(),
                &key_arguments,
                policy,
                move || async move {
                    let outcome = runner.execute(entry, prepared, leader_options).await;
                    match &outcome {
                        CallOutcome::Respond(ToolCallResult {
                            cacheable_output: Some(output),
                            ..
                        }) => {
                            let output = output.clone();
                            *slot = Some(outcome);
                            Ok(output)
                        }
                        _ => Err(outcome),
                    }
                },
            )
            .await;
        match shared {
            Ok(cached) => match (cached.source, computed) {
                (CacheSource::Computed | CacheSource::Uncacheable, Some(outcome)) => outcome,
                (CacheSource::Computed | CacheSource::Uncacheable, None) => {
                    CallOutcome::Respond(self.runner.render_output(&cached.value, false, &options))
                }
                _ => CallOutcome::Respond(self.runner.render_cached(&cached.value, &options)),
            },
            // The call this one waited for was cancelled by its own client: run.
            Err(CallOutcome::Cancelled) if !ctx.is_cancelled() => {
                self.runner.execute(entry, fallback, options).await
            }
            Err(outcome) => outcome,
        }
    }

    /// The `tools/list` result: the page `pager` asks for.
    pub(crate) fn list(
        &self,
        era: Era,
        hints: &super::builder::CacheHints,
        pager: &super::pagination::Pager<'_>,
        hidden_apps: Option<&super::apps::Apps>,
    ) -> HandlerResult {
        // A client that does not render apps gets the tools without their `_meta.ui`.
        let list = hidden_apps.map_or(&self.list, |apps| &apps.plain_tools);
        let page = pager.page(list, |tool| &tool.name)?;
        let (tools, next_cursor) = (page.items, page.next_cursor);
        match era {
            Era::Legacy(_) => respond(&crate::generated::protocol::LegacyListToolsResult {
                meta: None,
                next_cursor,
                tools,
            }),
            Era::Modern => respond(&crate::generated::protocol::ListToolsResult {
                cache_scope: hints.scope,
                meta: None,
                next_cursor,
                result_type: crate::generated::protocol::ResultType::Complete,
                tools,
                ttl_ms: hints.ttl_ms,
            }),
        }
    }
}

/// `-32602` for a tool the server does not have (or does not show this client).
pub(crate) fn unknown_tool() -> crate::jsonrpc::ErrorObject<'static> {
    invalid_params(
        "unknown tool",
        vec![violation("/name", "enum", "no tool of this name")],
    )
}

/// Waits until the call's progress reports and log messages, if any, are queued.
async fn finish(forwarder: Option<ProgressForwarder>) {
    if let Some(forwarder) = forwarder {
        forwarder.finish().await;
    }
}

/// The answer to a call that ended so.
fn answer_for_era(outcome: CallOutcome, era: Era) -> HandlerResult {
    match outcome {
        CallOutcome::Respond(result) => render_for_era(result, era),
        // The loop sends nothing for a request its client cancelled.
        CallOutcome::Cancelled => Err(super::params::internal_error("the call was cancelled")),
    }
}

/// The runner's `CallToolResult` in the shape of `era`: legacy results have no
/// `resultType` (the runner writes them so, see `CallOptions::legacy_result`).
/// `structuredContent` is kept in every version: 2025-03-26 predates it, but its results
/// allow additional members, and the structured error (with the violations' paths) is what
/// lets a model correct its call.
///
/// The result is validated as what is sent: when the runner kept the value it wrote the text
/// from ([`ToolCallResult::value`]), that value; otherwise the text, parsed back.
fn render_for_era(result: ToolCallResult, era: Era) -> HandlerResult {
    let kind = match era {
        Era::Modern => ResultKind::of::<CallToolResult>(),
        Era::Legacy(_) => ResultKind::of::<LegacyCallToolResult>(),
    };
    let after_result_type = result
        .json
        .get()
        .strip_prefix('{')
        .and_then(|rest| rest.strip_prefix(RESULT_TYPE_MEMBER));
    if let (Era::Legacy(_), Some(rest)) = (era, after_result_type) {
        // A result written in the modern shape (only the fixed fallback for a result that
        // failed to serialize): cut `resultType` from the text.
        return match RawValue::from_string(format!("{{{rest}")) {
            Ok(raw) => respond_rendered(kind, raw),
            Err(_) => {
                let mut value = parse_rendered(&result.json)?;
                if let Value::Object(map) = &mut value {
                    map.remove("resultType");
                }
                respond_value(kind, &value)
            }
        };
    }
    match result.value {
        Some(value) => {
            let response = respond_checked(kind, value.get(), result.json);
            value.recycle();
            response
        }
        None => respond_rendered(kind, result.json),
    }
}

/// What a running call sends the client besides its answer.
enum Outgoing {
    Progress(ProgressUpdate),
    Log(LogMessage),
}

/// Writes a call's progress reports as `notifications/progress` and its log messages as
/// `notifications/message`, in order, and never after the call's response:
/// [`ProgressForwarder::finish`] returns once every report made while the call ran is queued
/// for the writer.
struct ProgressForwarder {
    sender: mpsc::Sender<Outgoing>,
    stop: oneshot::Sender<()>,
    task: AbortOnDrop,
}

struct AbortOnDrop(Option<JoinHandle<()>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            task.abort();
        }
    }
}

impl ProgressForwarder {
    fn start(token: Option<ProgressToken>, peer: Peer) -> Self {
        let (sender, mut receiver) = mpsc::channel::<Outgoing>(PROGRESS_QUEUE);
        let (stop, mut stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let send = |outgoing: Outgoing| {
                let peer = peer.clone();
                let token = token.clone();
                async move {
                    match (outgoing, token) {
                        (Outgoing::Progress(update), Some(token)) => {
                            notify_progress(&peer, &token, update).await;
                        }
                        (Outgoing::Progress(_), None) => {}
                        (Outgoing::Log(message), _) => notify_log(&peer, message).await,
                    }
                }
            };
            loop {
                tokio::select! {
                    biased;
                    outgoing = receiver.recv() => match outgoing {
                        Some(outgoing) => send(outgoing).await,
                        None => break,
                    },
                    _ = &mut stopped => {
                        while let Ok(outgoing) = receiver.try_recv() {
                            send(outgoing).await;
                        }
                        break;
                    }
                }
            }
        });
        Self {
            sender,
            stop,
            task: AbortOnDrop(Some(task)),
        }
    }

    fn sink(&self) -> ProgressSink {
        let sender = self.sender.clone();
        Arc::new(move |update| {
            if sender.try_send(Outgoing::Progress(update)).is_err() {
                tracing::debug!("progress report dropped: the queue is full");
            }
        })
    }

    /// A sink passing on the messages at `threshold` or more severe.
    fn log_sink(&self, threshold: LoggingLevel) -> LogSink {
        let sender = self.sender.clone();
        Arc::new(move |message: LogMessage| {
            if severity(message.level) < severity(threshold) {
                return;
            }
            if sender.try_send(Outgoing::Log(message)).is_err() {
                tracing::debug!("log message dropped: the queue is full");
            }
        })
    }

    /// Waits until every report made so far is written (the runner closed the reporter).
    async fn finish(mut self) {
        let stop_sent = self.stop.send(());
        if stop_sent.is_err() {
            tracing::debug!("the progress forwarder had already stopped");
        }
        if let Some(task) = self.task.0.take() {
            if let Err(error) = task.await {
                tracing::debug!(%error, "the progress forwarder ended abnormally");
            }
        }
    }
}

/// Syslog order (RFC 5424): `debug` least severe, `emergency` most.
pub(crate) fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

async fn notify_log(peer: &Peer, message: LogMessage) {
    let params = LoggingMessageNotificationParams {
        data: message.data,
        level: message.level,
        logger: message.logger,
        meta: None,
    };
    let value = match serde_json::to_value(&params) {
        Ok(value) => value,
        Err(error) => {
            tracing::error!(%error, "serializing a log notification failed");
            return;
        }
    };
    if let Err(errors) = validate::logging_message_notification_params(&value) {
        tracing::error!(
            violations = errors.len(),
            "invalid log notification not sent"
        );
        return;
    }
    let Ok(raw) = serde_json::value::to_raw_value(&value) else {
        return;
    };
    if let Err(error) = peer.notify("notifications/message", Some(raw)).await {
        tracing::debug!(%error, "log notification not sent: the output is closed");
    }
}

async fn notify_progress(peer: &Peer, token: &ProgressToken, update: ProgressUpdate) {
    let number = |value: f64| serde_json::Number::from_f64(value);
    let Some(progress) = number(update.progress) else {
        tracing::debug!("progress report dropped: not a finite number");
        return;
    };
    let params = ProgressNotificationParams {
        message: update.message,
        meta: None,
        progress,
        progress_token: token.clone(),
        total: update.total.and_then(number),
    };
    let value = match serde_json::to_value(&params) {
        Ok(value) => value,
        Err(error) => {
            tracing::error!(%error, "serializing a progress notification failed");
            return;
        }
    };
    if let Err(errors) = validate::progress_notification_params(&value) {
        tracing::error!(
            violations = errors.len(),
            "invalid progress notification not sent"
        );
        return;
    }
    let Ok(raw) = serde_json::value::to_raw_value(&value) else {
        return;
    };
    if let Err(error) = peer.notify("notifications/progress", Some(raw)).await {
        tracing::debug!(%error, "progress notification not sent: the output is closed");
    }
}
