//! The `tools/call` result: a `CallToolResult` whose `structuredContent` is the envelope of
//! `schema/errors.json`, rendered within the response size limit.
//!
//! Shape:
//!
//! ```json
//! {"resultType":"complete",
//!  "content":[{"type":"text","text":"<human-readable>"}],
//!  "structuredContent":{"ok":true,"data":...,"meta":{...}},
//!  "isError":false,
//!  "_meta":{"io.typed-mcp/meta":{"durationMs":3,"truncated":false,"cached":false}}}
//! ```
//!
//! The same `ResultMeta` appears in the envelope's `meta` and under the prefixed `_meta` key.
//! Size: the rendering is measured against a byte budget (the response
//! limit minus the JSON-RPC line around the result). A text output (a JSON string) that does
//! not fit is cut at a character boundary, with `truncated: true` and `originalSizeBytes`.
//! Structured output, and the output of a tool with a published `outputSchema`, is never cut: when it does not fit even with its text copy shortened, the
//! answer is a `RESPONSE_TOO_LARGE` error. An error report that does not fit keeps as many
//! violations as fit, then falls back to a minimal error.
//!
//! A success's text is written by hand (`envelope_text`), the rest through the `Serialize`
//! types below, which also stand as the reference the hand-written text is tested against.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::envelope_text::{Output, SuccessText};
use super::envelope_writer;
use crate::generated::errors::{ResultMeta, ToolError, ToolErrorCode, ToolFailure};
use crate::validation::reused_value::{self, ReusedValue};
use crate::validation::ValidationError;

/// The `_meta` key the result metadata is published under.
pub const META_KEY: &str = "io.typed-mcp/meta";

/// Appended to the text of an output cut to fit the response limit.
pub const TRUNCATION_MARKER: &str = "\n[output truncated to fit the response size limit]";

/// Violations listed one per line in the text content of an error; the rest are counted.
const TEXT_VIOLATIONS: usize = 10;

/// A rendered `tools/call` result, ready to be the `result` member of the response.
#[derive(Debug, Clone)]
pub struct ToolCallResult {
    /// The `CallToolResult`, as compact JSON.
    pub json: Box<RawValue>,
    /// Whether it reports an error (`isError: true`).
    pub is_error: bool,
    /// The error code, for errors.
    pub error_code: Option<ToolErrorCode>,
    /// The metadata published with it.
    pub meta: ResultMeta,
    /// Whether even the smallest rendering exceeds the budget (only possible when the
    /// request id alone nearly fills the response limit); logged and counted.
    pub over_budget: bool,
    /// The tool's output, when the tool is cacheable, the call succeeded and nothing was cut:
    /// the hook for the result cache, which may store it and later serve it with
    /// [`ToolRunner::render_cached`](super::ToolRunner::render_cached).
    pub cacheable_output: Option<Value>,
    /// `json` as a JSON value, when the renderer built it alongside `json` (the common paths:
    /// a success's by hand, see `envelope_writer`; a failure's from the same `Serialize`
    /// value it wrote `json` from): outbound validation checks this value instead of parsing
    /// `json` back. `None`: the server parses `json` to validate it.
    pub(crate) value: Option<ReusedValue>,
}

#[derive(Serialize)]
struct CallToolResultOut<'a, E, T: ?Sized> {
    /// `None` in the legacy shape (2025 protocol versions), which has no `resultType`.
    #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
    content: [TextContentOut<'a, T>; 1],
    #[serde(rename = "structuredContent")]
    structured_content: &'a E,
    #[serde(rename = "isError")]
    is_error: bool,
    #[serde(rename = "_meta")]
    meta: MetaOut<'a>,
}

/// `T` is `str`, or the text already written as a JSON string (`RawValue`).
#[derive(Serialize)]
struct TextContentOut<'a, T: ?Sized> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a T,
}

#[derive(Serialize)]
struct MetaOut<'a> {
    #[serde(rename = "io.typed-mcp/meta")]
    meta: &'a ResultMeta,
}

#[derive(Serialize)]
struct SuccessOut<'a> {
    ok: bool,
    data: DataOut<'a>,
    meta: &'a ResultMeta,
}

#[derive(Serialize)]
#[serde(untagged)]
enum DataOut<'a> {
    Value(&'a Value),
    Text(&'a str),
}

/// A well-formed `INTERNAL` result, used should serializing a result ever fail.
const SERIALIZATION_FAILED: &str = concat!(
    r#"{"resultType":"complete","content":[{"type":"text","text":"INTERNAL: "#,
    r#"the result could not be serialized"}],"structuredContent":{"ok":false,"error":"#,
    r#"{"code":"INTERNAL","message":"the result could not be serialized","retryable":false}},"#,
    r#""isError":true}"#
);

/// Room for a small result's text at first (a short echo's result is about 300 bytes), so
/// that writing it does not grow the buffer.
const SMALL_RESULT_BYTES: usize = 512;

fn to_raw<T: Serialize>(value: &T) -> Box<RawValue> {
    // Serializing these shapes cannot fail (string keys only, no fallible `Serialize`
    // impls); should it ever, the failure is logged and answered with an INTERNAL error.
    crate::jsonrpc::raw::to_raw_sized(value, SMALL_RESULT_BYTES).unwrap_or_else(|error| {
        tracing::error!(%error, "serializing a tool result failed");
        RawValue::from_string(SERIALIZATION_FAILED.to_owned())
            .unwrap_or_else(|_| unreachable!("the fallback result is valid JSON"))
    })
}

fn render<E: Serialize, T: Serialize + ?Sized>(
    text: &T,
    envelope: &E,
    is_error: bool,
    meta: &ResultMeta,
    shape: Shape,
) -> Box<RawValue> {
    to_raw(&result_out(text, envelope, is_error, meta, shape))
}

/// What [`render`] writes, as a JSON value built from the same `Serialize` value (no text
/// is parsed back): outbound validation checks it. `None` should serializing ever fail (the
/// server then parses the text instead).
fn render_value<E: Serialize>(
    text: &str,
    envelope: &E,
    is_error: bool,
    meta: &ResultMeta,
    shape: Shape,
) -> Option<ReusedValue> {
    reused_value::to_value(&result_out(text, envelope, is_error, meta, shape)).ok()
}

fn result_out<'a, E, T: ?Sized>(
    text: &'a T,
    envelope: &'a E,
    is_error: bool,
    meta: &'a ResultMeta,
    shape: Shape,
) -> CallToolResultOut<'a, E, T> {
    CallToolResultOut {
        result_type: (!shape.legacy).then_some("complete"),
        content: [TextContentOut { kind: "text", text }],
        structured_content: envelope,
        is_error,
        meta: MetaOut { meta },
    }
}

/// Where a result must fit, and in which shape it is written.
///
/// The legacy shape (2025 protocol versions) is the modern one without its leading
/// `"resultType":"complete",` member; its budget is smaller by those bytes, so a result is
/// cut (or refused) at the same point in every protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Written without `resultType`.
    pub(crate) legacy: bool,
}

impl Shape {
    /// The length of the modern text of a result whose text in this shape is `len` long.
    pub(crate) fn modern_len(self, len: usize) -> usize {
        if self.legacy {
            len.saturating_add(RESULT_TYPE_MEMBER.len())
        } else {
            len
        }
    }

    /// `budget` (the room for a modern result) for a result of this shape.
    pub(crate) fn budget(self, budget: usize) -> usize {
        if self.legacy {
            budget.saturating_sub(RESULT_TYPE_MEMBER.len())
        } else {
            budget
        }
    }
}

/// The member the legacy shape leaves out, with its separator (written first).
pub(crate) const RESULT_TYPE_MEMBER: &str = r#""resultType":"complete","#;

/// A `ResultMeta` for a call that took `duration_ms`.
pub(crate) fn base_meta(duration_ms: u64, cached: bool) -> ResultMeta {
    ResultMeta {
        cached: Some(cached),
        duration_ms,
        original_size_bytes: None,
        truncated: Some(false),
    }
}

/// Renders a successful call's output within `budget` bytes; a text output may be cut to fit
/// only when `cut_text` is set (a typed output is never cut). The result's
/// `cacheable_output` is left `None`; the runner fills it in.
pub(crate) fn render_success(
    data: &Value,
    meta: ResultMeta,
    (budget, shape): (usize, Shape),
    max_response_bytes: usize,
    cut_text: bool,
) -> ToolCallResult {
    // The text copy of a structured output is its JSON, written once here.
    let written = match data {
        Value::String(_) => None,
        _ => Some(serde_json::to_string(data)),
    };
    let output = match (data, &written) {
        (Value::String(text), _) => Some(Output::Text(text)),
        (_, Some(Ok(json))) => Some(Output::Json(json)),
        (_, Some(Err(error))) => {
            tracing::error!(%error, "serializing a tool output failed");
            None
        }
        (_, None) => None,
    };
    let envelope = SuccessOut {
        ok: true,
        data: DataOut::Value(data),
        meta: &meta,
    };
    let Some(output) = output else {
        // Only a failed serialization: rendered (and failing) through `serde_json`.
        return success(render("", &envelope, false, &meta, shape), meta);
    };
    let text = match output {
        Output::Text(text) | Output::Json(text) => text,
    };
    let measured = SuccessText::measure(output, &meta, shape);
    if measured.len() <= budget {
        let value = envelope_writer::success_value(text, data, &meta, shape)
            .ok()
            .or_else(|| render_value(text, &envelope, false, &meta, shape));
        return with_value(success(measured.write(), meta), value);
    }
    // The output's size as compact JSON (`originalSizeBytes`), known from the measure.
    let original = u64::try_from(match output {
        Output::Text(text) => crate::jsonrpc::escape::json_string_len(text),
        Output::Json(json) => json.len(),
    })
    .unwrap_or(u64::MAX);
    if let (Value::String(text), true) = (data, cut_text) {
        return truncate_text(text, meta, (budget, shape), max_response_bytes, original);
    }
    // Structured output is never cut; try again with a short note for the text copy.
    let note = format!(
        "The result ({original} bytes of JSON) is in structuredContent; its text copy was \
         left out to fit the response size limit."
    );
    let json = render(&note, &envelope, false, &meta, shape);
    if json.get().len() <= budget {
        return success(json, meta);
    }
    too_large(meta, (budget, shape), max_response_bytes, original)
}

/// [`render_success`] of a text output the caller gives up. When the result fits `budget`,
/// the text is moved, not copied, into the value outbound validation reads (one copy less of
/// a long text: 64 KiB is ~2.5% of a call's CPU); the result is the same in every case.
pub(crate) fn render_text_success(
    text: String,
    meta: ResultMeta,
    (budget, shape): (usize, Shape),
    max_response_bytes: usize,
    cut_text: bool,
) -> ToolCallResult {
    let measured = SuccessText::measure(Output::Text(&text), &meta, shape);
    if measured.len() > budget {
        let data = Value::String(text);
        let result = render_success(&data, meta, (budget, shape), max_response_bytes, cut_text);
        crate::long_strings::recycle(data);
        return result;
    }
    let json = measured.write();
    let value = envelope_writer::text_success_value(text, &meta, shape).ok();
    with_value(success(json, meta), value)
}

/// `result` with the value its text was written from (see [`ToolCallResult::value`]).
fn with_value(mut result: ToolCallResult, value: Option<ReusedValue>) -> ToolCallResult {
    result.value = value;
    result
}

pub(crate) fn success(json: Box<RawValue>, meta: ResultMeta) -> ToolCallResult {
    ToolCallResult {
        json,
        is_error: false,
        error_code: None,
        meta,
        over_budget: false,
        cacheable_output: None,
        value: None,
    }
}

/// Cuts a text output at a character boundary so that the result fits `budget`.
fn truncate_text(
    text: &str,
    mut meta: ResultMeta,
    (budget, shape): (usize, Shape),
    max_response_bytes: usize,
    original: u64,
) -> ToolCallResult {
    meta.truncated = Some(true);
    meta.original_size_bytes = Some(original);
    let render_prefix = |prefix: &str, meta: &ResultMeta| {
        let shown = format!("{prefix}{TRUNCATION_MARKER}");
        let envelope = SuccessOut {
            ok: true,
            data: DataOut::Text(prefix),
            meta,
        };
        render(&shown, &envelope, false, meta, shape)
    };
    let fixed = render_prefix("", &meta).get().len();
    // The prefix appears twice (text content and data), escaped the same way each time.
    let mut room = budget.saturating_sub(fixed);
    let mut cut = 0;
    if fixed <= budget {
        for (at, c) in text.char_indices() {
            let cost = 2 * escaped_len(c);
            if cost > room {
                break;
            }
            room -= cost;
            cut = at + c.len_utf8();
        }
        let json = render_prefix(&text[..cut], &meta);
        if json.get().len() <= budget {
            return success(json, meta);
        }
        tracing::error!("truncated text result exceeds its budget; answering RESPONSE_TOO_LARGE");
    }
    meta.truncated = Some(false);
    meta.original_size_bytes = None;
    too_large(meta, (budget, shape), max_response_bytes, original)
}

/// Bytes `c` takes inside a JSON string as `serde_json` writes it.
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        '\u{0}'..='\u{1f}' => 6,
        c => c.len_utf8(),
    }
}

fn too_large(
    meta: ResultMeta,
    room: (usize, Shape),
    max_response_bytes: usize,
    original: u64,
) -> ToolCallResult {
    let mut details = Map::new();
    details.insert(
        "maxResponseBytes".to_owned(),
        Value::from(max_response_bytes),
    );
    details.insert("outputSizeBytes".to_owned(), Value::from(original));
    let error = ToolError {
        code: ToolErrorCode::ResponseTooLarge,
        details: Some(details),
        message: format!(
            "the tool's output ({original} bytes) does not fit the response size limit \
             ({max_response_bytes} bytes)"
        ),
        retryable: ToolErrorCode::ResponseTooLarge.is_retryable(),
        validation_errors: None,
    };
    render_failure(error, meta, room)
}

/// A structured error with the generated retryable default for its code.
pub(crate) fn tool_error(
    code: ToolErrorCode,
    message: String,
    details: Option<Map<String, Value>>,
    violations: Vec<ValidationError>,
) -> ToolError {
    ToolError {
        code,
        details,
        message,
        retryable: code.is_retryable(),
        validation_errors: (!violations.is_empty())
            .then(|| violations.into_iter().map(to_generated).collect()),
    }
}

fn to_generated(error: ValidationError) -> crate::generated::errors::ValidationError {
    let (actual, limit) = (error.actual(), error.limit());
    crate::generated::errors::ValidationError {
        actual: (!actual.is_null()).then_some(actual),
        keyword: error.keyword().to_owned(),
        limit: (!limit.is_null()).then_some(limit),
        message: error.message().into_owned(),
        path: error.path().to_owned(),
        schema_path: (!error.schema_path().is_empty()).then(|| error.schema_path().to_owned()),
    }
}

/// Renders a failed call within `budget` bytes, shrinking the report if it must.
pub(crate) fn render_failure(
    error: ToolError,
    meta: ResultMeta,
    (budget, shape): (usize, Shape),
) -> ToolCallResult {
    let code = error.code;
    let mut failure = ToolFailure {
        error,
        meta: Some(meta),
        ok: false,
    };
    let json = render_failure_json(&failure, shape);
    if json.get().len() <= budget {
        let value = render_failure_value(&failure, shape);
        return with_value(failed(json, failure), value);
    }
    // The modern size in every shape, as `originalSizeBytes` always reported.
    let original = u64::try_from(shape.modern_len(json.get().len())).unwrap_or(u64::MAX);
    if let Some(meta) = failure.meta.as_mut() {
        meta.truncated = Some(true);
        meta.original_size_bytes = Some(original);
    }
    if let Some(all) = failure.error.validation_errors.take() {
        if let Some(json) = fit_violations(&mut failure, all, (budget, shape)) {
            return failed(json, failure);
        }
    }
    // Last resort: the code and a fixed message.
    failure.error.details = None;
    failure.error.validation_errors = None;
    failure.error.message = format!("{code}: the error report was too large to send");
    let json = render_failure_json(&failure, shape);
    let mut result = failed(json, failure);
    if result.json.get().len() > budget {
        tracing::error!(
            budget,
            "even a minimal tool error exceeds the response budget"
        );
        result.over_budget = true;
    }
    result
}

/// Keeps the largest number of violations (at least one) that fits; `None` if even one
/// does not.
fn fit_violations(
    failure: &mut ToolFailure,
    all: Vec<crate::generated::errors::ValidationError>,
    (budget, shape): (usize, Shape),
) -> Option<Box<RawValue>> {
    let total = all.len();
    let mut details = failure.error.details.take().unwrap_or_default();
    details.insert("totalViolations".to_owned(), Value::from(total));
    let attempt = |failure: &mut ToolFailure, keep: usize| {
        let mut details = details.clone();
        details.insert("reportedViolations".to_owned(), Value::from(keep));
        failure.error.details = Some(details);
        failure.error.validation_errors = Some(all[..keep].to_vec());
        let json = render_failure_json(failure, shape);
        (json.get().len() <= budget).then_some(json)
    };
    // Largest `keep` in 1..=total that fits, by binary search (fitting is monotone).
    let (mut low, mut high) = (0, total);
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if attempt(failure, mid).is_some() {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    if low == 0 {
        return None;
    }
    attempt(failure, low)
}

fn render_failure_json(failure: &ToolFailure, shape: Shape) -> Box<RawValue> {
    let text = failure_text(&failure.error);
    render(&text, failure, true, &failure_meta(failure), shape)
}

/// What [`render_failure_json`] writes, as a value (see [`render_value`]).
fn render_failure_value(failure: &ToolFailure, shape: Shape) -> Option<ReusedValue> {
    let text = failure_text(&failure.error);
    render_value(&text, failure, true, &failure_meta(failure), shape)
}

fn failure_meta(failure: &ToolFailure) -> ResultMeta {
    failure
        .meta
        .as_ref()
        .cloned()
        .unwrap_or_else(|| base_meta(0, false))
}

fn failed(json: Box<RawValue>, failure: ToolFailure) -> ToolCallResult {
    ToolCallResult {
        json,
        is_error: true,
        error_code: Some(failure.error.code),
        meta: failure.meta.unwrap_or_else(|| base_meta(0, false)),
        over_budget: false,
        cacheable_output: None,
        value: None,
    }
}

/// The human-readable text of an error: `CODE: message`, then up to ten violations.
fn failure_text(error: &ToolError) -> String {
    let mut text = format!("{}: {}", error.code, error.message);
    if let Some(violations) = &error.validation_errors {
        for violation in violations.iter().take(TEXT_VIOLATIONS) {
            let path = if violation.path.is_empty() {
                "(arguments)"
            } else {
                &violation.path
            };
            text.push_str(&format!("\n- {path}: {}", violation.message));
        }
        if violations.len() > TEXT_VIOLATIONS {
            text.push_str(&format!(
                "\n- and {} more",
                violations.len() - TEXT_VIOLATIONS
            ));
        }
    }
    text
}

#[cfg(test)]
#[path = "envelope_tests.rs"]
mod tests;
