//! Schemas the emitted validators do not implement keyword by keyword (once refused) now
//! generate: each such definition is validated by the embedded evaluator (and
//! `GeneratedDefinition::run_time` says so) and typed by its
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
fn if_then_else_is_generated_code() {
    let code = generate("if_then_else");
    assert!(!code.contains("mod __eval"), "no evaluator: {code}");
    assert!(code.contains("\"/$defs/A/then/required\""), "{code}");
}

#[test]
fn not_is_generated_code_and_keeps_the_struct() {
    let code = generate("not_keyword");
    assert!(!code.contains("mod __eval"), "no evaluator: {code}");
    // The object keeps its struct; the member under `not` (no `type`) is a JSON value.
    assert!(code.contains("pub struct A {"), "{code}");
    assert!(
        code.contains("pub x: ::std::option::Option<::typed_mcp::__private::serde_json::Value>"),
        "{code}"
    );
}

#[test]
fn anchors_are_resolved_at_generation_time_and_recursive_refs_evaluated_at_run_time() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("u.json");
    std::fs::write(
        &schema,
        r##"{"$defs": {"A": {"$anchor": "a", "properties": {"x": {"$ref": "#a"}}}, "B": {"$recursiveRef": "#"}}}"##,
    )
    .unwrap();
    let files = typed_mcp_codegen::Config::new()
        .schema(&schema)
        .out_dir(dir.path())
        .generate()
        .unwrap();
    let run_time: Vec<_> = files[0]
        .definitions
        .iter()
        .map(|d| (d.name.as_str(), d.run_time.as_deref()))
        .collect();
    assert_eq!(run_time, [("A", None), ("B", Some("$recursiveRef"))]);
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
