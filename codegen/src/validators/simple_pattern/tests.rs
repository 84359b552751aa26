//! The fast matcher's model against `regress` (the engine the runtime uses otherwise).

use proptest::prelude::*;

use super::{parse, SimplePattern};

fn engine(pattern: &str, s: &str) -> bool {
    regress::Regex::with_flags(pattern, "u")
        .expect("a valid pattern")
        .find(s)
        .is_some()
}

fn agree(pattern: &str, simple: &SimplePattern, s: &str) {
    assert_eq!(
        simple.is_match(s),
        engine(pattern, s),
        "pattern {pattern:?} on {s:?}"
    );
}

#[test]
fn common_tool_schema_patterns_take_the_fast_path() {
    for pattern in [
        "^[a-z][a-z0-9-]*$",
        "^[A-Z]+$",
        r"^\d{4}-\d{2}-\d{2}$",
        r"^[a-zA-Z0-9_.-]+@[a-zA-Z0-9-]+\.[a-z]{2,}$",
        r"^\w+$",
        "^[^/]+$",
        r"^v\d+\.\d+\.\d+$",
        "^prefix",
        r"^\$[0-9]+$",
        "^.{1,10}$",
    ] {
        assert!(parse(pattern).is_some(), "{pattern}");
    }
}

#[test]
fn other_patterns_stay_with_the_engine() {
    for pattern in [
        "[a-z]+",        // unanchored: a search
        "^(ab)+$",       // group
        "^a|b$",         // alternation
        r"^\s+$",        // \s
        r"^\p{L}+$",     // property escape
        "^[a-z]*[a-z]$", // greedy would be wrong: needs backtracking
        "^a*?$",         // lazy
        r"^\bx$",        // assertion
        "^.*x$",         // `.` takes `x` too
        "^a{2,1}$",      // not a quantifier regress accepts either
        r"^[\d-z]$",     // a syntax error in Unicode mode
    ] {
        assert!(parse(pattern).is_none(), "{pattern}");
    }
}

#[test]
fn answers_agree_with_the_engine_on_chosen_cases() {
    let cases: &[(&str, &[&str])] = &[
        (
            "^[a-z][a-z0-9-]*$",
            &["a", "a-1", "", "1a", "ab\n", "aé", "a-"],
        ),
        (
            r"^\d{4}-\d{2}-\d{2}$",
            &["2026-11-25", "2026-1-25", "२०२६-11-25", "2026-11-255"],
        ),
        ("^[^/]+$", &["a/b", "ab", "é", "\u{10FFFF}", ""]),
        (r"^\$[0-9]+$", &["$12", "12", "$"]),
        ("^.{1,3}$", &["abc", "abcd", "a\nb", "\u{2028}", "é"]),
        ("^prefix", &["prefix and more", "pre", "a prefix"]),
        (r"^\w+$", &["snake_case", "kebab-case", "ünïcode"]),
        ("^a{2}b?$", &["aa", "aab", "aaa", "a"]),
    ];
    for (pattern, inputs) in cases {
        let simple = parse(pattern).unwrap_or_else(|| panic!("{pattern} is simple"));
        for s in *inputs {
            agree(pattern, &simple, s);
        }
    }
}

/// A random atom of a pattern: a literal, a class or an escape, with a quantifier.
fn atom() -> impl Strategy<Value = String> {
    let base = prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        Just("-".to_string()),
        Just("é".to_string()),
        Just(r"\d".to_string()),
        Just(r"\w".to_string()),
        Just(".".to_string()),
        Just("[a-c]".to_string()),
        Just("[^a]".to_string()),
        Just("[0-9é-]".to_string()),
        Just(r"\.".to_string()),
    ];
    let quantifier = prop_oneof![
        Just(""),
        Just("*"),
        Just("+"),
        Just("?"),
        Just("{2}"),
        Just("{0,2}"),
        Just("{1,}"),
    ];
    (base, quantifier).prop_map(|(b, q)| format!("{b}{q}"))
}

fn pattern() -> impl Strategy<Value = String> {
    (prop::collection::vec(atom(), 0..5), any::<bool>())
        .prop_map(|(atoms, end)| format!("^{}{}", atoms.concat(), if end { "$" } else { "" }))
}

fn input() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            'a', 'b', 'c', '-', '1', '9', 'é', '.', '\n', '_', '٣', 'Z',
        ]),
        0..8,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    /// Whenever a pattern takes the fast path, its answer is the engine's.
    #[test]
    fn the_fast_path_agrees_with_the_engine(pattern in pattern(), inputs in prop::collection::vec(input(), 1..6)) {
        if let Some(simple) = parse(&pattern) {
            for s in &inputs {
                prop_assert_eq!(simple.is_match(s), engine(&pattern, s), "pattern {:?} on {:?}", pattern, s);
            }
        }
    }
}
