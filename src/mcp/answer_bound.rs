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
    /// The answer bound of `tool`, if it declares one: its declaration, or the response
    /// limit when that is smaller (no answer is larger).
    pub(crate) fn answer_bound(&self, tool: &str) -> Option<usize> {
        let declared = self.by_name.get(tool)?.entry.max_answer_bytes?;
        Some(declared.min(self.runner.max_response_bytes()))
    }

    /// Whether any tool declares an answer bound.
    pub(crate) fn has_answer_bounds(&self) -> bool {
        self.by_name
            .values()
            .any(|tool| tool.entry.max_answer_bytes.is_some())
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
