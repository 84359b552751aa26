//! Tool schemas that refer to other definitions of their file (`$ref: "#/$defs/Address"`):
//! a generated type carries the definitions its own refers to
//! ([`SchemaDefinition::REFERENCED`](crate::SchemaDefinition::REFERENCED)), and a tool
//! publishes its definition with them merged in, so that the published `inputSchema` /
//! `outputSchema` is self-contained and every reference resolves in it as it did in the file.
//!
//! Only references to a definition of the same file (`#/$defs/<name>`,
//! `#/definitions/<name>`) can be published; anything else (another document, a pointer
//! into a definition, `$dynamicRef`, a nested `$id`) makes the schema unusable as a tool
//! schema, and [`unpublishable`] names it.

use serde_json::{Map, Value};

use super::McpError;
use crate::validation::ReferencedDefinition;

/// The definition containers a published schema may carry.
const CONTAINERS: [&str; 2] = ["$defs", "definitions"];

/// The JSON text of the definition `name` of a schema file's `$defs`, taken alone (the
/// tests' way to build a tool schema from a file's text).
///
/// # Errors
///
/// [`McpError::InvalidToolSchema`] when the text is not JSON or has no such definition.
#[cfg(test)]
pub(crate) fn definition_text(file_text: &str, name: &str) -> Result<String, McpError> {
    let invalid = |reason: &str| McpError::InvalidToolSchema {
        name: name.to_owned(),
        reason: reason.to_owned(),
    };
    let file: Value =
        serde_json::from_str(file_text).map_err(|_| invalid("the schema file is not JSON"))?;
    file.get("$defs")
        .and_then(|defs| defs.get(name))
        .map(Value::to_string)
        .ok_or_else(|| invalid("the schema file's $defs has no such definition"))
}

/// A generated type's definition `name`: its JSON text `schema` parsed, and the definitions
/// it refers to (`referenced`, see [`collect`]).
///
/// # Errors
///
/// [`McpError::InvalidToolSchema`] naming `name` when a text is not JSON.
pub(crate) fn read(
    name: &str,
    schema: &str,
    referenced: &[&ReferencedDefinition],
) -> Result<(Value, Map<String, Value>), McpError> {
    let invalid = |reason: String| McpError::InvalidToolSchema {
        name: name.to_owned(),
        reason,
    };
    let definition = serde_json::from_str(schema)
        .map_err(|_| invalid("the definition is not JSON".to_owned()))?;
    Ok((definition, collect(referenced).map_err(invalid)?))
}

/// The definitions `direct` names and those they refer to in turn, as a root's `$defs` /
/// `definitions` members, or why they are unusable (a text that is not JSON, a container of
/// another name).
pub(crate) fn collect(direct: &[&ReferencedDefinition]) -> Result<Map<String, Value>, String> {
    let mut members = Map::new();
    let mut pending: Vec<&ReferencedDefinition> = direct.to_vec();
    while let Some(definition) = pending.pop() {
        if !CONTAINERS.contains(&definition.container) {
            return Err(format!(
                "the definition `{}` it refers to is not in $defs",
                definition.name
            ));
        }
        let Value::Object(container) = members
            .entry(definition.container)
            .or_insert_with(|| Value::Object(Map::new()))
        else {
            unreachable!("only objects are inserted");
        };
        if container.contains_key(definition.name) {
            continue;
        }
        let schema = serde_json::from_str(definition.schema).map_err(|_| {
            format!(
                "the definition `{}` it refers to is not JSON",
                definition.name
            )
        })?;
        container.insert(definition.name.to_owned(), schema);
        pending.extend(definition.refers_to);
    }
    Ok(members)
}

/// Adds the definitions of `referenced` (see [`collect`]) to `root`'s containers;
/// a name `root` already holds with another schema is an error naming it.
pub(crate) fn merge_into(
    root: &mut Map<String, Value>,
    referenced: &Map<String, Value>,
) -> Result<(), String> {
    for (container, members) in referenced {
        let Some(members) = members.as_object() else {
            continue;
        };
        let target = root
            .entry(container.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(target) = target else {
            return Err(format!("its {container} is not an object"));
        };
        for (name, schema) in members {
            match target.get(name) {
                Some(existing) if existing != schema => {
                    return Err(format!(
                        "it refers to the definition `{name}`, a name its {container} already \
                         uses for another schema"
                    ))
                }
                Some(_) => {}
                None => {
                    target.insert(name.clone(), schema.clone());
                }
            }
        }
    }
    Ok(())
}

/// The first reference of `schema` (as a keyword and its value) that does not name a
/// definition of `root`'s containers, or that no publication can carry; `None` when every
/// reference resolves. `schema` is `root` itself or a schema placed inside it.
pub(crate) fn unpublishable(schema: &Value, root: &Value) -> Option<String> {
    match schema {
        Value::Object(map) => map
            .iter()
            .find_map(|(key, value)| match (key.as_str(), value) {
                ("$ref", Value::String(target)) => {
                    (!resolves(target, root)).then(|| format!("$ref: {target}"))
                }
                ("$ref" | "$dynamicRef" | "$recursiveRef", _) => Some(format!("{key}: {value}")),
                ("$id", _) if !std::ptr::eq(schema, root) => Some(format!("$id: {value}")),
                // Literal values, not schemas: a `"$ref"` key inside them is data.
                ("const" | "enum" | "default" | "examples", _) => None,
                // Maps from names to schemas: a name is not a keyword.
                (
                    "properties" | "patternProperties" | "dependentSchemas" | "$defs"
                    | "definitions",
                    Value::Object(schemas),
                ) => schemas.values().find_map(|s| unpublishable(s, root)),
                _ => unpublishable(value, root),
            }),
        Value::Array(items) => items.iter().find_map(|item| unpublishable(item, root)),
        _ => None,
    }
}

/// Whether `target` is `#/$defs/<name>` (or `#/definitions/<name>`) naming a definition of
/// `root`.
fn resolves(target: &str, root: &Value) -> bool {
    CONTAINERS.iter().any(|container| {
        target
            .strip_prefix('#')
            .and_then(|pointer| pointer.strip_prefix('/'))
            .and_then(|pointer| pointer.strip_prefix(container))
            .and_then(|rest| rest.strip_prefix('/'))
            .filter(|name| !name.contains('/') && !name.contains('%'))
            .is_some_and(|name| {
                let name = name.replace("~1", "/").replace("~0", "~");
                root.get(container)
                    .and_then(|defs| defs.get(&name))
                    .is_some()
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    static ADDRESS: ReferencedDefinition = text("Address", r#"{"type": "object"}"#, &[]);
    static ROUTE: ReferencedDefinition = text(
        "Route",
        r##"{"properties": {"to": {"$ref": "#/$defs/Address"}}}"##,
        &[&ADDRESS],
    );
    static NODE: ReferencedDefinition =
        text("Node", r##"{"items": {"$ref": "#/$defs/Node"}}"##, &[&NODE]);

    const fn text(
        name: &'static str,
        schema: &'static str,
        refers_to: &'static [&'static ReferencedDefinition],
    ) -> ReferencedDefinition {
        ReferencedDefinition {
            container: "$defs",
            name,
            schema,
            refers_to,
        }
    }

    #[test]
    fn references_to_carried_definitions_resolve() {
        let mut root = json!({"type": "object", "properties": {
            "from": {"$ref": "#/$defs/Address"}, "to": {"$ref": "#/$defs/Address"}}})
        .as_object()
        .cloned()
        .unwrap();
        let before = Value::Object(root.clone());
        assert_eq!(
            unpublishable(&before, &before).as_deref(),
            Some("$ref: #/$defs/Address")
        );
        let referenced = collect(&[&ADDRESS]).unwrap();
        merge_into(&mut root, &referenced).unwrap();
        let after = Value::Object(root);
        assert_eq!(unpublishable(&after, &after), None);
        assert_eq!(after["$defs"]["Address"]["type"], "object");
    }

    #[test]
    fn what_cannot_be_published_is_named() {
        for (schema, named) in [
            (
                json!({"items": {"$ref": "other.json#/$defs/A"}}),
                "$ref: other.json#/$defs/A",
            ),
            (
                json!({"items": {"$ref": "#/$defs/A/properties/x"}}),
                "$ref: #/$defs/A/properties/x",
            ),
            (
                json!({"items": {"$dynamicRef": "#node"}}),
                "$dynamicRef: \"#node\"",
            ),
            (json!({"items": {"$id": "x.json"}}), "$id: \"x.json\""),
        ] {
            let mut schema = schema;
            schema["$defs"] = json!({"A": {"properties": {"x": {}}}});
            assert_eq!(unpublishable(&schema, &schema).as_deref(), Some(named));
        }
        let literal =
            json!({"const": {"$ref": "nowhere"}, "properties": {"enum": {"$ref": "#/$defs/B"}}});
        assert_eq!(
            unpublishable(&literal, &literal).as_deref(),
            Some("$ref: #/$defs/B")
        );
    }

    #[test]
    fn a_name_taken_by_another_schema_is_refused() {
        let mut root = json!({"$defs": {"A": {"type": "string"}}})
            .as_object()
            .cloned()
            .unwrap();
        let same = collect(&[&text("A", r#"{"type": "string"}"#, &[])]).unwrap();
        assert!(merge_into(&mut root, &same).is_ok());
        let other = collect(&[&text("A", r#"{"type": "integer"}"#, &[])]).unwrap();
        assert!(merge_into(&mut root, &other).unwrap_err().contains("`A`"));
        assert!(collect(&[&text("A", "[", &[])]).is_err());
        let elsewhere = ReferencedDefinition {
            container: "$anchors",
            ..text("A", "{}", &[])
        };
        assert!(collect(&[&elsewhere]).is_err());
    }

    #[test]
    fn definitions_are_collected_through_references_once() {
        let cycle = collect(&[&NODE]).unwrap();
        assert_eq!(cycle["$defs"]["Node"]["items"]["$ref"], "#/$defs/Node");
        let both = collect(&[&ADDRESS, &ROUTE]).unwrap();
        let names: Vec<&String> = both["$defs"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["Address", "Route"]);
    }
}
