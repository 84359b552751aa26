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

mod by_hand {
    //! The envelope written by hand ([`envelope_writer`]) is the one `serde_json` writes, and
    //! its value is the parse of its text, for arbitrary texts, outputs, metadata and shapes.

    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;

    /// Any character, with quotes, backslashes and control characters made frequent.
    fn character() -> impl Strategy<Value = char> {
        prop_oneof![
            4 => any::<char>(),
            2 => (0u8..0x20).prop_map(char::from),
            1 => prop::sample::select(vec!['"', '\\', '/', '\u{7f}', '\u{2028}', 'é', '🦀']),
            4 => prop::char::range('a', 'z'),
        ]
    }

    fn text(max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(character(), 0..max).prop_map(String::from_iter)
    }

    fn meta() -> impl Strategy<Value = ResultMeta> {
        let size = prop_oneof![Just(0), Just(u64::MAX), any::<u64>(), 0u64..100_000];
        (
            any::<Option<bool>>(),
            prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>(), 0u64..5000],
            prop::option::of(size),
            any::<Option<bool>>(),
        )
            .prop_map(
                |(cached, duration_ms, original_size_bytes, truncated)| ResultMeta {
                    cached,
                    duration_ms,
                    original_size_bytes,
                    truncated,
                },
            )
    }

    /// A JSON output: strings (short and long), numbers of every kind, nested values.
    fn output() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            text(12).prop_map(Value::String),
        ];
        let nested = leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(text(6), inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        });
        prop_oneof![
            3 => text(40).prop_map(Value::String),
            1 => text(300).prop_map(Value::String),
            3 => nested,
        ]
    }

    fn shape() -> impl Strategy<Value = Shape> {
        any::<bool>().prop_map(|legacy| Shape { legacy })
    }

    /// What `serde_json` writes for the success of `data` (the derived `Serialize` types).
    fn serde_text(data: &Value, meta: &ResultMeta, shape: Shape) -> (String, String) {
        let text = match data {
            Value::String(text) => text.clone(),
            other => serde_json::to_string(other).unwrap(),
        };
        let envelope = SuccessOut {
            ok: true,
            data: DataOut::Value(data),
            meta,
        };
        let json = serde_json::to_string(&result_out(text.as_str(), &envelope, false, meta, shape));
        (text, json.unwrap())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Rendered through `render_success` (by hand when short, pasted when long), in
        /// sequence on one thread so that each value is written over the one before it (of
        /// another shape, output or metadata; a failure's value among them).
        #[test]
        fn a_success_is_the_text_serde_json_writes_and_its_value_is_that_text(
            calls in prop::collection::vec((output(), meta(), shape()), 1..6),
        ) {
            for (data, meta, shape) in &calls {
                let result = render_success(data, meta.clone(), (1 << 24, *shape), 1 << 24, true);
                let (_, expected) = serde_text(data, meta, *shape);
                prop_assert_eq!(result.json.get(), expected.as_str());
                let value = result.value.as_ref().expect("a success keeps its value");
                let parsed: Value = serde_json::from_str(result.json.get()).unwrap();
                prop_assert_eq!(value.get(), &parsed);
                value.clone().recycle();
                if meta.duration_ms.is_multiple_of(3) {
                    let error = tool_error(ToolErrorCode::Internal, "x".to_owned(), None, Vec::new());
                    let failure = render_failure(error, meta.clone(), (1 << 20, *shape));
                    if let Some(value) = failure.value { value.recycle(); }
                }
            }
        }

        /// A text output the runner gives up (`render_text_success`, which moves it into the
        /// value) renders as `render_success` renders a borrowed one: the same text, the same
        /// metadata and flags, a value that is the parse of the text, at budgets that cut or
        /// refuse it too. In sequence on one thread, so that values are written over.
        #[test]
        fn a_given_up_text_renders_as_a_borrowed_one(
            calls in prop::collection::vec(
                (text(300), meta(), shape(), 0usize..900, any::<bool>()),
                1..6,
            ),
        ) {
            for (text, meta, shape, budget, cut_text) in calls {
                let borrowed = Value::String(text.clone());
                let expected =
                    render_success(&borrowed, meta.clone(), (budget, shape), 4096, cut_text);
                let given = render_text_success(text, meta, (budget, shape), 4096, cut_text);
                prop_assert_eq!(given.json.get(), expected.json.get());
                prop_assert_eq!(&given.meta, &expected.meta);
                prop_assert_eq!(given.over_budget, expected.over_budget);
                prop_assert_eq!(given.is_error, expected.is_error);
                prop_assert_eq!(given.value.is_some(), expected.value.is_some());
                if let Some(value) = given.value {
                    let parsed: Value = serde_json::from_str(given.json.get()).unwrap();
                    prop_assert_eq!(value.get(), &parsed);
                    value.recycle();
                }
                if let Some(value) = expected.value { value.recycle(); }
            }
        }

        /// The value writer alone, on any text: a text output, and the same text in a
        /// structured output.
        #[test]
        fn the_value_is_the_parse_of_the_text_for_any_text(
            text in text(64), meta in meta(), shape in shape(), as_output in any::<bool>(),
        ) {
            let data = if as_output {
                Value::String(text)
            } else {
                serde_json::json!({ "t": text })
            };
            let (text, expected) = serde_text(&data, &meta, shape);
            let value = envelope_writer::success_value(&text, &data, &meta, shape).unwrap();
            let parsed: Value = serde_json::from_str(&expected).unwrap();
            prop_assert_eq!(value.get(), &parsed);
            value.recycle();
        }
    }

    /// A value of the same shape is written over in place: its strings keep their buffers.
    #[test]
    fn a_kept_value_of_the_same_shape_is_written_in_place() {
        let text_buffer = |value: &ReusedValue| {
            value.get()["content"][0]["text"]
                .as_str()
                .map(str::as_ptr)
                .unwrap()
        };
        for shape in [MODERN, LEGACY] {
            let data = Value::String("a text long enough to be its own allocation".to_owned());
            let meta = base_meta(7, false);
            let first = envelope_writer::success_value("first text", &data, &meta, shape).unwrap();
            let buffer = text_buffer(&first);
            first.recycle();
            let second = envelope_writer::success_value("second", &data, &meta, shape).unwrap();
            assert_eq!(text_buffer(&second), buffer, "the text's buffer is reused");
            assert_eq!(second.get()["content"][0]["text"], "second");
            second.recycle();
        }
    }
}
