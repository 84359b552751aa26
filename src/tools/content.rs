//! Results made of content blocks (text, image, audio, embedded resource, resource link):
//! the blocks are the result's `content`; the uniform envelope stays in
//! `structuredContent` (`{ok: true, data: null, meta}`), so every result still carries its
//! duration, cache and truncation facts.

use serde::Serialize;
use serde_json::Value;

use super::envelope::{render_failure, success, tool_error, Shape, ToolCallResult};
use crate::generated::errors::{ResultMeta, ToolErrorCode};
use crate::generated::protocol::validate;

#[derive(Serialize)]
struct ContentResultOut<'a> {
    /// `None` in the legacy shape (see [`Shape`]).
    #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
    content: &'a Value,
    #[serde(rename = "structuredContent")]
    structured_content: EnvelopeOut<'a>,
    #[serde(rename = "isError")]
    is_error: bool,
    #[serde(rename = "_meta")]
    meta: MetaOut<'a>,
}

#[derive(Serialize)]
struct EnvelopeOut<'a> {
    ok: bool,
    data: (),
    meta: &'a ResultMeta,
}

#[derive(Serialize)]
struct MetaOut<'a> {
    #[serde(rename = "io.typed-mcp/meta")]
    meta: &'a ResultMeta,
}

/// Renders `blocks` (the handler's output: a JSON array of content blocks) within `budget`
/// bytes. Blocks that are not valid content blocks are the tool's fault (`INTERNAL`, the
/// violations logged); blocks are never cut, so a result over the budget is
/// `RESPONSE_TOO_LARGE`.
pub(crate) fn render_content(
    blocks: &Value,
    meta: ResultMeta,
    (budget, shape): (usize, Shape),
) -> ToolCallResult {
    let valid =
        match blocks {
            Value::Array(items) => items.iter().enumerate().all(|(index, block)| {
                match validate::content_block(block) {
                    Ok(()) => true,
                    Err(violations) => {
                        tracing::error!(
                            index,
                            violations = violations.len(),
                            "a tool returned an invalid content block"
                        );
                        false
                    }
                }
            }),
            _ => false,
        };
    if !valid {
        let error = tool_error(
            ToolErrorCode::Internal,
            "the tool returned content that is not a list of valid content blocks".to_owned(),
            None,
            Vec::new(),
        );
        return render_failure(error, meta, (budget, shape));
    }
    let out = ContentResultOut {
        result_type: (!shape.legacy).then_some("complete"),
        content: blocks,
        structured_content: EnvelopeOut {
            ok: true,
            data: (),
            meta: &meta,
        },
        is_error: false,
        meta: MetaOut { meta: &meta },
    };
    let json = match serde_json::value::to_raw_value(&out) {
        Ok(json) => json,
        Err(error) => {
            tracing::error!(%error, "serializing a content result failed");
            let error = tool_error(
                ToolErrorCode::Internal,
                "the result could not be serialized".to_owned(),
                None,
                Vec::new(),
            );
            return render_failure(error, meta, (budget, shape));
        }
    };
    if json.get().len() > budget {
        // The modern size in every shape, as always reported.
        let size = shape.modern_len(json.get().len());
        let error = tool_error(
            ToolErrorCode::ResponseTooLarge,
            format!("the content blocks take {size} bytes, more than the response limit allows"),
            None,
            Vec::new(),
        );
        return render_failure(error, meta, (budget, shape));
    }
    success(json, meta)
}
