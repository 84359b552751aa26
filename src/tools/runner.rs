//! The tool runner: limits before the handler, the handler under its timeout and the
//! client's cancel, and the result envelope.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::arguments::{check_value, scan_raw, ArgumentBounds, Violations};
use super::call_options::CallOptions;
use super::envelope::{
    base_meta, render_failure, render_success, render_text_success, tool_error, Shape,
    ToolCallResult,
};
use super::error::ToolCallError;
use super::execution::{run_async, BlockingRun, CancelWatch, Ended};
use super::handler::{ToolContext, ToolEntry, ToolHandler};
use super::policy::{arguments_depth_limit, array_limit, resolve_timeout, ResolvedTimeout};
use super::progress::ProgressReporter;
use super::stats::{Counters, RunnerStats};
use crate::generated::errors::ToolErrorCode;
use crate::generated::limits::{Limits, RequestLimits, TimeoutLimits};
use crate::validation::ValidationError;

/// A tool's arguments as the server has them.
#[derive(Debug, Clone)]
pub enum ToolArguments<'a> {
    /// No `arguments` member: the tool gets an empty object.
    Absent,
    /// Raw JSON text (e.g. the bytes of the `arguments` member). Checked before it is
    /// parsed, so over-deep input never reaches the parser. `null` counts as no
    /// arguments (the tool gets an empty object), as the server reads `"arguments": null`;
    /// any other non-object is refused.
    Raw(&'a [u8]),
    /// An already parsed value (`null` counts as no arguments, as for `Raw`).
    Value(Value),
}

impl<'a> From<&'a serde_json::value::RawValue> for ToolArguments<'a> {
    fn from(raw: &'a serde_json::value::RawValue) -> Self {
        Self::Raw(raw.get().as_bytes())
    }
}

/// Arguments that passed the request limits, ready for the handler.
#[derive(Debug, Clone)]
pub struct PreparedCall {
    tool: Arc<str>,
    arguments: Value,
}

impl PreparedCall {
    /// The tool name.
    #[must_use]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The parsed arguments (an object), e.g. to build a cache key.
    #[must_use]
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }
}

/// How a call ended, from the server's point of view.
#[derive(Debug, Clone)]
#[must_use]
pub enum CallOutcome {
    /// Send this result as the response.
    Respond(ToolCallResult),
    /// The client cancelled the call: send nothing.
    Cancelled,
}

/// Runs tool calls under the configured limits.
///
/// Cheap to clone; clones share the limits and the counters.
#[derive(Debug, Clone)]
pub struct ToolRunner {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    timeouts: TimeoutLimits,
    request: RequestLimits,
    max_response_bytes: usize,
    counters: Arc<Counters>,
}

impl ToolRunner {
    /// A runner for `limits` (its `timeouts`, `response` and `request` sections).
    #[must_use]
    pub fn new(limits: &Limits) -> Self {
        Self {
            inner: Arc::new(Inner {
                timeouts: limits.timeouts.clone(),
                request: limits.request.clone(),
                max_response_bytes: usize::try_from(limits.response.max_response_bytes)
                    .unwrap_or(0),
                counters: Arc::default(),
            }),
        }
    }

    /// What the runner has done so far.
    #[must_use]
    pub fn stats(&self) -> RunnerStats {
        self.inner.counters.snapshot()
    }

    /// The response limit (`response.maxResponseBytes`), in bytes.
    #[must_use]
    pub fn max_response_bytes(&self) -> usize {
        self.inner.max_response_bytes
    }

    /// The timeout of `tool` (see [`resolve_timeout`]).
    #[must_use]
    pub fn timeout_for(&self, tool: &str, entry: &ToolEntry) -> ResolvedTimeout {
        resolve_timeout(&self.inner.timeouts, tool, entry.category.as_deref())
    }

    /// Checks the request limits and parses the arguments. Never calls a handler.
    ///
    /// # Errors
    ///
    /// The error result to send when the arguments break a limit (`ARRAY_TOO_LARGE` listing
    /// every over-long array, or `VALIDATION_FAILED` for over-deep or non-object arguments).
    pub fn prepare(
        &self,
        tool: &str,
        arguments: ToolArguments<'_>,
        options: &CallOptions,
    ) -> Result<PreparedCall, Box<ToolCallResult>> {
        self.prepare_shared(&Arc::from(tool), arguments, options)
    }

    /// [`ToolRunner::prepare`] of a tool whose name the caller keeps shared: the call holds
    /// another reference to it instead of a copy.
    ///
    /// # Errors
    ///
    /// As [`ToolRunner::prepare`].
    pub fn prepare_shared(
        &self,
        tool: &Arc<str>,
        arguments: ToolArguments<'_>,
        options: &CallOptions,
    ) -> Result<PreparedCall, Box<ToolCallResult>> {
        let request = &self.inner.request;
        let bounds = ArgumentBounds {
            max_array: array_limit(request, tool),
            max_depth: arguments_depth_limit(request),
            configured_max_depth: request.max_depth,
        };
        let parsed = match arguments {
            ToolArguments::Absent => Ok(Value::Object(Map::new())),
            ToolArguments::Raw(bytes) => match scan_raw(bytes, bounds) {
                Some(violations) => Err(violations),
                None => match serde_json::from_slice::<Value>(bytes) {
                    Ok(value) => Ok(value),
                    Err(error) => {
                        tracing::debug!(tool = &**tool, %error, "tool arguments are not valid JSON");
                        return Err(self.reject(
                            ToolErrorCode::ValidationFailed,
                            "the arguments are not valid JSON".to_owned(),
                            vec![type_error("invalid JSON")],
                            options,
                        ));
                    }
                },
            },
            ToolArguments::Value(value) => match check_value(&value, bounds) {
                Some(violations) => Err(violations),
                None => Ok(value),
            },
        };
        match parsed {
            Ok(Value::Object(arguments)) => Ok(PreparedCall {
                tool: Arc::clone(tool),
                arguments: Value::Object(arguments),
            }),
            Ok(Value::Null) => Ok(PreparedCall {
                tool: Arc::clone(tool),
                arguments: Value::Object(Map::new()),
            }),
            Ok(other) => Err(self.reject(
                ToolErrorCode::ValidationFailed,
                "the arguments must be a JSON object".to_owned(),
                vec![type_error(crate::__private::type_name(&other))],
                options,
            )),
            Err(Violations::TooDeep(violation)) => Err(self.reject(
                ToolErrorCode::ValidationFailed,
                "the arguments are nested too deeply".to_owned(),
                vec![violation],
                options,
            )),
            Err(Violations::ArraysTooLarge(violations)) => Err(self.reject(
                ToolErrorCode::ArrayTooLarge,
                format!(
                    "{} array(s) in the arguments have more than {} items",
                    violations.len(),
                    bounds.max_array
                ),
                violations,
                options,
            )),
        }
    }

    fn reject(
        &self,
        code: ToolErrorCode,
        message: String,
        violations: Vec<ValidationError>,
        options: &CallOptions,
    ) -> Box<ToolCallResult> {
        Counters::bump(&self.inner.counters.rejected_by_limits);
        Box::new(self.render_error(tool_error(code, message, None, violations), options))
    }

    /// Checks the limits, then runs the handler: [`ToolRunner::prepare`] then
    /// [`ToolRunner::execute`].
    pub async fn call(
        &self,
        tool: &str,
        entry: &ToolEntry,
        arguments: ToolArguments<'_>,
        options: CallOptions,
    ) -> CallOutcome {
        if options.cancel.is_cancelled() {
            Counters::bump(&self.inner.counters.cancelled);
            return CallOutcome::Cancelled;
        }
        match self.prepare(tool, arguments, &options) {
            Ok(prepared) => self.execute(entry, prepared, options).await,
            Err(result) => CallOutcome::Respond(*result),
        }
    }

    /// Runs the handler of a prepared call until it finishes, its timeout passes, or the
    /// client cancels; renders the result within the response limit.
    ///
    /// On timeout the handler's token fires, an async handler's future is dropped and a
    /// `TOOL_TIMEOUT` result is returned at once, even if a blocking handler's thread is still
    /// busy (its eventual result is discarded). On the client's cancel the same happens and
    /// the outcome is [`CallOutcome::Cancelled`]. Progress reports stop before this returns.
    pub fn execute<'a>(
        &'a self,
        entry: &'a ToolEntry,
        call: PreparedCall,
        options: CallOptions,
    ) -> impl std::future::Future<Output = CallOutcome> + Send + 'a {
        self.run(entry, call, options, CancelWatch::Own)
    }

    /// [`ToolRunner::execute`] polled by a caller that itself waits on `options.cancel` and
    /// is woken when it fires (the server's request task: see `RequestContext::new`): the
    /// runner then checks the token at each poll instead of registering a second waiter on it.
    pub(crate) fn execute_watched<'a>(
        &'a self,
        entry: &'a ToolEntry,
        call: PreparedCall,
        options: CallOptions,
    ) -> impl std::future::Future<Output = CallOutcome> + Send + 'a {
        self.run(entry, call, options, CancelWatch::Caller)
    }

    #[allow(clippy::manual_async_fn)] // an `async fn` would keep its arguments twice
    fn run<'a>(
        &'a self,
        entry: &'a ToolEntry,
        call: PreparedCall,
        options: CallOptions,
        watch: CancelWatch,
    ) -> impl std::future::Future<Output = CallOutcome> + Send + 'a {
        // An `async` block, not an `async fn`: an `async fn`'s future keeps its arguments
        // twice (as passed, and moved into its body); every call in flight holds this one.
        async move {
            let counters = &self.inner.counters;
            Counters::bump(&counters.calls);
            let timeout = self.timeout_for(&call.tool, entry);
            let deadline = options.started + timeout.duration;
            // The handler's token is a token of its own, not a child of the client's: the
            // runner fires it itself whenever the call ends before the handler does (the
            // client's cancel, the deadline, or the call dropped: `AbortOnDrop` and
            // `BlockingRun` cancel it), so a child's link to its parent (an allocation for
            // the parent's list of children, a lock on each side) would only duplicate that.
            let token = CancellationToken::new();
            if options.cancel.is_cancelled() {
                token.cancel();
            }
            let progress = ProgressReporter::new(
                options.progress.clone(),
                options.log.clone(),
                counters.progress_after_close.clone(),
            );
            let context = ToolContext::new(
                call.tool.clone(),
                token.clone(),
                deadline,
                progress.clone(),
                options.client.clone(),
            )
            .with_auth(options.auth.clone())
            .with_extensions(options.extensions.clone())
            .with_stream_closer(options.stream_closer.clone());
            let ended = match &entry.handler {
                ToolHandler::Async(handler) => {
                    // The handler's synchronous part (before its future) may panic too.
                    match catch_unwind(AssertUnwindSafe(|| handler(context, call.arguments))) {
                        Ok(future) => {
                            let cancel = (&options.cancel, watch);
                            let in_place = entry.in_place;
                            run_async(future, deadline, timeout, cancel, token, in_place).await
                        }
                        Err(_panic) => Ended::Panicked,
                    }
                }
                ToolHandler::Blocking(handler) => {
                    let handler = Arc::clone(handler);
                    let job =
                        move |context: ToolContext, arguments: Value| handler(context, arguments);
                    let run = BlockingRun::start(
                        job,
                        context,
                        call.arguments,
                        Arc::clone(&self.inner.counters),
                        token,
                    );
                    run.wait(deadline, timeout, &options.cancel).await
                }
            };
            progress.close();
            let result = match ended {
                Ended::Cancelled => {
                    Counters::bump(&counters.cancelled);
                    tracing::debug!(tool = %call.tool, "tool call cancelled by the client");
                    return CallOutcome::Cancelled;
                }
                Ended::TimedOut(timeout) => {
                    Counters::bump(&counters.timed_out);
                    tracing::debug!(tool = %call.tool, ?timeout, "tool call timed out");
                    let ms = timeout.duration.as_millis();
                    let mut details = Map::new();
                    details.insert(
                        "timeoutMs".to_owned(),
                        Value::from(u64::try_from(ms).unwrap_or(u64::MAX)),
                    );
                    let message = format!("the tool did not finish within {ms} ms");
                    self.render_error(
                        tool_error(
                            ToolErrorCode::ToolTimeout,
                            message,
                            Some(details),
                            Vec::new(),
                        ),
                        &options,
                    )
                }
                Ended::Panicked => {
                    Counters::bump(&counters.panicked);
                    tracing::error!(tool = %call.tool, "tool handler panicked");
                    let message = "the tool failed unexpectedly".to_owned();
                    self.render_error(
                        tool_error(ToolErrorCode::Internal, message, None, Vec::new()),
                        &options,
                    )
                }
                Ended::Finished(Ok(data)) if entry.cache.is_cacheable() => {
                    let mut result = self.render_output(&data, false, &options);
                    if !result.is_error && result.meta.truncated != Some(true) {
                        result.cacheable_output = Some(data);
                    } else {
                        // Written: its long strings hold the next call's long arguments.
                        crate::long_strings::recycle(data);
                    }
                    result
                }
                Ended::Finished(Ok(data)) => self.render_given_output(data, &options),
                Ended::Finished(Err(error)) => self.render_error(handler_error(error), &options),
            };
            CallOutcome::Respond(result)
        }
    }

    /// Renders a tool output served from the result cache (`cached: true`), timed from
    /// `options.started`.
    #[must_use]
    pub fn render_cached(&self, data: &Value, options: &CallOptions) -> ToolCallResult {
        self.render_output(data, true, options)
    }

    /// Renders an error result the server decides on itself (e.g. `TOOL_NOT_FOUND`,
    /// `RATE_LIMITED`), with the generated `retryable` default for `code`.
    #[must_use]
    pub fn render_error_code(
        &self,
        code: ToolErrorCode,
        message: impl Into<String>,
        options: &CallOptions,
    ) -> ToolCallResult {
        self.render_error(tool_error(code, message.into(), None, Vec::new()), options)
    }

    /// [`render_output`](Self::render_output) of an output nothing keeps after this call: a
    /// long text output is moved into the value outbound validation reads instead of copied
    /// ([`render_text_success`]); any other is rendered, then its long strings kept for the
    /// next call's long arguments. (A short text costs less to copy than the second path
    /// costs in code run: 900 instructions more per HTTP call of 16 B when every text moved.)
    fn render_given_output(&self, data: Value, options: &CallOptions) -> ToolCallResult {
        match data {
            Value::String(text)
                if !options.content_blocks && text.len() >= crate::long_strings::KEEP_FROM =>
            {
                let (budget, max_response_bytes, cut_text) = self.success_limits(options);
                let meta = base_meta(elapsed_ms(options.started), false);
                let result = render_text_success(text, meta, budget, max_response_bytes, cut_text);
                self.count_result(&result);
                result
            }
            data => {
                let result = self.render_output(&data, false, options);
                crate::long_strings::recycle(data);
                result
            }
        }
    }

    /// Renders a tool output as a success result within the response limit, e.g. a value
    /// the result cache shared with this call (`cached` says whether it came from the cache
    /// rather than from running the tool for this call).
    #[must_use]
    pub fn render_output(
        &self,
        data: &Value,
        cached: bool,
        options: &CallOptions,
    ) -> ToolCallResult {
        let meta = base_meta(elapsed_ms(options.started), cached);
        if options.content_blocks {
            let result = super::content::render_content(data, meta, self.budget(options));
            self.count_result(&result);
            return result;
        }
        let (budget, max_response_bytes, cut_text) = self.success_limits(options);
        let result = render_success(data, meta, budget, max_response_bytes, cut_text);
        self.count_result(&result);
        result
    }

    /// What every rendering of a success takes from `options`: the budget and shape, the
    /// response limit, and whether a text output may be cut to fit (only when no structured
    /// output is promised).
    fn success_limits(&self, options: &CallOptions) -> ((usize, Shape), usize, bool) {
        (
            self.budget(options),
            self.response_limit(options),
            !options.structured_output,
        )
    }

    fn render_error(
        &self,
        error: crate::generated::errors::ToolError,
        options: &CallOptions,
    ) -> ToolCallResult {
        let meta = base_meta(elapsed_ms(options.started), false);
        let result = render_failure(error, meta, self.budget(options));
        self.count_result(&result);
        result
    }

    /// The largest response line of this call: `maxResponseBytes`, or the tool's declared
    /// answer bound when smaller.
    fn response_limit(&self, options: &CallOptions) -> usize {
        let limit = self.inner.max_response_bytes;
        options
            .max_answer_bytes
            .map_or(limit, |bound| bound.min(limit))
    }

    /// The room for the result, and its shape.
    fn budget(&self, options: &CallOptions) -> (usize, Shape) {
        let shape = Shape {
            legacy: options.legacy_result,
        };
        let budget = self
            .response_limit(options)
            .saturating_sub(options.line_overhead);
        (shape.budget(budget), shape)
    }

    fn count_result(&self, result: &ToolCallResult) {
        let counters = &self.inner.counters;
        Counters::bump(if result.is_error {
            &counters.failed
        } else {
            &counters.succeeded
        });
        if result.meta.truncated == Some(true) {
            Counters::bump(&counters.truncated);
        }
        if result.error_code == Some(ToolErrorCode::ResponseTooLarge) {
            Counters::bump(&counters.too_large);
        }
        if result.over_budget {
            Counters::bump(&counters.over_budget);
        }
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn type_error(actual: &str) -> ValidationError {
    ValidationError::new(
        "",
        "",
        "type",
        Value::from("object"),
        Value::from(actual),
        "the arguments must be a JSON object",
    )
}

/// The structured error for a handler's failure.
fn handler_error(error: ToolCallError) -> crate::generated::errors::ToolError {
    let code = error.code();
    match error {
        ToolCallError::Failed { message, details } => {
            tool_error(code, message, details, Vec::new())
        }
        ToolCallError::InvalidArguments(mut violations) => {
            if violations.is_empty() {
                violations.push(ValidationError::new(
                    "",
                    "",
                    "schema",
                    Value::Null,
                    Value::Null,
                    "the arguments are invalid",
                ));
            }
            let message = format!("{} argument violation(s)", violations.len());
            tool_error(code, message, None, violations)
        }
        ToolCallError::RateLimited { retry_after_ms } => {
            let details = retry_after_ms.map(|ms| {
                let mut details = Map::new();
                details.insert("retryAfterMs".to_owned(), Value::from(ms));
                details
            });
            tool_error(
                code,
                "too many calls; try again later".to_owned(),
                details,
                Vec::new(),
            )
        }
        ToolCallError::Unavailable { message } | ToolCallError::Internal { message } => {
            tool_error(code, message, None, Vec::new())
        }
        ToolCallError::Cancelled => {
            tool_error(code, "the call was cancelled".to_owned(), None, Vec::new())
        }
    }
}
