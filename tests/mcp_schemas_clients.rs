//! Messages as the official Python (`mcp`) and TypeScript (`@modelcontextprotocol/sdk`,
//! `@modelcontextprotocol/client`) clients send them, written by hand from how those SDKs
//! build their requests: each one parses into our generated type, passes our validator and
//! serializes back unchanged, unknown members included. Needs no external files.

#[path = "mcp_schemas_support/mod.rs"]
mod support;

use serde_json::{json, Value};
use support::{accepts_exactly, ours};
use typed_mcp::generated::protocol;

/// `(what, our definition, message)` for every client message below.
fn client_messages() -> Vec<(&'static str, &'static str, Value)> {
    let modern_meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "2.3.0"},
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}, "roots": {"listChanged": true}},
    });
    let mut modern_meta_with_extras = modern_meta.clone();
    modern_meta_with_extras["io.modelcontextprotocol/logLevel"] = json!("warning");
    modern_meta_with_extras["progressToken"] = json!(12);
    modern_meta_with_extras["com.example/traceparent"] = json!("00-abc-def-01");
    vec![
        // --- Python `mcp`, legacy sessions -----------------------------------------------
        (
            "python initialize, default callbacks",
            "InitializeRequest",
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "mcp", "version": "0.1.0"}}}),
        ),
        (
            "python initialize, sampling, elicitation and roots callbacks",
            "InitializeRequest",
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": true}},
                "clientInfo": {"name": "mcp", "version": "1.22.0", "title": "Python MCP client"}}}),
        ),
        (
            "python notifications/initialized",
            "InitializedNotification",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ),
        (
            "python ping",
            "PingRequest",
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        ),
        (
            "python tools/list without cursor",
            "LegacyListToolsRequest",
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        ),
        (
            "python tools/list with empty params",
            "LegacyListToolsRequest",
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
        ),
        (
            "python tools/call with a progress callback",
            "LegacyCallToolRequest",
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                "name": "sleep", "arguments": {"ms": 50}, "_meta": {"progressToken": 3}}}),
        ),
        (
            "python resources/read",
            "LegacyReadResourceRequest",
            json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "demo://readme"}}),
        ),
        (
            "python prompts/get",
            "LegacyGetPromptRequest",
            json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/get", "params": {"name": "greet", "arguments": {"name": "Ada"}}}),
        ),
        (
            "python notifications/cancelled",
            "CancelledNotification",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3, "reason": "Request cancelled"}}),
        ),
        // --- TypeScript SDK, legacy sessions ---------------------------------------------
        (
            "typescript initialize with a rich clientInfo",
            "InitializeRequest",
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"roots": {"listChanged": true}, "sampling": {"context": {}, "tools": {}},
                                 "elicitation": {"form": {"applyDefaults": true}},
                                 "tasks": {"list": {}, "cancel": {}, "requests": {"elicitation": {"create": {}}}},
                                 "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}},
                "clientInfo": {"name": "inspector", "title": "MCP Inspector", "version": "0.17.0",
                               "description": "Debugging client", "websiteUrl": "https://modelcontextprotocol.io",
                               "icons": [{"src": "https://example.com/icon.svg", "mimeType": "image/svg+xml", "sizes": ["any"], "theme": "dark"}]}}}),
        ),
        (
            "typescript initialize, 2025-03-26, string id",
            "InitializeRequest",
            json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": "2025-03-26", "capabilities": {"experimental": {"x-demo": {}}},
                "clientInfo": {"name": "ts-client", "version": "1.0.0"}}}),
        ),
        (
            "typescript tools/call with an onprogress handler",
            "LegacyCallToolRequest",
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
                "name": "sum", "arguments": {"values": [1, 2.5, -3]}, "_meta": {"progressToken": 7}}}),
        ),
        (
            "typescript resources/templates/list",
            "LegacyListResourceTemplatesRequest",
            json!({"jsonrpc": "2.0", "id": 8, "method": "resources/templates/list"}),
        ),
        (
            "typescript prompts/list with a cursor",
            "LegacyListPromptsRequest",
            json!({"jsonrpc": "2.0", "id": 9, "method": "prompts/list", "params": {"cursor": "eyJvZmZzZXQiOjEwfQ=="}}),
        ),
        (
            "typescript notifications/cancelled on abort",
            "CancelledNotification",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "AbortError: This operation was aborted"}}),
        ),
        (
            "a 2025-11-25 client asking for task execution",
            "LegacyCallToolRequest",
            json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}, "task": {"ttl": 60000}}}),
        ),
        (
            "a future capability the schema does not know",
            "InitializeRequestParams",
            json!({"protocolVersion": "2025-11-25", "capabilities": {"telepathy": {"range": 3}}, "clientInfo": {"name": "future", "version": "9.0.0", "vendor": "acme"}}),
        ),
        // --- Modern (2026-07-28) clients ---------------------------------------------------
        (
            "modern server/discover",
            "DiscoverRequest",
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": modern_meta}}),
        ),
        (
            "modern tools/list",
            "ListToolsRequest",
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": modern_meta}}),
        ),
        (
            "modern tools/call with log level, progress token and a vendor key",
            "CallToolRequest",
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                "_meta": modern_meta_with_extras, "name": "lookup", "arguments": {"key": "alpha"}}}),
        ),
        (
            "modern resources/read",
            "ReadResourceRequest",
            json!({"jsonrpc": "2.0", "id": "r-1", "method": "resources/read", "params": {"_meta": modern_meta, "uri": "demo://readme"}}),
        ),
        (
            "modern prompts/get",
            "GetPromptRequest",
            json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/get", "params": {"_meta": modern_meta, "name": "greet", "arguments": {"name": "Ada"}}}),
        ),
        (
            "modern resources/templates/list with a cursor",
            "ListResourceTemplatesRequest",
            json!({"jsonrpc": "2.0", "id": 6, "method": "resources/templates/list", "params": {"_meta": modern_meta, "cursor": "p2"}}),
        ),
        (
            "modern prompts/list and resources/list",
            "ListPromptsRequest",
            json!({"jsonrpc": "2.0", "id": 7, "method": "prompts/list", "params": {"_meta": modern_meta}}),
        ),
        (
            "modern resources/list",
            "ListResourcesRequest",
            json!({"jsonrpc": "2.0", "id": 8, "method": "resources/list", "params": {"_meta": modern_meta}}),
        ),
    ]
}

#[test]
fn typical_client_messages_parse_validate_and_round_trip() {
    let messages = client_messages();
    let mut failures = Vec::new();
    for (what, def, value) in &messages {
        if let Err(why) = accepts_exactly(ours(def), value) {
            failures.push(format!("{what} ({def}): {why}"));
        }
    }
    eprintln!(
        "mcp schemas: {}/{} typical client messages parsed and round-tripped",
        messages.len() - failures.len(),
        messages.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unknown_client_members_are_kept_where_the_server_can_reach_them() {
    let value = json!({"protocolVersion": "2025-11-25",
        "capabilities": {"roots": {"listChanged": true, "watch": "fs"}, "telepathy": {"range": 3}},
        "clientInfo": {"name": "future", "version": "9.0.0", "vendor": "acme"},
        "hint": 1});
    let params: protocol::InitializeRequestParams =
        serde_json::from_value(value).expect("open objects accept unknown members");
    assert_eq!(params.extra.get("hint"), Some(&json!(1)));
    assert_eq!(params.client_info.extra.get("vendor"), Some(&json!("acme")));
    assert_eq!(
        params.capabilities.extra.get("telepathy"),
        Some(&json!({"range": 3}))
    );
    let roots = params.capabilities.roots.as_ref().expect("roots declared");
    assert_eq!(roots.list_changed, Some(true));
    assert_eq!(roots.extra.get("watch"), Some(&json!("fs")));
    // Declared-but-empty capabilities keep their presence.
    let empty: protocol::ClientCapabilities =
        serde_json::from_value(json!({"sampling": {}})).expect("valid");
    assert!(empty.sampling.is_some() && empty.roots.is_none());
}

#[test]
fn modern_request_metadata_is_typed() {
    let (_, _, value) = client_messages()
        .into_iter()
        .find(|(what, _, _)| what.starts_with("modern tools/call"))
        .expect("the modern tools/call message");
    let request: protocol::CallToolRequest = serde_json::from_value(value).expect("valid");
    let meta = &request.params.meta;
    assert_eq!(meta.io_modelcontextprotocol_protocol_version, "2026-07-28");
    assert_eq!(
        meta.io_modelcontextprotocol_client_info
            .as_ref()
            .map(|info| info.name.as_str()),
        Some("mcp")
    );
    assert_eq!(
        meta.io_modelcontextprotocol_log_level,
        Some(protocol::LoggingLevel::Warning)
    );
    assert_eq!(
        meta.progress_token,
        Some(protocol::ProgressToken::Integer(12))
    );
    assert_eq!(
        meta.extra.get("com.example/traceparent"),
        Some(&json!("00-abc-def-01"))
    );
    assert_eq!(request.params.name, "lookup");
}
