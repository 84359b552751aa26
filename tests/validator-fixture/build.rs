//! Generates validators for every schema in `schemas/` (and, when the MCP specification is
//! checked out beside the repository, for the MCP 2026-07-28 schema) into `OUT_DIR`, each
//! with a registry mapping definition names to the generated functions.

#[path = "../reference_data.rs"]
mod reference_data;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn generate(schema: &Path, out_dir: &Path, name: &str) {
    println!("cargo:rerun-if-changed={}", schema.display());
    let code = typed_mcp_codegen::__validators_only(schema, "::typed_mcp")
        .unwrap_or_else(|e| panic!("generating validators: {e}"));
    write(&out_dir.join(format!("{name}.rs")), &code);
    let stems = typed_mcp_codegen::__validator_stems(schema)
        .unwrap_or_else(|e| panic!("listing validators: {e}"));
    let mut registry = String::from(
        "/// (definition name, JSON Pointer, validator) of every definition.\n\
         pub const VALIDATORS: &[(&str, &str, super::Validator)] = &[\n",
    );
    for (def, pointer, stem, _) in &stems {
        writeln!(registry, "    ({def:?}, {pointer:?}, super::{stem}),")
            .expect("writing to a String");
    }
    registry.push_str(
        "];\n/// (definition name, JSON Pointer, selector) of every union definition.\n\
         pub const SELECTORS: &[(&str, &str, super::Selector)] = &[\n",
    );
    for (def, pointer, stem, _) in stems.iter().filter(|(_, _, _, union)| *union) {
        writeln!(
            registry,
            "    ({def:?}, {pointer:?}, super::select_{stem}),"
        )
        .expect("writing to a String");
    }
    registry.push_str("];\n");
    write(&out_dir.join(format!("{name}_registry.rs")), &registry);
}

fn write(path: &Path, content: &str) {
    std::fs::write(path, content).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    println!("cargo:rerun-if-changed=schemas");
    for name in ["keywords", "naming", "patterns"] {
        let schema = manifest.join("schemas").join(format!("{name}.json"));
        generate(&schema, &out_dir, name);
    }

    // The MCP schema is read in place (never copied into the repository).
    println!("cargo:rustc-check-cfg=cfg(mcp_schema)");
    println!(
        "cargo:rerun-if-env-changed={}",
        reference_data::SPEC_DIR_VAR
    );
    println!("cargo:rerun-if-env-changed=CI");
    let spec = reference_data::spec_dir_at(&manifest.join("../..")).join("2026-07-28");
    let schema = spec.join("schema.json");
    assert!(
        schema.is_file() || !reference_data::in_ci(),
        "CI must run the MCP smoke test: {} is missing (set {})",
        schema.display(),
        reference_data::SPEC_DIR_VAR
    );
    if schema.is_file() {
        generate(&schema, &out_dir, "mcp");
        println!("cargo:rustc-cfg=mcp_schema");
        println!("cargo:rustc-env=MCP_SPEC_DIR={}", spec.display());
    }
}
