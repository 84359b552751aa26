//! # typed-mcp
//!
//! A Model Context Protocol SDK whose protocol types and validators are generated from
//! JSON Schema at build time (see the `typed-mcp-codegen` crate), wrapped in a thin
//! hand-written runtime: newline-delimited framing, JSON-RPC 2.0 parsing with precise
//! diagnostics, dispatch, limits, the result cache, the MCP server (stdio and, with the `http`
//! feature, Streamable HTTP) and a typed client.
//!
//! # A server with a tool
//!
//! A tool is a name and a handler ([`mcp::ToolDefinition::new`]); a server is built once
//! ([`mcp::McpServer::builder`]) and serves stdio ([`mcp::McpServer::serve_stdio`]), any byte
//! stream ([`mcp::McpServer::serve`], here an in-memory pipe) or Streamable HTTP
//! (`serve_http`, feature `http`). The handler's argument type is normally generated from a
//! `$defs` entry of your schema file by `typed-mcp-codegen` in `build.rs`, and published as
//! the tool's `inputSchema`; this example takes the arguments as JSON instead.
//!
//! ```
//! # tokio_test::block_on(async {
//! use serde_json::{json, Value};
//! use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//! use typed_mcp::mcp::{McpServer, ToolDefinition};
//! use typed_mcp::tools::ToolContext;
//!
//! let shout = ToolDefinition::new("shout", |_ctx: ToolContext, args: Value| async move {
//!     let text = args["text"].as_str().unwrap_or_default();
//!     Ok(Value::from(text.to_uppercase()))
//! })?
//! .description("Shouts the text back.");
//! let server = McpServer::builder("example", "1.0.0").tool(shout).build()?;
//!
//! // A client on the other end of a pipe (a real one would use `typed_mcp::client::Client`).
//! let (client, server_io) = tokio::io::duplex(64 * 1024);
//! let (input, output) = tokio::io::split(server_io);
//! let serving = tokio::spawn(async move { server.serve(input, output).await });
//! let (reader, mut writer) = tokio::io::split(client);
//! let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
//!     "name": "shout", "arguments": {"text": "hi"},
//!     "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
//!               "io.modelcontextprotocol/clientCapabilities": {}}}});
//! writer.write_all(format!("{call}\n").as_bytes()).await?;
//! let mut line = String::new();
//! BufReader::new(reader).read_line(&mut line).await?;
//! let answer: Value = serde_json::from_str(&line)?;
//! assert_eq!(answer["result"]["structuredContent"]["data"], "HI");
//! drop(writer);
//! serving.await??;
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! # }).unwrap();
//! ```
//!
//! # Where to go next
//!
//! - [`mcp`]: the server, tools, resources, prompts; [`http`] (feature `http`): the same
//!   server over Streamable HTTP, standalone or mounted in an axum `Router`.
//! - [`client`]: a typed client of any MCP server, over stdio, a byte stream or HTTP.
//! - [`tools`]: what a tool's handler gets ([`tools::ToolContext`]: cancellation, progress,
//!   logs, questions to the client) and returns ([`tools::ToolCallError`]).
//! - [`config`] and [`Limits`]: every bound the runtime enforces, from `schema/limits.json`.
//!
//! # Features
//!
//! `http` (on by default: hyper, axum, tower) and `stderr-logging` (on by default:
//! `logging::init_stderr` with `tracing-subscriber`); `tls` (HTTPS and HTTP/2 on
//! `serve_http`, rustls); `runtime-schema` (verbatim tool
//! schemas checked by the `jsonschema` crate, `mcp::VerbatimSchema`), `output-schema` (the
//! client checks results against the published `outputSchema`) and `redis` (the Redis result
//! cache store) are opt-in, so a crate that does not use them does not build them.

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
