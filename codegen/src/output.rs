//! Putting the pieces of one generated file together, formatting and writing it.

use std::path::Path;

use quote::quote;
use serde_json::Value;

use crate::config::GeneratedDefinition;
use crate::doc::SchemaDoc;
use crate::error::{Error, Result};

/// Generates the formatted Rust source for the schema at `schema`.
///
/// Never panics: the typify calls are guarded where they happen (so the error names the
/// definition), and the whole pipeline once more here (formatting included), so any panic
/// left becomes an [`Error::TypeGeneration`] naming the file.
pub(crate) fn render(
    schema: &Path,
    runtime: &syn::Path,
    remotes: &Value,
    assert_formats: bool,
) -> Result<(String, Vec<GeneratedDefinition>)> {
    guarded(schema, || {
        let root = SchemaDoc::read(schema)?;
        let (file, definitions) =
            render_evaluating(schema, root, runtime, remotes, assert_formats)?;
        Ok((format_file(schema, runtime, &file), definitions))
    })
}

/// The items generated for the schema document `root` (`schema` only names it in errors),
/// unformatted: what [`render`] formats into a file, for callers that place the items in a
/// module of their own (a server snapshot's tools). Never panics, as [`render`].
pub(crate) fn render_items(
    schema: &Path,
    root: Value,
    runtime: &syn::Path,
    assert_formats: bool,
) -> Result<(syn::File, Vec<GeneratedDefinition>)> {
    guarded(schema, || {
        let remotes = Value::Object(serde_json::Map::new());
        render_evaluating(schema, root, runtime, &remotes, assert_formats)
    })
}

/// Runs `work`, turning a panic into an [`Error::TypeGeneration`] naming `schema`.
fn guarded<T>(schema: &Path, work: impl FnOnce() -> Result<T>) -> Result<T> {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    outcome.unwrap_or_else(|panic| {
        let text = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(Error::TypeGeneration {
            file: schema.to_path_buf(),
            pointer: String::new(),
            message: format!("the generator panicked: {text}"),
        })
    })
}

/// Generates the code, leaving to the runtime's evaluator (see [`crate::interp`]) each
/// definition the emitters fail on when the evaluator accepts it; a definition both refuse is
/// reported with the emitters' error.
fn render_evaluating(
    schema: &Path,
    root: Value,
    runtime: &syn::Path,
    remotes: &Value,
    assert_formats: bool,
) -> Result<(syn::File, Vec<GeneratedDefinition>)> {
    let mut evaluate: Vec<(String, String)> = Vec::new();
    let mut first_errors: Vec<(String, Error)> = Vec::new();
    loop {
        let attempt = SchemaDoc::from_value_evaluating(schema, root.clone(), &evaluate, remotes)
            .and_then(|mut doc| {
                doc.remotes = remotes.clone();
                doc.assert_formats = assert_formats;
                for name in doc.evaluated.clone() {
                    crate::interp::check(&doc, &name)?;
                }
                render_unguarded(doc, runtime)
            });
        let error = match attempt {
            Ok(done) => return Ok(done),
            Err(error) => error,
        };
        let Some(name) = culprit(&root, &error) else {
            return Err(error);
        };
        if evaluate.iter().any(|(n, _)| *n == name) {
            let first = first_errors.into_iter().find(|(n, _)| *n == name);
            return Err(first.map_or(error, |(_, e)| e));
        }
        let why = match &error {
            Error::Unsupported { keyword, .. } => keyword.clone(),
            _ => "its type (the type generator failed on it)".to_string(),
        };
        evaluate.push((name.clone(), why));
        first_errors.push((name, error));
    }
}

/// The top-level definition (of the file's `root`) an unsupported keyword or a type
/// generation failure points into, if any (a malformed schema is refused, never evaluated).
fn culprit(root: &Value, error: &Error) -> Option<String> {
    let pointer = match error {
        Error::Unsupported { pointer, .. } | Error::TypeGeneration { pointer, .. } => pointer,
        _ => return None,
    };
    let mut tokens = pointer.strip_prefix('/')?.split('/');
    let container = tokens.next()?;
    if container != "$defs" && container != "definitions" {
        return None;
    }
    let name = tokens.next()?.replace("~1", "/").replace("~0", "~");
    root.get(container)?.get(&name)?;
    Some(name)
}

fn render_unguarded(
    doc: SchemaDoc,
    runtime: &syn::Path,
) -> Result<(syn::File, Vec<GeneratedDefinition>)> {
    let types = crate::types::emit_types(&doc, runtime)?;
    let validators = crate::validators::emit_validators(&doc, runtime)?;
    let impls = crate::types::validate_impls(&doc, &types.names, runtime);
    let stems = crate::validators::naming::stems(&doc);
    let definitions = doc
        .defs
        .iter()
        .map(|def| GeneratedDefinition {
            name: def.name.clone(),
            pointer: def.pointer.clone(),
            rust_type: types.names.get(&def.name).cloned().unwrap_or_default(),
            validator: stems[&def.name].clone(),
            run_time: doc
                .evaluated
                .iter()
                .position(|n| *n == def.name)
                .map(|i| doc.evaluated_why[i].clone()),
        })
        .collect();
    let type_items = types.items;
    let contract = quote::format_ident!("{}", RUNTIME_CONTRACT);
    let tokens = quote! {
        // The contract version this generator writes for: a runtime of another version has
        // no such item, so a mismatch fails to compile (see `RUNTIME_CONTRACT`).
        const _: () = #runtime::__private::#contract::CONTRACT;
        #type_items
        #impls
        /// Validators generated from the same schema: one function per definition.
        pub mod validate {
            #validators
        }
    };
    let mut file: syn::File = syn::parse2(tokens).map_err(|e| Error::GeneratedCode {
        file: doc.file.clone(),
        message: e.to_string(),
    })?;
    crate::crate_paths::through_runtime(&mut file, runtime);
    crate::doc_links::escape_in(&mut file);
    Ok((file, definitions))
}

/// The text of a generated file: the `@generated` header, then `file` formatted.
fn format_file(schema: &Path, runtime: &syn::Path, file: &syn::File) -> String {
    let name = schema
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let runtime_text = crate::crate_paths::path_text(runtime);
    format!(
        "// @generated by typed-mcp-codegen {} from `{name}`. Do not edit by hand.\n\
         // It names `{runtime_text}::__private::{RUNTIME_CONTRACT}`, which only a runtime of the \
         same version has:\n// keep typed-mcp-codegen and typed-mcp at the same version.\n\n{}",
        env!("CARGO_PKG_VERSION"),
        prettyplease::unparse(file)
    )
}

/// The version of the contract between generated code and the runtime's `__private` module:
/// every generated file names `<runtime>::__private::v1::CONTRACT`, and the trait impls go
/// through `<runtime>::__private::v1`. A runtime implementing another version has no `v1`,
/// so a generator/runtime mismatch fails to compile instead of misbehaving.
pub(crate) const RUNTIME_CONTRACT: &str = "v1";

/// Whether the file at `path` holds exactly `content`.
pub(crate) fn holds(path: &Path, content: &str) -> bool {
    std::fs::read(path).is_ok_and(|existing| existing == content.as_bytes())
}

/// Writes `content` to `path` unless the file already holds exactly that; returns whether
/// it wrote.
///
/// The content goes to a temporary file beside `path` that is then renamed over it, so a
/// build that stops half-way (killed, disk full) never leaves a truncated file for the
/// compiler or a reader: `path` holds either the old content or the new.
pub(crate) fn write_if_changed(path: &Path, content: &str) -> Result<bool> {
    if holds(path, content) {
        return Ok(false);
    }
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(parent).map_err(io_error(parent))?;
    let file_name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = parent.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&temporary, content)
        .map_err(io_error(&temporary))
        .and_then(|()| std::fs::rename(&temporary, path).map_err(io_error(path)));
    if written.is_err() {
        // Nothing half-written is left behind; the first error is the one reported.
        let _ignored = std::fs::remove_file(&temporary);
    }
    written.map(|()| true)
}

#[cfg(test)]
mod write_tests {
    use super::write_if_changed;

    fn entries(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("the directory is read")
            .map(|entry| {
                entry
                    .expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_through_a_renamed_temporary_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("nested/out.rs");
        assert!(write_if_changed(&path, "first").expect("written"));
        assert!(!write_if_changed(&path, "first").expect("unchanged"));
        assert!(write_if_changed(&path, "second").expect("rewritten"));
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "second");
        assert_eq!(entries(&dir.path().join("nested")), ["out.rs"]);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().expect("a directory");
        // A directory where the file should be: the rename fails.
        let path = dir.path().join("out.rs");
        std::fs::create_dir(&path).expect("a directory in the way");
        std::fs::write(path.join("keep"), "x").expect("a file inside it");
        let error = write_if_changed(&path, "new").expect_err("cannot replace a directory");
        assert!(error.to_string().contains("out.rs"), "{error}");
        assert_eq!(entries(dir.path()), ["out.rs"]);
        assert_eq!(entries(&path), ["keep"]);
    }
}
