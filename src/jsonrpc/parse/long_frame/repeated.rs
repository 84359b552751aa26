//! The last `_meta` object the checker accepted on this thread, kept so that the same bytes
//! in the next frame are passed with one comparison instead of a second check.
//!
//! A client sends the same `_meta` with every call of a connection (in the 2026-07-28 era it
//! names the protocol version, the client and its capabilities in each request), so most
//! frames repeat the previous frame's `_meta` byte for byte. An object is delimited by its
//! own bytes (it ends at its closing brace), so text that starts with an object the checker
//! accepted holds that same object there, nesting as deep. A `_meta` that differs (a
//! per-call progress token) is checked as any value is, and kept in turn.

use std::cell::RefCell;

/// Objects longer than this are not kept: the comparison would cost more than it saves
/// only if they rarely repeat, and a kept one must not hold much memory.
const KEEP_MAX: usize = 1024;

/// The member name whose object value is kept, with its quotes.
pub(super) const KEPT_NAME: &[u8] = b"\"_meta\"";

struct Kept {
    /// The object's text (empty when none is kept).
    text: Vec<u8>,
    /// How many arrays and objects it nests, itself included.
    nesting: usize,
}

thread_local! {
    static KEPT: RefCell<Kept> = const {
        RefCell::new(Kept {
            text: Vec::new(),
            nesting: 0,
        })
    };
}

/// The length of the kept object when `rest` starts with it and it nests at most `depth`
/// levels (the checker's bound at that point).
pub(super) fn repeated_len(rest: &[u8], depth: usize) -> Option<usize> {
    KEPT.with(|kept| {
        let kept = kept.try_borrow().ok()?;
        (!kept.text.is_empty() && kept.nesting <= depth && rest.starts_with(&kept.text))
            .then_some(kept.text.len())
    })
}

/// Keeps `value`, which the checker has just accepted, when it is a short object.
pub(super) fn keep(value: &[u8]) {
    if value.first() != Some(&b'{') || value.len() > KEEP_MAX {
        return;
    }
    let nesting = nesting(value);
    KEPT.with(|kept| {
        if let Ok(mut kept) = kept.try_borrow_mut() {
            kept.text.clear();
            kept.text.extend_from_slice(value);
            kept.nesting = nesting;
        }
    });
}

/// How many arrays and objects `value` (checked JSON) nests at its deepest.
fn nesting(value: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0_usize, 0, false, false);
    for &byte in value {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_containers_not_brackets_in_strings() {
        assert_eq!(nesting(b"{}"), 1);
        assert_eq!(nesting(br#"{"a":[{"b":"]}[\"{"}],"c":{}}"#), 3);
        assert_eq!(nesting(br#"{"a":"\\","b":[[]]}"#), 3);
    }

    #[test]
    fn a_kept_object_is_found_only_at_the_start_and_within_the_depth() {
        keep(br#"{"v":[1]}"#);
        assert_eq!(repeated_len(br#"{"v":[1]},"x":2}"#, 2), Some(9));
        assert_eq!(repeated_len(br#"{"v":[1]},"x":2}"#, 1), None);
        assert_eq!(repeated_len(br#" {"v":[1]}"#, 2), None);
        assert_eq!(repeated_len(br#"{"v":[12]}"#, 2), None);
        // Not objects, or too long: not kept (the last object stays).
        keep(b"12");
        keep(format!(r#"{{"l":"{}"}}"#, "x".repeat(KEEP_MAX)).as_bytes());
        assert_eq!(repeated_len(br#"{"v":[1]}"#, 2), Some(9));
    }
}
