//! The official JSON Schema Test Suite (draft 2020-12, required tests) through the generator:
//! how many groups it accepts, whether the accepted ones compile (they are all in this crate,
//! so reaching this test means they do), whether the generated validators give the suite's
//! verdict on every instance, and whether every valid instance survives the generated type
//! (deserialize, serialize) as an equal JSON value (`serde_json::Value` equality: `2` and
//! `2.0` differ).
//!
//! It also prints, per accepted group, whether its validator is generated code or evaluates
//! the schema at run time (and which keyword needed that), and checks the diagnostics: the
//! first violation reported for an invalid instance names a path that exists in the instance
//! and a schema path that leads, through every `$ref` and `$dynamicRef` it names (into the
//! group's schema, a resource it embeds or one of the suite's remote documents; see
//! `support/follow.rs`), to the keyword reported. A run-time group reports the same way (the
//! runtime's evaluator, `typed_mcp::validation::evaluator`), and no generated file carries
//! that evaluator's source.
//!
//! The suite is located by `TYPED_MCP_JSTS_DIR` (default `../shared/jsts` beside the
//! repository). Missing, the test is skipped with a printed reason, or fails when `CI` is set.

#[path = "../../../../tests/reference_data.rs"]
mod reference_data;

use std::collections::BTreeMap;

use jsts_fixture::generated::GROUPS;
use serde_json::Value;

#[path = "support/follow.rs"]
mod follow;

/// The least figures this test accepts; raised as the generator learns more of 2020-12.
const MIN_ACCEPTED: usize = 381;
const MIN_AGREE_PERCENT: f64 = 100.0;
const MIN_ROUND_TRIP_PERCENT: f64 = 100.0;
/// The least number of accepted groups validated by generated code (not at run time).
const MIN_GENERATED: usize = 378;
/// The least number of rejected instances whose first violation passes the diagnostics check.
const MIN_DIAGNOSED: usize = 532;

/// What an exception leaves out of the figures for one instance.
#[derive(PartialEq)]
enum Check {
    /// The validator's verdict.
    Verdict,
    /// The round trip through the generated type.
    RoundTrip,
}

/// Instances left out of one figure, each with its reason:
/// `(file, group index, test description, check, reason)`.
const EXCEPTIONS: &[(&str, usize, &str, Check, &str)] = &[(
    "default.json",
    2,
    "missing properties are not filled in with the default",
    Check::RoundTrip,
    "the generated type fills an absent member with its `default` (typify's serde \
         default, which the runtime's limits rely on), so `{}` comes back as `{\"alpha\":5}`",
)];

struct Figures {
    groups: usize,
    accepted: usize,
    instances: usize,
    agree: usize,
    valid: usize,
    round_trip: usize,
    excepted: usize,
    /// Accepted groups whose type is a Rust type of its own, not a bare JSON value.
    typed: usize,
    /// Accepted groups whose validator is generated code (not run-time evaluation).
    generated: usize,
    /// Instances the suite calls invalid and the validator rejects.
    rejected: usize,
    /// Of those, the ones whose first violation passes the diagnostics check.
    diagnosed: usize,
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

fn exception(file: &str, index: usize, description: &str, check: Check) -> Option<&'static str> {
    EXCEPTIONS
        .iter()
        .find(|(f, i, d, c, _)| *f == file && *i == index && *d == description && *c == check)
        .map(|(_, _, _, _, reason)| *reason)
}

/// Whether the suite is missing: then the test is skipped with a printed reason, or fails
/// when `CI` is set.
fn suite_missing() -> bool {
    let missing = env!("JSTS_MISSING");
    if missing.is_empty() {
        return false;
    }
    assert!(
        !reference_data::in_ci(),
        "CI is set but the JSON Schema Test Suite is missing: {missing}"
    );
    eprintln!("SKIPPED: the JSON Schema Test Suite is missing ({missing}); set TYPED_MCP_JSTS_DIR");
    true
}

#[test]
fn json_schema_test_suite_draft2020_12() {
    if suite_missing() {
        return;
    }
    let dir = std::path::Path::new(env!("JSTS_DIR"));
    let combined = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/jsts.json"))
        .expect("the combined schema the fixture generated code from");
    let resources = follow::Resources::new(
        &dir.join("../../remotes"),
        serde_json::from_str(&combined).expect("JSON"),
    );
    let mut files: BTreeMap<&str, Value> = BTreeMap::new();
    let mut figures = Figures {
        groups: GROUPS.len(),
        accepted: 0,
        instances: 0,
        agree: 0,
        valid: 0,
        round_trip: 0,
        excepted: 0,
        typed: 0,
        generated: 0,
        rejected: 0,
        diagnosed: 0,
    };
    let mut run_time: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut undiagnosed = Vec::new();
    let mut refusals: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    for group in GROUPS {
        let label = format!("{}#{}", group.file, group.index);
        let Some(generated) = group.generated else {
            refusals
                .entry(group.refusal.to_string())
                .or_default()
                .push(label);
            continue;
        };
        figures.accepted += 1;
        figures.typed += usize::from(generated.typed);
        match generated.run_time {
            None => {
                figures.generated += 1;
                println!("group {label}: generated code");
            }
            Some(keyword) => {
                println!("group {label}: run-time evaluation (`{keyword}`)");
                run_time.entry(keyword).or_default().push(label.clone());
            }
        }
        let suite = files.entry(group.file).or_insert_with(|| {
            let text = std::fs::read_to_string(dir.join(group.file)).expect("a suite file");
            serde_json::from_str(&text).expect("a suite file is JSON")
        });
        let tests = suite[group.index]["tests"].as_array().expect("tests");
        for test in tests {
            let description = test["description"].as_str().unwrap_or_default();
            let data = &test["data"];
            let expected = test["valid"].as_bool().expect("valid is a boolean");
            let verdict = (generated.validate)(data);
            if !expected && !verdict {
                figures.rejected += 1;
                let errors = (generated.errors)(data);
                match diagnosis(&resources, data, &errors) {
                    Ok(()) => figures.diagnosed += 1,
                    Err(why) => undiagnosed.push(format!("{label} `{description}`: {why}")),
                }
            }
            if let Some(reason) = exception(group.file, group.index, description, Check::Verdict) {
                figures.excepted += 1;
                println!("exception (verdict {verdict}) {label} `{description}`: {reason}");
            } else if verdict == expected {
                figures.instances += 1;
                figures.agree += 1;
            } else {
                figures.instances += 1;
                problems.push(format!(
                    "verdict {label} `{description}`: expected {expected}, got {verdict}"
                ));
            }
            if expected {
                if let Some(reason) =
                    exception(group.file, group.index, description, Check::RoundTrip)
                {
                    figures.excepted += 1;
                    println!("exception (round-trip) {label} `{description}`: {reason}");
                    continue;
                }
                figures.valid += 1;
                match (generated.round_trip)(data) {
                    Ok(back) if back == *data => figures.round_trip += 1,
                    Ok(back) => problems.push(format!(
                        "round-trip {label} `{description}`: {data} came back as {back}"
                    )),
                    Err(error) => problems.push(format!(
                        "round-trip {label} `{description}`: {data} refused: {error}"
                    )),
                }
            }
        }
    }
    for (reason, groups) in &refusals {
        println!(
            "refused ({}): {reason}: {}",
            groups.len(),
            groups.join(", ")
        );
    }
    for (keyword, groups) in &run_time {
        println!(
            "run time ({}): `{keyword}`: {}",
            groups.len(),
            groups.join(", ")
        );
    }
    for problem in &undiagnosed {
        println!("diagnostics: {problem}");
    }
    for problem in &problems {
        println!("{problem}");
    }
    let Figures {
        groups,
        accepted,
        instances,
        agree,
        valid,
        round_trip,
        excepted,
        typed,
        generated,
        rejected,
        diagnosed,
    } = figures;
    println!("JSON Schema Test Suite, draft 2020-12 (required tests), through typed-mcp-codegen:");
    // Every accepted group is in this crate: the test runs only if they all compiled.
    let compiled = accepted;
    println!(
        "  groups accepted:            {accepted}/{groups} ({:.1}%)",
        percent(accepted, groups)
    );
    println!("  accepted groups compiled:   {compiled}/{accepted} (one generated crate)");
    println!(
        "  typed by a Rust type:       {typed}/{accepted} (the others: a JSON value, no `type`)"
    );
    println!(
        "  verdicts agree:             {agree}/{instances} instances ({:.1}%)",
        percent(agree, instances)
    );
    println!(
        "  valid instances round-trip: {round_trip}/{valid} ({:.1}%)",
        percent(round_trip, valid)
    );
    println!("  documented exceptions:      {excepted} (instance, check) pairs, listed above");
    println!(
        "  validated by generated code: {generated}/{accepted} groups ({:.1}%), at run time: {}",
        percent(generated, accepted),
        accepted - generated
    );
    println!(
        "  diagnostics (path + keyword): {diagnosed}/{rejected} rejected instances ({:.1}%)",
        percent(diagnosed, rejected)
    );
    assert!(
        accepted >= MIN_ACCEPTED,
        "accepted groups fell below {MIN_ACCEPTED}"
    );
    assert!(
        percent(agree, instances) >= MIN_AGREE_PERCENT,
        "verdicts agree on less than {MIN_AGREE_PERCENT}%"
    );
    assert!(
        percent(round_trip, valid) >= MIN_ROUND_TRIP_PERCENT,
        "round-trip below {MIN_ROUND_TRIP_PERCENT}%"
    );
    assert!(
        generated >= MIN_GENERATED,
        "groups validated by generated code fell below {MIN_GENERATED}"
    );
    assert!(
        diagnosed >= MIN_DIAGNOSED,
        "rejected instances with a diagnosed first violation fell below {MIN_DIAGNOSED}"
    );
}

/// Checks the first of `errors` (reported for an invalid `instance` of a group): its path
/// exists in the instance, its schema path (a pointer into the combined file,
/// `/$defs/<group>/...`, through every `$ref` and `$dynamicRef` followed) leads to a place of
/// the group's schema or of a schema it references, and that place is the keyword reported
/// (its last token, the one before for `dependentRequired/<name>`, or a `false` schema for
/// keyword `false`).
fn diagnosis(
    resources: &follow::Resources,
    instance: &Value,
    errors: &[typed_mcp::validation::ValidationError],
) -> Result<(), String> {
    let Some(first) = errors.first() else {
        return Err("rejected with no violation".into());
    };
    let (path, schema_path, keyword) = (first.path(), first.schema_path(), first.keyword());
    if instance.pointer(path).is_none() {
        return Err(format!("path `{path}` is not in the instance"));
    }
    let mut tokens = schema_path
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"));
    if tokens.next().as_deref() != Some("$defs") {
        return Err(format!("schema path `{schema_path}` is not in the group"));
    }
    let Some((schema, base)) = tokens.next().and_then(|group| resources.group(&group)) else {
        return Err(format!("schema path `{schema_path}` is not in the group"));
    };
    let rest: Vec<String> = tokens.collect();
    let Some(at) = resources.walk(schema, &base, &rest) else {
        return Err(format!(
            "schema path `{schema_path}` is not in the schema (through its references)"
        ));
    };
    let last = rest.last().map(String::as_str).unwrap_or_default();
    // A keyword mapping names to what they need (`dependentRequired/<name>`) is one above.
    let parent = rest
        .iter()
        .rev()
        .nth(1)
        .map(String::as_str)
        .unwrap_or_default();
    let names_keyword = last == keyword
        || (keyword == "false" && at == Value::Bool(false))
        || (keyword == "dependentRequired" && parent == keyword);
    if !names_keyword {
        return Err(format!(
            "keyword `{keyword}` is not where schema path `{schema_path}` points"
        ));
    }
    Ok(())
}

/// The suite's generated file calls the runtime's evaluator for its run-time groups; it never
/// carries the evaluator's source (`src/validation/evaluator/`, the only copy).
#[test]
fn the_generated_file_carries_no_evaluator_source() {
    if suite_missing() {
        return;
    }
    let code = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/jsts.rs"))
        .expect("the suite's generated file");
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../src/validation/evaluator");
    let mut lines = 0;
    for entry in std::fs::read_dir(&dir).expect("the runtime's evaluator") {
        let path = entry.expect("a directory entry").path();
        if path.file_name().is_some_and(|name| name == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("an evaluator file");
        for line in text.lines().map(str::trim) {
            if line.len() >= 40 && !line.starts_with("//") {
                lines += 1;
                assert!(!code.contains(line), "the generated file contains `{line}`");
            }
        }
    }
    assert!(
        lines > 100,
        "the evaluator's source was read ({lines} lines)"
    );
    assert!(!code.contains("mod __eval"));
    assert!(
        code.contains("__rt::Evaluator::new("),
        "the run-time groups call the evaluator"
    );
}
