//! The era gate of a [`Connection`]: which era serves a request, from the session's state
//! and the protocol version the request names.

use serde_json::Value;

use super::Connection;
use crate::generated::protocol::UnsupportedProtocolVersionData;
use crate::jsonrpc::{ErrorCode, ErrorObject};
use crate::mcp::era::{
    supported_versions, Era, SessionState, MODERN_VERSIONS, PROTOCOL_VERSION_KEY,
};
use crate::mcp::params::{error_with_data, internal_error, invalid_request, method_not_found};

/// What the era gate decided for a request.
pub(super) enum Route {
    /// The `initialize` handshake (undecided session).
    Initialize,
    /// Serve in this era.
    Serve(Era),
    /// `ping` before any handshake.
    EarlyPing,
}

impl Connection {
    /// The era gate. `requested` is the version the request names in `params._meta` (see
    /// [`requested_version`]).
    pub(super) fn route(
        &self,
        method: &str,
        params: Option<&Value>,
        requested: Option<Option<&str>>,
    ) -> Result<Route, ErrorObject<'static>> {
        let state = self.session.state();
        if self.stateless && matches!(method, "initialize" | "ping") {
            // Removed in 2026-07-28.
            return Err(method_not_found());
        }
        if method == "initialize" {
            return match state {
                SessionState::Undecided => Ok(Route::Initialize),
                SessionState::Legacy { .. } => {
                    Err(invalid_request("the session is already initialized"))
                }
                SessionState::Modern => {
                    let offered = params
                        .and_then(|p| p.get("protocolVersion"))
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    Err(unsupported_version(offered))
                }
            };
        }
        match (state, requested) {
            (SessionState::Legacy { .. }, Some(_)) => Err(invalid_request(
                "this connection speaks a 2025 protocol version: requests carrying \
                 io.modelcontextprotocol/protocolVersion are not accepted on it",
            )),
            (SessionState::Legacy { version, .. }, None) => Ok(Route::Serve(Era::Legacy(version))),
            (SessionState::Undecided, None) if method == "ping" => Ok(Route::EarlyPing),
            // server/discover exists in 2026-07-28 only: without its version it is a params
            // error there (-32602), not a missing handshake.
            (SessionState::Undecided, None) if method == "server/discover" || self.stateless => {
                Ok(Route::Serve(Era::Modern))
            }
            (SessionState::Undecided, None) => Err(invalid_request(
                "the session is not initialized: send initialize (2025 versions) or carry \
                 io.modelcontextprotocol/protocolVersion in params._meta (2026-07-28)",
            )),
            // Modern, or undecided with a versioned request: the version decides. A missing
            // or malformed version is left to the params' validator (-32602).
            (SessionState::Modern | SessionState::Undecided, requested) => {
                if let Some(Some(version)) = requested {
                    if !MODERN_VERSIONS.contains(&version) {
                        return Err(unsupported_version(version));
                    }
                    if !self.session.open_modern() {
                        return Err(internal_error("the session changed era"));
                    }
                }
                Ok(Route::Serve(Era::Modern))
            }
        }
    }
}

/// The protocol version a request names in `params._meta`: `None` when it names none,
/// `Some(None)` when that member is not a string (left to the params' validator).
pub(super) fn requested_version(params: Option<&Value>) -> Option<Option<&str>> {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|meta| meta.get(PROTOCOL_VERSION_KEY))
        .map(Value::as_str)
}

/// `-32022` with the versions this server speaks.
fn unsupported_version(requested: &str) -> ErrorObject<'static> {
    let data = UnsupportedProtocolVersionData {
        requested: requested.to_owned(),
        supported: supported_versions(),
    };
    error_with_data(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version".to_owned(),
        &data,
    )
}
