//! Every group of the JSON Schema Test Suite (draft 2020-12) that the generator accepts,
//! generated into one module and built once, with a registry of what was generated for each
//! group (see `build.rs`; the measuring test is `tests/suite.rs`).

// The suite names enum values in Greek (`Μ`): identifiers the generator derives from them.
#![allow(mixed_script_confusables)]

use typed_mcp::__private::serde::{de::DeserializeOwned, Serialize};
use typed_mcp::__private::Value;

/// One group of the suite and what the generator made of it.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    /// The suite file the group comes from (`type.json`).
    pub file: &'static str,
    /// The group's index in that file.
    pub index: usize,
    /// Why the generator refused the group's schema (empty when accepted).
    pub refusal: &'static str,
    /// The generated validator and type, when accepted.
    pub generated: Option<Generated>,
}

/// What was generated for an accepted group.
#[derive(Debug, Clone, Copy)]
pub struct Generated {
    /// The generated validator's verdict on a value.
    pub validate: fn(&Value) -> bool,
    /// Every violation the generated validator reports for a value (empty when valid).
    pub errors: fn(&Value) -> Vec<typed_mcp::validation::ValidationError>,
    /// The value deserialized into the generated type and serialized back.
    pub round_trip: fn(&Value) -> Result<Value, String>,
    /// Whether the generated type is a Rust type of its own (a struct, tuple, enum or
    /// scalar), not a newtype around a bare JSON value.
    pub typed: bool,
    /// `Some(keyword)` when the group's validator evaluates the schema at run time (the
    /// keyword that needed it), `None` when it is generated code.
    pub run_time: Option<&'static str>,
}

/// `value` through `T` and back to JSON.
///
/// # Errors
///
/// The message of serde's error when `T` refuses the value (or cannot serialize itself).
pub fn round_trip<T: Serialize + DeserializeOwned>(value: &Value) -> Result<Value, String> {
    let typed: T = typed_mcp::__private::serde_json::from_value(value.clone())
        .map_err(|e| format!("deserialize: {e}"))?;
    typed_mcp::__private::serde_json::to_value(&typed).map_err(|e| format!("serialize: {e}"))
}

/// The generated code of every accepted group, and the registry.
#[allow(warnings, clippy::all, clippy::pedantic, missing_docs)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/jsts.rs"));
    include!(concat!(env!("OUT_DIR"), "/registry.rs"));
}
