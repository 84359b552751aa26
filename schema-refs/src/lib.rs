//! JSON Schema (2020-12) reference resolution, shared by the generator `typed-mcp-codegen`
//! and the runtime `typed-mcp`.
//!
//! The generator resolves every reference of a definition at build time, to refuse a schema
//! whose references do not all resolve and to bundle references statically; the runtime's
//! evaluator (`typed_mcp::__private::Evaluator`) resolves the references of the few
//! definitions left to run time while it validates. Both must follow the same rules, so both
//! use this crate: RFC 3986 resolution against the `$id`s in force ([`resolve`]), JSON
//! Pointer fragments ([`walk_pointer`]) and anchor fragments, `$dynamicRef` against the
//! dynamic scope ([`Registry::dynamic_lookup`]), and a metaschema without the validation
//! vocabulary turning it off ([`Registry::validation_of`]).
//!
//! Like `prost-types` beside `prost` and `prost-build`, it is a small crate of its own so
//! that neither of the two depends on the other: it needs `serde_json` only (no async
//! runtime), and nothing in it evaluates an instance. It is released with `typed-mcp` and
//! `typed-mcp-codegen` at the same version; its API is theirs to use, not a user's.
//!
//! Nothing here fails with an error: a reference that does not resolve is `None`, and its
//! caller says why in its own error type.
//!
//! ```
//! use serde_json::json;
//! use typed_mcp_schema_refs::Registry;
//!
//! let document = json!({
//!     "$defs": {
//!         "a": {
//!             "$ref": "#b",
//!             "$defs": { "b": { "$anchor": "b", "type": "string" } }
//!         }
//!     }
//! });
//! let no_remotes = json!({});
//! let registry = Registry::new(&document, "file:///s.json", "/$defs/a", &no_remotes);
//! let target = registry.lookup("file:///s.json", "#b").expect("the anchor resolves");
//! assert_eq!(target.schema["type"], "string");
//! let unresolved = typed_mcp_schema_refs::unresolved(&document, "file:///s.json", "/$defs/a", &no_remotes);
//! assert!(unresolved.is_empty());
//! ```
//!
//! The files: `registry` ([`Registry`]: the resources and anchors) and `uris` (JSON Pointers
//! and RFC 3986 reference resolution).

mod registry;
mod uris;

#[cfg(test)]
mod tests;

pub use registry::{
    unresolved, Registry, Target, ONE_SUBSCHEMA, SUBSCHEMA_ARRAYS, SUBSCHEMA_MAPS,
    VALIDATION_VOCABULARY,
};
pub use uris::{resolve, strip_fragment, walk_pointer};
