//! Generates the tool argument types from `schema/tools.json`, naming the runtime `::mcp`
//! (the name this crate's Cargo.toml gives the `typed-mcp` dependency).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    typed_mcp_codegen::Config::new()
        .schema("schema/tools.json")
        .runtime_path("::mcp")
        .generate()
        .unwrap_or_else(|error| panic!("{error}"));
}
