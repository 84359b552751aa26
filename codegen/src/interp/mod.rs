//! Definitions validated at run time instead of keyword-by-keyword code.
//!
//! A definition whose schema needs what static resolution cannot give (a `$schema` naming a
//! metaschema of the remote documents, which may switch vocabularies off, or a type the type
//! generator failed on) is not refused: its type is built from its shape (see
//! `types::shape`: those keywords only narrow what is valid; a bare `serde_json::Value` when
//! nothing typed is left) and its validator calls the runtime's evaluator
//! (`typed_mcp::__private::Evaluator`, compiled once into the runtime crate, never copied
//! into generated code) with the schema document embedded as JSON. The build prints a
//! `cargo:warning` naming the definition and the keyword. Here, at generation time, every
//! reference is resolved (from the document and the remote documents listed in the `Config`)
//! by `typed-mcp-schema-refs`, the crate the runtime's evaluator resolves with too, so an
//! unresolvable reference is refused by the generator, never met at run time.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use crate::doc::{Definition, SchemaDoc};
use crate::error::{Error, Result};

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
    typed_mcp_schema_refs::unresolved(document, base, pointer, remotes)
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

/// The body of an evaluated definition's walker: the runtime's evaluator, every violation
/// with its path and keyword.
pub(crate) fn emit_call(doc: &SchemaDoc, def: &Definition) -> TokenStream {
    let evaluator = registry_static(doc, def);
    quote! {
        #evaluator.validate(value, at, errors);
    }
}

/// The embedded document and remote documents and one runtime evaluator per evaluated
/// definition; nothing when no definition is evaluated.
pub(crate) fn emit_support(doc: &SchemaDoc) -> TokenStream {
    if doc.evaluated.is_empty() {
        return TokenStream::new();
    }
    let document = doc.raw.to_string();
    let remotes = doc.remotes.to_string();
    let base = base_uri(doc);
    let formats = doc.assert_formats;
    let evaluators = doc.evaluated.iter().enumerate().map(|(i, name)| {
        let ident = format_ident!("__EVALUATED_{}", i);
        let pointer = doc
            .defs
            .iter()
            .find(|d| d.name == *name)
            .map(|d| d.pointer.clone())
            .unwrap_or_default();
        let comment = format!(" `{name}`, validated at run time.");
        quote! {
            #[doc = #comment]
            static #ident: __rt::Evaluator =
                __rt::Evaluator::new(&__DOCUMENT, &__REMOTES, #base, #pointer, #formats);
        }
    });
    quote! {
        /// The schema document, for the definitions validated at run time.
        static __DOCUMENT: __rt::LazyJson = __rt::LazyJson::new(#document);
        /// The remote documents listed in the generator's configuration, by URI.
        static __REMOTES: __rt::LazyJson = __rt::LazyJson::new(#remotes);
        #(#evaluators)*
    }
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
