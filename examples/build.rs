//! Generates the example servers' tool types and validators from their schemas (listed in
//! `tool_schemas.txt`) into `$OUT_DIR`, as a user's crate does (`typed_mcp_codegen::Config`);
//! the examples `include!` them.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=tool_schemas.txt");
    let list = std::fs::read_to_string("tool_schemas.txt")
        .unwrap_or_else(|error| panic!("typed-mcp-examples: reading tool_schemas.txt: {error}"));
    let out_dir = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    for line in list.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((schema, folder)) = line.split_once(' ') else {
            panic!(
                "typed-mcp-examples: tool_schemas.txt: expected `SCHEMA FOLDER`, found `{line}`"
            );
        };
        // Formats asserted, as on the protocol's own messages: strict on the wire.
        typed_mcp_codegen::Config::new()
            .format_assertion(true)
            .schemas([schema])
            .out_dir(out_dir.join(folder.trim()))
            .generate()
            .unwrap_or_else(|error| {
                panic!("typed-mcp-examples: generating from {schema}: {error}")
            });
    }
}
