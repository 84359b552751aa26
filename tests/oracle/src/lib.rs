//! The official MCP schemas, run through `typed-mcp-codegen` at build time, for the oracle
//! tests in `tests/`. Built only when the official schemas are found (`TYPED_MCP_SPEC_DIR`,
//! default `../shared/spec/mcp` next to the repository); otherwise this crate is empty and the
//! tests print that they are skipped (in CI the build fails instead).

use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use typed_mcp::validation::ValidationError;

/// One generated definition: its name, and functions to round-trip and validate a value.
#[derive(Clone, Copy)]
pub struct Definition {
    /// The definition's name in the schema.
    pub name: &'static str,
    /// JSON Pointer of the definition in the schema file.
    pub pointer: &'static str,
    /// Deserializes a value into the generated type and serializes it back.
    pub roundtrip: fn(&Value) -> Result<Value, String>,
    /// The generated validator.
    pub validate: fn(&Value) -> Result<(), Vec<ValidationError>>,
}

/// Deserializes `value` into `T` (reporting the path of the first failure) and serializes
/// it back.
pub fn roundtrip<T: Serialize + DeserializeOwned>(value: &Value) -> Result<Value, String> {
    let typed: T = serde_path_to_error::deserialize(value.clone())
        .map_err(|e| format!("at `{}`: {}", e.path(), e.inner()))?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

/// The folder of the official MCP schemas this crate was generated from (see
/// `tests/reference_data.rs`), if they were found at build time.
pub fn spec_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("TYPED_MCP_ORACLE_SPEC_DIR"));
    (cfg!(oracle_schemas) && dir.is_dir()).then_some(dir)
}

/// Types and validators generated from the 2025-11-25 schema.
#[cfg(oracle_schemas)]
pub mod v2025_11_25 {
    include!(concat!(env!("OUT_DIR"), "/v2025_11_25/schema.rs"));
    include!(concat!(env!("OUT_DIR"), "/v2025_11_25/table.rs"));
}

/// Types and validators generated from the 2026-07-28 schema.
#[cfg(oracle_schemas)]
pub mod v2026_07_28 {
    include!(concat!(env!("OUT_DIR"), "/v2026_07_28/schema.rs"));
    include!(concat!(env!("OUT_DIR"), "/v2026_07_28/table.rs"));
}

/// The definitions of every generated version, by version name.
pub fn versions() -> Vec<(&'static str, &'static [Definition])> {
    #[cfg(oracle_schemas)]
    {
        vec![
            ("2025-11-25", v2025_11_25::DEFINITIONS),
            ("2026-07-28", v2026_07_28::DEFINITIONS),
        ]
    }
    #[cfg(not(oracle_schemas))]
    {
        Vec::new()
    }
}
