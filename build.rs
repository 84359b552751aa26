//! Generates the runtime's protocol types and validators from `schema/*.json` and
//! `schema/mcp/*.json`, and, for the tests that run the example servers' tools in process,
//! those servers' tool schemas.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    generate(&json_files("schema"), &out_dir, "schema/");
    // The MCP message schemas, into their own folder so a stem can never collide.
    generate(
        &json_files("schema/mcp"),
        &out_dir.join("mcp"),
        "schema/mcp/",
    );
    // The demo server's tool arguments (`examples/demo_server/demo.rs`, which tests include).
    let demo = [PathBuf::from("examples/demo_server/tools.json")];
    generate(
        &demo,
        &out_dir.join("demo"),
        "examples/demo_server/tools.json",
    );
    // The notes server's tool arguments and outputs (`tests/mcp_server_typed_tools.rs`).
    let notes = [PathBuf::from("examples/notes_server/notes.json")];
    generate(
        &notes,
        &out_dir.join("notes"),
        "examples/notes_server/notes.json",
    );
    // The shipping server's tools, whose arguments and output `$ref` a shared `Address`
    // (`tests/shipping_server.rs`).
    let shipping = [PathBuf::from("examples/shipping_server/shipping.json")];
    generate(
        &shipping,
        &out_dir.join("shipping"),
        "examples/shipping_server/shipping.json",
    );
    // The conformance fixture server's tool arguments (`tests/http_typed_schemas.rs`,
    // `tests/mcp_server_typed_output.rs`).
    let fixture = [PathBuf::from("examples/conformance_server/tools.json")];
    generate(
        &fixture,
        &out_dir.join("conformance"),
        "examples/conformance_server/tools.json",
    );
}

/// The `*.json` files directly in `dir`, sorted; a new file there reruns the build script.
fn json_files(dir: &str) -> Vec<PathBuf> {
    println!("cargo:rerun-if-changed={dir}");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("typed-mcp: reading {dir}/: {e}"))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn generate(schemas: &[PathBuf], out_dir: &Path, what: &str) {
    // Formats are asserted on the protocol's own messages: strict on the wire.
    if let Err(error) = typed_mcp_codegen::Config::new()
        .format_assertion(true)
        .schemas(schemas)
        .out_dir(out_dir)
        .generate()
    {
        panic!("typed-mcp: generating code from {what}: {error}");
    }
}
