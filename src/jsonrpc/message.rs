//! The three kinds of JSON-RPC 2.0 messages, borrowing from the input frame where possible.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::{ErrorCode, Id};

/// One JSON-RPC 2.0 message.
///
/// The lifetime `'a` is the input frame's: method names and raw JSON members borrow from it.
/// Call [`Message::into_owned`] to keep a message beyond the frame.
#[derive(Clone, Debug)]
pub enum Message<'a> {
    /// A request: carries an id and expects exactly one response.
    Request(Request<'a>),
    /// A notification: has no `id` member and is never answered.
    Notification(Notification<'a>),
    /// A response (result or error) to a request this side sent.
    Response(Response<'a>),
}

/// A JSON-RPC request.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The id, echoed byte for byte in the response.
    pub id: Id<'a>,
    /// The method name, for dispatch.
    pub method: Cow<'a, str>,
    /// The `params` member as raw JSON (an object or an array), if present.
    pub params: Option<Cow<'a, RawValue>>,
}

/// A JSON-RPC notification (a request without an `id` member).
#[derive(Clone, Debug)]
pub struct Notification<'a> {
    /// The method name, for dispatch.
    pub method: Cow<'a, str>,
    /// The `params` member as raw JSON (an object or an array), if present.
    pub params: Option<Cow<'a, RawValue>>,
}

/// A JSON-RPC response.
#[derive(Clone, Debug)]
pub struct Response<'a> {
    /// The id of the request answered; `None` is serialized as `null` (only error responses
    /// to unreadable requests should use it).
    pub id: Option<Id<'a>>,
    /// The result or the error.
    pub payload: ResponsePayload<'a>,
}

/// What a response carries.
#[derive(Clone, Debug)]
pub enum ResponsePayload<'a> {
    /// The `result` member, as raw JSON.
    Result(Cow<'a, RawValue>),
    /// The `error` member.
    Error(ErrorObject<'a>),
}

/// The `error` member of an error response.
#[derive(Clone, Debug)]
pub struct ErrorObject<'a> {
    /// The error code.
    pub code: ErrorCode,
    /// A short human-readable description.
    pub message: Cow<'a, str>,
    /// Additional information, as raw JSON, if any.
    pub data: Option<Cow<'a, RawValue>>,
}

impl<'a> Message<'a> {
    /// The method name of a request or notification; `None` for a response.
    #[must_use]
    pub fn method(&self) -> Option<&str> {
        match self {
            Self::Request(request) => Some(&request.method),
            Self::Notification(notification) => Some(&notification.method),
            Self::Response(_) => None,
        }
    }

    /// The id of a request or response; `None` for a notification or a `null` response id.
    #[must_use]
    pub fn id(&self) -> Option<&Id<'a>> {
        match self {
            Self::Request(request) => Some(&request.id),
            Self::Notification(_) => None,
            Self::Response(response) => response.id.as_ref(),
        }
    }

    /// Detaches the message from the input frame.
    #[must_use]
    pub fn into_owned(self) -> Message<'static> {
        match self {
            Self::Request(request) => Message::Request(request.into_owned()),
            Self::Notification(notification) => Message::Notification(notification.into_owned()),
            Self::Response(response) => Message::Response(response.into_owned()),
        }
    }
}

impl<'a> Request<'a> {
    /// Builds a request.
    #[must_use]
    pub fn new(
        id: Id<'a>,
        method: impl Into<Cow<'a, str>>,
        params: Option<Cow<'a, RawValue>>,
    ) -> Self {
        Self {
            id,
            method: method.into(),
            params,
        }
    }

    /// Detaches the request from the input frame.
    #[must_use]
    pub fn into_owned(self) -> Request<'static> {
        Request {
            id: self.id.into_owned(),
            method: Cow::Owned(self.method.into_owned()),
            params: self.params.map(owned_raw),
        }
    }
}

impl<'a> Notification<'a> {
    /// Builds a notification.
    #[must_use]
    pub fn new(method: impl Into<Cow<'a, str>>, params: Option<Cow<'a, RawValue>>) -> Self {
        Self {
            method: method.into(),
            params,
        }
    }

    /// Detaches the notification from the input frame.
    #[must_use]
    pub fn into_owned(self) -> Notification<'static> {
        Notification {
            method: Cow::Owned(self.method.into_owned()),
            params: self.params.map(owned_raw),
        }
    }
}

impl<'a> Response<'a> {
    /// A result response.
    #[must_use]
    pub fn result(id: Id<'a>, result: impl IntoRawJson<'a>) -> Self {
        Self {
            id: Some(id),
            payload: ResponsePayload::Result(result.into_raw_json()),
        }
    }

    /// An error response; `id: None` is written as `null`.
    #[must_use]
    pub fn error(id: Option<Id<'a>>, error: ErrorObject<'a>) -> Self {
        Self {
            id,
            payload: ResponsePayload::Error(error),
        }
    }

    /// Whether this is an error response.
    #[must_use]
    pub fn is_error(&self) -> bool {
        matches!(self.payload, ResponsePayload::Error(_))
    }

    /// Detaches the response from the input frame.
    #[must_use]
    pub fn into_owned(self) -> Response<'static> {
        Response {
            id: self.id.map(Id::into_owned),
            payload: match self.payload {
                ResponsePayload::Result(result) => ResponsePayload::Result(owned_raw(result)),
                ResponsePayload::Error(error) => ResponsePayload::Error(error.into_owned()),
            },
        }
    }
}

impl<'a> ErrorObject<'a> {
    /// An error object without `data`.
    #[must_use]
    pub fn new(code: ErrorCode, message: impl Into<Cow<'a, str>>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Adds a `data` member.
    #[must_use]
    pub fn with_data(mut self, data: impl IntoRawJson<'a>) -> Self {
        self.data = Some(data.into_raw_json());
        self
    }

    /// Detaches the error object from the input frame.
    #[must_use]
    pub fn into_owned(self) -> ErrorObject<'static> {
        ErrorObject {
            code: self.code,
            message: Cow::Owned(self.message.into_owned()),
            data: self.data.map(owned_raw),
        }
    }
}

impl<'a> From<Request<'a>> for Message<'a> {
    fn from(request: Request<'a>) -> Self {
        Self::Request(request)
    }
}

impl<'a> From<Notification<'a>> for Message<'a> {
    fn from(notification: Notification<'a>) -> Self {
        Self::Notification(notification)
    }
}

impl<'a> From<Response<'a>> for Message<'a> {
    fn from(response: Response<'a>) -> Self {
        Self::Response(response)
    }
}

/// Values usable as a raw JSON member: `Box<RawValue>`, `&RawValue` or `Cow<RawValue>`.
pub trait IntoRawJson<'a> {
    /// The raw JSON, borrowed or owned.
    fn into_raw_json(self) -> Cow<'a, RawValue>;
}

impl<'a> IntoRawJson<'a> for Cow<'a, RawValue> {
    fn into_raw_json(self) -> Cow<'a, RawValue> {
        self
    }
}

impl<'a> IntoRawJson<'a> for &'a RawValue {
    fn into_raw_json(self) -> Cow<'a, RawValue> {
        Cow::Borrowed(self)
    }
}

impl<'a> IntoRawJson<'a> for Box<RawValue> {
    fn into_raw_json(self) -> Cow<'a, RawValue> {
        Cow::Owned(self)
    }
}

fn owned_raw(raw: Cow<'_, RawValue>) -> Cow<'static, RawValue> {
    Cow::Owned(raw.into_owned())
}
