//! The runtime's own benches (`benches/cache.rs`, `benches/timeout_overshoot.rs` of the
//! `typed-mcp` package), run through cargo from this bench so their figures appear in the
//! same report without duplicating them.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Runs `cargo bench -p typed-mcp --bench <name>` and returns its output lines.
pub(crate) fn run(name: &str) -> Result<Vec<String>, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new(cargo)
        .current_dir(root)
        .args(["bench", "-q", "-p", "typed-mcp", "--bench", name])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("running cargo bench --bench {name}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo bench --bench {name} failed ({})",
            output.status
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(str::to_owned)
        .collect())
}
