//! Loading `Limits` from files, strings and values: defaults, complete violation lists,
//! unknown members, malformed JSON and unreadable files.

mod echo_support;

use std::io::Write;

use serde_json::json;
use typed_mcp::config::{
    limits_from_value, load_limits, parse_limits, parse_limits_slice, warnings, ConfigError,
    ConfigWarning, SyntaxErrorKind,
};
use typed_mcp::generated::limits::{EvictionPolicy, Limits};

fn write_temp(content: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(content).expect("write temp file");
    file
}

#[test]
fn valid_file_is_loaded_with_its_values() {
    let file = write_temp(
        br#"{
            "cache": {"maxSizeBytes": 134217728, "ttlMs": 60000, "evictionPolicy": "lfu"},
            "timeouts": {
                "defaultTimeoutMs": 10000,
                "toolTimeouts": {"search": 60000},
                "toolCategories": {"web_search": "search"},
                "toolOverrides": {"build_index": 600000}
            },
            "response": {"maxResponseBytes": 4194304},
            "request": {"maxArraySize": 1000, "toolArrayLimits": {"batch_get": 50}, "maxDepth": 32}
        }"#,
    );
    let limits = load_limits(file.path()).expect("valid configuration");
    assert_eq!(limits.cache.max_size_bytes.get(), 134_217_728);
    assert_eq!(limits.cache.ttl_ms.get(), 60_000);
    assert_eq!(limits.cache.eviction_policy, EvictionPolicy::Lfu);
    // Absent members in a present section still take their defaults.
    assert_eq!(limits.cache.max_entries.get(), 10_000);
    assert_eq!(limits.timeouts.default_timeout_ms.get(), 10_000);
    let overrides = limits.timeouts.tool_overrides.as_ref().unwrap();
    assert_eq!(overrides["build_index"].get(), 600_000);
    assert_eq!(limits.response.max_response_bytes, 4_194_304);
    assert_eq!(limits.request.max_array_size.get(), 1000);
    assert_eq!(limits.request.max_depth, 32);
    let array_limits = limits.request.tool_array_limits.as_ref().unwrap();
    assert_eq!(array_limits["batch_get"].get(), 50);
    assert!(warnings(&limits).is_empty());
}

#[test]
fn empty_object_gives_the_schema_defaults() {
    let limits = parse_limits("{}").expect("{} is a complete configuration");
    assert_eq!(limits, Limits::default());
    assert_eq!(limits.cache.max_size_bytes.get(), 64 * 1024 * 1024);
    assert_eq!(limits.cache.max_entries.get(), 10_000);
    assert_eq!(limits.cache.ttl_ms.get(), 300_000);
    assert_eq!(limits.cache.eviction_policy, EvictionPolicy::Lru);
    assert_eq!(limits.cache.high_water_mark.get(), 90);
    assert_eq!(limits.cache.cleanup_interval_ms.get(), 30_000);
    assert_eq!(limits.timeouts.default_timeout_ms.get(), 30_000);
    assert_eq!(limits.response.max_response_bytes, 1024 * 1024);
    assert_eq!(limits.request.max_array_size.get(), 10_000);
    assert_eq!(limits.request.max_line_bytes, 16 * 1024 * 1024);
    assert_eq!(limits.request.max_depth, 64);
    // The same through the file and value entry points.
    let file = write_temp(b" {} \n");
    assert_eq!(load_limits(file.path()).unwrap(), limits);
    assert_eq!(limits_from_value(&json!({})).unwrap(), limits);
}

#[test]
fn every_violation_is_reported_with_path_limit_and_actual() {
    let text = r#"{
        "cache": {"maxEntries": 0, "highWaterMark": 101, "evictionPolicy": "random"},
        "timeouts": {"toolOverrides": {"slow/tool": 0}},
        "response": {"maxResponseBytes": 10},
        "request": {"maxDepth": 1000, "maxArraySize": "many"}
    }"#;
    let error = parse_limits(text).expect_err("seven violations");
    let ConfigError::Invalid { path, violations } = &error else {
        panic!("expected Invalid, got {error:?}");
    };
    assert!(path.is_none());
    let mut found: Vec<(&str, &str)> = violations.iter().map(|v| (v.path(), v.keyword())).collect();
    found.sort_unstable();
    assert_eq!(
        found,
        [
            ("/cache/evictionPolicy", "enum"),
            ("/cache/highWaterMark", "maximum"),
            ("/cache/maxEntries", "minimum"),
            ("/request/maxArraySize", "type"),
            ("/request/maxDepth", "maximum"),
            ("/response/maxResponseBytes", "minimum"),
            ("/timeouts/toolOverrides/slow~1tool", "minimum"),
        ]
    );
    let by_path = |p: &str| violations.iter().find(|v| v.path() == p).unwrap();
    assert_eq!(by_path("/cache/maxEntries").limit(), json!(1));
    assert_eq!(by_path("/cache/maxEntries").actual(), json!(0));
    assert_eq!(by_path("/request/maxDepth").limit(), json!(128));
    assert_eq!(by_path("/request/maxDepth").actual(), json!(1000));
    assert_eq!(by_path("/response/maxResponseBytes").limit(), json!(1024));
    assert_eq!(error.violations().len(), 7);

    // Display: a summary line, then one line per violation naming path, limit and actual.
    let message = error.to_string();
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(lines.len(), 8, "{message}");
    assert!(lines[0].contains("7 violations"), "{message}");
    for violation in violations {
        let line = lines
            .iter()
            .find(|line| {
                line.trim_start()
                    .starts_with(&format!("{}:", violation.path()))
            })
            .unwrap_or_else(|| panic!("no line for {}: {message}", violation.path()));
        assert!(
            line.contains(&format!("limit {}", violation.limit())),
            "{line}"
        );
        assert!(
            line.contains(&format!("actual {}", violation.actual())),
            "{line}"
        );
    }
}

#[test]
fn violations_in_a_file_name_the_file() {
    let file = write_temp(br#"{"cache": {"ttlMs": 0}}"#);
    let error = load_limits(file.path()).expect_err("ttlMs below minimum");
    assert_eq!(error.path(), Some(file.path()));
    assert_eq!(error.violations().len(), 1);
    assert!(error
        .to_string()
        .contains(&file.path().display().to_string()));
}

#[test]
fn unknown_members_are_rejected_at_every_level() {
    let error = parse_limits(r#"{"cahce": {}, "cache": {"maxEntires": 5}}"#).unwrap_err();
    let mut paths: Vec<&str> = error
        .violations()
        .iter()
        .map(|v| {
            assert_eq!(v.keyword(), "additionalProperties");
            v.path()
        })
        .collect();
    paths.sort_unstable();
    assert_eq!(paths, ["/cache/maxEntires", "/cahce"]);
}

#[test]
fn non_object_documents_are_rejected() {
    for text in ["[]", "null", "42", r#""limits""#] {
        let error = parse_limits(text).unwrap_err();
        let [violation] = error.violations() else {
            panic!("{text}: {error:?}");
        };
        assert_eq!(violation.path(), "");
        assert_eq!(violation.keyword(), "type");
    }
}

#[test]
fn malformed_json_gives_line_and_column_without_content() {
    let text = "{\n  \"cache\": {\"maxEntries\": 5,}\n}";
    let error = parse_limits(text).unwrap_err();
    let ConfigError::Syntax {
        kind, line, column, ..
    } = error
    else {
        panic!("expected Syntax, got {error:?}");
    };
    assert_eq!(kind, SyntaxErrorKind::Malformed);
    assert_eq!((line, column), (2, 29)); // the `}` after the trailing comma
    let message = error.to_string();
    assert!(message.contains("line 2, column 29"), "{message}");

    // The content (here a secret-looking token) is never echoed.
    let error = parse_limits("{\"cache\": SECRET_TOKEN_123}").unwrap_err();
    let message = format!("{error} {error:?}");
    assert!(!message.contains("SECRET"), "{message}");

    let error = parse_limits("{\"cache\": {").unwrap_err();
    assert!(matches!(
        error,
        ConfigError::Syntax {
            kind: SyntaxErrorKind::UnexpectedEnd,
            ..
        }
    ));
    assert!(matches!(
        parse_limits("").unwrap_err(),
        ConfigError::Syntax {
            kind: SyntaxErrorKind::UnexpectedEnd,
            ..
        }
    ));
    assert!(matches!(
        parse_limits_slice(b"{\"a\xff\": 1}").unwrap_err(),
        ConfigError::Syntax {
            kind: SyntaxErrorKind::Malformed,
            ..
        }
    ));
}

#[test]
fn malformed_file_names_the_file() {
    let file = write_temp(b"{\"cache\": nope}");
    let error = load_limits(file.path()).unwrap_err();
    assert!(matches!(error, ConfigError::Syntax { line: 1, .. }));
    assert_eq!(error.path(), Some(file.path()));
    let message = error.to_string();
    assert!(message.contains(&file.path().display().to_string()));
    assert!(!message.contains("nope"), "{message}");
}

#[test]
fn missing_file_is_an_io_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-limits.json");
    let error = load_limits(&missing).unwrap_err();
    let ConfigError::Read { path, source } = &error else {
        panic!("expected Read, got {error:?}");
    };
    assert_eq!(path, &missing);
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert!(error.to_string().contains("no-such-limits.json"));
    assert!(std::error::Error::source(&error).is_some());
}

#[test]
fn category_without_timeout_is_a_warning_not_an_error() {
    let limits = parse_limits(
        r#"{"timeouts": {"toolTimeouts": {"search": 100}, "toolCategories": {"a/b": "search", "c": "build"}}}"#,
    )
    .expect("valid");
    assert_eq!(
        warnings(&limits),
        [ConfigWarning::UntimedCategory {
            tool: "c".into(),
            category: "build".into()
        }]
    );
    let limits =
        parse_limits(r#"{"timeouts": {"toolCategories": {"a/b": "search"}}}"#).expect("valid");
    let text = warnings(&limits)[0].to_string();
    assert!(text.starts_with("/timeouts/toolCategories/a~1b:"), "{text}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(
        parse_limits(&text).unwrap_err(),
        ConfigError::Syntax { .. }
    ));
}

/// Runs the echo server with `args`, feeding `input` and closing stdin.
fn run_echo(args: &[&str], input: &[u8]) -> std::process::Output {
    use std::process::{Command, Stdio};
    let mut child = Command::new(echo_support::echo_server())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("echo binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A server that refuses to start closes stdin early: ignore a broken pipe here.
    let feeder = std::thread::spawn(move || stdin.write_all(&input).is_ok());
    let output = child.wait_with_output().unwrap();
    let _fed: bool = feeder.join().unwrap();
    output
}

#[test]
fn invalid_configuration_means_nothing_starts() {
    let file = write_temp(br#"{"request": {"maxLineBytes": 10, "maxDepth": 4}}"#);
    let path = file.path().to_str().unwrap();
    let output = run_echo(
        &["--config", path],
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing was served");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/request/maxLineBytes"), "{stderr}");
    assert!(stderr.contains("/request/maxDepth"), "{stderr}");
}

#[test]
fn valid_configuration_sets_the_line_limit() {
    let file = write_temp(br#"{"request": {"maxLineBytes": 1024}}"#);
    let path = file.path().to_str().unwrap();
    let mut input = vec![b'x'; 2000];
    input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    let output = run_echo(&["--config", path], &input);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["error"]["data"]["limit"], 1024);
    assert_eq!(lines[1]["result"], json!({}));
}
