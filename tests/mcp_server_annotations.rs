//! Tool annotations (`ToolDefinition::annotations`) as `tools/list` publishes them: the built
//! conformance fixture server (`examples/conformance_server.rs`) over stdio pipes, in both
//! eras, for its annotated tools `test_simple_text` and `test_error_handling`; a tool without
//! annotations publishes none.

mod example_support;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

/// The fixture server, built with this test's profile.
fn conformance_server() -> PathBuf {
    example_support::build_example("conformance_server")
}

/// Writes `messages` as lines to the server's stdin, closes it and returns the stdout lines.
fn exchange(messages: &[Value]) -> Vec<Value> {
    let mut child = Command::new(conformance_server())
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the fixture server starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    for message in messages {
        writeln!(stdin, "{message}").expect("write stdin");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("the fixture server ends");
    assert!(output.status.success(), "exit status {:?}", output.status);
    String::from_utf8(output.stdout)
        .expect("UTF-8 stdout")
        .lines()
        .map(|line| serde_json::from_str(line).expect("stdout carries JSON lines only"))
        .collect()
}

/// The published tools of the `tools/list` answer (id 1) among `lines`, by name.
fn tools(lines: &[Value]) -> Vec<Value> {
    let answer = lines
        .iter()
        .find(|line| line["id"] == 1)
        .expect("the tools/list answer");
    answer["result"]["tools"]
        .as_array()
        .expect("a list of tools")
        .clone()
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} is listed on the first page"))
}

fn assert_annotations(tools: &[Value]) {
    assert_eq!(
        tool(tools, "test_simple_text")["annotations"],
        json!({
            "title": "Simple text",
            "readOnlyHint": true,
            "idempotentHint": true,
            "openWorldHint": false
        })
    );
    assert_eq!(
        tool(tools, "test_error_handling")["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    assert!(tool(tools, "test_tool_with_progress")
        .get("annotations")
        .is_none());
}

#[test]
fn tools_list_publishes_annotations_in_2025() {
    let lines = exchange(&[
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "annotations-test", "version": "1"}
        }}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ]);
    assert_annotations(&tools(&lines));
}

#[test]
fn tools_list_publishes_annotations_in_2026() {
    let lines = exchange(&[
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "annotations-test", "version": "1"}
            }
        }}),
    ]);
    let answer = lines.iter().find(|line| line["id"] == 1).unwrap();
    assert_eq!(answer["result"]["resultType"], "complete");
    assert_annotations(&tools(&lines));
}
