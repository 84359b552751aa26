//! Seed property "message integrity": random responses serialize to single lines that the
//! framing reader splits back into exactly the originals, however the bytes are chunked.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use proptest::prelude::*;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, ReadBuf};
use typed_mcp::framing::{spawn_writer, FrameReader, Outbound};
use typed_mcp::jsonrpc::{parse_message, ErrorCode, ErrorObject, Id, Message, Response};

/// Strings that stress escaping: newlines, quotes, backslashes, control characters, unicode.
fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[\"\\\\\n\r\t\u{0}-\u{1f}\u{7f}a-c \u{2028}\u{e9}\u{1F600}{}\\[\\],:]{0,24}",
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-4000i32..4000).prop_map(|n| Value::from(f64::from(n) / 8.0)),
        arb_text().prop_map(Value::String),
    ];
    let tree = leaf.prop_recursive(5, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((arb_text(), inner), 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    });
    prop_oneof![
        4 => tree,
        1 => (0usize..100, arb_text(), any::<bool>()).prop_map(|(depth, text, objects)| deep(depth, text, objects)),
    ]
}

/// A chain of `depth` nested arrays or objects around a string.
fn deep(depth: usize, text: String, objects: bool) -> Value {
    (0..depth).fold(Value::String(text), |inner, level| {
        if objects {
            json!({ format!("k{level}"): inner })
        } else {
            json!([inner])
        }
    })
}

/// A random id and its JSON value.
fn arb_id() -> impl Strategy<Value = (Id<'static>, Value)> {
    prop_oneof![
        any::<u64>().prop_map(|n| (Id::from_u64(n), json!(n))),
        arb_text().prop_map(|s| (Id::from_string(&s), json!(s))),
    ]
}

/// Raw JSON for `value`, compact or pretty-printed (line breaks the encoder must remove).
fn raw(value: &Value, pretty: bool) -> Box<RawValue> {
    let text = if pretty {
        serde_json::to_string_pretty(value).unwrap()
    } else {
        serde_json::to_string(value).unwrap()
    };
    RawValue::from_string(text).unwrap()
}

/// A random response and the JSON object it must read back as.
fn arb_response() -> impl Strategy<Value = (Response<'static>, Value)> {
    prop_oneof![
        (arb_id(), arb_json(), any::<bool>()).prop_map(|((id, id_json), result, pretty)| {
            let response = Response::result(id, raw(&result, pretty));
            (
                response,
                json!({"jsonrpc": "2.0", "id": id_json, "result": result}),
            )
        }),
        (
            prop::option::of(arb_id()),
            any::<i64>(),
            arb_text(),
            prop::option::of(arb_json()),
            any::<bool>(),
        )
            .prop_map(|(id, code, message, data, pretty)| {
                let (id, id_json) = id.map_or((None, Value::Null), |(id, json)| (Some(id), json));
                let mut error = ErrorObject::new(ErrorCode(code), message.clone());
                let mut error_json = json!({"code": code, "message": message});
                if let Some(data) = data {
                    error = error.with_data(raw(&data, pretty));
                    error_json["data"] = data;
                }
                let response = Response::error(id, error);
                (
                    response,
                    json!({"jsonrpc": "2.0", "id": id_json, "error": error_json}),
                )
            }),
    ]
}

/// Hands out `data` in pieces whose sizes cycle through `chunks`.
struct ChunkedReader {
    data: Vec<u8>,
    position: usize,
    chunks: Vec<usize>,
    next_chunk: usize,
}

impl AsyncRead for ChunkedReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let chunk = this.chunks[this.next_chunk % this.chunks.len()];
        this.next_chunk += 1;
        let end = (this.position + chunk.min(out.remaining())).min(this.data.len());
        out.put_slice(&this.data[this.position..end]);
        this.position = end;
        Poll::Ready(Ok(()))
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn message_integrity(
        responses in prop::collection::vec(arb_response(), 1..8),
        chunks in prop::collection::vec(1usize..200, 1..8),
    ) {
        let mut stream = Vec::new();
        for (response, expected) in &responses {
            let mut line = Vec::new();
            response.encode_line(&mut line);
            prop_assert_eq!(line.last(), Some(&b'\n'));
            prop_assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
            let value: Value = serde_json::from_slice(&line).expect("each line is JSON");
            prop_assert!(value.is_object());
            prop_assert_eq!(&value, expected);
            prop_assert_eq!(line.len() - 1, value.to_string().len(), "not compact");
            stream.extend_from_slice(&line);
        }

        // The writer task produces exactly the concatenation.
        let written = runtime().block_on(async {
            let (handle, task) = spawn_writer(Vec::new(), 4);
            for (response, _) in &responses {
                handle.send(Outbound::from(response.clone())).await.unwrap();
            }
            task.shutdown().await.unwrap()
        });
        prop_assert_eq!(&written, &stream);

        // Reading the concatenation back, in arbitrary pieces, yields the originals.
        let input = ChunkedReader { data: stream, position: 0, chunks, next_chunk: 0 };
        let frames = runtime().block_on(async {
            let mut reader = FrameReader::new(input).with_read_chunk_bytes(64);
            let mut frames = Vec::new();
            while let Some(frame) = reader.next_frame().await {
                frames.push(frame.expect("no framing error").to_vec());
            }
            frames
        });
        prop_assert_eq!(frames.len(), responses.len());
        for (frame, (_, expected)) in frames.iter().zip(&responses) {
            let parsed = parse_message(frame).expect("each frame parses");
            prop_assert!(matches!(parsed, Message::Response(_)));
            let value: Value = serde_json::from_slice(frame).unwrap();
            prop_assert_eq!(&value, expected);
        }
    }
}
