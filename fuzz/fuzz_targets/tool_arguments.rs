//! The tool argument scanner through the public `ToolRunner::call` with
//! `ToolArguments::Raw`: it never panics, and the handler runs exactly when the bytes are
//! a JSON object within `maxDepth` and `maxArraySize` (a plain recursive model decides),
//! receiving exactly what `serde_json` reads from them; `null` is no arguments, so the
//! handler gets an empty object.
//!
//! Duplicate member names: every member counts for the limits, also one a later member of
//! the same name shadows (found by CI's run: `{"a":[1,2,3],"a":{}}` with `maxArraySize` 1).
//!
//! Input: byte 0 picks the limits (maxDepth 8..=15, maxArraySize 1..=4), the rest is the
//! raw arguments.
#![no_main]

use std::sync::{Arc, Mutex};

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use typed_mcp::tools::{CallOptions, ToolArguments, ToolEntry, ToolHandler, ToolRunner};

/// Nesting depth and largest array of a JSON document, counting every member, also one a
/// later member of the same name shadows (the runtime scans the bytes, so it sees them all;
/// a `serde_json::Value` keeps only the last).
#[derive(Default)]
struct Shape {
    /// A scalar is 0, a container 1 + its deepest member.
    depth: usize,
    largest_array: usize,
}

impl Shape {
    fn widen(&mut self, member: Shape) {
        self.depth = self.depth.max(member.depth);
        self.largest_array = self.largest_array.max(member.largest_array);
    }
}

impl<'de> serde::Deserialize<'de> for Shape {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> serde::de::Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
        Ok(Shape::default())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::default())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::default())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
        Ok(Shape::default())
    }

    fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
        Ok(Shape::default())
    }

    fn visit_unit<E>(self) -> Result<Shape, E> {
        Ok(Shape::default())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let mut inner = Shape::default();
        let mut items = 0;
        while let Some(item) = seq.next_element::<Shape>()? {
            items += 1;
            inner.widen(item);
        }
        Ok(Shape {
            depth: 1 + inner.depth,
            largest_array: inner.largest_array.max(items),
        })
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut inner = Shape::default();
        while let Some((_, member)) = map.next_entry::<serde::de::IgnoredAny, Shape>()? {
            inner.widen(member);
        }
        Ok(Shape {
            depth: 1 + inner.depth,
            largest_array: inner.largest_array,
        })
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
            let shape = serde_json::from_slice::<Shape>(raw).unwrap_or_default();
            value.is_object() && shape.depth + 2 <= max_depth && shape.largest_array <= max_array
        });
    assert_eq!(
        received, model,
        "the handler's input differs from the model's verdict"
    );
});
