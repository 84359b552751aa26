//! Which requests the request loop may start on its reading task
//! ([`Handler::runs_in_place`](crate::server::Handler::runs_in_place)): `ping`, and
//! `tools/call` of a tool declared [`in_place`](super::ToolDefinition::in_place) whose
//! results are not cached (a cache store may block on I/O). Everything else gets a task of
//! its own from the start: the handlers of resources, prompts and completions are the
//! server's user's code, which made no promise not to block.
//!
//! The loop asks for every request it reads, so this stays cheap: one load unless the
//! method is `tools/call` and some tool is declared in place; the tool's name is found by
//! walking the raw params' members, not by parsing them ([`tool_name`]).

use serde_json::value::RawValue;

use super::answer_bound::tool_name;
use super::catalog::Catalog;
use super::tool_call::ToolSet;
use super::tools::ToolDefinition;
use crate::tools::ToolHandler;

/// Whether the request may start on the reading task.
pub(crate) fn of_request(catalog: &Catalog, method: &str, params: Option<&RawValue>) -> bool {
    match method {
        "ping" => true,
        "tools/call" if catalog.has_in_place_tools() => params
            .and_then(tool_name)
            .is_some_and(|name| catalog.current().tools.runs_in_place(&name)),
        _ => false,
    }
}

/// Whether a call of `tool` may start on the reading task: an async handler declared in
/// place, and no result cache in the way.
fn eligible(tool: &ToolDefinition) -> bool {
    let entry = &tool.entry;
    entry.in_place && matches!(entry.handler, ToolHandler::Async(_)) && !entry.cache.is_cacheable()
}

impl ToolSet {
    /// Whether any tool of the set may be called on the reading task.
    pub(crate) fn has_in_place_tools(&self) -> bool {
        self.by_name.values().any(eligible)
    }

    /// Whether a call of the tool named `tool` may start on the reading task.
    pub(crate) fn runs_in_place(&self, tool: &str) -> bool {
        self.by_name.get(tool).is_some_and(eligible)
    }
}
