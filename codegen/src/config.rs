//! The [`Config`] builder: which schemas, where the code goes, how it names the runtime.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::output::{holds, render, write_if_changed};

/// Configuration of one generator run, shaped like `prost_build::Config`.
///
/// # Examples
///
/// In a `build.rs` (cargo sets `OUT_DIR`, where the code goes by default, and reruns the
/// script when the schema changes):
///
/// ```no_run
/// // build.rs, in `fn main`:
/// typed_mcp_codegen::Config::new()
///     .schema("schema/tools.json")
///     .generate()
///     .expect("typed-mcp code generation failed");
/// ```
///
/// The same run into a directory of your choice, with what was generated:
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let schema = dir.path().join("tools.json");
/// std::fs::write(&schema, r#"{"$defs": {"ShoutArguments": {
///     "type": "object", "description": "Shouts a text.",
///     "properties": {"text": {"type": "string", "maxLength": 100}},
///     "required": ["text"], "additionalProperties": false}}}"#)?;
/// let files = typed_mcp_codegen::Config::new()
///     .schema(&schema)
///     .out_dir(dir.path())
///     .emit_rerun_if_changed(false)
///     .generate()?;
/// assert_eq!(files[0].path, dir.path().join("tools.rs"));
/// let code = std::fs::read_to_string(&files[0].path)?;
/// assert!(code.contains("pub struct ShoutArguments"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// and in the crate, which needs no dependency but `typed-mcp` (generated code reaches
/// serde and serde_json through the runtime's `__private` module):
///
/// ```ignore
/// mod tools {
///     include!(concat!(env!("OUT_DIR"), "/tools.rs"));
/// }
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Config {
    schemas: Vec<PathBuf>,
    snapshots: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    runtime_path: String,
    emit_rerun_if_changed: Option<bool>,
    remotes: Vec<(String, PathBuf)>,
    format_assertion: bool,
}

/// One file written (or left alone) by [`Config::generate`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GeneratedFile {
    /// The schema (or server snapshot) the code was generated from.
    pub schema: PathBuf,
    /// The generated Rust file (`<out_dir>/<schema file stem>.rs`).
    pub path: PathBuf,
    /// Whether the file's content changed (a file whose content is unchanged is not
    /// rewritten, so cargo does not rebuild what depends on it); for [`Config::check`],
    /// whether it is missing or stale.
    pub changed: bool,
    /// Every definition of the schema with the Rust type generated for it and the stem of
    /// its validator (`validate::<stem>`), in schema order.
    pub definitions: Vec<GeneratedDefinition>,
    /// For a server snapshot, one line per tool schema that could not be typed (that tool
    /// takes or returns a `serde_json::Value` instead); inside a build script each is also
    /// printed as a `cargo:warning`.
    pub warnings: Vec<String>,
}

/// What was generated for one schema definition.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GeneratedDefinition {
    /// The definition's name in the schema (`$defs` key, or a hoisted union's name).
    pub name: String,
    /// JSON Pointer of the definition in the schema file.
    pub pointer: String,
    /// The Rust type generated for it.
    pub rust_type: String,
    /// The stem of its validator: `validate::<stem>(&value)`.
    pub validator: String,
    /// `Some(keyword)` when the definition is validated at run time by a schema evaluator
    /// rather than by generated code, naming the keyword (or construct) that needed it;
    /// `None` when its validator is generated Rust code. A build script is told with a
    /// `cargo:warning`.
    pub run_time: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

impl Config {
    /// A configuration with no schema, writing to `$OUT_DIR`, naming the runtime
    /// `::typed_mcp`.
    pub fn new() -> Self {
        Self {
            schemas: Vec::new(),
            snapshots: Vec::new(),
            out_dir: None,
            runtime_path: "::typed_mcp".to_string(),
            emit_rerun_if_changed: None,
            remotes: Vec::new(),
            format_assertion: false,
        }
    }

    /// Adds a schema file (JSON Schema 2020-12 with `$defs`). Each schema becomes one Rust
    /// file named after it.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut config = typed_mcp_codegen::Config::new();
    /// config.schema("schema/jsonrpc.json").schema("schema/limits.json");
    /// ```
    pub fn schema(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.schemas.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds a server snapshot (a JSON file written by `typed-mcp-pull`, see
    /// [`Snapshot`](crate::Snapshot)): it becomes one Rust file named after it, holding an
    /// arguments type per tool, an output type per tool that publishes an `outputSchema`
    /// (with their validators), and a client type named after the file (`github.json` →
    /// `GithubClient`) with one `async fn` per tool, which checks the arguments before they
    /// are sent and the result after it arrives.
    ///
    /// A tool schema the generator cannot type does not fail the file: that tool takes (or
    /// returns) a `serde_json::Value`, and the reason is printed as a `cargo:warning`.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut config = typed_mcp_codegen::Config::new();
    /// config.server_snapshot("mcp/github.json");
    /// ```
    pub fn server_snapshot(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.snapshots.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds several schema files.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut config = typed_mcp_codegen::Config::new();
    /// config.schemas(["a.json", "b.json"]);
    /// ```
    pub fn schemas<P: AsRef<Path>>(&mut self, paths: impl IntoIterator<Item = P>) -> &mut Self {
        for path in paths {
            self.schema(path);
        }
        self
    }

    /// Writes the generated files to `dir` instead of `$OUT_DIR` (useful in tests and for
    /// checked-in code).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut config = typed_mcp_codegen::Config::new();
    /// config.out_dir(std::env::temp_dir());
    /// ```
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The path generated code uses to reach the runtime crate (default `::typed_mcp`);
    /// set it when the dependency is renamed or re-exported. Generated code names nothing
    /// else: serde and serde_json are reached through `<path>::__private` too, so the crate
    /// including it needs no dependency of its own on them.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut config = typed_mcp_codegen::Config::new();
    /// config.runtime_path("::my_mcp");
    /// ```
    pub fn runtime_path(&mut self, path: impl Into<String>) -> &mut Self {
        self.runtime_path = path.into();
        self
    }

    /// Whether to print `cargo:rerun-if-changed=<schema>` for every schema read. By default
    /// it is printed when running inside a build script (`OUT_DIR` is set). Note that once a
    /// build script prints any `rerun-if-changed`, cargo only reruns it for the listed
    /// files: list your `build.rs` too if it should rerun when edited.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut config = typed_mcp_codegen::Config::new();
    /// config.emit_rerun_if_changed(false);
    /// ```
    pub fn emit_rerun_if_changed(&mut self, emit: bool) -> &mut Self {
        self.emit_rerun_if_changed = Some(emit);
        self
    }

    /// Lists a remote document: references to `uri` (absolute, without fragment) resolve to
    /// the schema in the file at `path`, read at generation time. Nothing is ever fetched
    /// from the network; a reference that resolves neither in the schema file nor in a listed
    /// document is refused.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut config = typed_mcp_codegen::Config::new();
    /// config.remote("https://example.com/schemas/address.json", "schema/address.json");
    /// ```
    pub fn remote(&mut self, uri: impl Into<String>, path: impl AsRef<Path>) -> &mut Self {
        self.remotes.push((uri.into(), path.as_ref().to_path_buf()));
        self
    }

    /// Whether the emitted validators assert `format`. Off by default, as JSON Schema
    /// 2020-12 says (`format` is an annotation unless asserting is asked for). On, every
    /// 2020-12 format is checked (`date-time`, `date`, `time`, `duration`, `email`,
    /// `idn-email`, `hostname`, `idn-hostname`, `ipv4`, `ipv6`, `uri`, `uri-reference`, `iri`,
    /// `iri-reference`, `uuid`, `uri-template`, `json-pointer`, `relative-json-pointer`,
    /// `regex`) and OpenAPI's `byte`; an unknown format stays an annotation.
    ///
    /// typed-mcp's own build asserts formats on the MCP protocol messages (a malformed `uri`
    /// or base64 `data` is reported, not passed on). For your tool arguments, turn it on when
    /// a handler relies on a declared format (a tool that declares `format: uri` usually
    /// expects one). Definitions left to the runtime's evaluator (see
    /// [`GeneratedDefinition::run_time`]) follow the same setting.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut config = typed_mcp_codegen::Config::new();
    /// config.format_assertion(true);
    /// ```
    pub fn format_assertion(&mut self, assert: bool) -> &mut Self {
        self.format_assertion = assert;
        self
    }

    /// Generates one Rust file per schema and per server snapshot, writing only files whose
    /// content changed.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] without a schema or an output directory; otherwise the first
    /// schema's error (naming the file and the JSON Pointer) or I/O error.
    pub fn generate(&self) -> Result<Vec<GeneratedFile>> {
        self.run(true)
    }

    /// Generates the code of every schema and compares it with the files already in the
    /// output directory, writing nothing: [`GeneratedFile::changed`] is `true` for each file
    /// that is missing or whose content differs, i.e. that [`Config::generate`] would write.
    /// This is how checked-in generated code is kept fresh (`typed-mcp-codegen generate
    /// --check`).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let stale: Vec<_> = typed_mcp_codegen::Config::new()
    ///     .schema("schema/tools.json")
    ///     .out_dir("src/generated")
    ///     .check()
    ///     .unwrap()
    ///     .into_iter()
    ///     .filter(|file| file.changed)
    ///     .collect();
    /// assert!(stale.is_empty(), "regenerate: {stale:?}");
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Config::generate`].
    pub fn check(&self) -> Result<Vec<GeneratedFile>> {
        self.run(false)
    }

    fn run(&self, write: bool) -> Result<Vec<GeneratedFile>> {
        if self.schemas.is_empty() && self.snapshots.is_empty() {
            return Err(Error::Config("no schema or server snapshot given".into()));
        }
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Error::Config(
                        "OUT_DIR is not set; call `out_dir()` outside build scripts".into(),
                    )
                })?,
        };
        let emit = self
            .emit_rerun_if_changed
            .unwrap_or_else(|| std::env::var_os("OUT_DIR").is_some());
        let mut written = Vec::new();
        for schema in self.schemas.iter().chain(&self.snapshots) {
            if emit {
                println!("cargo:rerun-if-changed={}", schema.display());
            }
            let (code, definitions, warnings) = self.render_any(schema)?;
            if emit {
                for def in &definitions {
                    if let Some(keyword) = &def.run_time {
                        println!(
                            "cargo:warning=typed-mcp-codegen: {}: definition `{}` is validated at \
                             run time, not by generated code (`{keyword}`)",
                            schema.display(),
                            def.name
                        );
                    }
                }
                for warning in &warnings {
                    println!("cargo:warning={}: {warning}", schema.display());
                }
            }
            let stem = schema
                .file_stem()
                .and_then(|s| s.to_str())
                .ok_or_else(|| Error::Config(format!("{}: no file name", schema.display())))?;
            let path = out_dir.join(format!("{}.rs", crate::naming::fn_stem(stem)));
            let changed = if write {
                write_if_changed(&path, &code)?
            } else {
                !holds(&path, &code)
            };
            written.push(GeneratedFile {
                schema: schema.clone(),
                path,
                changed,
                definitions,
                warnings,
            });
        }
        Ok(written)
    }

    /// Generates the code for one schema file and returns it, formatted, without writing
    /// anything.
    /// A path given to [`Config::server_snapshot`] generates its client module.
    pub fn generate_string(&self, schema: impl AsRef<Path>) -> Result<String> {
        self.render_any(schema.as_ref()).map(|(code, _, _)| code)
    }

    /// The code of a schema or server snapshot, its definitions and its warnings.
    fn render_any(&self, path: &Path) -> Result<(String, Vec<GeneratedDefinition>, Vec<String>)> {
        if !self.snapshots.iter().any(|snapshot| snapshot == path) {
            let (code, definitions) = self.render(path)?;
            return Ok((code, definitions, Vec::new()));
        }
        let runtime: syn::Path = syn::parse_str(&self.runtime_path)
            .map_err(|e| Error::Config(format!("runtime path `{}`: {e}", self.runtime_path)))?;
        let generated =
            crate::snapshot_code::render_snapshot(path, &runtime, self.format_assertion)?;
        Ok((generated.code, generated.definitions, generated.warnings))
    }

    fn render(&self, schema: &Path) -> Result<(String, Vec<GeneratedDefinition>)> {
        let runtime: syn::Path = syn::parse_str(&self.runtime_path)
            .map_err(|e| Error::Config(format!("runtime path `{}`: {e}", self.runtime_path)))?;
        let mut remotes = serde_json::Map::new();
        for (uri, path) in &self.remotes {
            remotes.insert(uri.clone(), crate::doc::SchemaDoc::read(path)?);
        }
        render(
            schema,
            &runtime,
            &serde_json::Value::Object(remotes),
            self.format_assertion,
        )
    }
}

/// Generates code for `schemas` into `$OUT_DIR` with the default configuration: the
/// one-line entry point for a `build.rs`.
///
/// # Examples
///
/// ```no_run
/// typed_mcp_codegen::compile(&["schema/tools.json"]).unwrap();
/// ```
pub fn compile(schemas: &[impl AsRef<Path>]) -> Result<Vec<GeneratedFile>> {
    Config::new().schemas(schemas).generate()
}
