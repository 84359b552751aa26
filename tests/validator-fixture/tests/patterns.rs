//! The generated `pattern` checks (straight-line code for simple patterns, `regress` for the
//! others) against `regress` itself with the `u` flag, the ECMA-262 engine JSON Schema names.

use proptest::prelude::*;
use serde_json::{json, Value};
use validator_fixture::patterns::registry;

fn schema() -> Value {
    serde_json::from_str(include_str!("../schemas/patterns.json")).expect("fixture schema")
}

/// Every definition's pattern with its generated validator.
fn cases() -> Vec<(String, validator_fixture::Validator)> {
    let schema = schema();
    registry::VALIDATORS
        .iter()
        .map(|(name, _, validator)| {
            let pattern = schema["$defs"][*name]["pattern"]
                .as_str()
                .expect("every fixture definition has a pattern")
                .to_string();
            (pattern, *validator)
        })
        .collect()
}

fn engine(pattern: &str, s: &str) -> bool {
    regress::Regex::with_flags(pattern, "u")
        .expect("a valid pattern")
        .find(s)
        .is_some()
}

fn check(s: &str) -> Result<(), TestCaseError> {
    for (pattern, validator) in cases() {
        let ours = validator(&json!(s)).is_ok();
        prop_assert_eq!(
            ours,
            engine(&pattern, s),
            "pattern {:?} on {:?}",
            pattern,
            s
        );
    }
    Ok(())
}

#[test]
fn generated_checks_agree_with_the_engine_on_chosen_strings() {
    for s in [
        "",
        "a",
        "abc",
        "a-1",
        "AB",
        "2026-11-25",
        "v1.2.3",
        "prefix!",
        "$12",
        "aab",
        "é",
        "éé-12",
        "x",
        "bbx",
        "a.b@c.de",
        "ab\n",
        "\u{2028}",
        " \t",
        "a/b",
        "ünï",
        "٣",
    ] {
        check(s).unwrap_or_else(|e| panic!("{e}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn generated_checks_agree_with_the_engine(s in "[a-cxA-Z0-9éü٣./@$_ \\n-]{0,12}") {
        check(&s)?;
    }
}
