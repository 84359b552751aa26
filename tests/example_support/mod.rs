//! Building an example program (package `typed-mcp-examples`) or the `typed-mcp` CLI
//! (package `typed-mcp-cli`) with the running test's own profile (release when the test is
//! optimised), for tests that run it as a real process.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Builds the example `name` and returns the executable cargo reports for it.
pub(crate) fn build_example(name: &str) -> PathBuf {
    let features = "--features=typed-mcp-examples/runtime-schema";
    build(
        &["-p", "typed-mcp-examples", features, "--example", name],
        name,
    )
}

/// Builds the command-line client, `typed-mcp`, and returns its executable.
pub(crate) fn build_cli() -> PathBuf {
    build(&["-p", "typed-mcp-cli", "--bin", "typed-mcp"], "typed-mcp")
}

fn build(target: &[&str], name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .arg("build")
        .args(target)
        .arg("--message-format=json-render-diagnostics")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(Stdio::inherit());
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    let output = command.output().expect("cargo starts");
    assert!(
        output.status.success(),
        "building {name} failed ({})",
        output.status
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter(|message| message["target"]["name"] == name)
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo reports the {name} executable"))
}
