//! Resolution rules the generator and the runtime rely on alike.

use serde_json::{json, Value};

use crate::uris::percent_decode;
use crate::{resolve, unresolved, walk_pointer, Registry};

/// RFC 3986, section 5.4: the normal and abnormal examples, against its base URI.
#[test]
fn references_resolve_as_rfc_3986_section_5_4_says() {
    let base = "http://a/b/c/d;p?q";
    for (reference, expected) in [
        ("g:h", "g:h"),
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"),
        ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"),
        ("/./g", "http://a/g"),
        ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."),
        ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"),
        ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
    ] {
        assert_eq!(
            resolve(base, reference),
            expected,
            "reference {reference:?}"
        );
    }
}

#[test]
fn percent_escapes_decode_and_a_stray_percent_stays() {
    assert_eq!(percent_decode("/$defs/a%25b%7E"), "/$defs/a%b~");
    assert_eq!(percent_decode("caf%C3%A9"), "café");
    // Not two hexadecimal digits: kept as written (a sign is not a digit, and a multi-byte
    // character after `%` is not cut in half).
    assert_eq!(percent_decode("%+1%é%aé%4"), "%+1%é%aé%4");
}

#[test]
fn a_pointer_walks_through_ids_and_escaped_tokens() {
    let root = json!({
        "$id": "http://x/root/",
        "properties": { "a/b~c": { "$id": "inner/", "items": [true, { "const": 1 }] } }
    });
    let (schema, base) =
        walk_pointer(&root, "file:///s.json", "/properties/a~1b~0c/items/1").expect("a schema");
    assert_eq!(schema, &json!({ "const": 1 }));
    assert_eq!(base, "http://x/root/inner/");
    assert!(walk_pointer(&root, "file:///s.json", "/properties/nothing").is_none());
    assert!(walk_pointer(&root, "file:///s.json", "no-slash").is_none());
}

/// A document with an embedded resource, an anchor, and a reference to a remote document.
fn document() -> Value {
    json!({
        "$defs": {
            "def": {
                "properties": {
                    "pointer": { "$ref": "#/$defs/target%20one" },
                    "anchor": { "$ref": "http://e/embedded.json#here" },
                    "remote": { "$ref": "http://remote/r.json#/$defs/x" },
                    "missing": { "$ref": "#/$defs/nowhere" },
                    "missing-anchor": { "$dynamicRef": "#nothing" }
                },
                "$defs": {
                    "embedded": {
                        "$id": "http://e/embedded.json",
                        "$defs": { "a": { "$anchor": "here", "type": "string" } }
                    }
                }
            },
            "target one": { "type": "integer" }
        }
    })
}

#[test]
fn references_reach_pointers_embedded_anchors_and_remote_documents() {
    let document = document();
    let remotes = json!({
        "http://remote/r.json": { "$defs": { "x": { "type": "null", "$ref": "#/nowhere" } } }
    });
    let registry = Registry::new(&document, "file:///s.json", "/$defs/def", &remotes);
    let target = registry
        .lookup("file:///s.json", "#/$defs/target%20one")
        .expect("a pointer resolves");
    assert_eq!(target.schema, &json!({ "type": "integer" }));
    let target = registry
        .lookup("file:///s.json", "http://e/embedded.json#here")
        .expect("an anchor of an embedded resource resolves");
    assert_eq!(target.schema["type"], "string");
    assert_eq!(target.base, "http://e/embedded.json");
    let target = registry
        .lookup("file:///s.json", "http://remote/r.json#/$defs/x")
        .expect("a remote document resolves");
    assert_eq!(target.schema["type"], "null");
    assert!(target.validation);
    // The references written in the definition that resolve nowhere, as written; those of
    // the remote document are not the definition's.
    assert_eq!(
        unresolved(&document, "file:///s.json", "/$defs/def", &remotes),
        ["#/$defs/nowhere", "#nothing"]
    );
}

#[test]
fn a_dynamic_reference_takes_the_outermost_dynamic_anchor_of_the_scope() {
    let document = json!({
        "$defs": {
            "def": {
                "$id": "http://x/outer.json",
                "$dynamicAnchor": "node",
                "$defs": {
                    "inner": {
                        "$id": "http://x/inner.json",
                        "$dynamicAnchor": "node",
                        "items": { "$dynamicRef": "#node" },
                        "properties": { "static": { "$dynamicRef": "#/$defs/none" } }
                    },
                    "plain": { "$id": "http://x/plain.json", "$anchor": "node" }
                }
            }
        }
    });
    let remotes = json!({});
    let registry = Registry::new(&document, "file:///s.json", "/$defs/def", &remotes);
    let outer = document.pointer("/$defs/def").expect("outer");
    let inner = document.pointer("/$defs/def/$defs/inner").expect("inner");
    let scope = |uris: &[&str]| uris.iter().map(|u| u.to_string()).collect::<Vec<_>>();
    let from = "http://x/inner.json";
    let found = |scope: &[String]| {
        registry
            .dynamic_lookup(from, "#node", scope)
            .map(|t| t.schema)
    };
    assert_eq!(found(&scope(&["http://x/inner.json"])), Some(inner));
    assert_eq!(
        found(&scope(&["http://x/outer.json", "http://x/inner.json"])),
        Some(outer)
    );
    // The reference's own target is no dynamic anchor: the scope does not matter.
    let plain = registry.dynamic_lookup(
        "http://x/plain.json",
        "#node",
        &scope(&["http://x/outer.json"]),
    );
    assert_eq!(
        plain.map(|t| t.schema["$anchor"].clone()),
        Some(json!("node"))
    );
}

#[test]
fn a_metaschema_without_the_validation_vocabulary_turns_validation_off() {
    let remotes = json!({
        "http://m/no-validation": {
            "$vocabulary": { "https://json-schema.org/draft/2020-12/vocab/core": true }
        },
        "http://m/full": {
            "$vocabulary": { crate::VALIDATION_VOCABULARY: true }
        },
        "http://r/uses-it.json": {
            "$schema": "http://m/no-validation",
            "$defs": { "x": { "minimum": 1 } }
        }
    });
    let document = json!({ "$defs": { "def": { "$ref": "http://r/uses-it.json#/$defs/x" } } });
    let registry = Registry::new(&document, "file:///s.json", "/$defs/def", &remotes);
    assert!(!registry.validation_of("http://m/no-validation#"));
    assert!(registry.validation_of("http://m/full"));
    assert!(registry.validation_of("http://unknown/"));
    let target = registry
        .lookup("file:///s.json", "http://r/uses-it.json#/$defs/x")
        .expect("resolves");
    assert!(!target.validation);
    assert_eq!(
        registry.resource_validation("http://r/uses-it.json"),
        Some(false)
    );
    assert_eq!(registry.resource_validation("file:///s.json"), Some(true));
    assert_eq!(registry.resource_validation("http://nowhere/"), None);
}
