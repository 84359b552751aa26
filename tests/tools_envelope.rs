//! The response envelope: RESP-001 .. RESP-006.

mod tools_support;

use proptest::prelude::*;
use serde_json::{json, Value};
use tools_support::{checked, error_of, limits, options_for, respond, response_line, schema_codes};
use typed_mcp::generated::errors::ToolErrorCode;
use typed_mcp::tools::{
    CallOptions, ToolArguments, ToolCallError, ToolCallResult, ToolEntry, ToolHandler, ToolRunner,
    META_KEY, TRUNCATION_MARKER,
};
use typed_mcp::validation::ValidationError;

fn returning(result: Result<Value, ToolCallError>) -> ToolEntry {
    ToolEntry::new(ToolHandler::from_async(move |_context, _arguments| {
        let result = result.clone();
        async move { result }
    }))
}

fn run(runner: &ToolRunner, entry: &ToolEntry, options: CallOptions) -> ToolCallResult {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    respond(runtime.block_on(runner.call("tool", entry, ToolArguments::Absent, options)))
}

fn meta(json: &Value) -> &Value {
    &json["_meta"][META_KEY]
}

#[test]
fn inv_resp_001_one_envelope_for_success_and_error() {
    let runner = ToolRunner::new(&limits(json!({})));
    let outputs = [
        json!({"sum": 3}),
        json!([1, "two", null]),
        json!("plain text"),
        json!(null),
        json!(4.5),
    ];
    for output in outputs {
        let result = run(
            &runner,
            &returning(Ok(output.clone())),
            CallOptions::with_line_overhead(40),
        );
        let json = checked(&result);
        assert_eq!(json["structuredContent"]["ok"], true);
        assert_eq!(json["structuredContent"]["data"], output);
        assert_eq!(json["isError"], false);
        let text = json["content"][0]["text"].as_str().unwrap();
        match &output {
            Value::String(s) => assert_eq!(text, s),
            other => assert_eq!(serde_json::from_str::<Value>(text).unwrap(), *other),
        }
    }
    let errors = [
        (ToolCallError::failed("disk full"), "TOOL_FAILED"),
        (
            ToolCallError::InvalidArguments(vec![ValidationError::new(
                "/ids",
                "",
                "maxItems",
                json!(2),
                json!(3),
                "too many",
            )]),
            "VALIDATION_FAILED",
        ),
        (
            ToolCallError::InvalidArguments(Vec::new()),
            "VALIDATION_FAILED",
        ),
        (
            ToolCallError::RateLimited {
                retry_after_ms: Some(1000),
            },
            "RATE_LIMITED",
        ),
        (
            ToolCallError::Unavailable {
                message: "down".into(),
            },
            "UNAVAILABLE",
        ),
        (ToolCallError::Cancelled, "CANCELLED"),
        (
            ToolCallError::Internal {
                message: "bug".into(),
            },
            "INTERNAL",
        ),
    ];
    for (error, code) in errors {
        let result = run(
            &runner,
            &returning(Err(error)),
            CallOptions::with_line_overhead(40),
        );
        let json = checked(&result);
        assert_eq!(json["isError"], true);
        assert_eq!(error_of(&json)["code"], code);
        let text = json["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with(code), "text names the code: {text}");
    }
}

#[test]
fn inv_resp_001_official_call_tool_result() {
    let Some(validator) = tools_support::official_call_tool_result() else {
        eprintln!("official schema absent; RESP-001 checked against schema/errors.json only");
        return;
    };
    let runner = ToolRunner::new(&limits(json!({})));
    for entry in [
        returning(Ok(json!({"a": 1}))),
        returning(Err(ToolCallError::failed("x"))),
    ] {
        let result = run(&runner, &entry, CallOptions::with_line_overhead(40));
        let json: Value = serde_json::from_str(result.json.get()).unwrap();
        assert!(validator.is_valid(&json), "{json}");
    }
    // The validator is not vacuous: a result without `content` is rejected.
    assert!(!validator.is_valid(&json!({"resultType": "complete"})));
}

#[test]
fn inv_resp_002_every_error_code_is_generated() {
    // Every code of the closed set, each produced the way it arises: by the runner itself
    // (argument checks, limits, timeout, a panic, an oversized output), by the handler's own
    // error, or decided by the server before any tool runs (`render_error_code`).
    let runner = ToolRunner::new(&limits(json!({
        "request": {"maxArraySize": 1},
        "timeouts": {"defaultTimeoutMs": 20},
        "response": {"maxResponseBytes": 1024}
    })));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let call = |entry: &ToolEntry, arguments: ToolArguments<'_>| {
        respond(runtime.block_on(runner.call(
            "tool",
            entry,
            arguments,
            CallOptions::with_line_overhead(40),
        )))
    };
    let ok = returning(Ok(json!(1)));
    let sleeper = ToolEntry::new(ToolHandler::from_async(|_context, _arguments| async {
        tokio::time::sleep(std::time::Duration::from_secs(30)).await;
        Ok(json!("too late"))
    }));
    let panicking = ToolEntry::new(ToolHandler::from_async(|_context, _arguments| async {
        panic!("a bug in the tool")
    }));
    let handler_errors = [
        ToolCallError::failed("x"),
        ToolCallError::InvalidArguments(Vec::new()),
        ToolCallError::RateLimited {
            retry_after_ms: Some(5),
        },
        ToolCallError::Unavailable {
            message: "down".to_owned(),
        },
        ToolCallError::Cancelled,
        ToolCallError::Internal {
            message: "oops".to_owned(),
        },
    ];
    let mut results = vec![
        call(&ok, ToolArguments::Raw(br#"{"a":[1,2]}"#)),
        call(&ok, ToolArguments::Raw(b"[1]")),
        call(&ok, ToolArguments::Raw(b"{")),
        call(&sleeper, ToolArguments::Absent),
        call(&panicking, ToolArguments::Absent),
        call(
            &returning(Ok(json!({"rows": vec!["x".repeat(50); 40]}))),
            ToolArguments::Absent,
        ),
        runner.render_error_code(
            ToolErrorCode::ToolNotFound,
            "no such tool",
            &CallOptions::with_line_overhead(40),
        ),
    ];
    for error in handler_errors {
        results.push(call(&returning(Err(error)), ToolArguments::Absent));
    }
    // A call with valid arguments and a small output is not an error.
    assert!(!call(&ok, ToolArguments::Raw(b"{}")).is_error);

    let mut seen = std::collections::BTreeSet::new();
    for result in &results {
        assert!(result.is_error, "every call above fails");
        let json = checked(result);
        let code: ToolErrorCode = serde_json::from_value(error_of(&json)["code"].clone()).unwrap();
        assert_eq!(result.error_code, Some(code));
        assert_eq!(error_of(&json)["retryable"], code.is_retryable());
        seen.insert(format!("{code:?}"));
    }
    let known: std::collections::BTreeSet<String> = schema_codes()
        .into_iter()
        .map(|(code, _)| format!("{code:?}"))
        .collect();
    assert_eq!(seen, known, "every code of the schema is produced");
}

proptest! {
    /// RESP-006: `retryable` is membership of the schema's `x-retryable`, for every code.
    #[test]
    fn inv_resp_006_retryable_matches_generated_set(index in 0usize..64) {
        let codes = schema_codes();
        let (code, retryable) = codes[index % codes.len()];
        prop_assert_eq!(code.is_retryable(), retryable);
        prop_assert_eq!(ToolErrorCode::RETRYABLE.contains(&code), retryable);
        let runner = ToolRunner::new(&limits(json!({})));
        let result = runner.render_error_code(code, "x", &CallOptions::with_line_overhead(40));
        let json = checked(&result);
        prop_assert_eq!(&error_of(&json)["retryable"], &Value::Bool(retryable));
    }
}

#[test]
fn inv_resp_006_schema_lists_every_generated_code() {
    assert_eq!(schema_codes().len(), 10);
    let retryable: Vec<_> = schema_codes()
        .into_iter()
        .filter(|(_, r)| *r)
        .map(|(c, _)| c)
        .collect();
    assert_eq!(retryable, ToolErrorCode::RETRYABLE);
}

/// Text with quotes, backslashes, control characters and multi-byte characters.
fn tricky_text() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a", "é", "€", "😀", "\"", "\\", "\n", "\u{1}", "\u{7f}", "𝄞", " ", "/", "~",
    ]);
    prop::collection::vec(piece, 0..3000).prop_map(|pieces| pieces.concat())
}

fn output() -> impl Strategy<Value = Value> {
    prop_oneof![
        tricky_text().prop_map(Value::String),
        prop::collection::vec(tricky_text(), 0..6).prop_map(|items| json!(items)),
        (tricky_text(), 0u64..1000).prop_map(|(s, n)| json!({"name": s, "n": n})),
    ]
}

fn id_json() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..u64::MAX).prop_map(|n| n.to_string()),
        "[a-z\u{e9}\u{20ac}]{0,40}".prop_map(|s| serde_json::to_string(&s).unwrap()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// RESP-003: the JSON-RPC line is at most maxResponseBytes, whatever the output; and
    /// RESP-004: a cut keeps valid JSON and whole characters, records the original size.
    #[test]
    fn inv_resp_003_response_line_within_limit(
        data in output(),
        max in 1024usize..12_000,
        id in id_json(),
        failure in any::<bool>(),
    ) {
        let runner = ToolRunner::new(&limits(json!({"response": {"maxResponseBytes": max}})));
        let entry = if failure {
            let message = data.as_str().unwrap_or("failed").to_owned();
            returning(Err(ToolCallError::failed(message)))
        } else {
            returning(Ok(data.clone()))
        };
        let result = run(&runner, &entry, options_for(&id));
        let line = response_line(&id, &result);
        prop_assert!(line.len() <= max, "line of {} bytes over {}", line.len(), max);
        prop_assert!(!result.over_budget);
        let json = checked(&result);
        let full_size = serde_json::to_string(&data).unwrap().len() as u64;
        if meta(&json)["truncated"] == true {
            prop_assert_eq!(meta(&json)["originalSizeBytes"].as_u64().is_some(), true);
            if !failure {
                // Only text output is cut; it stays a prefix of the original.
                let original = data.as_str().expect("only strings are cut");
                let kept = json["structuredContent"]["data"].as_str().unwrap();
                prop_assert!(original.starts_with(kept));
                prop_assert!(kept.len() < original.len());
                prop_assert_eq!(meta(&json)["originalSizeBytes"].as_u64(), Some(full_size));
                let text = json["content"][0]["text"].as_str().unwrap();
                prop_assert_eq!(text, format!("{kept}{TRUNCATION_MARKER}"));
            }
        } else if !result.is_error {
            prop_assert_eq!(&json["structuredContent"]["data"], &data);
        } else if !failure {
            prop_assert_eq!(&error_of(&json)["code"], "RESPONSE_TOO_LARGE");
            prop_assert!(!data.is_string(), "text output is cut, not refused");
            prop_assert_eq!(error_of(&json)["details"]["outputSizeBytes"].as_u64(), Some(full_size));
        }
    }
}

#[test]
fn inv_resp_004_truncation_at_char_boundary_records_size() {
    let runner = ToolRunner::new(&limits(json!({"response": {"maxResponseBytes": 2048}})));
    let text = "😀é".repeat(2000);
    let result = run(
        &runner,
        &returning(Ok(json!(text))),
        CallOptions::with_line_overhead(40),
    );
    let json = checked(&result);
    assert!(result.json.get().len() <= 2048 - 40);
    assert_eq!(meta(&json)["truncated"], true);
    let original = serde_json::to_string(&text).unwrap().len() as u64;
    assert_eq!(meta(&json)["originalSizeBytes"], original);
    let kept = json["structuredContent"]["data"].as_str().unwrap();
    assert!(!kept.is_empty() && text.starts_with(kept));
    assert!(
        result.cacheable_output.is_none(),
        "a cut result is never cached"
    );
}

#[test]
fn inv_resp_004_structured_output_too_large_is_an_error() {
    let runner = ToolRunner::new(&limits(json!({"response": {"maxResponseBytes": 1024}})));
    let data = json!({"rows": vec!["x".repeat(50); 40]});
    let result = run(
        &runner,
        &returning(Ok(data.clone())),
        CallOptions::with_line_overhead(40),
    );
    let json = checked(&result);
    assert_eq!(error_of(&json)["code"], "RESPONSE_TOO_LARGE");
    assert_eq!(error_of(&json)["retryable"], false);
    assert_eq!(
        error_of(&json)["details"]["outputSizeBytes"],
        serde_json::to_string(&data).unwrap().len()
    );
    assert_eq!(runner.stats().too_large, 1);

    // Output that fits only without its text copy keeps its data whole.
    let data = json!({"rows": vec!["y".repeat(50); 8]});
    let result = run(
        &runner,
        &returning(Ok(data.clone())),
        CallOptions::with_line_overhead(40),
    );
    let json = checked(&result);
    assert_eq!(json["structuredContent"]["data"], data);
    assert_eq!(meta(&json)["truncated"], false);
}

#[test]
fn inv_resp_004_large_error_report_is_shrunk() {
    let runner = ToolRunner::new(&limits(json!({"response": {"maxResponseBytes": 2048}})));
    let violations: Vec<ValidationError> = (0..200)
        .map(|i| {
            ValidationError::new(
                format!("/items/{i}"),
                "",
                "type",
                json!("string"),
                json!("integer"),
                "wrong type",
            )
        })
        .collect();
    let entry = returning(Err(ToolCallError::InvalidArguments(violations)));
    let result = run(&runner, &entry, CallOptions::with_line_overhead(40));
    let json = checked(&result);
    assert!(result.json.get().len() <= 2048 - 40);
    let error = error_of(&json);
    let kept = error["validationErrors"].as_array().unwrap().len();
    assert!((1..200).contains(&kept));
    assert_eq!(error["details"]["totalViolations"], 200);
    assert_eq!(error["details"]["reportedViolations"], kept);
    assert_eq!(meta(&json)["truncated"], true);
}

#[test]
fn inv_resp_005_duration_present_and_cache_hook() {
    let runner = ToolRunner::new(&limits(json!({})));
    let cacheable = returning(Ok(json!({"v": 1}))).cacheable(true);
    let result = run(&runner, &cacheable, CallOptions::with_line_overhead(40));
    let json = checked(&result);
    assert!(meta(&json)["durationMs"].is_u64());
    assert_eq!(meta(&json)["cached"], false);
    assert_eq!(result.cacheable_output, Some(json!({"v": 1})));

    let cached = runner.render_cached(&json!({"v": 1}), &CallOptions::with_line_overhead(40));
    let json = checked(&cached);
    assert_eq!(meta(&json)["cached"], true);
    assert!(meta(&json)["durationMs"].is_u64());
    assert!(cached.cacheable_output.is_none());
    let shared = runner.render_output(
        &json!({"v": 1}),
        false,
        &CallOptions::with_line_overhead(40),
    );
    assert_eq!(meta(&checked(&shared))["cached"], false);

    let plain = run(
        &runner,
        &returning(Ok(json!(1))),
        CallOptions::with_line_overhead(40),
    );
    assert!(plain.cacheable_output.is_none(), "not declared cacheable");
    let failed = run(
        &runner,
        &returning(Err(ToolCallError::failed("x"))).cacheable(true),
        CallOptions::with_line_overhead(40),
    );
    assert!(failed.cacheable_output.is_none(), "errors are not cached");
}
