//! The notes board app (`examples/notes_board.rs`, MCP Apps) rendered in a real browser:
//! headless Chromium (Debian's `chromium`, driven by `playwright-core`) opens a host page
//! built on the official `@modelcontextprotocol/ext-apps` host bridge (`AppBridge`), which
//! renders the app's `ui://` resource in a sandboxed iframe. The test types a note in the app
//! and clicks its button; the app calls `pin_note` through the host (postMessage →
//! `AppBridge` → the official TypeScript client → the server over stdio), and the host page
//! shows the tool's result. The screenshot goes to `target/tmp/apps_browser/notes-board.png`
//! (`CARGO_TARGET_TMPDIR`). What it drives is installed by `tests/apps/setup.sh`; missing, the
//! test is skipped with the reason printed, and fails when `CI` is set.

mod example_support;
#[path = "reference_data.rs"]
mod reference_data;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The folder of the browser test's node side.
fn apps_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("apps")
}

/// Skips with the reason on stderr (the harness does not capture it), or fails in CI.
fn unavailable(why: &str) {
    assert!(
        !reference_data::in_ci(),
        "the MCP Apps browser test cannot run in CI: {why}"
    );
    let mut stderr = std::io::stderr().lock();
    let _written = writeln!(stderr, "SKIPPED: MCP Apps browser test: {why}");
}

/// The Chromium to drive: `TYPED_MCP_CHROMIUM`, else Debian's.
fn chromium() -> PathBuf {
    std::env::var_os("TYPED_MCP_CHROMIUM")
        .filter(|path| !path.is_empty())
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

#[test]
fn the_notes_board_calls_a_tool_through_the_official_host_bridge() {
    let dir = apps_dir();
    let chromium = chromium();
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|output| output.status.success()) {
        return unavailable("node is not installed (tests/apps/setup.sh)");
    }
    if !dir
        .join("node_modules/@modelcontextprotocol/ext-apps")
        .is_dir()
        || !dir.join("node_modules/playwright-core").is_dir()
    {
        return unavailable("tests/apps/node_modules is missing: run tests/apps/setup.sh");
    }
    if !chromium.is_file() {
        return unavailable(&format!(
            "no Chromium at {} (tests/apps/setup.sh installs Debian's chromium)",
            chromium.display()
        ));
    }
    let server = example_support::build_example("notes_board");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("apps_browser");
    std::fs::create_dir_all(&out).expect("the output directory is created");
    let screenshot = out.join("notes-board.png");
    let _stale = std::fs::remove_file(&screenshot);

    let output = Command::new("node")
        .arg(dir.join("browser_test.mjs"))
        .arg("--server")
        .arg(&server)
        .arg("--chromium")
        .arg(&chromium)
        .arg("--out")
        .arg(&out)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("node starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the browser test failed ({}):\n{stderr}\n{stdout}",
        output.status
    );
    let report: serde_json::Value = stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str(line).ok())
        .unwrap_or_else(|| panic!("a JSON report on stdout:\n{stdout}\n{stderr}"));
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["uri"], "ui://notes/board.html", "{report}");
    assert_eq!(report["sandbox"], "allow-scripts", "{report}");
    assert_eq!(report["calls"][0]["name"], "pin_note", "{report}");
    let shown = report["hostResult"].as_str().unwrap_or_default();
    assert!(
        shown.starts_with("pin_note: ") && shown.contains("typed in the browser"),
        "the host page shows the tool's result: {report}"
    );
    let png = std::fs::read(&screenshot).expect("the screenshot is written");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1000,
        "a PNG"
    );
    let mut stderr = std::io::stderr().lock();
    let _written = writeln!(
        stderr,
        "apps browser test: screenshot {}",
        screenshot.display()
    );
}
