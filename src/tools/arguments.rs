//! Request limits checked before a handler runs: nesting depth and array sizes.
//!
//! Raw arguments are scanned byte by byte with an explicit stack, so over-deep input (say
//! 100,000 nested arrays) is rejected without recursion and without building a
//! `serde_json::Value`; the scan also counts every array's items. Arguments that are already
//! a `Value` are walked iteratively with the same rules. Both report every over-long array,
//! each with its JSON Pointer, the limit and the actual length; a depth
//! violation stops the check and is reported alone.

use serde_json::Value;

use crate::validation::ValidationError;

/// The bounds checked on a call's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ArgumentBounds {
    /// Largest number of items of any array.
    pub(crate) max_array: u64,
    /// Deepest nesting, the arguments object being level 1.
    pub(crate) max_depth: usize,
    /// `maxDepth` as configured (it counts the whole message), for error reports.
    pub(crate) configured_max_depth: i64,
}

/// What the check found wrong.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Violations {
    /// The arguments nest too deeply (reported alone).
    TooDeep(ValidationError),
    /// Arrays longer than the limit, every one of them.
    ArraysTooLarge(Vec<ValidationError>),
}

/// Checks raw JSON bytes; returns the violations, if any. Malformed JSON is not diagnosed
/// here (the parse that follows reports it).
pub(crate) fn scan_raw(bytes: &[u8], bounds: ArgumentBounds) -> Option<Violations> {
    let mut stack: Vec<RawFrame> = Vec::new();
    let mut arrays = Vec::new();
    let mut expect_key = false;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b' ' | b'\t' | b'\n' | b'\r' | b':' => at += 1,
            b',' => {
                expect_key = matches!(stack.last(), Some(RawFrame::Object { .. }));
                at += 1;
            }
            b'"' => {
                let end = string_end(bytes, at)?;
                if expect_key {
                    if let Some(RawFrame::Object { key }) = stack.last_mut() {
                        *key = (at, end);
                    }
                    expect_key = false;
                } else {
                    count_item(&mut stack);
                }
                at = end;
            }
            open @ (b'[' | b'{') => {
                count_item(&mut stack);
                if stack.len() >= bounds.max_depth {
                    let path = raw_pointer(bytes, &stack);
                    return Some(Violations::TooDeep(depth_error(path, bounds)));
                }
                stack.push(if open == b'[' {
                    RawFrame::Array { items: 0 }
                } else {
                    RawFrame::Object { key: (0, 0) }
                });
                expect_key = open == b'{';
                at += 1;
            }
            b']' | b'}' => {
                if let Some(RawFrame::Array { items }) = stack.pop() {
                    if items > bounds.max_array {
                        arrays.push(array_error(raw_pointer(bytes, &stack), items, bounds));
                    }
                }
                expect_key = false;
                at += 1;
            }
            _ => {
                count_item(&mut stack);
                while at < bytes.len()
                    && !matches!(
                        bytes[at],
                        b',' | b']' | b'}' | b':' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    at += 1;
                }
            }
        }
    }
    (!arrays.is_empty()).then_some(Violations::ArraysTooLarge(arrays))
}

enum RawFrame {
    Array {
        items: u64,
    },
    /// The byte range of the current member's key, quotes included.
    Object {
        key: (usize, usize),
    },
}

fn count_item(stack: &mut [RawFrame]) {
    if let Some(RawFrame::Array { items }) = stack.last_mut() {
        *items += 1;
    }
}

/// The index just past the string starting with the quote at `start`; `None` when the
/// string never ends.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

/// The JSON Pointer of the value the innermost frame is currently at.
fn raw_pointer(bytes: &[u8], stack: &[RawFrame]) -> String {
    let mut pointer = String::new();
    for frame in stack {
        pointer.push('/');
        match frame {
            RawFrame::Array { items } => pointer.push_str(&items.saturating_sub(1).to_string()),
            RawFrame::Object { key: (start, end) } => {
                // An object whose first key has not been read yet (malformed input such
                // as `{{`) has the empty range: its token is empty.
                let raw = bytes.get(*start..*end).unwrap_or_default();
                let key = match raw {
                    [b'"', inner @ .., b'"'] => serde_json::from_slice::<String>(raw)
                        .unwrap_or_else(|_| String::from_utf8_lossy(inner).into_owned()),
                    _ => String::new(),
                };
                push_token(&mut pointer, &key);
            }
        }
    }
    pointer
}

fn push_token(pointer: &mut String, token: &str) {
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Checks parsed arguments with the same rules as [`scan_raw`], without recursion.
pub(crate) fn check_value(value: &Value, bounds: ArgumentBounds) -> Option<Violations> {
    // The usual arguments, an object of scalars, break no rule and need no walk (nor the
    // walk's allocation): level 1 holds no array and nothing nests below it.
    if let Value::Object(members) = value {
        if bounds.max_depth >= 1 && !members.values().any(is_container) {
            return None;
        }
    }
    let mut arrays = Vec::new();
    // (value, its depth, its pointer); only containers are pushed.
    let mut stack: Vec<(&Value, usize, String)> = Vec::new();
    if is_container(value) {
        stack.push((value, 1, String::new()));
    }
    while let Some((value, depth, pointer)) = stack.pop() {
        if depth > bounds.max_depth {
            return Some(Violations::TooDeep(depth_error(pointer, bounds)));
        }
        match value {
            Value::Array(items) => {
                let len = u64::try_from(items.len()).unwrap_or(u64::MAX);
                if len > bounds.max_array {
                    arrays.push(array_error(pointer.clone(), len, bounds));
                }
                for (index, item) in items.iter().enumerate().rev() {
                    if is_container(item) {
                        stack.push((item, depth + 1, format!("{pointer}/{index}")));
                    }
                }
            }
            Value::Object(members) => {
                let mut children: Vec<_> = members
                    .iter()
                    .filter(|(_, member)| is_container(member))
                    .collect();
                children.reverse();
                for (key, member) in children {
                    let mut child = pointer.clone();
                    child.push('/');
                    push_token(&mut child, key);
                    stack.push((member, depth + 1, child));
                }
            }
            _ => {}
        }
    }
    (!arrays.is_empty()).then_some(Violations::ArraysTooLarge(arrays))
}

fn is_container(value: &Value) -> bool {
    matches!(value, Value::Array(_) | Value::Object(_))
}

fn array_error(path: String, items: u64, bounds: ArgumentBounds) -> ValidationError {
    ValidationError::new(
        path,
        "",
        "maxArraySize",
        Value::from(bounds.max_array),
        Value::from(items),
        format!(
            "array has {items} items, at most {} allowed",
            bounds.max_array
        ),
    )
}

fn depth_error(path: String, bounds: ArgumentBounds) -> ValidationError {
    let limit = bounds.configured_max_depth;
    ValidationError::new(
        path,
        "",
        "maxDepth",
        Value::from(limit),
        Value::from(format!("more than {limit} levels")),
        format!(
            "arguments nest deeper than the {limit} levels a message may have \
             (the request around them counts {} levels)",
            super::policy::ARGUMENTS_DEPTH_OFFSET
        ),
    )
}
