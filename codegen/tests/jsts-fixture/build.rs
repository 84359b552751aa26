//! Feeds every group of the JSON Schema Test Suite (draft 2020-12, required tests) to the
//! generator: each group's schema alone first (accepted or refused, with the reason), then
//! every accepted group together as `$defs` entries of one schema file, generated once into
//! `OUT_DIR/jsts.rs` with a registry of the generated validators and types.
//!
//! The suite is read in place (never copied into the repository) from `TYPED_MCP_JSTS_DIR`,
//! by default `../shared/jsts` beside the repository root. When it is missing the registry is
//! empty and `JSTS_MISSING` tells the test why.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// One group of the suite: its file, its index in the file and its rewritten schema.
struct Group {
    file: String,
    index: usize,
    name: String,
    schema: Value,
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    println!("cargo:rerun-if-env-changed=TYPED_MCP_JSTS_DIR");
    let suite = std::env::var_os("TYPED_MCP_JSTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../../../shared/jsts"));
    let tests = suite.join("tests").join("draft2020-12");
    println!("cargo:rerun-if-changed={}", tests.display());
    println!("cargo:rerun-if-changed={}", suite.join("remotes").display());
    let groups = match read_groups(&tests) {
        Ok(groups) => groups,
        Err(reason) => {
            println!("cargo:rustc-env=JSTS_MISSING={reason}");
            println!("cargo:rustc-env=JSTS_DIR=");
            write(&out_dir.join("jsts.rs"), "");
            write(
                &out_dir.join("registry.rs"),
                "/// Every group of the suite (none: the suite is missing).\n\
                 pub const GROUPS: &[crate::Group] = &[];\n",
            );
            return;
        }
    };
    println!("cargo:rustc-env=JSTS_MISSING=");
    println!("cargo:rustc-env=JSTS_DIR={}", tests.display());

    let alone = out_dir.join("alone");
    std::fs::create_dir_all(&alone).expect("create OUT_DIR/alone");
    let mut refusals = Vec::new();
    let mut accepted = Map::new();
    for group in &groups {
        let path = alone.join(format!("{}.json", group.name));
        write(
            &path,
            &document([(group.name.clone(), group.schema.clone())]).to_string(),
        );
        match config(&suite).generate_string(&path) {
            Ok(_) => {
                accepted.insert(group.name.clone(), group.schema.clone());
                refusals.push(None);
            }
            Err(error) => {
                let message = error.to_string();
                let reason = message
                    .split_once(": ")
                    .map(|(_, r)| r.to_string())
                    .unwrap_or(message);
                refusals.push(Some(reason));
            }
        }
    }

    let combined = out_dir.join("jsts.json");
    write(&combined, &document(accepted).to_string());
    let generated = config(&suite)
        .schema(&combined)
        .out_dir(&out_dir)
        .emit_rerun_if_changed(false)
        .generate()
        .unwrap_or_else(|e| panic!("generating every accepted group at once: {e}"));
    let definitions = &generated[0].definitions;
    let code = std::fs::read_to_string(&generated[0].path).expect("read the generated file");

    let mut registry = String::from(
        "/// Every group of the suite, in file order.\npub const GROUPS: &[crate::Group] = &[\n",
    );
    for (group, refusal) in groups.iter().zip(&refusals) {
        let (file, index) = (&group.file, group.index);
        let generated = match refusal {
            Some(_) => "None".to_string(),
            None => {
                let def = definitions
                    .iter()
                    .find(|d| d.name == group.name)
                    .unwrap_or_else(|| panic!("no definition generated for {}", group.name));
                format!(
                    "Some(crate::Generated {{ validate: |v| validate::{}(v).is_ok(), \
                     errors: |v| validate::{}(v).err().unwrap_or_default(), \
                     round_trip: crate::round_trip::<{}>, typed: {}, run_time: {:?} }})",
                    def.validator,
                    def.validator,
                    def.rust_type,
                    !is_json_value(&code, &def.rust_type),
                    def.run_time
                )
            }
        };
        let refusal = refusal.clone().unwrap_or_default();
        writeln!(
            registry,
            "    crate::Group {{ file: {file:?}, index: {index}, refusal: {refusal:?}, generated: {generated} }},"
        )
        .expect("writing to a String");
    }
    registry.push_str("];\n");
    write(&out_dir.join("registry.rs"), &registry);
}

/// Whether the generated type `name` is a newtype around a bare `serde_json::Value` (not a
/// struct, tuple, enum or scalar of its own).
fn is_json_value(code: &str, name: &str) -> bool {
    let start = format!("pub struct {name}(");
    code.find(&start).is_some_and(|at| {
        let rest = &code[at + start.len()..];
        let body = &rest[..rest.find(");").unwrap_or(rest.len())];
        body.trim_end()
            .trim_end_matches(',')
            .ends_with("serde_json::Value")
    })
}

/// The generator's configuration for the suite: `format` an annotation, and every file of its `remotes/` listed as the
/// remote document `http://localhost:1234/<path>`, as the suite's README asks.
fn config(suite: &Path) -> typed_mcp_codegen::Config {
    let mut config = typed_mcp_codegen::Config::new();
    // `format` as the annotation 2020-12 makes it by default (the suite's required tests
    // expect that; it is also the generator's default, said here so the suite never
    // depends on it).
    config.emit_rerun_if_changed(false).format_assertion(false);
    let remotes = suite.join("remotes");
    let mut stack = vec![remotes.clone()];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    for path in files {
        let relative = path.strip_prefix(&remotes).expect("below remotes/");
        let relative = relative.to_string_lossy().replace('\\', "/");
        config.remote(format!("http://localhost:1234/{relative}"), &path);
    }
    config
}

/// A schema file holding `defs` as its `$defs`.
fn document(defs: impl IntoIterator<Item = (String, Value)>) -> Value {
    let defs: Map<String, Value> = defs.into_iter().collect();
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs})
}

/// Every group of every `*.json` file directly in `dir` (the required tests), in file order,
/// each schema's local references rewritten to its place under `$defs`.
fn read_groups(dir: &Path) -> Result<Vec<Group>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{}: no *.json test file", dir.display()));
    }
    let mut groups = Vec::new();
    for path in files {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let parsed: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = file.trim_end_matches(".json").replace('-', "_");
        for (index, group) in parsed.as_array().into_iter().flatten().enumerate() {
            let name = format!("{stem}_{index}");
            let mut schema = group.get("schema").cloned().unwrap_or(Value::Bool(true));
            rebase_refs(&mut schema, &name);
            groups.push(Group {
                file: file.clone(),
                index,
                name,
                schema,
            });
        }
    }
    Ok(groups)
}

/// Rewrites every local JSON Pointer reference (`#`, `#/...`) in `schema` to point into
/// `#/$defs/<name>`, where the schema now lives. Instance data (`const`, `enum`, `default`,
/// `examples`) is left alone, and so is every schema resource with an `$id` of its own (its
/// `#` references name it, wherever it lives).
fn rebase_refs(schema: &mut Value, name: &str) {
    match schema {
        Value::Object(map) if map.get("$id").is_some_and(Value::is_string) => {}
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match key.as_str() {
                    "const" | "enum" | "default" | "examples" => {}
                    "$ref" | "$dynamicRef" => {
                        if let Value::String(target) = value {
                            if target == "#" || target.starts_with("#/") {
                                *target = format!("#/$defs/{name}{}", &target[1..]);
                            }
                        }
                    }
                    _ => rebase_refs(value, name),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rebase_refs(item, name)),
        _ => {}
    }
}

fn write(path: &Path, content: &str) {
    std::fs::write(path, content).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}
