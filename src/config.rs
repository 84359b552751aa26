//! Loading and validating the runtime configuration (`schema/limits.json`).
//!
//! A configuration is a JSON document of the generated [`Limits`] type. Loading runs the
//! generated validator **first**, over the whole document, so a bad file is reported with
//! every violation at once (path, bound and actual value of each), not just the first one
//! `serde` would trip over. Only a document the validator accepts is converted into
//! [`Limits`]; absent members take the schema's defaults, so `{}` is a complete
//! configuration.
//!
//! Errors never quote the file's content: malformed JSON is reported by line and column, and
//! violations carry the validator's summaries (a number, a type name, a length or a short
//! string).
//!
//! ```
//! use typed_mcp::config::{parse_limits, ConfigError};
//!
//! let limits = parse_limits(r#"{"cache": {"maxEntries": 50}}"#).unwrap();
//! assert_eq!(limits.cache.max_entries.get(), 50);
//! assert_eq!(limits.request.max_line_bytes, 16 * 1024 * 1024); // the schema default
//!
//! let error = parse_limits(r#"{"cache": {"maxEntries": 0, "ttlMs": -1}}"#).unwrap_err();
//! let ConfigError::Invalid { violations, .. } = &error else { panic!() };
//! assert_eq!(violations.len(), 2);
//! assert!(error.to_string().contains("/cache/maxEntries"));
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize as _;
use serde_json::Value;

use crate::generated::limits::{validate, Limits};
use crate::validation::ValidationError;

/// Errors of loading a configuration. Each names the file it came from, when there is one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read configuration file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why reading failed.
        #[source]
        source: std::io::Error,
    },
    /// The text is not well-formed JSON.
    #[error("{}: {kind} at line {line}, column {column}", Origin(path.as_deref()))]
    Syntax {
        /// The file, if the text came from one.
        path: Option<PathBuf>,
        /// What kind of defect: malformed JSON, or JSON that ends too early.
        kind: SyntaxErrorKind,
        /// The 1-based line of the defect.
        line: usize,
        /// The 1-based column of the defect.
        column: usize,
    },
    /// The JSON does not match `schema/limits.json`. Every violation found is listed.
    #[error("{}", InvalidDisplay { path: path.as_deref(), violations })]
    Invalid {
        /// The file, if the document came from one.
        path: Option<PathBuf>,
        /// Every violation, in the order the validator found them (never empty).
        violations: Vec<ValidationError>,
    },
    /// The validator accepted the document but the generated types did not. This means the
    /// generated types and validator disagree, which is a bug in the code generator.
    #[error(
        "{}: accepted by the schema validator but rejected by the generated types (a bug in \
         typed-mcp-codegen)",
        Origin(path.as_deref())
    )]
    Conversion {
        /// The file, if the document came from one.
        path: Option<PathBuf>,
    },
}

/// What kind of defect makes a configuration text unreadable as JSON.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum SyntaxErrorKind {
    /// The text is not valid JSON (a stray character, a missing comma, invalid UTF-8, nesting
    /// deeper than 128 levels, ...).
    Malformed,
    /// The text ends in the middle of a JSON value (or is empty).
    UnexpectedEnd,
}

impl fmt::Display for SyntaxErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Malformed => "malformed JSON",
            Self::UnexpectedEnd => "JSON ends too early",
        })
    }
}

impl ConfigError {
    /// The violations, for [`ConfigError::Invalid`]; empty for every other variant.
    #[must_use]
    pub fn violations(&self) -> &[ValidationError] {
        match self {
            Self::Invalid { violations, .. } => violations,
            _ => &[],
        }
    }

    /// The file the error is about, if the configuration came from one.
    #[must_use]
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Read { path, .. } => Some(path),
            Self::Syntax { path, .. } | Self::Invalid { path, .. } | Self::Conversion { path } => {
                path.as_deref()
            }
        }
    }

    fn with_path(mut self, file: &Path) -> Self {
        match &mut self {
            Self::Syntax { path, .. } | Self::Invalid { path, .. } | Self::Conversion { path } => {
                *path = Some(file.to_path_buf());
            }
            Self::Read { .. } => {}
        }
        self
    }
}

/// Names where a configuration came from in error messages.
struct Origin<'a>(Option<&'a Path>);

impl fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(path) => write!(f, "configuration file {}", path.display()),
            None => f.write_str("configuration"),
        }
    }
}

/// The message of [`ConfigError::Invalid`]: a summary line, then one line per violation.
struct InvalidDisplay<'a> {
    path: Option<&'a Path>,
    violations: &'a [ValidationError],
}

impl fmt::Display for InvalidDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.violations.len();
        let noun = if count == 1 {
            "violation"
        } else {
            "violations"
        };
        write!(
            f,
            "{} does not match schema/limits.json ({count} {noun}):",
            Origin(self.path)
        )?;
        for violation in self.violations {
            let path = match violation.path() {
                "" => "(root)",
                path => path,
            };
            write!(
                f,
                "\n  {path}: {} [{}; limit {}, actual {}]",
                violation.message(),
                violation.keyword(),
                violation.limit(),
                violation.actual()
            )?;
        }
        Ok(())
    }
}

/// Reads, validates and converts a configuration file.
///
/// # Errors
///
/// [`ConfigError::Read`] if the file cannot be read, [`ConfigError::Syntax`] if it is not
/// JSON, [`ConfigError::Invalid`] with every violation if it does not match the schema.
/// Each names the file.
pub fn load_limits(path: impl AsRef<Path>) -> Result<Limits, ConfigError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let limits = parse_limits_slice(&bytes).map_err(|error| error.with_path(path))?;
    tracing::info!(path = %path.display(), "configuration loaded");
    Ok(limits)
}

/// Parses, validates and converts a configuration text.
///
/// # Errors
///
/// [`ConfigError::Syntax`] if the text is not JSON, [`ConfigError::Invalid`] with every
/// violation if it does not match the schema.
pub fn parse_limits(text: &str) -> Result<Limits, ConfigError> {
    parse_limits_slice(text.as_bytes())
}

/// Parses, validates and converts a configuration given as bytes (UTF-8 JSON).
///
/// # Errors
///
/// As [`parse_limits`]; invalid UTF-8 is a [`ConfigError::Syntax`] error.
pub fn parse_limits_slice(bytes: &[u8]) -> Result<Limits, ConfigError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|error| syntax_error(&error))?;
    limits_from_value(&value)
}

/// Validates a JSON value against `schema/limits.json` and converts it.
///
/// # Errors
///
/// [`ConfigError::Invalid`] with every violation if the value does not match the schema.
pub fn limits_from_value(value: &Value) -> Result<Limits, ConfigError> {
    if let Err(violations) = validate::limits(value) {
        tracing::debug!(count = violations.len(), "configuration rejected");
        return Err(ConfigError::Invalid {
            path: None,
            violations,
        });
    }
    let limits = Limits::deserialize(value).map_err(|error| {
        // serde's message may quote the value: log only its category.
        tracing::error!(
            category = ?error.classify(),
            "generated types rejected a validated configuration"
        );
        ConfigError::Conversion { path: None }
    })?;
    for warning in warnings(&limits) {
        tracing::warn!("configuration: {warning}");
    }
    Ok(limits)
}

/// A configuration that is valid but probably not what was meant.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum ConfigWarning {
    /// `timeouts.toolCategories` puts a tool in a category that has no entry in
    /// `timeouts.toolTimeouts`, so the tool falls back to `defaultTimeoutMs`.
    UntimedCategory {
        /// The tool.
        tool: String,
        /// Its category.
        category: String,
    },
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UntimedCategory { tool, category } => write!(
                f,
                "/timeouts/toolCategories/{}: category {category:?} has no entry in \
                 /timeouts/toolTimeouts; the tool uses defaultTimeoutMs",
                escape_pointer_token(tool)
            ),
        }
    }
}

/// The cross-references the schema cannot express, checked on a valid configuration.
#[must_use]
pub fn warnings(limits: &Limits) -> Vec<ConfigWarning> {
    let timeouts = &limits.timeouts;
    let Some(categories) = &timeouts.tool_categories else {
        return Vec::new();
    };
    categories
        .iter()
        .filter(|(_, category)| {
            timeouts
                .tool_timeouts
                .as_ref()
                .is_none_or(|timed| !timed.contains_key(category.as_str()))
        })
        .map(|(tool, category)| ConfigWarning::UntimedCategory {
            tool: tool.clone(),
            category: category.clone(),
        })
        .collect()
}

/// Escapes a member name as a JSON Pointer token (RFC 6901).
fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn syntax_error(error: &serde_json::Error) -> ConfigError {
    let kind = match error.classify() {
        serde_json::error::Category::Eof => SyntaxErrorKind::UnexpectedEnd,
        _ => SyntaxErrorKind::Malformed,
    };
    ConfigError::Syntax {
        path: None,
        kind,
        line: error.line(),
        column: error.column(),
    }
}
