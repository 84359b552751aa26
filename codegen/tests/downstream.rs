//! The downstream build.rs path, tested for real: the fixture crates of `tests/downstream/`
//! and `tests/downstream-renamed/` are copied to a temporary directory (as standalone
//! packages depending on this workspace's `typed-mcp` and `typed-mcp-codegen` by path) and
//! built with `cargo build --offline -v`; the tests read cargo's own account of what it did
//! (`Fresh` / `Compiling` the fixture, `Running ...build-script-build`).
//!
//! The builds share one target directory under this workspace's `target/tmp`, so only the
//! first build of a test run compiles the dependencies (a few minutes on two cores; later
//! runs reuse them). Every fixture build after that takes seconds. The dependencies come
//! from the workspace's `Cargo.lock`, so `--offline` works once the workspace itself builds.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (the `typed-mcp` package).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen/ lies in the workspace")
        .to_path_buf()
}

/// What a copy's manifest gains: it is a workspace of its own, built with the debug info
/// settings of this workspace's `Cargo.toml` (line tables for the crates, none for
/// dependencies). With cargo's defaults (full debug info everywhere) the shared target
/// directory of a cold run took 1.1 GB instead of 0.6 GB, beside a workspace test build
/// that already fills much of a CI machine's disk.
const COPY_WORKSPACE: &str = "[workspace]\n\n\
[profile.dev]\ndebug = \"line-tables-only\"\n\n\
[profile.dev.package.\"*\"]\ndebug = false\n\n\
[profile.test]\ndebug = \"line-tables-only\"\n";

/// A copy of a fixture crate in a temporary directory.
struct Copy {
    _dir: tempfile::TempDir,
    root: PathBuf,
    package: &'static str,
}

impl Copy {
    /// Copies `tests/<fixture>/` (without `target/`) and points its path dependencies at
    /// this workspace; the copy is a workspace of its own with the workspace's lock file.
    fn of(fixture: &str, package: &'static str) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().join(fixture);
        copy_tree(&workspace().join("tests").join(fixture), &root);
        let manifest = root.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).expect("the fixture's Cargo.toml");
        let codegen = workspace().join("codegen");
        let rewritten = text
            .replace(
                r#"path = "../../codegen""#,
                &format!("path = {:?}", codegen.display().to_string()),
            )
            .replace(
                r#"path = "../..""#,
                &format!("path = {:?}", workspace().display().to_string()),
            );
        assert_ne!(
            rewritten, text,
            "the fixture depends on the workspace by path"
        );
        std::fs::write(&manifest, format!("{rewritten}\n{COPY_WORKSPACE}")).expect("write");
        std::fs::copy(workspace().join("Cargo.lock"), root.join("Cargo.lock"))
            .expect("the workspace's Cargo.lock");
        Self {
            _dir: dir,
            root,
            package,
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// Replaces `from` by `to` in the copy's file `relative` (which must contain it).
    fn edit(&self, relative: &str, from: &str, to: &str) {
        let path = self.path(relative);
        let text = std::fs::read_to_string(&path).expect("the file to edit");
        assert!(text.contains(from), "{relative} does not contain {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).expect("write");
    }

    /// `cargo <subcommand> --offline -v` in the copy.
    fn cargo(&self, subcommand: &str) -> Build {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .args([subcommand, "--offline", "-v", "--message-format=json"])
            .current_dir(&self.root)
            .env("CARGO_TARGET_DIR", shared_target())
            .env("CARGO_TERM_COLOR", "never")
            // Our own cargo's jobserver is not for this build.
            .env_remove("CARGO_MAKEFLAGS")
            .env_remove("MAKEFLAGS")
            .env_remove("MFLAGS")
            .output()
            .expect("cargo runs");
        Build {
            success: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            package: self.package,
            root: self.root.clone(),
        }
    }
}

/// The target directory every copy builds into (dependencies are compiled once).
fn shared_target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("downstream-target")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create");
    for entry in std::fs::read_dir(from).expect("read the fixture") {
        let entry = entry.expect("an entry");
        let name = entry.file_name();
        if name == "target" {
            continue;
        }
        let (source, destination) = (entry.path(), to.join(&name));
        if entry.file_type().expect("a file type").is_dir() {
            copy_tree(&source, &destination);
        } else {
            std::fs::copy(&source, &destination).expect("copy");
        }
    }
}

/// What one `cargo build` said.
struct Build {
    success: bool,
    stdout: String,
    stderr: String,
    package: &'static str,
    root: PathBuf,
}

impl Build {
    fn assert_success(&self) {
        assert!(self.success, "the build failed:\n{}", self.failure());
    }

    /// What cargo said beyond its progress lines (`Fresh`, `Compiling`, `Running`, ...): the
    /// errors and whatever a failed build script or rustc printed. The progress lines of a
    /// build with ~200 dependencies would push the cause out of a CI log's excerpt.
    fn failure(&self) -> String {
        const PROGRESS: [&str; 7] = [
            "Fresh ",
            "Compiling ",
            "Running `",
            "Dirty ",
            "Blocking waiting",
            "Finished ",
            "Locking ",
        ];
        self.stderr
            .lines()
            .filter(|line| {
                let line = line.trim_start();
                !PROGRESS.iter().any(|word| line.starts_with(word))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// cargo's lines about the fixture (and any error), for failure messages.
    fn story(&self) -> String {
        self.stderr
            .lines()
            .filter(|line| line.contains(self.package) || line.contains("error"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Whether cargo ran the fixture's build script (as opposed to compiling it).
    fn ran_build_script(&self) -> bool {
        let marker = format!("/{}-", self.package);
        self.stderr.lines().any(|line| {
            line.trim_start().starts_with("Running `")
                && line.trim_end().ends_with("/build-script-build`")
                && line.contains(&marker)
        })
    }

    /// Whether cargo compiled part of the fixture (`Compiling`); when it did not, it must
    /// have said the fixture is `Fresh`.
    fn compiled_the_fixture(&self) -> bool {
        let status = |word: &str| {
            let prefix = format!("{word} {} v", self.package);
            self.stderr
                .lines()
                .any(|line| line.trim_start().starts_with(&prefix))
        };
        let compiling = status("Compiling");
        assert!(
            compiling || status("Fresh"),
            "cargo said neither Compiling nor Fresh:\n{}",
            self.story()
        );
        compiling
    }

    /// The fixture's `OUT_DIR`, from cargo's `build-script-executed` message.
    fn out_dir(&self) -> PathBuf {
        let root = self.root.display().to_string();
        self.stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|m| m["reason"] == "build-script-executed")
            .find(|m| {
                m["package_id"]
                    .as_str()
                    .is_some_and(|id| id.contains(&root))
            })
            .and_then(|m| m["out_dir"].as_str().map(PathBuf::from))
            .expect("the fixture's build script output")
    }
}

fn modified(path: &Path) -> std::time::SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("a modification time")
}

/// The slow one: five builds of the fixture (the first may compile every dependency).
#[test]
fn slow_downstream_build_regenerates_when_a_schema_changes_and_only_then() {
    let copy = Copy::of("downstream", "typed-mcp-downstream");

    let first = copy.cargo("build");
    first.assert_success();
    assert!(first.ran_build_script(), "{}", first.story());
    let out_dir = first.out_dir();
    let text_tools = out_dir.join("text_tools.rs");
    let math_tools = out_dir.join("math_tools.rs");
    let generated = std::fs::read_to_string(&text_tools).expect("generated code");
    assert!(generated.starts_with("// @generated by typed-mcp-codegen"));
    assert!(generated.contains("The text to shout."));

    // Nothing changed: nothing runs.
    let again = copy.cargo("build");
    again.assert_success();
    assert!(!again.ran_build_script(), "{}", again.story());
    assert!(!again.compiled_the_fixture(), "{}", again.story());

    // An unrelated file of the package: without the build script's rerun-if-changed lines
    // cargo would rerun it for any file of the package.
    copy.edit("README.md", "A crate as", "A small crate as");
    let unrelated = copy.cargo("build");
    unrelated.assert_success();
    assert!(!unrelated.ran_build_script(), "{}", unrelated.story());
    assert!(!unrelated.compiled_the_fixture(), "{}", unrelated.story());

    // The crate's own source: recompiled, not regenerated.
    copy.edit("src/lib.rs", "//! A downstream", "//! An edited downstream");
    let source = copy.cargo("build");
    source.assert_success();
    assert!(!source.ran_build_script(), "{}", source.story());
    assert!(source.compiled_the_fixture(), "{}", source.story());

    // A schema: regenerated and recompiled; the other schema's file is not rewritten.
    let math_before = modified(&math_tools);
    copy.edit(
        "schema/text_tools.json",
        "The text to shout.",
        "The text to shout, loudly.",
    );
    let schema = copy.cargo("build");
    schema.assert_success();
    assert!(schema.ran_build_script(), "{}", schema.story());
    assert!(schema.compiled_the_fixture(), "{}", schema.story());
    assert_eq!(schema.out_dir(), out_dir);
    let regenerated = std::fs::read_to_string(&text_tools).expect("generated code");
    assert!(regenerated.contains("The text to shout, loudly."));
    assert_eq!(
        modified(&math_tools),
        math_before,
        "unchanged output is not rewritten"
    );
}

#[test]
fn downstream_build_fails_on_a_broken_schema_naming_the_file_and_json_pointer() {
    let copy = Copy::of("downstream", "typed-mcp-downstream");
    copy.edit(
        "schema/math_tools.json",
        r#""maxItems": 100"#,
        r#""maxItems": "100""#,
    );
    let broken = copy.cargo("build");
    assert!(!broken.success, "a broken schema built:\n{}", broken.stderr);
    assert!(
        broken
            .stderr
            .contains("schema/math_tools.json#/$defs/MeanArguments/properties/values/maxItems"),
        "{}",
        broken.stderr
    );
}

#[test]
fn downstream_build_with_a_renamed_dependency_compiles_and_its_tests_pass() {
    let copy = Copy::of("downstream-renamed", "typed-mcp-downstream-renamed");
    let manifest = std::fs::read_to_string(copy.path("Cargo.toml")).expect("manifest");
    let dependencies = manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("a [dependencies] table");
    assert!(
        dependencies.contains(r#"mcp = { package = "typed-mcp""#)
            && !dependencies.contains("serde"),
        "the library depends on typed-mcp, renamed, and nothing else:\n{dependencies}"
    );
    let tested = copy.cargo("test");
    tested.assert_success();
    assert!(tested.ran_build_script(), "{}", tested.story());
    let generated = std::fs::read_to_string(tested.out_dir().join("tools.rs")).expect("code");
    assert!(generated.contains("::mcp::__private::serde::Deserialize"));
    assert!(!generated.contains("typed_mcp"));
}

#[test]
fn generated_code_of_another_contract_version_fails_to_compile_against_this_runtime() {
    // A generator writing another version of the contract with the runtime's `__private`
    // module (simulated: the copy's build script rewrites `v1`, this generator's version, in
    // what it generated) must not compile against this runtime.
    let copy = Copy::of("downstream", "typed-mcp-downstream-contract");
    // Another package name, so another OUT_DIR than the copies other tests build in parallel
    // in the shared target directory (the library keeps its name, which main.rs uses).
    copy.edit(
        "Cargo.toml",
        "name = \"typed-mcp-downstream\"",
        "name = \"typed-mcp-downstream-contract\"",
    );
    copy.edit(
        "Cargo.toml",
        "[dependencies]",
        "[lib]\nname = \"typed_mcp_downstream\"\n\n[dependencies]",
    );
    copy.edit(
        "build.rs",
        "        .unwrap_or_else(|error| panic!(\"{error}\"));",
        "        .unwrap_or_else(|error| panic!(\"{error}\"));\n    \
         let out = std::path::PathBuf::from(std::env::var_os(\"OUT_DIR\").unwrap());\n    \
         for file in [\"text_tools.rs\", \"math_tools.rs\"] {\n        \
         let code = std::fs::read_to_string(out.join(file)).unwrap();\n        \
         std::fs::write(out.join(file), code.replace(\"__private::v1::\", \"__private::v0::\")).unwrap();\n    \
         }",
    );
    let mismatched = copy.cargo("build");
    assert!(
        !mismatched.success,
        "code of another contract version compiled:\n{}",
        mismatched.story()
    );
    // rustc's diagnostics are JSON messages on stdout (`--message-format=json`).
    let said = format!("{}{}", mismatched.stdout, mismatched.stderr);
    assert!(
        said.contains("could not find `v0` in `__private`"),
        "rustc did not name the missing contract version; cargo said:\n{}",
        mismatched.failure()
    );
    // The same copy, generated by this generator, compiles (the check above is the version).
    copy.edit("build.rs", "\"__private::v0::\"", "\"__private::v1::\"");
    copy.cargo("build").assert_success();
}

#[test]
fn a_client_call_stops_compiling_when_the_snapshot_changes_an_argument_type() {
    // `tests/downstream-pull` calls the Python server's `add` with `a: Number`; in a copy, the
    // snapshot says `a` is a string now (as `typed-mcp-pull` would record it after the
    // server changed): the generated `AddArguments::a` becomes a `String`, and the call site
    // must fail to compile, in the fixture's own code.
    let copy = Copy::of("downstream-pull", "typed-mcp-downstream-pull");
    copy.edit(
        "mcp/python.json",
        "\"title\": \"A\",\n            \"type\": \"number\"",
        "\"title\": \"A\",\n            \"type\": \"string\"",
    );
    let changed = copy.cargo("build");
    assert!(
        !changed.success,
        "a call with the old argument type compiled:\n{}",
        changed.story()
    );
    // rustc's diagnostics are JSON messages on stdout (`--message-format=json`).
    let errors: Vec<serde_json::Value> = changed
        .stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-message" && m["message"]["level"] == "error")
        .map(|m| m["message"].clone())
        .collect();
    let mismatch = errors
        .iter()
        .find(|e| e["code"]["code"] == "E0308")
        .unwrap_or_else(|| {
            panic!(
                "no mismatched-types error: {errors:#?}\ncargo said:\n{}",
                changed.failure()
            )
        });
    let rendered = mismatch["rendered"].as_str().unwrap_or_default();
    assert!(rendered.contains("src/main.rs"), "{rendered}");
    assert!(
        rendered.contains("expected `String`, found `Number`"),
        "{rendered}"
    );
    // Only the changed argument breaks.
    assert_eq!(
        errors
            .iter()
            .filter(|e| e["code"]["code"] == "E0308")
            .count(),
        1
    );
}
