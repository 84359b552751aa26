//! Validators generated from the fixture schemas, compiled with every warning denied so the
//! emitter's output is proven warning-free (rustc and clippy).

#![deny(warnings)]

/// Validators for `schemas/keywords.json` (one fixture per keyword).
pub mod keywords {
    include!(concat!(env!("OUT_DIR"), "/keywords.rs"));
}

/// Validators for the official MCP 2026-07-28 schema (only when it is checked out beside the
/// repository).
#[cfg(mcp_schema)]
pub mod mcp {
    include!(concat!(env!("OUT_DIR"), "/mcp.rs"));
}
