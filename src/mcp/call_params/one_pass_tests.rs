//! The one-pass reading of a `tools/call` against a full parse, on request text written
//! byte by byte: members in any order, repeated members (inside `params`, `_meta` and the
//! arguments), escapes in names and strings, deep nesting, and strings long enough to take
//! the long-frame and `memchr` paths.
//!
//! The one-pass side is what the server runs: the frame parsed ([`parse_message`]), the
//! tool's name read from the raw params ([`tool_name`]), the params read once
//! ([`to_value`]) and taken apart ([`decode_modern_call`], [`decode_call`]). The full side is
//! `serde_json` reading the whole frame into a `Value`, the generated validator, and the
//! generated types' `Deserialize`.

use proptest::prelude::*;
use serde_json::value::RawValue;
use serde_json::Value;

use super::scan::scan;
use super::{decode_call, decode_modern_call, ModernCall};
use crate::generated::protocol::{validate, CallToolRequestParams, LegacyCallToolRequestParams};
use crate::jsonrpc::params_index::ParamsIndex;
use crate::jsonrpc::{
    parse_frame_indexed, parse_message, to_value, BatchPolicy, ErrorObject, Frame, Message,
};
use crate::mcp::answer_bound::tool_name;
use crate::mcp::era::PROTOCOL_VERSION_KEY;
use crate::mcp::params::{decode_validated, validate as run_validator};

/// A JSON string literal of `text`, with some characters written as `\u` escapes (`escape`
/// picks which: every `step`-th character, none when 0).
fn string_literal(text: &str, step: usize) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for (i, c) in text.chars().enumerate() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if step > 0 && i % step == 0 && (c as u32) < 0x10000 => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An object's text from members already written (repeats kept as written).
fn object(members: &[(String, String)]) -> String {
    let inner: Vec<String> = members
        .iter()
        .map(|(key, value)| format!("{key}:{value}"))
        .collect();
    format!("{{{}}}", inner.join(","))
}

/// A member name, sometimes escaped.
fn key(name: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just(string_literal(name, 0)),
        1 => Just(string_literal(name, 2)),
    ]
}

/// Text long enough for the long-frame check and `memchr`, sometimes with an escape.
fn huge_text() -> impl Strategy<Value = String> {
    (0_usize..3).prop_map(|kind| {
        let mut text = "x".repeat(70_000);
        match kind {
            0 => string_literal(&text, 0),
            1 => {
                text.insert(40_000, '"');
                string_literal(&text, 0)
            }
            _ => {
                text.insert_str(100, "é\u{1F600}");
                string_literal(&text, 0)
            }
        }
    })
}

/// A JSON value's text: scalars, strings with escapes, objects with repeated keys, and now
/// and then a long string or deep nesting.
fn value_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        Just("1.5e3".to_owned()),
        Just("-0".to_owned()),
        ("\\PC{0,12}", 0_usize..4).prop_map(|(text, step)| string_literal(&text, step)),
    ];
    let tree = leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec(
                (prop_oneof![Just("a"), Just("b"), Just("text")], inner),
                0..4
            )
            .prop_map(|members| object(
                &members
                    .into_iter()
                    .map(|(k, v)| (string_literal(k, 0), v))
                    .collect::<Vec<_>>()
            )),
        ]
    });
    prop_oneof![
        8 => tree,
        1 => huge_text(),
        1 => (1_usize..100).prop_map(|depth| format!("{}1{}", "[".repeat(depth), "]".repeat(depth))),
    ]
}

/// The arguments: usually an object (with repeated keys now and then), sometimes not.
fn arguments() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(
            (prop_oneof![Just("text"), Just("n"), Just("deep")], value_text()),
            0..4
        )
        .prop_map(|members| object(
            &members
                .into_iter()
                .map(|(k, v)| (string_literal(k, 0), v))
                .collect::<Vec<_>>()
        )),
        1 => value_text(),
    ]
}

/// A 2026-07-28 `_meta`: usually valid, its members in any order, some repeated or wrong.
fn meta() -> impl Strategy<Value = String> {
    let member = prop_oneof![
        (
            key(PROTOCOL_VERSION_KEY),
            prop_oneof![
                4 => Just(r#""2026-07-28""#.to_owned()),
                1 => Just("7".to_owned()),
            ]
        ),
        (
            key("io.modelcontextprotocol/clientCapabilities"),
            prop_oneof![
                Just("{}".to_owned()),
                Just(r#"{"sampling":{},"elicitation":{"url":{}}}"#.to_owned()),
                Just(
                    r#"{"roots":{"listChanged":true},"experimental":{"x":{"y":1}},"z":[1]}"#
                        .to_owned()
                ),
                Just(r#"{"sampling":null}"#.to_owned()),
                Just("3".to_owned()),
            ]
        ),
        (
            key("io.modelcontextprotocol/clientInfo"),
            prop_oneof![
                Just(r#"{"name":"c","version":"1"}"#.to_owned()),
                Just(r#"{"name":"c"}"#.to_owned()),
            ]
        ),
        (
            key("io.modelcontextprotocol/logLevel"),
            prop_oneof![
                Just(r#""debug""#.to_owned()),
                Just(r#""warning""#.to_owned()),
                Just(r#""loud""#.to_owned()),
            ]
        ),
        (
            key("progressToken"),
            prop_oneof![
                Just("7".to_owned()),
                Just("-3".to_owned()),
                Just("1.0".to_owned()),
                Just("18446744073709551615".to_owned()),
                ("\\PC{0,6}", 0_usize..3).prop_map(|(t, step)| string_literal(&t, step)),
                Just("null".to_owned()),
            ]
        ),
        (key("other"), value_text()),
    ];
    (
        prop::collection::vec(member, 0..4),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(mut members, version, capabilities)| {
            // Usually the two required members, somewhere among the others.
            if version {
                members.insert(
                    0,
                    (
                        string_literal(PROTOCOL_VERSION_KEY, 0),
                        r#""2026-07-28""#.to_owned(),
                    ),
                );
            }
            if capabilities {
                let at = members.len() / 2;
                members.insert(
                    at,
                    (
                        string_literal("io.modelcontextprotocol/clientCapabilities", 0),
                        "{}".to_owned(),
                    ),
                );
            }
            object(&members)
        })
}

/// The params of a `tools/call`: members in any order, some repeated.
fn params() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        4 => Just(r#""echo""#.to_owned()),
        1 => Just(r#""ec\u0068o""#.to_owned()),
        1 => Just(r#""a\"b""#.to_owned()),
        1 => Just("7".to_owned()),
    ];
    let member = prop_oneof![
        3 => (key("name"), name),
        3 => (key("arguments"), arguments()),
        3 => (key("_meta"), meta()),
        1 => (key("inputResponses"), value_text()),
        1 => (key("requestState"), value_text()),
        1 => (key("other"), value_text()),
    ];
    prop::collection::vec(member, 0..6).prop_map(|members| object(&members))
}

/// Equal values, or equal errors.
fn same<T: PartialEq + std::fmt::Debug>(
    one_pass: Result<T, ErrorObject<'static>>,
    full: Result<T, ErrorObject<'static>>,
) -> Result<(), TestCaseError> {
    match (one_pass, full) {
        (Ok(one_pass), Ok(full)) => prop_assert_eq!(one_pass, full),
        (Err(one_pass), Err(full)) => {
            prop_assert_eq!(one_pass.code, full.code);
            prop_assert_eq!(one_pass.message, full.message);
            let text = |data: Option<std::borrow::Cow<'_, serde_json::value::RawValue>>| {
                data.map(|data| data.get().to_owned())
            };
            prop_assert_eq!(text(one_pass.data), text(full.data));
        }
        (one_pass, full) => prop_assert!(false, "one pass {one_pass:?}, full {full:?}"),
    }
    Ok(())
}

/// Whether the params hold at most one `name` member (a `serde` derive refuses a repeated
/// field).
fn name_written_once(params: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Named {
        #[serde(default, rename = "name")]
        _name: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Named>(params).is_ok()
}

/// The params of `frame` as the server's frame check reads them, and the index of their
/// members it records; `None` when it records none.
fn indexed(frame: &str) -> Option<(Box<RawValue>, Box<ParamsIndex>)> {
    match parse_frame_indexed(frame.as_bytes(), BatchPolicy::Reject, 128) {
        (Frame::Single(Ok(Message::Request(request))), Some(index)) => {
            Some((request.params?.into_owned(), index))
        }
        _ => None,
    }
}

/// The scan of `params` by a walk and by the index the frame check records (both `None`
/// when either is).
fn scan_both(params: &str) -> Option<[ModernCall<'static>; 2]> {
    /// The call with its name owned.
    fn owned(call: ModernCall<'_>) -> ModernCall<'static> {
        ModernCall {
            name: call.name.into_owned().into(),
            arguments: call.arguments,
            capabilities: call.capabilities,
            log_level: call.log_level,
            progress_token: call.progress_token,
            extra: call.extra,
        }
    }
    let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
    let (raw, index) = indexed(&frame)?;
    let walked = scan(raw.get(), None)?;
    let by_index = scan(raw.get(), Some(&index))?;
    assert_eq!(walked.version, by_index.version);
    Some([owned(walked.call), owned(by_index.call)])
}

fn agree(params: &str) -> Result<(), TestCaseError> {
    let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
    // The full parse: the whole frame into a `Value`.
    let whole: Value = match serde_json::from_str(&frame) {
        Ok(whole) => whole,
        // Text serde_json refuses (a lone surrogate): the frame parse refuses it too, or
        // the params do not read.
        Err(_) => return Ok(()),
    };
    let full_params = whole.get("params").cloned();
    // The one pass: the server's path.
    let Ok(Message::Request(request)) = parse_message(frame.as_bytes()) else {
        prop_assert!(false, "a frame serde_json reads was refused");
        unreachable!()
    };
    let raw = request.params.as_deref().expect("params are present");
    // The tool the call runs: the `name` the params' `Value` keeps. When `name` is written
    // once, the raw reading finds it wherever it is; when it repeats, the raw reading takes
    // one of the names written (the first when it opens the params, as it always has).
    let called = full_params
        .as_ref()
        .and_then(|params| params.get("name"))
        .and_then(Value::as_str);
    let name = tool_name(raw);
    if name_written_once(params) {
        prop_assert_eq!(name.as_deref(), called);
    }
    let Ok(read) = to_value(raw) else {
        prop_assert!(
            full_params.is_none(),
            "params serde_json reads were refused"
        );
        return Ok(());
    };
    prop_assert_eq!(Some(&read), full_params.as_ref());
    let version = |params: &Value| {
        params
            .get("_meta")
            .and_then(|meta| meta.get(PROTOCOL_VERSION_KEY))
            .cloned()
    };
    prop_assert_eq!(version(&read), full_params.as_ref().and_then(version));
    // The text scan, the server's path for a 2026-07-28 call of the usual shape, by a walk
    // of the params and by the index the frame's check records on stdio: when either reads
    // the call, it is the call and the version the `Value` path reads.
    let indexed = indexed(&frame);
    if let Some((indexed_raw, _)) = &indexed {
        prop_assert_eq!(indexed_raw.get(), raw.get());
    }
    let scans = [
        scan(raw.get(), None),
        indexed
            .as_ref()
            .and_then(|(raw, index)| scan(raw.get(), Some(index))),
    ];
    for scanned in scans.into_iter().flatten() {
        let by_value = decode_modern_call(
            "tools/call",
            Some(read.clone()),
            validate::call_tool_request_params,
        );
        prop_assert!(
            by_value.as_ref().is_ok_and(|call| *call == scanned.call),
            "scanned {:?}, by value {:?}",
            scanned.call,
            by_value
        );
        prop_assert_eq!(
            Some(Value::String(scanned.version.to_owned())),
            version(&read)
        );
    }
    // Modern: the hand path against the generated type's `Deserialize`.
    let full_modern = full_params.clone().map_or_else(
        || decode_call("tools/call", None, validate::call_tool_request_params),
        |value| {
            run_validator("tools/call", &value, validate::call_tool_request_params)?;
            decode_validated::<CallToolRequestParams>("tools/call", value)
        },
    );
    same(
        decode_modern_call(
            "tools/call",
            Some(read.clone()),
            validate::call_tool_request_params,
        ),
        full_modern.map(ModernCall::from_typed),
    )?;
    // Legacy: the same params read in that era.
    let full_legacy = full_params.map_or_else(
        || {
            decode_call(
                "tools/call",
                None,
                validate::legacy_call_tool_request_params,
            )
        },
        |value| {
            run_validator(
                "tools/call",
                &value,
                validate::legacy_call_tool_request_params,
            )?;
            decode_validated::<LegacyCallToolRequestParams>("tools/call", value)
        },
    );
    same(
        decode_call(
            "tools/call",
            Some(read),
            validate::legacy_call_tool_request_params,
        ),
        full_legacy,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_one_pass_reader_agrees_with_a_full_parse(params in params()) {
        agree(&params)?;
    }

    #[test]
    fn the_text_scan_agrees_with_a_full_parse(params in usual_params(), spaces in any::<bool>()) {
        if spaces {
            agree(&spaced(&params))?;
        } else {
            agree(&params)?;
        }
    }
}

/// `json` with whitespace after every `{`, `[`, `,` and `:` outside strings, and before
/// every `}` (the text scan's walk steps over it as the full parse does).
fn spaced(json: &str) -> String {
    let mut out = String::with_capacity(json.len() * 2);
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if !in_string && c == '}' {
            out.push_str("\n ");
        }
        out.push(c);
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if matches!(c, '{' | '[' | ',' | ':') {
            out.push(' ');
        }
    }
    out
}

/// Params close to the shape clients write (what the text scan reads): the three members in
/// any order, sometimes another one, `_meta`'s members in any order, now and then a value
/// the scan leaves to the `Value` path.
fn usual_params() -> impl Strategy<Value = String> {
    let meta_member = prop_oneof![
        (
            key("io.modelcontextprotocol/clientInfo"),
            prop_oneof![
                4 => Just(r#"{"name":"c","version":"1"}"#.to_owned()),
                1 => Just(r#"{"title":"T","version":"1","name":"c","description":"d"}"#.to_owned()),
                1 => Just(r#"{"name":"c"}"#.to_owned()),
                1 => Just(r#"{"name":"c","version":1}"#.to_owned()),
                1 => Just(r#"{"name":"\u0063","version":"1"}"#.to_owned()),
                1 => Just(r#"{"name":"c","version":"1","icons":[]}"#.to_owned()),
            ]
        ),
        (
            key("io.modelcontextprotocol/logLevel"),
            prop_oneof![Just(r#""debug""#.to_owned()), Just(r#""loud""#.to_owned())]
        ),
        (
            key("progressToken"),
            prop_oneof![
                Just("7".to_owned()),
                Just("-0".to_owned()),
                Just("2.0".to_owned()),
                Just("1e2".to_owned()),
                Just("9223372036854775808".to_owned()),
                ("\\PC{0,6}", 0_usize..3).prop_map(|(t, step)| string_literal(&t, step)),
            ]
        ),
    ];
    let capabilities = prop_oneof![
        4 => Just("{}".to_owned()),
        1 => Just(r#"{"sampling":{},"elicitation":{"url":{}}}"#.to_owned()),
        1 => Just(r#"{"sampling":null}"#.to_owned()),
        1 => Just("[]".to_owned()),
    ];
    let version = prop_oneof![
        4 => Just(r#""2026-07-28""#.to_owned()),
        1 => Just(r#""2026-07-2\u0038""#.to_owned()),
        1 => Just(r#""1999-01-01""#.to_owned()),
    ];
    let meta = (
        prop::collection::vec(meta_member, 0..3),
        capabilities,
        version,
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(mut members, capabilities, version, at, at_too)| {
            let key = |name: &str| string_literal(name, 0);
            members.insert(
                at.index(members.len() + 1),
                (key(PROTOCOL_VERSION_KEY), version),
            );
            let place = at_too.index(members.len() + 1);
            members.insert(
                place,
                (
                    key("io.modelcontextprotocol/clientCapabilities"),
                    capabilities,
                ),
            );
            object(&members)
        });
    let name = prop_oneof![
        4 => Just(r#""echo""#.to_owned()),
        1 => Just(r#""ec\u0068o""#.to_owned()),
        1 => Just(r#""\ud800""#.to_owned()),
    ];
    let other = prop_oneof![
        (key("inputResponses"), value_text()),
        (key("requestState"), value_text()),
        (key("_meta"), Just("{}".to_owned())),
    ];
    (
        (key("name"), name),
        (key("arguments"), arguments()),
        (key("_meta"), meta),
        prop::option::weighted(0.3, other),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(name, arguments, meta, other, order)| {
            let mut members = vec![meta, arguments, name];
            members.rotate_left(order.index(3));
            if let Some(other) = other {
                members.insert(order.index(4), other);
            }
            object(&members)
        })
}

#[test]
fn a_client_written_call_takes_the_hand_path() {
    let params = concat!(
        r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"#,
        r#""io.modelcontextprotocol/logLevel":"debug","#,
        r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"p"},"#,
        r#""arguments":{"text":"hi"},"inputResponses":{},"name":"echo"}"#
    );
    let value: Value = serde_json::from_str(params).unwrap();
    let call = super::take_apart(value).expect("the usual shape");
    assert_eq!(call.name, "echo");
    assert_eq!(call.capabilities, serde_json::json!({"sampling": {}}));
    assert_eq!(
        call.progress_token,
        Some(crate::generated::protocol::ProgressToken::String(
            "p".to_owned()
        ))
    );
    assert!(call.log_level.is_some());
    assert!(call.extra.contains_key("inputResponses"));
    agree(params).unwrap();
    let scanned = scan(params, None).expect("the usual shape is scanned");
    assert_eq!(scanned.version, "2026-07-28");
    assert_eq!(scanned.call, call);
    let [walked, by_index] = scan_both(params).expect("scanned by a walk and by the index");
    assert_eq!(walked, call);
    assert_eq!(by_index, call);
    let spaced = spaced(params);
    assert_ne!(spaced, params);
    agree(&spaced).unwrap();
    let scanned = scan(&spaced, None).expect("whitespace between tokens is stepped over");
    assert_eq!(scanned.call, call);
    let [walked, by_index] = scan_both(&spaced).expect("scanned by a walk and by the index");
    assert_eq!(walked, call);
    assert_eq!(by_index, call);
    // The bench's request, as typed-mcp's client writes it.
    let bench = concat!(
        r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"typed-mcp-bench","version":"0.1.0"},"#,
        r#""io.modelcontextprotocol/protocolVersion":"2026-07-28"},"#,
        r#""arguments":{"text":"xxxxxxxxxxxxxxxx"},"name":"echo"}"#
    );
    agree(bench).unwrap();
    let [walked, by_index] = scan_both(bench).expect("the bench's call is scanned");
    assert_eq!(walked, by_index);
    assert_eq!(by_index.name, "echo");
    assert_eq!(by_index.capabilities, serde_json::json!({}));
}
