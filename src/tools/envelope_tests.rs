//! The value a rendering keeps for outbound validation is exactly its text, parsed.

use serde_json::{json, Value};

use super::*;

/// Every kept value equals the parse of the text it goes with.
fn assert_value_matches(result: &ToolCallResult) {
    if let Some(value) = &result.value {
        let parsed: Value = serde_json::from_str(result.json.get()).unwrap();
        assert_eq!(value, &parsed, "{}", result.json.get());
    }
}

fn outputs() -> Vec<Value> {
    vec![
        json!(""),
        json!("plain text"),
        json!("quote \" backslash \\ slash / nul \u{0} bell \u{7} del \u{7f} tab \t lf \n"),
        json!("é, 漢字, 🦀, \u{2028}\u{2029}"),
        json!({"sum": 3.5, "n": -1, "big": u64::MAX, "list": [1, "a", null, true]}),
        json!([{"nested": {"deep": ["x\"y"]}}]),
        json!(0.1),
        json!(null),
    ]
}

#[test]
fn a_success_keeps_the_value_of_its_text() {
    for data in outputs() {
        for cut_text in [false, true] {
            let result = render_success(&data, base_meta(3, false), 1 << 20, 1 << 20, cut_text);
            assert!(result.value.is_some(), "the common path keeps the value");
            assert_value_matches(&result);
        }
    }
}

#[test]
fn a_cut_or_refused_result_keeps_no_value_or_the_right_one() {
    let long = Value::String("x\"é".repeat(400));
    for budget in [0, 200, 400, 800, 1200] {
        for data in [long.clone(), json!({ "text": long.clone() })] {
            let result = render_success(&data, base_meta(0, true), budget, 4096, true);
            assert_value_matches(&result);
        }
    }
}

#[test]
fn a_failure_keeps_the_value_of_its_text() {
    let violations = (0..30)
        .map(|i| {
            ValidationError::new(
                format!("/items/{i}"),
                "/$defs/X/type",
                "type",
                json!("string"),
                json!("integer"),
                "expected \"string\"",
            )
        })
        .collect();
    let error = tool_error(
        ToolErrorCode::ValidationFailed,
        "30 argument violation(s)".to_owned(),
        None,
        violations,
    );
    for budget in [1 << 20, 2000, 600, 100] {
        let result = render_failure(error.clone(), base_meta(1, false), budget);
        assert_value_matches(&result);
        if budget == 1 << 20 {
            assert!(result.value.is_some());
        }
    }
}
