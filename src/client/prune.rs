//! Members a server may add that the generated types do not declare.
//!
//! The protocol schema closes the objects a server sends (`additionalProperties: false`, or
//! declared properties without `additionalProperties`): our server is strict about what it
//! writes, and the generated types refuse undeclared members. The spec asks receivers to
//! ignore members they do not know, so before a result from a server is validated and
//! decoded, the client drops the members the schema does not declare, walking the value along
//! `schema/mcp/protocol.json`; each dropped member is logged (its path, never its value).
//! What remains is validated in full (types, required members, ranges), so only the unknown
//! is forgiven. Objects the schema leaves open (`additionalProperties: {}` or a schema) keep
//! every member.

use std::sync::OnceLock;

use serde_json::{Map, Value};

/// The protocol schema the types were generated from.
const PROTOCOL_SCHEMA: &str = include_str!("../../schema/mcp/protocol.json");

/// Deeper than any protocol message; a guard against cyclic `$ref`s.
const MAX_DEPTH: usize = 64;

fn definitions() -> &'static Map<String, Value> {
    static DEFS: OnceLock<Map<String, Value>> = OnceLock::new();
    DEFS.get_or_init(|| {
        serde_json::from_str::<Value>(PROTOCOL_SCHEMA)
            .ok()
            .and_then(|schema| schema.get("$defs").and_then(Value::as_object).cloned())
            .unwrap_or_default()
    })
}

/// Drops the members of `value` that definition `name` does not declare; returns how many.
pub(crate) fn prune(value: &mut Value, name: &str) -> usize {
    let Some(schema) = definitions().get(name) else {
        return 0;
    };
    let mut dropped = 0;
    walk(value, schema, "", 0, &mut dropped);
    dropped
}

fn resolve(schema: &Value) -> &Value {
    let mut schema = schema;
    for _ in 0..MAX_DEPTH {
        let Some(name) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
        else {
            return schema;
        };
        match definitions().get(name) {
            Some(target) => schema = target,
            None => return schema,
        }
    }
    schema
}

fn walk(value: &mut Value, schema: &Value, path: &str, depth: usize, dropped: &mut usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = resolve(schema);
    // A union picks its branch; `anyOf` beside `properties` only adds constraints (e.g. "one
    // of these members is required") and the object's own properties decide.
    if let Some(branches) = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
        .filter(|_| schema.get("properties").is_none())
    {
        if let Some(branch) = branches.iter().map(resolve).find(|b| fits(value, b)) {
            walk(value, branch, path, depth + 1, dropped);
        }
        return;
    }
    match value {
        Value::Object(members) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties");
            let closed = schema.get("patternProperties").is_none()
                && match additional {
                    None => properties.is_some(),
                    Some(additional) => additional == &Value::Bool(false),
                };
            let keys: Vec<String> = members.keys().cloned().collect();
            for key in keys {
                let child_path = format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"));
                let declared = properties.and_then(|p| p.get(&key));
                let child_schema = match (declared, additional) {
                    (Some(declared), _) => Some(declared),
                    (None, Some(extra)) if extra.is_object() => Some(extra),
                    _ => None,
                };
                match child_schema {
                    Some(child_schema) => {
                        if let Some(child) = members.get_mut(&key) {
                            walk(child, child_schema, &child_path, depth + 1, dropped);
                        }
                    }
                    None if closed => {
                        members.remove(&key);
                        *dropped += 1;
                        tracing::debug!(path = %child_path, "ignored a member the schema does not declare");
                    }
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter_mut().enumerate() {
                    walk(
                        item,
                        item_schema,
                        &format!("{path}/{index}"),
                        depth + 1,
                        dropped,
                    );
                }
            }
        }
        _ => {}
    }
}

/// Whether `value` looks like an instance of `branch`: its required members are present and
/// its `const` / `enum` members match (how the protocol's unions are told apart).
fn fits(value: &Value, branch: &Value) -> bool {
    let Some(members) = value.as_object() else {
        return branch.get("type").and_then(Value::as_str) != Some("object");
    };
    let required = branch.get("required").and_then(Value::as_array);
    if required.is_some_and(|r| {
        r.iter()
            .filter_map(Value::as_str)
            .any(|k| !members.contains_key(k))
    }) {
        return false;
    }
    let Some(properties) = branch.get("properties").and_then(Value::as_object) else {
        return true;
    };
    properties.iter().all(|(key, property)| {
        let property = resolve(property);
        match members.get(key) {
            None => true,
            Some(actual) => {
                property.get("const").is_none_or(|c| c == actual)
                    && property
                        .get("enum")
                        .and_then(Value::as_array)
                        .is_none_or(|allowed| allowed.contains(actual))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undeclared_members_are_dropped_at_every_level_and_open_objects_kept() {
        let mut result = serde_json::json!({
            "resultType": "complete",
            "serverInfo": {"name": "x"},
            "content": [
                {"type": "text", "text": "hi", "extra": 1},
                {"type": "image", "data": "AA==", "mimeType": "image/png", "more": true}
            ],
            "structuredContent": {"anything": {"goes": 1}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}, "k": 2}
        });
        let dropped = prune(&mut result, "CallToolResult");
        assert_eq!(dropped, 3, "{result}");
        assert!(result.get("serverInfo").is_none());
        assert_eq!(
            result["content"][0],
            serde_json::json!({"type": "text", "text": "hi"})
        );
        assert!(result["content"][1].get("more").is_none());
        assert_eq!(result["structuredContent"]["anything"]["goes"], 1);
        assert_eq!(result["_meta"]["k"], 2);
    }

    #[test]
    fn unknown_members_are_forgiven_but_declared_ones_still_checked() {
        use crate::client::call::validate_received;
        use crate::generated::protocol::validate;
        // Closed with `additionalProperties: false` on the server side, open to the client.
        let mut extra = serde_json::json!({
            "resultType": "complete",
            "content": [{"type": "text", "text": "hi", "future": [1]}],
            "laterAddition": {"x": 1}
        });
        assert!(validate::call_tool_result(&extra).is_err());
        validate_received(&mut extra, validate::call_tool_result, "CallToolResult")
            .expect("unknown members are ignored");
        assert!(extra.get("laterAddition").is_none());
        // A declared member of the wrong type is still refused, with its path.
        let mut wrong = serde_json::json!({
            "resultType": "complete",
            "content": [{"type": "text", "text": 5, "future": 1}]
        });
        let errors = validate_received(&mut wrong, validate::call_tool_result, "CallToolResult")
            .expect_err("text must be a string");
        assert!(
            errors.iter().any(|e| e.path().starts_with("/content/0")),
            "{errors:?}"
        );
    }

    #[test]
    fn input_required_results_need_requests_or_state_and_drop_unknown_members() {
        use crate::client::call::validate_received;
        use crate::generated::protocol::validate;
        let check = |mut value: Value| {
            validate_received(
                &mut value,
                validate::input_required_result,
                "InputRequiredResult",
            )
            .map(|()| value)
        };
        let state_only = check(serde_json::json!({
            "resultType": "input_required", "requestState": "s", "hint": 1
        }))
        .expect("requestState alone is enough");
        assert!(state_only.get("hint").is_none());
        let asked = check(serde_json::json!({
            "resultType": "input_required",
            "inputRequests": {"a": {"method": "roots/list", "params": {}, "id": 3}}
        }))
        .expect("inputRequests alone is enough");
        assert!(asked["inputRequests"]["a"].get("id").is_none());
        assert!(check(serde_json::json!({"resultType": "input_required"})).is_err());
        assert!(check(serde_json::json!({
            "resultType": "input_required",
            "inputRequests": {"a": {"method": "tools/list"}}
        }))
        .is_err());
    }
}
