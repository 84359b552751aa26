//! Generates the tool argument types and validators from `schema/*.json` into `$OUT_DIR`.

fn main() {
    // The generator prints `cargo:rerun-if-changed` for each schema it reads; once a build
    // script prints one, cargo reruns it only for the files listed, so list this file too.
    println!("cargo:rerun-if-changed=build.rs");
    typed_mcp_codegen::Config::new()
        .schemas(["schema/text_tools.json", "schema/math_tools.json"])
        .generate()
        .unwrap_or_else(|error| panic!("{error}"));
}
