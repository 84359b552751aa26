//! Restructuring a loaded [`SchemaDoc`] into definitions the emitters handle one by one:
//! nested `$defs` / `definitions` lifted to the top, and unions (and string enums the types
//! emitter writes itself) hoisted out of the schemas that hold them.

use serde_json::{Map, Value};

use crate::doc::{escape_pointer, pascal, ref_target, visit_schemas_mut, Definition, SchemaDoc};

impl SchemaDoc {
    /// Makes every `$defs` / `definitions` nested in a definition a definition of its own
    /// (named after its key, made unique), and points the references to it there: a
    /// reference written by its full pointer (`#/$defs/Tool/$defs/X`), and one written
    /// `#/$defs/X` or `#/definitions/X` inside the definition that holds it (as it was
    /// written when the definition was a document of its own, e.g. a pasted tool schema).
    pub(crate) fn lift_nested_defs(&mut self) {
        let mut index = 0;
        while index < self.defs.len() {
            let pointer = self.defs[index].pointer.clone();
            let nested = crate::dialect::take_nested_defs(&mut self.defs[index].schema, &pointer);
            if nested.is_empty() {
                index += 1;
                continue;
            }
            let parent = self.defs[index].name.clone();
            let mut lifted = Vec::new();
            let mut by_name = std::collections::BTreeMap::new();
            let mut by_pointer = std::collections::BTreeMap::new();
            for (at, name, schema) in nested {
                // Taken: a name that is, or becomes the same Rust type or function name as,
                // one already there (`a` and `A` are both type `A`).
                let taken = |n: &str| {
                    self.defs
                        .iter()
                        .chain(lifted.iter())
                        .any(|d: &Definition| same_rust_names(&d.name, n))
                };
                let mut fresh = if taken(&name) {
                    format!("{parent}{}", pascal(&name))
                } else {
                    name.clone()
                };
                let wanted = fresh.clone();
                let mut n = 2;
                while taken(&fresh) {
                    fresh = format!("{wanted}{n}");
                    n += 1;
                }
                by_name.entry(name).or_insert_with(|| fresh.clone());
                by_pointer.insert(format!("#{at}"), fresh.clone());
                lifted.push(Definition {
                    name: fresh,
                    pointer: at,
                    schema,
                });
            }
            let retarget = |schema: &mut Value| {
                let outcome = visit_schemas_mut(schema, "", &mut |map, _| {
                    let Some(Value::String(target)) = map.get("$ref") else {
                        return Ok(());
                    };
                    let name = by_pointer
                        .get(target)
                        .or_else(|| ref_target(target).and_then(|local| by_name.get(&local)));
                    if let Some(name) = name {
                        let reference = format!("#/$defs/{}", escape_pointer(name));
                        map.insert("$ref".into(), Value::String(reference));
                    }
                    Ok(())
                });
                debug_assert!(outcome.is_ok(), "the visitor above never fails");
            };
            retarget(&mut self.defs[index].schema);
            for def in &mut lifted {
                retarget(&mut def.schema);
            }
            self.defs.extend(lifted);
            index += 1;
        }
    }

    /// Moves every `anyOf` / `oneOf` found below a definition's root into a new definition,
    /// leaving a `$ref` (with the original annotations) in its place; and likewise every
    /// string `enum` for which `own_enum` says the types emitter writes the enum itself.
    pub(crate) fn hoist_unions(&mut self, own_enum: &dyn Fn(&[Value]) -> bool) {
        let mut index = 0;
        while index < self.defs.len() {
            let mut hoisted = Vec::new();
            let def = &mut self.defs[index];
            let (name, pointer) = (def.name.clone(), def.pointer.clone());
            hoist_below(
                &mut def.schema,
                &name,
                &pointer,
                Place::Root,
                own_enum,
                &mut hoisted,
            );
            for (wanted, at, schema) in hoisted {
                let name = self.fresh_name(&wanted);
                // Patch the placeholder left by `hoist_below`.
                let def = &mut self.defs[index];
                replace_placeholder(&mut def.schema, &wanted, &name);
                self.defs.push(Definition {
                    name,
                    pointer: at,
                    schema,
                });
            }
            index += 1;
        }
    }
}

/// Marker key left where a union was hoisted, until the final name is known.
const PLACEHOLDER: &str = "x-typed-mcp-hoisted";

/// Whether `map` is a string `enum` that `own_enum` claims.
pub(crate) fn is_own_enum(map: &Map<String, Value>, own_enum: &dyn Fn(&[Value]) -> bool) -> bool {
    match map.get("enum") {
        Some(Value::Array(values)) => {
            !values.is_empty() && values.iter().all(Value::is_string) && own_enum(values)
        }
        _ => false,
    }
}

/// Whether `schema` has a `type` list holding `"null"` and another type: as an optional
/// member, its value may be absent, `null` or another value, three states a Rust `Option`
/// alone cannot keep apart. Hoisted into a definition of its own (a newtype around an
/// `Option`), the member becomes `Option<ThatType>`: absent is `None`, `null` is
/// `Some(ThatType(None))`.
fn is_nullable_type_list(schema: &Value) -> bool {
    let Some(Value::Array(types)) = schema.get("type") else {
        return false;
    };
    types.len() > 1 && types.contains(&Value::String("null".into()))
}

/// Where a schema met by [`hoist_below`] stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A definition's root: never hoisted.
    Root,
    /// An object member the object does not require.
    OptionalMember,
    /// Anywhere else below a root.
    Below,
}

fn hoist_below(
    schema: &mut Value,
    name: &str,
    at: &str,
    place: Place,
    own_enum: &dyn Fn(&[Value]) -> bool,
    out: &mut Vec<(String, String, Value)>,
) {
    let optional_nullable = place == Place::OptionalMember && is_nullable_type_list(schema);
    let Value::Object(map) = schema else {
        return;
    };
    let union = map.contains_key("anyOf") || map.contains_key("oneOf");
    if place != Place::Root && (union || is_own_enum(map, own_enum) || optional_nullable) {
        let moved = std::mem::take(map);
        let mut stub = Map::new();
        for annotation in ["description", "title"] {
            if let Some(v) = moved.get(annotation) {
                stub.insert(annotation.into(), v.clone());
            }
        }
        stub.insert(PLACEHOLDER.into(), Value::String(name.to_string()));
        *map = stub;
        // The hoisted union's own nested unions are hoisted when its turn comes.
        out.push((name.to_string(), at.to_string(), Value::Object(moved)));
        return;
    }
    let required: Vec<String> = match map.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        let here = format!("{at}/{}", escape_pointer(&key));
        let Some(value) = map.get_mut(&key) else {
            continue;
        };
        match key.as_str() {
            "properties" => {
                if let Value::Object(props) = value {
                    for (prop, sub) in props.iter_mut() {
                        let child = format!("{name}{}", pascal(prop));
                        let p = format!("{here}/{}", escape_pointer(prop));
                        let place = if required.contains(prop) {
                            Place::Below
                        } else {
                            Place::OptionalMember
                        };
                        hoist_below(sub, &child, &p, place, own_enum, out);
                    }
                }
            }
            "additionalProperties" => hoist_below(
                value,
                &format!("{name}Value"),
                &here,
                Place::Below,
                own_enum,
                out,
            ),
            "items" => hoist_below(
                value,
                &format!("{name}Item"),
                &here,
                Place::Below,
                own_enum,
                out,
            ),
            "anyOf" | "oneOf" | "allOf" => {
                if let Value::Array(branches) = value {
                    for (i, sub) in branches.iter_mut().enumerate() {
                        let child = format!("{name}Variant{i}");
                        let at = format!("{here}/{i}");
                        hoist_below(sub, &child, &at, Place::Below, own_enum, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether definitions `a` and `b` would get the same Rust type or validator name.
pub(crate) fn same_rust_names(a: &str, b: &str) -> bool {
    a == b
        || crate::types::rust_type_name(a) == crate::types::rust_type_name(b)
        || crate::naming::fn_stem(a) == crate::naming::fn_stem(b)
}

fn replace_placeholder(schema: &mut Value, wanted: &str, name: &str) {
    let outcome = visit_schemas_mut(schema, "", &mut |map, _| {
        if map.get(PLACEHOLDER).and_then(Value::as_str) == Some(wanted) {
            map.remove(PLACEHOLDER);
            map.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
        }
        Ok(())
    });
    debug_assert!(outcome.is_ok(), "the visitor above never fails");
}
