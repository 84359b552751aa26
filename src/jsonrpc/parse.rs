//! Parsing one frame into a [`Message`] in a single pass.
//!
//! The frame is read once by `serde_json` into a small envelope of borrowed raw slices (one per
//! protocol member); no `serde_json::Value` is built. The envelope is then classified by
//! looking at the first byte of each raw member, so every rule of JSON-RPC 2.0 maps to a
//! precise [`ParseErrorKind`].
//!
//! Members other than `jsonrpc`, `id`, `method`, `params`, `result` and `error` are skipped.
//! A protocol member that occurs twice makes the message invalid
//! ([`ParseErrorKind::DuplicateMember`]); duplicates of other members are ignored.
//!
//! Nesting deeper than `serde_json`'s recursion limit (128) is reported as malformed JSON.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::id::{classify, IdRejection};
use super::params_index::ParamsIndex;

use super::{
    ErrorCode, ErrorObject, Id, Message, Notification, ParseError, ParseErrorKind, Request,
    Response, ResponsePayload,
};

mod long_frame;

/// Parses one frame holding a single JSON-RPC message (a JSON object).
///
/// A JSON array (a batch) is rejected with [`ParseErrorKind::BatchNotSupported`]; use
/// [`parse_frame`](super::parse_frame) with a [`BatchPolicy`](super::BatchPolicy) to accept
/// batches. Leading and trailing JSON whitespace is allowed.
///
/// # Errors
///
/// A [`ParseError`] saying which rule the frame breaks, with the request id when readable.
///
/// # Examples
///
/// ```
/// use typed_mcp::jsonrpc::{parse_message, Message};
///
/// let frame = br#"{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}"#;
/// let Message::Request(request) = parse_message(frame).unwrap() else { panic!() };
/// assert_eq!(request.method, "ping");
/// assert_eq!(request.id.as_json(), r#""a\u0062""#);
/// ```
pub fn parse_message(frame: &[u8]) -> Result<Message<'_>, ParseError> {
    let text = frame_text(frame).map_err(|()| ParseErrorKind::InvalidUtf8)?;
    parse_text(text, false)
}

/// `frame` as text, when it is UTF-8.
///
/// Every inbound frame is checked so before anything reads it: `simdutf8` does it with the
/// CPU's vector units (AVX2 when it has them, found at run time), twice as fast as
/// `std::str::from_utf8` on ASCII and about fifteen times on multi-byte text (BENCHMARKS.md,
/// "Issue 12, stop 31"). Its `basic` flavour gives no position, which no caller reports.
pub(crate) fn frame_text(frame: &[u8]) -> Result<&str, ()> {
    simdutf8::basic::from_utf8(frame).map_err(|_| ())
}

/// Parses JSON text that should be one message. `in_batch` tells whether `text` is a batch
/// member (then a nested array is just "not an object").
pub(crate) fn parse_text(text: &str, in_batch: bool) -> Result<Message<'_>, ParseError> {
    match first_significant_byte(text) {
        Some(b'{') => parse_object(text),
        Some(b'[') if !in_batch => {
            ensure_well_formed(text)?;
            Err(ParseErrorKind::BatchNotSupported.into())
        }
        _ => {
            ensure_well_formed(text)?;
            Err(ParseErrorKind::NotAnObject.into())
        }
    }
}

/// The first byte that is not JSON whitespace.
pub(crate) fn first_significant_byte(text: &str) -> Option<u8> {
    text.bytes()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// Checks that `text` is one well-formed JSON value.
pub(crate) fn ensure_well_formed(text: &str) -> Result<(), ParseError> {
    serde_json::from_str::<IgnoredAny>(text)
        .map(drop)
        .map_err(|error| malformed(&error))
}

/// The error for input `serde_json` could not read. Only the column is kept: `serde_json`'s
/// messages may quote the input.
pub(crate) fn malformed(error: &serde_json::Error) -> ParseError {
    ParseError::new(ParseErrorKind::MalformedJson).at_column(error.column())
}

/// The index a frame's check records of its params, boxed: it travels with the request.
pub(crate) type IndexBox = Box<ParamsIndex>;

/// A frame's message, read by one check that also holds its nesting to `max_depth` levels
/// ([`long_frame`]): the check walks every value anyway, so the frame needs no separate scan
/// for its depth, and `serde_json` does not walk its `params` again (they are made owned from
/// the checked text, which the request's task needs anyway). `None` when the frame is not
/// UTF-8, not an object, deeper than the bound, or anything else the check leaves to
/// `serde_json`: the caller then takes the usual path, the depth scan and
/// [`parse_frame`](super::parse_frame).
///
/// With the message, the index of its params' members when they are an object with a
/// `_meta` object ([`ParamsIndex`], recorded by the same check).
pub(crate) fn message_within(
    frame: &[u8],
    max_depth: usize,
) -> Option<(Result<Message<'_>, ParseError>, Option<IndexBox>)> {
    let text = frame_text(frame).ok()?;
    if first_significant_byte(text) != Some(b'{') {
        return None;
    }
    let mut envelope = long_frame::envelope_within(text, max_depth)?;
    let index = envelope.params_index.take();
    Some((envelope.classify(), index))
}

fn parse_object(text: &str) -> Result<Message<'_>, ParseError> {
    if text.len() >= long_frame::LONG_FRAME {
        if let Some(envelope) = long_frame::envelope(text) {
            return envelope.classify();
        }
    }
    serde_envelope(text)?.classify()
}

/// The envelope of `text` as `serde_json` reads it, or its error.
fn serde_envelope(text: &str) -> Result<Envelope<'_>, ParseError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    Envelope::deserialize(&mut deserializer)
        .and_then(|envelope| deserializer.end().map(|()| envelope))
        .map_err(|error| malformed(&error))
}

/// The protocol members of one message, as borrowed raw JSON.
#[derive(Default)]
struct Envelope<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    /// Borrowed, or owned when [`long_frame`] read a long frame.
    params: Option<Cow<'a, RawValue>>,
    /// As `params`.
    result: Option<Cow<'a, RawValue>>,
    error: Option<&'a RawValue>,
    /// Set when a protocol member occurred more than once.
    duplicate: bool,
    /// Where the members of `params` (an object) lie in its text, when [`long_frame`] read
    /// it.
    params_index: Option<Box<ParamsIndex>>,
}

impl<'a> Envelope<'a> {
    fn classify(self) -> Result<Message<'a>, ParseError> {
        if self.duplicate {
            return Err(ParseErrorKind::DuplicateMember.into());
        }
        let id_class = self.id.map(|raw| classify(raw.get()));
        let readable_id = match (self.id, id_class) {
            (Some(raw), Some(Ok(_))) => Some(Id::classified(raw)),
            _ => None,
        };
        let fail = |kind: ParseErrorKind| Err(ParseError::new(kind).with_id(readable_id.clone()));

        match self.jsonrpc {
            None => return fail(ParseErrorKind::MissingJsonrpc),
            Some(version) if !is_version_2_0(version.get()) => {
                return fail(ParseErrorKind::InvalidJsonrpcVersion)
            }
            Some(_) => {}
        }

        let request_shaped = self.method.is_some() || self.params.is_some();
        let response_shaped = self.result.is_some() || self.error.is_some();
        match (request_shaped, response_shaped) {
            (true, true) => fail(ParseErrorKind::RequestAndResponseMembers),
            (true, false) => {
                let Some(method) = self.method else {
                    return fail(ParseErrorKind::MissingMethod);
                };
                let Some(method) = json_string(method.get()) else {
                    if method.get().starts_with('"') {
                        // A string `serde_json` cannot decode (an unpaired surrogate escape).
                        return Err(ParseErrorKind::MalformedJson.into());
                    }
                    return fail(ParseErrorKind::InvalidMethodType);
                };
                if let Some(params) = &self.params {
                    if !matches!(params.get().as_bytes().first(), Some(b'{' | b'[')) {
                        return fail(ParseErrorKind::InvalidParamsType);
                    }
                }
                let params = self.params;
                match (self.id, readable_id.clone()) {
                    (None, _) => Ok(Message::Notification(Notification { method, params })),
                    (Some(_), Some(id)) => Ok(Message::Request(Request { id, method, params })),
                    (Some(_), None) => fail(ParseErrorKind::InvalidIdType),
                }
            }
            (false, true) => {
                if self.result.is_some() && self.error.is_some() {
                    return fail(ParseErrorKind::ResultAndError);
                }
                let id = match id_class {
                    None => return fail(ParseErrorKind::MissingResponseId),
                    Some(Err(IdRejection::WrongType)) => {
                        return fail(ParseErrorKind::InvalidIdType)
                    }
                    Some(Err(IdRejection::Null)) => None,
                    Some(Ok(_)) => readable_id.clone(),
                };
                let payload = match (self.result, self.error) {
                    (Some(result), _) => ResponsePayload::Result(result),
                    (None, Some(error)) => match parse_error_object(error) {
                        Some(error) => ResponsePayload::Error(error),
                        None => return fail(ParseErrorKind::InvalidErrorObject),
                    },
                    (None, None) => unreachable!("response_shaped implies result or error"),
                };
                Ok(Message::Response(Response { id, payload }))
            }
            (false, false) => match id_class {
                Some(Err(IdRejection::Null)) => fail(ParseErrorKind::NeitherResultNorError),
                _ => fail(ParseErrorKind::MissingMethod),
            },
        }
    }
}

/// Whether the raw `jsonrpc` member is the string `"2.0"` (also when spelled with escapes).
fn is_version_2_0(raw: &str) -> bool {
    raw == r#""2.0""# || (raw.contains('\\') && json_string(raw).is_some_and(|v| v == "2.0"))
}

/// Decodes a raw JSON value if it is a string, borrowing when it has no escapes.
fn json_string(raw: &str) -> Option<Cow<'_, str>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// The shape of a response's `error` member.
#[derive(serde::Deserialize)]
struct WireErrorObject<'a> {
    code: i64,
    #[serde(borrow)]
    message: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "present_raw")]
    data: Option<&'a RawValue>,
}

/// Keeps a present member as raw JSON even when it is `null` (plain `Option` would turn
/// `"data": null` into an absent member).
fn present_raw<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

fn parse_error_object(raw: &RawValue) -> Option<ErrorObject<'_>> {
    if !raw.get().starts_with('{') {
        return None;
    }
    let wire: WireErrorObject<'_> = serde_json::from_str(raw.get()).ok()?;
    Some(ErrorObject {
        code: ErrorCode(wire.code),
        message: wire.message,
        data: wire.data.map(Cow::Borrowed),
    })
}

/// The members the envelope keeps.
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl Member {
    /// The member a (decoded) name stands for.
    fn of(name: &str) -> Self {
        match name {
            "jsonrpc" => Self::Jsonrpc,
            "id" => Self::Id,
            "method" => Self::Method,
            "params" => Self::Params,
            "result" => Self::Result,
            "error" => Self::Error,
            _ => Self::Other,
        }
    }
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(MemberVisitor)
    }
}

struct MemberVisitor;

impl Visitor<'_> for MemberVisitor {
    type Value = Member;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Member, E> {
        Ok(Member::of(name))
    }
}

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope<'de>, A::Error> {
        let mut envelope = Envelope::default();
        while let Some(member) = map.next_key::<Member>()? {
            let slot = match member {
                Member::Jsonrpc => &mut envelope.jsonrpc,
                Member::Id => &mut envelope.id,
                Member::Method => &mut envelope.method,
                Member::Params | Member::Result => {
                    let value: &'de RawValue = map.next_value()?;
                    let slot = match member {
                        Member::Params => &mut envelope.params,
                        _ => &mut envelope.result,
                    };
                    envelope.duplicate |= slot.replace(Cow::Borrowed(value)).is_some();
                    continue;
                }
                Member::Error => &mut envelope.error,
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            let value: &'de RawValue = map.next_value()?;
            if slot.replace(value).is_some() {
                envelope.duplicate = true;
            }
        }
        Ok(envelope)
    }
}
