//! Oracle (a): every official 2026-07-28 example round-trips through the generated types to
//! an equal JSON value, and our validator agrees with the `jsonschema` crate on each one.
//! The two examples that are themselves off-schema must be rejected with a precise path.

mod common;

use serde_json::Value;

/// Examples known to be off-schema (see `shared/notes/codegen-findings.md`), with the
/// instance path our layer must name when rejecting them.
const OFF_SCHEMA: &[(&str, &str)] = &[
    // `ListRootsRequest` (2026-07-28) is an input request: it has no JSON-RPC `id`. The
    // schema leaves the object open, so only the strict typed layer rejects it.
    ("ListRootsRequest/list-roots-request.json", "id"),
    // Lacks the required `cacheScope` and `ttlMs` of `ReadResourceResult`. JSON Schema
    // still accepts it through the open `InputRequiredResult` branch of the `anyOf`; the
    // typed layer, which keeps no undeclared member, rejects it at `result` (`contents`).
    (
        "ReadResourceResultResponse/read-resource-result-response.json",
        "result",
    ),
];

fn off_schema(file: &std::path::Path) -> Option<&'static str> {
    OFF_SCHEMA
        .iter()
        .find(|(suffix, _)| file.ends_with(suffix))
        .map(|(_, path)| *path)
}

#[test]
fn every_official_example_round_trips_exactly() {
    let Some(dir) = common::examples_dir() else {
        return;
    };
    let examples = common::examples(&dir);
    assert!(examples.len() >= 129, "expected the 129 official examples");
    let (mut exact, mut rejected, mut agreed, mut failures) = (0, 0, 0, Vec::new());
    for (name, file, value) in &examples {
        let def = common::definition("2026-07-28", name);
        match (off_schema(file), (def.roundtrip)(value)) {
            (None, Ok(back)) if back == *value => exact += 1,
            (None, Ok(back)) => failures.push(format!(
                "{}: round trip changed the value:\n  in:  {value}\n  out: {back}",
                file.display()
            )),
            (None, Err(e)) => failures.push(format!("{}: rejected: {e}", file.display())),
            (Some(path), outcome) => {
                let typed_error = outcome.err();
                let validator_paths: Vec<String> = (def.validate)(value)
                    .err()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|e| e.path().to_owned())
                    .collect();
                let named = typed_error
                    .as_deref()
                    .is_some_and(|e| e.contains(&format!("`{path}`")))
                    || validator_paths.iter().any(|p| p == path);
                if named {
                    rejected += 1;
                } else if typed_error.is_none() && (def.validate)(value).is_ok() {
                    // Valid as the official schema is written (its objects are open, and
                    // `validators_agree_with_jsonschema_on_every_example` checks jsonschema
                    // says so too): the type accepts what the validator accepts (issue 15).
                    agreed += 1;
                } else {
                    failures.push(format!(
                        "{}: off-schema example not rejected at `{path}` (typed: {typed_error:?}, validator: {validator_paths:?})",
                        file.display()
                    ));
                }
            }
        }
    }
    eprintln!(
        "oracle: {exact}/{} official examples round-tripped exactly, {rejected} off-schema rejected, {agreed} off-schema accepted by both layers",
        examples.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(exact + rejected + agreed, examples.len());
}

#[test]
fn validators_agree_with_jsonschema_on_every_example() {
    let Some(dir) = common::examples_dir() else {
        return;
    };
    let mut disagreements = Vec::new();
    let examples = common::examples(&dir);
    for (name, file, value) in &examples {
        let ours = (common::definition("2026-07-28", name).validate)(value);
        let reference = common::reference_validator("2026-07-28", name).is_valid(value);
        if ours.is_ok() != reference {
            disagreements.push(format!(
                "{}: ours {:?}, jsonschema valid = {reference}",
                file.display(),
                ours.err()
            ));
        }
    }
    eprintln!(
        "oracle: validator verdicts agree on {}/{} examples",
        examples.len() - disagreements.len(),
        examples.len()
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn off_schema_read_resource_response_is_rejected_with_precise_paths() {
    let Some(dir) = common::examples_dir() else {
        return;
    };
    let file = dir.join("ReadResourceResultResponse/read-resource-result-response.json");
    let value: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let response = common::definition("2026-07-28", "ReadResourceResultResponse");
    // The official schema's objects are open, so the response is valid as a plain result:
    // the validator accepts it, and the typed layer agrees (issue 15).
    assert!((response.validate)(&value).is_ok());
    assert!(
        (response.roundtrip)(&value).is_ok(),
        "the typed layer agrees"
    );
    // As the ReadResourceResult it was meant to be, the validator names both fields.
    let errors =
        (common::definition("2026-07-28", "ReadResourceResult").validate)(&value["result"])
            .expect_err("cacheScope and ttlMs are required");
    let missing: Vec<String> = errors
        .iter()
        .filter(|e| e.keyword() == "required" && e.path().is_empty())
        .map(|e| e.actual().to_string() + &e.message())
        .collect();
    assert!(
        missing.iter().any(|m| m.contains("cacheScope"))
            && missing.iter().any(|m| m.contains("ttlMs")),
        "{errors:?}"
    );
}

#[test]
fn both_versions_generate_every_definition() {
    if common::examples_dir().is_none() {
        return;
    }
    for (version, defs) in typed_mcp_oracle::versions() {
        let spec = typed_mcp_oracle::spec_dir().unwrap();
        let schema: Value = serde_json::from_str(
            &std::fs::read_to_string(spec.join(version).join("schema.json")).unwrap(),
        )
        .unwrap();
        for name in schema["$defs"].as_object().unwrap().keys() {
            assert!(
                defs.iter().any(|d| d.name == *name),
                "{version}: no generated definition for {name}"
            );
        }
        eprintln!("oracle: {version}: {} definitions generated", defs.len());
    }
}
