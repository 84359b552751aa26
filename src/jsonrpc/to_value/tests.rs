use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::jsonrpc::encode::WORD_SCAN;
use crate::jsonrpc::test_strategies::json_value;

/// `to_value` and `serde_json` on the same text: both values, or both errors with the same
/// message.
fn assert_as_serde(text: &str) {
    let raw = RawValue::from_string(text.to_owned()).expect("test texts are RawValues");
    let serde = serde_json::from_str::<Value>(text).map_err(|error| error.to_string());
    // The reader itself, whatever the length, and `to_value` with its short-text bypass.
    let read = read(raw.get()).map_err(|error| error.to_string());
    assert_eq!(read, serde, "{text:?}");
    let ours = to_value(&raw).map_err(|error| error.to_string());
    assert_eq!(ours, serde, "{text:?}");
}

proptest! {
    #[test]
    fn any_value_written_compact_or_pretty_reads_back_as_serde_json_reads_it(
        value in json_value(),
    ) {
        assert_as_serde(&serde_json::to_string(&value).unwrap());
        assert_as_serde(&serde_json::to_string_pretty(&value).unwrap());
    }

    /// Escapes written by hand (`\u` forms, pairs, lone surrogates), not by serde_json.
    #[test]
    fn hand_written_escapes_read_as_serde_json_reads_them(
        parts in prop::collection::vec(
            prop::sample::select(vec![
                "a", "\\\"", "\\\\", "\\/", "\\b\\f\\n\\r\\t", "\\u00e9", "\\uD83E\\uDD80",
                "\\ud800", "\\udc00", "\\ud800x", "\\u0000",
            ]),
            0..8,
        ),
        padding in 0usize..40,
    ) {
        let string = format!("\"{}{}\"", "p".repeat(padding), parts.concat());
        assert_as_serde(&string);
        assert_as_serde(&format!("{{{string}:[{string},1]}}"));
    }
}

#[test]
fn numbers_read_as_serde_json_reads_them() {
    for number in [
        "0",
        "-0",
        "-0.0",
        "1e3",
        "1E+3",
        "2.5e-3",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "1e400",
        "-1e400",
        "0.1",
        "123456789012345678901234567890",
    ] {
        assert_as_serde(number);
        assert_as_serde(&format!("[{number}, {{\"n\": {number}}}]"));
    }
}

#[test]
fn a_repeated_member_keeps_its_last_value_as_in_serde_json() {
    assert_as_serde(r#"{"a":1,"b":2,"a":3}"#);
    assert_eq!(
        read(r#"{"a":1,"a":{"b":[]}}"#).unwrap(),
        json!({"a": {"b": []}})
    );
}

#[test]
fn nesting_past_the_readers_own_depth_goes_to_serde_json_whose_limit_then_applies() {
    for depth in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 126, 127] {
        let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        assert_as_serde(&text);
        let text = format!("{}{{}}{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        assert_as_serde(&text);
    }
}

#[test]
fn long_strings_are_copied_whole_and_escapes_past_the_byte_loop_are_read() {
    let long = "x".repeat(65_536);
    let text = format!(r#"{{"name":"echo","arguments":{{"text":"{long}"}}}}"#);
    let raw = RawValue::from_string(text.clone()).unwrap();
    let value = to_value(&raw).unwrap();
    assert_eq!(value["arguments"]["text"].as_str(), Some(long.as_str()));
    assert_as_serde(&text);
    for at in [0, 1, 7, 8, 9, WORD_SCAN - 1, WORD_SCAN, WORD_SCAN + 1, 1000] {
        let escaped = format!("\"{}\\n{}\"", "y".repeat(at), "z".repeat(50));
        assert_as_serde(&escaped);
        let expected = format!("{}\n{}", "y".repeat(at), "z".repeat(50));
        assert_eq!(read(&escaped).unwrap(), Value::String(expected));
    }
}

#[test]
fn whitespace_anywhere_between_tokens_is_skipped() {
    assert_as_serde(" \t\r\n{ \"a\" :\t[ 1 ,\n2 , { } , [ ] , true , false , null ] } \n");
    assert_as_serde("[]");
    assert_as_serde("{}");
    assert_as_serde("\"\"");
}
