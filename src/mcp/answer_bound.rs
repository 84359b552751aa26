//! Declared answer bounds (see [`ToolDefinition::max_answer_bytes`]): what the request loop
//! asks before it starts a `tools/call` ([`Handler::max_answer_bytes`]).
//!
//! The loop asks on its reading task for every request, so this stays cheap: nothing is
//! looked at unless the method is `tools/call` and some tool declares a bound, and the tool's
//! name is found by walking the raw params' members, not by parsing them ([`tool_name`]).
//!
//! [`ToolDefinition::max_answer_bytes`]: super::ToolDefinition::max_answer_bytes
//! [`Handler::max_answer_bytes`]: crate::server::Handler::max_answer_bytes

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::catalog::Catalog;
use super::tool_call::ToolSet;
use super::tools::ToolDefinition;
use crate::jsonrpc::members::last_member;
use crate::tools::ToolRunner;

/// The declared answer bound of a request: for `tools/call` of a tool that declares one,
/// else `None` (at the cost of a comparison and a load when no tool declares one).
pub(crate) fn of_request(
    catalog: &Catalog,
    method: &str,
    params: Option<&RawValue>,
) -> Option<usize> {
    if method != "tools/call" || !catalog.has_answer_bounds() {
        return None;
    }
    let name = tool_name(params?)?;
    catalog.current().tools.answer_bound(&name)
}

impl ToolSet {
    /// The answer bounds of the tools of `by_name` that declare one: the declaration, or
    /// the response limit when that is smaller (no answer is larger).
    pub(crate) fn answer_bounds_of(
        by_name: &crate::fast_map::FastMap<std::sync::Arc<str>, ToolDefinition>,
        runner: &ToolRunner,
    ) -> Vec<(Box<str>, usize)> {
        let limit = runner.max_response_bytes();
        by_name
            .iter()
            .filter_map(|(name, tool)| {
                let declared = tool.entry.max_answer_bytes?;
                Some((name.as_ref().into(), declared.min(limit)))
            })
            .collect()
    }

    /// The answer bound of `tool`, if it declares one. A list, not a hash lookup: servers
    /// declare bounds for a few tools with large answers, and a few comparisons cost less
    /// than hashing the name of every call.
    pub(crate) fn answer_bound(&self, tool: &str) -> Option<usize> {
        self.answer_bounds
            .iter()
            .find(|(name, _)| **name == *tool)
            .map(|&(_, bound)| bound)
    }

    /// Whether any tool declares an answer bound.
    pub(crate) fn has_answer_bounds(&self) -> bool {
        !self.answer_bounds.is_empty()
    }
}

/// The `name` member of `tools/call` params, or `None` if there is none (the call itself
/// will say what is wrong with them).
///
/// Params written as clients write them are read without a parser, nor a pass over their
/// other members (a tool's arguments, however long):
/// - `{"name":"echo",...` (a 2025 client): an object's first member is a member of it, and
///   a name without escapes is its own text;
/// - `...,"name":"echo"}` (typed-mcp's 2026-07-28 client, which writes members in key
///   order, `_meta` and `arguments` first): see [`trailing_name`].
///
/// Anything else (whitespace, `name` elsewhere, escapes) is walked member by member
/// ([`last_member`]): the other members are stepped over, their strings by `memchr`, never
/// parsed, and a repeated `name` counts as the call counts it (the params' `Value` keeps the
/// last). `None` for params that are not an object, or whose `name` is not a string.
pub(crate) fn tool_name(params: &RawValue) -> Option<Cow<'_, str>> {
    const PREFIX: &str = r#"{"name":""#;
    let text = params.get();
    if let Some(rest) = text.strip_prefix(PREFIX) {
        if let Some(end) = rest.find(['"', '\\']) {
            if rest.as_bytes()[end] == b'"' {
                return Some(Cow::Borrowed(&rest[..end]));
            }
        }
    }
    if let Some(name) = trailing_name(text) {
        return Some(Cow::Borrowed(name));
    }
    let raw = last_member(text, "name")??;
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// The name of params (a checked JSON object, as a `RawValue` holds it: no whitespace
/// around it) whose text ends with `,"name":"NAME"}` or is `{"name":"NAME"}`, NAME without
/// a backslash; read from the end, so whatever comes before (however long) is not looked at.
///
/// Why the match is a member of the params, and their last: the final `}` closes the params,
/// so the `"` before it closes a string, the last value; NAME has no backslash, so the quote
/// before it is the string's opening one unless escaped, and an escaped quote has a `\`
/// before it where the match wants `:`; the key's quotes are preceded by `,` or `{` and by
/// `e`, not by `\`, so they are real quotes, and `"name"` followed by `:` is a key of the
/// object that the final `}` closes. Being the last member, it is the one the call reads
/// when `name` repeats.
fn trailing_name(text: &str) -> Option<&str> {
    /// Bytes before the closing quote looked at one by one for the opening one.
    const NAME_TAIL: usize = 64;
    let body = text.strip_suffix("\"}")?;
    // A byte loop over the last bytes (a name is a few, shorter than `memrchr`'s setup),
    // `memrchr` before them.
    let bytes = body.as_bytes();
    let tail = bytes.len().saturating_sub(NAME_TAIL);
    let open = match bytes[tail..].iter().rposition(|&byte| byte == b'"') {
        Some(at) => tail + at,
        None => memchr::memrchr(b'"', &bytes[..tail])?,
    };
    let name = body.get(open + 1..)?;
    if name.bytes().any(|byte| byte == b'\\') {
        return None;
    }
    let before = body.get(..open)?.strip_suffix(r#""name":"#)?;
    matches!(before.as_bytes().last(), Some(b',' | b'{')).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_of(json: &str) -> Option<String> {
        let raw = RawValue::from_string(json.to_owned()).expect("valid JSON");
        tool_name(&raw).map(Cow::into_owned)
    }

    #[test]
    fn the_name_is_read_at_either_end_and_walked_to_elsewhere() {
        assert_eq!(
            name_of(r#"{"name":"big","arguments":{"bytes":1}}"#).as_deref(),
            Some("big")
        );
        assert_eq!(
            name_of(r#"{"arguments":{"name":"inner"},"name":"big"}"#).as_deref(),
            Some("big")
        );
        assert_eq!(name_of(r#"{ "name" : "big" }"#).as_deref(), Some("big"));
        assert_eq!(name_of(r#"{"name":"b\u0069g"}"#).as_deref(), Some("big"));
        assert_eq!(name_of(r#"{"name":"a\"b"}"#).as_deref(), Some("a\"b"));
        assert_eq!(name_of(r#"{"arguments":{}}"#), None);
        assert_eq!(name_of(r#"{"name":7}"#), None);
        assert_eq!(name_of("[]"), None);
        assert_eq!(name_of(r#"["big"]"#), None);
        assert_eq!(
            name_of(r#"{"x":1,"name":"a","y":2,"name":"b","z":3}"#).as_deref(),
            Some("b")
        );
        assert_eq!(name_of(r#"{"x":1,"name":"a","name":7}"#), None);
        // From the end: the last member only, never a lookalike inside a string.
        assert_eq!(
            name_of(r#"{"arguments":{"t":"x"},"name":"echo"}"#).as_deref(),
            Some("echo")
        );
        assert_eq!(name_of(r#"{"name":"echo"}"#).as_deref(), Some("echo"));
        assert_eq!(name_of(r#"{"k":"zz,\"name\":\"evil"}"#), None);
        assert_eq!(name_of(r#"{"k":"\\","name":"ok"}"#).as_deref(), Some("ok"));
        assert_eq!(
            name_of(r#"{"k":{"name":"inner"},"name":"n\u0061me"}"#).as_deref(),
            Some("name")
        );
        assert_eq!(name_of(r#"{"k":{"name":"inner"}}"#), None);
        assert_eq!(
            name_of(r#"{"_meta":{"name":"m"},"arguments":{"text":"x\"y"},"name":"echo"}"#)
                .as_deref(),
            Some("echo")
        );
    }
}
