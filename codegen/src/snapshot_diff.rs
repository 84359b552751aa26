//! Comparing a snapshot with what a live server publishes: which tools were added, removed
//! or changed, and for a changed one every member that differs (by JSON Pointer), with the
//! arguments gained, lost, newly required or no longer required named in words.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::snapshot::{name_of, Snapshot, SnapshotDiff, ToolChange, ToolDiff};

/// The longest a value is quoted in a diff line before it is cut.
const MAX_QUOTED: usize = 160;

/// How `live` differs from `recorded`.
pub(crate) fn diff(recorded: &Snapshot, live: &Snapshot) -> SnapshotDiff {
    let names: BTreeSet<&str> = recorded
        .tools
        .iter()
        .chain(&live.tools)
        .map(name_of)
        .collect();
    let mut tools = Vec::new();
    for name in names {
        let entry = match (recorded.tool(name), live.tool(name)) {
            (Some(_), None) => ToolDiff {
                name: name.to_owned(),
                change: ToolChange::Removed,
                lines: Vec::new(),
            },
            (None, Some(_)) => ToolDiff {
                name: name.to_owned(),
                change: ToolChange::Added,
                lines: Vec::new(),
            },
            (Some(old), Some(new)) if old != new => ToolDiff {
                name: name.to_owned(),
                change: ToolChange::Changed,
                lines: tool_lines(old, new),
            },
            _ => continue,
        };
        tools.push(entry);
    }
    let mut notes = Vec::new();
    let mut note = |what: &str, old: &str, new: &str| {
        if old != new {
            notes.push(format!("{what}: {old} -> {new}"));
        }
    };
    note("server name", &recorded.server_name, &live.server_name);
    note(
        "server version",
        &recorded.server_version,
        &live.server_version,
    );
    let (old, new) = (&recorded.protocol_version, &live.protocol_version);
    note("protocol version", old, new);
    SnapshotDiff { tools, notes }
}

/// The lines of a changed tool: the arguments in words first, then every differing member.
fn tool_lines(old: &Value, new: &Value) -> Vec<String> {
    let mut lines = argument_lines(old, new);
    members(old, new, "", &mut lines);
    lines
}

/// Arguments added or removed, and required arguments gained or lost.
fn argument_lines(old: &Value, new: &Value) -> Vec<String> {
    let keys = |tool: &Value, member: &str| -> BTreeSet<String> {
        let schema = tool.get("inputSchema");
        match schema.and_then(|s| s.get(member)) {
            Some(Value::Object(map)) => map.keys().cloned().collect(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => BTreeSet::new(),
        }
    };
    let (old_props, new_props) = (keys(old, "properties"), keys(new, "properties"));
    let (old_required, new_required) = (keys(old, "required"), keys(new, "required"));
    let mut lines = Vec::new();
    for name in new_required.difference(&old_required) {
        lines.push(format!("argument `{name}` is now required"));
    }
    for name in old_required.difference(&new_required) {
        lines.push(format!("argument `{name}` is no longer required"));
    }
    for name in new_props.difference(&old_props) {
        lines.push(format!("argument `{name}` added"));
    }
    for name in old_props.difference(&new_props) {
        lines.push(format!("argument `{name}` removed"));
    }
    lines
}

/// One line per member that differs under `at` (objects are compared member by member,
/// anything else as a whole).
fn members(old: &Value, new: &Value, at: &str, lines: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => {
            let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
            for key in keys {
                let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                match (old.get(key.as_str()), new.get(key.as_str())) {
                    (Some(a), Some(b)) => members(a, b, &here, lines),
                    (None, Some(b)) => lines.push(format!("{here}: added {}", quoted(b))),
                    (Some(a), None) => lines.push(format!("{here}: removed (was {})", quoted(a))),
                    (None, None) => {}
                }
            }
        }
        _ if old != new => lines.push(format!("{at}: {} -> {}", quoted(old), quoted(new))),
        _ => {}
    }
}

/// `value` as compact JSON, cut after [`MAX_QUOTED`] characters.
fn quoted(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= MAX_QUOTED {
        return text;
    }
    let cut: String = text.chars().take(MAX_QUOTED).collect();
    format!("{cut}...")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn snapshot(version: &str, tools: Vec<Value>) -> Snapshot {
        Snapshot::new("server", version, "2025-11-25", tools).expect("a snapshot")
    }

    #[test]
    fn a_new_required_argument_is_named_with_its_tool() {
        let before = json!({"name": "add", "inputSchema": {
            "type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]}});
        let after = json!({"name": "add", "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"]}});
        let diff = snapshot("1", vec![before]).diff(&snapshot("2", vec![after]));
        assert!(!diff.is_empty());
        let text = diff.to_string();
        assert!(text.contains("tool `add`: changed"), "{text}");
        assert!(text.contains("argument `b` is now required"), "{text}");
        assert!(text.contains("argument `b` added"), "{text}");
        assert!(
            text.contains(r#"/inputSchema/required: ["a"] -> ["a","b"]"#),
            "{text}"
        );
        assert!(text.contains("note: server version: 1 -> 2"), "{text}");
    }

    #[test]
    fn added_and_removed_tools_are_reported_and_a_version_alone_is_no_difference() {
        let tool = |name: &str| json!({"name": name, "inputSchema": {"type": "object"}});
        let old = snapshot("1", vec![tool("a"), tool("b")]);
        let new = snapshot("1", vec![tool("b"), tool("c")]);
        let diff = old.diff(&new);
        let changes: Vec<_> = diff
            .tools
            .iter()
            .map(|t| (t.name.as_str(), t.change))
            .collect();
        assert_eq!(
            changes,
            [("a", ToolChange::Removed), ("c", ToolChange::Added)]
        );
        let bumped = snapshot("9", vec![tool("a"), tool("b")]);
        let diff = old.diff(&bumped);
        assert!(diff.is_empty());
        assert_eq!(diff.notes, ["server version: 1 -> 9"]);
    }

    #[test]
    fn long_values_are_cut() {
        let long = Value::String("x".repeat(1000));
        assert!(quoted(&long).len() < 200);
        assert!(quoted(&long).ends_with("..."));
    }
}
