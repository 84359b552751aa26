//! The value a rendering keeps for outbound validation is exactly its text, parsed.

use serde_json::{json, Value};

use super::*;

const MODERN: Shape = Shape { legacy: false };
const LEGACY: Shape = Shape { legacy: true };

/// Every kept value equals the parse of the text it goes with. A copy of it is recycled, so
/// the next rendering on this thread writes over it (as the server's do).
fn assert_value_matches(result: &ToolCallResult) {
    if let Some(value) = &result.value {
        let parsed: Value = serde_json::from_str(result.json.get()).unwrap();
        assert_eq!(value.get(), &parsed, "{}", result.json.get());
        value.clone().recycle();
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
        Value::String("long \" \u{1} é ".repeat(40)),
        json!({ "long": "y\"\n".repeat(200), "n": [1.5, 2] }),
        json!(0.1),
        json!(null),
    ]
}

#[test]
fn a_success_keeps_the_value_of_its_text() {
    for data in outputs() {
        for cut_text in [false, true] {
            let result = render_success(
                &data,
                base_meta(3, false),
                (1 << 20, MODERN),
                1 << 20,
                cut_text,
            );
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
            let result = render_success(&data, base_meta(0, true), (budget, MODERN), 4096, true);
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
        let result = render_failure(error.clone(), base_meta(1, false), (budget, MODERN));
        assert_value_matches(&result);
        if budget == 1 << 20 {
            assert!(result.value.is_some());
        }
    }
}

/// The legacy shape is the modern text without `resultType`, cut at the same points.
#[test]
fn the_legacy_shape_is_the_modern_one_without_result_type() {
    let long = Value::String("x\"é\u{1}".repeat(300));
    let strip = |json: &str| {
        let rest = json
            .strip_prefix(concat!("{", r#""resultType":"complete","#))
            .unwrap();
        format!("{{{rest}")
    };
    for budget in [0, 30, 200, 400, 800, 1200, 4000] {
        for data in [long.clone(), json!({ "text": long.clone() }), json!(1)] {
            for cut_text in [false, true] {
                let meta = || base_meta(2, false);
                let modern = render_success(&data, meta(), (budget, MODERN), 4096, cut_text);
                let legacy_budget = LEGACY.budget(budget);
                let legacy = render_success(&data, meta(), (legacy_budget, LEGACY), 4096, cut_text);
                assert_eq!(
                    legacy.json.get(),
                    strip(modern.json.get()),
                    "budget {budget}"
                );
                assert_eq!(legacy.meta, modern.meta);
                assert_eq!(legacy.over_budget, modern.over_budget);
                assert_value_matches(&legacy);
            }
        }
    }
}

/// The same for content-block results, refused at the same size with the same message.
#[test]
fn legacy_content_results_are_the_modern_ones_without_result_type() {
    use crate::tools::content::render_content;
    let blocks = json!([{ "type": "text", "text": "a block" }, { "type": "text", "text": "b" }]);
    let strip = |json: &str| {
        let rest = json
            .strip_prefix(concat!("{", r#""resultType":"complete","#))
            .unwrap();
        format!("{{{rest}")
    };
    for budget in [0, 100, 250, 300, 400, 4000] {
        let modern = render_content(&blocks, base_meta(1, false), (budget, MODERN));
        let legacy = render_content(
            &blocks,
            base_meta(1, false),
            (LEGACY.budget(budget), LEGACY),
        );
        assert_eq!(
            legacy.json.get(),
            strip(modern.json.get()),
            "budget {budget}"
        );
    }
}

/// Writing the output once and pasting it gives the bytes of writing everything in one go.
#[test]
fn a_success_is_written_as_in_one_go() {
    for data in outputs() {
        for shape in [MODERN, LEGACY] {
            let meta = base_meta(5, false);
            let result = render_success(&data, meta.clone(), (1 << 20, shape), 1 << 20, true);
            let text = match &data {
                Value::String(text) => text.clone(),
                other => serde_json::to_string(other).unwrap(),
            };
            let envelope = SuccessOut {
                ok: true,
                data: DataOut::Value(&data),
                meta: &meta,
            };
            let in_one_go = render(text.as_str(), &envelope, false, &meta, shape);
            assert_eq!(result.json.get(), in_one_go.get());
        }
    }
}
