//! HTTP responses: JSON bodies, JSON-RPC errors with their status, 202, 405.

use std::borrow::Cow;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response as HttpResponse;
use bytes::Bytes;
use http_body::{Frame, SizeHint};

use crate::jsonrpc::{
    ErrorCode, ErrorObject, Id, ParseError, Response, ResponsePayload, RESULT_LINE_END,
    UNCOPIED_RESULT_BYTES,
};

use super::body::BodyError;
use crate::long_strings::Returned;

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

/// One JSON-RPC response as a JSON body, the same bytes as [`message`]; a large compact
/// result (an owned one: a tool's rendered answer) is not copied: the body is the bytes before
/// it, the result's own allocation, then the end of the line, with an exact length
/// (`Content-Length`), which hyper writes as they are.
pub(crate) fn owned_message(status: StatusCode, response: Response<'static>) -> HttpResponse {
    let result_len = match &response.payload {
        ResponsePayload::Result(Cow::Owned(result)) => result.get().len(),
        _ => 0,
    };
    if result_len < UNCOPIED_RESULT_BYTES {
        return message(status, &response);
    }
    let mut head = Vec::with_capacity(body_capacity(&response) - result_len);
    if response
        .encode_line_around_result(&mut head, UNCOPIED_RESULT_BYTES)
        .is_none()
    {
        // Not compact (the line holds it compacted): copied after all.
        return json(status, head);
    }
    let ResponsePayload::Result(Cow::Owned(result)) = response.payload else {
        unreachable!("checked above: an owned result")
    };
    // Sent from its own allocation, which is kept for the next answer once hyper is done.
    let result = Bytes::from_owner(Returned::new(String::from(Box::<str>::from(result))));
    let body = ResultBody::new([
        Bytes::from(head),
        result,
        Bytes::from_static(RESULT_LINE_END),
    ]);
    let mut answer = HttpResponse::new(Body::new(body));
    *answer.status_mut() = status;
    let _previous = answer.headers_mut().insert(header::CONTENT_TYPE, JSON);
    answer
}

/// A body sent as a few pieces in turn, its whole length known from the start.
struct ResultBody {
    pieces: std::array::IntoIter<Bytes, 3>,
    remaining: u64,
}

impl ResultBody {
    fn new(pieces: [Bytes; 3]) -> Self {
        let remaining = pieces.iter().map(|piece| piece.len() as u64).sum();
        Self {
            pieces: pieces.into_iter(),
            remaining,
        }
    }
}

impl http_body::Body for ResultBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        Poll::Ready(this.pieces.next().map(|piece| {
            this.remaining -= piece.len() as u64;
            Ok(Frame::data(piece))
        }))
    }

    fn is_end_stream(&self) -> bool {
        self.remaining == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
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

/// A frame that is not a JSON-RPC message: 400 with the JSON-RPC layer's error.
pub(crate) fn parse_failure(error: &ParseError) -> HttpResponse {
    tracing::debug!(%error, "request body refused");
    message(StatusCode::BAD_REQUEST, &error.to_error_response())
}

pub(crate) fn body_error(failure: &BodyError) -> HttpResponse {
    match failure {
        BodyError::TooLarge { limit } => {
            tracing::warn!(limit, "request body over the limit");
            let message = format!("the request body exceeds the limit of {limit} bytes");
            error(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                ErrorCode::INVALID_REQUEST,
                message,
            )
        }
        BodyError::Timeout => error(
            StatusCode::REQUEST_TIMEOUT,
            None,
            ErrorCode::INVALID_REQUEST,
            "the request body did not arrive in time",
        ),
        BodyError::Read => error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorCode::INVALID_REQUEST,
            "the request body could not be read",
        ),
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt as _;
    use serde_json::value::RawValue;

    use super::*;

    fn result_of(len: usize) -> Box<RawValue> {
        let text = serde_json::json!({"content": [{"type": "text", "text": "y".repeat(len)}]});
        RawValue::from_string(text.to_string()).unwrap()
    }

    async fn body_of(answer: HttpResponse) -> (Option<u64>, Vec<u8>) {
        let body = answer.into_body();
        let exact = http_body::Body::size_hint(&body).exact();
        (exact, body.collect().await.unwrap().to_bytes().to_vec())
    }

    #[tokio::test]
    async fn an_owned_message_is_the_encoded_line_whatever_its_size_and_origin() {
        let id = Id::from_string("call-7");
        for len in [
            0,
            100,
            UNCOPIED_RESULT_BYTES - 40,
            UNCOPIED_RESULT_BYTES,
            200_000,
        ] {
            let owned = result_of(len);
            let spaced = RawValue::from_string(format!("{{ \"a\": {} }}", owned.get())).unwrap();
            // Spaces inside strings only: compact, so sent uncopied when large.
            let text = serde_json::json!({"content": [{"text": "y ".repeat(len / 2)}]});
            let spaces_inside = RawValue::from_string(text.to_string()).unwrap();
            let borrowed = result_of(len);
            let responses = [
                Response::result(id.clone(), owned),
                Response::result(id.clone(), spaced),
                Response::result(id.clone(), spaces_inside),
                // A borrowed result must be `'static` here: leaked (five, in a test).
                Response::result(Id::from_u64(3), &*Box::leak(borrowed)),
                Response::error(
                    Some(id.clone()),
                    ErrorObject::new(ErrorCode::INVALID_PARAMS, "no"),
                ),
            ];
            for response in responses {
                let mut expected = Vec::new();
                response.encode_line(&mut expected);
                let (exact, body) = body_of(owned_message(StatusCode::OK, response)).await;
                assert_eq!(exact, Some(expected.len() as u64), "length at {len}");
                assert!(body == expected, "bytes at {len}");
            }
        }
    }
}
