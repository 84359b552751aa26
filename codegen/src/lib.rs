//! # typed-mcp-codegen
//!
//! Generates Rust types **and** validators from JSON Schema (draft 2020-12), for use from a
//! `build.rs`, the way `prost-build` is used. Types come from typify after our own
//! normalisation; validators are emitted by this crate and report every violation with its
//! JSON path, the limit and the actual value.

mod doc;
mod error;
mod validators;

pub use error::{Error, Result};
