//! # typed-mcp-codegen
//!
//! Generates Rust types **and** validators from JSON Schema (draft 2020-12), for use from a
//! `build.rs`, the way `prost-build` is used:
//!
//! ```no_run
//! // build.rs
//! typed_mcp_codegen::compile(&["schema/tools.json"]).unwrap();
//! ```
//!
//! Types come from typify after our own normalisation (`const` enforced, unions
//! deserialized by their discriminator, optional empty objects keep presence, exact
//! numbers); validators are emitted by this crate and report every violation with its JSON
//! path, the limit and the actual value. The generator knows nothing of the runtime beyond
//! the path it names in generated code (`::typed_mcp` by default, see
//! [`Config::runtime_path`]).

mod config;
mod crate_paths;
mod doc;
mod error;
mod naming;
mod output;
mod types;
mod validators;

pub use config::{compile, Config, GeneratedDefinition, GeneratedFile};
pub use error::{Error, Result};
#[doc(hidden)]
pub use validators::{__emit_validators_for_tests, __validator_stems, __validators_only};
