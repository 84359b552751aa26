//! The `echo_server` example (a tiny JSON-RPC server on the request loop), built once per test
//! binary with the test's own profile, for tests that run it as a real process. It is an
//! example, not a binary of the library package, so users who install typed-mcp never get it.

#[path = "../example_support/mod.rs"]
mod example_support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The path of the built `echo_server` executable.
pub(crate) fn echo_server() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| example_support::build_example("echo_server"))
}
