//! What `schema/mcp/protocol.json` refuses, and where it says so: broken client messages are
//! rejected with the path of the fault (what the server turns into -32602), objects the
//! server sends are closed, modern results carry their cache hints, unions pick the right
//! branch; and, as properties, typed values the server builds always pass the validator
//! and survive a round trip. Needs no external files.

#[path = "mcp_schemas_support/mod.rs"]
mod support;

use proptest::prelude::*;
use serde_json::{json, Value};
use support::{accepts_exactly, ours};
use typed_mcp::generated::protocol;
use typed_mcp::validation::{SchemaValidate, ValidationError};

fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}})
}

/// The errors of `def`'s validator on `value` (which must be invalid).
fn errors(def: &str, value: &Value) -> Vec<ValidationError> {
    (ours(def).validate)(value).expect_err("the value is invalid")
}

/// Asserts one validator error sits at `path` with `keyword` (and, when given, `limit`), and
/// that the typed layer refuses the value too when the fault is one of shape.
fn assert_error(def: &str, value: Value, path: &str, keyword: &str, limit: Option<Value>) {
    let found = errors(def, &value);
    let hit = found.iter().any(|e| {
        e.path() == path && e.keyword() == keyword && limit.as_ref().is_none_or(|l| e.limit() == *l)
    });
    assert!(hit, "{def}: no `{keyword}` error at `{path}` in {found:?}");
    // Formats and bounds are the validator's job; the typed layer enforces the shape.
    let shape = ["required", "const", "type", "enum", "additionalProperties"];
    if shape.contains(&keyword) {
        assert!(
            (ours(def).roundtrip)(&value).is_err(),
            "{def}: the typed layer accepted it"
        );
    }
}

#[test]
fn broken_client_requests_are_rejected_at_the_faulty_member() {
    // Modern requests need params with the per-request metadata.
    let no_params = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    assert_error(
        "ListToolsRequest",
        no_params,
        "",
        "required",
        Some(json!("params")),
    );
    let no_meta = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    assert_error(
        "ListToolsRequest",
        no_meta,
        "/params",
        "required",
        Some(json!("_meta")),
    );
    let no_version = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}});
    assert_error(
        "DiscoverRequest",
        no_version,
        "/params/_meta",
        "required",
        Some(json!("io.modelcontextprotocol/protocolVersion")),
    );
    let bad_level = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {},
                  "io.modelcontextprotocol/logLevel": "verbose"},
        "name": "echo"}});
    assert_error(
        "CallToolRequest",
        bad_level,
        "/params/_meta/io.modelcontextprotocol~1logLevel",
        "enum",
        None,
    );
    // Legacy requests.
    let no_name =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}}});
    assert_error(
        "LegacyCallToolRequest",
        no_name,
        "/params",
        "required",
        Some(json!("name")),
    );
    let bad_uri = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "no scheme here"}});
    assert_error(
        "LegacyReadResourceRequest",
        bad_uri,
        "/params/uri",
        "format",
        None,
    );
    let modern_bad_uri = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
        "params": {"_meta": modern_meta(), "uri": "::"}});
    assert_error(
        "ReadResourceRequest",
        modern_bad_uri,
        "/params/uri",
        "format",
        None,
    );
    let wrong_method =
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"name": "x"}});
    assert_error(
        "LegacyCallToolRequest",
        wrong_method,
        "/method",
        "const",
        None,
    );
    let prompt_number = json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/get",
        "params": {"name": "greet", "arguments": {"name": 7}}});
    assert_error(
        "LegacyGetPromptRequest",
        prompt_number,
        "/params/arguments/name",
        "type",
        None,
    );
    let bad_id = json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"});
    assert_error("PingRequest", bad_id, "/id", "type", None);
    let no_client_info = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}}});
    assert_error(
        "InitializeRequest",
        no_client_info,
        "/params",
        "required",
        Some(json!("clientInfo")),
    );
    let extra_envelope_member = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "extra": true});
    assert_error(
        "PingRequest",
        extra_envelope_member,
        "/extra",
        "additionalProperties",
        None,
    );
}

#[test]
fn modern_results_need_result_type_and_cache_hints() {
    let good = json!({"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "private"});
    assert!(accepts_exactly(ours("ListToolsResult"), &good).is_ok());
    for member in ["resultType", "ttlMs", "cacheScope", "tools"] {
        let mut missing = good.clone();
        missing.as_object_mut().unwrap().remove(member);
        assert_error(
            "ListToolsResult",
            missing,
            "",
            "required",
            Some(json!(member)),
        );
    }
    let mut negative = good.clone();
    negative["ttlMs"] = json!(-1);
    assert_error("ListToolsResult", negative, "/ttlMs", "minimum", None);
    let mut scope = good.clone();
    scope["cacheScope"] = json!("shared");
    assert_error("ListToolsResult", scope, "/cacheScope", "enum", None);
    let input_required = json!({"resultType": "input_required", "content": []});
    assert_error(
        "CallToolResult",
        input_required,
        "/resultType",
        "enum",
        None,
    );
    let read =
        json!({"resultType": "complete", "contents": [{"uri": "demo://readme", "text": "x"}]});
    assert_error(
        "ReadResourceResult",
        read,
        "",
        "required",
        Some(json!("ttlMs")),
    );
    let discover = json!({"resultType": "complete", "supportedVersions": [], "capabilities": {},
        "ttlMs": 1000, "cacheScope": "public"});
    assert_error(
        "DiscoverResult",
        discover,
        "/supportedVersions",
        "minItems",
        None,
    );
    let unsupported = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "x",
        "data": {"requested": "1900-01-01", "supported": ["2026-07-28"]}}});
    assert_error(
        "UnsupportedProtocolVersionError",
        unsupported,
        "/error/code",
        "const",
        None,
    );
    // Legacy results carry no cache hints, and a closed result refuses them.
    let legacy = json!({"tools": [], "ttlMs": 5});
    assert!((ours("LegacyListToolsResult").roundtrip)(&legacy).is_err());
}

#[test]
fn objects_the_server_sends_are_closed() {
    let cases = [
        (
            "Tool",
            json!({"name": "t", "inputschema": {"type": "object"}, "inputSchema": {"type": "object"}}),
        ),
        ("ServerCapabilities", json!({"tool": {}})),
        (
            "ServerCapabilities",
            json!({"tools": {"listchanged": true}}),
        ),
        (
            "InitializeResult",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "serverInfo": {"name": "s", "version": "1"}, "sessionId": "x"}),
        ),
        (
            "TextContent",
            json!({"type": "text", "text": "x", "mime": "text/plain"}),
        ),
        (
            "LegacyCallToolResult",
            json!({"content": [], "error": true}),
        ),
        (
            "CallToolResult",
            json!({"resultType": "complete", "content": [], "iserror": true}),
        ),
    ];
    for (def, value) in cases {
        let error = (ours(def).roundtrip)(&value).expect_err("an undeclared member is refused");
        assert!(error.contains("unknown field"), "{def}: {error}");
    }
    // Open pieces inside closed objects stay open: tool schemas and `_meta`.
    let tool = json!({"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}},
        "additionalProperties": false}, "outputSchema": {"type": "array"}, "_meta": {"com.example/x": [1]}});
    assert!(accepts_exactly(ours("Tool"), &tool).is_ok());
}

#[test]
fn unions_pick_the_branch_named_by_the_value() {
    let blocks = json!([
        {"type": "text", "text": "t"},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "demo://a", "name": "a"},
        {"type": "resource", "resource": {"uri": "demo://b", "blob": "AAEC"}},
        {"type": "resource", "resource": {"uri": "demo://c", "text": "c"}}
    ]);
    let parsed: Vec<protocol::ContentBlock> =
        serde_json::from_value(blocks.clone()).expect("valid");
    let kinds: Vec<&str> = parsed
        .iter()
        .map(|block| match block {
            protocol::ContentBlock::TextContent(_) => "text",
            protocol::ContentBlock::ImageContent(_) => "image",
            protocol::ContentBlock::AudioContent(_) => "audio",
            protocol::ContentBlock::ResourceLink(_) => "link",
            protocol::ContentBlock::EmbeddedResource(e) => match e.resource {
                protocol::ResourceContents::TextResourceContents(_) => "embedded text",
                protocol::ResourceContents::BlobResourceContents(_) => "embedded blob",
            },
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "text",
            "image",
            "audio",
            "link",
            "embedded blob",
            "embedded text"
        ]
    );
    assert_eq!(serde_json::to_value(&parsed).unwrap(), blocks);
    let bad_base64 = json!({"type": "image", "data": "not base64!", "mimeType": "image/png"});
    let found = errors("ContentBlock", &bad_base64);
    assert!(
        found
            .iter()
            .any(|e| e.path() == "/data" && e.keyword() == "format"),
        "{found:?}"
    );
    let unknown_type = json!({"type": "video", "data": "AAEC"});
    assert!(serde_json::from_value::<protocol::ContentBlock>(unknown_type).is_err());
}

#[test]
fn a_result_built_in_rust_is_valid_on_the_wire() {
    let tool = protocol::Tool {
        name: "echo".into(),
        title: None,
        description: Some("Echoes the text.".into()),
        input_schema: protocol::ToolInputSchema {
            schema: None,
            type_: protocol::ToolInputSchemaType::Object,
            extra: serde_json::from_value(
                json!({"properties": {"text": {"type": "string"}}, "required": ["text"]}),
            )
            .unwrap(),
        },
        output_schema: None,
        annotations: None,
        icons: None,
        meta: None,
    };
    let result = protocol::ListToolsResult {
        result_type: protocol::ResultType::Complete,
        tools: vec![tool],
        next_cursor: None,
        ttl_ms: 60_000,
        cache_scope: protocol::CacheScope::Public,
        meta: None,
    };
    let wire = serde_json::to_value(&result).unwrap();
    assert_eq!(wire["cacheScope"], "public");
    assert_eq!(wire["tools"][0]["inputSchema"]["required"], json!(["text"]));
    assert!(protocol::ListToolsResult::validate_value(&wire).is_ok());
    assert!(accepts_exactly(ours("ListToolsResult"), &wire).is_ok());
}

fn request_id() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::from)
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
    ]
}

proptest! {
    #[test]
    fn text_results_round_trip_in_both_eras(text in ".{0,40}", is_error in any::<bool>(), ttl in 0u64..u64::MAX) {
        let legacy = json!({"content": [{"type": "text", "text": text}], "isError": is_error});
        prop_assert!(accepts_exactly(ours("LegacyCallToolResult"), &legacy).is_ok());
        let mut modern = legacy.clone();
        modern["resultType"] = json!("complete");
        prop_assert!(accepts_exactly(ours("CallToolResult"), &modern).is_ok());
        let read = json!({"resultType": "complete", "contents": [{"uri": "demo://readme", "text": text}],
            "ttlMs": ttl, "cacheScope": "private"});
        prop_assert!(accepts_exactly(ours("ReadResourceResult"), &read).is_ok());
    }

    #[test]
    fn notifications_keep_ids_tokens_and_numbers_exactly(id in request_id(), token in request_id(),
            progress in number(), total in number()) {
        let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
        prop_assert!(accepts_exactly(ours("CancelledNotification"), &cancelled).is_ok());
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": token, "progress": progress, "total": total}});
        prop_assert!(accepts_exactly(ours("ProgressNotification"), &progress).is_ok());
    }

    #[test]
    fn closed_objects_refuse_and_open_objects_keep_any_new_member(name in "[a-z][a-zA-Z]{0,10}", value in number()) {
        let tool = json!({"name": "t", "inputSchema": {"type": "object"}});
        prop_assume!(!tool.as_object().unwrap().contains_key(&name));
        prop_assume!(!["title", "description", "outputSchema", "annotations", "icons"].contains(&name.as_str()));
        let mut closed = tool;
        closed[&name] = value.clone();
        prop_assert!((ours("Tool").roundtrip)(&closed).is_err());
        let mut open = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}});
        prop_assume!(!open.as_object().unwrap().contains_key(&name));
        open[&name] = value;
        prop_assert!(accepts_exactly(ours("InitializeRequestParams"), &open).is_ok());
    }
}
