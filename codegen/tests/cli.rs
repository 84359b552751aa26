//! The `typed-mcp-codegen` command: `generate` writes what the library writes, `--check`
//! writes nothing and fails exactly when a file is missing or stale, errors name the schema
//! file and JSON Pointer, and the exit status tells the cases apart. Nothing goes to stdout.

use std::path::{Path, PathBuf};
use std::process::Output;

const BIN: &str = env!("CARGO_BIN_EXE_typed-mcp-codegen");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{name}.json"))
}

fn codegen(args: &[&std::ffi::OsStr]) -> Output {
    let output = std::process::Command::new(BIN)
        .args(args)
        .output()
        .expect("the command runs");
    assert!(
        output.stdout.is_empty(),
        "stdout must stay empty: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    output
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `generate --schema <schemas> --out <out> <extra>`.
fn generate(schemas: &[PathBuf], out: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec!["generate".as_ref(), "--schema".as_ref()];
    args.extend(schemas.iter().map(|s| s.as_os_str()));
    args.extend(["--out".as_ref(), out.as_os_str()]);
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    codegen(&args)
}

fn modified(path: &Path) -> std::time::SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

#[test]
fn generate_writes_what_the_library_generates_and_leaves_fresh_files_alone() {
    let dir = tempfile::tempdir().unwrap();
    let schemas = [fixture("basic"), fixture("unions")];
    let first = generate(&schemas, dir.path(), &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    for (schema, name) in schemas.iter().zip(["basic.rs", "unions.rs"]) {
        let written = std::fs::read_to_string(dir.path().join(name)).unwrap();
        let expected = typed_mcp_codegen::Config::new()
            .generate_string(schema)
            .unwrap();
        assert_eq!(written, expected, "{name}");
    }
    let before = modified(&dir.path().join("basic.rs"));
    let second = generate(&schemas, dir.path(), &[]);
    assert_eq!(second.status.code(), Some(0));
    assert!(stderr(&second).contains("unchanged"), "{}", stderr(&second));
    assert_eq!(modified(&dir.path().join("basic.rs")), before);
}

#[test]
fn check_passes_on_fresh_files_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let schemas = [fixture("refs")];
    assert_eq!(generate(&schemas, dir.path(), &[]).status.code(), Some(0));
    let path = dir.path().join("refs.rs");
    let before = modified(&path);
    let check = generate(&schemas, dir.path(), &["--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    assert!(stderr(&check).contains("fresh"), "{}", stderr(&check));
    assert_eq!(modified(&path), before);
}

#[test]
fn check_fails_on_a_stale_file_naming_it_and_the_lines_and_leaves_it_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let schemas = [fixture("basic"), fixture("refs")];
    assert_eq!(generate(&schemas, dir.path(), &[]).status.code(), Some(0));
    let path = dir.path().join("basic.rs");
    let fresh = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = fresh.lines().collect();
    lines[4] = "// edited by hand";
    let stale = lines.join("\n") + "\n";
    std::fs::write(&path, &stale).unwrap();

    let check = generate(&schemas, dir.path(), &["--check"]);
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    let message = stderr(&check);
    assert!(
        message.contains(&format!("stale: {}", path.display())),
        "{message}"
    );
    assert!(message.contains("line 5"), "{message}");
    assert!(message.contains("1 of 2"), "{message}");
    assert!(
        !message.contains("refs.rs"),
        "a fresh file is not listed: {message}"
    );
    assert!(
        !message.contains("edited by hand"),
        "the summary does not echo file content: {message}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), stale);
}

#[test]
fn check_fails_on_a_missing_file_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("generated");
    let check = generate(&[fixture("basic")], &out, &["--check"]);
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    assert!(stderr(&check).contains("missing"), "{}", stderr(&check));
    assert!(!out.exists(), "--check created {}", out.display());
}

#[test]
fn the_checked_in_snapshots_are_fresh() {
    // What CI runs (.ci/run): the snapshots are generated with the default runtime path
    // and format assertion on.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schemas: Vec<PathBuf> = ["annotations", "basic", "refs", "unions"]
        .into_iter()
        .map(fixture)
        .collect();
    let check = generate(
        &schemas,
        &root.join("tests/snapshots"),
        &["--check", "--format-assertion"],
    );
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    // Without the flag `format` is an annotation, so the checks in them are stale.
    let default = generate(&schemas, &root.join("tests/snapshots"), &["--check"]);
    assert_eq!(default.status.code(), Some(1), "{}", stderr(&default));
}

#[test]
fn runtime_path_names_the_runtime_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let done = generate(
        &[fixture("unions")],
        dir.path(),
        &["--runtime-path", "::mcp"],
    );
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    let code = std::fs::read_to_string(dir.path().join("unions.rs")).unwrap();
    assert!(
        code.contains("::mcp::__private::serde::Deserialize"),
        "{code}"
    );
    assert!(
        code.contains("::mcp::__private::serde_json::Value"),
        "{code}"
    );
    assert!(!code.contains("typed_mcp"), "{code}");
    // Every serde path goes through the runtime: none starts at the crate root.
    for crate_name in ["serde", "serde_json"] {
        let rooted = format!("::{crate_name}::");
        let stray = code
            .match_indices(&rooted)
            .any(|(at, _)| !code[..at].ends_with("__private"));
        assert!(!stray, "a `{rooted}` path left in:\n{code}");
    }
}

#[test]
fn a_broken_schema_fails_with_its_file_and_json_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("tools.json");
    std::fs::write(
        &schema,
        r#"{"$defs": {"Args": {"type": "object", "properties": {"n": {"type": "integr"}}}}}"#,
    )
    .unwrap();
    for extra in [&[][..], &["--check"][..]] {
        let failed = generate(std::slice::from_ref(&schema), dir.path(), extra);
        assert_eq!(failed.status.code(), Some(3), "{}", stderr(&failed));
        let expected = format!("{}#/$defs/Args/properties/n/type", schema.display());
        assert!(stderr(&failed).contains(&expected), "{}", stderr(&failed));
    }
    assert!(!dir.path().join("tools.rs").exists());
}

#[test]
fn usage_errors_exit_2_with_the_usage_and_help_exits_0() {
    for args in [
        &[][..],
        &["generate"][..],
        &["generate", "--schema", "a.json"][..],
        &["generate", "--out", "x"][..],
        &["frobnicate"][..],
        &["generate", "--schema", "a.json", "--out", "x", "--force"][..],
    ] {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        let output = codegen(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(stderr(&output).contains("usage:"), "{args:?}");
    }
    let help = codegen(&["--help".as_ref()]);
    assert_eq!(help.status.code(), Some(0));
    assert!(stderr(&help).contains("--check"));
    let version = codegen(&["--version".as_ref()]);
    assert_eq!(version.status.code(), Some(0));
    assert!(stderr(&version).contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn a_schema_typify_panics_on_generates_without_printing_the_panic() {
    // typify 0.8 panics on this definition (an untyped enum of mixed values); the generator
    // types it as `serde_json::Value` itself, keeping the emitted validator.
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/evaluated/typify_panic.json");
    let dir = tempfile::tempdir().unwrap();
    let done = generate(std::slice::from_ref(&schema), dir.path(), &[]);
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    assert!(
        !stderr(&done).contains("backtrace") && !stderr(&done).contains("thread '"),
        "the panic is caught, not printed: {}",
        stderr(&done)
    );
    let code = std::fs::read_to_string(dir.path().join("typify_panic.rs")).unwrap();
    assert!(code.contains("pub struct A("), "{code}");
    assert!(code.contains("pub fn a_at("), "{code}");
}
