//! Server snapshots: what a live MCP server publishes about its tools, recorded in a JSON
//! file that [`crate::Config::server_snapshot`] turns into a typed client.
//!
//! `typed-mcp-pull` (the command that talks to servers) writes them; this module only knows
//! the file: its format, reading and writing it, and comparing two of them. A snapshot holds
//! the server's name and version, the protocol version negotiated, and for each tool its
//! `name`, `title`, `description`, `annotations`, `inputSchema` and `outputSchema` exactly as
//! the server sent them. Tools are sorted by name and every object's keys are sorted, so a
//! snapshot diffs well under version control:
//!
//! ```json
//! {
//!   "format": 1,
//!   "protocolVersion": "2025-11-25",
//!   "server": { "name": "github", "version": "1.4.0" },
//!   "tools": [
//!     { "description": "Opens an issue.", "inputSchema": { "type": "object" }, "name": "create_issue" }
//!   ]
//! }
//! ```

use std::fmt;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// The version of the snapshot file format this generator reads and writes.
pub const SNAPSHOT_FORMAT: u64 = 1;

/// The members of a tool a snapshot records (everything else the server sends, such as
/// `icons` or `_meta`, is left out: it does not change how the tool is called).
const TOOL_MEMBERS: [&str; 6] = [
    "name",
    "title",
    "description",
    "annotations",
    "inputSchema",
    "outputSchema",
];

/// One server's tools, as recorded in a snapshot file.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use typed_mcp_codegen::Snapshot;
///
/// let tool = json!({"name": "add", "inputSchema": {"type": "object"}, "icons": []});
/// let snapshot = Snapshot::new("calc", "1.0.0", "2025-11-25", vec![tool]).unwrap();
/// assert!(snapshot.to_json().contains("\"add\""));
/// assert!(!snapshot.to_json().contains("icons"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Snapshot {
    /// The server's `serverInfo.name`.
    pub server_name: String,
    /// The server's `serverInfo.version`.
    pub server_version: String,
    /// The protocol version the snapshot was taken with.
    pub protocol_version: String,
    /// The tools, sorted by name, each an object holding only the members a snapshot
    /// records, with sorted keys.
    pub tools: Vec<Value>,
}

impl Snapshot {
    /// A snapshot of `tools` (each a tool object as `tools/list` returns it).
    ///
    /// # Errors
    ///
    /// [`Error::Snapshot`] when a tool is not an object, has no string `name` or no object
    /// `inputSchema`, or when two tools share a name.
    pub fn new(
        server_name: impl Into<String>,
        server_version: impl Into<String>,
        protocol_version: impl Into<String>,
        tools: Vec<Value>,
    ) -> Result<Self> {
        let mut recorded = Vec::with_capacity(tools.len());
        for (index, tool) in tools.into_iter().enumerate() {
            let pointer = format!("/tools/{index}");
            let Value::Object(tool) = tool else {
                return Err(invalid(None, &pointer, "a tool is not an object"));
            };
            let kept: Map<String, Value> = tool
                .into_iter()
                .filter(|(key, _)| TOOL_MEMBERS.contains(&key.as_str()))
                .map(|(key, value)| (key, sorted(value)))
                .collect();
            check_tool(&kept, &pointer, None)?;
            recorded.push(sorted(Value::Object(kept)));
        }
        recorded.sort_by(|a, b| name_of(a).cmp(name_of(b)));
        if let Some(pair) = recorded
            .windows(2)
            .find(|w| name_of(&w[0]) == name_of(&w[1]))
        {
            let message = format!("two tools are named `{}`", name_of(&pair[0]));
            return Err(invalid(None, "/tools", &message));
        }
        Ok(Self {
            server_name: server_name.into(),
            server_version: server_version.into(),
            protocol_version: protocol_version.into(),
            tools: recorded,
        })
    }

    /// Reads the snapshot file at `path`.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when it cannot be read, [`Error::Json`] when it is not JSON,
    /// [`Error::Snapshot`] when it is not a snapshot of this format.
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let value: Value = serde_json::from_str(&text).map_err(|source| Error::Json {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_value(&value).map_err(|error| match error {
            Error::Snapshot {
                file: None,
                pointer,
                message,
            } => Error::Snapshot {
                file: Some(path.to_path_buf()),
                pointer,
                message,
            },
            other => other,
        })
    }

    /// The snapshot a parsed snapshot file holds.
    ///
    /// # Errors
    ///
    /// [`Error::Snapshot`] when `value` is not a snapshot of this format.
    pub fn from_value(value: &Value) -> Result<Self> {
        let format = value.get("format").and_then(Value::as_u64);
        if format != Some(SNAPSHOT_FORMAT) {
            let message = format!("not a snapshot of format {SNAPSHOT_FORMAT}");
            return Err(invalid(None, "/format", &message));
        }
        let text = |pointer: &str| {
            value
                .pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| invalid(None, pointer, "a string is required here"))
        };
        let tools = value
            .get("tools")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid(None, "/tools", "an array of tools is required"))?;
        Self::new(
            text("/server/name")?,
            text("/server/version")?,
            text("/protocolVersion")?,
            tools.clone(),
        )
    }

    /// The snapshot as a file: pretty JSON with sorted keys and a final newline.
    #[must_use]
    pub fn to_json(&self) -> String {
        let value = serde_json::json!({
            "format": SNAPSHOT_FORMAT,
            "protocolVersion": self.protocol_version,
            "server": {"name": self.server_name, "version": self.server_version},
            "tools": self.tools,
        });
        let mut text = serde_json::to_string_pretty(&sorted(value))
            .unwrap_or_else(|_| unreachable!("a JSON value always serializes"));
        text.push('\n');
        text
    }

    /// Writes the snapshot to `path` unless the file already holds exactly it; returns
    /// whether it wrote.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file or its directory cannot be written.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<bool> {
        crate::output::write_if_changed(path.as_ref(), &self.to_json())
    }

    /// The tool named `name`, if the snapshot has it.
    #[must_use]
    pub fn tool(&self, name: &str) -> Option<&Value> {
        self.tools.iter().find(|tool| name_of(tool) == name)
    }

    /// How `live` (what the server publishes now) differs from this snapshot.
    #[must_use]
    pub fn diff(&self, live: &Snapshot) -> SnapshotDiff {
        crate::snapshot_diff::diff(self, live)
    }
}

/// How the tools of a live server differ from a snapshot: tools added, removed or changed
/// (each change with the JSON Pointer of the member, and the required arguments gained or
/// lost named). Its `Display` is the readable report `typed-mcp-pull --check` prints.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SnapshotDiff {
    /// One entry per tool that differs, in name order.
    pub tools: Vec<ToolDiff>,
    /// Differences outside the tools (server version, protocol version): reported, but not
    /// a reason to regenerate a client.
    pub notes: Vec<String>,
}

/// How one tool differs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolDiff {
    /// The tool's name.
    pub name: String,
    /// What happened to it.
    pub change: ToolChange,
    /// For a changed tool, one line per difference (`inputSchema/required: ... -> ...`).
    pub lines: Vec<String>,
}

/// What happened to a tool between the snapshot and the live server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolChange {
    /// The server has it; the snapshot does not.
    Added,
    /// The snapshot has it; the server no longer does.
    Removed,
    /// Both have it, with different members.
    Changed,
}

impl SnapshotDiff {
    /// Whether the tools are the same (notes aside).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

impl fmt::Display for SnapshotDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for tool in &self.tools {
            let what = match tool.change {
                ToolChange::Added => "added on the server (not in the snapshot)",
                ToolChange::Removed => "removed from the server (still in the snapshot)",
                ToolChange::Changed => "changed",
            };
            writeln!(f, "tool `{}`: {what}", tool.name)?;
            for line in &tool.lines {
                writeln!(f, "  {line}")?;
            }
        }
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        Ok(())
    }
}

/// Checks the members a snapshot relies on.
fn check_tool(tool: &Map<String, Value>, pointer: &str, file: Option<&Path>) -> Result<()> {
    let fail =
        |member: &str, message: &str| Err(invalid(file, &format!("{pointer}/{member}"), message));
    if !tool.get("name").is_some_and(Value::is_string) {
        return fail("name", "a tool needs a string `name`");
    }
    if !tool.get("inputSchema").is_some_and(Value::is_object) {
        return fail("inputSchema", "a tool needs an object `inputSchema`");
    }
    if tool.get("outputSchema").is_some_and(|s| !s.is_object()) {
        return fail("outputSchema", "an `outputSchema` must be an object");
    }
    Ok(())
}

/// A tool's name (every recorded tool has one).
pub(crate) fn name_of(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or_default()
}

/// `value` with the keys of every object sorted (whatever map order serde_json keeps).
pub(crate) fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn invalid(file: Option<&Path>, pointer: &str, message: &str) -> Error {
    Error::Snapshot {
        file: file.map(Path::to_path_buf),
        pointer: pointer.to_owned(),
        message: message.to_owned(),
    }
}
