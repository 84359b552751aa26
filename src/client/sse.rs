//! A bounded `text/event-stream` parser: the `data` of each event (the JSON-RPC message),
//! the last event `id` and the server's `retry` hint.

use super::ClientError;

/// Splits an event stream into events, incrementally.
#[derive(Debug)]
pub(crate) struct SseParser {
    /// Bytes of the current, unfinished line.
    line: Vec<u8>,
    /// The `data` lines of the current event, joined by `\n`.
    data: Vec<u8>,
    has_data: bool,
    /// The last `id` field seen.
    pub(crate) last_event_id: Option<String>,
    /// The last `retry` field seen, in milliseconds.
    pub(crate) retry_ms: Option<u64>,
    /// Longest event (line plus data) accepted.
    max_bytes: usize,
}

impl SseParser {
    pub(crate) fn new(max_bytes: usize) -> Self {
        Self {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            last_event_id: None,
            retry_ms: None,
            max_bytes,
        }
    }

    /// Feeds a chunk; calls `on_event` with the data of every event it completes.
    pub(crate) fn push(
        &mut self,
        mut chunk: &[u8],
        mut on_event: impl FnMut(&[u8]),
    ) -> Result<(), ClientError> {
        while let Some(end) = memchr::memchr(b'\n', chunk) {
            self.line.extend_from_slice(&chunk[..end]);
            chunk = &chunk[end + 1..];
            self.check()?;
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            self.field(&line, &mut on_event);
        }
        self.line.extend_from_slice(chunk);
        self.check()
    }

    fn check(&self) -> Result<(), ClientError> {
        let size = self.line.len().saturating_add(self.data.len());
        if size > self.max_bytes {
            return Err(ClientError::LineTooLong {
                limit: self.max_bytes,
                actual_at_least: size,
            });
        }
        Ok(())
    }

    fn field(&mut self, line: &[u8], on_event: &mut impl FnMut(&[u8])) {
        if line.is_empty() {
            if self.has_data {
                on_event(&self.data);
            }
            self.data.clear();
            self.has_data = false;
            return;
        }
        let (name, value) = match memchr::memchr(b':', line) {
            Some(0) => return,
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"id" => self.last_event_id = std::str::from_utf8(value).ok().map(str::to_owned),
            b"retry" => {
                if let Some(ms) = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok()) {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(parser: &mut SseParser, chunks: &[&[u8]]) -> Vec<String> {
        let mut out = Vec::new();
        for chunk in chunks {
            parser
                .push(chunk, |data| {
                    out.push(String::from_utf8_lossy(data).into_owned())
                })
                .expect("within bounds");
        }
        out
    }

    #[test]
    fn events_split_across_chunks_with_ids_retry_and_comments() {
        let mut parser = SseParser::new(1024);
        let got = events(
            &mut parser,
            &[
                b": hi\r\nretry: 1500\nid: 7\nda",
                b"ta: {\"a\":1}\n\ndata: x\ndata: y\n\nid: 9\n",
            ],
        );
        assert_eq!(got, ["{\"a\":1}", "x\ny"]);
        assert_eq!(parser.retry_ms, Some(1500));
        assert_eq!(parser.last_event_id.as_deref(), Some("9"));
    }

    #[test]
    fn an_oversized_event_is_an_error() {
        let mut parser = SseParser::new(8);
        let result = parser.push(b"data: 0123456789\n", |_| {});
        assert!(matches!(
            result,
            Err(ClientError::LineTooLong { limit: 8, .. })
        ));
    }
}
