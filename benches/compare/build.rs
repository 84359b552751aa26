//! Generates, with typed-mcp-codegen (the few lines a user's build.rs holds), the types and
//! validators of the bench's realistic tool input schema (`schema/search_arguments.json`).

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    println!("cargo:rerun-if-changed=build.rs");
    if let Err(error) = typed_mcp_codegen::Config::new()
        .schema(manifest.join("schema/search_arguments.json"))
        .out_dir(out_dir.join("tool"))
        .generate()
    {
        panic!("typed-mcp-bench: generating code from schema/search_arguments.json: {error}");
    }
}
