//! Which limits apply to a given tool: its timeout and its array-size bound.

use std::time::Duration;

use crate::generated::limits::{RequestLimits, TimeoutLimits};

/// Where a tool's timeout came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutSource {
    /// `toolOverrides[tool]`.
    Override,
    /// `toolTimeouts[category]`, the category being `toolCategories[tool]` or else the one
    /// the tool's registry entry declares.
    Category,
    /// `defaultTimeoutMs`.
    Default,
}

/// A tool's timeout and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedTimeout {
    /// How long the call may run.
    pub duration: Duration,
    /// Which setting gave it.
    pub source: TimeoutSource,
}

/// The timeout of `tool`: `toolOverrides[tool]`, else `toolTimeouts[category]`, else
/// `defaultTimeoutMs`.
///
/// The category is `toolCategories[tool]` when configured, else `declared_category` (from the
/// tool's registry entry). A category without an entry in `toolTimeouts` falls back to the
/// default.
#[must_use]
pub fn resolve_timeout(
    limits: &TimeoutLimits,
    tool: &str,
    declared_category: Option<&str>,
) -> ResolvedTimeout {
    if let Some(ms) = limits.tool_overrides.as_ref().and_then(|m| m.get(tool)) {
        return ResolvedTimeout {
            duration: Duration::from_millis(ms.get()),
            source: TimeoutSource::Override,
        };
    }
    let category = limits
        .tool_categories
        .as_ref()
        .and_then(|m| m.get(tool))
        .map(String::as_str)
        .or(declared_category);
    let category_ms =
        category.and_then(|category| limits.tool_timeouts.as_ref().and_then(|m| m.get(category)));
    match category_ms {
        Some(ms) => ResolvedTimeout {
            duration: Duration::from_millis(ms.get()),
            source: TimeoutSource::Category,
        },
        None => ResolvedTimeout {
            duration: Duration::from_millis(limits.default_timeout_ms.get()),
            source: TimeoutSource::Default,
        },
    }
}

/// The largest array allowed anywhere in `tool`'s arguments: `toolArrayLimits[tool]`, else
/// `maxArraySize`.
#[must_use]
pub fn array_limit(limits: &RequestLimits, tool: &str) -> u64 {
    limits
        .tool_array_limits
        .as_ref()
        .and_then(|m| m.get(tool))
        .unwrap_or(&limits.max_array_size)
        .get()
}

/// Nesting levels a `tools/call` message has around its `arguments` object: the message
/// object and its `params` object.
pub const ARGUMENTS_DEPTH_OFFSET: usize = 2;

/// The deepest nesting allowed inside `arguments`, counting the arguments object as level 1:
/// `maxDepth` (which counts the whole message) minus [`ARGUMENTS_DEPTH_OFFSET`], at least 1.
#[must_use]
pub fn arguments_depth_limit(limits: &RequestLimits) -> usize {
    usize::try_from(limits.max_depth)
        .unwrap_or(0)
        .saturating_sub(ARGUMENTS_DEPTH_OFFSET)
        .max(1)
}
