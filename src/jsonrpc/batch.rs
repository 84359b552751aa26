//! JSON-RPC batches (a JSON array of messages in one frame), allowed or rejected by protocol
//! version.

use serde_json::value::RawValue;

use super::parse::{first_significant_byte, frame_text, malformed, parse_text};
use super::{Message, ParseError, ParseErrorKind};

/// Whether a frame holding a JSON array is processed as a batch.
///
/// MCP 2025-03-26 allowed JSON-RPC batches; 2025-06-18 removed them. The server picks the
/// policy from the negotiated version with [`BatchPolicy::for_protocol_version`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BatchPolicy {
    /// JSON-RPC 2.0 semantics: each member is parsed on its own; the answer is one array of
    /// the responses to the requests and invalid members (notifications get none); `[]` is
    /// answered with a single `-32600` whose id is `null`; a batch of notifications only is
    /// answered with nothing at all.
    Allow,
    /// The whole array is answered with a single `-32600` whose id is `null`
    /// ([`ParseErrorKind::BatchNotSupported`]).
    Reject,
}

/// The first protocol version that does not allow batches.
const FIRST_VERSION_WITHOUT_BATCHES: &str = "2025-06-18";

impl BatchPolicy {
    /// The policy for a negotiated protocol version (`YYYY-MM-DD`): [`Allow`](Self::Allow)
    /// before 2025-06-18, [`Reject`](Self::Reject) from 2025-06-18 on and for any string that
    /// is not a date in that form.
    ///
    /// # Examples
    ///
    /// ```
    /// use typed_mcp::jsonrpc::BatchPolicy;
    ///
    /// assert_eq!(BatchPolicy::for_protocol_version("2025-03-26"), BatchPolicy::Allow);
    /// assert_eq!(BatchPolicy::for_protocol_version("2025-06-18"), BatchPolicy::Reject);
    /// ```
    #[must_use]
    pub fn for_protocol_version(version: &str) -> Self {
        if is_date(version) && version < FIRST_VERSION_WITHOUT_BATCHES {
            Self::Allow
        } else {
            Self::Reject
        }
    }
}

fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(at, b)| match at {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
}

/// A parsed frame: one message, or (under [`BatchPolicy::Allow`]) a non-empty batch.
#[derive(Debug)]
pub enum Frame<'a> {
    /// A single message, or the single error that answers the whole frame (malformed JSON,
    /// an empty batch, a rejected batch, ...).
    Single(Result<Message<'a>, ParseError>),
    /// The members of a non-empty batch, each parsed on its own, in order.
    Batch(Vec<Result<Message<'a>, ParseError>>),
}

/// Parses one frame, treating a JSON array according to `policy`.
///
/// # Examples
///
/// ```
/// use typed_mcp::jsonrpc::{parse_frame, BatchPolicy, Frame};
///
/// let frame = br#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"method":"b"}]"#;
/// let Frame::Batch(members) = parse_frame(frame, BatchPolicy::Allow) else { panic!() };
/// assert_eq!(members.len(), 2);
/// let Frame::Single(Err(error)) = parse_frame(frame, BatchPolicy::Reject) else { panic!() };
/// assert_eq!(error.error_code().0, -32600);
/// ```
pub fn parse_frame(frame: &[u8], policy: BatchPolicy) -> Frame<'_> {
    let text = match frame_text(frame) {
        Ok(text) => text,
        Err(_) => return Frame::Single(Err(ParseErrorKind::InvalidUtf8.into())),
    };
    if policy == BatchPolicy::Reject || first_significant_byte(text) != Some(b'[') {
        return Frame::Single(parse_text(text, false));
    }
    let members: Vec<&RawValue> = match serde_json::from_str(text) {
        Ok(members) => members,
        Err(error) => return Frame::Single(Err(malformed(&error))),
    };
    if members.is_empty() {
        return Frame::Single(Err(ParseErrorKind::EmptyBatch.into()));
    }
    Frame::Batch(
        members
            .into_iter()
            .map(|member| parse_text(member.get(), true))
            .collect(),
    )
}
