//! Every code block of the README is checked: each `rust` block must appear in one of the
//! fixture crates `tests/downstream/` and `tests/downstream-pull/` (which the workspace
//! compiles, examples included), each `json` block must be JSON, and the limits documents among them must pass the limits validator. A
//! README example that no longer compiles, or that drifted from the compiled copy, fails here.

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

#[test]
fn every_rust_block_of_the_readme_is_compiled_in_the_fixture_crate() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).expect("README");
    let sources = compiled_sources();
    let mut checked = 0;
    let mut missing = Vec::new();
    for (info, body, line) in code_blocks(&readme) {
        let language = info.split(',').next().unwrap_or_default();
        if language != "rust" {
            continue;
        }
        assert_eq!(
            info, "rust",
            "README line {line}: a rust block must not be ignored or no_run ({info})"
        );
        let wanted = normalized(&body);
        assert!(!wanted.is_empty(), "README line {line}: empty rust block");
        if !sources
            .iter()
            .any(|(_, lines)| contains_run(lines, &wanted))
        {
            missing.push(format!("README line {line}: {}", wanted[0]));
        }
        checked += 1;
    }
    assert!(
        missing.is_empty(),
        "README rust blocks not found in tests/downstream (put each in a compiled file):\n{}",
        missing.join("\n")
    );
    assert!(
        checked >= 8,
        "only {checked} rust blocks found: did the parser break?"
    );
    eprintln!("readme: {checked} rust blocks found compiled in the fixture crates");
}

#[test]
fn every_json_block_of_the_readme_is_json_and_limits_blocks_validate() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).expect("README");
    let mut limits_documents = 0;
    for (info, body, line) in code_blocks(&readme) {
        if info != "json" {
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(&body)
            .unwrap_or_else(|error| panic!("README line {line}: not JSON: {error}"));
        let is_limits = value.as_object().is_some_and(|object| {
            ["request", "response", "timeouts", "cache", "http"]
                .iter()
                .any(|key| object.contains_key(*key))
        });
        if is_limits {
            typed_mcp::config::limits_from_value(&value)
                .unwrap_or_else(|error| panic!("README line {line}: invalid limits: {error}"));
            limits_documents += 1;
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
