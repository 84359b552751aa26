//! Checks a documented shell command against the repository, without running it: every
//! `--example`, `--test`, `--bin`, `-p`/`--package`, fuzz target, script and built executable
//! it names must exist in a fresh clone. (Running the commands is `tests/readme_demo.rs`'s job
//! for those that are quick.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What a fresh clone holds, by name.
pub(crate) struct Repository {
    root: PathBuf,
    packages: BTreeSet<String>,
    examples: BTreeSet<String>,
    tests: BTreeSet<String>,
    bins: BTreeSet<String>,
    fuzz_targets: BTreeSet<String>,
}

/// Every file under `dir` (skipping build output, dependencies and hidden folders).
fn files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !(name == "target" || name == "node_modules" || name.starts_with('.')) {
                files(&path, found);
            }
        } else {
            found.push(path);
        }
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The parent folder's name, for `examples/NAME/main.rs` and `src/bin/NAME/main.rs`.
fn parent_name(path: &Path) -> String {
    path.parent().map(stem).unwrap_or_default()
}

impl Repository {
    /// Reads the names from the files under `root`.
    pub(crate) fn scan(root: &Path) -> Self {
        let mut all = Vec::new();
        files(root, &mut all);
        let mut repo = Repository {
            root: root.to_owned(),
            packages: BTreeSet::new(),
            examples: BTreeSet::new(),
            tests: BTreeSet::new(),
            bins: BTreeSet::new(),
            fuzz_targets: BTreeSet::new(),
        };
        for path in &all {
            let relative = path.strip_prefix(root).unwrap_or(path);
            let parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let is_rs = path.extension().is_some_and(|e| e == "rs");
            let folder = |name: &str, depth_from_end: usize| {
                parts.len() > depth_from_end && parts[parts.len() - 1 - depth_from_end] == name
            };
            if path.file_name().is_some_and(|n| n == "Cargo.toml") {
                repo.read_manifest(path);
            } else if is_rs && folder("examples", 1) {
                repo.examples.insert(stem(path));
            } else if is_rs && folder("examples", 2) && stem(path) == "main" {
                repo.examples.insert(parent_name(path));
            } else if is_rs && folder("tests", 1) {
                repo.tests.insert(stem(path));
            } else if is_rs && folder("bin", 1) {
                repo.bins.insert(stem(path));
            } else if is_rs && folder("bin", 2) && stem(path) == "main" {
                repo.bins.insert(parent_name(path));
            } else if is_rs && folder("fuzz_targets", 1) {
                repo.fuzz_targets.insert(stem(path));
            }
        }
        repo
    }

    /// Package names, and the names of targets declared in `[[example]]`/`[[bin]]`/`[[test]]`.
    fn read_manifest(&mut self, path: &Path) {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let mut section = String::new();
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line.to_owned();
                continue;
            }
            let Some(value) = line
                .strip_prefix("name = \"")
                .and_then(|rest| rest.strip_suffix('"'))
            else {
                continue;
            };
            let set = match section.as_str() {
                "[package]" => &mut self.packages,
                "[[example]]" => &mut self.examples,
                "[[bin]]" => &mut self.bins,
                "[[test]]" => &mut self.tests,
                _ => continue,
            };
            set.insert(value.to_owned());
        }
    }

    /// What in `line` names something this repository does not have.
    pub(crate) fn check(&self, line: &str) -> Vec<String> {
        let mut problems = Vec::new();
        for command in commands(line) {
            self.check_command(&command, &mut problems);
        }
        problems
    }

    fn check_command(&self, words: &[String], problems: &mut Vec<String>) {
        let Some(program) = words.first() else {
            return;
        };
        // A program given by path: a script of the repository, a built example or binary.
        if program.contains('/') && !program.contains("://") {
            if let Some(example) = program
                .strip_prefix("target/release/examples/")
                .or_else(|| program.strip_prefix("target/debug/examples/"))
            {
                need(problems, "example", &self.examples, example);
            } else if let Some(bin) = program
                .strip_prefix("target/release/")
                .or_else(|| program.strip_prefix("target/debug/"))
            {
                need(problems, "binary", &self.bins, bin);
            } else if !self.root.join(program).exists() {
                problems.push(format!("no file `{program}`"));
            }
        }
        if program == "bash" || program == "sh" || program == "python3" {
            if let Some(script) = words.get(1).filter(|w| !w.starts_with('-')) {
                if !self.root.join(script).exists() {
                    problems.push(format!("no file `{script}`"));
                }
            }
        }
        for (index, word) in words.iter().enumerate() {
            let next = words.get(index + 1).map(String::as_str).unwrap_or("");
            match word.as_str() {
                "--example" => need(problems, "example", &self.examples, next),
                "--test" => need(problems, "test target", &self.tests, next),
                "--bin" => need(problems, "binary", &self.bins, next),
                "-p" | "--package" => need(problems, "package", &self.packages, next),
                "--path" if !self.root.join(next).is_dir() => {
                    problems.push(format!("no folder `{next}`"));
                }
                _ => {}
            }
        }
        // `cargo fuzz run [OPTIONS] TARGET`
        if words.len() > 2 && words[0] == "cargo" && words[1] == "fuzz" && words[2] == "run" {
            let mut rest = words[3..].iter();
            while let Some(word) = rest.next() {
                if word == "--sanitizer" || word == "--target-dir" {
                    rest.next();
                } else if !word.starts_with('-') {
                    need(problems, "fuzz target", &self.fuzz_targets, word);
                    break;
                }
            }
        }
    }
}

/// Notes `name` as missing unless `set` holds it.
fn need(problems: &mut Vec<String>, kind: &str, set: &BTreeSet<String>, name: &str) {
    if !set.contains(name) {
        problems.push(format!("no {kind} `{name}`"));
    }
}

/// The simple commands of a shell line, each as its words: quotes kept whole (`'..'`, `".."`),
/// a comment dropped, split at `&&`, `||`, `|`, `;` and a trailing `&`; leading `VAR=value`
/// assignments dropped.
pub(crate) fn commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut rest = line.trim();
    while !rest.is_empty() {
        let (word, after) = if let Some(quoted) = rest.strip_prefix('\'') {
            let (word, after) = quoted.split_once('\'').unwrap_or((quoted, ""));
            (word.to_owned(), after)
        } else if let Some(quoted) = rest.strip_prefix('"') {
            let (word, after) = quoted.split_once('"').unwrap_or((quoted, ""));
            (word.to_owned(), after)
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            (rest[..end].to_owned(), &rest[end..])
        };
        rest = after.trim_start();
        if word.starts_with('#') {
            break;
        }
        if ["&&", "||", "|", ";", "&"].contains(&word.as_str()) {
            commands.push(Vec::new());
            continue;
        }
        let current = commands.last_mut().expect("at least one command");
        if current.is_empty() && word.contains('=') && !word.starts_with('-') {
            continue;
        }
        current.push(word);
    }
    commands.retain(|words| !words.is_empty());
    commands
}

#[test]
fn the_command_checker_finds_what_is_missing() {
    let repo = Repository::scan(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(repo
        .check("cargo run --example demo_server -- --http 127.0.0.1:8080")
        .is_empty());
    assert!(repo
        .check("bash tests/setup.sh && cargo test --workspace --locked")
        .is_empty());
    assert_eq!(
        repo.check("cargo run --example no_such_example"),
        ["no example `no_such_example`"]
    );
    assert_eq!(
        repo.check("RUST_LOG=debug cargo test --test no_such_test   # a comment --bin x"),
        ["no test target `no_such_test`"]
    );
    assert_eq!(
        repo.check("cargo build -p no-such-crate | bash tests/no_such.sh"),
        ["no package `no-such-crate`", "no file `tests/no_such.sh`"]
    );
    assert_eq!(
        repo.check("target/release/examples/nothing call add '{\"a\": 1}'"),
        ["no example `nothing`"]
    );
    assert_eq!(
        repo.check("target/release/nothing tools && target/debug/typed-mcp tools"),
        ["no binary `nothing`"]
    );
    assert_eq!(
        repo.check("cargo fuzz run --sanitizer none no_target"),
        ["no fuzz target `no_target`"]
    );
    assert_eq!(
        commands("echo '{\"a\":1}' | cargo run -q --example demo_server &"),
        [
            vec!["echo".to_owned(), "{\"a\":1}".to_owned()],
            ["cargo", "run", "-q", "--example", "demo_server"]
                .map(str::to_owned)
                .to_vec()
        ]
    );
}
