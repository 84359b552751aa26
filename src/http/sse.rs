//! Server-sent events: encoding one message as an event, and the event-stream response
//! (a session's replay log is in [`session_store`](super::session_store)).

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response as HttpResponse;
use bytes::Bytes;
use futures_util::Stream;

use crate::framing::Outbound;
use crate::jsonrpc::encode_batch_line;

/// `text/event-stream`.
pub(crate) const EVENT_STREAM: HeaderValue = HeaderValue::from_static("text/event-stream");

/// A comment line that keeps an idle stream open through proxies.
pub(crate) const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// The JSON text of one outbound message (one line, without its newline).
pub(crate) fn outbound_json(outbound: &Outbound) -> Vec<u8> {
    let mut line = Vec::new();
    match outbound {
        Outbound::Message(message) => message.encode_line(&mut line),
        Outbound::Batch(responses) => {
            let _written = encode_batch_line(responses, &mut line);
        }
    }
    if line.last() == Some(&b'\n') {
        let _newline = line.pop();
    }
    line
}

/// One event: an optional id, then the message as its data (JSON text has no raw newline).
pub(crate) fn event(id: Option<u64>, json: &[u8]) -> Bytes {
    let mut event = Vec::with_capacity(json.len() + 32);
    if let Some(id) = id {
        event.extend_from_slice(format!("id: {id}\n").as_bytes());
    }
    event.extend_from_slice(b"event: message\ndata: ");
    event.extend_from_slice(json);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

/// A `200` event-stream response whose body is `events`.
pub(crate) fn response<S>(events: S) -> HttpResponse
where
    S: Stream<Item = Bytes> + Send + 'static,
{
    use futures_util::StreamExt as _;
    let body = Body::from_stream(events.map(Ok::<Bytes, std::convert::Infallible>));
    let mut response = HttpResponse::new(body);
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    let _previous = headers.insert(header::CONTENT_TYPE, EVENT_STREAM);
    let _previous = headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
