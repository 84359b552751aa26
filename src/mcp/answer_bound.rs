//! Declared answer bounds (see [`ToolDefinition::max_answer_bytes`]): what the request loop
//! asks before it starts a `tools/call` ([`Handler::max_answer_bytes`]).
//!
//! The loop asks on its reading task for every request, so this stays cheap: nothing is
//! looked at unless the method is `tools/call` and some tool declares a bound, and the tool's
//! name is read from the raw params without parsing them, when they begin with it.
//!
//! [`ToolDefinition::max_answer_bytes`]: super::ToolDefinition::max_answer_bytes
//! [`Handler::max_answer_bytes`]: crate::server::Handler::max_answer_bytes

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::catalog::Catalog;
use super::tool_call::ToolSet;
use super::tools::ToolDefinition;
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
/// Params written as clients (and serde) write them, `{"name":"echo",...`, are read without
/// a parser: an object's first member is a member of it, and a name without escapes is its
/// own text. Anything else (whitespace, another member first, escapes) is parsed for `name`
/// alone.
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
    #[derive(Deserialize)]
    struct Named<'a> {
        #[serde(borrow)]
        name: Cow<'a, str>,
    }
    serde_json::from_str::<Named<'_>>(text)
        .ok()
        .map(|named| named.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_of(json: &str) -> Option<String> {
        let raw = RawValue::from_string(json.to_owned()).expect("valid JSON");
        tool_name(&raw).map(Cow::into_owned)
    }

    #[test]
    fn the_name_is_read_where_it_comes_first_and_parsed_elsewhere() {
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
    }
}
