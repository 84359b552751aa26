//! The nesting bound every inbound message is held to (`request.maxDepth`).
//!
//! [`parse_frame_within`] scans the frame once, without recursion (long strings skipped with
//! `memchr`), before `serde_json` reads it: a message nesting deeper than the bound is
//! answered with [`ParseErrorKind::TooDeep`] (`-32600`), whatever its depth, so neither
//! `serde_json`'s own recursion limit (128) nor any later walk over the message is ever
//! reached by it. A single message is first read by the envelope check of
//! `parse::long_frame`, which holds it to the same bound as it walks it: when that check
//! reads it, the scan is not needed; otherwise (a batch, a member name with an escape,
//! malformed JSON) the scan runs.

use super::batch::{parse_frame, BatchPolicy, Frame};
use super::encode::string_end;
use super::params_index::ParamsIndex;
use super::parse::{message_within, parse_message};
use super::{Message, ParseError, ParseErrorKind};

/// The deepest nesting `serde_json` reads (its recursion limit); the largest `maxDepth`.
pub const MAX_SUPPORTED_DEPTH: usize = 128;

/// Like [`parse_frame`], but a frame whose arrays and objects nest deeper than `max_depth`
/// levels (the message object being level 1) is answered with one
/// [`ParseErrorKind::TooDeep`], echoing the request id when it can be read.
///
/// For a batch (a JSON array under [`BatchPolicy::Allow`]) the bound applies to each member,
/// so the array itself is not counted; a batch with one member too deep is refused whole.
/// `max_depth` is clamped to `1..=`[`MAX_SUPPORTED_DEPTH`].
///
/// # Examples
///
/// ```
/// use typed_mcp::jsonrpc::{parse_frame_within, BatchPolicy, Frame, ParseErrorKind};
///
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[[[1]]]}}"#;
/// let Frame::Single(Err(error)) = parse_frame_within(frame, BatchPolicy::Reject, 4) else {
///     panic!()
/// };
/// assert_eq!(error.kind(), ParseErrorKind::TooDeep);
/// assert_eq!(error.error_code().0, -32600);
/// assert!(matches!(parse_frame_within(frame, BatchPolicy::Reject, 5), Frame::Single(Ok(_))));
/// ```
pub fn parse_frame_within(frame: &[u8], policy: BatchPolicy, max_depth: usize) -> Frame<'_> {
    parse_frame_indexed(frame, policy, max_depth).0
}

/// [`parse_frame_within`], with the index of a single message's params members when the
/// envelope check read it ([`ParamsIndex`]: what the server hands the request's handler).
pub(crate) fn parse_frame_indexed(
    frame: &[u8],
    policy: BatchPolicy,
    max_depth: usize,
) -> (Frame<'_>, Option<Box<ParamsIndex>>) {
    let max_depth = max_depth.clamp(1, MAX_SUPPORTED_DEPTH);
    let is_batch = policy == BatchPolicy::Allow && first_significant_byte(frame) == Some(b'[');
    if !is_batch {
        // A frame the envelope check reads within the bound: one pass, not two.
        if let Some((message, index)) = message_within(frame, max_depth) {
            return (Frame::Single(message), index);
        }
    }
    let frame_limit = if is_batch { max_depth + 1 } else { max_depth };
    if nests_deeper_than(frame, frame_limit) {
        let error = ParseError::new(ParseErrorKind::TooDeep);
        let id = match parse_message(frame) {
            Ok(Message::Request(request)) => Some(request.id),
            _ => None,
        };
        return (Frame::Single(Err(error.with_id(id))), None);
    }
    (parse_frame(frame, policy), None)
}

/// Frames up to this long are first cleared by counting their opening brackets; beyond it
/// the count would cost about as much as the scan, which skips long strings.
const COUNT_FIRST_UP_TO: usize = 4096;

/// How many `[` and `{` bytes `bytes` holds, wherever they are.
fn opening_brackets(bytes: &[u8]) -> usize {
    // `[` (0x5b) and `{` (0x7b) are the only bytes that are `{` with bit 0x20 set. Counted
    // in bytes, 255 at a time (no overflow), which the compiler turns into vector code: 121
    // instructions for a 113-byte `tools/call`, against 627 summing a `usize` per byte.
    bytes
        .chunks(255)
        .map(|chunk| {
            let count = chunk.iter().fold(0u8, |count, &byte| {
                count.wrapping_add(u8::from(byte | 0x20 == b'{'))
            });
            usize::from(count)
        })
        .sum()
}

/// Whether the arrays and objects of `bytes` nest deeper than `limit` levels. Brackets inside
/// strings do not count; malformed input is measured the same way (its brackets only).
#[must_use]
pub fn nests_deeper_than(bytes: &[u8], limit: usize) -> bool {
    // The depth never exceeds the number of opening brackets (those inside strings counted
    // as well): a short frame with few of them is cleared by one counting pass, which the
    // compiler vectorizes, instead of the scan below (a 16-byte `tools/call` has three).
    if bytes.len() <= COUNT_FIRST_UP_TO && opening_brackets(bytes) <= limit {
        return false;
    }
    let mut depth = 0usize;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        at += 1;
        match byte {
            // Over the string to its closing quote (`memchr` past its first bytes: a long
            // text costs about a look, not a loop over every byte).
            b'"' => at = string_end(bytes, at),
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

fn first_significant_byte(bytes: &[u8]) -> Option<u8> {
    bytes
        .iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":"x","method":"m","params":{}1{}}}"#,
            "[".repeat(depth - 1),
            "]".repeat(depth - 1)
        )
    }

    #[test]
    fn depth_counts_the_message_object_as_level_one() {
        assert!(!nests_deeper_than(b"{}", 1));
        assert!(nests_deeper_than(b"{\"a\":[]}", 1));
        assert!(!nests_deeper_than(nested(10).as_bytes(), 10));
        assert!(nests_deeper_than(nested(11).as_bytes(), 10));
    }

    #[test]
    fn brackets_in_strings_and_escapes_do_not_count() {
        assert!(!nests_deeper_than(br#"{"a":"[[[[{{{{\"[[["}"#, 1));
        assert!(!nests_deeper_than(br#"{"a":"\\"}"#, 1));
        assert!(nests_deeper_than(br#"{"a":"\\",  "b":[]}"#, 1));
    }

    #[test]
    fn a_too_deep_request_keeps_its_id_and_a_hopeless_one_gets_none() {
        let frame = nested(65);
        let Frame::Single(Err(error)) =
            parse_frame_within(frame.as_bytes(), BatchPolicy::Reject, 64)
        else {
            panic!("accepted a message deeper than the bound")
        };
        assert_eq!(error.kind(), ParseErrorKind::TooDeep);
        assert_eq!(error.id().map(|id| id.as_json()), Some(r#""x""#));
        let frame = "[".repeat(100_000);
        let Frame::Single(Err(error)) =
            parse_frame_within(frame.as_bytes(), BatchPolicy::Allow, 128)
        else {
            panic!("accepted 100,000 open brackets")
        };
        assert_eq!(error.kind(), ParseErrorKind::TooDeep);
        assert!(error.id().is_none());
    }

    #[test]
    fn beyond_serde_json_recursion_limit_is_too_deep_not_malformed() {
        let frame = nested(200);
        let Frame::Single(Err(error)) =
            parse_frame_within(frame.as_bytes(), BatchPolicy::Reject, 500)
        else {
            panic!("accepted")
        };
        assert_eq!(error.kind(), ParseErrorKind::TooDeep);
        let ok = nested(128);
        assert!(matches!(
            parse_frame_within(ok.as_bytes(), BatchPolicy::Reject, 128),
            Frame::Single(Ok(_))
        ));
    }

    /// The byte-by-byte scan this one replaced, as the reference.
    fn reference(bytes: &[u8], limit: usize) -> bool {
        let (mut depth, mut in_string, mut at) = (0usize, false, 0);
        while at < bytes.len() {
            let byte = bytes[at];
            at += 1;
            if in_string {
                match byte {
                    b'\\' => at += 1,
                    b'"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > limit {
                        return true;
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        false
    }

    #[test]
    fn long_strings_skipped_with_memchr_count_as_before() {
        let long = "x[{\\\"".repeat(40);
        let frames = [
            format!(r#"{{"a":"{long}","b":[[1]]}}"#),
            format!(r#"{{"a":"{long}\\","b":[[1]]}}"#),
            format!(r#"{{"a":"{long}"#),
            format!(r#"{{"a":"{long}\"#),
            format!(r#"[{{"a":"{}"}},[[["{long}"]]]]"#, "y".repeat(100)),
            format!(r#"{{"{long}":{{"{long}":[]}}}}"#),
        ];
        for frame in &frames {
            for cut in [frame.len(), frame.len() / 2, frame.len() / 3 + 1] {
                let bytes = &frame.as_bytes()[..cut];
                for limit in 1..6 {
                    assert_eq!(
                        nests_deeper_than(bytes, limit),
                        reference(bytes, limit),
                        "{limit} {}",
                        String::from_utf8_lossy(bytes)
                    );
                }
            }
        }
    }

    #[test]
    fn only_the_two_opening_brackets_are_counted() {
        for byte in 0u8..=255 {
            let expected = usize::from(byte == b'[' || byte == b'{');
            assert_eq!(
                opening_brackets(&[byte, b'a', byte]),
                2 * expected,
                "{byte}"
            );
        }
        for len in [254, 255, 256, 511, 600, 4096] {
            assert_eq!(opening_brackets("[{".repeat(len).as_bytes()), 2 * len);
        }
    }

    proptest::proptest! {
        /// Any frame, short (cleared by the count when it can be) or long (scanned), gets the
        /// reference's verdict at every bound.
        #[test]
        fn every_frame_gets_the_reference_verdict(
            parts in proptest::collection::vec(
                proptest::sample::select(vec!["[", "{", "]", "}", "\"", "\\", "a", ",", "\"x[{\""]),
                0..120,
            ),
            padding in proptest::sample::select(vec![0usize, 4000, 5000]),
            limit in 1usize..8,
        ) {
            let frame = format!("{}{}", parts.concat(), " ".repeat(padding));
            proptest::prop_assert_eq!(
                nests_deeper_than(frame.as_bytes(), limit),
                reference(frame.as_bytes(), limit)
            );
        }
    }

    #[test]
    fn a_batch_member_may_use_the_whole_bound() {
        let member = nested(8);
        let batch = format!("[{member},{member}]");
        assert!(matches!(
            parse_frame_within(batch.as_bytes(), BatchPolicy::Allow, 8),
            Frame::Batch(members) if members.iter().all(Result::is_ok)
        ));
        let deep = nested(9);
        let batch = format!("[{member},{deep}]");
        assert!(matches!(
            parse_frame_within(batch.as_bytes(), BatchPolicy::Allow, 8),
            Frame::Single(Err(error)) if error.kind() == ParseErrorKind::TooDeep
        ));
    }
}
