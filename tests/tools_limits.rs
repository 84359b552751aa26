//! Request limits checked before the handler: LIMIT-001 .. LIMIT-004 and nesting depth.

mod tools_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{json, Value};
use tools_support::{checked, error_of, limits, respond};
use typed_mcp::tools::{CallOptions, ToolArguments, ToolEntry, ToolHandler, ToolRunner};

/// A handler that counts its calls.
fn counting() -> (ToolEntry, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let entry = ToolEntry::new(ToolHandler::from_async(move |_context, arguments| {
        counter.fetch_add(1, Ordering::SeqCst);
        async move { Ok(arguments) }
    }));
    (entry, calls)
}

fn call(runner: &ToolRunner, tool: &str, entry: &ToolEntry, arguments: ToolArguments<'_>) -> Value {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let options = CallOptions::with_line_overhead(40);
    let result = respond(runtime.block_on(runner.call(tool, entry, arguments, options)));
    checked(&result)
}

/// `(path, actual)` of every reported violation, sorted.
fn violations(json: &Value) -> Vec<(String, u64)> {
    let mut found: Vec<(String, u64)> = error_of(json)["validationErrors"]
        .as_array()
        .expect("validationErrors")
        .iter()
        .map(|v| {
            assert_eq!(v["keyword"], "maxArraySize");
            (
                v["path"].as_str().unwrap().to_owned(),
                v["actual"].as_u64().unwrap(),
            )
        })
        .collect();
    found.sort();
    found
}

/// Reference: every array longer than `limit`, by plain recursion (inputs here are small).
fn model(value: &Value, pointer: &str, limit: usize, out: &mut Vec<(String, u64)>) {
    match value {
        Value::Array(items) => {
            if items.len() > limit {
                out.push((pointer.to_owned(), items.len() as u64));
            }
            for (i, item) in items.iter().enumerate() {
                model(item, &format!("{pointer}/{i}"), limit, out);
            }
        }
        Value::Object(members) => {
            for (key, member) in members {
                let token = key.replace('~', "~0").replace('/', "~1");
                model(member, &format!("{pointer}/{token}"), limit, out);
            }
        }
        _ => {}
    }
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        "[a-z/~\"\\\\é]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 200, 7, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..7).prop_map(Value::Array),
            prop::collection::btree_map("[a-z/~\"é]{0,4}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// LIMIT-001 and LIMIT-004: every array anywhere longer than maxArraySize is reported,
    /// with its pointer, limit and length; raw bytes and parsed values agree with the model.
    #[test]
    fn inv_limit_001_every_oversized_array_reported(inner in arb_json(), limit in 1usize..5, pretty in any::<bool>()) {
        let arguments = json!({"input": inner});
        let runner = ToolRunner::new(&limits(json!({"request": {"maxArraySize": limit}})));
        let (entry, calls) = counting();
        let mut expected = Vec::new();
        model(&arguments, "", limit, &mut expected);
        expected.sort();
        let text = if pretty {
            serde_json::to_string_pretty(&arguments).unwrap()
        } else {
            serde_json::to_string(&arguments).unwrap()
        };
        for json in [
            call(&runner, "t", &entry, ToolArguments::Raw(text.as_bytes())),
            call(&runner, "t", &entry, ToolArguments::Value(arguments.clone())),
        ] {
            if expected.is_empty() {
                prop_assert_eq!(&json["structuredContent"]["data"], &arguments);
            } else {
                prop_assert_eq!(&error_of(&json)["code"], "ARRAY_TOO_LARGE");
                prop_assert_eq!(violations(&json), expected.clone());
                for v in error_of(&json)["validationErrors"].as_array().unwrap() {
                    prop_assert_eq!(v["limit"].as_u64(), Some(limit as u64));
                }
            }
        }
        let expected_calls = if expected.is_empty() { 2 } else { 0 };
        prop_assert_eq!(calls.load(Ordering::SeqCst), expected_calls);
    }
}

#[test]
fn inv_limit_002_handler_not_called() {
    let runner = ToolRunner::new(&limits(json!({"request": {"maxArraySize": 3}})));
    let (entry, calls) = counting();
    let json = call(
        &runner,
        "t",
        &entry,
        ToolArguments::Raw(br#"{"ids":[1,2,3,4]}"#),
    );
    assert_eq!(error_of(&json)["code"], "ARRAY_TOO_LARGE");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    let json = call(
        &runner,
        "t",
        &entry,
        ToolArguments::Raw(br#"{"ids":[1,2,3]}"#),
    );
    assert_eq!(json["structuredContent"]["ok"], true);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "a valid call does reach the handler"
    );
    assert_eq!(runner.stats().rejected_by_limits, 1);
}

#[test]
fn inv_limit_003_tool_limit_overrides_global() {
    let runner = ToolRunner::new(&limits(json!({"request": {
        "maxArraySize": 10,
        "toolArrayLimits": {"batch_get": 2, "bulk": 50}
    }})));
    let (entry, calls) = counting();
    let three = br#"{"ids":[1,2,3]}"#;
    let json = call(&runner, "batch_get", &entry, ToolArguments::Raw(three));
    assert_eq!(error_of(&json)["code"], "ARRAY_TOO_LARGE");
    assert_eq!(error_of(&json)["validationErrors"][0]["limit"], 2);
    let json = call(&runner, "other", &entry, ToolArguments::Raw(three));
    assert_eq!(
        json["structuredContent"]["ok"], true,
        "the global limit applies elsewhere"
    );
    let twenty = json!({ "ids": vec![0; 20] });
    let json = call(
        &runner,
        "bulk",
        &entry,
        ToolArguments::Value(twenty.clone()),
    );
    assert_eq!(
        json["structuredContent"]["ok"], true,
        "a tool limit may be higher"
    );
    let json = call(&runner, "other", &entry, ToolArguments::Value(twenty));
    assert_eq!(error_of(&json)["validationErrors"][0]["limit"], 10);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[test]
fn inv_limit_004_all_violations_with_path_limit_actual() {
    let runner = ToolRunner::new(&limits(json!({"request": {"maxArraySize": 2}})));
    let (entry, _) = counting();
    let raw = br#"{"a/b":[1,2,3],"m~n":{"deep":[[1,2,3,4],[5]]},"ok":[1,2],"t":["x","y","z"]}"#;
    let json = call(&runner, "t", &entry, ToolArguments::Raw(raw));
    assert_eq!(error_of(&json)["code"], "ARRAY_TOO_LARGE");
    let found = error_of(&json)["validationErrors"]
        .as_array()
        .unwrap()
        .clone();
    let summary: Vec<(&str, u64, u64)> = found
        .iter()
        .map(|v| {
            (
                v["path"].as_str().unwrap(),
                v["limit"].as_u64().unwrap(),
                v["actual"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![("/a~1b", 2, 3), ("/m~0n/deep/0", 2, 4), ("/t", 2, 3)],
        "every violation, in document order, with its escaped pointer"
    );
    let text = json["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("/m~0n/deep/0"), "{text}");
    assert!(!text.contains("\"x\""), "the input is not echoed");
}

/// Runs `f` on a thread with a small stack: recursion over deep input would overflow it.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no stack overflow, no panic")
}

/// Regression (issue 13): a run of `{` with no key reached the depth limit and sliced an
/// empty key range, panicking inside the public `ToolRunner::call`.
#[test]
fn malformed_nested_objects_at_the_depth_limit_are_a_clean_error() {
    for count in [62_usize, 63, 64, 65, 200] {
        let raw = "{".repeat(count);
        let runner = ToolRunner::new(&limits(json!({})));
        let (entry, calls) = counting();
        let json = call(&runner, "t", &entry, ToolArguments::Raw(raw.as_bytes()));
        let error = error_of(&json);
        assert_eq!(error["code"], "VALIDATION_FAILED", "{count}");
        assert_eq!(calls.load(Ordering::SeqCst), 0);
    }
}

#[test]
fn inv_limit_depth_100k_nested_arrays_clean_error() {
    let depth = 100_000;
    for closed in [true, false] {
        let mut raw = String::from(r#"{"a":"#);
        raw.push_str(&"[".repeat(depth));
        if closed {
            raw.push_str(&"]".repeat(depth));
            raw.push('}');
        }
        let (json, calls) = on_small_stack(move || {
            let runner = ToolRunner::new(&limits(json!({"request": {"maxDepth": 64}})));
            let (entry, calls) = counting();
            (
                call(&runner, "t", &entry, ToolArguments::Raw(raw.as_bytes())),
                calls,
            )
        });
        let error = error_of(&json);
        assert_eq!(error["code"], "VALIDATION_FAILED");
        let violation = &error["validationErrors"][0];
        assert_eq!(violation["keyword"], "maxDepth");
        assert_eq!(violation["limit"], 64);
        // 62 levels fit inside the arguments (64 minus message and params): the object and
        // 61 arrays; the 62nd array, at /a followed by 61 zeros, is one too many.
        let expected = format!("/a{}", "/0".repeat(61));
        assert_eq!(violation["path"], expected.as_str());
        assert_eq!(calls.load(Ordering::SeqCst), 0);
    }
}

#[test]
fn inv_limit_depth_boundary_and_value_input() {
    let runner = ToolRunner::new(&limits(json!({"request": {"maxDepth": 8}})));
    let (entry, _) = counting();
    // Arguments may nest 6 levels (8 minus message and params): the object and 5 arrays.
    let fits = br#"{"a":[[[[[1]]]]]}"#;
    let json = call(&runner, "t", &entry, ToolArguments::Raw(fits));
    assert_eq!(json["structuredContent"]["ok"], true);
    let too_deep = br#"{"a":[[[[[[1]]]]]]}"#;
    let json = call(&runner, "t", &entry, ToolArguments::Raw(too_deep));
    assert_eq!(
        error_of(&json)["validationErrors"][0]["path"],
        "/a/0/0/0/0/0"
    );
    let value: Value = serde_json::from_slice(too_deep).unwrap();
    let json = call(&runner, "t", &entry, ToolArguments::Value(value));
    assert_eq!(
        error_of(&json)["validationErrors"][0]["path"],
        "/a/0/0/0/0/0"
    );
}

#[test]
fn arguments_must_be_an_object() {
    let runner = ToolRunner::new(&limits(json!({})));
    let (entry, calls) = counting();
    for raw in [&b"[1]"[..], b"3", b"\"s\"", b"{\"a\":", b"{\"a\":1} x"] {
        let json = call(&runner, "t", &entry, ToolArguments::Raw(raw));
        assert_eq!(error_of(&json)["code"], "VALIDATION_FAILED");
        assert_eq!(error_of(&json)["validationErrors"][0]["keyword"], "type");
    }
    let json = call(&runner, "t", &entry, ToolArguments::Raw(b"null"));
    assert_eq!(json["structuredContent"]["data"], json!({}));
    let json = call(&runner, "t", &entry, ToolArguments::Absent);
    assert_eq!(json["structuredContent"]["data"], json!({}));
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

/// An object of scalars (the parsed path's shortcut: no walk) is judged as its raw text is,
/// next to objects that hold a container, at the smallest depth limit and at the default.
#[test]
fn an_object_of_scalars_is_judged_alike_raw_and_parsed() {
    let texts: [&[u8]; 3] = [
        br#"{"a":1,"b":"x","c":null,"d":true}"#,
        br#"{"a":1,"b":[1,2,3]}"#,
        br#"{"a":{"b":{"c":{"d":{"e":{"f":{"g":1}}}}}}}"#,
    ];
    for max_depth in [8, 64] {
        let runner = ToolRunner::new(&limits(
            json!({"request": {"maxDepth": max_depth, "maxArraySize": 2}}),
        ));
        let (entry, _calls) = counting();
        for text in texts {
            let value: Value = serde_json::from_slice(text).unwrap();
            let raw = call(&runner, "t", &entry, ToolArguments::Raw(text));
            let parsed = call(&runner, "t", &entry, ToolArguments::Value(value.clone()));
            // The verdicts, without the timings of the two calls.
            assert_eq!(raw["isError"], parsed["isError"], "maxDepth {max_depth}");
            assert_eq!(
                raw["structuredContent"]["data"], parsed["structuredContent"]["data"],
                "maxDepth {max_depth}"
            );
            assert_eq!(
                raw["structuredContent"]["error"], parsed["structuredContent"]["error"],
                "maxDepth {max_depth}"
            );
        }
        let scalars: Value = serde_json::from_slice(texts[0]).unwrap();
        let json = call(&runner, "t", &entry, ToolArguments::Value(scalars.clone()));
        assert_eq!(json["structuredContent"]["data"], scalars);
    }
}
