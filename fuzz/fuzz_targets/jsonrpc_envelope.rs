//! The JSON-RPC envelope parser on arbitrary frames, under both batch policies and any
//! nesting bound: it never panics, and every message it accepts encodes to one line that
//! parses back to the same message (kind, method, id text, params as JSON; the encoder may
//! drop insignificant whitespace from raw members).
//!
//! Input: byte 0 picks the policy and the nesting bound (8..=128), the rest is the frame.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use typed_mcp::jsonrpc::{parse_frame_within, parse_message, BatchPolicy, Frame, Message};

/// What must survive an encode/parse round trip.
fn summary(message: &Message<'_>) -> (u8, Option<String>, Option<String>, Option<Value>) {
    let kind = match message {
        Message::Request(_) => 0,
        Message::Notification(_) => 1,
        Message::Response(_) => 2,
    };
    let params = match message {
        Message::Request(request) => request.params.as_ref().map(|p| json_of(p.get())),
        Message::Notification(notification) => {
            notification.params.as_ref().map(|p| json_of(p.get()))
        }
        Message::Response(_) => None,
    };
    (
        kind,
        message.method().map(str::to_owned),
        message.id().map(|id| id.as_json().to_owned()),
        params,
    )
}

/// Raw JSON as a value, or, when `serde_json` cannot build a `Value` of it (a number out of
/// `f64` range, a lone surrogate escape), as its text without insignificant whitespace.
fn json_of(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(compact(raw)))
}

/// `raw` without the whitespace outside strings.
fn compact(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in raw.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

fn check_round_trip(message: &Message<'_>) {
    let line = message.to_line();
    assert_eq!(
        line.last(),
        Some(&b'\n'),
        "an encoded message ends its line"
    );
    assert!(
        !line[..line.len() - 1].contains(&b'\n'),
        "an encoded message is one line"
    );
    let again = parse_message(&line[..line.len() - 1]).expect("an encoded message parses");
    assert_eq!(summary(&again), summary(message));
}

fuzz_target!(|data: &[u8]| {
    let [selector, frame @ ..] = data else {
        return;
    };
    let policy = if selector & 1 == 0 {
        BatchPolicy::Reject
    } else {
        BatchPolicy::Allow
    };
    let max_depth = 8 + usize::from(selector >> 1) % 121;
    match parse_frame_within(frame, policy, max_depth) {
        Frame::Single(Ok(message)) => check_round_trip(&message),
        Frame::Single(Err(error)) => {
            // The answer to a refused frame is itself a well-formed response line.
            let mut line = Vec::new();
            error.to_error_response().encode_line(&mut line);
            assert!(parse_message(&line[..line.len() - 1]).is_ok());
        }
        Frame::Batch(members) => {
            assert_eq!(policy, BatchPolicy::Allow);
            assert!(!members.is_empty());
            for message in members.iter().flatten() {
                check_round_trip(message);
            }
        }
    }
});
