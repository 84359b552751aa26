//! The regression corpus of issue 15 (`codegen/tests/real_world/`), generated, compiled and
//! exercised: for every instance, the validator's verdict and the generated type agree (a
//! valid instance deserializes and round-trips to the same JSON; an instance of the wrong
//! shape is refused by both), and no generated code panics.

use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Value};
use typed_mcp::validation::SchemaValidate;

use typed_mcp_snapshots::real_world::{
    enum_strings, evaluated_shapes, null_defaults, nullable_members, open_objects, pasted_2020_12,
    pasted_draft07, property_names, ref_object_default, unknown_formats,
};

/// A valid instance: the validator accepts it, the type reads it and writes it back as it was.
fn accepted<T: SchemaValidate + Serialize + DeserializeOwned>(value: Value) -> T {
    if let Err(errors) = T::validate_value(&value) {
        panic!("the validator refused {value}: {errors:?}");
    }
    let typed: T = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("the type refused {value}, the validator accepted it: {e}"));
    assert_eq!(serde_json::to_value(&typed).unwrap(), value, "round trip");
    typed
}

/// An invalid instance: the validator refuses it (and when `shape` says the fault is one of
/// shape, the type refuses it too).
fn refused<T: SchemaValidate + DeserializeOwned>(value: Value, shape: bool) {
    assert!(
        T::validate_value(&value).is_err(),
        "validator accepted {value}"
    );
    if shape {
        assert!(
            serde_json::from_value::<T>(value.clone()).is_err(),
            "type accepted {value}"
        );
    }
}

#[test]
fn known_formats_are_checked_and_unknown_ones_are_annotations() {
    // The snapshots are generated with format assertion on: `uuid`, `date` and `email` are
    // checked; `json`, `int32` and `double` are formats no validator knows, so annotations.
    let id = "2eb8aa08-aa98-11ea-b4aa-73b441d16380";
    let booking = json!({"id": id, "day": "2026-11-23", "seats": 2, "price": 1.5,
        "notes": "{", "contact": "a@example.com"});
    accepted::<unknown_formats::Booking>(booking);
    refused::<unknown_formats::Booking>(json!({"id": "not-a-uuid", "day": "2026-11-23"}), false);
    refused::<unknown_formats::Booking>(json!({"id": id, "day": "someday"}), false);
    refused::<unknown_formats::Booking>(
        json!({"id": id, "day": "2026-11-23", "contact": "nope"}),
        false,
    );
    refused::<unknown_formats::Booking>(json!({"id": id, "day": "2026-11-23", "seats": 0}), false);
    refused::<unknown_formats::Booking>(json!({"id": 1, "day": "2026-11-23"}), true);
}

#[test]
fn null_defaults_mean_optional_and_generated_defaults_never_panic() {
    // Every member with a default omitted: the generated defaults run (this panicked with
    // `from_str::<Number>("null").unwrap()` before).
    let search: null_defaults::Search = serde_json::from_value(json!({"query": "q"})).unwrap();
    assert_eq!(search.limit, None);
    assert_eq!(search.threshold, None);
    assert_eq!(search.scope, None);
    assert_eq!(search.page, 1);
    assert_eq!(search.weight.as_f64(), Some(0.5));
    accepted::<null_defaults::Search>(json!({"query": "q", "limit": 3, "threshold": 0.25,
        "language": "en", "tags": ["a"], "exact": true, "scope": {"folder": "f"}, "cursor": "c",
        "page": 2, "weight": 1}));
    // A nullable member's explicit `null` is accepted by both (it reads as absent).
    let null = json!({"query": "q", "cursor": null});
    assert!(null_defaults::Search::validate_value(&null).is_ok());
    assert!(serde_json::from_value::<null_defaults::Search>(null).is_ok());
    refused::<null_defaults::Search>(json!({"query": "q", "limit": "3"}), true);
    refused::<null_defaults::Search>(json!({"query": "q", "surprise": 1}), true);
}

#[test]
fn any_enum_string_is_a_variant() {
    use enum_strings::{Reaction, Separator};
    let values = [".", ",", "'", ";", ""];
    for value in values {
        let typed = accepted::<Separator>(json!(value));
        assert_eq!(serde_json::to_value(typed).unwrap(), json!(value));
    }
    for value in [
        "reactions-+1",
        "reactions--1",
        "reactions_+1",
        "+1",
        "-1",
        "laugh",
        "Laugh",
        "LAUGH",
        "foo\nbar",
        "foo bar",
        "self",
        "Self",
        "type",
        "2x",
        "é",
    ] {
        accepted::<Reaction>(json!(value));
    }
    assert_ne!(
        serde_json::from_value::<Reaction>(json!("reactions-+1")).unwrap(),
        serde_json::from_value::<Reaction>(json!("reactions--1")).unwrap()
    );
    refused::<Separator>(json!(":"), true);
    accepted::<enum_strings::Post>(json!({"reaction": "+1", "separator": ".", "sort": "-"}));
    refused::<enum_strings::Post>(json!({"reaction": "+2"}), true);
}

#[test]
fn property_names_are_checked_by_the_validator() {
    accepted::<property_names::Request>(
        json!({"url": "u", "headers": {"content-type": "text/plain"}}),
    );
    refused::<property_names::Request>(
        json!({"url": "u", "headers": {"Content-Type": "x"}}),
        false,
    );
    refused::<property_names::Request>(
        json!({"url": "u", "headers": {"a-very-long-header-name-indeed": "x"}}),
        false,
    );
    refused::<property_names::Request>(json!({"url": "u", "headers": {"a": 1}}), true);
}

#[test]
fn an_object_default_on_a_ref_compiles_and_absent_stays_absent() {
    let listing = accepted::<ref_object_default::Listing>(json!({"folder": "f"}));
    assert_eq!(listing.page, None);
    accepted::<ref_object_default::Listing>(json!({"folder": "f", "page": {"size": 5}}));
    refused::<ref_object_default::Listing>(json!({"folder": "f", "page": {"size": 0}}), true);
}

#[test]
fn open_objects_keep_unknown_members_and_closed_ones_refuse_them() {
    let open = accepted::<open_objects::Open>(
        json!({"name": "n", "inner": {"level": 1, "hint": [1]}, "_meta": {"k": "v"}}),
    );
    assert_eq!(open.extra.get("_meta"), Some(&json!({"k": "v"})));
    accepted::<open_objects::Typed>(json!({"label": "l", "weight": 2.5}));
    refused::<open_objects::Typed>(json!({"label": "l", "weight": "heavy"}), true);
    accepted::<open_objects::Extended>(json!({"extra": "declared", "other": true}));
    refused::<open_objects::Closed>(json!({"id": "i", "other": 1}), true);
    refused::<open_objects::Open>(json!({"name": "n", "closed": {"id": "i", "x": 1}}), true);
}

#[test]
fn a_pasted_draft07_schema_keeps_its_meaning() {
    let ok = json!({"target": {"x": 1, "y": 2}, "path": [{"x": 0, "y": 0}],
        "pair": ["a", 3], "speed": 10, "unit": "m", "scale": 2, "label": "l", "color": "red"});
    accepted::<pasted_draft07::MoveArgs>(ok);
    // `items: [..]` + `additionalItems: false`: a tuple of two.
    refused::<pasted_draft07::MoveArgs>(
        json!({"target": {"x": 1, "y": 2}, "pair": ["a", 3, 4]}),
        false,
    );
    refused::<pasted_draft07::MoveArgs>(json!({"target": {"x": 1, "y": 2}, "pair": [1]}), false);
    // `exclusiveMinimum: true` next to `minimum: 0`; `exclusiveMaximum: false`.
    refused::<pasted_draft07::MoveArgs>(json!({"target": {"x": 1, "y": 2}, "speed": 0}), false);
    // `dependencies`: `unit` needs `scale`; `label` needs `color`.
    refused::<pasted_draft07::MoveArgs>(json!({"target": {"x": 1, "y": 2}, "unit": "m"}), false);
    refused::<pasted_draft07::MoveArgs>(json!({"target": {"x": 1, "y": 2}, "label": "l"}), false);
    // `#/definitions/Point` resolves to the nested definition.
    refused::<pasted_draft07::MoveArgs>(json!({"target": {"x": 1}}), true);
}

#[test]
fn a_pasted_2020_12_schema_resolves_its_own_defs() {
    accepted::<pasted_2020_12::FileArgs>(json!({"entries": [{"path": "p"},
        {"path": "q", "size": 3}], "mode": "write", "range": [1, 2]}));
    // pydantic's optional member (`anyOf` with `null`): an explicit `null` is kept, not
    // written back as absent.
    let null = json!({"entries": [{"path": "p", "size": null}], "mode": "read"});
    let typed = accepted::<pasted_2020_12::FileArgs>(null);
    assert!(typed.entries[0].size.is_some(), "present as null");
    let defaulted: pasted_2020_12::FileArgs =
        serde_json::from_value(json!({"entries": []})).unwrap();
    assert_eq!(serde_json::to_value(defaulted.mode).unwrap(), json!("read"));
    refused::<pasted_2020_12::FileArgs>(json!({"entries": [{"size": 1}]}), true);
    refused::<pasted_2020_12::FileArgs>(json!({"entries": [], "mode": "append"}), true);
    refused::<pasted_2020_12::FileArgs>(json!({"entries": [], "range": [1, 2, 3]}), false);
    refused::<pasted_2020_12::FileArgs>(json!({"entries": [], "range": ["a"]}), false);
}

#[test]
fn evaluated_keywords_keep_a_typed_struct_and_tuples_are_tuples() {
    use evaluated_shapes::{Place, Shipment};
    let shipment = json!({"carrier": "rail", "from": [2.35, 48.85], "labels": ["fragile"],
        "express": true, "deadline": "friday", "note": null});
    let typed: Shipment = accepted(shipment);
    // Typed members, although `not`, `if`, `contains` and `unevaluatedProperties` are there.
    assert_eq!(typed.carrier, "rail");
    assert_eq!(typed.labels.as_deref(), Some(&["fragile".to_string()][..]));
    assert_eq!(typed.from.0 .0.as_f64(), Some(2.35), "a prefixItems tuple");
    // A member the shape cannot type is a JSON value; an explicit `null` stays (checked by
    // `accepted`'s round trip) and is not read as absent.
    assert_eq!(typed.note, Some(Value::Null));
    accepted::<Shipment>(json!({"carrier": "rail", "from": [0, 0], "note": 12}));
    // The evaluator enforces what the type does not.
    refused::<Shipment>(json!({"carrier": "none", "from": [0, 0]}), false);
    refused::<Shipment>(
        json!({"carrier": "rail", "from": [0, 0], "labels": ["x"]}),
        false,
    );
    refused::<Shipment>(
        json!({"carrier": "rail", "from": [0, 0], "express": true}),
        false,
    );
    refused::<Shipment>(
        json!({"carrier": "rail", "from": [0, 0], "note": "a note longer than twenty"}),
        false,
    );
    // `unevaluatedProperties: false`: the evaluator refuses an unknown member (the type is
    // open, so that it holds what `if`/`then` may add).
    refused::<Shipment>(
        json!({"carrier": "rail", "from": [0, 0], "colour": "red"}),
        false,
    );
    // Shape faults are refused by both.
    refused::<Shipment>(json!({"carrier": 7, "from": [0, 0]}), true);
    refused::<Shipment>(json!({"carrier": "rail", "from": [0]}), true);
    refused::<Place>(json!([1, 2, 3]), true);
    accepted::<Place>(json!([1, 2]));
}

#[test]
fn an_optional_nullable_member_keeps_absent_null_and_value_apart() {
    use nullable_members::UpdateContact;
    // Leave the nickname, clear the age, set the city: three states, all kept.
    let typed: UpdateContact = accepted(json!({"id": "c1", "note": null, "age": null,
        "address": {"city": "Lyon"}}));
    assert!(typed.nickname.is_none(), "absent");
    assert_eq!(typed.age.as_ref().map(|age| age.0), Some(None), "null");
    assert_eq!(
        typed
            .address
            .and_then(|a| a.city)
            .and_then(|city| city.0)
            .as_deref(),
        Some("Lyon")
    );
    accepted::<UpdateContact>(json!({"id": "c1", "note": "n", "nickname": "Bo", "age": 7,
        "address": {"city": null}}));
    accepted::<UpdateContact>(json!({"id": "c1", "note": null, "address": {}}));
    // An integral number is an integer inside the newtype too.
    let typed: UpdateContact =
        serde_json::from_value(json!({"id": "c1", "note": null, "age": 7.0})).unwrap();
    assert_eq!(typed.age.map(|age| age.0), Some(Some(7)));
    // The bounds stay the validator's; wrong types are refused by both.
    refused::<UpdateContact>(
        json!({"id": "c1", "note": null, "nickname": "x".repeat(21)}),
        false,
    );
    refused::<UpdateContact>(json!({"id": "c1", "note": null, "age": -1}), false);
    refused::<UpdateContact>(json!({"id": "c1", "note": null, "age": "7"}), true);
    refused::<UpdateContact>(json!({"id": "c1"}), true);
}
