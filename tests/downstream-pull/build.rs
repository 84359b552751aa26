//! One typed client per server snapshot under `mcp/` (written by `typed-mcp-pull`).

fn main() {
    // The generator prints `cargo:rerun-if-changed` for each snapshot it reads; once a build
    // script prints one, cargo reruns it only for the files listed, so list this file too.
    println!("cargo:rerun-if-changed=build.rs");
    typed_mcp_codegen::Config::new()
        .server_snapshot("mcp/demo.json")
        .server_snapshot("mcp/everything.json")
        .server_snapshot("mcp/python.json")
        .generate()
        .unwrap_or_else(|error| panic!("{error}"));
}
