//! Generates types and validators for the official MCP schemas, when they are present in the
//! folder `TYPED_MCP_SPEC_DIR` names (default `../shared/spec/mcp` next to the repository; see
//! `tests/reference_data.rs`). Without them the oracle tests are skipped (they print why) on a
//! user's machine, and the build fails when `CI` is set.

#[path = "../reference_data.rs"]
mod reference_data;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The schema versions the oracle covers.
const VERSIONS: &[&str] = &["2025-11-25", "2026-07-28"];

fn main() {
    println!("cargo:rustc-check-cfg=cfg(oracle_schemas)");
    println!("cargo:rerun-if-changed=build.rs");
    println!(
        "cargo:rerun-if-env-changed={}",
        reference_data::SPEC_DIR_VAR
    );
    println!("cargo:rerun-if-env-changed=CI");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let spec = reference_data::spec_dir_at(&manifest.join("../.."));
    println!(
        "cargo:rustc-env=TYPED_MCP_ORACLE_SPEC_DIR={}",
        spec.display()
    );
    let schemas: Vec<PathBuf> = VERSIONS
        .iter()
        .map(|v| spec.join(v).join("schema.json"))
        .collect();
    for schema in &schemas {
        println!("cargo:rerun-if-changed={}", schema.display());
    }
    if !schemas.iter().all(|s| s.is_file()) {
        assert!(
            !reference_data::in_ci(),
            "CI must run the oracle: official MCP schemas not found under {} (set {})",
            spec.display(),
            reference_data::SPEC_DIR_VAR
        );
        println!(
            "cargo:warning=official MCP schemas not found under {}: oracle tests will be skipped",
            spec.display()
        );
        return;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    for (version, schema) in VERSIONS.iter().zip(&schemas) {
        generate(version, schema, &out);
    }
    println!("cargo:rustc-cfg=oracle_schemas");
}

fn generate(version: &str, schema: &Path, out: &Path) {
    let module = format!("v{}", version.replace('-', "_"));
    let dir = out.join(&module);
    // The reference validator asserts formats too (tests/common/mod.rs).
    let files = typed_mcp_codegen::Config::new()
        .format_assertion(true)
        .schema(schema)
        .out_dir(&dir)
        .generate()
        .unwrap_or_else(|e| panic!("generating {version}: {e}"));
    let mut table = String::from(
        "/// Every definition of the schema, with its round-trip and validator functions.\n\
         pub const DEFINITIONS: &[crate::Definition] = &[\n",
    );
    for def in &files[0].definitions {
        writeln!(
            table,
            "    crate::Definition {{ name: {:?}, pointer: {:?}, roundtrip: crate::roundtrip::<{}>, validate: validate::{} }},",
            def.name, def.pointer, def.rust_type, def.validator
        )
        .expect("writing to a String");
    }
    table.push_str("];\n");
    std::fs::write(dir.join("table.rs"), table).expect("writing the definition table");
}
