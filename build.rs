//! Generates the runtime's protocol types and validators from `schema/*.json` and
//! `schema/mcp/*.json`.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // A new schema file reruns the build script too.
    println!("cargo:rerun-if-changed=schema");
    let mut schemas: Vec<_> = std::fs::read_dir("schema")
        .expect("the schema/ folder")
        .map(|entry| entry.expect("a schema/ entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    schemas.sort();
    if let Err(error) = typed_mcp_codegen::Config::new()
        .schemas(&schemas)
        .generate()
    {
        panic!("typed-mcp: generating code from schema/: {error}");
    }
    // The MCP message schemas, into their own folder so a stem can never collide.
    println!("cargo:rerun-if-changed=schema/mcp");
    let mut mcp: Vec<_> = std::fs::read_dir("schema/mcp")
        .expect("the schema/mcp/ folder")
        .map(|entry| entry.expect("a schema/mcp/ entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    mcp.sort();
    let out_dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    if let Err(error) = typed_mcp_codegen::Config::new()
        .schemas(&mcp)
        .out_dir(out_dir.join("mcp"))
        .generate()
    {
        panic!("typed-mcp: generating code from schema/mcp/: {error}");
    }
    // The demo server's tool arguments, included by `examples/demo_server.rs` only.
    if let Err(error) = typed_mcp_codegen::Config::new()
        .schema("examples/demo_server/tools.json")
        .out_dir(out_dir.join("demo"))
        .generate()
    {
        panic!("typed-mcp: generating code from examples/demo_server/tools.json: {error}");
    }
}
