//! Generates the runtime's protocol types and validators from `schema/*.json` and
//! `schema/mcp/*.json`, and, in the repository, the example servers' tool types for the tests.

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
    // The example servers' tools, for the tests that run them in process
    // (`examples/demo_server/demo.rs`, which tests include; `tests/mcp_server_typed_tools.rs`,
    // `tests/shipping_server.rs`, `tests/http_typed_schemas.rs`,
    // `tests/mcp_server_typed_output.rs`). `examples/` is a package of its own, which the
    // published crate leaves out: there, nothing of it is generated.
    if !Path::new("examples/Cargo.toml").exists() {
        return;
    }
    for (schema, folder) in example_schemas("examples/tool_schemas.txt") {
        let schema = Path::new("examples").join(schema);
        generate(
            std::slice::from_ref(&schema),
            &out_dir.join(folder),
            &schema.display().to_string(),
        );
    }
}

/// The `(schema, folder)` pairs listed in `list` (one pair a line, `#` starts a comment).
fn example_schemas(list: &str) -> Vec<(String, String)> {
    println!("cargo:rerun-if-changed={list}");
    let text =
        std::fs::read_to_string(list).unwrap_or_else(|e| panic!("typed-mcp: reading {list}: {e}"));
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| match line.split_once(' ') {
            Some((schema, folder)) => (schema.to_owned(), folder.trim().to_owned()),
            None => panic!("typed-mcp: {list}: expected `SCHEMA FOLDER`, found `{line}`"),
        })
        .collect()
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
