//! Shared harness of the client tests: the servers under test (the demo server over stdio
//! and HTTP, the Python reference servers) and the client options they are driven with.

// Each test crate uses a subset of this module.
#![allow(dead_code, unused_imports)]

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use typed_mcp::client::{ClientOptions, ServerCommand, VersionChoice};

pub(crate) mod everything;
pub(crate) mod fake;

#[path = "../interop_support/mod.rs"]
pub(crate) mod interop_support;

pub(crate) use interop_support::http_server::HttpServer;
pub(crate) use interop_support::{limits_file, unavailable};

/// Every way of choosing a version the tests cover, with the version each must end on.
pub(crate) const CHOICES: &[(&str, &str)] = &[
    ("auto", "2026-07-28"),
    ("2026-07-28", "2026-07-28"),
    ("2025-11-25", "2025-11-25"),
    ("2025-06-18", "2025-06-18"),
    ("2025-03-26", "2025-03-26"),
];

/// Client options for a `--version`-style choice, with a test-sized timeout.
pub(crate) fn options(choice: &str) -> ClientOptions {
    let choice = VersionChoice::parse(choice).expect("a known version choice");
    ClientOptions::new("typed-mcp-client-tests", "0.1.0")
        .version(choice)
        .request_timeout(Duration::from_secs(30))
}

/// The demo server executable, built once per test binary.
pub(crate) fn demo_server() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| match std::env::var_os("TYPED_MCP_DEMO_SERVER") {
            Some(path) => PathBuf::from(path),
            None => interop_support::build_demo_server(),
        })
        .clone()
}

/// Builds an example program with the test's profile; returns its executable.
pub(crate) fn build_example(name: &str) -> PathBuf {
    interop_support::build_example(name)
}

/// Builds the command-line client `typed-mcp` with this test's profile.
pub(crate) fn build_cli() -> PathBuf {
    interop_support::build_cli()
}

/// The demo server as a stdio child, with the interop limits file.
pub(crate) fn demo_stdio(limits: &std::path::Path) -> ServerCommand {
    ServerCommand::new(demo_server())
        .arg("--limits")
        .arg(limits)
        .env("RUST_LOG", "warn")
}

/// The Python of the interop venv, or `None` after announcing why (a failure in CI).
pub(crate) fn reference_python() -> Option<PathBuf> {
    let python = interop_support::interop_dir()
        .join(".venv")
        .join("bin")
        .join("python");
    if python.is_file() {
        return Some(python);
    }
    unavailable(
        "the Python reference server",
        "tests/interop/.venv is missing (run `bash tests/interop/setup.sh`)",
    );
    None
}

/// The reference server script.
pub(crate) fn reference_script() -> PathBuf {
    interop_support::interop_dir().join("reference_server.py")
}

/// The server written on the Python SDK's high-level `MCPServer`.
pub(crate) fn mcpserver_script() -> PathBuf {
    interop_support::interop_dir().join("mcpserver_server.py")
}

/// A multi-threaded runtime for one test.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Whether process `pid` is gone (reaped: no `/proc` entry; a zombie still counts as there).
pub(crate) fn process_gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}
