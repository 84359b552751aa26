//! Generates validators for every schema in `schemas/` (and, when the MCP specification is
//! checked out beside the repository, for the MCP 2026-07-28 schema) into `OUT_DIR`.

use std::path::{Path, PathBuf};

fn generate(schema: &Path, out: &Path) {
    println!("cargo:rerun-if-changed={}", schema.display());
    let code = typed_mcp_codegen::__validators_only(schema, "::typed_mcp")
        .unwrap_or_else(|e| panic!("generating validators: {e}"));
    std::fs::write(out, code).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    println!("cargo:rerun-if-changed=schemas");
    for name in ["keywords"] {
        let schema = manifest.join("schemas").join(format!("{name}.json"));
        generate(&schema, &out_dir.join(format!("{name}.rs")));
    }

    // The MCP schema is read in place (never copied into the repository).
    println!("cargo:rustc-check-cfg=cfg(mcp_schema)");
    println!("cargo:rerun-if-env-changed=TYPED_MCP_SPEC_DIR");
    let spec = std::env::var_os("TYPED_MCP_SPEC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../../shared/spec/mcp/2026-07-28"));
    let schema = spec.join("schema.json");
    if schema.is_file() {
        generate(&schema, &out_dir.join("mcp.rs"));
        println!("cargo:rustc-cfg=mcp_schema");
        println!("cargo:rustc-env=MCP_SPEC_DIR={}", spec.display());
    }
}
