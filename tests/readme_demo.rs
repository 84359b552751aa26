//! The README's demo-server commands for the resource template and the logging tool, run as
//! written there (with `target/debug/examples/demo_server` and `target/debug/typed-mcp`, which the
//! README's first command builds, replaced by the executables this test built):
//! `typed-mcp ... templates`, `read demo://greetings/Ada`, `complete template ...`, and the
//! piped `tools/call sleep` whose log messages come before its result, and the `curl` call of
//! "Serving Streamable HTTP" against the demo server over HTTP.

mod example_support;
#[path = "reference_data.rs"]
mod reference_data;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

const CLIENT_RUN: &str = "target/debug/typed-mcp ";
const SERVER_RUN: &str = "target/debug/examples/demo_server";

/// Builds an example with this test's profile and returns the executable's path.
fn build_example(name: &str) -> PathBuf {
    example_support::build_example(name)
}

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("the README")
}

/// The words of a shell line without variables or escapes: split at spaces, `'...'` kept
/// whole.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        if let Some(quoted) = rest.strip_prefix('\'') {
            let (word, after) = quoted.split_once('\'').expect("a closed quote");
            words.push(word.to_owned());
            rest = after.trim_start();
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            words.push(rest[..end].to_owned());
            rest = rest[end..].trim_start();
        }
    }
    words
}

/// Runs the README's client line ending in `command`, as written there.
fn client_line(readme: &str, command: &str, client: &Path, server: &Path) -> Value {
    let line = readme
        .lines()
        .find(|line| line.starts_with(CLIENT_RUN) && line.contains(&format!("-- {command}")))
        .unwrap_or_else(|| panic!("the README's `{command}` line"));
    let line = line
        .strip_prefix(CLIENT_RUN)
        .unwrap()
        .replace(SERVER_RUN, &server.display().to_string());
    let output = Command::new(client)
        .args(words(&line))
        .env("RUST_LOG", "warn")
        .output()
        .expect("the client runs");
    assert!(output.status.success(), "{line}: {output:?}");
    serde_json::from_slice(&output.stdout).expect("the client prints JSON")
}

#[test]
fn the_readmes_template_commands_answer() {
    let readme = readme();
    let (client, server) = (example_support::build_cli(), build_example("demo_server"));
    let templates = client_line(&readme, "templates", &client, &server);
    assert_eq!(
        templates["resourceTemplates"][0]["uriTemplate"],
        "demo://greetings/{name}"
    );
    let read = client_line(&readme, "read demo://greetings/Ada", &client, &server);
    assert_eq!(read["contents"][0]["text"], "Hello, Ada!");
    let completion = client_line(&readme, "complete template", &client, &server);
    assert_eq!(completion["completion"]["values"], json!(["Ada", "Alan"]));
}

#[test]
fn the_readmes_piped_sleep_logs_before_its_result() {
    let readme = readme();
    let line = readme
        .lines()
        .find(|line| line.starts_with("echo '") && line.contains(r#""name":"sleep""#))
        .expect("the README's piped sleep call");
    let (echoed, run) = line.split_once(" | ").expect("echo ... | server");
    assert_eq!(run, SERVER_RUN);
    let request = &words(echoed)[1];
    let mut child = Command::new(build_example("demo_server"))
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the demo server starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    writeln!(stdin, "{request}").expect("write stdin");
    drop(stdin);
    let output: Output = child.wait_with_output().expect("the demo server ends");
    assert!(output.status.success(), "{output:?}");
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON lines"))
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(
        lines[0]["params"],
        json!({"data": "sleeping for 200 ms", "level": "info", "logger": "sleep"})
    );
    assert_eq!(
        lines[1]["params"],
        json!({"data": "awake", "level": "debug", "logger": "sleep"})
    );
    assert_eq!(lines[2]["id"], 1);
    assert_eq!(
        lines[2]["result"]["structuredContent"]["data"]["sleptMs"],
        200
    );
}

/// The README's `curl` call (lines joined at their trailing `\`), with the demo server's URL.
fn curl_words(readme: &str) -> Vec<String> {
    let start = readme.find("\ncurl ").expect("the README's curl example") + 1;
    let mut joined = String::new();
    for line in readme[start..].lines() {
        match line.trim_end().strip_suffix('\\') {
            Some(part) => joined.push_str(part),
            None => {
                joined.push_str(line);
                break;
            }
        }
    }
    words(&joined)
}

#[test]
fn the_readmes_curl_call_answers_over_http() {
    use std::io::{BufRead, BufReader};
    if Command::new("curl").arg("--version").output().is_err() {
        assert!(
            !reference_data::in_ci(),
            "curl is missing (tests/setup.sh installs it)"
        );
        eprintln!("SKIPPED: curl is not installed");
        return;
    }
    let words = curl_words(&readme());
    let readme_url = "http://127.0.0.1:8080/mcp";
    assert!(words.iter().any(|w| w == readme_url), "{words:?}");
    let mut server = Command::new(build_example("demo_server"))
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the demo server starts");
    // Kept open until the server is stopped, so its later log lines have somewhere to go.
    let mut stderr = BufReader::new(server.stderr.take().expect("piped stderr")).lines();
    let url = stderr
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| {
            let (_, rest) = line.split_once("listening on ")?;
            Some(rest.split_whitespace().next()?.to_owned())
        })
        .expect("the demo server says where it listens");
    let output = Command::new("curl")
        .args(
            words
                .iter()
                .skip(1)
                .map(|w| if w == readme_url { &url } else { w }),
        )
        .output()
        .expect("curl runs");
    server.kill().expect("the demo server stops");
    server.wait().expect("the demo server is reaped");
    drop(stderr);
    assert!(output.status.success(), "{output:?}");
    let answer: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("curl printed no JSON ({error}): {output:?}"));
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["data"],
        json!({"sum": 5.0}),
        "{answer}"
    );
}
