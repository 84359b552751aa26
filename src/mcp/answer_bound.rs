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

/// The `name` member of `tools/call` params: the tool the call will run, or `None` if
/// there is none (the call itself will say what is wrong with them).
///
/// The params' members are walked ([`last_member`]), not parsed: the members before and
/// after `name` (a 2026-07-28 client writes `_meta` and `arguments` first) are stepped over,
/// their strings by `memchr`. A name written twice counts as the call counts it (the params'
/// `Value` keeps the last), so a declared bound or an in-place promise belongs to the tool
/// actually called. `None` for params that are not an object, or whose last `name` is not a
/// string.
pub(crate) fn tool_name(params: &RawValue) -> Option<Cow<'_, str>> {
    let raw = last_member(params.get(), "name")??;
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_of(json: &str) -> Option<String> {
        let raw = RawValue::from_string(json.to_owned()).expect("valid JSON");
        tool_name(&raw).map(Cow::into_owned)
    }

    #[test]
    fn the_name_is_the_one_the_call_reads() {
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
        assert_eq!(name_of(r#"{"name":"a","name":"b"}"#).as_deref(), Some("b"));
        assert_eq!(name_of(r#"{"name":"a","name":7}"#), None);
        assert_eq!(
            name_of(r#"{"_meta":{"name":"m"},"arguments":{"text":"x\"y"},"name":"echo"}"#)
                .as_deref(),
            Some("echo")
        );
    }
}
