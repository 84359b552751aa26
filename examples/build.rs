//! Generates the example servers' tool types and validators from their schemas into
//! `$OUT_DIR`, as a user's crate does (`typed_mcp_codegen::Config`); the examples `include!`
//! them.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for (schema, folder) in [
        ("demo_server/tools.json", "demo"),
        ("notes_server/notes.json", "notes"),
        ("notes_board/board.json", "board"),
        ("shipping_server/shipping.json", "shipping"),
        ("conformance_server/tools.json", "conformance"),
    ] {
        let out_dir =
            std::path::Path::new(&std::env::var_os("OUT_DIR").expect("set by cargo")).join(folder);
        // Formats asserted, as on the protocol's own messages: strict on the wire.
        typed_mcp_codegen::Config::new()
            .format_assertion(true)
            .schemas([schema])
            .out_dir(out_dir)
            .generate()
            .unwrap_or_else(|error| {
                panic!("typed-mcp-examples: generating from {schema}: {error}")
            });
    }
}
