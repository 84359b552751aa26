//! `examples/notes_server.rs`, run as a real process over stdio: its tools' results, their
//! validation errors, and their structured output checked against the `outputSchema` the
//! server publishes in `tools/list` (by the `jsonschema` crate, an independent validator).

mod example_support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

/// Builds the example with the test's own profile and returns its executable.
fn notes_server() -> PathBuf {
    example_support::build_example("notes_server")
}

/// A running server and the next request id.
struct Session {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(executable: &Path) -> Self {
        let mut child = Command::new(executable)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let input = child.stdin.take();
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        let mut session = Self {
            child,
            input,
            output,
            next_id: 0,
        };
        let init = session.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "notes-test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "notes", "{init}");
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        let input = self.input.as_mut().expect("open");
        writeln!(input, "{message}").expect("write");
        input.flush().expect("flush");
    }

    /// Sends a request and returns its response (the server sends no notifications here).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        self.output.read_line(&mut line).expect("read");
        let response: Value = serde_json::from_str(&line).expect("a JSON line");
        assert_eq!(response["id"], id, "{response}");
        response
    }

    /// `tools/call` of `name`: the `CallToolResult`.
    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        response["result"].clone()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        drop(self.input.take());
        if self.child.wait().is_err() {
            let _killed = self.child.kill();
        }
    }
}

/// The paths of a `VALIDATION_FAILED` result's violations.
fn violation_paths(result: &Value) -> Vec<String> {
    assert_eq!(result["isError"], true, "{result}");
    let error = &result["structuredContent"]["error"];
    assert_eq!(error["code"], "VALIDATION_FAILED", "{result}");
    error["validationErrors"]
        .as_array()
        .unwrap_or_else(|| panic!("violations listed: {result}"))
        .iter()
        .map(|violation| violation["path"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn the_notes_server_adds_searches_and_deletes_with_typed_checked_results() {
    let mut session = Session::start(&notes_server());
    let listed = session.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    let tool = |name: &str| {
        tools
            .iter()
            .find(|tool| tool["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed: {listed}"))
            .clone()
    };
    // The description and schema come from the argument definitions of notes.json.
    let add = tool("add_note");
    assert_eq!(add["description"], "Adds a note and answers its id.");
    assert_eq!(add["inputSchema"]["properties"]["title"]["maxLength"], 200);
    assert_eq!(add["inputSchema"]["properties"]["tags"]["maxItems"], 10);
    let search = tool("search_notes");
    assert_eq!(search["inputSchema"]["properties"]["limit"]["default"], 10);
    let validators: Vec<(String, jsonschema::Validator)> =
        ["add_note", "search_notes", "delete_note"]
            .into_iter()
            .map(|name| {
                let schema = tool(name)["outputSchema"].clone();
                assert!(schema.is_object(), "{name} publishes an outputSchema");
                (
                    name.to_owned(),
                    jsonschema::validator_for(&schema).expect("a valid schema"),
                )
            })
            .collect();
    let check = |name: &str, result: &Value| {
        let (_, validator) = validators
            .iter()
            .find(|(n, _)| n == name)
            .expect("known tool");
        let structured = &result["structuredContent"];
        let errors: Vec<String> = validator
            .iter_errors(structured)
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{name}: {structured} fails its outputSchema: {errors:?}"
        );
    };

    let first = session.call(
        "add_note",
        json!({"title": "Groceries", "body": "milk, bread", "tags": ["home"]}),
    );
    assert_eq!(first["isError"], false, "{first}");
    check("add_note", &first);
    let first_id = first["structuredContent"]["data"]["id"]
        .as_u64()
        .expect("an id");
    let second = session.call(
        "add_note",
        json!({"title": "Work", "body": "call Ada about milk"}),
    );
    check("add_note", &second);
    let second_id = second["structuredContent"]["data"]["id"]
        .as_u64()
        .expect("an id");
    assert_ne!(first_id, second_id);
    let third = session.call(
        "add_note",
        json!({"title": "Reading", "body": "SICP", "tags": ["books"]}),
    );
    check("add_note", &third);

    let found = session.call("search_notes", json!({"query": "MILK"}));
    assert_eq!(found["isError"], false, "{found}");
    check("search_notes", &found);
    let notes = found["structuredContent"]["data"]["notes"]
        .as_array()
        .expect("notes");
    let ids: Vec<u64> = notes
        .iter()
        .filter_map(|note| note["id"].as_u64())
        .collect();
    assert_eq!(ids, [first_id, second_id], "{found}");
    assert_eq!(notes[0]["tags"], json!(["home"]));
    assert_eq!(notes[1]["tags"], json!([]), "absent tags default to none");
    let by_tag = session.call("search_notes", json!({"query": "books", "limit": 1}));
    assert_eq!(
        by_tag["structuredContent"]["data"]["notes"][0]["title"],
        "Reading"
    );
    let limited = session.call("search_notes", json!({"query": "", "limit": 2}));
    check("search_notes", &limited);
    assert_eq!(
        limited["structuredContent"]["data"]["notes"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );

    let deleted = session.call("delete_note", json!({"id": first_id}));
    assert_eq!(deleted["isError"], false, "{deleted}");
    check("delete_note", &deleted);
    assert_eq!(deleted["structuredContent"]["data"]["deleted"], first_id);
    let again = session.call("delete_note", json!({"id": first_id}));
    assert_eq!(again["isError"], true, "{again}");
    assert_eq!(again["structuredContent"]["error"]["code"], "TOOL_FAILED");
    check("delete_note", &again);
    let after = session.call("search_notes", json!({"query": "milk"}));
    let ids: Vec<u64> = after["structuredContent"]["data"]["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(|note| note["id"].as_u64())
        .collect();
    assert_eq!(ids, [second_id]);

    // Validation errors, from the generated validators, before any handler runs.
    let long_title = session.call("add_note", json!({"title": "x".repeat(201), "body": ""}));
    assert_eq!(violation_paths(&long_title), ["/title"], "{long_title}");
    check("add_note", &long_title);
    let tags: Vec<String> = (0..11).map(|n| format!("t{n}")).collect();
    let many_tags = session.call("add_note", json!({"title": "t", "body": "", "tags": tags}));
    assert_eq!(violation_paths(&many_tags), ["/tags"], "{many_tags}");
    let zero = session.call("search_notes", json!({"query": "milk", "limit": 0}));
    assert_eq!(violation_paths(&zero), ["/limit"], "{zero}");
    check("search_notes", &zero);
    let too_many = session.call("search_notes", json!({"query": "milk", "limit": 51}));
    assert_eq!(violation_paths(&too_many), ["/limit"], "{too_many}");
    // Nothing was added by the rejected calls.
    let all = session.call("search_notes", json!({"query": "", "limit": 50}));
    assert_eq!(
        all["structuredContent"]["data"]["notes"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}
