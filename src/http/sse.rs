//! Server-sent events: encoding one message as an event, the event-stream response, and the
//! replay log of a session's server-to-client stream.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response as HttpResponse;
use bytes::Bytes;
use futures_util::Stream;
use tokio::sync::watch;

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

/// The events of a session's server-to-client stream, numbered from 1, the last `capacity`
/// of them kept for clients that resume with `Last-Event-ID`.
#[derive(Debug)]
pub(crate) struct EventLog {
    inner: Mutex<LogInner>,
    /// The id of the newest event (0: none yet).
    latest: watch::Sender<u64>,
}

#[derive(Debug)]
struct LogInner {
    events: VecDeque<(u64, Bytes)>,
    capacity: usize,
    next: u64,
}

/// A resuming client asked for events that are no longer kept.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Gap {
    /// How many events it missed for good.
    pub(crate) lost: u64,
}

impl EventLog {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(LogInner {
                events: VecDeque::new(),
                capacity,
                next: 1,
            }),
            latest: watch::Sender::new(0),
        }
    }

    /// Appends a message; returns its event id.
    pub(crate) fn push(&self, json: &[u8]) -> u64 {
        let id = {
            let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            let id = inner.next;
            inner.next += 1;
            let event = event(Some(id), json);
            inner.events.push_back((id, event));
            while inner.events.len() > inner.capacity {
                let _dropped = inner.events.pop_front();
            }
            id
        };
        self.latest.send_replace(id);
        id
    }

    /// The newest event id (0 when nothing was sent yet).
    pub(crate) fn latest(&self) -> u64 {
        *self.latest.borrow()
    }

    /// Waits for events after `cursor`.
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.latest.subscribe()
    }

    /// The kept events after `after`, oldest first, and how many after it are lost.
    pub(crate) fn since(&self, after: u64) -> (Vec<(u64, Bytes)>, Option<Gap>) {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let oldest_kept = inner.events.front().map_or(inner.next, |(id, _)| *id);
        let gap = (after + 1 < oldest_kept).then(|| Gap {
            lost: oldest_kept - after - 1,
        });
        let events = inner
            .events
            .iter()
            .filter(|(id, _)| *id > after)
            .cloned()
            .collect();
        (events, gap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_numbered_and_replayed_from_a_cursor() {
        let log = EventLog::new(3);
        assert_eq!(log.latest(), 0);
        for n in 1..=5_u64 {
            assert_eq!(log.push(format!("{{\"n\":{n}}}").as_bytes()), n);
        }
        let (events, gap) = log.since(3);
        assert_eq!(events.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [4, 5]);
        assert_eq!(gap, None);
        let (events, gap) = log.since(0);
        assert_eq!(
            events.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
            [3, 4, 5]
        );
        assert_eq!(gap, Some(Gap { lost: 2 }));
        assert_eq!(
            &events[0].1[..],
            b"id: 3\nevent: message\ndata: {\"n\":3}\n\n"
        );
    }
}
