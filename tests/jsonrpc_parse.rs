//! Parsing single frames: every error kind, byte-exact id echo, error responses, batches.

use std::collections::HashSet;

use serde_json::{json, Value};
use typed_mcp::jsonrpc::{
    encode_batch_line, parse_frame, parse_message, BatchPolicy, ErrorCode, Frame, Id, IdKind,
    Message, ParseError, ParseErrorKind, Response, ResponsePayload,
};

fn error_of(frame: &[u8]) -> ParseError {
    match parse_message(frame) {
        Ok(message) => panic!(
            "expected an error for {}, got {message:?}",
            String::from_utf8_lossy(frame)
        ),
        Err(error) => error,
    }
}

/// The error response for `error`, as JSON.
fn response_json(error: &ParseError) -> Value {
    let mut line = Vec::new();
    error.to_error_response().encode_line(&mut line);
    serde_json::from_slice(&line).expect("error responses are JSON")
}

fn one_line_json(message: &Message<'_>) -> (Vec<u8>, Value) {
    let line = message.to_line();
    let value = serde_json::from_slice(&line).expect("encoded messages are JSON");
    (line, value)
}

const ALL_KINDS: &[ParseErrorKind] = &[
    ParseErrorKind::MalformedJson,
    ParseErrorKind::InvalidUtf8,
    ParseErrorKind::NotAnObject,
    ParseErrorKind::DuplicateMember,
    ParseErrorKind::MissingJsonrpc,
    ParseErrorKind::InvalidJsonrpcVersion,
    ParseErrorKind::InvalidIdType,
    ParseErrorKind::MissingMethod,
    ParseErrorKind::InvalidMethodType,
    ParseErrorKind::InvalidParamsType,
    ParseErrorKind::RequestAndResponseMembers,
    ParseErrorKind::ResultAndError,
    ParseErrorKind::NeitherResultNorError,
    ParseErrorKind::MissingResponseId,
    ParseErrorKind::InvalidErrorObject,
    ParseErrorKind::EmptyBatch,
    ParseErrorKind::BatchNotSupported,
];

/// (frame, expected kind); frames are parsed with `parse_message` except where noted.
const CASES: &[(&[u8], ParseErrorKind)] = &[
    (br#"{"jsonrpc":"2.0","#, ParseErrorKind::MalformedJson),
    (br#"{"jsonrpc":"2.0"} {}"#, ParseErrorKind::MalformedJson),
    (b"", ParseErrorKind::MalformedJson),
    (b"nul", ParseErrorKind::MalformedJson),
    (
        br#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#,
        ParseErrorKind::MalformedJson,
    ),
    (
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
        ParseErrorKind::InvalidUtf8,
    ),
    (b"\xc3", ParseErrorKind::InvalidUtf8),
    (b"5", ParseErrorKind::NotAnObject),
    (br#" "text" "#, ParseErrorKind::NotAnObject),
    (b"null", ParseErrorKind::NotAnObject),
    (
        br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
        ParseErrorKind::DuplicateMember,
    ),
    (
        br#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"m"}"#,
        ParseErrorKind::DuplicateMember,
    ),
    (
        br#"{"jsonrpc":"2.0","method":"m","params":{},"params":[]}"#,
        ParseErrorKind::DuplicateMember,
    ),
    (br#"{"id":1,"method":"m"}"#, ParseErrorKind::MissingJsonrpc),
    (
        br#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
        ParseErrorKind::InvalidJsonrpcVersion,
    ),
    (
        br#"{"jsonrpc":2.0,"id":1,"method":"m"}"#,
        ParseErrorKind::InvalidJsonrpcVersion,
    ),
    (
        br#"{"jsonrpc":"2.0 ","id":1,"method":"m"}"#,
        ParseErrorKind::InvalidJsonrpcVersion,
    ),
    (
        br#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
        ParseErrorKind::InvalidIdType,
    ),
    (
        br#"{"jsonrpc":"2.0","id":true,"method":"m"}"#,
        ParseErrorKind::InvalidIdType,
    ),
    (
        br#"{"jsonrpc":"2.0","id":{},"method":"m"}"#,
        ParseErrorKind::InvalidIdType,
    ),
    (
        br#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#,
        ParseErrorKind::InvalidIdType,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
        ParseErrorKind::InvalidIdType,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1e-1,"method":"m"}"#,
        ParseErrorKind::InvalidIdType,
    ),
    (
        br#"{"jsonrpc":"2.0","id":false,"result":{}}"#,
        ParseErrorKind::InvalidIdType,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1}"#,
        ParseErrorKind::MissingMethod,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1,"params":{}}"#,
        ParseErrorKind::MissingMethod,
    ),
    (br#"{"jsonrpc":"2.0"}"#, ParseErrorKind::MissingMethod),
    (
        br#"{"jsonrpc":"2.0","id":1,"method":5}"#,
        ParseErrorKind::InvalidMethodType,
    ),
    (
        br#"{"jsonrpc":"2.0","method":null}"#,
        ParseErrorKind::InvalidMethodType,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}"#,
        ParseErrorKind::InvalidParamsType,
    ),
    (
        br#"{"jsonrpc":"2.0","method":"m","params":null}"#,
        ParseErrorKind::InvalidParamsType,
    ),
    (
        br#"{"jsonrpc":"2.0","method":"m","params":3}"#,
        ParseErrorKind::InvalidParamsType,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1,"method":"m","result":{}}"#,
        ParseErrorKind::RequestAndResponseMembers,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1,"params":[],"error":{}}"#,
        ParseErrorKind::RequestAndResponseMembers,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
        ParseErrorKind::ResultAndError,
    ),
    (
        br#"{"jsonrpc":"2.0","id":null}"#,
        ParseErrorKind::NeitherResultNorError,
    ),
    (
        br#"{"jsonrpc":"2.0","result":1}"#,
        ParseErrorKind::MissingResponseId,
    ),
    (
        br#"{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}"#,
        ParseErrorKind::MissingResponseId,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1,"error":5}"#,
        ParseErrorKind::InvalidErrorObject,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}"#,
        ParseErrorKind::InvalidErrorObject,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#,
        ParseErrorKind::InvalidErrorObject,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}"#,
        ParseErrorKind::InvalidErrorObject,
    ),
    (
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":7}}"#,
        ParseErrorKind::InvalidErrorObject,
    ),
    (
        br#"[{"jsonrpc":"2.0","method":"m"}]"#,
        ParseErrorKind::BatchNotSupported,
    ),
];

#[test]
fn every_error_kind_is_reachable_with_its_code() {
    let mut seen = HashSet::new();
    for (frame, kind) in CASES {
        let error = error_of(frame);
        assert_eq!(error.kind(), *kind, "{}", String::from_utf8_lossy(frame));
        let expected_code = match kind {
            ParseErrorKind::MalformedJson | ParseErrorKind::InvalidUtf8 => -32700,
            _ => -32600,
        };
        assert_eq!(error.error_code(), ErrorCode(expected_code));
        assert_eq!(response_json(&error)["error"]["code"], json!(expected_code));
        seen.insert(error.kind());
    }
    let Frame::Single(Err(empty)) = parse_frame(b"[]", BatchPolicy::Allow) else {
        panic!("[] is one error");
    };
    seen.insert(empty.kind());
    let missing: Vec<_> = ALL_KINDS.iter().filter(|k| !seen.contains(k)).collect();
    assert!(missing.is_empty(), "kinds never produced: {missing:?}");
}

/// Request ids accepted and echoed exactly as written.
const ECHOED_IDS: &[&str] = &[
    r#""abc""#,
    "7",
    "9007199254740993",
    "18446744073709551615",
    "-18446744073709551616",
    "1.0",
    "-0",
    "1e3",
    "1E+2",
    "150e-1",
    r#""a\u0062""#,
    r#""\ud83d\ude00 \"q\" \\""#,
    r#""""#,
];

#[test]
fn ids_are_echoed_byte_for_byte() {
    for raw in ECHOED_IDS {
        let frame = format!(r#"{{"jsonrpc":"2.0","id": {raw} ,"method":"m"}}"#);
        let Ok(Message::Request(request)) = parse_message(frame.as_bytes()) else {
            panic!("{raw} is a valid id");
        };
        assert_eq!(request.id.as_json(), *raw);
        let expected_kind = if raw.starts_with('"') {
            IdKind::String
        } else {
            IdKind::Number
        };
        assert_eq!(request.id.kind(), expected_kind);

        let result = serde_json::value::to_raw_value(&json!({})).unwrap();
        let response = Response::result(request.id.clone(), result);
        let line = Message::Response(response).to_line();
        let expected = format!("{{\"jsonrpc\":\"2.0\",\"id\":{raw},\"result\":{{}}}}\n");
        assert_eq!(String::from_utf8(line).unwrap(), expected);

        // Error responses echo it too.
        let invalid = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":5}}"#);
        let mut line = Vec::new();
        error_of(invalid.as_bytes())
            .to_error_response()
            .encode_line(&mut line);
        let needle = format!(",\"id\":{raw},");
        assert!(String::from_utf8(line).unwrap().contains(&needle), "{raw}");
    }
}

#[test]
fn id_equality_is_on_the_raw_text() {
    let parse_id = |raw: &str| {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"m"}}"#);
        match parse_message(frame.as_bytes()).unwrap() {
            Message::Request(request) => request.id.into_owned(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(parse_id("7"), Id::from_u64(7));
    assert_ne!(parse_id("7"), parse_id("7.0"));
    assert_eq!(parse_id(r#""x\"y""#), Id::from_string("x\"y"));
    assert_eq!(parse_id("42").as_u64(), Some(42));
    assert_eq!(parse_id("1e3").as_u64(), None);
}

#[test]
fn error_responses_echo_readable_ids_only() {
    let cases: &[(&[u8], Value)] = &[
        (br#"{"jsonrpc":"2.0","id":"q","method":5}"#, json!("q")),
        (br#"{"id":3,"method":"m"}"#, json!(3)),
        (br#"{"jsonrpc":"1.0","id":4,"method":"m"}"#, json!(4)),
        (
            br#"{"jsonrpc":"2.0","id":5,"method":"m","params":1}"#,
            json!(5),
        ),
        (
            br#"{"jsonrpc":"2.0","id":6,"result":1,"error":{}}"#,
            json!(6),
        ),
        (br#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#, Value::Null),
        (br#"{"jsonrpc":"2.0","id":true,"method":"m"}"#, Value::Null),
        (br#"{"jsonrpc":"2.0","method":"m","params":1}"#, Value::Null),
        (
            br#"{"jsonrpc":"2.0","id":1,"id":1,"method":"m"}"#,
            Value::Null,
        ),
        (br#"{"jsonrpc":"2.0","id":7,"method":"m""#, Value::Null),
    ];
    for (frame, id) in cases {
        let error = error_of(frame);
        let response = response_json(&error);
        assert_eq!(response["jsonrpc"], json!("2.0"));
        assert_eq!(response["id"], *id, "{}", String::from_utf8_lossy(frame));
        assert_eq!(response["error"]["message"], json!(error.to_string()));
        let members: Vec<_> = response.as_object().unwrap().keys().cloned().collect();
        assert_eq!(members, ["error", "id", "jsonrpc"]);
    }
}

#[test]
fn messages_of_each_kind() {
    let frame = br#" {"params":{"b":1, "a":[2]},"extra":{"x":1},"extra":2,"id":"r1","method":"to\u006fls/list","jsonr\u0070c":"2\u002e0"} "#;
    let Ok(Message::Request(request)) = parse_message(frame) else {
        panic!()
    };
    assert_eq!(request.method, "tools/list");
    assert_eq!(
        request.params.as_deref().map(|p| p.get()),
        Some(r#"{"b":1, "a":[2]}"#)
    );

    let Ok(Message::Notification(note)) =
        parse_message(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
    else {
        panic!()
    };
    assert_eq!(note.method, "notifications/initialized");
    assert!(note.params.is_none());

    let Ok(Message::Response(ok)) = parse_message(br#"{"jsonrpc":"2.0","id":9,"result":[1]}"#)
    else {
        panic!()
    };
    assert_eq!(ok.id.as_ref().map(Id::as_json), Some("9"));
    assert!(matches!(&ok.payload, ResponsePayload::Result(r) if r.get() == "[1]"));

    let frame = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"gone \"x\"","data":{"uri":"u"}}}"#;
    let Ok(Message::Response(failed)) = parse_message(frame) else {
        panic!()
    };
    assert!(failed.id.is_none() && failed.is_error());
    let ResponsePayload::Error(error) = &failed.payload else {
        panic!()
    };
    assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
    assert_eq!(error.message, "gone \"x\"");
    assert_eq!(
        error.data.as_deref().map(|d| d.get()),
        Some(r#"{"uri":"u"}"#)
    );

    // Round trip through the encoder.
    let (line, value) = one_line_json(&Message::Response(failed.into_owned()));
    assert!(line.ends_with(b"}\n"));
    assert_eq!(value, serde_json::from_slice::<Value>(frame).unwrap());
}

#[test]
fn error_code_constants() {
    let expected = [
        (ErrorCode::PARSE_ERROR, -32700, "PARSE_ERROR"),
        (ErrorCode::INVALID_REQUEST, -32600, "INVALID_REQUEST"),
        (ErrorCode::METHOD_NOT_FOUND, -32601, "METHOD_NOT_FOUND"),
        (ErrorCode::INVALID_PARAMS, -32602, "INVALID_PARAMS"),
        (ErrorCode::INTERNAL_ERROR, -32603, "INTERNAL_ERROR"),
        (ErrorCode::HEADER_MISMATCH, -32020, "HEADER_MISMATCH"),
        (
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            -32021,
            "MISSING_REQUIRED_CLIENT_CAPABILITY",
        ),
        (
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            -32022,
            "UNSUPPORTED_PROTOCOL_VERSION",
        ),
        (ErrorCode::RESOURCE_NOT_FOUND, -32002, "RESOURCE_NOT_FOUND"),
    ];
    for (code, value, name) in expected {
        assert_eq!(code.0, value);
        assert_eq!(code.name(), Some(name));
        assert_eq!(ErrorCode::from(value), code);
    }
    assert_eq!(ErrorCode(-1).name(), None);
    assert!(
        ErrorCode(-32050).is_server_error_range() && !ErrorCode(-32700).is_server_error_range()
    );
}

#[test]
fn batch_policy_by_protocol_version() {
    for (version, policy) in [
        ("2024-11-05", BatchPolicy::Allow),
        ("2025-03-26", BatchPolicy::Allow),
        ("2025-06-18", BatchPolicy::Reject),
        ("2025-11-25", BatchPolicy::Reject),
        ("2026-07-28", BatchPolicy::Reject),
        ("", BatchPolicy::Reject),
        ("1", BatchPolicy::Reject),
        ("2025-3-26", BatchPolicy::Reject),
    ] {
        assert_eq!(
            BatchPolicy::for_protocol_version(version),
            policy,
            "{version}"
        );
    }
}

/// Answers batch members the way a server would: requests and invalid members get a
/// response, notifications do not.
fn answer_batch(members: Vec<Result<Message<'_>, ParseError>>) -> Vec<Response<'static>> {
    members
        .into_iter()
        .filter_map(|member| match member {
            Ok(Message::Request(request)) => Some(Response::result(
                request.id.into_owned(),
                serde_json::value::to_raw_value(&json!("ok")).unwrap(),
            )),
            Ok(_) => None,
            Err(error) => Some(error.to_error_response()),
        })
        .collect()
}

#[test]
fn batches_allowed() {
    let frame = br#"[{"jsonrpc":"2.0","id":1,"method":"a"}, {"jsonrpc":"2.0","method":"n"}, 1, [], {"jsonrpc":"2.0","id":"x","method":7}]"#;
    let Frame::Batch(members) = parse_frame(frame, BatchPolicy::Allow) else {
        panic!()
    };
    assert_eq!(members.len(), 5);
    let kinds: Vec<_> = members
        .iter()
        .map(|m| m.as_ref().err().map(ParseError::kind))
        .collect();
    assert_eq!(
        kinds,
        [
            None,
            None,
            Some(ParseErrorKind::NotAnObject),
            Some(ParseErrorKind::NotAnObject),
            Some(ParseErrorKind::InvalidMethodType)
        ]
    );
    let responses = answer_batch(members);
    let mut line = Vec::new();
    assert!(encode_batch_line(&responses, &mut line));
    assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
    let value: Value = serde_json::from_slice(&line).unwrap();
    let ids: Vec<_> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(ids, [json!(1), Value::Null, Value::Null, json!("x")]);

    // Only notifications: nothing to write.
    let frame = br#"[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","method":"m","params":[]}]"#;
    let Frame::Batch(members) = parse_frame(frame, BatchPolicy::Allow) else {
        panic!()
    };
    let mut line = Vec::new();
    assert!(!encode_batch_line(&answer_batch(members), &mut line));
    assert!(line.is_empty());

    // `[]` and a malformed array are single errors.
    for (frame, code) in [(&b" [ ] "[..], -32600), (br#"[{"jsonrpc":"2.0"}"#, -32700)] {
        let Frame::Single(Err(error)) = parse_frame(frame, BatchPolicy::Allow) else {
            panic!()
        };
        let response = response_json(&error);
        assert_eq!(
            (response["id"].clone(), response["error"]["code"].clone()),
            (Value::Null, json!(code))
        );
    }
    // A single object is not a batch.
    assert!(matches!(
        parse_frame(br#"{"jsonrpc":"2.0","method":"n"}"#, BatchPolicy::Allow),
        Frame::Single(Ok(Message::Notification(_)))
    ));
}

#[test]
fn batches_rejected() {
    let frame = br#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]"#;
    let Frame::Single(Err(error)) = parse_frame(frame, BatchPolicy::Reject) else {
        panic!()
    };
    assert_eq!(error.kind(), ParseErrorKind::BatchNotSupported);
    let response = response_json(&error);
    assert_eq!(response["id"], Value::Null);
    assert_eq!(response["error"]["code"], json!(-32600));
    let Frame::Single(Err(error)) = parse_frame(b"[1,", BatchPolicy::Reject) else {
        panic!()
    };
    assert_eq!(error.kind(), ParseErrorKind::MalformedJson);
    assert!(matches!(
        parse_frame(
            br#"{"jsonrpc":"2.0","id":1,"method":"a"}"#,
            BatchPolicy::Reject
        ),
        Frame::Single(Ok(Message::Request(_)))
    ));
}
