//! Where a server's key set comes from (issue 34, `typed_mcp::secrets`): the builder, the
//! limits member `secrets.keysFile`, and the environment variables `TYPED_MCP_SERVER_KEYS`
//! and `TYPED_MCP_SERVER_KEYS_FILE` (through the demo binary, so no test changes its own
//! environment). Two servers with the same key set accept each other's cursors; servers with
//! different ones (or random ones) do not; a key set that cannot be read fails the build
//! with a typed error that quotes nothing of it.

mod example_support;
mod mcp_server_support;

use std::io::Write as _;
use std::process::{Command, Stdio};

use mcp_server_support::{demo_server, limits, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::mcp::McpError;
use typed_mcp::secrets::{KeyError, KeySet};

const SECRET: &str = "c2hhcmVkLXNoYXJlZC1zaGFyZWQtc2hhcmVkLXNoYXI=";
const OTHER: &str = "b3RoZXItb3RoZXItb3RoZXItb3RoZXItb3RoZXItb3Q=";

fn key_set(id: &str, secret: &str) -> String {
    json!({"keys": [{"id": id, "secret": secret}]}).to_string()
}

/// The first page's cursor of `tools/list` from `server` (page size 2).
async fn first_cursor(server: typed_mcp::mcp::McpServer) -> String {
    let mut client = TestClient::start(server);
    let page = client
        .result(json!(1), "tools/list", Some(modern(json!({}))))
        .await;
    page["nextCursor"].as_str().expect("a cursor").to_owned()
}

/// The `tools/list` answer of `server` to `cursor`: the result, or the error.
async fn continue_at(server: typed_mcp::mcp::McpServer, cursor: &str) -> Value {
    let mut client = TestClient::start(server);
    client
        .request(
            json!(2),
            "tools/list",
            Some(modern(json!({"cursor": cursor}))),
        )
        .await
}

#[tokio::test]
async fn servers_sharing_a_keys_file_accept_each_others_cursors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys.json");
    std::fs::write(&file, key_set("shared", SECRET)).unwrap();
    let configured = || {
        demo_server(limits(json!({
            "lists": {"pageSize": 2},
            "secrets": {"keysFile": file.to_str().unwrap()}
        })))
    };
    let cursor = first_cursor(configured()).await;
    assert!(cursor.starts_with("shared."), "{cursor}");
    let answer = continue_at(configured(), &cursor).await;
    assert!(answer["result"]["tools"].is_array(), "{answer}");

    // A server with its own (random) key refuses it.
    let answer = continue_at(
        demo_server(limits(json!({"lists": {"pageSize": 2}}))),
        &cursor,
    )
    .await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert!(!answer.to_string().contains(&cursor[7..20]), "{answer}");
}

#[tokio::test]
async fn keys_given_to_the_builder_win_over_the_limits() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys.json");
    std::fs::write(&file, key_set("from-file", SECRET)).unwrap();
    let paged = json!({"lists": {"pageSize": 2}, "secrets": {"keysFile": file.to_str().unwrap()}});
    let keys = KeySet::parse(&key_set("from-code", OTHER)).unwrap();
    let server = typed_mcp::mcp::McpServer::builder("keys", "1")
        .limits(limits(paged))
        .keys(keys)
        .tool(echo_tool_named("echo1"))
        .tool(echo_tool_named("echo2"))
        .tool(echo_tool_named("echo3"))
        .build()
        .unwrap();
    let cursor = first_cursor(server).await;
    assert!(cursor.starts_with("from-code."), "{cursor}");
}

fn echo_tool_named(name: &str) -> typed_mcp::mcp::ToolDefinition {
    typed_mcp::mcp::ToolDefinition::new(
        name,
        |_ctx: typed_mcp::tools::ToolContext,
         args: mcp_server_support::demo::arguments::EchoArguments| async move {
            Ok(Value::from(args.text))
        },
    )
    .unwrap()
    .description("Echoes.")
}

#[test]
fn an_unreadable_or_malformed_keys_file_fails_the_build_quoting_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent.json");
    let error = demo_or_error(json!({"secrets": {"keysFile": missing.to_str().unwrap()}}));
    let McpError::Keys(KeyError::Read { path, .. }) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(path, &missing);

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, key_set("k", "c2hvcnQtYnV0LXNlY3JldA")).unwrap();
    let error = demo_or_error(json!({"secrets": {"keysFile": bad.to_str().unwrap()}}));
    let McpError::Keys(inner) = &error else {
        panic!("{error:?}")
    };
    let shown = format!("{inner} {inner:?}");
    assert!(
        shown.contains("/keys/0/secret") && shown.contains("bad.json"),
        "{shown}"
    );
    assert!(!shown.contains("c2hvcnQtYnV0LXNlY3JldA"), "{shown}");
}

fn demo_or_error(limits_json: Value) -> McpError {
    mcp_server_support::demo::build(limits(limits_json)).expect_err("the build fails")
}

/// Runs the demo binary over stdio with `env`, sends `lines`, returns its stdout messages.
fn run_demo(env: &[(&str, &str)], limits_file: &std::path::Path, lines: &[Value]) -> Vec<Value> {
    let mut child = Command::new(example_support::build_example("demo_server"))
        .args(["--limits", limits_file.to_str().unwrap()])
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the demo server starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    for line in lines {
        writeln!(stdin, "{line}").expect("write");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("the demo server ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains(SECRET), "the secret is logged: {stderr}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn list(id: u64, cursor: Option<&str>) -> Value {
    let params = cursor.map_or_else(|| json!({}), |cursor| json!({ "cursor": cursor }));
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": modern(params)})
}

#[test]
fn the_environment_gives_the_key_set_to_every_process() {
    let dir = tempfile::tempdir().unwrap();
    let limits_file = dir.path().join("limits.json");
    std::fs::write(&limits_file, r#"{"lists": {"pageSize": 2}}"#).unwrap();
    let keys_file = dir.path().join("keys.json");
    std::fs::write(&keys_file, key_set("env-file", SECRET)).unwrap();
    let document = key_set("env-text", SECRET);
    for env in [
        [("TYPED_MCP_SERVER_KEYS", document.as_str())],
        [("TYPED_MCP_SERVER_KEYS_FILE", keys_file.to_str().unwrap())],
    ] {
        let first = run_demo(&env, &limits_file, &[list(1, None)]);
        let cursor = first[0]["result"]["nextCursor"].as_str().expect("a cursor");
        assert!(cursor.starts_with("env-"), "{cursor}");
        // Another process with the same environment continues the walk.
        let second = run_demo(&env, &limits_file, &[list(2, Some(cursor))]);
        assert!(second[0]["result"]["tools"].is_array(), "{}", second[0]);
        // A process without it does not.
        let third = run_demo(&[], &limits_file, &[list(3, Some(cursor))]);
        assert_eq!(third[0]["error"]["code"], -32602, "{}", third[0]);
    }
}
