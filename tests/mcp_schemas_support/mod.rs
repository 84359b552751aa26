//! Shared helpers of the `mcp_schemas_*` tests: the table mapping our generated MCP types to
//! names, round trips through them, the official schemas as a reference validator, and the
//! mutations used to compare verdicts.

// Each test file uses a different subset of these helpers.
#![allow(dead_code)]

#[path = "../reference_data.rs"]
mod reference_data;

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use typed_mcp::generated::protocol;
use typed_mcp::validation::ValidationError;

/// One of our generated definitions: its name, a round trip through its Rust type, and its
/// generated validator.
#[derive(Clone, Copy)]
pub(crate) struct Ours {
    /// The definition's name in `schema/mcp/protocol.json`.
    pub(crate) name: &'static str,
    /// Deserializes into the generated type and serializes back.
    pub(crate) roundtrip: fn(&Value) -> Result<Value, String>,
    /// The generated validator.
    pub(crate) validate: fn(&Value) -> Result<(), Vec<ValidationError>>,
}

/// Deserializes `value` into `T` and serializes it back.
pub(crate) fn roundtrip<T: Serialize + DeserializeOwned>(value: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

macro_rules! ours {
    ($($ty:ident => $validator:ident),* $(,)?) => {
        &[$(Ours {
            name: stringify!($ty),
            roundtrip: roundtrip::<protocol::$ty>,
            validate: protocol::validate::$validator,
        }),*]
    };
}

/// Every message-level definition the tests exercise, by schema name.
pub(crate) const OURS: &[Ours] = ours![
    AudioContent => audio_content,
    BlobResourceContents => blob_resource_contents,
    CallToolRequest => call_tool_request,
    CallToolRequestParams => call_tool_request_params,
    CallToolResult => call_tool_result,
    CallToolResultResponse => call_tool_result_response,
    CancelledNotification => cancelled_notification,
    CancelledNotificationParams => cancelled_notification_params,
    ClientCapabilities => client_capabilities,
    ContentBlock => content_block,
    DiscoverRequest => discover_request,
    DiscoverResult => discover_result,
    DiscoverResultResponse => discover_result_response,
    EmbeddedResource => embedded_resource,
    EmptyResult => empty_result,
    GetPromptRequest => get_prompt_request,
    GetPromptRequestParams => get_prompt_request_params,
    GetPromptResult => get_prompt_result,
    GetPromptResultResponse => get_prompt_result_response,
    ImageContent => image_content,
    Implementation => implementation,
    InitializeRequest => initialize_request,
    InitializeRequestParams => initialize_request_params,
    InitializeResult => initialize_result,
    InitializedNotification => initialized_notification,
    LegacyCallToolRequest => legacy_call_tool_request,
    LegacyCallToolResult => legacy_call_tool_result,
    LegacyGetPromptRequest => legacy_get_prompt_request,
    LegacyGetPromptResult => legacy_get_prompt_result,
    LegacyListPromptsRequest => legacy_list_prompts_request,
    LegacyListPromptsResult => legacy_list_prompts_result,
    LegacyListResourceTemplatesRequest => legacy_list_resource_templates_request,
    LegacyListResourceTemplatesResult => legacy_list_resource_templates_result,
    LegacyListResourcesRequest => legacy_list_resources_request,
    LegacyListResourcesResult => legacy_list_resources_result,
    LegacyListToolsRequest => legacy_list_tools_request,
    LegacyListToolsResult => legacy_list_tools_result,
    LegacyReadResourceRequest => legacy_read_resource_request,
    LegacyReadResourceResult => legacy_read_resource_result,
    ListPromptsRequest => list_prompts_request,
    ListPromptsResult => list_prompts_result,
    ListPromptsResultResponse => list_prompts_result_response,
    ListResourceTemplatesRequest => list_resource_templates_request,
    ListResourceTemplatesResult => list_resource_templates_result,
    ListResourceTemplatesResultResponse => list_resource_templates_result_response,
    ListResourcesRequest => list_resources_request,
    ListResourcesResult => list_resources_result,
    ListResourcesResultResponse => list_resources_result_response,
    ListToolsRequest => list_tools_request,
    ListToolsResult => list_tools_result,
    ListToolsResultResponse => list_tools_result_response,
    PaginatedRequestParams => paginated_request_params,
    PingRequest => ping_request,
    ProgressNotification => progress_notification,
    ProgressNotificationParams => progress_notification_params,
    ReadResourceRequest => read_resource_request,
    ReadResourceResult => read_resource_result,
    ReadResourceResultResponse => read_resource_result_response,
    Resource => resource,
    ResourceLink => resource_link,
    ResourceTemplate => resource_template,
    ServerCapabilities => server_capabilities,
    TextContent => text_content,
    TextResourceContents => text_resource_contents,
    Tool => tool,
    UnsupportedProtocolVersionError => unsupported_protocol_version_error,
];

/// Our definition called `name`.
pub(crate) fn ours(name: &str) -> Ours {
    *OURS
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no entry for `{name}` in OURS"))
}

/// `Ok` when `value` round-trips through `def`'s type to an equal value and its validator
/// accepts it; otherwise what went wrong.
pub(crate) fn accepts_exactly(def: Ours, value: &Value) -> Result<(), String> {
    let back = (def.roundtrip)(value).map_err(|e| format!("typed layer rejects: {e}"))?;
    if back != *value {
        return Err(format!(
            "round trip changed the value:\n  in:  {value}\n  out: {back}"
        ));
    }
    (def.validate)(value).map_err(|errors| format!("validator rejects: {}", paths(&errors)))
}

/// The paths and keywords of validation errors, for messages.
pub(crate) fn paths(errors: &[ValidationError]) -> String {
    errors
        .iter()
        .map(|e| format!("{} ({})", e.path(), e.keyword()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The folder of the official MCP schemas (see `tests/reference_data.rs`), or `None` (after
/// printing why) when absent on a user's machine; a missing folder fails in CI.
pub(crate) fn spec_dir() -> Option<PathBuf> {
    reference_data::require_spec_dir(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
        "this schema oracle",
    )
}

/// The official schema of `version`, parsed.
pub(crate) fn official_schema(dir: &Path, version: &str) -> Value {
    let path = dir.join(version).join("schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("the official schema is JSON")
}

/// The `jsonschema` validator for the official definition at `pointer` (e.g.
/// `/$defs/Tool`, or `/definitions/InitializeRequest/properties/params` in the draft-07
/// files), with format checks on.
pub(crate) fn official_validator(schema: &Value, pointer: &str) -> jsonschema::Validator {
    assert!(
        schema.pointer(pointer).is_some(),
        "the official schema has {pointer}"
    );
    let draft = if schema["$schema"]
        .as_str()
        .is_some_and(|s| s.contains("draft-07"))
    {
        jsonschema::Draft::Draft7
    } else {
        jsonschema::Draft::Draft202012
    };
    let mut root = schema.clone();
    let map = root.as_object_mut().expect("an object");
    map.insert("allOf".into(), json!([{ "$ref": format!("#{pointer}") }]));
    jsonschema::options()
        .with_draft(draft)
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|e| panic!("the official schema compiles for {pointer}: {e}"))
}

/// One change to a valid message: a member removed or given a value of another JSON type.
#[derive(Debug, Clone)]
pub(crate) struct Mutation {
    /// JSON Pointer of the member changed.
    pub(crate) pointer: String,
    /// `"removed"` or `"retyped"`.
    pub(crate) kind: &'static str,
    /// The changed message.
    pub(crate) value: Value,
}

/// A value of another JSON type than `value`.
fn other_type(value: &Value) -> Value {
    match value {
        Value::String(_) => json!(12345),
        _ => json!("not the right type"),
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Every single-member removal and retyping of every object member at any depth of
/// `value` (array elements are retyped, not removed).
pub(crate) fn mutations(value: &Value) -> Vec<Mutation> {
    fn walk(value: &Value, pointer: &str, root: &Value, out: &mut Vec<Mutation>) {
        match value {
            Value::Object(map) => {
                for (key, member) in map {
                    let here = format!("{pointer}/{}", escape(key));
                    let mut removed = root.clone();
                    let parent = removed.pointer_mut(pointer).and_then(Value::as_object_mut);
                    parent.expect("the parent object").remove(key);
                    out.push(Mutation {
                        pointer: here.clone(),
                        kind: "removed",
                        value: removed,
                    });
                    let mut retyped = root.clone();
                    *retyped.pointer_mut(&here).expect("the member") = other_type(member);
                    out.push(Mutation {
                        pointer: here.clone(),
                        kind: "retyped",
                        value: retyped,
                    });
                    walk(member, &here, root, out);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let here = format!("{pointer}/{i}");
                    let mut retyped = root.clone();
                    *retyped.pointer_mut(&here).expect("the element") = other_type(item);
                    out.push(Mutation {
                        pointer: here.clone(),
                        kind: "retyped",
                        value: retyped,
                    });
                    walk(item, &here, root, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, "", value, &mut out);
    out
}
