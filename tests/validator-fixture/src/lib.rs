//! Validators generated from the fixture schemas, compiled with every warning denied so the
//! emitter's output is proven warning-free (rustc and clippy), plus a registry per schema
//! that maps definition names to the generated functions (for table-driven tests).

#![deny(warnings)]

/// A generated public validator.
pub type Validator =
    fn(&serde_json::Value) -> Result<(), Vec<typed_mcp::validation::ValidationError>>;
/// A generated union selector.
pub type Selector = fn(&serde_json::Value) -> Option<usize>;

macro_rules! generated {
    ($(#[$doc:meta])* $name:ident, $code:literal, $registry:literal $(, $cfg:meta)?) => {
        $(#[$doc])*
        $(#[cfg($cfg)])?
        pub mod $name {
            pub use super::{Selector, Validator};
            include!(concat!(env!("OUT_DIR"), "/", $code));
            /// Definition name → generated function.
            pub mod registry {
                include!(concat!(env!("OUT_DIR"), "/", $registry));
            }
        }
    };
}

generated!(
    /// Validators for `schemas/keywords.json` (every supported keyword).
    keywords, "keywords.rs", "keywords_registry.rs"
);
generated!(
    /// Validators for `schemas/naming.json` (definition names that collide once snake-cased).
    naming, "naming.rs", "naming_registry.rs"
);
generated!(
    /// Validators for `schemas/patterns.json` (`pattern`s, matched by generated code or the
    /// regex engine).
    patterns, "patterns.rs", "patterns_registry.rs"
);
generated!(
    /// Validators for the official MCP 2026-07-28 schema (only when it is checked out beside
    /// the repository).
    mcp, "mcp.rs", "mcp_registry.rs", mcp_schema
);

/// Looks up a generated function by definition name in a registry of
/// `(definition name, pointer, function)`.
pub fn lookup<F: Copy>(registry: &[(&str, &str, F)], def: &str) -> Option<F> {
    registry
        .iter()
        .find(|(name, _, _)| *name == def)
        .map(|(_, _, f)| *f)
}
