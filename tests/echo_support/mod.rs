//! The `echo_server` example (a tiny JSON-RPC server on the request loop), built once per test
//! binary with the test's own profile, for tests that run it as a real process. It is an
//! example, not a binary of the library package, so users who install typed-mcp never get it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The path of the built `echo_server` executable.
pub(crate) fn echo_server() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = Command::new(cargo);
        command
            .args([
                "build",
                "--example",
                "echo_server",
                "--message-format=json-render-diagnostics",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stderr(Stdio::inherit());
        if !cfg!(debug_assertions) {
            command.arg("--release");
        }
        let output = command.output().expect("cargo starts");
        assert!(
            output.status.success(),
            "building echo_server failed ({})",
            output.status
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|message| message["reason"] == "compiler-artifact")
            .filter(|message| message["target"]["name"] == "echo_server")
            .find_map(|message| message["executable"].as_str().map(PathBuf::from))
            .expect("cargo reports the echo_server executable")
    })
}
