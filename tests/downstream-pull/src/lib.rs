//! The typed clients generated from `mcp/*.json`.

/// The typed-mcp demo server (`examples/demo_server.rs`).
pub mod demo {
    include!(concat!(env!("OUT_DIR"), "/demo.rs"));
}

/// `@modelcontextprotocol/server-everything`, the TypeScript SDK's test server.
pub mod everything {
    include!(concat!(env!("OUT_DIR"), "/everything.rs"));
}

/// A server on the Python SDK's `MCPServer` (`tests/interop/mcpserver_server.py`).
pub mod python {
    include!(concat!(env!("OUT_DIR"), "/python.rs"));
}
