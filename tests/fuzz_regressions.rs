//! Inputs the fuzz targets (`fuzz/`) stopped on, kept as tests (issue 13). Each was a false
//! alarm of the target, not a bug of the library; the tests pin the behaviour the target
//! was corrected to expect. The inputs also stay in `fuzz/corpus/*/regression-*`.

use serde_json::{json, Value};
use typed_mcp::generated::mcp::protocol;
use typed_mcp::jsonrpc::{parse_message, Message};

fn round_trip(frame: &[u8]) -> (String, String) {
    let Message::Request(request) = parse_message(frame).expect("the frame parses") else {
        panic!("a request")
    };
    let original = request.params.as_ref().expect("params").get().to_owned();
    let line = Message::Request(request).to_line();
    let Message::Request(again) = parse_message(&line[..line.len() - 1]).expect("it re-parses")
    else {
        panic!("still a request")
    };
    (original, again.params.expect("params").get().to_owned())
}

/// jsonrpc_envelope: whitespace inside `params` may be dropped by the encoder; the value is
/// the same.
#[test]
fn params_whitespace_may_change_but_not_the_value() {
    let frame =
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"text\":\t\r\t \"hi\"}}";
    let (before, after) = round_trip(frame);
    let parse = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    assert_eq!(parse(&before), parse(&after));
    assert!(!after.contains('\n'));
}

/// jsonrpc_envelope: a number beyond `f64` (valid JSON) is carried through, digit for digit.
#[test]
fn numbers_beyond_f64_survive_the_envelope() {
    let frame = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"lw\",\"params\":{\"a\":{\n\n \"id\":105e3888\t }}}";
    let (before, after) = round_trip(frame);
    assert!(before.contains("105e3888"));
    assert!(after.contains("105e3888"), "{after}");
}

/// validators_differential: `format: byte` is canonical padded base64, as the `base64`
/// crate's standard engine decodes it.
#[test]
fn byte_format_is_canonical_padded_base64() {
    let image = |data: &str| json!({"type": "image", "data": data, "mimeType": "image/png"});
    assert!(protocol::validate::content_block(&image("AAAA")).is_ok());
    assert!(protocol::validate::content_block(&image("AAAAe")).is_err());
    assert!(protocol::validate::content_block(&image("AA==")).is_ok());
    assert!(protocol::validate::content_block(&image("AB==")).is_err());
}
