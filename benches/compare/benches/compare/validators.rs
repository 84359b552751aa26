//! Our generated validators against the `jsonschema` crate's compiled validator, on the same
//! schemas and instances, valid and invalid:
//! - a realistic tool input schema (`benches/compare/schema/search_arguments.json`, five
//!   constrained properties), ours generated from it by this crate's build.rs;
//! - the official MCP 2026-07-28 `CallToolRequest`, read at run time from the specification
//!   beside the repository (`TYPED_MCP_SPEC_DIR` overrides), against the runtime's own
//!   `typed_mcp::generated::protocol::validate::call_tool_request` (generated from our
//!   `schema/mcp/protocol.json`, which models the same message).
//!
//! `jsonschema` is timed twice: `is_valid` (stops at the first violation) and
//! `iter_errors().count()` (every violation, as ours reports). Verdicts must agree; a
//! disagreement prints a loud warning row.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::{json, Value};
use typed_mcp::validation::ValidationError;

/// The bench's tool argument types and validators (see build.rs).
#[allow(dead_code, missing_docs, unreachable_pub)]
mod tool {
    include!(concat!(env!("OUT_DIR"), "/tool/search_arguments.rs"));
}

/// The same schema without the `pattern` of `tags` (see build.rs).
#[allow(dead_code, missing_docs, unreachable_pub)]
mod tool_plain {
    include!(concat!(
        env!("OUT_DIR"),
        "/tool_plain/search_arguments_no_pattern.rs"
    ));
}

const TOOL_SCHEMA: &str = include_str!("../../schema/search_arguments.json");
const TOOL_SCHEMA_NO_PATTERN: &str = include_str!(concat!(
    env!("OUT_DIR"),
    "/search_arguments_no_pattern.json"
));

type Ours = fn(&Value) -> Result<(), Vec<ValidationError>>;

/// One schema and instance, timed both ways.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// Schema and instance.
    pub(crate) label: String,
    /// Our verdict and violation count.
    pub(crate) ours: (bool, usize),
    /// jsonschema's verdict and violation count.
    pub(crate) theirs: (bool, usize),
    /// Ours, ns per validation (every violation collected).
    pub(crate) ours_ns: f64,
    /// jsonschema `is_valid`, ns per validation.
    pub(crate) is_valid_ns: f64,
    /// jsonschema `iter_errors().count()`, ns per validation.
    pub(crate) all_errors_ns: f64,
}

/// What the run could not measure, with why.
pub(crate) type Skipped = Vec<String>;

/// Compiles the `jsonschema` validator of definition `def` of the schema document `doc`.
fn compile(doc: &Value, def: &str) -> Result<jsonschema::Validator, String> {
    let mut root = doc.clone();
    let object = root.as_object_mut().ok_or("the schema is not an object")?;
    object.insert("$ref".to_owned(), json!(format!("#/$defs/{def}")));
    jsonschema::validator_for(&root).map_err(|e| format!("jsonschema cannot compile {def}: {e}"))
}

/// Median ns per call of `f` over 5 batches of about 20 ms each.
fn ns_per_op(mut f: impl FnMut() -> usize) -> f64 {
    let mut iterations = 1u64;
    loop {
        let started = Instant::now();
        for _ in 0..iterations {
            black_box(f());
        }
        if started.elapsed().as_millis() >= 20 {
            break;
        }
        iterations *= 2;
    }
    let mut batches: Vec<f64> = (0..5)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..iterations {
                black_box(f());
            }
            started.elapsed().as_nanos() as f64 / iterations as f64
        })
        .collect();
    batches.sort_by(f64::total_cmp);
    batches[2]
}

fn row(label: String, ours: Ours, theirs: &jsonschema::Validator, instance: &Value) -> Row {
    let our_verdict = match ours(instance) {
        Ok(()) => (true, 0),
        Err(errors) => (false, errors.len()),
    };
    let their_count = theirs.iter_errors(instance).count();
    let their_verdict = (theirs.is_valid(instance), their_count);
    Row {
        label,
        ours: our_verdict,
        theirs: their_verdict,
        ours_ns: ns_per_op(|| match ours(black_box(instance)) {
            Ok(()) => 0,
            Err(errors) => errors.len(),
        }),
        is_valid_ns: ns_per_op(|| usize::from(theirs.is_valid(black_box(instance)))),
        all_errors_ns: ns_per_op(|| theirs.iter_errors(black_box(instance)).count()),
    }
}

fn spec_dir() -> PathBuf {
    std::env::var_os("TYPED_MCP_SPEC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec/mcp/2026-07-28")
        })
}

fn call_tool_request_instances() -> Result<(Value, Value), String> {
    let example = spec_dir().join("examples/CallToolRequest/call-tool-request.json");
    let valid: Value = match std::fs::read_to_string(&example) {
        Ok(text) => {
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", example.display()))?
        }
        Err(_) => json!({
            "jsonrpc": "2.0", "id": "call-tool-example", "method": "tools/call",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}
                },
                "name": "get_weather", "arguments": {"location": "New York"}
            }
        }),
    };
    let mut invalid = valid.clone();
    invalid["method"] = json!("tools/cal");
    invalid["params"]["name"] = json!(42);
    invalid["params"]["arguments"] = json!([1]);
    Ok((valid, invalid))
}

/// One schema definition and instance, validated by ours and by jsonschema.
pub(crate) struct Case {
    /// Schema and instance.
    pub(crate) label: String,
    /// Our generated validator.
    pub(crate) ours: Ours,
    /// jsonschema's compiled validator of the same definition.
    pub(crate) theirs: jsonschema::Validator,
    /// The instance.
    pub(crate) instance: Value,
}

/// Every row's schema and instance; rows whose schema is unavailable are listed in the
/// second value.
pub(crate) fn cases() -> Result<(Vec<Case>, Skipped), String> {
    let mut cases = Vec::new();
    let mut skipped = Vec::new();
    let tool_doc: Value = serde_json::from_str(TOOL_SCHEMA).map_err(|e| e.to_string())?;
    let valid = json!({
        "query": "rust mcp servers", "limit": 20, "lang": "en",
        "tags": ["rust", "json-rpc"], "safe": true
    });
    let invalid = json!({
        "query": "", "limit": 1000, "lang": "xx", "tags": ["Bad Tag"], "safe": "yes", "extra": 1
    });
    for (label, instance) in [
        ("tool input (5 properties), valid", &valid),
        ("tool input (5 properties), invalid", &invalid),
    ] {
        cases.push(Case {
            label: label.into(),
            ours: tool::validate::search_arguments,
            theirs: compile(&tool_doc, "SearchArguments")?,
            instance: instance.clone(),
        });
    }
    let plain_doc: Value =
        serde_json::from_str(TOOL_SCHEMA_NO_PATTERN).map_err(|e| e.to_string())?;
    cases.push(Case {
        label: "same tool input without the `pattern`, valid".into(),
        ours: tool_plain::validate::search_arguments,
        theirs: compile(&plain_doc, "SearchArguments")?,
        instance: valid,
    });

    let schema = spec_dir().join("schema.json");
    match std::fs::read_to_string(&schema) {
        Ok(text) => {
            let doc: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            let (valid, invalid) = call_tool_request_instances()?;
            for (label, instance) in [
                ("CallToolRequest (official example), valid", valid),
                ("CallToolRequest, invalid (3 violations)", invalid),
            ] {
                cases.push(Case {
                    label: label.into(),
                    ours: typed_mcp::generated::protocol::validate::call_tool_request,
                    theirs: compile(&doc, "CallToolRequest")?,
                    instance,
                });
            }
        }
        Err(_) => skipped.push(format!(
            "CallToolRequest rows skipped: no official schema at {} (set TYPED_MCP_SPEC_DIR)",
            schema.display()
        )),
    }
    Ok((cases, skipped))
}

/// Measures every row; rows whose schema is unavailable are listed in the second value.
pub(crate) fn measure() -> Result<(Vec<Row>, Skipped), String> {
    let (cases, skipped) = cases()?;
    let rows = cases
        .into_iter()
        .map(|case| row(case.label, case.ours, &case.theirs, &case.instance))
        .collect();
    Ok((rows, skipped))
}

/// Who validates, in the `validator_probe` example.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Our generated validator, every violation collected.
    Ours,
    /// jsonschema's `is_valid`.
    IsValid,
    /// jsonschema's `iter_errors().count()`.
    AllErrors,
}

impl Side {
    /// The probe's argument for this side.
    pub(crate) fn arg(self) -> &'static str {
        match self {
            Side::Ours => "ours",
            Side::IsValid => "is-valid",
            Side::AllErrors => "all-errors",
        }
    }
}
