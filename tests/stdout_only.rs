//! Runs the `echo_server` example with trace logging and checks that stdout carries JSON-RPC
//! lines only, one per expected answer, while logs go to stderr.

mod echo_support;

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

struct Run {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs the echo server with `args`, feeding `input` and closing stdin.
fn run_echo(args: &[&str], input: Vec<u8>) -> Run {
    let mut child = Command::new(echo_support::echo_server())
        .args(args)
        .env("RUST_LOG", "trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("echo binary starts");
    let mut stdin = child.stdin.take().unwrap();
    // Write from another thread so a full stdout pipe cannot deadlock us.
    let feeder = std::thread::spawn(move || {
        stdin.write_all(&input).unwrap();
    });
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert!(output.status.success(), "exit status {:?}", output.status);
    Run {
        stdout: output.stdout,
        stderr: output.stderr,
    }
}

/// Every stdout line, parsed; fails if any line is not a JSON-RPC message (or batch of them).
fn protocol_lines(stdout: &[u8]) -> Vec<Value> {
    assert!(
        stdout.is_empty() || stdout.ends_with(b"\n"),
        "stdout ends mid-line"
    );
    stdout
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            let value: Value = serde_json::from_slice(line).unwrap_or_else(|_| {
                panic!("non-JSON on stdout: {}", String::from_utf8_lossy(line))
            });
            let messages = match &value {
                Value::Array(items) => items.clone(),
                _ => vec![value.clone()],
            };
            for message in &messages {
                assert!(message.is_object(), "not an object: {message}");
                assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC: {message}");
            }
            value
        })
        .collect()
}

#[test]
fn stdout_holds_only_json_rpc_lines() {
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    input.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"id\":\"e\",\"method\":\"echo\",\"params\":{\"s\":\"a\\nb\"}}\r\n",
    );
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    input.extend_from_slice(b"\n   \n");
    input.extend_from_slice(b"{not json\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"\xff\"}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":7}\n");
    input.extend_from_slice(&[b'x'; 5000]);
    input.extend_from_slice(b"\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"nope\"}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n");
    input.extend_from_slice(b"[{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}]\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}");

    let run = run_echo(&["--max-line-bytes", "1024"], input);
    let lines = protocol_lines(&run.stdout);
    // Requests run concurrently, so answers may come in any order: compare as multisets.
    let mut summary: Vec<(Value, Value)> = lines
        .iter()
        .map(|line| (line["id"].clone(), line["error"]["code"].clone()))
        .collect();
    let mut expected = vec![
        (json!(1), Value::Null),
        (json!("e"), Value::Null),
        (Value::Null, json!(-32700)),
        (Value::Null, json!(-32700)),
        (json!(4), json!(-32600)),
        (Value::Null, json!(-32600)),
        (json!(9007199254740993u64), json!(-32601)),
        (Value::Null, json!(-32600)),
        (json!("last"), Value::Null),
    ];
    let by_text = |a: &(Value, Value), b: &(Value, Value)| format!("{a:?}").cmp(&format!("{b:?}"));
    summary.sort_by(by_text);
    expected.sort_by(by_text);
    assert_eq!(summary, expected);
    let echo = lines.iter().find(|line| line["id"] == "e").unwrap();
    assert_eq!(echo["result"], json!({"s": "a\nb"}));
    // How much of the line had arrived when it was reported depends on the pipe's timing.
    let oversize: Vec<&Value> = lines
        .iter()
        .filter(|line| !line["error"]["data"].is_null())
        .collect();
    assert_eq!(
        oversize.len(),
        1,
        "one answer carries data: the oversize line"
    );
    let data = &oversize[0]["error"]["data"];
    assert_eq!(data["limit"], 1024);
    let actual = data["actualAtLeast"].as_u64().unwrap();
    assert!((1025..=5000).contains(&actual), "actualAtLeast {actual}");
    // The big id was echoed as written, not through a float.
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(text.contains(r#""id":9007199254740993,"#));
    assert!(!run.stderr.is_empty(), "trace logs go to stderr");
    assert!(String::from_utf8_lossy(&run.stderr).contains("TRACE"));
}

#[test]
fn batches_when_the_protocol_version_allows_them() {
    let input = concat!(
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"method":"echo","params":[1]}]"#,
        "\n",
        r#"[{"jsonrpc":"2.0","method":"n"}]"#,
        "\n[]\n",
    );
    let run = run_echo(
        &["--protocol-version", "2025-03-26"],
        input.as_bytes().to_vec(),
    );
    let mut lines = protocol_lines(&run.stdout);
    assert_eq!(lines.len(), 2, "a batch of notifications gets no answer");
    // The batch runs on its own task, so `[]`'s error may be written first.
    lines.sort_by_key(|line| !line.is_array());
    assert_eq!(
        lines[0],
        json!([
            {"jsonrpc": "2.0", "id": 1, "result": {}},
            {"jsonrpc": "2.0", "id": 2, "result": [1]},
        ])
    );
    assert_eq!(lines[1]["id"], Value::Null);
    assert_eq!(lines[1]["error"]["code"], -32600);
}

#[test]
fn empty_input_gives_empty_stdout() {
    let run = run_echo(&[], Vec::new());
    assert!(run.stdout.is_empty());
    assert!(!run.stderr.is_empty());
}
