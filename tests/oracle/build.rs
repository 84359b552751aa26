//! Generates types and validators for the official MCP schemas, when they are present in
//! `../shared/spec/mcp` next to the repository. Without them the oracle tests are skipped
//! (they print why).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The schema versions the oracle covers.
const VERSIONS: &[&str] = &["2025-11-25", "2026-07-28"];

fn main() {
    println!("cargo:rustc-check-cfg=cfg(oracle_schemas)");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let spec = manifest.join("../../../shared/spec/mcp");
    let schemas: Vec<PathBuf> = VERSIONS
        .iter()
        .map(|v| spec.join(v).join("schema.json"))
        .collect();
    for schema in &schemas {
        println!("cargo:rerun-if-changed={}", schema.display());
    }
    if !schemas.iter().all(|s| s.is_file()) {
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
    let files = typed_mcp_codegen::Config::new()
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
