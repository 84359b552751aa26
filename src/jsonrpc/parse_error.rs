//! Why a frame is not a valid JSON-RPC 2.0 message, and the error response that says so.

use std::borrow::Cow;
use std::fmt;

use super::{ErrorCode, ErrorObject, Id, Response};

/// What is wrong with a frame. Each variant maps to [`ErrorCode::PARSE_ERROR`] or
/// [`ErrorCode::INVALID_REQUEST`] (see [`ParseErrorKind::error_code`]).
///
/// The messages are fixed texts: they never contain any part of the input.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The frame is not well-formed JSON.
    #[error("malformed JSON")]
    MalformedJson,
    /// The frame is not valid UTF-8.
    #[error("the message is not valid UTF-8")]
    InvalidUtf8,
    /// The frame is JSON but not an object (nor, where batches are allowed, an array).
    #[error("a JSON-RPC message must be a JSON object")]
    NotAnObject,
    /// One of the members `jsonrpc`, `id`, `method`, `params`, `result`, `error` appears more
    /// than once. Rejected because parsers disagree on which occurrence wins.
    #[error("a JSON-RPC member appears more than once")]
    DuplicateMember,
    /// The `jsonrpc` member is absent.
    #[error("missing member \"jsonrpc\"")]
    MissingJsonrpc,
    /// The `jsonrpc` member is not the string `"2.0"`.
    #[error("member \"jsonrpc\" must be exactly \"2.0\"")]
    InvalidJsonrpcVersion,
    /// The `id` is not a string or an integer-valued number (or, in a response, `null`).
    #[error("member \"id\" must be a string or an integer")]
    InvalidIdType,
    /// Neither `method` nor `result`/`error` is present.
    #[error("missing member \"method\"")]
    MissingMethod,
    /// The `method` member is not a string.
    #[error("member \"method\" must be a string")]
    InvalidMethodType,
    /// The `params` member is present but neither an object nor an array.
    #[error("member \"params\" must be an object or an array")]
    InvalidParamsType,
    /// The message mixes request members (`method`, `params`) with response members
    /// (`result`, `error`).
    #[error("a message cannot be both a request and a response")]
    RequestAndResponseMembers,
    /// A response carries both `result` and `error`.
    #[error("a response must not carry both \"result\" and \"error\"")]
    ResultAndError,
    /// A `null` id without `method`, `result` or `error`: a response missing its payload.
    #[error("a response must carry \"result\" or \"error\"")]
    NeitherResultNorError,
    /// A response without an `id` member.
    #[error("a response must carry member \"id\"")]
    MissingResponseId,
    /// The `error` member of a response is not an object with an integer `code` and a string
    /// `message`.
    #[error(
        "member \"error\" must be an object with an integer \"code\" and a string \"message\""
    )]
    InvalidErrorObject,
    /// An empty batch (`[]`).
    #[error("an empty batch is not a valid request")]
    EmptyBatch,
    /// A batch (JSON array) where the negotiated protocol version does not allow batching.
    #[error("batches are not supported by this protocol version")]
    BatchNotSupported,
    /// The message nests arrays and objects deeper than the server accepts
    /// (`request.maxDepth`; see [`parse_frame_within`](super::parse_frame_within)).
    #[error("the message nests deeper than request.maxDepth allows")]
    TooDeep,
}

impl ParseErrorKind {
    /// The JSON-RPC error code an answer to this error carries: `-32700` for input that is not
    /// JSON at all, `-32600` for everything else.
    #[must_use]
    pub const fn error_code(self) -> ErrorCode {
        match self {
            Self::MalformedJson | Self::InvalidUtf8 => ErrorCode::PARSE_ERROR,
            _ => ErrorCode::INVALID_REQUEST,
        }
    }
}

/// A frame that is not a valid JSON-RPC 2.0 message.
///
/// Carries the [`kind`](Self::kind), the request id when it could be read, and for malformed
/// JSON the byte column of the problem. Neither `Display` nor `Debug` shows any input text:
/// the id is only available through [`ParseError::id`].
#[derive(Clone, thiserror::Error)]
#[error("{kind}{}", Position(*.column))]
pub struct ParseError {
    kind: ParseErrorKind,
    id: Option<Id<'static>>,
    column: Option<usize>,
}

struct Position(Option<usize>);

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(column) => write!(f, " at column {column}"),
            None => Ok(()),
        }
    }
}

impl ParseError {
    /// An error of the given kind, without id.
    #[must_use]
    pub fn new(kind: ParseErrorKind) -> Self {
        Self {
            kind,
            id: None,
            column: None,
        }
    }

    pub(crate) fn with_id(mut self, id: Option<Id<'_>>) -> Self {
        self.id = id.map(Id::into_owned);
        self
    }

    pub(crate) fn at_column(mut self, column: usize) -> Self {
        self.column = Some(column);
        self
    }

    /// What is wrong.
    #[must_use]
    pub fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// The request id, when the frame was an object with a valid `id` member.
    #[must_use]
    pub fn id(&self) -> Option<&Id<'static>> {
        self.id.as_ref()
    }

    /// For malformed JSON, the 1-based byte column where parsing failed.
    #[must_use]
    pub fn column(&self) -> Option<usize> {
        self.column
    }

    /// The JSON-RPC error code of the answer (see [`ParseErrorKind::error_code`]).
    #[must_use]
    pub fn error_code(&self) -> ErrorCode {
        self.kind.error_code()
    }

    /// The error response to send: `-32700` with `id: null` for malformed JSON or invalid
    /// UTF-8; `-32600` with the id echoed when it was readable and `null` otherwise.
    #[must_use]
    pub fn to_error_response(&self) -> Response<'static> {
        let code = self.error_code();
        let id = if code == ErrorCode::PARSE_ERROR {
            None
        } else {
            self.id.clone()
        };
        Response::error(id, ErrorObject::new(code, Cow::Owned(self.to_string())))
    }
}

impl From<ParseErrorKind> for ParseError {
    fn from(kind: ParseErrorKind) -> Self {
        Self::new(kind)
    }
}

impl fmt::Debug for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The id is input text: show only its kind.
        f.debug_struct("ParseError")
            .field("kind", &self.kind)
            .field("id", &self.id.as_ref().map(Id::kind))
            .field("column", &self.column)
            .finish()
    }
}

impl From<&ParseError> for Response<'static> {
    fn from(error: &ParseError) -> Self {
        error.to_error_response()
    }
}
