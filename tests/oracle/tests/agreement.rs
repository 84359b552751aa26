//! Oracle (b): on at least 10,000 mutated official examples our generated validators and
//! the `jsonschema` crate give the same verdict. Mutations: drop a member, change a type,
//! break a bound, wrong constant / discriminator, add an unknown member.

mod common;

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Value};

/// Strings that are constants or discriminators somewhere in MCP: swapping one for
/// another makes "wrong const" and "wrong discriminator" mutations.
const CONSTANTS: &[&str] = &[
    "2.0",
    "1.0",
    "tools/call",
    "tools/list",
    "server/discover",
    "resources/read",
    "notifications/cancelled",
    "text",
    "image",
    "audio",
    "resource",
    "resource_link",
    "complete",
    "input_required",
    "form",
    "url",
    "ref/prompt",
    "ref/resource",
    "user",
    "assistant",
    "private",
    "public",
    "string",
    "number",
    "",
];

#[derive(Debug, Clone)]
enum Mutation {
    DropMember,
    ChangeType(u8),
    BreakBound,
    SwapConstant(usize),
    AddMember,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::DropMember),
        (0u8..6).prop_map(Mutation::ChangeType),
        Just(Mutation::BreakBound),
        (0..CONSTANTS.len()).prop_map(Mutation::SwapConstant),
        Just(Mutation::AddMember),
    ]
}

/// Every JSON Pointer inside `value` (the root included).
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                pointers(
                    v,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

fn apply(value: &mut Value, pointer: &str, mutation: &Mutation) {
    let Some(node) = value.pointer_mut(pointer) else {
        return;
    };
    match mutation {
        Mutation::DropMember => match node {
            Value::Object(map) => {
                if let Some(key) = map.keys().next().cloned() {
                    map.remove(&key);
                }
            }
            Value::Array(items) => {
                items.pop();
            }
            other => *other = Value::Null,
        },
        Mutation::ChangeType(kind) => {
            *node = match kind {
                0 => Value::Null,
                1 => json!(true),
                2 => json!(1.5),
                3 => json!("x"),
                4 => json!([]),
                _ => json!({}),
            }
        }
        Mutation::BreakBound => {
            let broken = match &*node {
                Value::Number(_) => json!(-1),
                Value::String(_) => json!(""),
                Value::Array(items) => {
                    let mut longer = items.clone();
                    longer.extend(items.iter().cloned());
                    Value::Array(longer)
                }
                Value::Object(_) => json!({}),
                other => other.clone(),
            };
            *node = broken;
        }
        Mutation::SwapConstant(i) => *node = json!(CONSTANTS[*i]),
        Mutation::AddMember => {
            if let Value::Object(map) = node {
                map.insert("unexpectedMember".into(), json!(1));
            }
        }
    }
}

#[test]
fn validators_agree_with_jsonschema_on_10000_mutated_examples() {
    let Some(dir) = common::examples_dir() else {
        return;
    };
    let examples = common::examples(&dir);
    let mut references: HashMap<String, jsonschema::Validator> = HashMap::new();
    for (name, _, _) in &examples {
        references
            .entry(name.clone())
            .or_insert_with(|| common::reference_validator("2026-07-28", name));
    }
    let cases = 10_000;
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let total = std::cell::Cell::new(0u32);
    let invalid = std::cell::Cell::new(0u32);
    let strategy = (
        0..examples.len(),
        any::<prop::sample::Index>(),
        mutation(),
        mutation(),
    );
    let outcome = runner.run(&strategy, |(which, node, first, second)| {
        let (name, file, original) = &examples[which];
        let mut value = original.clone();
        let mut all = Vec::new();
        pointers(&value, String::new(), &mut all);
        let target = node.get(&all).clone();
        apply(&mut value, &target, &first);
        if which.is_multiple_of(3) {
            // Some cases get a second mutation at the same place or its parent.
            apply(&mut value, &target, &second);
        }
        let ours = (common::definition("2026-07-28", name).validate)(&value);
        let reference = references[name].is_valid(&value);
        total.set(total.get() + 1);
        if !reference {
            invalid.set(invalid.get() + 1);
        }
        if ours.is_ok() != reference {
            return Err(TestCaseError::fail(format!(
                "{}: {first:?} then {second:?} at `{target}`: ours {:?}, jsonschema valid = {reference}\nvalue: {value}",
                file.display(),
                ours.err()
            )));
        }
        Ok(())
    });
    eprintln!(
        "oracle: validator verdicts agree on {}/{} mutated instances ({} invalid per jsonschema)",
        total.get(),
        total.get(),
        invalid.get()
    );
    if let Err(e) = outcome {
        panic!("{e}");
    }
    assert!(total.get() >= cases, "fewer cases ran than configured");
    assert!(
        invalid.get() > cases / 4,
        "mutations should break many instances"
    );
}
