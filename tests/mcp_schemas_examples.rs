//! The official 2026-07-28 examples against `schema/mcp/protocol.json`:
//!
//! - every example whose type the server handles round-trips through our generated type to
//!   an equal JSON value, and our validator accepts it;
//! - our generated validators and the official schema (through the `jsonschema` crate) give
//!   the same verdict on each such example and on every single-member removal or retyping
//!   of it, except for a short list of deliberate, explained differences.
//!
//! Skipped, with a message, when `../shared/spec/mcp` is absent.

#[path = "mcp_schemas_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{mutations, official_schema, official_validator, ours, spec_dir};

/// Example folders whose type is one of ours (the folder name is our definition's name).
const OUR_FOLDERS: &[&str] = &[
    "AudioContent",
    "BlobResourceContents",
    "CallToolRequest",
    "CallToolRequestParams",
    "CallToolResult",
    "CallToolResultResponse",
    "CancelledNotification",
    "CancelledNotificationParams",
    "ClientCapabilities",
    "DiscoverRequest",
    "DiscoverResult",
    "DiscoverResultResponse",
    "EmbeddedResource",
    "GetPromptRequest",
    "GetPromptRequestParams",
    "GetPromptResult",
    "GetPromptResultResponse",
    "ImageContent",
    "ListPromptsRequest",
    "ListPromptsResult",
    "ListPromptsResultResponse",
    "ListResourceTemplatesRequest",
    "ListResourceTemplatesResult",
    "ListResourceTemplatesResultResponse",
    "ListResourcesRequest",
    "ListResourcesResult",
    "ListResourcesResultResponse",
    "ListToolsRequest",
    "ListToolsResult",
    "ListToolsResultResponse",
    "PaginatedRequestParams",
    "ProgressNotification",
    "ProgressNotificationParams",
    "ReadResourceRequest",
    "ReadResourceResult",
    "ReadResourceResultResponse",
    "Resource",
    "ResourceLink",
    "ServerCapabilities",
    "TextContent",
    "TextResourceContents",
    "Tool",
    "UnsupportedProtocolVersionError",
];

/// The one official example of our types that breaks the official schema's own
/// `ReadResourceResult` (no `ttlMs`, no `cacheScope`): our type and validator must refuse it.
const OFF_SCHEMA: &str = "ReadResourceResultResponse/read-resource-result-response.json";

/// Why an example folder is not one of ours, or `None` for a folder nobody has classified.
fn not_ours(folder: &str) -> Option<&'static str> {
    let reason = match folder {
        "CreateMessageRequest"
        | "CreateMessageRequestParams"
        | "CreateMessageResult"
        | "SamplingMessage"
        | "ModelPreferences"
        | "ToolUseContent"
        | "ToolResultContent" => {
            "sampling: the server never asks the client for a model completion"
        }
        "ElicitRequest"
        | "ElicitRequestFormParams"
        | "ElicitRequestURLParams"
        | "ElicitResult"
        | "BooleanSchema"
        | "NumberSchema"
        | "StringSchema"
        | "TitledMultiSelectEnumSchema"
        | "TitledSingleSelectEnumSchema"
        | "UntitledMultiSelectEnumSchema"
        | "UntitledSingleSelectEnumSchema" => {
            "elicitation: the server never asks the user for input"
        }
        "InputRequests" | "InputRequiredResult" | "InputResponses" => {
            "input_required: one definition, InputRequiredResult, checked by \
             `input_required_results_agree_with_the_official_examples` (the maps have no type \
             of their own here)"
        }
        "CompleteRequest"
        | "CompleteRequestParams"
        | "CompleteResult"
        | "CompleteResultResponse" => "completions: not offered",
        "LoggingMessageNotification" | "LoggingMessageNotificationParams" => "logging: not offered",
        "ListRootsRequest" | "ListRootsResult" | "Root" => {
            "roots: the server never asks the client for roots"
        }
        "SubscriptionsListenRequest"
        | "SubscriptionsListenResult"
        | "SubscriptionsListenResultResponse"
        | "SubscriptionsAcknowledgedNotification"
        | "ResourceUpdatedNotification"
        | "ResourceUpdatedNotificationParams"
        | "PromptListChangedNotification"
        | "ResourceListChangedNotification"
        | "ToolListChangedNotification" => "subscriptions and change notifications: not offered",
        "ParseError"
        | "InvalidParamsError"
        | "MethodNotFoundError"
        | "InternalError"
        | "HeaderMismatchError"
        | "MissingRequiredClientCapabilityError" => {
            "a generic JSON-RPC error: schema/jsonrpc.json's ErrorResponse covers it"
        }
        _ => return None,
    };
    Some(reason)
}

/// Every example of `folder`: (file, value), sorted.
fn examples(dir: &Path, folder: &str) -> Vec<(PathBuf, Value)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(folder))
        .unwrap_or_else(|e| panic!("example folder {folder}: {e}"))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).expect("an example file");
            let value = serde_json::from_str(&text).expect("an example is JSON");
            (file, value)
        })
        .collect()
}

fn is_off_schema(file: &Path) -> bool {
    file.ends_with(OFF_SCHEMA)
}

#[test]
fn every_example_folder_is_ours_or_explained() {
    let Some(spec) = spec_dir() else { return };
    let dir = spec.join("2026-07-28/examples");
    let mut unexplained = Vec::new();
    let (mut mine, mut skipped) = (0, 0);
    for entry in std::fs::read_dir(&dir).expect("the examples folder") {
        let folder = entry
            .expect("an entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if OUR_FOLDERS.contains(&folder.as_str()) {
            mine += 1;
        } else if let Some(reason) = not_ours(&folder) {
            eprintln!("not ours: {folder}: {reason}");
            skipped += 1;
        } else {
            unexplained.push(folder);
        }
    }
    eprintln!("mcp schemas: {mine} example folders are ours, {skipped} are not");
    assert_eq!(
        mine,
        OUR_FOLDERS.len(),
        "a folder of OUR_FOLDERS is missing"
    );
    assert!(
        unexplained.is_empty(),
        "example folders neither ours nor explained: {unexplained:?}"
    );
}

#[test]
fn every_official_example_of_our_types_round_trips_exactly() {
    let Some(spec) = spec_dir() else { return };
    let dir = spec.join("2026-07-28/examples");
    let (mut total, mut exact, mut refused) = (0, 0, 0);
    let mut failures = Vec::new();
    for folder in OUR_FOLDERS {
        let def = ours(folder);
        let found = examples(&dir, folder);
        assert!(!found.is_empty(), "{folder} has no example");
        for (file, value) in found {
            total += 1;
            if is_off_schema(&file) {
                let typed = (def.roundtrip)(&value);
                let errors = (def.validate)(&value).err().unwrap_or_default();
                let names_both = ["ttlMs", "cacheScope"].iter().all(|member| {
                    errors.iter().any(|e| {
                        e.path() == "/result" && e.keyword() == "required" && e.limit() == *member
                    })
                });
                if typed.is_err() && names_both {
                    refused += 1;
                } else {
                    failures.push(format!(
                        "{}: off-schema example not refused as expected (typed: {typed:?}, validator: {errors:?})",
                        file.display()
                    ));
                }
                continue;
            }
            match support::accepts_exactly(def, &value) {
                Ok(()) => exact += 1,
                Err(why) => failures.push(format!("{}: {why}", file.display())),
            }
        }
    }
    eprintln!(
        "mcp schemas: {exact}/{total} official examples of our types round-tripped exactly, {refused} off-schema refused"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(exact + refused, total);
    assert!(total >= 60, "only {total} examples found");
}

/// A deliberate difference between our verdict and the official one, with the reason.
fn known_difference(
    folder: &str,
    pointer: &str,
    kind: &str,
    ours_ok: bool,
) -> Option<&'static str> {
    let result_unions = [
        "CallToolResultResponse",
        "ReadResourceResultResponse",
        "GetPromptResultResponse",
    ];
    if !ours_ok
        && result_unions.contains(&folder)
        && pointer.starts_with("/result/")
        && pointer != "/result/resultType"
    {
        return Some(
            "the official result is `InputRequiredResult | ...`, an open object needing only \
             `resultType`; this server never sends input_required, so ours keeps the result strict",
        );
    }
    if !ours_ok
        && folder == "UnsupportedProtocolVersionError"
        && pointer == "/id"
        && kind == "removed"
    {
        return Some(
            "the server always knows the id of the request it refuses, so ours requires it",
        );
    }
    None
}

#[test]
fn validators_agree_with_the_official_schema_on_examples_and_mutations() {
    let Some(spec) = spec_dir() else { return };
    let dir = spec.join("2026-07-28/examples");
    let official = official_schema(&spec, "2026-07-28");
    let (mut compared, mut agreed, mut known, mut off_schema) = (0, 0, 0, 0);
    let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut disagreements = Vec::new();
    for folder in OUR_FOLDERS {
        let def = ours(folder);
        let reference = official_validator(&official, &format!("/$defs/{folder}"));
        for (file, example) in examples(&dir, folder) {
            let name = file
                .strip_prefix(&dir)
                .unwrap_or(&file)
                .display()
                .to_string();
            if is_off_schema(&file) {
                // Official: valid through `InputRequiredResult`; ours: refused (see above).
                let verdict = (def.validate)(&example).is_ok();
                assert!(
                    !verdict && reference.is_valid(&example),
                    "{name}: expected a known difference"
                );
                off_schema += 1;
                continue;
            }
            let changed = mutations(&example);
            let mut cases = vec![("", "example", example.clone())];
            cases.extend(
                changed
                    .iter()
                    .map(|m| (m.pointer.as_str(), m.kind, m.value.clone())),
            );
            for (pointer, kind, value) in cases {
                compared += 1;
                let ours_ok = (def.validate)(&value).is_ok();
                let official_ok = reference.is_valid(&value);
                if ours_ok == official_ok {
                    agreed += 1;
                } else if let Some(reason) = known_difference(folder, pointer, kind, ours_ok) {
                    known += 1;
                    *reasons.entry(reason).or_default() += 1;
                } else {
                    disagreements.push(format!(
                        "{name}: {kind} `{pointer}`: ours valid = {ours_ok}, official valid = {official_ok}"
                    ));
                }
            }
        }
    }
    eprintln!(
        "mcp schemas: verdicts agree with the official schema on {agreed}/{compared} examples and mutations; {known} known differences, {off_schema} off-schema example"
    );
    for (reason, count) in reasons {
        eprintln!("  {count} × {reason}");
    }
    assert!(compared > 1000, "only {compared} cases compared");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn input_required_results_agree_with_the_official_examples() {
    use typed_mcp::generated::protocol::validate;
    let Some(spec) = spec_dir() else { return };
    let dir = spec.join("2026-07-28/examples");
    let official = official_schema(&spec, "2026-07-28");
    let reference = official_validator(&official, "/$defs/InputRequiredResult");
    let found = examples(&dir, "InputRequiredResult");
    assert!(
        !found.is_empty(),
        "the official InputRequiredResult examples"
    );
    for (file, example) in found {
        assert!(reference.is_valid(&example), "{}", file.display());
        if let Err(errors) = validate::input_required_result(&example) {
            panic!("{}: ours refuses it: {errors:?}", file.display());
        }
        // Neither questions nor state: the spec's prose requires one of them (its schema
        // cannot say so); ours does.
        let mut bare = example.clone();
        let members = bare.as_object_mut().expect("an object");
        members.remove("inputRequests");
        members.remove("requestState");
        assert!(validate::input_required_result(&bare).is_err());
    }
    for (file, example) in examples(&dir, "InputRequests") {
        let result = serde_json::json!({"resultType": "input_required", "inputRequests": example});
        if let Err(errors) = validate::input_required_result(&result) {
            panic!("{}: ours refuses it: {errors:?}", file.display());
        }
    }
}
