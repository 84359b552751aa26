//! The failures a tool handler reports, and the error code each one maps to.

use serde_json::{Map, Value};

use crate::generated::errors::ToolErrorCode;
use crate::validation::ValidationError;

/// Why a tool handler failed: what a handler returns in its `Err` case.
///
/// Each variant maps to one code of the closed [`ToolErrorCode`] set ([`ToolCallError::code`]);
/// the runner builds the structured error of the result envelope from it. Messages are the
/// tool's own words and reach the caller: they must not echo raw input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolCallError {
    /// The tool ran and failed on its own terms (`TOOL_FAILED`).
    #[error("{message}")]
    Failed {
        /// Human-readable summary of the failure.
        message: String,
        /// Extra machine-readable facts, if any.
        details: Option<Map<String, Value>>,
    },
    /// The arguments are invalid beyond what the limits check (`VALIDATION_FAILED`); an
    /// empty list is reported as one violation at the root.
    #[error("{} argument violation(s)", .0.len())]
    InvalidArguments(Vec<ValidationError>),
    /// Too many calls; the caller should retry later (`RATE_LIMITED`).
    #[error("too many calls")]
    RateLimited {
        /// How long the caller should wait before retrying, in milliseconds, if known.
        retry_after_ms: Option<u64>,
    },
    /// The tool or a service it depends on is temporarily unavailable (`UNAVAILABLE`).
    #[error("{message}")]
    Unavailable {
        /// Human-readable summary.
        message: String,
    },
    /// The handler stopped because its cancellation token fired (`CANCELLED`).
    #[error("the call was cancelled")]
    Cancelled,
    /// An unexpected fault inside the tool (`INTERNAL`).
    #[error("{message}")]
    Internal {
        /// Human-readable summary, without internal detail the caller should not see.
        message: String,
    },
}

impl ToolCallError {
    /// A `TOOL_FAILED` error with a message and no details.
    #[must_use]
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed {
            message: message.into(),
            details: None,
        }
    }

    /// The error code this failure is reported with.
    #[must_use]
    pub fn code(&self) -> ToolErrorCode {
        match self {
            Self::Failed { .. } => ToolErrorCode::ToolFailed,
            Self::InvalidArguments(_) => ToolErrorCode::ValidationFailed,
            Self::RateLimited { .. } => ToolErrorCode::RateLimited,
            Self::Unavailable { .. } => ToolErrorCode::Unavailable,
            Self::Cancelled => ToolErrorCode::Cancelled,
            Self::Internal { .. } => ToolErrorCode::Internal,
        }
    }
}
