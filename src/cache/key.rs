//! Cache keys: a tool name plus its arguments in canonical JSON.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::jsonrpc::escape::write_json_string;

/// The key of one cached tool result: the tool name and the call's arguments, as the
/// canonical JSON text of the two-element array `[tool, arguments]`.
///
/// Canonical JSON here means: object members sorted by key (byte order of the UTF-8 key),
/// no whitespace, strings escaped and numbers written exactly as `serde_json` writes them.
/// Two argument objects that differ only in member order or formatting therefore give the
/// same key. Putting the tool name inside the array keeps the key unambiguous whatever
/// characters the tool name contains.
///
/// The key text is shared (`Arc<str>`), so cloning a key is cheap.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use typed_mcp::cache::CacheKey;
///
/// let a = CacheKey::new("sum", &json!({"a": 1, "b": [true, null]}));
/// let b = CacheKey::new("sum", &json!({"b": [true, null], "a": 1}));
/// assert_eq!(a, b);
/// assert_eq!(a.as_str(), r#"["sum",{"a":1,"b":[true,null]}]"#);
/// assert_ne!(a, CacheKey::new("other", &json!({"a": 1, "b": [true, null]})));
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheKey(Arc<str>);

impl CacheKey {
    /// Builds the key of a call of `tool` with `arguments`.
    #[must_use]
    pub fn new(tool: &str, arguments: &Value) -> Self {
        let mut text = String::with_capacity(tool.len() + 16);
        text.push('[');
        write_json_string(&mut text, tool);
        text.push(',');
        write_canonical(&mut text, arguments);
        text.push(']');
        Self(Arc::from(text))
    }

    /// The canonical JSON text of the key.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Length of the key text in bytes; part of an entry's size (see
    /// [`entry_size_bytes`](crate::cache::entry_size_bytes)).
    #[must_use]
    pub fn len_bytes(&self) -> u64 {
        // A `usize` always fits in a `u64` on the platforms Rust supports.
        self.0.len() as u64
    }
}

impl fmt::Debug for CacheKey {
    // The key contains the call's arguments; print only its length so debug output and
    // logs never echo input.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CacheKey({} bytes)", self.0.len())
    }
}

/// Canonical JSON of `value`, as described on [`CacheKey`].
///
/// Written without recursion, so however deeply `value` is nested this cannot overflow the
/// stack.
///
/// ```
/// use serde_json::json;
///
/// let text = typed_mcp::cache::canonical_json(&json!({"z": {"y": 1.5, "x": "\n"}, "a": []}));
/// assert_eq!(text, r#"{"a":[],"z":{"x":"\n","y":1.5}}"#);
/// ```
#[must_use]
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(&mut out, value);
    out
}

/// One pending step of the iterative writer.
enum Step<'a> {
    /// Write this value.
    Value(&'a Value),
    /// Write this object member: separator if not first, key, colon, then the value.
    Member {
        first: bool,
        key: &'a str,
        value: &'a Value,
    },
    /// Write a comma (between array elements).
    Comma,
    /// Write a closing bracket or brace.
    Close(char),
}

fn write_canonical(out: &mut String, value: &Value) {
    let mut stack = vec![Step::Value(value)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Comma => out.push(','),
            Step::Close(c) => out.push(c),
            Step::Member { first, key, value } => {
                if !first {
                    out.push(',');
                }
                write_json_string(out, key);
                out.push(':');
                stack.push(Step::Value(value));
            }
            Step::Value(value) => match value {
                Value::Null => out.push_str("null"),
                Value::Bool(true) => out.push_str("true"),
                Value::Bool(false) => out.push_str("false"),
                // `Number`'s Display is serde_json's own number output.
                Value::Number(n) => out.push_str(&n.to_string()),
                Value::String(s) => write_json_string(out, s),
                Value::Array(items) => {
                    out.push('[');
                    stack.push(Step::Close(']'));
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push(Step::Value(item));
                        if i > 0 {
                            stack.push(Step::Comma);
                        }
                    }
                }
                Value::Object(members) => {
                    out.push('{');
                    stack.push(Step::Close('}'));
                    // Sorted explicitly: the map may keep insertion order when serde_json's
                    // `preserve_order` feature is on somewhere in the build.
                    let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
                    sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
                    for (i, (key, value)) in sorted.into_iter().enumerate().rev() {
                        stack.push(Step::Member {
                            first: i == 0,
                            key,
                            value,
                        });
                    }
                }
            },
        }
    }
}
