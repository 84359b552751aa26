//! Shared harness of the interop tests (`tests/interop.rs` over stdio, `tests/interop_http.rs`
//! over Streamable HTTP): the official clients and their modes, locating the server under
//! test, running one client script, judging its report, and the matrix.
//!
//! The clients are installed by `tests/interop/setup.sh` (run by `.ci/run`): PyPI `mcp` in
//! `tests/interop/.venv`, npm `@modelcontextprotocol/sdk` and `@modelcontextprotocol/client`
//! in `tests/interop/node_modules`. Each client script (`tests/interop/*_client.*`) connects,
//! runs the checks (every tool, the resource, the prompt, and the limit errors the limits file
//! below provokes) and prints one JSON report line.

// Each test crate uses a subset of this module.
#![allow(dead_code)]

pub(crate) mod http_server;

#[path = "../reference_data.rs"]
mod reference_data;

#[path = "../example_support/mod.rs"]
mod example_support;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

pub(crate) const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The limits the server runs with; the clients read the same file to size their probes
/// (a `sleep` 20× and a `spin` 10× past their timeout, one array item too many, a `big` text
/// twice the response limit). Generous margins: a positive `sleep`/`spin` takes 5 ms.
pub(crate) const LIMITS: &str = r#"{
  "timeouts": {
    "toolTimeouts": {"slow": 300},
    "toolCategories": {"sleep": "slow"},
    "toolOverrides": {"spin": 300}
  },
  "response": {"maxResponseBytes": 4096},
  "request": {"toolArrayLimits": {"sum": 16}}
}"#;

/// Longest a single client run may take before it is killed (a hang guard, not a measurement).
pub(crate) const RUN_DEADLINE: Duration = Duration::from_secs(180);

pub(crate) const LEGACY_MODES: &[&str] = &[
    "legacy-2025-11-25",
    "legacy-2025-06-18",
    "legacy-2025-03-26",
];
pub(crate) const ALL_MODES: &[&str] = &[
    "legacy-2025-11-25",
    "legacy-2025-06-18",
    "legacy-2025-03-26",
    "auto",
    "2026-07-28",
];

/// Every check a client report must contain (names as the client scripts print them).
pub(crate) const EXPECTED_CHECKS: &[&str] = &[
    "handshake",
    "tools/list",
    "echo",
    "add",
    "sleep",
    "spin",
    "big",
    "sum",
    "lookup cached",
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "spin timeout",
    "sleep timeout",
    "validation failed",
    "array too large",
    "big truncated",
];

/// One official client and how to run its script.
pub(crate) struct InteropClient {
    /// Label in the matrix.
    pub(crate) label: &'static str,
    /// The package whose pinned version the report must name.
    pub(crate) package: &'static str,
    /// The script under `tests/interop/`.
    pub(crate) script: &'static str,
    /// The modes this client can be made to offer (over stdio and over HTTP alike).
    pub(crate) modes: &'static [&'static str],
    pub(crate) runtime: Runtime,
}

#[derive(Clone, Copy)]
pub(crate) enum Runtime {
    /// The venv's Python.
    Python,
    /// Node.js with the packages in `tests/interop/node_modules`.
    Node,
}

pub(crate) const CLIENTS: &[InteropClient] = &[
    InteropClient {
        label: "python mcp",
        package: "mcp",
        script: "py_client.py",
        modes: ALL_MODES,
        runtime: Runtime::Python,
    },
    InteropClient {
        label: "ts sdk",
        package: "@modelcontextprotocol/sdk",
        script: "ts_client.mjs",
        modes: LEGACY_MODES,
        runtime: Runtime::Node,
    },
    InteropClient {
        label: "ts client",
        package: "@modelcontextprotocol/client",
        script: "ts2_client.mjs",
        modes: ALL_MODES,
        runtime: Runtime::Node,
    },
];

pub(crate) fn interop_dir() -> PathBuf {
    Path::new(ROOT).join("tests").join("interop")
}

/// Whether `CI` is set: one rule for every check (`tests/reference_data.rs`).
pub(crate) use reference_data::in_ci;

/// Writes straight to the process's stderr, which the test harness does not capture, so the
/// matrix and skip notices show in CI logs of a passing run too.
pub(crate) fn announce(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let written = stderr
        .write_all(text.as_bytes())
        .and_then(|()| stderr.flush());
    if let Err(error) = written {
        println!("(stderr unavailable: {error})\n{text}");
    }
}

/// A reason to skip (locally) or fail (in CI).
pub(crate) fn unavailable(what: &str, why: &str) {
    assert!(!in_ci(), "{what} is not available in CI: {why}");
    announce(&format!("SKIPPED: {what}: {why}\n"));
}

/// The last `count` lines of `text`.
pub(crate) fn tail(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

// ------------------------------------------------------------------ pinned versions

/// The version `tests/interop` pins for `package` (package.json / requirements.txt).
pub(crate) fn pinned_version(package: &str) -> String {
    let dir = interop_dir();
    if package == "mcp" {
        let requirements = std::fs::read_to_string(dir.join("requirements.txt")).unwrap();
        let line = requirements
            .lines()
            .find_map(|line| line.trim().strip_prefix("mcp=="));
        return line.expect("requirements.txt pins mcp==VERSION").to_owned();
    }
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    let version = manifest["dependencies"][package].as_str();
    version.expect("package.json pins the package").to_owned()
}

// ------------------------------------------------------------------ locating things

/// The command prefix that runs `client`'s script, or why it cannot run.
pub(crate) fn client_command(client: &InteropClient) -> Result<Vec<String>, String> {
    let dir = interop_dir();
    let script = dir.join(client.script).display().to_string();
    match client.runtime {
        Runtime::Python => {
            let python = dir.join(".venv").join("bin").join("python");
            if !python.exists() {
                return Err(format!(
                    "{} not found (run tests/interop/setup.sh)",
                    python.display()
                ));
            }
            Ok(vec![python.display().to_string(), script])
        }
        Runtime::Node => {
            let package = dir
                .join("node_modules")
                .join(client.package)
                .join("package.json");
            if !package.exists() {
                return Err(format!(
                    "{} not installed (run tests/interop/setup.sh)",
                    client.package
                ));
            }
            let version = Command::new("node").arg("--version").output();
            let major = version
                .ok()
                .filter(|out| out.status.success())
                .and_then(|out| {
                    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
                    text.trim_start_matches('v')
                        .split('.')
                        .next()?
                        .parse::<u32>()
                        .ok()
                });
            match major {
                Some(major) if major >= 20 => Ok(vec!["node".to_owned(), script]),
                Some(major) => Err(format!("node {major} found, 20 or later needed")),
                None => Err("node not found on PATH".to_owned()),
            }
        }
    }
}

/// The installed clients with the command prefix that runs each; a missing one is skipped
/// locally and fails the test in CI.
pub(crate) fn runnable_clients() -> Vec<(&'static InteropClient, Vec<String>)> {
    let mut runnable = Vec::new();
    for client in CLIENTS {
        match client_command(client) {
            Ok(prefix) => runnable.push((client, prefix)),
            Err(why) => unavailable(&format!("interop client {}", client.label), &why),
        }
    }
    runnable
}

/// The server's command line (without `--limits`): `TYPED_MCP_INTEROP_SERVER`, else
/// `TYPED_MCP_DEMO_SERVER`, else the `demo_server` example (part of this repository, so it is
/// never skipped: a demo server that does not build fails the test).
pub(crate) fn server_command() -> Vec<String> {
    if let Ok(line) = std::env::var("TYPED_MCP_INTEROP_SERVER") {
        let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        assert!(!argv.is_empty(), "TYPED_MCP_INTEROP_SERVER is empty");
        return argv;
    }
    if let Some(path) = std::env::var_os("TYPED_MCP_DEMO_SERVER") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "TYPED_MCP_DEMO_SERVER names no file: {}",
            path.display()
        );
        return vec![path.display().to_string()];
    }
    vec![build_demo_server().display().to_string()]
}

/// Builds the `demo_server` example with this test's profile and returns the executable.
pub(crate) fn build_demo_server() -> PathBuf {
    build_example("demo_server")
}

/// Builds the example `name` with this test's profile and returns the executable.
pub(crate) fn build_example(name: &str) -> PathBuf {
    example_support::build_example(name)
}

/// Builds the command-line client `typed-mcp` with this test's profile.
pub(crate) fn build_cli() -> PathBuf {
    example_support::build_cli()
}

/// The limits file (`LIMITS`) in a fresh temporary directory, which lives as long as the
/// returned guard.
pub(crate) fn limits_file() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let limits = dir.path().join("limits.json");
    std::fs::write(&limits, LIMITS).expect("the limits file is written");
    (dir, limits)
}

// ------------------------------------------------------------------ running one combination

/// How a client script reaches the server.
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    /// The script spawns this command line with `--limits FILE` appended and talks over stdio.
    Spawn(&'a [String]),
    /// The script connects to this URL over Streamable HTTP (`--http URL`).
    Http(&'a str),
}

/// What one client run printed and how it ended.
pub(crate) struct RunOutput {
    pub(crate) status: Option<ExitStatus>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

pub(crate) fn read_all(mut stream: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = stream.read_to_end(&mut bytes);
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if let Err(error) = read {
            text.push_str(&format!("\n[reading the stream failed: {error}]"));
        }
        text
    })
}

/// Waits for `child` until the deadline; kills it past that (`None` status).
pub(crate) fn wait_with_deadline(child: &mut Child) -> Option<ExitStatus> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if started.elapsed() < RUN_DEADLINE => {
                thread::sleep(Duration::from_millis(50))
            }
            Ok(None) | Err(_) => {
                if let Err(error) = child.kill() {
                    announce(&format!("interop: killing a hung client failed: {error}\n"));
                }
                let reaped = child.wait();
                if let Err(error) = reaped {
                    announce(&format!(
                        "interop: reaping a killed client failed: {error}\n"
                    ));
                }
                return None;
            }
        }
    }
}

pub(crate) fn run_client(
    prefix: &[String],
    mode: &str,
    limits: &Path,
    target: Target,
) -> RunOutput {
    let mut command = Command::new(&prefix[0]);
    command
        .args(&prefix[1..])
        .args(["--mode", mode, "--limits"])
        .arg(limits);
    match target {
        Target::Spawn(server) => {
            command.arg("--").args(server).arg("--limits").arg(limits);
        }
        Target::Http(url) => {
            command.args(["--http", url]);
        }
    }
    let mut child = command
        .current_dir(ROOT)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client script starts");
    let stdout = read_all(child.stdout.take().expect("piped stdout"));
    let stderr = read_all(child.stderr.take().expect("piped stderr"));
    let status = wait_with_deadline(&mut child);
    RunOutput {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

/// The verdict on one client × mode combination.
pub(crate) enum Verdict {
    /// Every check passed; the negotiated protocol version.
    Pass(String),
    /// What went wrong, one reason per entry.
    Fail(Vec<String>),
}

/// Judges a run: exit status, the report's identity, and every expected check.
pub(crate) fn judge(client: &InteropClient, mode: &str, pinned: &str, run: &RunOutput) -> Verdict {
    let mut reasons = Vec::new();
    match run.status {
        None => reasons.push(format!("killed after {} s", RUN_DEADLINE.as_secs())),
        Some(status) if !status.success() => reasons.push(format!("client exited with {status}")),
        Some(_) => {}
    }
    let report = run.stdout.lines().rev().find_map(|line| {
        serde_json::from_str::<Value>(line)
            .ok()
            .filter(Value::is_object)
    });
    let Some(report) = report else {
        reasons.push("no JSON report on stdout".to_owned());
        return Verdict::Fail(reasons);
    };
    if report["mode"] != mode {
        reasons.push(format!("report is for mode {}", report["mode"]));
    }
    if report["clientVersion"] != pinned {
        let found = &report["clientVersion"];
        reasons.push(format!(
            "{} {found} installed, {pinned} pinned",
            client.package
        ));
    }
    let checks = report["checks"].as_object().cloned().unwrap_or_default();
    for (name, check) in &checks {
        if check["ok"] != true {
            reasons.push(format!("{name}: {}", check["detail"]));
        }
    }
    if !checks.contains_key("connect") {
        for name in EXPECTED_CHECKS
            .iter()
            .filter(|name| !checks.contains_key(**name))
        {
            reasons.push(format!("{name}: missing from the report"));
        }
    }
    match report["negotiatedVersion"].as_str() {
        Some(version) if reasons.is_empty() => Verdict::Pass(version.to_owned()),
        None if reasons.is_empty() => Verdict::Fail(vec!["no negotiated version".to_owned()]),
        _ => Verdict::Fail(reasons),
    }
}

// ------------------------------------------------------------------ the matrix

/// One row of the matrix: a client and its verdict per mode (`None`: mode not offered).
pub(crate) struct Row {
    pub(crate) label: String,
    pub(crate) cells: Vec<Option<Verdict>>,
}

/// The matrix as text, under `title`.
pub(crate) fn render_matrix(title: &str, rows: &[Row]) -> String {
    let width = 20;
    let mut text = format!("\n{title}\n{:<22}", "client");
    for mode in ALL_MODES {
        text.push_str(&format!("{mode:<width$}"));
    }
    text.push('\n');
    for row in rows {
        text.push_str(&format!("{:<22}", row.label));
        for cell in &row.cells {
            let shown = match cell {
                None => "-".to_owned(),
                Some(Verdict::Pass(version)) => format!("pass ({version})"),
                Some(Verdict::Fail(reasons)) => format!("FAIL ({} issues)", reasons.len()),
            };
            text.push_str(&format!("{shown:<width$}"));
        }
        text.push('\n');
    }
    text
}

/// Runs every mode of `client`, one after the other.
pub(crate) fn run_row(
    client: &InteropClient,
    prefix: &[String],
    limits: &Path,
    target: Target,
) -> Row {
    let pinned = pinned_version(client.package);
    let cells = ALL_MODES
        .iter()
        .map(|mode| {
            client.modes.contains(mode).then(|| {
                let run = run_client(prefix, mode, limits, target);
                let verdict = judge(client, mode, &pinned, &run);
                if let Verdict::Fail(reasons) = &verdict {
                    announce(&format!(
                        "interop: {} {mode} failed:\n  {}\n  stderr (last 40 lines):\n{}\n",
                        client.label,
                        reasons.join("\n  "),
                        tail(&run.stderr, 40)
                    ));
                }
                verdict
            })
        })
        .collect();
    Row {
        label: format!("{} {pinned}", client.label),
        cells,
    }
}

/// Runs every client × mode combination against `target`: one thread per client, each
/// running its modes in turn.
pub(crate) fn run_matrix(
    runnable: &[(&'static InteropClient, Vec<String>)],
    limits: &Path,
    target: Target,
) -> Vec<Row> {
    thread::scope(|scope| {
        let handles: Vec<_> = runnable
            .iter()
            .map(|(client, prefix)| scope.spawn(move || run_row(client, prefix, limits, target)))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("client runner"))
            .collect()
    })
}

/// Prints the matrix and a summary; returns the matrix text and how many combinations failed.
/// Panics when no combination ran.
pub(crate) fn summarize(title: &str, rows: &[Row]) -> (String, usize) {
    let matrix = render_matrix(title, rows);
    announce(&matrix);
    let cells = rows.iter().flat_map(|row| row.cells.iter().flatten());
    let (total, failed) = cells.fold((0, 0), |(total, failed), verdict| {
        (
            total + 1,
            failed + usize::from(matches!(verdict, Verdict::Fail(_))),
        )
    });
    assert!(total > 0, "no client × mode combination ran");
    announce(&format!(
        "interop: {} of {total} client × mode combinations pass\n",
        total - failed
    ));
    (matrix, failed)
}
