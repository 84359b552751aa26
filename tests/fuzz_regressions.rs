//! Inputs the fuzz targets (`fuzz/`) stopped on, kept as tests (issue 13). Each was a false
//! alarm of the target, not a bug of the library; the tests pin the behaviour the target
//! was corrected to expect. The inputs also stay in `fuzz/corpus/*/regression-*`.

use serde_json::{json, Value};
use typed_mcp::generated::protocol;
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

/// tool_arguments: raw arguments `null` count as no arguments (the handler gets `{}`), as
/// the server reads `"arguments": null`; other non-objects never reach the handler.
#[test]
fn null_arguments_are_no_arguments_and_other_scalars_are_refused() {
    use typed_mcp::tools::ToolRunner;

    let limits = typed_mcp::config::parse_limits("{}").expect("default limits");
    let runner = ToolRunner::new(&limits);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let received_for = |raw: &[u8]| handler_input(&runner, &runtime, raw);
    assert_eq!(received_for(b"null"), Some(json!({})));
    assert_eq!(received_for(br#"{"a":1}"#), Some(json!({"a": 1})));
    for refused in [&b"0"[..], b"\"x\"", b"[]", b"true", b"nul"] {
        assert_eq!(
            received_for(refused),
            None,
            "{:?}",
            String::from_utf8_lossy(refused)
        );
    }
}

/// `regression-shadowed-duplicate-array` (tool_arguments): a member shadowed by a later one
/// of the same name still counts for `maxArraySize`, as the scanner sees the bytes.
#[test]
fn a_shadowed_duplicate_member_still_counts_for_the_array_limit() {
    use typed_mcp::tools::ToolRunner;

    let limits = typed_mcp::config::parse_limits(r#"{"request": {"maxArraySize": 1}}"#)
        .expect("valid limits");
    let runner = ToolRunner::new(&limits);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let received_for = |raw: &[u8]| handler_input(&runner, &runtime, raw);
    assert_eq!(received_for(br#"{"a":[1,2,3],"a":{"c":"\"]"}}"#), None);
    assert_eq!(
        received_for(br#"{"a":[1],"a":{"c":"\"]"}}"#),
        Some(json!({"a": {"c": "\"]"}}))
    );
}

/// What a tool's handler receives when `runner` is called with the raw arguments `raw`
/// (`None`: the handler did not run).
fn handler_input(
    runner: &typed_mcp::tools::ToolRunner,
    runtime: &tokio::runtime::Runtime,
    raw: &[u8],
) -> Option<Value> {
    use std::sync::{Arc, Mutex};
    use typed_mcp::tools::{CallOptions, ToolArguments, ToolEntry, ToolHandler};

    let received: Arc<Mutex<Option<Value>>> = Arc::default();
    let seen = Arc::clone(&received);
    let entry = ToolEntry::new(ToolHandler::from_async(
        move |_context, arguments: Value| {
            *seen.lock().unwrap() = Some(arguments.clone());
            async move { Ok(Value::Null) }
        },
    ));
    let options = CallOptions::with_line_overhead(40);
    let _outcome = runtime.block_on(runner.call("t", &entry, ToolArguments::Raw(raw), options));
    let value = received.lock().unwrap().take();
    value
}
