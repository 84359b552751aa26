//! The built demo server binary over pipes, as the README runs it by hand: a piped
//! `server/discover` request is answered on stdout (and nothing else is), then the server
//! exits cleanly when its stdin closes.

mod example_support;
#[path = "reference_data.rs"]
mod reference_data;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use typed_mcp::generated::protocol::validate;

const DISCOVER: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"#,
    r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientCapabilities":{}}}}"#
);

/// Builds the example with this test's profile and returns the executable's path.
fn demo_server() -> PathBuf {
    example_support::build_example("demo_server")
}

/// Runs the server with `args`, writes `input` to its stdin, closes it and collects the rest.
fn run(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(demo_server())
        .args(args)
        // The most verbose logging: still nothing but protocol messages on stdout.
        .env("RUST_LOG", "trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the demo server starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    match stdin.write_all(input.as_bytes()) {
        Ok(()) => {}
        // A server that refuses to start may exit before it reads anything.
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(error) => panic!("write stdin: {error}"),
    }
    drop(stdin);
    child.wait_with_output().expect("the demo server ends")
}

fn stdout_lines(output: &Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .expect("UTF-8 stdout")
        .lines()
        .map(|line| serde_json::from_str(line).expect("stdout carries JSON lines only"))
        .collect()
}

#[test]
fn a_piped_discover_is_answered_and_the_server_exits() {
    let output = run(&[], &format!("{DISCOVER}\n"));
    assert!(output.status.success(), "exit status {:?}", output.status);
    let lines = stdout_lines(&output);
    assert_eq!(
        lines.len(),
        1,
        "one answer, nothing else on stdout: {lines:?}"
    );
    validate::discover_result_response(&lines[0]).expect("a valid DiscoverResultResponse");
    assert_eq!(lines[0]["id"], 1);
    assert_eq!(lines[0]["result"]["supportedVersions"][0], "2026-07-28");
    let tools = &lines[0]["result"]["capabilities"]["tools"];
    assert!(tools.is_object(), "the demo declares tools");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("demo server"),
        "logs go to stderr: {stderr}"
    );
}

#[test]
fn a_piped_legacy_session_lists_the_demo_tools() {
    let input = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ]
    .join("\n");
    let output = run(&[], &format!("{input}\n"));
    assert!(output.status.success());
    let lines = stdout_lines(&output);
    assert_eq!(lines.len(), 2, "{lines:?}");
    let list = lines
        .iter()
        .find(|l| l["id"] == 2)
        .expect("the tools/list answer");
    let mut names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["add", "big", "confirm", "echo", "lookup", "route", "sleep", "spin", "sum", "touch"]
    );
}

#[test]
fn an_invalid_limits_file_is_refused_with_every_violation() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("limits.json");
    std::fs::write(
        &path,
        r#"{"response": {"maxResponseBytes": -1}, "timeouts": {"defaultTimeoutMs": "soon"}}"#,
    )
    .expect("write the limits");
    let output = run(
        &["--limits", path.to_str().unwrap()],
        &format!("{DISCOVER}\n"),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing on stdout");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/response/maxResponseBytes"), "{stderr}");
    assert!(stderr.contains("/timeouts/defaultTimeoutMs"), "{stderr}");
}

/// The server asks for larger pipes (`typed_mcp::framing::PIPE_BYTES`): the capacity belongs
/// to the pipe, so the client sees it on its own ends once the server has answered (a
/// fresh pipe holds 64 KiB).
#[cfg(target_os = "linux")]
#[test]
fn the_server_enlarges_its_stdio_pipes() {
    use std::io::{BufRead, BufReader};
    use std::os::fd::AsRawFd;
    use typed_mcp::framing::PIPE_BYTES;

    let allowed: usize = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0);
    if allowed < PIPE_BYTES {
        let reason = format!("pipe-max-size is {allowed}, below {PIPE_BYTES}");
        assert!(!reference_data::in_ci(), "CI must run this: {reason}");
        eprintln!("skipped: {reason}");
        return;
    }
    let capacity = |fd: i32| {
        // SAFETY: `F_GETPIPE_SZ` takes no argument and touches no memory; `fd` is open.
        let bytes = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
        usize::try_from(bytes).expect("a pipe's capacity")
    };
    let mut child = Command::new(demo_server())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the demo server starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    writeln!(stdin, "{DISCOVER}").expect("write stdin");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("the answer");
    assert!(line.contains(r#""id":1"#), "{line}");
    assert_eq!(capacity(stdin.as_raw_fd()), PIPE_BYTES, "stdin");
    assert_eq!(capacity(stdout.get_ref().as_raw_fd()), PIPE_BYTES, "stdout");
    drop(stdin);
    assert!(child.wait().expect("the server ends").success());
}
