//! JSON-RPC error codes as an open newtype.

use std::fmt;

/// A JSON-RPC error code.
///
/// The set is open: any integer received from a peer is representable, and the named
/// constants cover the codes defined by JSON-RPC 2.0 and by MCP.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// Invalid JSON was received (JSON-RPC 2.0).
    pub const PARSE_ERROR: Self = Self(-32700);
    /// The JSON sent is not a valid request object (JSON-RPC 2.0).
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// The method does not exist or is not available (JSON-RPC 2.0).
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// Invalid method parameters (JSON-RPC 2.0).
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// Internal JSON-RPC error (JSON-RPC 2.0).
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// MCP: a transport header disagrees with the message body.
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// MCP: the request needs a client capability the client did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// MCP: the requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
    /// MCP (legacy): resource not found. Accepted on input; newer revisions use
    /// [`ErrorCode::INVALID_PARAMS`] instead.
    pub const RESOURCE_NOT_FOUND: Self = Self(-32002);

    /// The numeric value.
    #[must_use]
    pub const fn code(self) -> i64 {
        self.0
    }

    /// The constant's name for known codes, `None` for any other value.
    #[must_use]
    pub const fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            -32700 => "PARSE_ERROR",
            -32600 => "INVALID_REQUEST",
            -32601 => "METHOD_NOT_FOUND",
            -32602 => "INVALID_PARAMS",
            -32603 => "INTERNAL_ERROR",
            -32020 => "HEADER_MISMATCH",
            -32021 => "MISSING_REQUIRED_CLIENT_CAPABILITY",
            -32022 => "UNSUPPORTED_PROTOCOL_VERSION",
            -32002 => "RESOURCE_NOT_FOUND",
            _ => return None,
        })
    }

    /// Whether the code lies in the range JSON-RPC 2.0 reserves for implementation-defined
    /// server errors (-32099 ..= -32000).
    #[must_use]
    pub const fn is_server_error_range(self) -> bool {
        self.0 >= -32099 && self.0 <= -32000
    }
}

impl From<i64> for ErrorCode {
    fn from(code: i64) -> Self {
        Self(code)
    }
}

impl From<ErrorCode> for i64 {
    fn from(code: ErrorCode) -> Self {
        code.0
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{} ({name})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}
