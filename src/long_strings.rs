//! Long strings kept for reuse on their thread: a tool's text output, once its result is
//! written, holds the buffer the next call's long argument is copied into.
//!
//! A `tools/call` with a 64 KiB text copies the text out of the params into the argument's
//! `String`. A fresh 64 KiB allocation is cold: with 64 connections at once, that one copy
//! cost as much as four copies into buffers used a moment before (`perf`, BENCHMARKS.md
//! "Issue 12, stop 29"), and freeing such buffers lets glibc trim its arena and fault the
//! pages in again on the next call. The echo's output is that same `String`, moved through
//! the handler; once the result is written, [`recycle`] keeps it, and [`copy_of`] writes the
//! next long argument over it, on the same thread, while it is still in cache.
//!
//! Only strings of [`KEEP_FROM`] to [`KEEP_BYTES_MAX`] bytes are kept, at most
//! [`KEEP_MAX`] per thread (1 MiB at worst), and a kept buffer is used only for a text
//! that fills at least half of it, so an argument never holds much more memory than it would
//! have on its own.

use std::cell::RefCell;

use serde_json::value::RawValue;
use serde_json::Value;

/// Strings shorter than this are allocated as usual (a short allocation is cheap and hot).
pub(crate) const KEEP_FROM: usize = 4 * 1024;

/// A string whose buffer is larger than this is not kept: a large output does not stay
/// resident after its call.
const KEEP_BYTES_MAX: usize = 256 * 1024;

/// The most strings kept per thread: a text and an answer with room to spare, as a call's
/// answer may be sent after the next call has started.
const KEEP_MAX: usize = 4;

thread_local! {
    static KEPT: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// `text` as an owned `String`; one of at least [`KEEP_FROM`] bytes is written over a kept
/// buffer when one has room for it and is at most twice its length.
#[inline]
pub(crate) fn copy_of(text: &str) -> String {
    if text.len() < KEEP_FROM {
        return text.to_owned();
    }
    match take(|capacity| capacity >= text.len() && capacity / 2 <= text.len()) {
        Some(mut buffer) => {
            buffer.clear();
            buffer.push_str(text);
            buffer
        }
        None => text.to_owned(),
    }
}

/// An empty `String` with room for `len` bytes: for `len` of at least [`KEEP_FROM`], a kept
/// buffer of `len` to `len + len / 16` bytes when there is one (a result written to exactly
/// its measured length, then made a `Box<str>`, is not left with much spare room).
#[inline]
pub(crate) fn buffer(len: usize) -> String {
    if len >= KEEP_FROM {
        if let Some(mut buffer) = take(|capacity| (len..=len + len / 16).contains(&capacity)) {
            buffer.clear();
            return buffer;
        }
    }
    String::with_capacity(len)
}

/// The kept buffer whose capacity `fits`, taken out of the keep.
#[inline(never)]
fn take(fits: impl Fn(usize) -> bool) -> Option<String> {
    KEPT.try_with(|kept| {
        let mut kept = kept.try_borrow_mut().ok()?;
        let at = kept.iter().rposition(|buffer| fits(buffer.capacity()))?;
        Some(kept.swap_remove(at))
    })
    .ok()
    .flatten()
}

/// A written answer on its way out (an HTTP body's bytes): its buffer is kept when it is
/// dropped, on the thread that sent it, for the next answer [`buffer`] makes room for.
pub(crate) struct Returned(String);

#[cfg_attr(not(feature = "http"), allow(dead_code))] // only HTTP sends from it
impl Returned {
    /// `answer`, to be kept once sent.
    pub(crate) fn new(answer: String) -> Self {
        Self(answer)
    }
}

impl AsRef<[u8]> for Returned {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl Drop for Returned {
    fn drop(&mut self) {
        keep(std::mem::take(&mut self.0));
    }
}

/// Drops `raw` (a request's params, once its handler is done), keeping its buffer when it is
/// long: it holds the next long frame's params.
#[inline]
pub(crate) fn recycle_raw(raw: Box<RawValue>) {
    if raw.get().len() >= KEEP_FROM {
        keep(String::from(Box::<str>::from(raw)));
    }
}

/// Drops `value`, keeping its buffer for [`copy_of`] when it is a long string (a text
/// output), or the long strings among the members of an object or the items of an array.
/// Deeper strings are dropped with the rest.
#[inline]
pub(crate) fn recycle(value: Value) {
    match value {
        Value::String(text) => keep(text),
        Value::Array(items) => items.into_iter().for_each(keep_if_string),
        Value::Object(members) => members.into_iter().for_each(|(_, v)| keep_if_string(v)),
        _ => {}
    }
}

fn keep_if_string(value: Value) {
    if let Value::String(text) = value {
        keep(text);
    }
}

/// Keeps `text`'s buffer if it is long, not too large, and the thread keeps fewer than
/// [`KEEP_MAX`]; drops it otherwise.
#[inline]
fn keep(text: String) {
    if (KEEP_FROM..=KEEP_BYTES_MAX).contains(&text.capacity()) {
        keep_long(text);
    }
}

/// [`keep`] for a string of the right size.
#[inline(never)]
fn keep_long(text: String) {
    // During thread teardown the keep is gone: the string is simply dropped.
    let _teardown: Result<(), std::thread::AccessError> = KEPT.try_with(|kept| {
        if let Ok(mut kept) = kept.try_borrow_mut() {
            if kept.len() < KEEP_MAX {
                kept.push(text);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept_capacities() -> Vec<usize> {
        KEPT.with(|kept| kept.borrow().iter().map(String::capacity).collect())
    }

    fn clear() {
        KEPT.with(|kept| kept.borrow_mut().clear());
    }

    #[test]
    fn a_recycled_text_output_holds_the_next_long_copy() {
        clear();
        let output = "a".repeat(64 * 1024);
        let buffer = output.as_ptr();
        recycle(Value::String(output));
        assert_eq!(kept_capacities(), vec![64 * 1024]);
        let text = "b".repeat(40 * 1024);
        let copy = copy_of(&text);
        assert_eq!(copy, text, "the copy holds exactly the text");
        assert_eq!(copy.as_ptr(), buffer, "written over the kept buffer");
        assert!(kept_capacities().is_empty(), "taken out of the keep");
    }

    #[test]
    fn short_texts_and_buffers_out_of_proportion_are_not_reused() {
        clear();
        recycle(Value::String("short".to_owned()));
        assert!(kept_capacities().is_empty(), "a short string is not kept");
        recycle(Value::String("x".repeat(KEEP_BYTES_MAX + 1)));
        assert!(kept_capacities().is_empty(), "a too large one is not kept");
        let output = "a".repeat(64 * 1024);
        let buffer = output.as_ptr();
        recycle(Value::String(output));
        let small = copy_of(&"c".repeat(KEEP_FROM));
        assert_ne!(
            small.as_ptr(),
            buffer,
            "less than half the buffer: not reused"
        );
        let large = copy_of(&"d".repeat(64 * 1024 + 1));
        assert_ne!(large.as_ptr(), buffer, "too small a buffer: not reused");
        assert_eq!(kept_capacities(), vec![64 * 1024], "left in the keep");
        assert_eq!(copy_of("e"), "e");
    }

    #[test]
    fn no_more_than_the_bound_is_kept_from_an_output_of_many_strings() {
        clear();
        let mut members = serde_json::Map::new();
        for name in 0..=KEEP_MAX {
            members.insert(name.to_string(), Value::String("z".repeat(8 * 1024)));
        }
        members.insert("n".to_owned(), Value::from(1));
        recycle(Value::Object(members));
        assert_eq!(kept_capacities(), vec![8 * 1024; KEEP_MAX]);
        clear();
        recycle(Value::Array(vec![
            Value::Null,
            Value::String("y".repeat(5000)),
        ]));
        assert_eq!(kept_capacities(), vec![5000]);
        clear();
    }

    #[test]
    fn a_sent_answer_holds_the_next_answer_of_about_its_size() {
        clear();
        let answer = "a".repeat(128 * 1024);
        let sent = answer.as_ptr();
        let bytes = bytes::Bytes::from_owner(Returned::new(answer));
        assert_eq!(bytes.len(), 128 * 1024, "sent as it is");
        drop(bytes);
        assert_eq!(kept_capacities(), vec![128 * 1024], "kept once sent");
        let too_large = buffer(128 * 1024 + 1);
        assert_ne!(too_large.as_ptr(), sent, "no room: a new buffer");
        let much_smaller = buffer(100 * 1024);
        assert_ne!(
            much_smaller.as_ptr(),
            sent,
            "too much room to spare: a new buffer"
        );
        let next = buffer(121 * 1024);
        assert_eq!(
            (next.as_ptr(), next.len()),
            (sent, 0),
            "the sent one, emptied"
        );
        assert!(buffer(16).capacity() >= 16);
    }

    #[test]
    fn long_params_are_kept_once_their_handler_is_done() {
        clear();
        let text = format!("\"{}\"", "p".repeat(8 * 1024));
        let raw = RawValue::from_string(text).expect("valid JSON");
        let held = raw.get().as_ptr();
        recycle_raw(raw);
        let copy = copy_of(&"q".repeat(8 * 1024));
        assert_eq!(copy.as_ptr(), held, "written over the params' buffer");
        recycle_raw(RawValue::from_string("[1]".to_owned()).expect("valid JSON"));
        assert!(kept_capacities().is_empty(), "short params are not kept");
    }
}
