//! The generated types and validators of the snapshot fixtures behave as their schemas say.

use serde_json::{json, Value};
use typed_mcp::validation::SchemaValidate;

use typed_mcp_snapshots::{annotations, basic, refs, unions};

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(value: Value) -> Value {
    let typed: T = serde_json::from_value(value).expect("deserializes");
    serde_json::to_value(typed).expect("serializes")
}

#[test]
fn numbers_and_empty_objects_round_trip_exactly() {
    let widget =
        json!({"kind": "widget", "name": "w", "weight": 50, "settings": {"verbose": false}});
    // Members with a schema `default` are filled in when deserializing (the typed value is
    // the effective one), so they come back out explicitly.
    let mut effective = widget.clone();
    effective["settings"]["level"] = json!(3);
    assert_eq!(round_trip::<basic::Widget>(widget), effective);
    let fractional = json!({"kind": "widget", "name": "w", "weight": 0.25});
    assert_eq!(round_trip::<basic::Widget>(fractional.clone()), fractional);
    let bare = json!({"kind": "widget", "name": "w"});
    assert_eq!(
        round_trip::<basic::Widget>(bare.clone()),
        bare,
        "absent stays absent"
    );
}

#[test]
fn an_integral_number_is_an_integer_to_the_types_as_to_the_validator() {
    // JSON Schema counts `4.0` as an integer: the validator accepts it, and so do the
    // generated `u64`/`i64` members (absent stays absent, the default still applies).
    let widget = json!({"kind": "widget", "name": "w", "count": 4.0, "settings": {"level": 2.0}});
    assert!(basic::Widget::validate_value(&widget).is_ok());
    let typed: basic::Widget = serde_json::from_value(widget).expect("an integral 4.0");
    assert_eq!(typed.count, Some(4));
    assert_eq!(typed.settings.as_ref().map(|s| s.level), Some(2));
    let absent: basic::Widget =
        serde_json::from_value(json!({"kind": "widget", "name": "w"})).expect("absent members");
    assert_eq!(absent.count, None);
    let settings: basic::Settings = serde_json::from_value(json!({})).unwrap();
    assert_eq!(settings.level, 3);
    // A fraction is still refused by the type, as by the validator.
    let half = json!({"kind": "widget", "name": "w", "count": 4.5});
    assert!(basic::Widget::validate_value(&half).is_err());
    assert!(serde_json::from_value::<basic::Widget>(half).is_err());
}

#[test]
fn const_is_enforced_by_the_types() {
    let wrong = json!({"kind": "gadget", "name": "w"});
    assert!(serde_json::from_value::<basic::Widget>(wrong).is_err());
}

#[test]
fn undeclared_members_are_kept_not_dropped() {
    // `Widget` does not say `additionalProperties: false`: the validator accepts an unknown
    // member, so the type keeps it (a closed object refuses it: see `real_world.rs`).
    let extra = json!({"kind": "widget", "name": "w", "surprise": 1});
    assert!(basic::Widget::validate_value(&extra).is_ok());
    let widget: basic::Widget = serde_json::from_value(extra.clone()).unwrap();
    assert_eq!(widget.extra.get("surprise"), Some(&json!(1)));
    assert_eq!(serde_json::to_value(widget).unwrap(), extra);
}

#[test]
fn schema_defaults_become_default_values() {
    let settings: basic::Settings = serde_json::from_value(json!({})).unwrap();
    assert_eq!(settings.level, 3);
    assert_eq!(basic::Settings::default().level, 3);
}

#[test]
fn validator_reports_every_violation_with_path_limit_and_actual() {
    let bad = json!({
        "kind": "widget", "name": "much too long", "code": "abc", "weight": 0,
        "count": 3, "tags": ["a", "a"], "homepage": "not a uri"
    });
    let errors = basic::Widget::validate_value(&bad).unwrap_err();
    let seen: Vec<(&str, &str)> = errors.iter().map(|e| (e.path(), e.keyword())).collect();
    for expected in [
        ("/name", "maxLength"),
        ("/code", "pattern"),
        ("/weight", "exclusiveMinimum"),
        ("/count", "multipleOf"),
        ("/tags", "uniqueItems"),
        ("/homepage", "format"),
    ] {
        assert!(seen.contains(&expected), "missing {expected:?} in {seen:?}");
    }
    let length = errors.iter().find(|e| e.keyword() == "maxLength").unwrap();
    assert_eq!(length.limit(), json!(8));
    assert_eq!(length.actual(), json!(13));
    assert!(basic::Widget::validate_value(&json!({"kind": "widget", "name": "ok"})).is_ok());
}

#[test]
fn unions_are_deserialized_by_their_discriminator() {
    let square: unions::Shape =
        serde_json::from_value(json!({"type": "square", "side": 2})).unwrap();
    assert!(matches!(square, unions::Shape::Square(_)));
    let circle: unions::Shape =
        serde_json::from_value(json!({"type": "circle", "radius": 1})).unwrap();
    assert!(matches!(circle, unions::Shape::Circle(_)));
    // Both branches accept this value; the more specific one is chosen, whatever the order.
    let detailed: unions::Outcome =
        serde_json::from_value(json!({"status": "ok", "details": ["d"]})).unwrap();
    assert!(
        matches!(detailed, unions::Outcome::Detailed(_)),
        "{detailed:?}"
    );
    let base: unions::Outcome = serde_json::from_value(json!({"status": "ok", "x": 1})).unwrap();
    assert!(matches!(base, unions::Outcome::Base(_)));
    assert_eq!(round_trip::<unions::Scalar>(json!(7)), json!(7));
    assert_eq!(round_trip::<unions::Scalar>(json!("7")), json!("7"));
    let drawing =
        json!({"main": {"type": "circle", "radius": 2}, "others": [{"type": "square", "side": 1}]});
    assert_eq!(round_trip::<unions::Drawing>(drawing.clone()), drawing);
}

#[test]
fn a_union_error_points_at_the_inner_field_of_the_selected_branch() {
    let errors = unions::Shape::validate_value(&json!({"type": "square", "side": -1})).unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e.path() == "/side" && e.keyword() == "minimum"),
        "{errors:?}"
    );
}

#[test]
fn retryable_class_comes_from_the_schema() {
    use annotations::Failure;
    assert!(Failure::Timeout.is_retryable());
    assert!(Failure::Busy.is_retryable());
    assert!(!Failure::BadInput.is_retryable());
    assert_eq!(Failure::RETRYABLE, &[Failure::Timeout, Failure::Busy]);
    assert_eq!(*annotations::Code::MAJOR, -2);
}

#[test]
fn refs_with_siblings_allof_and_recursion_work() {
    let tree = json!({"label": "root", "children": [{"label": "leaf"}]});
    assert_eq!(round_trip::<refs::Node>(tree.clone()), tree);
    let stamped = json!({"label": "x", "at": "2026-11-21T10:00:00Z"});
    assert_eq!(round_trip::<refs::Stamped>(stamped.clone()), stamped);
    let errors =
        refs::Stamped::validate_value(&json!({"label": "x", "at": "yesterday"})).unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e.path() == "/at" && e.keyword() == "format"),
        "{errors:?}"
    );
}
