//! Generates, with typed-mcp-codegen (the few lines a user's build.rs holds), the types and
//! validators of the bench's realistic tool input schema (`schema/search_arguments.json`),
//! and of the same schema without its one `pattern` (written to `OUT_DIR`), which tells how
//! much of a validation the regular expression costs. Also the echo tool's argument type of
//! the HTTP bench server `examples/typed_http_echo.rs` (`schema/echo_arguments.json`).

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    println!("cargo:rerun-if-changed=build.rs");
    let schema = manifest.join("schema/search_arguments.json");
    let text = std::fs::read_to_string(&schema).expect("schema/search_arguments.json");
    let pattern = r#", "pattern": "^[a-z][a-z0-9-]*$""#;
    assert!(
        text.contains(pattern),
        "the tags pattern moved: update build.rs"
    );
    let plain = out_dir.join("search_arguments_no_pattern.json");
    std::fs::write(&plain, text.replace(pattern, "")).expect("writing to OUT_DIR");
    let echo = manifest.join("schema/echo_arguments.json");
    println!("cargo:rerun-if-changed={}", echo.display());
    for (schema, folder) in [(schema, "tool"), (plain, "tool_plain"), (echo, "echo")] {
        if let Err(error) = typed_mcp_codegen::Config::new()
            .schema(&schema)
            .out_dir(out_dir.join(folder))
            .generate()
        {
            panic!(
                "typed-mcp-bench: generating code from {}: {error}",
                schema.display()
            );
        }
    }
}
