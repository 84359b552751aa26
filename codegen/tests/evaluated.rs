//! Schemas the emitted validators do not implement keyword by keyword (once refused) now
//! generate: each such definition is validated by the runtime's evaluator (and
//! `GeneratedDefinition::run_time` says so; generated code calls it, never carries its
//! source) and typed by its
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
    assert!(!code.contains("__rt::Evaluator"), "no evaluator: {code}");
    assert!(code.contains("\"/$defs/A/then/required\""), "{code}");
}

#[test]
fn not_is_generated_code_and_keeps_the_struct() {
    let code = generate("not_keyword");
    assert!(!code.contains("__rt::Evaluator"), "no evaluator: {code}");
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
    let code = std::fs::read_to_string(&files[0].path).unwrap();
    assert!(
        code.contains("__rt::Evaluator::new(")
            && code.contains("__EVALUATED_0.validate(value, at, errors)"),
        "B calls the runtime's evaluator: {code}"
    );
    assert_eq!(interpreter_lines_in(&code), Vec::<String>::new());
}

/// The code lines of the runtime's evaluator (`src/validation/evaluator/`, the only copy of
/// it): long enough to be its own, comments and test code left out.
fn interpreter_lines() -> Vec<String> {
    let dir = std::path::Path::new("../src/validation/evaluator");
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(dir).expect("the runtime's evaluator") {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|name| name == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        lines.extend(
            text.lines()
                .map(str::trim)
                .filter(|line| line.len() >= 40 && !line.starts_with("//"))
                .map(String::from),
        );
    }
    assert!(
        lines.len() > 100,
        "the evaluator's source was read: {}",
        lines.len()
    );
    lines
}

/// The lines of the evaluator's source that `code` contains (none, when it only calls it).
fn interpreter_lines_in(code: &str) -> Vec<String> {
    let mut found: Vec<String> = interpreter_lines()
        .into_iter()
        .filter(|line| code.contains(line.as_str()))
        .collect();
    if code.contains("mod __eval") {
        found.push("mod __eval".into());
    }
    found
}

/// Every schema the repository generates code from, as its build scripts and snapshot checks
/// do: the protocol schemas, the example servers' tools, the fixtures and the regression
/// corpus. (The JSON Schema Test Suite's generated file is checked by its own test,
/// `tests/jsts-fixture/tests/suite.rs`.)
#[test]
fn no_generated_file_contains_the_evaluators_source() {
    let mut schemas = Vec::new();
    for dir in [
        "../schema",
        "../schema/mcp",
        "tests/fixtures",
        "tests/real_world",
        "tests/evaluated",
    ] {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir}: {e}")) {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                schemas.push(path);
            }
        }
    }
    // The example servers' tools, as their build script lists them.
    let list = std::fs::read_to_string("../examples/tool_schemas.txt").expect("the list");
    for line in list.lines().map(str::trim) {
        if let Some(schema) = line
            .split_whitespace()
            .next()
            .filter(|_| !line.starts_with('#'))
        {
            schemas.push(std::path::Path::new("../examples").join(schema));
        }
    }
    assert!(schemas.len() > 20, "{schemas:?}");
    for schema in &schemas {
        let code = typed_mcp_codegen::Config::new()
            .format_assertion(true)
            .generate_string(schema)
            .unwrap_or_else(|e| panic!("{}: {e}", schema.display()));
        let found = interpreter_lines_in(&code);
        assert!(found.is_empty(), "{}: {found:?}", schema.display());
    }
}

#[test]
fn a_schema_typify_panics_on_is_typed_as_a_json_value() {
    // An untyped enum of mixed values: typify 0.8 panics on it, so it never sees it.
    let code = generate("typify_panic");
    assert!(code.contains("pub struct A("), "{code}");
    assert!(
        !code.contains("__rt::Evaluator"),
        "its validator is the emitted one"
    );
}

#[test]
fn a_file_without_such_keywords_embeds_no_evaluator() {
    let code = typed_mcp_codegen::Config::new()
        .generate_string("tests/fixtures/basic.json")
        .expect("the basic fixture generates");
    assert!(!code.contains("__rt::Evaluator"));
}
