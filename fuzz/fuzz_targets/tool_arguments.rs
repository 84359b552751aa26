//! The tool argument scanner through the public `ToolRunner::call` with
//! `ToolArguments::Raw`: it never panics, and the handler runs exactly when the bytes are
//! a JSON object within `maxDepth` and `maxArraySize` (a plain recursive model decides),
//! receiving exactly what `serde_json` reads from them; `null` is no arguments, so the
//! handler gets an empty object.
//!
//! Input: byte 0 picks the limits (maxDepth 8..=15, maxArraySize 1..=4), the rest is the
//! raw arguments.
#![no_main]

use std::sync::{Arc, Mutex};

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use typed_mcp::tools::{CallOptions, ToolArguments, ToolEntry, ToolHandler, ToolRunner};

/// Nesting depth of `value`, a scalar being 0 and a container 1 + its deepest member.
fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(members) => 1 + members.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

fn largest_array(value: &Value) -> usize {
    match value {
        Value::Array(items) => items
            .iter()
            .map(largest_array)
            .max()
            .unwrap_or(0)
            .max(items.len()),
        Value::Object(members) => members.values().map(largest_array).max().unwrap_or(0),
        _ => 0,
    }
}

fuzz_target!(|data: &[u8]| {
    let [selector, raw @ ..] = data else {
        return;
    };
    let max_depth = 8 + usize::from(selector & 7);
    let max_array = 1 + usize::from(selector >> 3) % 4;
    let limits = typed_mcp::config::parse_limits(&format!(
        r#"{{"request": {{"maxDepth": {max_depth}, "maxArraySize": {max_array}}}}}"#
    ))
    .expect("valid limits");
    let runner = ToolRunner::new(&limits);
    let received: Arc<Mutex<Option<Value>>> = Arc::default();
    let seen = Arc::clone(&received);
    let entry = ToolEntry::new(ToolHandler::from_async(
        move |_context, arguments: Value| {
            *seen.lock().unwrap() = Some(arguments.clone());
            async move { Ok(Value::Null) }
        },
    ));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let options = CallOptions::with_line_overhead(40);
    let _outcome = runtime.block_on(runner.call("t", &entry, ToolArguments::Raw(raw), options));
    let received = received.lock().unwrap().take();
    // The arguments object is level 3 of the message (message, params, arguments).
    let model = serde_json::from_slice::<Value>(raw)
        .ok()
        .map(|value| match value {
            Value::Null => Value::Object(serde_json::Map::new()),
            other => other,
        })
        .filter(|value| {
            value.is_object() && depth(value) + 2 <= max_depth && largest_array(value) <= max_array
        });
    assert_eq!(
        received, model,
        "the handler's input differs from the model's verdict"
    );
});
