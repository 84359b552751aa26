//! # typed-mcp
//!
//! A Model Context Protocol SDK whose protocol types and validators are generated from
//! JSON Schema at build time (see the `typed-mcp-codegen` crate), wrapped in a thin
//! hand-written runtime: newline-delimited framing, JSON-RPC 2.0 parsing with precise
//! diagnostics, dispatch, limits, the result cache, the MCP server (stdio and, with the `http`
//! feature, Streamable HTTP) and a typed client.

// Lets generated code name this crate as `::typed_mcp` even from inside it.
extern crate self as typed_mcp;

pub mod cache;
pub mod client;
pub mod config;
mod fast_map;
pub mod framing;
pub mod generated;
#[cfg(feature = "http")]
pub mod http;
pub mod jsonrpc;
pub mod logging;
mod long_strings;
pub mod mcp;
pub mod secrets;
pub mod server;
#[cfg(feature = "tls")]
mod tls_client;
pub mod tools;
pub mod validation;

#[doc(hidden)]
pub mod __private;

/// Every bound the runtime enforces, generated from `schema/limits.json` (load one with
/// [`config::load_limits`]; `Limits::default()` holds the defaults).
pub use generated::limits::Limits;

/// A type generated from a JSON Schema definition (see [`validation::SchemaDefinition`]).
pub use validation::SchemaDefinition;
