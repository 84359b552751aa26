//! Every code block of the README and of the guide (`docs/guide/`) is checked: each `rust`
//! block must appear in one of the fixture crates `tests/downstream/` and
//! `tests/downstream-pull/` (which the workspace compiles, examples included), each `json`
//! block must be JSON, and the limits documents among them must pass the limits validator. A README example that no longer compiles, or that drifted from
//! the compiled copy, fails here. Each `sh` command of the user-facing documents must name
//! things that exist in a fresh clone (`readme_commands`); `tests/readme_demo.rs` runs some.

#[path = "readme_support/commands.rs"]
mod readme_commands;

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The fenced code blocks of a Markdown text: (info string, body, line of the fence).
fn code_blocks(markdown: &str) -> Vec<(String, String, usize)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, usize, usize, Vec<&str>)> = None;
    for (number, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let indent = line.len() - trimmed.len();
                    open = Some((info.trim().to_owned(), indent, number + 1, Vec::new()));
                }
            }
            Some((info, indent, start, body)) => {
                if trimmed.starts_with("```") {
                    blocks.push((info.clone(), body.join("\n"), *start));
                    open = None;
                } else {
                    let cut = line.len().min(*indent);
                    body.push(&line[cut..]);
                }
            }
        }
    }
    assert!(open.is_none(), "the README has an unclosed code block");
    blocks
}

/// Lines with surrounding whitespace trimmed, inner whitespace runs collapsed, blanks dropped:
/// formatting may differ between the README and the compiled copy, the code may not.
fn normalized(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect()
}

fn contains_run(haystack: &[String], needle: &[String]) -> bool {
    needle.is_empty()
        || haystack
            .windows(needle.len())
            .any(|window| window == needle)
}

/// The Rust files of the fixture crate, normalized.
fn compiled_sources() -> Vec<(String, Vec<String>)> {
    let mut files = Vec::new();
    for fixture in ["tests/downstream", "tests/downstream-pull"] {
        let crate_dir = Path::new(ROOT).join(fixture);
        files.push(crate_dir.join("build.rs"));
        for folder in ["examples", "src", "tests"] {
            let Ok(entries) = std::fs::read_dir(crate_dir.join(folder)) else {
                continue;
            };
            for entry in entries {
                let path = entry.expect("entry").path();
                if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
    }
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("fixture source");
            (path.display().to_string(), normalized(&text))
        })
        .collect()
}

/// The documents whose code blocks are checked: the README, then the guide's chapters.
fn documents() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_owned()];
    let guide = Path::new(ROOT).join("docs/guide");
    let mut chapters: Vec<String> = std::fs::read_dir(&guide)
        .expect("docs/guide")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/guide/{name}"))
        .collect();
    chapters.sort();
    names.extend(chapters);
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(Path::new(ROOT).join(&name)).expect("document");
            (name, text)
        })
        .collect()
}

#[test]
fn every_rust_block_of_the_readme_and_guide_is_compiled_in_the_fixture_crate() {
    let sources = compiled_sources();
    let mut checked = 0;
    let mut missing = Vec::new();
    for (document, text) in documents() {
        for (info, body, line) in code_blocks(&text) {
            let language = info.split(',').next().unwrap_or_default();
            if language != "rust" {
                continue;
            }
            assert_eq!(
                info, "rust",
                "{document} line {line}: a rust block must not be ignored or no_run ({info})"
            );
            let wanted = normalized(&body);
            assert!(
                !wanted.is_empty(),
                "{document} line {line}: empty rust block"
            );
            if !sources
                .iter()
                .any(|(_, lines)| contains_run(lines, &wanted))
            {
                missing.push(format!("{document} line {line}: {}", wanted[0]));
            }
            checked += 1;
        }
    }
    assert!(
        missing.is_empty(),
        "rust blocks not found in tests/downstream* (put each in a compiled file):\n{}",
        missing.join("\n")
    );
    assert!(
        checked >= 15,
        "only {checked} rust blocks found: did the parser break?"
    );
    eprintln!("readme and guide: {checked} rust blocks found compiled in tests/downstream*");
}

#[test]
fn every_command_of_the_user_documents_names_what_a_fresh_clone_has() {
    let root = Path::new(ROOT);
    let repo = readme_commands::Repository::scan(root);
    let mut names: Vec<(String, String)> = documents();
    for extra in ["CONTRIBUTING.md", "BENCHMARKS.md"] {
        let text = std::fs::read_to_string(root.join(extra)).expect("document");
        names.push((extra.to_owned(), text));
    }
    let mut commands = 0;
    let mut wrong = Vec::new();
    for (document, text) in names {
        for (info, body, line) in code_blocks(&text) {
            if info != "sh" {
                continue;
            }
            for (offset, command) in body.lines().enumerate() {
                commands += 1;
                for problem in repo.check(command) {
                    wrong.push(format!("{document} line {}: {problem}", line + 1 + offset));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "commands naming what does not exist:\n{}",
        wrong.join("\n")
    );
    assert!(
        commands >= 20,
        "only {commands} commands found: did the parser break?"
    );
}

#[test]
fn every_json_block_of_the_readme_and_guide_is_json_and_limits_blocks_validate() {
    let mut limits_documents = 0;
    for (document, text) in documents() {
        for (info, body, line) in code_blocks(&text) {
            if info != "json" {
                continue;
            }
            let value: serde_json::Value = serde_json::from_str(&body)
                .unwrap_or_else(|error| panic!("{document} line {line}: not JSON: {error}"));
            let is_limits = value.as_object().is_some_and(|object| {
                ["request", "response", "timeouts", "cache", "http"]
                    .iter()
                    .any(|key| object.contains_key(*key))
            });
            if is_limits {
                typed_mcp::config::limits_from_value(&value).unwrap_or_else(|error| {
                    panic!("{document} line {line}: invalid limits: {error}")
                });
                limits_documents += 1;
            }
        }
    }
    assert!(
        limits_documents >= 2,
        "the README's limits examples were not found"
    );
}

#[test]
fn the_block_finder_sees_fences_and_indented_fences() {
    let text = "a\n```rust\nlet x = 1;\n```\n  ```sh\n  echo hi\n  ```\n";
    let blocks = code_blocks(text);
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0], ("rust".to_owned(), "let x = 1;".to_owned(), 2));
    assert_eq!(blocks[1].1, "echo hi");
    let haystack = normalized("fn f() {\n    let   x = 1;\n\n    x\n}");
    assert!(contains_run(&haystack, &normalized("let x = 1;\nx")));
    assert!(!contains_run(&haystack, &normalized("let x = 2;")));
}
