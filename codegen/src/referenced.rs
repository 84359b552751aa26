//! The definitions a definition reaches through `$ref`, written into its `SchemaDefinition`
//! impl (`REFERENCED`, with one `static` per definition referred to) so that the runtime can
//! publish the definition as a self-contained schema (a tool's `inputSchema` or
//! `outputSchema`): the definition as written, with the definitions it refers to,
//! transitively, under the same `$defs` / `definitions` key, so that every `#/$defs/<name>`
//! in it resolves against the published schema's root as it did against the file's.
//!
//! Only plain references to a definition of the same file (`#/$defs/<name>`,
//! `#/definitions/<name>`) are followed. A definition reaching anything else (a remote or
//! relative URI, a pointer deeper than a definition, `$dynamicRef`, an `$id`, which changes
//! what the references under it mean) gets no `REFERENCED`: the runtime then refuses it as a
//! tool schema, with the reference it cannot publish in the message.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

/// A definition of the file, as a `$ref` names it: its container (`$defs` or
/// `definitions`) and its name there.
type Key = (&'static str, String);

/// Every definition the definition at `pointer` of `root` reaches through `$ref`, itself
/// included when it refers to itself; `None` when one of them refers to something a
/// publication cannot carry (see the module docs).
pub(crate) fn closure(root: &Value, pointer: &str) -> Option<BTreeSet<Key>> {
    if pointer.is_empty() {
        // A titled root schema: the file itself is the definition.
        return None;
    }
    let mut seen = BTreeSet::new();
    let mut pending = direct(root.pointer(pointer)?)?;
    while let Some(key) = pending.pop() {
        if seen.contains(&key) {
            continue;
        }
        pending.extend(direct(target(root, &key)?)?);
        seen.insert(key);
    }
    Some(seen)
}

/// The definitions `schema` names in its own `$ref`s, sorted, once each.
pub(crate) fn direct(schema: &Value) -> Option<Vec<Key>> {
    let mut out = Vec::new();
    references(schema, &mut out)?;
    out.sort();
    out.dedup();
    Some(out)
}

/// The schema of the definition `key` names.
pub(crate) fn target<'v>(root: &'v Value, (container, name): &Key) -> Option<&'v Value> {
    root.get(*container)?.get(name)
}

/// The `REFERENCED` item of the `SchemaDefinition` impl of each definition at `pointers` of
/// `root` (`None` for one that refers to nothing, or to what cannot be published), and the
/// statics they name: one per definition referred to, holding its text and naming those it
/// refers to in turn, so that each definition's text is written once per file.
///
/// `types` holds the type of each of `pointers` (same order): a definition referred to that
/// has one takes its text from the type's `SCHEMA`, which holds the same.
pub(crate) fn emit(
    root: &Value,
    pointers: &[&str],
    types: &[TokenStream],
    contract: &TokenStream,
) -> (Vec<Option<TokenStream>>, TokenStream) {
    let closures: Vec<Option<BTreeSet<Key>>> = pointers
        .iter()
        .map(|pointer| closure(root, pointer).filter(|reached| !reached.is_empty()))
        .collect();
    let all: BTreeSet<&Key> = closures.iter().flatten().flatten().collect();
    let ident = |key: &Key| {
        let index = all
            .iter()
            .position(|k| *k == key)
            .expect("every key reached is listed");
        format_ident!("__REFERENCED_{}", index)
    };
    let names = |keys: &[Key]| keys.iter().map(ident).collect::<Vec<_>>();
    let statics = all.iter().map(|key| {
        let schema = target(root, key).expect("a reached definition exists");
        let refers_to = names(&direct(schema).expect("a reached definition is publishable"));
        let (container, name) = (key.0, &key.1);
        let pointer = format!(
            "/{container}/{}",
            name.replace('~', "~0").replace('/', "~1")
        );
        let text = match pointers.iter().position(|p| *p == pointer) {
            Some(index) => {
                let ty = &types[index];
                quote! { <#ty as #contract::SchemaDefinition>::SCHEMA }
            }
            None => {
                let text = schema.to_string();
                quote! { #text }
            }
        };
        let static_name = ident(key);
        quote! {
            static #static_name: #contract::ReferencedDefinition = #contract::ReferencedDefinition {
                container: #container,
                name: #name,
                schema: #text,
                refers_to: &[#(&#refers_to),*],
            };
        }
    });
    let statics = quote! { #(#statics)* };
    let items = pointers
        .iter()
        .zip(&closures)
        .map(|(pointer, reached)| {
            reached.as_ref()?;
            let start = root.pointer(pointer)?;
            let refers_to = names(&direct(start)?);
            Some(quote! {
                const REFERENCED: &'static [&'static #contract::ReferencedDefinition] =
                    &[#(&#refers_to),*];
            })
        })
        .collect();
    (items, statics)
}

/// Pushes the definition each `$ref` under `schema` names onto `out`; `None` on a reference
/// (or a scope change, `$id`) that cannot be published.
fn references(schema: &Value, out: &mut Vec<Key>) -> Option<()> {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => out.push(definition_of(target)?),
                    ("$ref" | "$dynamicRef" | "$recursiveRef" | "$id", _) => return None,
                    // Literal values, not schemas: a `"$ref"` key inside them is data.
                    ("const" | "enum" | "default" | "examples", _) => {}
                    // Maps from names to schemas: a name is not a keyword.
                    (
                        "properties" | "patternProperties" | "dependentSchemas" | "$defs"
                        | "definitions",
                        Value::Object(schemas),
                    ) => schemas.values().try_for_each(|s| references(s, out))?,
                    _ => references(value, out)?,
                }
            }
            Some(())
        }
        Value::Array(items) => items.iter().try_for_each(|item| references(item, out)),
        _ => Some(()),
    }
}

/// The container and name of a plain same-file definition reference.
fn definition_of(reference: &str) -> Option<Key> {
    let (container, rest) = if let Some(rest) = reference.strip_prefix("#/$defs/") {
        ("$defs", rest)
    } else if let Some(rest) = reference.strip_prefix("#/definitions/") {
        ("definitions", rest)
    } else {
        return None;
    };
    if rest.contains('/') || rest.contains('%') {
        return None;
    }
    Some((container, rest.replace("~1", "/").replace("~0", "~")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(names: &[&str]) -> BTreeSet<Key> {
        names.iter().map(|n| ("$defs", (*n).to_string())).collect()
    }

    #[test]
    fn the_definitions_reached_are_found_transitively_and_once() {
        let root = json!({"$defs": {
            "Route": {"type": "object", "properties": {
                "from": {"$ref": "#/$defs/Address"}, "to": {"$ref": "#/$defs/Address"}}},
            "Address": {"type": "object", "properties": {"zip": {"$ref": "#/$defs/Zip"}}},
            "Zip": {"type": "string"},
            "Node": {"items": {"$ref": "#/$defs/Node"}}
        }});
        assert_eq!(
            closure(&root, "/$defs/Route"),
            Some(keys(&["Address", "Zip"]))
        );
        assert_eq!(closure(&root, "/$defs/Zip"), Some(keys(&[])));
        assert_eq!(closure(&root, "/$defs/Node"), Some(keys(&["Node"])));
        assert_eq!(
            direct(&root["$defs"]["Route"]),
            Some(vec![("$defs", "Address".to_string())])
        );
        let contract = quote!(rt);
        let types = [quote!(Route), quote!(Zip)];
        let pointers = ["/$defs/Route", "/$defs/Zip"];
        let (items, statics) = emit(&root, &pointers, &types, &contract);
        assert!(items[0].is_some() && items[1].is_none());
        let statics = statics.to_string();
        assert_eq!(statics.matches("static").count(), 2, "{statics}");
        // `Zip` has a type: its text is the type's; `Address` has none: written out.
        assert!(
            statics.contains("< Zip as rt :: SchemaDefinition > :: SCHEMA"),
            "{statics}"
        );
        assert!(statics.contains("\\\"zip\\\""), "{statics}");
    }

    #[test]
    fn only_plain_definition_references_are_followed() {
        for reference in [
            "other.json#/$defs/A",
            "#/$defs/A/properties/x",
            "#anchor",
            "#",
        ] {
            let root = json!({"$defs": {
                "T": {"properties": {"x": {"$ref": "#/$defs/B"}}},
                "B": {"properties": {"x": {"$ref": reference}}},
                "A": {"properties": {"x": {}}}
            }});
            assert_eq!(closure(&root, "/$defs/T"), None, "{reference}");
        }
        let nested_id = json!({"$defs": {
            "T": {"properties": {"x": {"$id": "x.json", "$ref": "#/$defs/A"}}},
            "A": {}
        }});
        assert_eq!(closure(&nested_id, "/$defs/T"), None);
        let property_named_like_a_keyword = json!({"$defs": {
            "T": {"properties": {"default": {"$ref": "#/$defs/A"}}},
            "A": {"type": "string"}
        }});
        assert_eq!(
            closure(&property_named_like_a_keyword, "/$defs/T"),
            Some(keys(&["A"]))
        );
    }

    #[test]
    fn literal_values_are_not_references() {
        let root = json!({"$defs": {"T": {"const": {"$ref": "elsewhere"}}}});
        assert_eq!(closure(&root, "/$defs/T"), Some(keys(&[])));
        let root = json!({"definitions": {
            "T": {"items": {"$ref": "#/definitions/U"}, "examples": [{"$ref": 1}]},
            "U": {"type": "integer"}
        }});
        assert_eq!(
            closure(&root, "/definitions/T"),
            Some(BTreeSet::from([("definitions", "U".to_string())]))
        );
    }
}
