//! Reading `text/event-stream` bodies in tests: each event's id, `retry` field and data,
//! comments (keep-alives) skipped; and the parts of a POST stream's event id `STREAM-N`.

#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

use futures_util::StreamExt as _;
use reqwest::StatusCode;
use serde_json::Value;

/// How long an expected event may take (a hang guard, not a measurement).
pub const EVENT_WAIT: Duration = Duration::from_secs(10);

/// One event of a stream: its id, its `retry` field, its data.
#[derive(Debug)]
pub struct Event {
    pub id: Option<String>,
    pub retry: Option<u64>,
    pub data: String,
}

impl Event {
    /// The data as JSON (panics when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {self:?}"))
    }
}

/// Reads events from an event-stream body.
pub struct Events {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

impl Events {
    /// The events of `response`, which must be a 200 event stream.
    pub fn new(response: reqwest::Response) -> Self {
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Self {
            body: response.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// The next event (comments skipped); `None` when the stream ended.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    block
                        .lines()
                        .find_map(|line| line.strip_prefix(name))
                        .map(str::to_owned)
                };
                let Some(data) = field("data:") else {
                    continue;
                };
                return Some(Event {
                    id: field("id: "),
                    retry: field("retry: ").map(|ms| ms.parse().expect("a numeric retry")),
                    data: data.trim_start().to_owned(),
                });
            }
            let chunk = tokio::time::timeout(EVENT_WAIT, self.body.next())
                .await
                .expect("an event or the end arrives in time")?;
            self.buffer
                .push_str(&String::from_utf8_lossy(&chunk.expect("the stream reads")));
        }
    }

    /// Every event until the stream ends.
    pub async fn rest(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }
}

/// The stream part of a POST stream's event id `STREAM-N`, and N.
pub fn split(id: &str) -> (&str, u64) {
    let (stream, number) = id.split_once('-').expect("a POST stream's id");
    (stream, number.parse().expect("a numeric event number"))
}

/// The numbers N of `events`' ids `STREAM-N`, in order (every event must have an id).
pub fn numbers(events: &[Event]) -> Vec<u64> {
    events
        .iter()
        .map(|event| split(event.id.as_deref().expect("an id")).1)
        .collect()
}
