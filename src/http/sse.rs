//! Server-sent events: encoding one message as an event, and the event-stream response
//! (a session's replay log is in [`session_store`](super::session_store)).

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response as HttpResponse;
use bytes::Bytes;
use futures_util::Stream;

use crate::framing::Outbound;
use crate::jsonrpc::encode_batch_line;

use super::session_store::{event_id, StreamId};

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
    encode(id.map(|id| id.to_string()).as_deref(), json)
}

/// Event `number` of a session's stream `stream`, with the id naming both.
pub(crate) fn stream_event(stream: StreamId, number: u64, json: &[u8]) -> Bytes {
    encode(Some(&event_id(stream, number)), json)
}

/// The first event of a resumable POST stream: an id (event 0 of `stream`) and an empty
/// `data` field, so that a client cut off before any message can resume with it, and the
/// `retry` delay (milliseconds) after which it should.
pub(crate) fn priming(stream: StreamId, retry_ms: u64) -> Bytes {
    let id = event_id(stream, 0);
    Bytes::from(format!("id: {id}\nretry: {retry_ms}\ndata: \n\n"))
}

fn encode(id: Option<&str>, json: &[u8]) -> Bytes {
    let mut event = Vec::with_capacity(json.len() + 48);
    if let Some(id) = id {
        event.extend_from_slice(b"id: ");
        event.extend_from_slice(id.as_bytes());
        event.push(b'\n');
    }
    event.extend_from_slice(b"event: message\ndata: ");
    event.extend_from_slice(json);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

/// Whether an encoded event carries a response (no `method`: not a request or a
/// notification), which ends the POST stream it belongs to.
pub(crate) fn is_response(event: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        method: Option<serde::de::IgnoredAny>,
    }
    let Some(start) = event
        .windows(6)
        .position(|window| window == b"data: ")
        .map(|at| at + 6)
    else {
        return false;
    };
    let data = &event[start..];
    let end = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    serde_json::from_slice::<Probe>(&data[..end]).is_ok_and(|probe| probe.method.is_none())
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
