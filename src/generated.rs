//! Types and validators generated at build time from the JSON Schemas in `schema/`, by
//! `typed-mcp-codegen` (see `build.rs`). Each module holds one schema file's types and a
//! `validate` module with one validator per definition.

/// JSON-RPC 2.0 envelopes (`schema/jsonrpc.json`).
pub mod jsonrpc {
    include!(concat!(env!("OUT_DIR"), "/jsonrpc.rs"));
}

/// Error codes, structured tool errors and validation diagnostics (`schema/errors.json`).
pub mod errors {
    include!(concat!(env!("OUT_DIR"), "/errors.rs"));
}

/// The runtime configuration (`schema/limits.json`).
pub mod limits {
    include!(concat!(env!("OUT_DIR"), "/limits.rs"));
}

/// The Tasks extension's messages (`schema/mcp/tasks.json`).
pub mod tasks {
    include!(concat!(env!("OUT_DIR"), "/mcp/tasks.rs"));
}

/// The MCP Apps extension's `_meta` parts (`schema/mcp/apps.json`).
pub mod apps {
    include!(concat!(env!("OUT_DIR"), "/mcp/apps.rs"));
}

/// The Skills extension's messages (`schema/mcp/skills.json`).
pub mod skills {
    include!(concat!(env!("OUT_DIR"), "/mcp/skills.rs"));
}

/// Legacy (2025) and modern (2026-07-28) MCP messages and their shared pieces
/// (`schema/mcp/protocol.json`).
pub mod protocol {
    include!(concat!(env!("OUT_DIR"), "/mcp/protocol.rs"));
}
