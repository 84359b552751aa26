//! Generates the runtime's protocol types and validators from `schema/*.json`.

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
}
