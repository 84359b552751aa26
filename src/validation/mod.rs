//! Validation of JSON values against the protocol schemas.
//!
//! The validators themselves are generated at build time by `typed-mcp-codegen` (one function
//! per schema definition, in a `validate` module next to the generated types). They report
//! **every** violation as a [`ValidationError`]: where in the value (`path()`, a JSON
//! Pointer), which keyword of which schema (`keyword()`, `schema_path()`), the schema's bound
//! (`limit()`) and what the value had instead (`actual()`). An error keeps what the validator
//! had at hand and renders those parts when they are read, so collecting many violations
//! costs little.
//!
//! ```
//! use typed_mcp::validation::ValidationError;
//!
//! let error = ValidationError::new("/items/3", "/$defs/List/maxItems", "maxItems", 3.into(), 4.into(), "too many items");
//! let json = serde_json::to_value(&error).unwrap();
//! assert_eq!(json["schemaPath"], "/$defs/List/maxItems");
//! assert_eq!(error.to_string(), "/items/3: too many items");
//! assert_eq!((error.path(), error.keyword(), error.limit()), ("/items/3", "maxItems", 3.into()));
//! ```
//!
//! For every schema definition `Foo` (function stem `foo`, the snake-cased name) the
//! generated `validate` module has:
//! - `validate::foo(&Value) -> Result<(), Vec<ValidationError>>`: every violation, in one
//!   pass; nothing is allocated while the value is valid;
//! - `validate::foo_at(value, at, errors)`: the same walk from a location inside a larger
//!   value (used by `$ref`s);
//! - for a union (`anyOf` / `oneOf` at the definition's root) `validate::select_foo(&Value)
//!   -> Option<usize>`: the branch the value belongs to, chosen by its discriminator property
//!   when the branches have one, otherwise the most specific branch that accepts it. A
//!   union's errors are those of that branch, so they point at the inner field.
//!
//! Everything else in this module's submodules is support for generated code and is reached
//! through `typed_mcp::__private`, not through this module.

use serde_json::Value;

pub(crate) mod collector;
pub(crate) mod error;
pub(crate) mod evaluated;
pub(crate) mod evaluator;
pub(crate) mod formats;
pub(crate) mod lazy;
pub(crate) mod location;
pub(crate) mod numbers;
pub(crate) mod reads;
pub(crate) mod reused_value;
pub(crate) mod text;
pub(crate) mod values;

pub use error::ValidationError;

/// A type whose JSON form has a generated validator.
///
/// Implemented by generated code for every generated type: `validate_value` runs the
/// definition's validator over a JSON value and returns every violation.
pub trait SchemaValidate {
    /// Validates `value` against the schema definition this type was generated from.
    ///
    /// # Errors
    ///
    /// Every violation found, in the order the validator met them (never empty).
    fn validate_value(value: &Value) -> Result<(), Vec<ValidationError>>;
}

/// A type generated from one definition of a JSON Schema file, carrying that definition.
///
/// Implemented by generated code for every generated type (never by hand: the impls go
/// through the runtime's hidden `__private` module, so only a generator of the same version
/// can write them). A tool built with [`crate::mcp::ToolDefinition::new`] takes its published
/// `inputSchema`, its description and its validator from its argument type's impl, and its
/// `outputSchema` from its output type's, so the schema and the type cannot drift apart.
pub trait SchemaDefinition: SchemaValidate {
    /// The definition's name in the schema file (its `$defs` key).
    const NAME: &'static str;
    /// The definition's JSON text, as written in the schema file.
    const SCHEMA: &'static str;
    /// The definition's `description`, if it has one.
    const DESCRIPTION: Option<&'static str>;
    /// The definitions of the same file that [`SCHEMA`](Self::SCHEMA) refers to by `$ref`
    /// (`#/$defs/<name>`), each with those it refers to in turn: added to the definition's
    /// `$defs`, they make it a self-contained schema (how a tool publishes its `inputSchema`
    /// and `outputSchema`). Empty when it refers to none, or to something only the file can
    /// resolve (another document, a pointer into a definition): such a definition cannot be
    /// a tool's.
    const REFERENCED: &'static [&'static ReferencedDefinition] = &[];
}

/// A definition that a [`SchemaDefinition`] refers to by `$ref` (written by generated code,
/// once per definition and file, as a `static`).
#[derive(Debug)]
pub struct ReferencedDefinition {
    /// Where the file keeps it: `$defs` (or `definitions`, draft-07's name).
    pub container: &'static str,
    /// Its name there.
    pub name: &'static str,
    /// Its JSON text, as written in the schema file.
    pub schema: &'static str,
    /// The definitions it refers to in turn.
    pub refers_to: &'static [&'static ReferencedDefinition],
}
