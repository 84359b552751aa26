//! `typed-mcp-pull` against servers others wrote, and the typed clients generated from what
//! it recorded, called for real:
//!
//! - `@modelcontextprotocol/server-everything` (the TypeScript SDK's test server) over stdio
//!   and over Streamable HTTP: one snapshot, `tests/downstream-pull/mcp/everything.json`,
//!   fresh against both transports;
//! - `tests/interop/mcpserver_server.py`, on the Python SDK's `MCPServer` (schemas derived
//!   from type hints by pydantic, with `outputSchema`s): `python.json`;
//! - our demo server: `demo.json`.
//!
//! Each snapshot checked in under `tests/downstream-pull/mcp/` is compared with the live
//! server by `typed-mcp-pull --check`, which decides on the tools alone (a server's version
//! is reported, not compared), so a test fails when a snapshot is stale and no volatile field
//! makes it flaky; `TYPED_MCP_BLESS=1` rewrites the snapshots instead. The fixture crate
//! `tests/downstream-pull` (its build.rs generates a client from each snapshot) then calls two
//! tools of each server through its typed client. Skipped with a printed reason when
//! `tests/interop` lacks the servers (`bash tests/interop/setup.sh`), failed in CI.

mod client_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

use client_support::everything::{everything_command, EverythingHttp};
use client_support::{demo_server, mcpserver_script, reference_python};

/// The `typed-mcp-pull` command, the generator's command (whose `pull` runs it) and the
/// fixture's caller, built once per test binary.
struct Binaries {
    pull: PathBuf,
    codegen: PathBuf,
    caller: PathBuf,
}

fn binaries() -> &'static Binaries {
    static BUILT: OnceLock<Binaries> = OnceLock::new();
    BUILT.get_or_init(|| {
        let built = build_bins(&[
            "typed-mcp-pull",
            "typed-mcp-codegen",
            "typed-mcp-downstream-pull",
        ]);
        let find = |name: &str| {
            built
                .iter()
                .find(|(target, _)| target == name)
                .map(|(_, path)| path.clone())
                .unwrap_or_else(|| panic!("cargo reports the {name} executable"))
        };
        Binaries {
            pull: find("typed-mcp-pull"),
            codegen: find("typed-mcp-codegen"),
            caller: find("typed-mcp-downstream-pull"),
        }
    })
}

/// Builds the binaries of the workspace `packages` with the test's profile, in one cargo
/// run (so the runtime is compiled once, with the features they need together); returns
/// each binary's name and executable.
fn build_bins(packages: &[&str]) -> Vec<(String, PathBuf)> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.arg("build");
    for package in packages {
        command.args(["-p", package]);
    }
    command
        .arg("--bins")
        .arg("--message-format=json-render-diagnostics")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(Stdio::inherit());
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    let output = command.output().expect("cargo starts");
    assert!(output.status.success(), "building {packages:?} failed");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter_map(|message| {
            let name = message["target"]["name"].as_str()?.to_owned();
            let path = message["executable"].as_str().map(PathBuf::from)?;
            Some((name, path))
        })
        .collect()
}

/// A checked-in snapshot.
fn snapshot(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/downstream-pull/mcp")
        .join(format!("{name}.json"))
}

fn run(program: &Path, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the command starts")
}

/// `typed-mcp-pull --check` of `file` against the server `server` (the arguments after
/// `--out FILE`), or with `TYPED_MCP_BLESS=1` a fresh pull into it. Panics with the diff when
/// the snapshot is stale.
fn assert_fresh(file: &Path, server: &[&str]) {
    let bless = std::env::var_os("TYPED_MCP_BLESS").is_some_and(|v| v == "1");
    let file_text = file.display().to_string();
    let mut args = vec!["--out", file_text.as_str()];
    if !bless {
        args.push("--check");
    }
    args.extend_from_slice(server);
    let output = run(&binaries().pull, &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{} is stale (rerun with TYPED_MCP_BLESS=1 to rewrite it):\n{stderr}",
        file.display()
    );
    assert!(output.stdout.is_empty(), "typed-mcp-pull wrote to stdout");
}

/// The fixture's two typed calls against `server`: its stdout lines.
fn typed_calls(which: &str, server: &[&str]) -> Vec<String> {
    let mut args = vec![which];
    args.extend_from_slice(server);
    let output = run(&binaries().caller, &args);
    assert!(
        output.status.success(),
        "the {which} client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_demo_server_snapshot_is_fresh_and_its_typed_client_calls_two_tools() {
    let demo = demo_server().display().to_string();
    let server = ["--stdio", "--", demo.as_str()];
    assert_fresh(&snapshot("demo"), &server);
    let lines = typed_calls("demo", &server);
    assert_eq!(lines.len(), 2, "{lines:?}");
    // The demo server answers with its envelope, as text.
    let sum: Value = serde_json::from_str(lines[0].trim_start_matches("add: ")).expect("JSON");
    assert_eq!(sum["sum"], 5.5, "{lines:?}");
    assert_eq!(lines[1], "echo: hello");
}

#[test]
fn server_everything_over_stdio_and_http_matches_one_snapshot_and_answers_typed_calls() {
    let Some((node, script)) = everything_command() else {
        return;
    };
    let script = script.display().to_string();
    let stdio = ["--stdio", "--", node.as_str(), script.as_str()];
    assert_fresh(&snapshot("everything"), &stdio);
    let http_server = EverythingHttp::start(&node, &PathBuf::from(&script));
    let http = ["--http", http_server.url.as_str()];
    assert_fresh(&snapshot("everything"), &http);
    for server in [&stdio[..], &http[..]] {
        let lines = typed_calls("everything", server);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[1], "get-sum: The sum of 2 and 3 is 5.");
        // A typed output: temperature, conditions and humidity decoded from
        // structuredContent after its generated validator accepted it.
        let weather: Vec<&str> = lines[0]
            .trim_start_matches("get-structured-content: ")
            .split(' ')
            .collect();
        assert!(weather[0].parse::<f64>().is_ok(), "{lines:?}");
        assert!(
            weather.last().is_some_and(|h| h.parse::<f64>().is_ok()),
            "{lines:?}"
        );
    }
}

#[test]
fn the_python_sdk_server_snapshot_is_fresh_and_its_typed_outputs_decode() {
    let Some(python) = reference_python() else {
        return;
    };
    let (python, script) = (python.display().to_string(), mcpserver_script());
    let script = script.display().to_string();
    let server = ["--stdio", "--", python.as_str(), script.as_str()];
    assert_fresh(&snapshot("python"), &server);
    assert_eq!(typed_calls("python", &server), ["add: 5.0", "echo: hello"]);
}

#[test]
fn check_names_the_tool_and_the_argument_a_server_now_requires() {
    // The recorded snapshot predates the demo server's `add` requiring `b`: as if the
    // server gained a required argument since the snapshot was taken.
    let mut old: Value = serde_json::from_str(
        &std::fs::read_to_string(snapshot("demo")).expect("the demo snapshot"),
    )
    .expect("JSON");
    let add = old["tools"]
        .as_array_mut()
        .and_then(|tools| tools.iter_mut().find(|tool| tool["name"] == "add"))
        .expect("the demo server has `add`");
    let schema = &mut add["inputSchema"];
    schema["properties"]
        .as_object_mut()
        .and_then(|properties| properties.remove("b"))
        .expect("`add` has `b`");
    schema["required"] = serde_json::json!(["a"]);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let stale = dir.path().join("demo.json");
    std::fs::write(&stale, old.to_string()).expect("written");
    let demo = demo_server().display().to_string();
    let stale_text = stale.display().to_string();
    let check = [
        "--out",
        stale_text.as_str(),
        "--check",
        "--stdio",
        "--",
        demo.as_str(),
    ];
    let output = run(&binaries().pull, &check);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    for expected in [
        "tool `add`: changed",
        "argument `b` is now required",
        "argument `b` added",
        r#"/inputSchema/required: ["a"] -> ["a","b"]"#,
        "1 tool(s) differ from the server",
    ] {
        assert!(stderr.contains(expected), "no {expected:?} in:\n{stderr}");
    }
    // `typed-mcp-codegen pull` runs the same command (found next to it), with its status.
    let mut through_codegen = vec!["pull"];
    through_codegen.extend_from_slice(&check);
    let output = run(&binaries().codegen, &through_codegen);
    let relayed = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{relayed}");
    assert!(
        relayed.contains("argument `b` is now required"),
        "{relayed}"
    );
    // The snapshot is left alone.
    let after: Value =
        serde_json::from_str(&std::fs::read_to_string(&stale).expect("read")).expect("JSON");
    assert_eq!(after, old);

    // A snapshot that is not there is a file error (4), a server that does not start a
    // server error (3).
    let missing = dir.path().join("missing.json").display().to_string();
    let output = run(
        &binaries().pull,
        &[
            "--out",
            missing.as_str(),
            "--check",
            "--stdio",
            "--",
            demo.as_str(),
        ],
    );
    assert_eq!(output.status.code(), Some(4));
    let nowhere = dir.path().join("no-such-server").display().to_string();
    let output = run(
        &binaries().pull,
        &["--out", missing.as_str(), "--stdio", "--", nowhere.as_str()],
    );
    assert_eq!(output.status.code(), Some(3));
    assert!(!Path::new(&missing).exists());
}
