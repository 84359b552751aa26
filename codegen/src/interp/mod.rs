//! Definitions validated by an embedded evaluator instead of keyword-by-keyword code.
//!
//! A definition whose schema uses what the emitted validators do not implement keyword by
//! keyword (`$dynamicRef`, `$id` / `$anchor` resources, remote references,
//! ...) is not refused: its type is built from its shape (see
//! `types::shape`: those keywords only narrow what is valid; a bare `serde_json::Value`
//! when nothing typed is left) and its validator hands the value to [`evaluator`], a complete
//! 2020-12 evaluator whose source is copied into the generated code ([`SOURCE`]) with the
//! schema document embedded as JSON. The same evaluator runs here, at generation time, to
//! check that every reference resolves (from the document and the remote documents listed in
//! the `Config`), so an unresolvable reference is refused by the generator, never met at run
//! time.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use crate::doc::{Definition, SchemaDoc};
use crate::error::{Error, Result};

// Evaluation itself runs in generated code; here the evaluator resolves references (and is
// unit-tested).
#[allow(dead_code)]
pub(crate) mod evaluator;

/// What the evaluator reaches as `super::__rt` in generated code (the runtime's
/// `__private`), rebuilt here from the same crates.
mod __rt {
    pub(crate) use serde_json::{Map, Number, Value};

    /// An ECMA-262 regular expression, compiled on first use (as the runtime's).
    #[derive(Debug)]
    pub(crate) struct LazyRegex {
        compiled: Option<regress::Regex>,
    }

    impl LazyRegex {
        pub(crate) fn new(source: &'static str) -> Self {
            Self {
                compiled: regress::Regex::with_flags(source, "u").ok(),
            }
        }

        pub(crate) fn is_match(&self, s: &str) -> bool {
            self.compiled
                .as_ref()
                .is_some_and(|re| re.find(s).is_some())
        }
    }
}

/// The evaluator's source, copied into generated code: its `mod.rs`, then each of its
/// modules by name.
pub(crate) const SOURCE: &str = include_str!("evaluator/mod.rs");
const MODULES: &[(&str, &str)] = &[
    ("registry", include_str!("evaluator/registry.rs")),
    ("state", include_str!("evaluator/state.rs")),
    ("uris", include_str!("evaluator/uris.rs")),
    ("values", include_str!("evaluator/values.rs")),
];

/// The marker a definition's schema is replaced by when the evaluator validates it.
pub(crate) const MARKER: &str = "x-typed-mcp-evaluated";

/// Whether `schema` is the marker of an evaluated definition.
pub(crate) fn is_evaluated(schema: &Value) -> bool {
    schema.get(MARKER).is_some()
}

/// The references of the definition at `pointer` in `document` (URI `base`) that resolve
/// neither in the document nor in `remotes`.
pub(crate) fn unresolved(
    document: &'static Value,
    base: &str,
    pointer: &str,
    remotes: &'static Value,
) -> Vec<String> {
    evaluator::Registry::new(document, base, pointer, remotes).unresolved()
}

/// The base URI of a document read from `file` (its references resolve against it).
pub(crate) fn base_uri(doc: &SchemaDoc) -> String {
    base_uri_of(&doc.file)
}

/// The base URI of a document read from `file`.
pub(crate) fn base_uri_of(file: &std::path::Path) -> String {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("file:///{name}")
}

/// A static name for an evaluated definition's registry.
fn registry_static(doc: &SchemaDoc, def: &Definition) -> proc_macro2::Ident {
    let index = doc
        .evaluated
        .iter()
        .position(|n| *n == def.name)
        .unwrap_or(0);
    format_ident!("__EVALUATED_{}", index)
}

/// The body of an evaluated definition's walker: one `schema` violation when the evaluator
/// rejects the value.
pub(crate) fn emit_call(doc: &SchemaDoc, def: &Definition) -> TokenStream {
    let registry = registry_static(doc, def);
    let base = base_uri(doc);
    let pointer = &def.pointer;
    quote! {
        let registry = #registry.get_or_init(|| {
            __eval::Registry::new(__DOCUMENT.get(), #base, #pointer, __REMOTES.get())
        });
        if !registry.is_valid(#base, #pointer, value) {
            errors.fail(at, #pointer, "schema", || {
                (
                    __rt::Part::Null,
                    __rt::summary(value),
                    __rt::Message::Static("the value does not match the schema"),
                )
            });
        }
    }
}

/// The evaluator module, the embedded document and remote documents and one registry per
/// evaluated definition; nothing when no definition is evaluated.
pub(crate) fn emit_support(doc: &SchemaDoc) -> Result<TokenStream> {
    if doc.evaluated.is_empty() {
        return Ok(TokenStream::new());
    }
    let (attrs, items) = inline_module(doc, "mod.rs", SOURCE)?;
    let document = doc.raw.to_string();
    let remotes = doc.remotes.to_string();
    let registries = (0..doc.evaluated.len()).map(|i| {
        let name = format_ident!("__EVALUATED_{}", i);
        quote! {
            static #name: ::std::sync::OnceLock<__eval::Registry> = ::std::sync::OnceLock::new();
        }
    });
    Ok(quote! {
        /// The schema document, for the evaluated definitions.
        static __DOCUMENT: __rt::LazyJson = __rt::LazyJson::new(#document);
        /// The remote documents listed in the generator's configuration, by URI.
        static __REMOTES: __rt::LazyJson = __rt::LazyJson::new(#remotes);
        #(#registries)*
        #[allow(dead_code, unused_imports, clippy::all)]
        mod __eval {
            #(#attrs)*
            use super::__rt;
            #(#items)*
        }
    })
}

/// Checks, at generation time, a definition left to the evaluator: every reference resolves
/// and every `type` and `pattern` is well-formed. Returns the error to report otherwise.
pub(crate) fn check(doc: &SchemaDoc, name: &str) -> Result<()> {
    let pointer = format!("/$defs/{}", crate::doc::escape_pointer(name));
    let pointer = if doc.raw.pointer(&pointer).is_some() {
        pointer
    } else {
        format!("/definitions/{}", crate::doc::escape_pointer(name))
    };
    let document: &'static Value = Box::leak(Box::new(doc.raw.clone()));
    let remotes: &'static Value = Box::leak(Box::new(doc.remotes.clone()));
    if let Some(reference) = unresolved(document, &base_uri(doc), &pointer, remotes)
        .into_iter()
        .next()
    {
        return Err(Error::Unsupported {
            file: doc.file.clone(),
            pointer,
            keyword: format!(
                "$ref: {reference} (resolves neither in the file nor in a remote document listed in the Config)"
            ),
        });
    }
    let schema = document.pointer(&pointer).unwrap_or(&Value::Null);
    if let Some((at, message)) = malformed(schema, &pointer) {
        return Err(Error::InvalidSchema {
            file: doc.file.clone(),
            pointer: at,
            message,
        });
    }
    Ok(())
}

/// The first malformed `type` or `pattern` at or below `schema` (at `at`).
fn malformed(schema: &Value, at: &str) -> Option<(String, String)> {
    const TYPES: &[&str] = &[
        "null", "boolean", "object", "array", "number", "integer", "string",
    ];
    let Value::Object(map) = schema else {
        return None;
    };
    let is_type = |t: &Value| t.as_str().is_some_and(|t| TYPES.contains(&t));
    if let Some(types) = map.get("type") {
        let ok = match types {
            Value::Array(ts) => ts.iter().all(is_type),
            t => is_type(t),
        };
        if !ok {
            let message = "`type` must be a JSON Schema type name or an array of them";
            return Some((format!("{at}/type"), message.into()));
        }
    }
    let mut patterns: Vec<&str> = map
        .get("patternProperties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    if let Some(Value::String(p)) = map.get("pattern") {
        patterns.push(p);
    }
    for pattern in patterns {
        if let Err(e) = regress::Regex::with_flags(pattern, "u") {
            let message = format!("`pattern` is not an ECMA-262 regular expression: {e}");
            return Some((at.to_string(), message));
        }
    }
    map.iter().find_map(|(key, value)| {
        let here = format!("{at}/{}", crate::doc::escape_pointer(key));
        match (key.as_str(), value) {
            ("allOf" | "anyOf" | "oneOf" | "prefixItems", Value::Array(subs)) => subs
                .iter()
                .enumerate()
                .find_map(|(i, sub)| malformed(sub, &format!("{here}/{i}"))),
            (
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
                Value::Object(subs),
            ) => subs.iter().find_map(|(name, sub)| {
                malformed(sub, &format!("{here}/{}", crate::doc::escape_pointer(name)))
            }),
            (
                "additionalProperties"
                | "items"
                | "contains"
                | "propertyNames"
                | "not"
                | "if"
                | "then"
                | "else"
                | "unevaluatedItems"
                | "unevaluatedProperties",
                sub,
            ) => malformed(sub, &here),
            _ => None,
        }
    })
}

/// The inner attributes and items of the evaluator file `source`, each `mod name;` of it
/// replaced by the module's items inline (generated code is one file).
fn inline_module(
    doc: &SchemaDoc,
    name: &str,
    source: &str,
) -> Result<(Vec<TokenStream>, Vec<TokenStream>)> {
    let failed = |message: String| Error::GeneratedCode {
        file: doc.file.clone(),
        message: format!("the evaluator's {name}: {message}"),
    };
    let file: syn::File = syn::parse_str(source).map_err(|e| failed(e.to_string()))?;
    let attrs = file
        .attrs
        .iter()
        .map(|attr| {
            let meta = &attr.meta;
            quote!(#![#meta])
        })
        .collect();
    let mut items = Vec::new();
    for item in &file.items {
        match item {
            syn::Item::Mod(module) if module.content.is_none() => {
                let ident = &module.ident;
                let child = ident.to_string();
                let (_, source) = MODULES
                    .iter()
                    .find(|(known, _)| *known == child)
                    .ok_or_else(|| failed(format!("no source for `mod {child};`")))?;
                let (inner_attrs, inner_items) = inline_module(doc, &child, source)?;
                items.push(quote! {
                    mod #ident {
                        #(#inner_attrs)*
                        #(#inner_items)*
                    }
                });
            }
            other => items.push(quote!(#other)),
        }
    }
    Ok((attrs, items))
}

#[cfg(test)]
mod tests {
    use super::evaluator::Registry;
    use serde_json::{json, Value};

    fn leak(value: Value) -> &'static Value {
        Box::leak(Box::new(value))
    }

    fn valid(schema: Value, instance: Value) -> bool {
        let document = leak(json!({"$defs": {"A": schema}}));
        let remotes = leak(json!({}));
        Registry::new(document, "file:///t.json", "/$defs/A", remotes).is_valid(
            "file:///t.json",
            "/$defs/A",
            &instance,
        )
    }

    #[test]
    fn unevaluated_properties_see_through_applicators() {
        let schema = json!({
            "allOf": [{"properties": {"a": true}}],
            "unevaluatedProperties": false
        });
        assert!(valid(schema.clone(), json!({"a": 1})));
        assert!(!valid(schema, json!({"a": 1, "b": 2})));
    }

    #[test]
    fn multiple_of_is_exact_decimal() {
        assert!(valid(json!({"multipleOf": 0.0001}), json!(0.0075)));
        assert!(!valid(json!({"multipleOf": 0.123456789}), json!(1e308)));
        assert!(valid(json!({"multipleOf": 1e-8}), json!(12391239123_u64)));
    }

    #[test]
    fn anchors_and_ids_resolve() {
        let schema = json!({
            "$id": "http://example.com/root.json",
            "$ref": "item.json#foo",
            "$defs": {"x": {"$id": "item.json", "$defs": {"y": {"$anchor": "foo", "type": "integer"}}}}
        });
        assert!(valid(schema.clone(), json!(1)));
        assert!(!valid(schema, json!("a")));
    }
}
