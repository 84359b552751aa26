//! Properties of the JSON-RPC layer: diagnostics never quote the input, and every outbound
//! message is exactly one compact line that parses back to itself.

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use typed_mcp::jsonrpc::{
    nests_deeper_than, parse_frame, parse_frame_within, parse_message, BatchPolicy, ErrorCode,
    ErrorObject, Frame, Id, IntoRawJson, Message, Notification, ParseError, ParseErrorKind,
    Request, Response,
};

const MARKER: &str = "QzMarker7731xK";

/// Arbitrary JSON (floats limited to exactly representable quarters so they round-trip).
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-4000i32..4000).prop_map(|n| Value::from(f64::from(n) / 4.0)),
        any::<String>().prop_map(Value::String),
        "[\"\\\\\n\r\t\u{0}-\u{1f}a-z\u{2028}\u{1F600}]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// A value of a protocol member: a plausible one, a wrong-typed one, or one carrying the
/// marker.
fn arb_member_value(good: Value) -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(good),
        Just(json!(MARKER)),
        Just(json!({ MARKER: [MARKER] })),
        Just(json!([format!("x{MARKER}")])),
        Just(Value::Null),
        Just(json!(1.5)),
        arb_json(),
    ]
}

/// Frames with the marker somewhere in them, valid or broken in many ways.
fn arb_frame_with_marker() -> impl Strategy<Value = Vec<u8>> {
    let members = (
        prop::option::of(arb_member_value(json!("2.0"))),
        prop::option::of(arb_member_value(json!(7))),
        prop::option::of(arb_member_value(json!("tools/call"))),
        prop::option::of(arb_member_value(json!({"a": 1}))),
        prop::option::of(arb_member_value(json!({}))),
        prop::option::of(arb_member_value(json!({"code": 1, "message": MARKER}))),
    );
    let mutation = (0u8..6, any::<Index>(), any::<u8>());
    (members, mutation).prop_map(|(members, (mutation, at, byte))| {
        let (jsonrpc, id, method, params, result, error) = members;
        let mut object = Map::new();
        for (name, value) in [
            ("jsonrpc", jsonrpc),
            ("id", id),
            ("method", method),
            ("params", params),
            ("result", result),
            ("error", error),
        ] {
            if let Some(value) = value {
                object.insert(name.to_owned(), value);
            }
        }
        let mut text = Value::Object(object).to_string();
        if !text.contains(MARKER) {
            text.insert_str(1, &format!("\"{MARKER}\":0,"));
            text = text.replace(",}", "}");
        }
        let mut bytes = text.into_bytes();
        match mutation {
            0 => {}
            1 => bytes.truncate(at.index(bytes.len())),
            2 => bytes.insert(at.index(bytes.len()), byte),
            3 => bytes.extend_from_slice(format!(" {MARKER}").as_bytes()),
            4 => {
                bytes.insert(0, b'[');
                bytes.extend_from_slice(b",{}]");
            }
            _ => bytes
                .splice(0..0, MARKER.bytes().chain(*b"\xff "))
                .for_each(drop),
        }
        bytes
    })
}

fn errors_of(frame: Frame<'_>) -> Vec<ParseError> {
    match frame {
        Frame::Single(parsed) => parsed.err().into_iter().collect(),
        Frame::Batch(members) => members.into_iter().filter_map(Result::err).collect(),
    }
}

fn assert_no_marker(error: &ParseError) -> Result<(), TestCaseError> {
    let display = error.to_string();
    let debug = format!("{error:?}");
    let mut line = Vec::new();
    error.to_error_response().encode_line(&mut line);
    let response: Value = serde_json::from_slice(&line).expect("error responses are JSON");
    let error_member = response["error"].to_string();
    for text in [&display, &debug, &error_member] {
        prop_assert!(!text.contains(MARKER), "input leaked into {text:?}");
    }
    Ok(())
}

fn arb_id() -> impl Strategy<Value = Id<'static>> {
    prop_oneof![
        any::<u64>().prop_map(Id::from_u64),
        any::<String>().prop_map(|s| Id::from_string(&s)),
    ]
}

/// Raw JSON, sometimes pretty-printed (with line breaks the encoder must neutralise).
fn arb_raw(value: impl Strategy<Value = Value>) -> impl Strategy<Value = (Value, Box<RawValue>)> {
    (value, any::<bool>()).prop_map(|(value, pretty)| {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            value.to_string()
        };
        let raw = RawValue::from_string(text).unwrap();
        (value, raw)
    })
}

fn arb_params() -> impl Strategy<Value = Option<(Value, Box<RawValue>)>> {
    prop::option::of(arb_raw((arb_json(), any::<bool>()).prop_map(
        |(v, array)| if array { json!([v]) } else { json!({ "v": v }) },
    )))
}

/// Any outbound message, with the JSON values it carries (for comparison).
fn arb_message() -> impl Strategy<Value = (Message<'static>, Vec<Value>)> {
    prop_oneof![
        (arb_id(), any::<String>(), arb_params()).prop_map(|(id, method, params)| {
            let (values, raw) = split(params);
            (
                Request::new(id, method, raw.map(IntoRawJson::into_raw_json)).into(),
                values,
            )
        }),
        (any::<String>(), arb_params()).prop_map(|(method, params)| {
            let (values, raw) = split(params);
            (
                Notification::new(method, raw.map(IntoRawJson::into_raw_json)).into(),
                values,
            )
        }),
        (arb_id(), arb_raw(arb_json()))
            .prop_map(|(id, (value, raw))| { (Response::result(id, raw).into(), vec![value]) }),
        (
            prop::option::of(arb_id()),
            any::<i64>(),
            any::<String>(),
            prop::option::of(arb_raw(arb_json()))
        )
            .prop_map(|(id, code, message, data)| {
                let mut error = ErrorObject::new(ErrorCode(code), message);
                let (values, raw) = split(data);
                if let Some(raw) = raw {
                    error = error.with_data(raw);
                }
                (Response::error(id, error).into(), values)
            }),
    ]
}

fn split(member: Option<(Value, Box<RawValue>)>) -> (Vec<Value>, Option<Box<RawValue>>) {
    match member {
        Some((value, raw)) => (vec![value], Some(raw)),
        None => (Vec::new(), None),
    }
}

/// The raw JSON members of a parsed message, decoded.
fn carried_values(message: &Message<'_>) -> Vec<Value> {
    let raw = match message {
        Message::Request(request) => request.params.as_deref(),
        Message::Notification(notification) => notification.params.as_deref(),
        Message::Response(response) => match &response.payload {
            typed_mcp::jsonrpc::ResponsePayload::Result(result) => Some(&**result),
            typed_mcp::jsonrpc::ResponsePayload::Error(error) => error.data.as_deref(),
        },
    };
    raw.map(|raw| serde_json::from_str(raw.get()).unwrap())
        .into_iter()
        .collect()
}

/// What a parse gave, comparable: each message's line, or each error's response line.
fn outcome(frame: Frame<'_>) -> Vec<Vec<u8>> {
    let one = |result: Result<Message<'_>, ParseError>| match result {
        Ok(message) => message.to_line(),
        Err(error) => {
            let mut line = Vec::new();
            error.to_error_response().encode_line(&mut line);
            line
        }
    };
    match frame {
        Frame::Single(result) => vec![one(result)],
        Frame::Batch(members) => members.into_iter().map(one).collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn diagnostics_never_contain_the_input(frame in arb_frame_with_marker()) {
        for policy in [BatchPolicy::Allow, BatchPolicy::Reject] {
            for error in errors_of(parse_frame(&frame, policy)) {
                assert_no_marker(&error)?;
            }
        }
    }

    #[test]
    fn diagnostics_never_contain_arbitrary_bytes(
        mut bytes in prop::collection::vec(any::<u8>(), 0..64),
        at in any::<Index>(),
    ) {
        bytes.splice(at.index(bytes.len() + 1)..at.index(bytes.len() + 1), MARKER.bytes())
            .for_each(drop);
        if let Err(error) = parse_message(&bytes) {
            assert_no_marker(&error)?;
        }
    }

    #[test]
    fn outbound_messages_are_one_line_and_parse_back((message, values) in arb_message()) {
        let line = message.to_line();
        prop_assert_eq!(line.last(), Some(&b'\n'));
        prop_assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        prop_assert!(!line.contains(&b'\r'));
        let value: Value = serde_json::from_slice(&line).expect("one JSON value");
        prop_assert!(value.is_object());
        prop_assert_eq!(&value["jsonrpc"], &json!("2.0"));
        // Compact: as long as serde_json's own compact output (which differs only in key order).
        prop_assert_eq!(line.len() - 1, serde_json::to_string(&value).unwrap().len());

        let reparsed = parse_message(&line[..line.len() - 1]).expect("outbound lines parse");
        prop_assert_eq!(reparsed.method(), message.method());
        prop_assert_eq!(reparsed.id().map(Id::as_json), message.id().map(Id::as_json));
        prop_assert_eq!(carried_values(&reparsed), values);
        prop_assert_eq!(reparsed.to_line(), line);
    }

    /// Frames are checked as UTF-8 by `simdutf8`: a frame is refused as `InvalidUtf8`
    /// exactly when the standard library's check refuses it, for texts of every length
    /// (across the 32- and 64-byte blocks the vector code works in), whether a byte of the
    /// frame was overwritten or not.
    #[test]
    fn frames_are_invalid_utf8_exactly_when_std_says_so(
        text in "(\\PC|[\u{80}-\u{7ff}]|[\u{800}-\u{ffff}]|[\u{10000}-\u{10ffff}]){0,200}",
        overwrite in proptest::option::of((any::<Index>(), any::<u8>())),
    ) {
        let mut frame = serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "m", "params": {"text": text}
        })).unwrap();
        if let Some((at, byte)) = overwrite {
            let at = at.index(frame.len());
            frame[at] = byte;
        }
        let invalid = std::str::from_utf8(&frame).is_err();
        let kind = |result: Result<Message<'_>, ParseError>| result.err().map(|error| error.kind());
        prop_assert_eq!(
            kind(parse_message(&frame)) == Some(ParseErrorKind::InvalidUtf8),
            invalid
        );
        for policy in [BatchPolicy::Allow, BatchPolicy::Reject] {
            let Frame::Single(single) = parse_frame(&frame, policy) else {
                prop_assert!(!invalid, "an invalid frame is one error");
                continue;
            };
            prop_assert_eq!(kind(single) == Some(ParseErrorKind::InvalidUtf8), invalid);
        }
    }

    #[test]
    fn string_escaping_matches_serde_json(text in any::<String>()) {
        let id = Id::from_string(&text);
        prop_assert_eq!(id.as_json(), serde_json::to_string(&text).unwrap());
    }
}

proptest! {
    // Frames of 17 KiB: fewer cases than above keep this test to seconds in debug builds.
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A long frame (16 KiB and more) is read in one pass that also bounds its depth; what
    /// `parse_frame_within` gives is still exactly what the depth scan, then `parse_frame`,
    /// give: for frames within the bound and beyond it, edited or not, under both policies.
    #[test]
    fn long_frames_parse_within_the_bound_as_the_depth_scan_then_parse_do(
        (nesting, max_depth) in (0usize..8, 1usize..10),
        pad in "[a-z \"\\\\/é]{0,40}",
        nested_first in any::<bool>(),
        edit in proptest::option::of((any::<Index>(), prop::sample::select(
            b"{}[]:,\"\\ 0123456789-.etrufalsn\n\xc3".to_vec()
        ))),
    ) {
        let nested = format!("{}1{}", "[".repeat(nesting), "]".repeat(nesting));
        let long = serde_json::to_string(&pad.repeat(1 + 17_000 / (pad.len() + 1))).unwrap();
        let params = if nested_first {
            format!(r#"{{"n":{nested},"text":{long}}}"#)
        } else {
            format!(r#"{{"text":{long},"n":{nested}}}"#)
        };
        let mut frame =
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"m","params":{params}}}"#).into_bytes();
        if let Some((at, byte)) = edit {
            let at = at.index(frame.len());
            frame[at] = byte;
        }
        for policy in [BatchPolicy::Allow, BatchPolicy::Reject] {
            let expected = if nests_deeper_than(&frame, max_depth) {
                None
            } else {
                Some(outcome(parse_frame(&frame, policy)))
            };
            let got = parse_frame_within(&frame, policy, max_depth);
            match expected {
                None => {
                    let Frame::Single(Err(error)) = got else {
                        return Err(TestCaseError::fail("a frame too deep is one error"));
                    };
                    prop_assert_eq!(error.kind(), ParseErrorKind::TooDeep);
                }
                Some(expected) => prop_assert_eq!(outcome(got), expected),
            }
        }
    }
}
