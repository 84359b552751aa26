//! Support for generated code. Not public API: generated code reaches the runtime only
//! through this module. Every generated file names [`v1::CONTRACT`] and implements
//! [`v1::SchemaDefinition`] through `v1`, the version of the contract between the generator
//! and this module: a runtime implementing another version has no `v1`, so a
//! generator/runtime version mismatch fails to compile (tested by
//! `codegen/tests/downstream.rs`).

/// Version 1 of the contract between generated code and the runtime.
pub mod v1 {
    /// Named by every generated file: it exists only in a runtime speaking this version.
    pub const CONTRACT: () = ();

    pub use crate::validation::{ReferencedDefinition, SchemaDefinition};

    /// The calls of clients generated from a server snapshot.
    pub use crate::client::generated_calls::{
        accept_any, call_tool_content, call_tool_output, Check,
    };
}

/// The markers telling [`ToolFn`](crate::mcp::ToolFn)'s handler shapes apart.
pub use crate::mcp::typed_tool::{AsyncFn, BlockingFn, WithState};

// ---------------------------------------------------------------------------------------
// Validator support (used by the code `typed-mcp-codegen`'s validator emitter writes).
// ---------------------------------------------------------------------------------------

pub use serde_json;
pub use serde_json::{Map, Number, Value};

pub use crate::validation::collector::{accepts, validate_with, Collector, Detail, Walker};
pub use crate::validation::error::{Message, Part};
pub use crate::validation::evaluated::Evaluated;
/// A definition validated at run time (see the module `validation::evaluator`).
pub use crate::validation::evaluator::Evaluator;
pub use crate::validation::formats::{
    is_byte, is_date, is_date_time, is_duration, is_email, is_hostname, is_idn_email,
    is_idn_hostname, is_ipv4, is_ipv6, is_iri, is_iri_reference, is_json_pointer, is_regex,
    is_relative_json_pointer, is_time, is_uri, is_uri_reference, is_uri_template, is_uuid,
};
pub use crate::validation::lazy::{LazyJson, LazyRegex};
pub use crate::validation::location::Location;
pub use crate::validation::numbers::{
    bound_of, cmp_bounds, cmp_number, is_integer, is_multiple_of, number_eq, number_ge, number_gt,
    number_in, number_le, number_lt, Bound,
};
pub use crate::validation::text::ShortText;
pub use crate::validation::values::{
    char_count, first_duplicate, json_equal, json_literal, number_value, summary, summary_str,
    type_name, MAX_ECHO_BYTES,
};
pub use crate::validation::ValidationError;

// ---------------------------------------------------------------------------------------
// End of validator support.
// ---------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------
// Type support (used by the union enums and member readers `typed-mcp-codegen`'s type
// emitter writes).
// ---------------------------------------------------------------------------------------

pub use serde;

pub use crate::validation::reads::{integral, present};
