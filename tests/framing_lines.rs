//! Edge cases of the bounded line decoder and reader: limits, underruns, bursts, CRLF, EOF,
//! split reads, memory bounds.

use std::io;

use typed_mcp::framing::{FrameReader, FramingError, LineBuffer, LineDecoder};

fn buffer(bytes: &[u8]) -> LineBuffer {
    let mut buf = LineBuffer::new();
    buf.extend_from_slice(bytes);
    buf
}

/// The next decoded line as text, or `None`.
fn next(decoder: &mut LineDecoder, buf: &mut LineBuffer) -> Option<String> {
    let line = decoder.decode(buf).expect("no error expected");
    line.map(|line| String::from_utf8(line.to_vec()).unwrap())
}

fn next_eof(decoder: &mut LineDecoder, buf: &mut LineBuffer) -> Option<String> {
    let line = decoder.decode_eof(buf).expect("no error expected");
    line.map(|line| String::from_utf8(line.to_vec()).unwrap())
}

/// The `(limit, actual_at_least)` of the expected error.
fn too_long(result: Result<Option<&[u8]>, FramingError>) -> (usize, usize) {
    match result {
        Err(FramingError::LineTooLong {
            limit,
            actual_at_least,
        }) => (limit, actual_at_least),
        other => panic!("expected LineTooLong, got {other:?}"),
    }
}

#[test]
fn lines_crlf_and_blank_lines() {
    let mut decoder = LineDecoder::new();
    let mut buf = buffer(b"line 1\nline 2\r\nline 3\n\r\n \t \n\n\r");
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("line 1"));
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("line 2"));
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("line 3"));
    assert_eq!(next(&mut decoder, &mut buf), None);
    assert_eq!(
        next_eof(&mut decoder, &mut buf),
        None,
        "a lone \\r is blank"
    );
    buf.extend_from_slice(b"k");
    assert_eq!(next(&mut decoder, &mut buf), None);
    assert_eq!(next_eof(&mut decoder, &mut buf).as_deref(), Some("k"));
    assert_eq!(next_eof(&mut decoder, &mut buf), None);
    buf.extend_from_slice(b"a\rb\r\n");
    assert_eq!(
        next(&mut decoder, &mut buf).as_deref(),
        Some("a\rb"),
        "inner \\r kept"
    );
}

#[test]
fn eof_without_newline() {
    let mut decoder = LineDecoder::new();
    let mut buf = buffer(b"first\nlast");
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("first"));
    assert_eq!(next(&mut decoder, &mut buf), None);
    assert_eq!(next_eof(&mut decoder, &mut buf).as_deref(), Some("last"));
    assert_eq!(next_eof(&mut decoder, &mut buf), None);
    let mut buf = buffer(b"last\r");
    assert_eq!(next_eof(&mut decoder, &mut buf).as_deref(), Some("last"));
}

#[test]
fn max_length() {
    const LIMIT: usize = 6;
    let mut decoder = LineDecoder::with_max_length(LIMIT);
    let mut buf = buffer(b"line 1 is too long\nline 2\nline 3\r\nline 4\n\r\n");
    assert_eq!(too_long(decoder.decode(&mut buf)), (LIMIT, 18));
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("line 2"));
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("line 3"));
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("line 4"));
    assert_eq!(next(&mut decoder, &mut buf), None);
    assert_eq!(next_eof(&mut decoder, &mut buf), None);
}

#[test]
fn exactly_at_the_limit_and_one_byte_over() {
    let mut decoder = LineDecoder::with_max_length(6);
    let mut buf = buffer(b"123456\n1234567\n123456\r\n1234567\r\n");
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("123456"));
    assert_eq!(too_long(decoder.decode(&mut buf)), (6, 7));
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("123456"));
    assert_eq!(too_long(decoder.decode(&mut buf)), (6, 7));
    assert_eq!(next(&mut decoder, &mut buf), None);

    // Arriving byte by byte: the limit plus `\r` waits for the `\n`.
    let mut buf = LineBuffer::new();
    for &byte in b"123456\r" {
        buf.extend_from_slice(&[byte]);
        assert_eq!(next(&mut decoder, &mut buf), None);
    }
    buf.extend_from_slice(b"\n");
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("123456"));
    // At EOF, a last line one byte over is reported too.
    buf.extend_from_slice(b"1234567");
    assert_eq!(next(&mut decoder, &mut buf), None);
    assert_eq!(too_long(decoder.decode_eof(&mut buf)), (6, 7));
    assert_eq!(next_eof(&mut decoder, &mut buf), None);
}

#[test]
fn max_length_underrun() {
    let mut decoder = LineDecoder::with_max_length(6);
    let mut buf = LineBuffer::new();
    buf.extend_from_slice(b"line ");
    assert_eq!(next(&mut decoder, &mut buf), None);
    buf.extend_from_slice(b"too l");
    assert_eq!(too_long(decoder.decode(&mut buf)), (6, 10));
    assert!(buf.is_empty(), "the oversize prefix is dropped at once");
    buf.extend_from_slice(b"on");
    assert_eq!(next(&mut decoder, &mut buf), None);
    buf.extend_from_slice(b"g\n");
    assert_eq!(next(&mut decoder, &mut buf), None);
    buf.extend_from_slice(b"line 2");
    assert_eq!(next(&mut decoder, &mut buf), None);
    buf.extend_from_slice(b"\n");
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("line 2"));
}

#[test]
fn repeated_discards_report_once_per_line() {
    let mut decoder = LineDecoder::with_max_length(4);
    let mut buf = LineBuffer::new();
    let mut errors = 0;
    let mut lines = Vec::new();
    let input = b"aaaaaaaaaa\nbbbbbbbbbbbbbbbbbbb\nok\ncccccccccccccc\r\nok2\n";
    for chunk in input.chunks(3) {
        buf.extend_from_slice(chunk);
        loop {
            match decoder.decode(&mut buf) {
                Ok(Some(line)) => lines.push(line.to_vec()),
                Ok(None) => break,
                Err(FramingError::LineTooLong { .. }) => errors += 1,
                Err(other) => panic!("{other:?}"),
            }
        }
    }
    assert_eq!(errors, 3);
    assert_eq!(lines, [b"ok".to_vec(), b"ok2".to_vec()]);
}

#[test]
fn newline_between_decodes() {
    let mut decoder = LineDecoder::with_max_length(5);
    let mut buf = buffer(b"hello");
    assert_eq!(next(&mut decoder, &mut buf), None);
    buf.extend_from_slice(b"\nworld");
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("hello"));
    assert_eq!(next(&mut decoder, &mut buf), None);
    buf.extend_from_slice(b"\n");
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("world"));
}

#[test]
fn bursts() {
    let mut decoder = LineDecoder::with_max_length(10);
    let mut buf = buffer(b"line 1\nline 2\nline 3\n");
    for expected in ["line 1", "line 2", "line 3"] {
        assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some(expected));
    }
    assert_eq!(next(&mut decoder, &mut buf), None);
}

#[test]
fn big_bursts_with_oversize_lines_interleaved() {
    let mut decoder = LineDecoder::with_max_length(16);
    let mut input = Vec::new();
    for n in 0..10_000 {
        input.extend_from_slice(format!("line {n}\n").as_bytes());
        if n % 100 == 0 {
            input.extend_from_slice(&[b'x'; 40]);
            input.push(b'\n');
        }
    }
    let mut buf = buffer(&input);
    let (mut lines, mut errors) = (0, 0);
    loop {
        match decoder.decode(&mut buf) {
            Ok(Some(line)) => {
                assert_eq!(line, format!("line {lines}").as_bytes());
                lines += 1;
            }
            Ok(None) => break,
            Err(_) => errors += 1,
        }
    }
    assert_eq!((lines, errors), (10_000, 100));
}

#[test]
fn discarding_keeps_the_buffer_small() {
    let limit = 1024;
    let chunk = 4096;
    let mut decoder = LineDecoder::with_max_length(limit);
    let mut buf = LineBuffer::new();
    let mut errors = 0;
    for _ in 0..2_000 {
        buf.extend_from_slice(&[b'z'; 4096][..chunk]);
        match decoder.decode(&mut buf) {
            Ok(None) => {}
            Err(FramingError::LineTooLong { .. }) => errors += 1,
            other => panic!("{other:?}"),
        }
        assert!(buf.len() <= limit + 1, "{} bytes kept", buf.len());
    }
    buf.extend_from_slice(b"\n{}\n");
    assert_eq!(next(&mut decoder, &mut buf).as_deref(), Some("{}"));
    assert_eq!(errors, 1);
}

async fn read_all<R: tokio::io::AsyncRead + Unpin>(
    reader: &mut FrameReader<R>,
) -> Vec<Result<Vec<u8>, String>> {
    let mut items = Vec::new();
    while let Some(item) = reader.next_frame().await {
        items.push(item.map(<[u8]>::to_vec).map_err(|e| e.to_string()));
    }
    items
}

#[tokio::test]
async fn reader_handles_split_reads() {
    let input = tokio_test::io::Builder::new()
        .read(b"{\"a\"")
        .read(b":1}\r")
        .read(b"\n\n   \n{\"b\"")
        .read(b":2}\n{\"c\":3}\n{\"d\":")
        .read(b"4}")
        .build();
    let mut reader = FrameReader::new(input);
    let frames: Vec<_> = read_all(&mut reader)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        frames,
        [&b"{\"a\":1}"[..], b"{\"b\":2}", b"{\"c\":3}", b"{\"d\":4}"]
    );
}

#[tokio::test]
async fn reader_reports_oversize_lines_once_and_continues() {
    let mut input = tokio_test::io::Builder::new();
    input.read(b"ok1\n");
    for _ in 0..100 {
        input.read(&[b'y'; 1000]);
    }
    input.read(b"\nok2\n").read(&[b'w'; 50]).read(b"\r\nok3");
    let mut reader = FrameReader::new(input.build())
        .with_max_line_bytes(20)
        .with_read_chunk_bytes(512);
    let items = read_all(&mut reader).await;
    assert_eq!(items.len(), 5, "{items:?}");
    assert_eq!(items[0].as_deref(), Ok(&b"ok1"[..]));
    assert!(items[1].as_ref().is_err_and(|e| e.contains("limit of 20")));
    assert_eq!(items[2].as_deref(), Ok(&b"ok2"[..]));
    assert_eq!(
        items[3].as_ref().unwrap_err(),
        "line of at least 50 bytes exceeds the limit of 20 bytes"
    );
    assert_eq!(items[4].as_deref(), Ok(&b"ok3"[..]));
    assert!(reader.buffer_allocated() <= reader.buffer_bound());
}

/// Reads that end inside a line leave part of it in the buffer; the next read tops the buffer
/// up to one chunk instead of adding a whole chunk behind the leftover (which doubled it).
#[tokio::test]
async fn partial_lines_at_read_boundaries_do_not_grow_the_buffer() {
    let text: Vec<u8> = (0..200)
        .flat_map(|i| format!("{{\"id\":{i:04},\"pad\":\"{}\"}}\n", "p".repeat(80)).into_bytes())
        .collect();
    let mut input = tokio_test::io::Builder::new();
    for piece in text.chunks(512) {
        input.read(piece);
    }
    let mut reader = FrameReader::new(input.build()).with_read_chunk_bytes(512);
    let items = read_all(&mut reader).await;
    assert_eq!(items.len(), 200);
    assert!(items.iter().all(Result::is_ok), "{items:?}");
    assert_eq!(reader.buffer_allocated(), 512);
}

/// Yields `total` bytes of one endless line, then `tail`.
struct EndlessLine {
    remaining: usize,
    tail: &'static [u8],
}

impl tokio::io::AsyncRead for EndlessLine {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        out: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        if self.remaining > 0 {
            let count = self.remaining.min(out.remaining());
            out.put_slice(&vec![b'q'; count]);
            self.remaining -= count;
        } else {
            let count = self.tail.len().min(out.remaining());
            out.put_slice(&self.tail[..count]);
            self.tail = &self.tail[count..];
        }
        std::task::Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn reader_memory_is_bounded_by_limit_plus_chunk() {
    let input = EndlessLine {
        remaining: 32 * 1024 * 1024,
        tail: b"\n{\"after\":true}\n",
    };
    let mut reader = FrameReader::new(input)
        .with_max_line_bytes(64 * 1024)
        .with_read_chunk_bytes(16 * 1024);
    let items = read_all(&mut reader).await;
    assert_eq!(items.len(), 2);
    assert!(items[0]
        .as_ref()
        .is_err_and(|e| e.contains("limit of 65536")));
    assert_eq!(items[1].as_deref(), Ok(&b"{\"after\":true}"[..]));
    let bound = 64 * 1024 + 2 + 16 * 1024;
    assert_eq!(reader.buffer_bound(), bound);
    assert!(
        reader.buffer_allocated() <= bound,
        "{}",
        reader.buffer_allocated()
    );
}

#[tokio::test]
async fn reader_surfaces_read_errors_and_stops() {
    let input = tokio_test::io::Builder::new()
        .read(b"{}\n{\"partial\"")
        .read_error(io::Error::other("pipe broke"))
        .build();
    let mut reader = FrameReader::new(input);
    assert_eq!(reader.next_frame().await.unwrap().unwrap(), b"{}");
    assert!(matches!(
        reader.next_frame().await,
        Some(Err(FramingError::Io(error))) if error.to_string() == "pipe broke"
    ));
    assert!(reader.next_frame().await.is_none());
}

#[test]
fn line_too_long_becomes_an_invalid_request_with_data() {
    let error = FramingError::LineTooLong {
        limit: 10,
        actual_at_least: 12,
    };
    let response = error
        .to_error_response()
        .expect("oversize lines are answered");
    let value: serde_json::Value =
        serde_json::from_slice(&typed_mcp::jsonrpc::Message::Response(response).to_line()).unwrap();
    assert_eq!(value["id"], serde_json::Value::Null);
    assert_eq!(value["error"]["code"], -32600);
    assert_eq!(
        value["error"]["data"],
        serde_json::json!({"limit": 10, "actualAtLeast": 12})
    );
    assert!(FramingError::WriterClosed.to_error_response().is_none());
}
