//! Schemas the emitted validators do not implement keyword by keyword (once refused) now
//! generate: each such definition is validated by the embedded evaluator and typed by its
//! shape (a struct whose members the shape cannot follow are `serde_json::Value`s), while the
//! other definitions of the file keep their own code.
//! (Their verdicts are checked by the JSON Schema Test Suite, `tests/jsts-fixture`.)

fn generate(name: &str) -> String {
    let schema = format!("tests/evaluated/{name}.json");
    typed_mcp_codegen::Config::new()
        .generate_string(&schema)
        .unwrap_or_else(|e| panic!("{schema}: {e}"))
}

#[test]
fn if_then_else_is_evaluated() {
    let code = generate("if_then_else");
    assert!(code.contains("__eval::Registry::new("), "{code}");
    assert!(code.contains("mod __eval"), "the evaluator is embedded");
}

#[test]
fn not_is_evaluated() {
    let code = generate("not_keyword");
    assert!(code.contains("__eval::Registry::new("), "{code}");
    // The object keeps its struct; the member under `not` (no `type`) is a JSON value.
    assert!(code.contains("pub struct A {"), "{code}");
    assert!(
        code.contains("pub x: ::std::option::Option<::typed_mcp::__private::serde_json::Value>"),
        "{code}"
    );
}

#[test]
fn a_schema_typify_panics_on_is_typed_as_a_json_value() {
    // An untyped enum of mixed values: typify 0.8 panics on it, so it never sees it.
    let code = generate("typify_panic");
    assert!(code.contains("pub struct A("), "{code}");
    assert!(
        !code.contains("mod __eval"),
        "its validator is the emitted one"
    );
}

#[test]
fn a_file_without_such_keywords_embeds_no_evaluator() {
    let code = typed_mcp_codegen::Config::new()
        .generate_string("tests/fixtures/basic.json")
        .expect("the basic fixture generates");
    assert!(!code.contains("mod __eval"));
}
