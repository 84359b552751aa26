//! Where the official reference data is, found one way for every test and build script.
//!
//! The official MCP schemas and examples are never copied into the repository: they are read
//! from the folder named by the environment variable `TYPED_MCP_SPEC_DIR` (the folder holding
//! one sub-folder per protocol version, e.g. `2026-07-28/schema.json`; a relative path is taken
//! from the repository root), by default `../shared/spec/mcp` next to the repository.
//!
//! When the data is missing, a check is skipped with a printed reason on a user's machine and
//! **fails** when the `CI` environment variable is set, so CI provably runs every oracle.
//!
//! Included with `#[path]` by the test crates and build scripts that need it (it uses only std).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The environment variable naming the folder of the official MCP schemas.
pub(crate) const SPEC_DIR_VAR: &str = "TYPED_MCP_SPEC_DIR";

/// Whether this runs in CI (the `CI` environment variable is set and not empty).
pub(crate) fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|value| !value.is_empty())
}

/// The folder the official MCP schemas are expected in, whether or not it exists.
pub(crate) fn spec_dir_at(repo_root: &Path) -> PathBuf {
    match std::env::var_os(SPEC_DIR_VAR).filter(|value| !value.is_empty()) {
        Some(dir) => repo_root.join(dir),
        None => repo_root.join("../shared/spec/mcp"),
    }
}

/// The folder of the official MCP schemas when it holds `version/schema.json` for every one
/// of `versions`; otherwise `None` after printing why `what` is skipped, or a panic in CI.
pub(crate) fn require_spec_dir(repo_root: &Path, versions: &[&str], what: &str) -> Option<PathBuf> {
    let dir = spec_dir_at(repo_root);
    let missing: Vec<String> = versions
        .iter()
        .map(|version| dir.join(version).join("schema.json"))
        .filter(|schema| !schema.is_file())
        .map(|schema| schema.display().to_string())
        .collect();
    if missing.is_empty() {
        return Some(dir);
    }
    let reason = format!(
        "{what} needs the official MCP schemas, missing: {} (set {SPEC_DIR_VAR} to the folder \
         holding <version>/schema.json)",
        missing.join(", ")
    );
    assert!(!in_ci(), "CI must run every oracle: {reason}");
    eprintln!("SKIPPED: {reason}");
    None
}
