//! The generator's error type.

use std::path::PathBuf;

/// Everything that can go wrong while generating code from a schema.
///
/// Every variant that concerns a schema names the file and, where one applies, the JSON
/// Pointer (RFC 6901) of the offending location inside that file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A schema file, or a generated file, could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file that could not be read or written.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// A schema file is not valid JSON.
    #[error("{path}: not valid JSON: {source}")]
    Json {
        /// The schema file.
        path: PathBuf,
        /// The parser's error (line and column).
        source: serde_json::Error,
    },
    /// The schema uses a keyword (or keyword value) the generator does not support.
    /// Unsupported keywords are never silently ignored.
    #[error("{file}#{pointer}: unsupported keyword `{keyword}`")]
    Unsupported {
        /// The schema file.
        file: PathBuf,
        /// JSON Pointer of the schema object holding the keyword.
        pointer: String,
        /// The keyword (or `keyword: value`) that is not supported.
        keyword: String,
    },
    /// The schema is malformed (a keyword holds a value of the wrong shape, a `$ref` points
    /// nowhere, ...).
    #[error("{file}#{pointer}: {message}")]
    InvalidSchema {
        /// The schema file.
        file: PathBuf,
        /// JSON Pointer of the offending location.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// typify rejected the schema, or panicked on it (the panic is caught and reported here).
    #[error("{file}#{pointer}: type generation failed: {message}")]
    TypeGeneration {
        /// The schema file.
        file: PathBuf,
        /// JSON Pointer of the definition being converted (empty when unknown).
        pointer: String,
        /// typify's error or panic message.
        message: String,
    },
    /// The generated code did not parse as Rust (a generator bug).
    #[error("{file}: generated code does not parse: {message}")]
    GeneratedCode {
        /// The schema file the code was generated from.
        file: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A server snapshot is not one (see [`crate::Snapshot`]): not of this format, or a
    /// tool without a name or an input schema.
    #[error(
        "{}#{pointer}: {message}",
        file.as_ref().map_or_else(|| "snapshot".to_owned(), |f| f.display().to_string())
    )]
    Snapshot {
        /// The snapshot file, when the snapshot was read from one.
        file: Option<PathBuf>,
        /// JSON Pointer of the offending location in the snapshot.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// The configuration is unusable (no schema given, no output directory known, ...).
    #[error("configuration: {0}")]
    Config(String),
}

/// Shorthand for results of the generator.
pub type Result<T, E = Error> = std::result::Result<T, E>;
