//! JSON-RPC 2.0 messages: parsing one frame with precise diagnostics, and writing messages
//! as single lines.
//!
//! - [`parse_message`] / [`parse_frame`] read a frame in one pass into a [`Message`] that
//!   borrows the method name and raw `id` / `params` / `result` members from the frame (no
//!   `serde_json::Value` is built), or a [`ParseError`] naming the broken rule.
//! - Ids are kept as raw JSON text ([`Id`]) and echoed byte for byte. Valid request ids are
//!   strings and integer-valued numbers in any notation (`7`, `1.0`, `1e3`, `-0`); `null`,
//!   booleans, objects, arrays and fractional numbers are rejected.
//! - Duplicate members: a repeated `jsonrpc`, `id`, `method`, `params`, `result` or `error`
//!   makes the message invalid ([`ParseErrorKind::DuplicateMember`]), since parsers disagree
//!   on which occurrence wins; other members are ignored, repeated or not.
//! - [`parse_frame_within`] also holds the frame to a nesting bound (`request.maxDepth`),
//!   checked without recursion before anything else reads it.
//! - [`ParseError::to_error_response`] builds the answer (`-32700` or `-32600`).
//! - [`BatchPolicy`] decides, per negotiated protocol version, whether a JSON array is a batch.
//! - [`Message::encode_line`] and [`encode_batch_line`] append one compact line to a reusable
//!   buffer.
//!
//! ```
//! use typed_mcp::jsonrpc::{parse_message, ErrorCode};
//!
//! let error = parse_message(br#"{"jsonrpc":"2.0","id":7,"method":5}"#).unwrap_err();
//! let mut line = Vec::new();
//! error.to_error_response().encode_line(&mut line);
//! assert_eq!(
//!     line,
//!     br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"member \"method\" must be a string"}}
//! "#
//! );
//! ```

mod batch;
mod depth;
mod encode;
mod error_code;
pub(crate) mod escape;
mod id;
pub(crate) mod members;
mod message;
pub(crate) mod params_index;
mod parse;
mod parse_error;
pub(crate) mod raw;
#[cfg(test)]
pub(crate) mod test_strategies;
mod to_value;
mod wide_scan;

pub use batch::{parse_frame, BatchPolicy, Frame};
pub(crate) use depth::parse_frame_indexed;
pub use depth::{nests_deeper_than, parse_frame_within, MAX_SUPPORTED_DEPTH};
pub use encode::encode_batch_line;
pub(crate) use encode::{quote_or_backslash, RESULT_LINE_END, UNCOPIED_RESULT_BYTES};
pub use error_code::ErrorCode;
pub use id::{Id, IdKind};
pub use message::{
    ErrorObject, IntoRawJson, Message, Notification, Request, Response, ResponsePayload,
};
pub use parse::parse_message;
pub use parse_error::{ParseError, ParseErrorKind};
pub(crate) use to_value::{text_to_value, to_value};
