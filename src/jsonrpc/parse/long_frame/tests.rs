use proptest::prelude::*;
use serde_json::{json, Value};

use super::super::serde_envelope;
use super::*;
use crate::jsonrpc::test_strategies::json_value;
use crate::jsonrpc::Message;

/// The message (or error) `text` gives through this module, when it reads it. Every
/// `params` and `result` is taken from the checker's text, whatever its length, so that
/// `serde_json` never checks a member after the checker.
fn ours(text: &str) -> Option<String> {
    read(text, 0, MAX_DEPTH).map(|envelope| format!("{:?}", envelope.classify()))
}

/// The message (or error) `text` gives through `serde_json`'s envelope parse.
fn serde(text: &str) -> Result<String, String> {
    serde_envelope(text)
        .map(|envelope| format!("{:?}", envelope.classify()))
        .map_err(|error| format!("{error:?}"))
}

/// The module's promise: it reads a frame only as `serde_json` does, and reads every frame
/// `serde_json` accepts unless a member name needs decoding.
fn assert_agrees(text: &str) {
    match (ours(text), serde(text)) {
        (Some(ours), Ok(serde)) => assert_eq!(ours, serde, "{text:?}"),
        (Some(ours), Err(error)) => panic!("read {text:?} as {ours}; serde_json: {error}"),
        (None, Ok(serde)) => assert!(
            text.contains('\\'),
            "left {text:?} to serde_json, which read it as {serde}"
        ),
        (None, Err(_)) => {}
    }
}

/// A frame: protocol members (some left out, some of the wrong type) and other members.
fn frame() -> impl Strategy<Value = Value> {
    let member = |name: &'static str| (Just(name), prop::option::of(json_value()));
    (
        member("jsonrpc"),
        member("id"),
        member("method"),
        member("params"),
        member("result"),
        member("error"),
        prop::collection::btree_map("[a-z]{1,8}", json_value(), 0..3),
        any::<bool>(),
    )
        .prop_map(|(a, b, c, d, e, f, others, usual)| {
            let mut object = serde_json::Map::new();
            if usual {
                object.insert("jsonrpc".into(), json!("2.0"));
                object.insert("id".into(), json!(7));
                object.insert("method".into(), json!("tools/call"));
            }
            for (name, value) in [a, b, c, d, e, f] {
                if let Some(value) = value {
                    object.insert(name.into(), value);
                }
            }
            object.extend(others);
            Value::Object(object)
        })
}

/// One edit of a frame: a byte put in, taken out or replaced (ASCII only, so the text stays
/// UTF-8), from an alphabet of JSON's own characters.
fn mutated(text: &str, at: usize, edit: u8, byte: u8) -> String {
    const ALPHABET: &[u8] = b"{}[]:,\"\\ 0123456789-+.eEtrufalsn\t\nxu/";
    let mut bytes = text.as_bytes().to_vec();
    let at = at % (bytes.len() + 1);
    let byte = ALPHABET[usize::from(byte) % ALPHABET.len()];
    match edit % 3 {
        0 => bytes.insert(at, byte),
        1 if at < bytes.len() => {
            bytes.remove(at);
        }
        _ if at < bytes.len() => bytes[at] = byte,
        _ => bytes.push(byte),
    }
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())
}

proptest! {
    #[test]
    fn frames_written_compact_or_pretty_read_as_serde_json_reads_them(frame in frame()) {
        for text in [
            serde_json::to_string(&frame).unwrap(),
            serde_json::to_string_pretty(&frame).unwrap(),
        ] {
            prop_assert!(
                ours(&text).is_some() || text.contains('\\'),
                "left a plain frame to serde_json: {}", text
            );
            assert_agrees(&text);
        }
    }

    #[test]
    fn edited_frames_are_read_only_as_serde_json_reads_them(
        frame in frame(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..4),
    ) {
        let mut text = serde_json::to_string(&frame).unwrap();
        for (at, edit, byte) in edits {
            text = mutated(&text, at, edit, byte);
        }
        assert_agrees(&text);
    }

    #[test]
    fn numbers_are_checked_as_serde_json_checks_them(
        number in "-?(0|[1-9][0-9]{0,3}|0[0-9]|)(\\.[0-9]{0,2})?([eE][+-]?[0-9]{0,2})?[0-9a-z.+-]?"
    ) {
        assert_agrees(&format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":[{number}]}}"#));
        assert_agrees(&format!(r#"{{"id":{number},"params":{{"n":{number}}}}}"#));
    }
}

#[test]
fn escapes_in_strings_and_names_are_checked_as_serde_json_checks_them() {
    for escape in [
        r#"\""#,
        r"\\",
        r"\/",
        r"\b",
        r"\f",
        r"\n",
        r"\r",
        r"\t",
        r"\u00e9",
        r"\uD83E\uDD80",
        r"\ud800",
        r"\u12",
        r"\u12g4",
        r"\x",
        r"\'",
        r"\",
        "\u{1}",
        "\u{1f}",
        "\u{7f}",
    ] {
        let padding = "p".repeat(70);
        assert_agrees(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"t":"{padding}{escape}{padding}"}}}}"#
        ));
        assert_agrees(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","{escape}":1}}"#
        ));
        assert_agrees(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m{escape}"}}"#
        ));
    }
    // A protocol member's name spelled with an escape is still that member.
    assert_agrees(r#"{"jsonrpc":"2.0","id":1,"method":"m","par\u0061ms":{"a":1}}"#);
}

#[test]
fn repeated_and_misplaced_members_and_trailing_bytes_are_judged_as_serde_json_judges_them() {
    for text in [
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{},"params":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","x":1,"x":2}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m",}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m"}  "#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1,]}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1 2]}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a" 1}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{1:1}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":truex}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":nul}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#,
        r#"{}"#,
        r#"{"#,
        r#" { "jsonrpc" : "2.0" , "id" : 1 , "method" : "m" } "#,
    ] {
        assert_agrees(text);
    }
}

#[test]
fn nesting_past_the_checkers_depth_is_left_to_serde_json() {
    let deep = |depth: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{}1{}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    assert!(ours(&deep(MAX_DEPTH)).is_some());
    assert!(ours(&deep(MAX_DEPTH + 1)).is_none());
    assert!(
        serde(&deep(MAX_DEPTH + 1)).is_ok(),
        "serde_json skips any depth"
    );
}

#[test]
fn a_long_frame_owns_its_long_params_and_reads_as_before() {
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
        "x".repeat(65_536)
    );
    assert!(text.len() >= LONG_FRAME);
    assert_agrees(&text);
    let Ok(Message::Request(request)) = crate::jsonrpc::parse_message(text.as_bytes()) else {
        panic!("a request");
    };
    assert!(matches!(request.params, Some(Cow::Owned(_))));
    let params: Value = serde_json::from_str(request.params.unwrap().get()).unwrap();
    assert_eq!(
        params["arguments"]["text"].as_str().map(str::len),
        Some(65_536)
    );
    // A short member of the same frame is still borrowed.
    let short = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":[1],"x":"{}"}}"#,
        "y".repeat(20_000)
    );
    let Ok(Message::Request(request)) = crate::jsonrpc::parse_message(short.as_bytes()) else {
        panic!("a request");
    };
    assert!(matches!(request.params, Some(Cow::Borrowed(_))));
}
