//! HTTP responses: JSON bodies, JSON-RPC errors with their status, 202, 405.

use std::borrow::Cow;

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response as HttpResponse;

use crate::jsonrpc::{ErrorCode, ErrorObject, Id, Response, ResponsePayload};

/// `application/json`.
pub(crate) const JSON: HeaderValue = HeaderValue::from_static("application/json");

/// A JSON body.
pub(crate) fn json(status: StatusCode, body: Vec<u8>) -> HttpResponse {
    let mut response = HttpResponse::new(Body::from(body));
    *response.status_mut() = status;
    let _previous = response.headers_mut().insert(header::CONTENT_TYPE, JSON);
    response
}

/// One JSON-RPC response as a JSON body.
pub(crate) fn message(status: StatusCode, response: &Response<'_>) -> HttpResponse {
    let mut body = Vec::with_capacity(body_capacity(response));
    response.encode_line(&mut body);
    json(status, body)
}

/// Room for a response's line, so that writing it does not grow the buffer: the result's
/// own length (pasted as it is) and the id's, plus the envelope; an error's guess.
fn body_capacity(response: &Response<'_>) -> usize {
    /// `{"jsonrpc":"2.0","id":` … `,"result":` … `}` and the newline, with room to spare.
    const ENVELOPE: usize = 48;
    /// An error object is small: a code, our message, rarely much data.
    const ERROR_GUESS: usize = 256;
    let id = response.id.as_ref().map_or(4, |id| id.as_raw().get().len());
    let payload = match &response.payload {
        ResponsePayload::Result(result) => result.get().len(),
        ResponsePayload::Error(_) => ERROR_GUESS,
    };
    ENVELOPE.saturating_add(id).saturating_add(payload)
}

/// A JSON-RPC error as the whole answer. `message` is ours, never the input's.
pub(crate) fn error(
    status: StatusCode,
    id: Option<Id<'static>>,
    code: ErrorCode,
    message: impl Into<Cow<'static, str>>,
) -> HttpResponse {
    let response = Response::error(id, ErrorObject::new(code, message));
    self::message(status, &response)
}

/// `202 Accepted`, no body: a notification or a response was taken.
pub(crate) fn accepted() -> HttpResponse {
    let mut response = HttpResponse::new(Body::empty());
    *response.status_mut() = StatusCode::ACCEPTED;
    response
}

/// `405 Method Not Allowed` with the methods that are.
pub(crate) fn method_not_allowed(allow: &'static str) -> HttpResponse {
    let mut response = error(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        ErrorCode::INVALID_REQUEST,
        "this HTTP method is not allowed here",
    );
    let _previous = response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// `503 Service Unavailable` with `Retry-After`.
pub(crate) fn busy(retry_after_seconds: u64, message: &'static str) -> HttpResponse {
    let mut response = error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        ErrorCode::INTERNAL_ERROR,
        message,
    );
    let _previous = response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_seconds));
    response
}

/// The HTTP status of a 2026-07-28 error answer, as the spec assigns them.
pub(crate) fn modern_status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::PARSE_ERROR
        | ErrorCode::INVALID_REQUEST
        | ErrorCode::INVALID_PARAMS
        | ErrorCode::HEADER_MISMATCH
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        ErrorCode::INTERNAL_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::OK,
    }
}

/// The status of a 2026-07-28 answer: 200 for a result, [`modern_status`] for an error.
pub(crate) fn modern_response_status(response: &Response<'_>) -> StatusCode {
    match &response.payload {
        crate::jsonrpc::ResponsePayload::Result(_) => StatusCode::OK,
        crate::jsonrpc::ResponsePayload::Error(error) => modern_status(error.code),
    }
}
