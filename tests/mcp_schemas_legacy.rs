//! Legacy-era messages (2025-03-26, 2025-06-18, 2025-11-25), written by hand in the shapes
//! of each version's official schema: each one round-trips through our generated type, our
//! validator accepts it, and our validator agrees with that version's official schema on it
//! and on every single-member removal or retyping of it (except deliberate, explained
//! differences). The official schemas are needed for the comparison only; the round trips
//! run without them.

#[path = "mcp_schemas_support/mod.rs"]
mod support;

use serde_json::{json, Value};
use support::{accepts_exactly, mutations, official_schema, official_validator, ours, spec_dir};

const VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];

/// One hand-written message: our definition, the official definition it corresponds to (a
/// JSON Pointer without the `/definitions` or `/$defs` prefix), and the value.
struct Case {
    ours: &'static str,
    official: &'static str,
    value: Value,
}

fn case(ours: &'static str, official: &'static str, value: Value) -> Case {
    Case {
        ours,
        official,
        value,
    }
}

/// Whether `version` is at least `since` (versions are ISO dates, so text order works).
fn since(version: &str, since: &str) -> bool {
    version >= since
}

fn client_info(version: &str) -> Value {
    let mut info = json!({"name": "example-client", "version": "1.4.0"});
    if since(version, "2025-06-18") {
        info["title"] = json!("Example Client");
    }
    if since(version, "2025-11-25") {
        info["websiteUrl"] = json!("https://client.example/");
        info["icons"] = json!([{"src": "https://client.example/icon.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "light"}]);
    }
    info
}

fn client_capabilities(version: &str) -> Value {
    let mut caps = json!({"roots": {"listChanged": true}, "sampling": {}, "experimental": {"x-trace": {"on": true}}});
    if since(version, "2025-06-18") {
        caps["elicitation"] = json!({});
    }
    if since(version, "2025-11-25") {
        caps["elicitation"] = json!({"form": {}, "url": {}});
        caps["sampling"] = json!({"context": {}, "tools": {}});
        caps["tasks"] =
            json!({"list": {}, "cancel": {}, "requests": {"sampling": {"createMessage": {}}}});
    }
    caps
}

fn initialize_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": client_capabilities(version),
        "clientInfo": client_info(version),
    })
}

fn initialize_result(version: &str) -> Value {
    let mut server = json!({"name": "typed-mcp-demo", "version": "0.1.0"});
    if since(version, "2025-06-18") {
        server["title"] = json!("typed-mcp demo");
    }
    json!({
        "protocolVersion": version,
        "capabilities": {
            "tools": {"listChanged": false},
            "resources": {"subscribe": false, "listChanged": false},
            "prompts": {},
            "logging": {}
        },
        "serverInfo": server,
        "instructions": "Try the echo tool."
    })
}

fn tool(version: &str) -> Value {
    let mut tool = json!({
        "name": "add",
        "description": "Adds two numbers.",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
        "annotations": {"readOnlyHint": true, "openWorldHint": false}
    });
    if since(version, "2025-06-18") {
        tool["title"] = json!("Addition");
        tool["outputSchema"] = json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]});
        tool["_meta"] = json!({"com.example/category": "math"});
    }
    if since(version, "2025-11-25") {
        tool["icons"] =
            json!([{"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png"}]);
    }
    tool
}

fn call_result(version: &str) -> Value {
    let mut content = vec![
        json!({"type": "text", "text": "{\"sum\":3}"}),
        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "annotations": {"audience": ["user"], "priority": 0.5}}),
        json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}),
        json!({"type": "resource", "resource": {"uri": "demo://readme", "mimeType": "text/markdown", "text": "# Demo"}}),
    ];
    let mut result = json!({"isError": false});
    if since(version, "2025-06-18") {
        content.push(json!({"type": "resource_link", "uri": "demo://readme", "name": "readme", "title": "Read me", "mimeType": "text/markdown", "size": 6}));
        result["structuredContent"] = json!({"sum": 3});
    }
    result["content"] = Value::Array(content);
    result
}

/// Every hand-written message of `version`.
fn cases(version: &str) -> Vec<Case> {
    let meta = json!({"progressToken": "p-1"});
    let resource = if since(version, "2025-06-18") {
        json!({"uri": "demo://readme", "name": "readme", "title": "Read me", "mimeType": "text/markdown", "size": 6, "annotations": {"audience": ["user", "assistant"], "priority": 1, "lastModified": "2025-01-12T15:00:58Z"}})
    } else {
        json!({"uri": "demo://readme", "name": "readme", "mimeType": "text/markdown", "size": 6, "annotations": {"audience": ["user"], "priority": 0}})
    };
    let template = json!({"uriTemplate": "demo://notes/{id}", "name": "note", "description": "A note by id.", "mimeType": "text/plain"});
    let prompt = json!({"name": "greet", "description": "Greets someone.", "arguments": [{"name": "name", "description": "Who to greet.", "required": true}]});
    let request = |id: Value, method: &str, params: Option<Value>| {
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        message
    };
    vec![
        case(
            "InitializeRequest",
            "InitializeRequest",
            request(json!(0), "initialize", Some(initialize_params(version))),
        ),
        case(
            "InitializeRequestParams",
            "InitializeRequest/properties/params",
            initialize_params(version),
        ),
        case(
            "InitializeResult",
            "InitializeResult",
            initialize_result(version),
        ),
        case(
            "InitializedNotification",
            "InitializedNotification",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ),
        case(
            "PingRequest",
            "PingRequest",
            request(json!("ping-1"), "ping", None),
        ),
        case("EmptyResult", "EmptyResult", json!({})),
        case(
            "LegacyListToolsRequest",
            "ListToolsRequest",
            request(json!(1), "tools/list", None),
        ),
        case(
            "LegacyListToolsRequest",
            "ListToolsRequest",
            request(
                json!(2),
                "tools/list",
                Some(json!({"cursor": "page-2", "_meta": meta})),
            ),
        ),
        case(
            "LegacyListToolsResult",
            "ListToolsResult",
            json!({"tools": [tool(version)], "nextCursor": "page-2"}),
        ),
        case(
            "LegacyCallToolRequest",
            "CallToolRequest",
            request(
                json!(3),
                "tools/call",
                Some(json!({"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta})),
            ),
        ),
        case(
            "LegacyCallToolResult",
            "CallToolResult",
            call_result(version),
        ),
        case(
            "LegacyListResourcesRequest",
            "ListResourcesRequest",
            request(json!(4), "resources/list", Some(json!({}))),
        ),
        case(
            "LegacyListResourcesResult",
            "ListResourcesResult",
            json!({"resources": [resource]}),
        ),
        case(
            "LegacyListResourceTemplatesRequest",
            "ListResourceTemplatesRequest",
            request(json!(5), "resources/templates/list", None),
        ),
        case(
            "LegacyListResourceTemplatesResult",
            "ListResourceTemplatesResult",
            json!({"resourceTemplates": [template]}),
        ),
        case(
            "LegacyReadResourceRequest",
            "ReadResourceRequest",
            request(
                json!(6),
                "resources/read",
                Some(json!({"uri": "demo://readme"})),
            ),
        ),
        case(
            "LegacyReadResourceResult",
            "ReadResourceResult",
            json!({"contents": [{"uri": "demo://readme", "mimeType": "text/markdown", "text": "# Demo"}, {"uri": "demo://logo", "mimeType": "image/png", "blob": "iVBORw0KGgo="}]}),
        ),
        case(
            "LegacyListPromptsRequest",
            "ListPromptsRequest",
            request(json!(7), "prompts/list", None),
        ),
        case(
            "LegacyListPromptsResult",
            "ListPromptsResult",
            json!({"prompts": [prompt]}),
        ),
        case(
            "LegacyGetPromptRequest",
            "GetPromptRequest",
            request(
                json!(8),
                "prompts/get",
                Some(json!({"name": "greet", "arguments": {"name": "Ada"}})),
            ),
        ),
        case(
            "LegacyGetPromptResult",
            "GetPromptResult",
            json!({"description": "A greeting", "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello to Ada."}}]}),
        ),
        case(
            "CancelledNotification",
            "CancelledNotification",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3, "reason": "user abort"}}),
        ),
        case(
            "ProgressNotification",
            "ProgressNotification",
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p-1", "progress": 1, "total": 4, "message": "one of four"}}),
        ),
    ]
}

/// A deliberate difference between our verdict and a legacy official one, with the reason.
fn known_difference(
    version: &str,
    case: &Case,
    pointer: &str,
    kind: &str,
    ours_ok: bool,
) -> Option<&'static str> {
    let legacy_envelope = !since(version, "2025-11-25");
    if !ours_ok && legacy_envelope && (pointer == "/jsonrpc" || pointer == "/id") {
        return Some("2025-03-26 and 2025-06-18 describe requests without the JSON-RPC members; ours is the whole message");
    }
    if ours_ok && (pointer.contains("/inputSchema/") || pointer.contains("/outputSchema/")) {
        return Some("ours leaves tool schemas open (2026-07-28 rule); the server publishes object schemas, as legacy clients expect");
    }
    if !ours_ok && legacy_envelope && pointer.ends_with("/params/_meta") && kind == "retyped" {
        return Some("every version's base request types params `_meta` as an object; 2025-03-26 and 2025-06-18 do not repeat it per method");
    }
    if ours_ok && pointer.contains("/capabilities/tasks/") {
        return Some("tasks (2025-11-25) are not offered by this server, so their capability payload is kept opaque");
    }
    if !ours_ok
        && version == "2025-11-25"
        && case.ours == "CancelledNotification"
        && pointer == "/params/requestId"
        && kind == "removed"
    {
        return Some("2025-11-25 makes requestId optional; a cancellation without it names nothing this server could stop");
    }
    None
}

#[test]
fn hand_written_legacy_messages_round_trip_and_validate() {
    let mut failures = Vec::new();
    let mut total = 0;
    for version in VERSIONS {
        for case in cases(version) {
            total += 1;
            if let Err(why) = accepts_exactly(ours(case.ours), &case.value) {
                failures.push(format!("{version} {}: {why}", case.ours));
            }
        }
    }
    eprintln!(
        "mcp schemas: {}/{total} hand-written legacy messages round-tripped exactly",
        total - failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn legacy_verdicts_agree_with_each_official_schema() {
    let Some(spec) = spec_dir() else { return };
    let (mut compared, mut agreed, mut known) = (0, 0, 0);
    let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut disagreements = Vec::new();
    for version in VERSIONS {
        let schema = official_schema(&spec, version);
        let defs = if schema.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        for case in cases(version) {
            // 2025-11-25 names the params of a request as a definition of its own.
            let official = if defs == "$defs" {
                case.official.replace(
                    "InitializeRequest/properties/params",
                    "InitializeRequestParams",
                )
            } else {
                case.official.to_string()
            };
            let reference = official_validator(&schema, &format!("/{defs}/{official}"));
            let def = ours(case.ours);
            let changed = mutations(&case.value);
            let mut values = vec![("", "message", case.value.clone())];
            values.extend(
                changed
                    .iter()
                    .map(|m| (m.pointer.as_str(), m.kind, m.value.clone())),
            );
            for (pointer, kind, value) in values {
                compared += 1;
                let ours_ok = (def.validate)(&value).is_ok();
                if ours_ok == reference.is_valid(&value) {
                    agreed += 1;
                } else if let Some(reason) =
                    known_difference(version, &case, pointer, kind, ours_ok)
                {
                    known += 1;
                    *reasons.entry(reason).or_default() += 1;
                } else {
                    disagreements.push(format!(
                        "{version} {}: {kind} `{pointer}`: ours valid = {ours_ok}",
                        case.ours
                    ));
                }
            }
        }
    }
    eprintln!("mcp schemas: legacy verdicts agree with the official schemas on {agreed}/{compared} messages and mutations; {known} known differences");
    for (reason, count) in reasons {
        eprintln!("  {count} × {reason}");
    }
    assert!(compared > 1000, "only {compared} cases compared");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn initialize_differs_by_version_only_where_the_versions_differ() {
    // The same schema serves every legacy version: what an older client cannot send is
    // optional, and each version's own message is complete.
    let params = ours("InitializeRequestParams");
    for version in VERSIONS {
        let value = initialize_params(version);
        assert!((params.validate)(&value).is_ok(), "{version}");
        let mut missing = value.clone();
        missing.as_object_mut().unwrap().remove("clientInfo");
        let errors = (params.validate)(&missing).expect_err("clientInfo is required");
        assert!(
            errors
                .iter()
                .any(|e| e.keyword() == "required" && e.limit() == "clientInfo"),
            "{version}: {errors:?}"
        );
    }
}
