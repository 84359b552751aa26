//! The writer task: no interleaving, flush on drain, bounded queue, errors surfaced, clean
//! shutdown.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::value::RawValue;
use serde_json::Value;
use tokio::io::AsyncWrite;
use typed_mcp::framing::{spawn_writer, FramingError, Outbound};
use typed_mcp::jsonrpc::{ErrorCode, ErrorObject, Id, Message, Notification, Response};

/// An output that records bytes, write calls and flushes; can be made to fail or to stall.
#[derive(Default)]
struct Recording {
    data: Vec<u8>,
    writes: usize,
    flushes: usize,
    fail_writes: bool,
    stall_writes: bool,
}

impl AsyncWrite for Recording {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.stall_writes {
            return Poll::Pending;
        }
        if self.fail_writes {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "closed pipe",
            )));
        }
        self.writes += 1;
        self.data.extend_from_slice(bytes);
        Poll::Ready(Ok(bytes.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.flushes += 1;
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

fn result(id: Id<'static>, json: &str) -> Response<'static> {
    Response::result(id, RawValue::from_string(json.to_owned()).unwrap())
}

fn lines(output: &[u8]) -> Vec<Value> {
    assert_eq!(output.last(), Some(&b'\n'));
    output
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("every line is one JSON value"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_senders_never_interleave() {
    let (handle, task) = spawn_writer(Vec::new(), 8);
    let mut senders = Vec::new();
    for sender in 0..8 {
        let handle = handle.clone();
        senders.push(tokio::spawn(async move {
            for n in 0..200 {
                let id = Id::from_string(&format!("{sender}-{n}"));
                let payload = format!(r#"{{"text":"{}"}}"#, "x".repeat(n * 7));
                handle.send(result(id, &payload)).await.unwrap();
            }
        }));
    }
    for sender in senders {
        sender.await.unwrap();
    }
    drop(handle);
    let output = task.shutdown().await.unwrap();
    let lines = lines(&output);
    assert_eq!(lines.len(), 1600);
    let mut next = [0usize; 8];
    for line in &lines {
        let id = line["id"].as_str().unwrap();
        let (sender, n) = id.split_once('-').unwrap();
        let (sender, n): (usize, usize) = (sender.parse().unwrap(), n.parse().unwrap());
        assert_eq!(n, next[sender], "messages of one sender stay in order");
        assert_eq!(line["result"]["text"].as_str().unwrap().len(), n * 7);
        next[sender] += 1;
    }
}

#[tokio::test]
async fn flushes_when_the_queue_drains_not_per_message() {
    let (handle, task) = spawn_writer(Recording::default(), 64);
    for n in 0..50 {
        handle.send(result(Id::from_u64(n), "{}")).await.unwrap();
    }
    let output = task.shutdown().await.unwrap();
    assert_eq!(lines(&output.data).len(), 50);
    assert!(
        output.flushes <= 2,
        "{} flushes for 50 queued messages",
        output.flushes
    );
    assert!(
        output.writes < 50,
        "{} writes for 50 queued messages",
        output.writes
    );
}

#[tokio::test]
async fn shutdown_writes_everything_queued_and_closes_handles() {
    let (handle, task) = spawn_writer(Recording::default(), 16);
    let other = handle.clone();
    handle.send(result(Id::from_u64(1), "[]")).await.unwrap();
    other
        .send(Notification::new("notifications/progress", None))
        .await
        .unwrap();
    let error = ErrorObject::new(ErrorCode::INTERNAL_ERROR, "line\nbreak");
    other.send(Response::error(None, error)).await.unwrap();
    let output = task.shutdown().await.unwrap();
    let lines = lines(&output.data);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["method"], "notifications/progress");
    assert_eq!(lines[2]["error"]["message"], "line\nbreak");
    assert!(handle.is_closed());
    assert!(matches!(
        other.send(result(Id::from_u64(2), "{}")).await,
        Err(FramingError::WriterClosed)
    ));
}

#[tokio::test]
async fn batches_are_one_line_and_empty_batches_nothing() {
    let (handle, task) = spawn_writer(Vec::new(), 4);
    handle.send(Outbound::Batch(Vec::new())).await.unwrap();
    let batch = vec![
        result(Id::from_u64(1), "1"),
        result(Id::from_string("b"), "2"),
    ];
    handle.send(Outbound::Batch(batch)).await.unwrap();
    let output = task.shutdown().await.unwrap();
    let lines = lines(&output);
    assert_eq!(lines.len(), 1);
    assert_eq!(
        lines[0],
        serde_json::json!([
            {"jsonrpc": "2.0", "id": 1, "result": 1},
            {"jsonrpc": "2.0", "id": "b", "result": 2},
        ])
    );
}

#[tokio::test]
async fn write_errors_are_surfaced() {
    let output = Recording {
        fail_writes: true,
        ..Recording::default()
    };
    let (handle, task) = spawn_writer(output, 4);
    handle.send(result(Id::from_u64(1), "{}")).await.unwrap();
    // The writer fails on that message and stops; later sends are refused...
    let mut refused = false;
    for n in 2..100 {
        if let Err(error) = handle.send(result(Id::from_u64(n), "{}")).await {
            assert!(matches!(error, FramingError::WriterClosed));
            refused = true;
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(refused, "sends keep succeeding after a write error");
    // ...and shutdown reports the I/O error itself.
    match task.shutdown().await {
        Err(FramingError::Io(error)) => assert_eq!(error.kind(), io::ErrorKind::BrokenPipe),
        Err(other) => panic!("unexpected {other:?}"),
        Ok(_) => panic!("write error swallowed"),
    }
}

#[tokio::test]
async fn a_full_queue_holds_senders_back() {
    let output = Recording {
        stall_writes: true,
        ..Recording::default()
    };
    let (handle, _task) = spawn_writer(output, 1);
    handle.send(result(Id::from_u64(1), "{}")).await.unwrap();
    // Let the writer take message 1; it then stalls in the write.
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    handle.send(result(Id::from_u64(2), "{}")).await.unwrap();
    let mut third = tokio_test::task::spawn(handle.send(result(Id::from_u64(3), "{}")));
    assert!(
        third.poll().is_pending(),
        "a send beyond the queue capacity must wait"
    );
}

/// An output that takes at most `per_call` bytes per write, from one slice or (when
/// `vectored`) from as many slices as fit.
struct Trickle {
    data: Vec<u8>,
    per_call: usize,
    vectored: bool,
}

impl AsyncWrite for Trickle {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        let taken = bytes.len().min(self.per_call);
        self.data.extend_from_slice(&bytes[..taken]);
        Poll::Ready(Ok(taken))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        slices: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if !self.vectored {
            let first = slices.iter().find(|slice| !slice.is_empty());
            return self.poll_write(cx, first.map_or(&[][..], |slice| &slice[..]));
        }
        let mut taken = 0;
        for slice in slices {
            let part = slice.len().min(self.per_call - taken);
            self.data.extend_from_slice(&slice[..part]);
            taken += part;
            if taken == self.per_call {
                break;
            }
        }
        Poll::Ready(Ok(taken))
    }

    fn is_write_vectored(&self) -> bool {
        self.vectored
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Large results are written from their own allocation rather than copied into the encode
/// buffer: whatever the output takes per write, vectored or not, the bytes are exactly the
/// lines each message encodes to, in order, pretty-printed results compacted.
#[tokio::test]
async fn large_results_reach_the_output_whole_and_in_order_however_it_takes_them() {
    let long = "x".repeat(40_000);
    let messages = vec![
        result(Id::from_u64(1), "{}"),
        result(Id::from_u64(2), &format!(r#"{{"text":"{long}"}}"#)),
        result(Id::from_u64(3), &format!("{{ \"text\" : \"{long}\" }}")),
        result(Id::from_u64(4), r#"{"small":true}"#),
        result(
            Id::from_u64(5),
            &format!(r#"{{"a":"{long}","b":"{long}"}}"#),
        ),
        Response::error(
            Some(Id::from_u64(6)),
            ErrorObject::new(ErrorCode::INTERNAL_ERROR, "failed"),
        ),
        result(
            Id::from_u64(7),
            &format!(r#"["{}"]"#, "y".repeat(16 * 1024)),
        ),
        result(
            Id::from_u64(8),
            &format!(r#"{{"text":"{}","n":1}}"#, "a b\\t".repeat(10_000)),
        ),
    ];
    let mut expected = Vec::new();
    for message in &messages {
        expected.extend_from_slice(&Message::Response(message.clone()).to_line());
    }
    for per_call in [1, 7, 4096, 65_536, 1 << 20] {
        for vectored in [false, true] {
            let output = Trickle {
                data: Vec::new(),
                per_call,
                vectored,
            };
            let (handle, task) = spawn_writer(output, 64);
            for message in &messages {
                handle.send(message.clone()).await.unwrap();
            }
            let output = task.shutdown().await.unwrap();
            assert!(
                output.data == expected,
                "per_call {per_call}, vectored {vectored}: {} bytes written, {} expected",
                output.data.len(),
                expected.len()
            );
        }
    }
}
