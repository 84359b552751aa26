//! Structure of the emitted validators, checked by parsing the generated code with syn (the
//! behaviour of the code is tested in `tests/validator-fixture`, which compiles it).

use std::collections::BTreeMap;

use typed_mcp_codegen::__emit_validators_for_tests as emit;

/// The generated functions: name → (is `pub`, parameter names).
fn functions(code: &str) -> BTreeMap<String, (bool, Vec<String>)> {
    let file = syn::parse_file(code).expect("generated code parses");
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Fn(f) => {
                let params = f
                    .sig
                    .inputs
                    .iter()
                    .filter_map(|arg| match arg {
                        syn::FnArg::Typed(t) => match &*t.pat {
                            syn::Pat::Ident(i) => Some(i.ident.to_string()),
                            _ => None,
                        },
                        syn::FnArg::Receiver(_) => None,
                    })
                    .collect();
                let public = matches!(f.vis, syn::Visibility::Public(_));
                Some((f.sig.ident.to_string(), (public, params)))
            }
            _ => None,
        })
        .collect()
}

fn statics(code: &str) -> Vec<String> {
    let file = syn::parse_file(code).expect("generated code parses");
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Static(s) => Some(s.ident.to_string()),
            _ => None,
        })
        .collect()
}

const SHAPES: &str = r##"{"$defs": {
    "Shape": {"anyOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}]},
    "Circle": {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind"]},
    "Square": {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "integer"}}, "required": ["kind"]},
    "Loose": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["a"]}]},
    "Anything": {},
    "Holder": {"type": "object", "properties": {"inner": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}
}}"##;

#[test]
fn every_definition_gets_a_validator_and_a_walker_and_unions_a_selector() {
    let code = emit(SHAPES).unwrap();
    let fns = functions(&code);
    for stem in ["shape", "circle", "square", "loose", "anything", "holder"] {
        assert_eq!(fns[stem], (true, vec!["value".to_string()]), "{stem}");
        assert!(fns[&format!("{stem}_at")].0, "{stem}_at is public");
    }
    for union in ["shape", "loose"] {
        assert!(fns[&format!("select_{union}")].0, "select_{union}");
    }
    for plain in ["circle", "square", "anything", "holder"] {
        assert!(
            !fns.contains_key(&format!("select_{plain}")),
            "select_{plain}"
        );
    }
    // The nested `oneOf` was hoisted into its own definition, which gets a selector too.
    assert!(
        fns.keys().any(|f| f.starts_with("select_holder_")),
        "{:?}",
        fns.keys()
    );
    // A schema that accepts everything has a walker whose parameters are unused.
    assert_eq!(fns["anything_at"].1, ["_value", "_at", "_errors"]);
    assert_eq!(fns["circle_at"].1, ["value", "at", "errors"]);
    // Helpers stay private.
    assert!(fns
        .iter()
        .filter(|(name, _)| name.starts_with("__"))
        .all(|(_, (public, _))| !public));
}

#[test]
fn generated_code_reaches_the_runtime_only_through_private() {
    let code = emit(SHAPES).unwrap();
    let file = syn::parse_file(&code).unwrap();
    let uses: Vec<String> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Use(u) => Some(quote::quote!(#u).to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(uses, ["use :: typed_mcp :: __private as __rt ;"]);
    assert!(!code.contains("serde_json"), "serde_json is named directly");
    assert_eq!(code.matches("typed_mcp").count(), 1);
}

#[test]
fn discriminated_unions_dispatch_on_the_constant_property() {
    let code = emit(SHAPES).unwrap();
    assert!(code.contains("map.get(\"kind\")"), "{code}");
    assert!(code.contains("\"circle\" => return"));
    assert!(code.contains("\"square\" => return"));
    // `Loose` has no discriminator: no dispatch on a tag there.
    let loose = emit(
        r##"{"$defs": {"Loose": {"anyOf": [{"type": "string"}, {"type": "object", "required": ["a"]}]}}}"##,
    )
    .unwrap();
    assert!(!loose.contains("tag.as_str()"));
    assert!(loose.contains("contains_key(\"a\")"));
}

#[test]
fn schema_paths_are_pointers_into_the_original_file() {
    let code = emit(
        r##"{"$defs": {"A/B": {"type": "object", "properties": {"x~y": {"type": "string", "minLength": 1}}}}}"##,
    )
    .unwrap();
    assert!(
        code.contains("\"/$defs/A~1B/properties/x~0y/minLength\""),
        "{code}"
    );
    assert!(code.contains("\"/$defs/A~1B/properties/x~0y/type\""));
}

#[test]
fn patterns_are_compiled_once_per_distinct_source() {
    let code = emit(
        r##"{"$defs": {
            "P": {"type": "object", "properties": {
                "a": {"type": "string", "pattern": "(x|z)+"},
                "b": {"type": "string", "pattern": "(x|z)+"},
                "c": {"type": "string", "pattern": "y\\s"}
            }}
        }}"##,
    )
    .unwrap();
    let mut found = statics(&code);
    found.sort();
    assert_eq!(found, ["__PATTERN_0", "__PATTERN_1"]);
    // Simple patterns are generated functions, also one per distinct source.
    let code = emit(
        r##"{"$defs": {
            "P": {"type": "object", "properties": {
                "a": {"type": "string", "pattern": "^[a-z]+$"},
                "b": {"type": "string", "pattern": "^[a-z]+$"},
                "c": {"type": "string", "pattern": "^y$"}
            }}
        }}"##,
    )
    .unwrap();
    assert_eq!(code.matches("fn __pattern_").count(), 2, "{code}");
    assert!(!code.contains("LazyRegex"), "{code}");
}

#[test]
fn happy_path_builds_no_error_values() {
    // Error details are built inside closures handed to `Collector::fail`, never eagerly.
    let code = emit(SHAPES).unwrap();
    let eager = code
        .lines()
        .filter(|l| l.contains("ValidationError {") || l.contains("to_pointer"))
        .count();
    assert_eq!(eager, 0);
    assert!(code.contains("errors") && code.contains(".fail("));
    for call in code.split(".fail(").skip(1) {
        assert!(
            call.split("||")
                .next()
                .is_some_and(|args| args.matches(',').count() == 3),
            "fail() takes (at, schema_path, keyword, || detail): {call}"
        );
    }
}

#[test]
fn keywords_beyond_the_emitted_validators_go_to_the_evaluator() {
    // `$recursiveRef` (2019-09) is neither emitted nor bundled: the definition is validated
    // by the runtime's 2020-12 evaluator instead of being refused; generated code only
    // calls it.
    let code = emit(r##"{"$defs": {"A": {"items": {"$recursiveRef": "#"}}}}"##).unwrap();
    assert!(code.contains("__rt::Evaluator::new("), "{code}");
    assert!(
        code.contains("__EVALUATED_0.validate(value, at, errors)"),
        "{code}"
    );
    assert!(!code.contains("mod __eval"), "{code}");
}

#[test]
fn unevaluated_keywords_are_emitted_code_with_annotations() {
    let code = emit(
        r##"{"$defs": {
            "A": {"allOf": [{"$ref": "#/$defs/B"}], "properties": {"a": true},
                  "unevaluatedProperties": false,
                  "prefixItems": [true], "unevaluatedItems": {"type": "string"}},
            "B": {"properties": {"b": true}}
        }}"##,
    )
    .unwrap();
    assert!(!code.contains("__eval"), "{code}");
    // B's annotations are collected by a helper written once, through the `$ref`.
    assert_eq!(code.matches("fn __ann_p_b<").count(), 1, "{code}");
    for path in [
        "/$defs/A/unevaluatedProperties",
        "/$defs/A/unevaluatedItems/type",
    ] {
        assert!(code.contains(&format!("\"{path}\"")), "{path} in {code}");
    }
}

#[test]
fn conditional_applicators_are_emitted_code() {
    let code = emit(
        r##"{"$defs": {"A": {
            "if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 3},
            "not": {"const": 7},
            "contains": {"type": "integer"}, "minContains": 2, "maxContains": 4,
            "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false
        }}}"##,
    )
    .unwrap();
    assert!(!code.contains("__eval"), "{code}");
    for path in [
        "/$defs/A/then/minLength",
        "/$defs/A/else/minimum",
        "/$defs/A/not",
        "/$defs/A/minContains",
        "/$defs/A/maxContains",
        "/$defs/A/patternProperties/^x-/type",
        "/$defs/A/additionalProperties",
    ] {
        assert!(code.contains(&format!("\"{path}\"")), "{path} in {code}");
    }
}

#[test]
fn the_fixture_hook_writes_code_for_a_renamed_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(&path, r#"{"$defs": {"A": {"type": "string"}}}"#).unwrap();
    let code = typed_mcp_codegen::__validators_only(&path, "crate::rt").unwrap();
    assert!(code.contains("use crate::rt::__private as __rt;"), "{code}");
    let stems = typed_mcp_codegen::__validator_stems(&path).unwrap();
    assert_eq!(
        stems,
        [(
            "A".to_string(),
            "/$defs/A".to_string(),
            "a".to_string(),
            false
        )]
    );
}
