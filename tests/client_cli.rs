//! The command-line client `typed-mcp` (package `typed-mcp-cli`), run as a real process against the demo server over stdio and
//! HTTP: the typed result as JSON on stdout, and exit codes 0 / 1 / 2.

mod client_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use client_support::{build_cli, build_example, demo_server, limits_file, HttpServer};

fn cli() -> PathBuf {
    build_cli()
}

fn run(cli: &Path, args: &[&str]) -> Output {
    Command::new(cli)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the CLI starts")
}

fn json_of(output: &Output, what: &str) -> Value {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{what}: stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{what}: stdout is not JSON: {e}"))
}

#[test]
fn the_cli_answers_every_command_over_stdio_and_http() {
    let cli = cli();
    let (_dir, limits) = limits_file();
    let demo = demo_server().display().to_string();
    let limits_arg = limits.display().to_string();
    let server =
        HttpServer::start(std::slice::from_ref(&demo), &limits).expect("the demo server listens");
    let stdio = [
        "--stdio",
        "--",
        demo.as_str(),
        "--limits",
        limits_arg.as_str(),
        "--",
    ];
    let http = ["--http", server.url.as_str()];
    for (transport, target) in [("stdio", &stdio[..]), ("http", &http[..])] {
        for version in ["auto", "2025-06-18"] {
            let what = format!("{transport} {version}");
            let with = |command: &[&str]| {
                let mut args: Vec<&str> = target.to_vec();
                args.extend(["--version", version]);
                args.extend(command);
                run(&cli, &args)
            };
            let tools = json_of(&with(&["tools"]), &what);
            let names: Vec<&str> = tools["tools"]
                .as_array()
                .expect("an array")
                .iter()
                .filter_map(|t| t["name"].as_str())
                .collect();
            assert!(names.contains(&"echo"), "{what}: {names:?}");
            let sum = json_of(&with(&["call", "add", r#"{"a":1,"b":2}"#]), &what);
            assert_eq!(
                sum["structuredContent"]["data"]["sum"].as_f64(),
                Some(3.0),
                "{what}: {sum}"
            );
            let discover = json_of(&with(&["discover"]), &what);
            assert!(
                discover["capabilities"]["tools"].is_object(),
                "{what}: {discover}"
            );
            let resources = json_of(&with(&["resources"]), &what);
            assert_eq!(resources["resources"][0]["uri"], "demo://readme", "{what}");
            let templates = json_of(&with(&["templates"]), &what);
            assert_eq!(
                templates["resourceTemplates"][0]["uriTemplate"], "demo://greetings/{name}",
                "{what}"
            );
            let completion = json_of(&with(&["complete", "prompt", "greet", "name", "a"]), &what);
            assert_eq!(
                completion["completion"]["values"],
                serde_json::json!(["Ada", "Alan"]),
                "{what}"
            );
            let read = json_of(&with(&["read", "demo://readme"]), &what);
            assert!(read["contents"][0]["text"].is_string(), "{what}: {read}");
            let prompts = json_of(&with(&["prompts"]), &what);
            assert_eq!(prompts["prompts"][0]["name"], "greet", "{what}");
            let prompt = json_of(&with(&["prompt", "greet", r#"{"name":"Ada"}"#]), &what);
            assert!(prompt["messages"].to_string().contains("Ada"), "{what}");
            // A protocol error: exit 1, the reason on stderr, nothing on stdout.
            let missing = with(&["read", "demo://missing"]);
            assert_eq!(missing.status.code(), Some(1), "{what}");
            assert!(missing.stdout.is_empty(), "{what}");
            assert!(
                String::from_utf8_lossy(&missing.stderr).contains("error"),
                "{what}"
            );
        }
    }
    server.stop();
}

#[test]
fn usage_errors_exit_2_and_connection_failures_exit_1() {
    let cli = cli();
    for args in [
        &[][..],
        &["tools"][..],
        &["--http", "http://127.0.0.1:9/mcp"][..],
        &["--http", "http://127.0.0.1:9/mcp", "frobnicate"][..],
        &[
            "--http",
            "http://127.0.0.1:9/mcp",
            "--version",
            "1999-01-01",
            "tools",
        ][..],
        &[
            "--http",
            "http://127.0.0.1:9/mcp",
            "call",
            "add",
            "{not json",
        ][..],
        &["--stdio", "tools"][..],
    ] {
        let output = run(&cli, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    let refused = run(&cli, &["--http", "http://127.0.0.1:9/mcp", "tools"]);
    assert_eq!(refused.status.code(), Some(1));
    let missing = run(
        &cli,
        &["--stdio", "--", "/nonexistent/server", "--", "tools"],
    );
    assert_eq!(missing.status.code(), Some(1));
}

/// The README's first command, as written there: the `typed-mcp` line after `&&`, with the
/// debug binaries' paths replaced by the ones this test built. It must print the sum.
#[test]
fn the_readmes_first_command_answers() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("the README");
    let line = readme
        .lines()
        .find(|line| line.starts_with("cargo build -p typed-mcp-examples"))
        .expect("the README's first command");
    let (_, client_line) = line.split_once(" && ").expect("build && run");
    // The words of the client line; the JSON argument is the one single-quoted word.
    let (before, rest) = client_line.split_once('\'').expect("a quoted argument");
    let (quoted, after) = rest.split_once('\'').expect("a closed quote");
    let mut words: Vec<String> = before.split_whitespace().map(str::to_owned).collect();
    words.push(quoted.to_owned());
    words.extend(after.split_whitespace().map(str::to_owned));
    assert_eq!(words[0], "target/debug/typed-mcp", "{client_line}");
    assert_eq!(
        words.last().map(String::as_str),
        Some("target/debug/examples/demo_server")
    );
    let demo = demo_server().display().to_string();
    let last = words.len() - 1;
    words[last] = demo;
    let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let result = json_of(&run(&cli(), &args), client_line);
    assert_eq!(
        result["structuredContent"]["data"]["sum"].as_f64(),
        Some(5.0),
        "{result}"
    );
    assert_eq!(result["isError"], Value::Bool(false));
}

#[test]
fn the_cli_calls_a_tool_as_a_task_and_polls_it_to_its_result() {
    let cli = cli();
    let fixture = build_example("conformance_server").display().to_string();
    let target = [
        "--version",
        "2026-07-28",
        "--stdio",
        "--",
        fixture.as_str(),
        "--",
    ];
    let with = |command: &[&str]| {
        let mut args: Vec<&str> = target.to_vec();
        args.extend(command);
        run(&cli, &args)
    };
    let done = json_of(
        &with(&[
            "task",
            "slow_compute",
            r#"{"seconds": 0.3, "label": "cli"}"#,
        ]),
        "task slow_compute",
    );
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(
        done["structuredContent"]["data"], "computed cli in 0.3 s",
        "{done}"
    );
    // A task ending in a tool error is a result (exit 0), as for `call`.
    let failed = json_of(&with(&["task", "failing_job", "{}"]), "task failing_job");
    assert_eq!(failed["isError"], true, "{failed}");
    // A 2025 connection has no tasks: a clear error, exit 1.
    let legacy = run(
        &cli,
        &[
            "--version",
            "2025-11-25",
            "--stdio",
            "--",
            fixture.as_str(),
            "--",
            "task",
            "slow_compute",
            "{}",
        ],
    );
    assert_eq!(legacy.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&legacy.stderr);
    assert!(
        stderr.contains("tools/call") && stderr.contains("2025-11-25"),
        "{stderr}"
    );
}
