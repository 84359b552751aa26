//! The 2026-07-28 era over HTTP: which POSTs belong to it, and the `MCP-Protocol-Version`,
//! `Mcp-Method` and `Mcp-Name` headers checked against the body.

use axum::http::HeaderMap;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::jsonrpc::members::find_members;
use crate::jsonrpc::{ErrorCode, ErrorObject};
use crate::mcp::era::LEGACY_VERSIONS;

use super::headers::{single, MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION};

/// What the server needs to know of a request's params before dispatch.
#[derive(Debug, Default)]
pub(crate) struct ParamsProbe {
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, when a string.
    pub(crate) version: Option<String>,
    /// Whether `_meta.progressToken` is present.
    pub(crate) wants_progress: bool,
    /// `name` (tools/call, prompts/get) when a string.
    pub(crate) name: Option<String>,
    /// `uri` (resources/read) when a string.
    pub(crate) uri: Option<String>,
    /// `taskId` (tasks/get, tasks/update, tasks/cancel) when a string.
    pub(crate) task_id: Option<String>,
}

#[derive(Deserialize)]
struct MetaShape {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    version: Option<Value>,
    #[serde(rename = "progressToken")]
    progress_token: Option<Value>,
}

impl ParamsProbe {
    /// Reads the few members the transport looks at; anything unreadable is left to the
    /// params validator (`-32602`). Only `_meta`, `name`, `uri` and `taskId` are parsed: the rest (a
    /// tool's arguments, however long) is walked over, not read. Params that are an array
    /// give nothing (MCP params are objects; a `serde` derive would read them by position).
    pub(crate) fn read(params: Option<&RawValue>) -> Self {
        let Some([meta, name, uri, task_id]) =
            params.and_then(|raw| find_members(raw.get(), ["_meta", "name", "uri", "taskId"]))
        else {
            return Self::default();
        };
        let parse = |raw: Option<&str>| match raw {
            Some(raw) => serde_json::from_str::<Option<Value>>(raw).ok(),
            None => Some(None),
        };
        let meta = match meta {
            Some(raw) => match serde_json::from_str::<Option<MetaShape>>(raw) {
                Ok(meta) => meta,
                Err(_) => return Self::default(),
            },
            None => None,
        };
        let (Some(name), Some(uri), Some(task_id)) = (parse(name), parse(uri), parse(task_id))
        else {
            return Self::default();
        };
        let as_string = |value: Option<Value>| match value {
            Some(Value::String(text)) => Some(text),
            _ => None,
        };
        let (version, wants_progress) = match meta {
            Some(meta) => (as_string(meta.version), meta.progress_token.is_some()),
            None => (None, false),
        };
        Self {
            version,
            wants_progress,
            name: as_string(name),
            uri: as_string(uri),
            task_id: as_string(task_id),
        }
    }
}

/// Whether a POST without a session belongs to the 2026-07-28 era: its body names a version
/// in `_meta`, or its `MCP-Protocol-Version` header is not a 2025 version, or it is
/// `server/discover`.
pub(crate) fn is_modern(headers: &HeaderMap, method: &str, probe: &ParamsProbe) -> bool {
    if probe.version.is_some() || method == "server/discover" {
        return true;
    }
    match single(headers, &MCP_PROTOCOL_VERSION) {
        Ok(Some(version)) => !LEGACY_VERSIONS.contains(&version),
        Ok(None) => false,
        Err(()) => true,
    }
}

/// Checks the headers of a 2026-07-28 request against its body: `-32020` when a required
/// header is missing, repeated or differs from the body. A body without the value is left
/// to the params validator.
pub(crate) fn check_headers(
    headers: &HeaderMap,
    method: &str,
    probe: &ParamsProbe,
) -> Result<(), ErrorObject<'static>> {
    let version = single(headers, &MCP_PROTOCOL_VERSION)
        .map_err(|()| mismatch("the MCP-Protocol-Version header is malformed or repeated"))?
        .ok_or_else(|| mismatch("the MCP-Protocol-Version header is required"))?;
    if probe.version.as_deref().is_some_and(|body| body != version) {
        return Err(mismatch(
            "the MCP-Protocol-Version header does not match params._meta[\"io.modelcontextprotocol/protocolVersion\"]",
        ));
    }
    let header_method = single(headers, &MCP_METHOD)
        .map_err(|()| mismatch("the Mcp-Method header is malformed or repeated"))?
        .ok_or_else(|| mismatch("the Mcp-Method header is required"))?;
    if header_method != method {
        return Err(mismatch("the Mcp-Method header does not match the method"));
    }
    let body_name = match method {
        "tools/call" | "prompts/get" => probe.name.as_deref(),
        "resources/read" => probe.uri.as_deref(),
        "tasks/get" | "tasks/update" | "tasks/cancel" => probe.task_id.as_deref(),
        _ => None,
    };
    if let Some(body_name) = body_name {
        let header_name = single(headers, &MCP_NAME)
            .map_err(|()| mismatch("the Mcp-Name header is malformed or repeated"))?
            .ok_or_else(|| mismatch("the Mcp-Name header is required for this method"))?;
        if header_name != body_name {
            return Err(mismatch("the Mcp-Name header does not match the params"));
        }
    }
    Ok(())
}

fn mismatch(message: &'static str) -> ErrorObject<'static> {
    ErrorObject::new(ErrorCode::HEADER_MISMATCH, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn headers_must_match_the_body() {
        let params = raw(
            r#"{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":1}}"#,
        );
        let probe = ParamsProbe::read(Some(&params));
        assert!(probe.wants_progress);
        let good = headers(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "  echo "),
        ]);
        assert!(check_headers(&good, "tools/call", &probe).is_ok());
        for bad in [
            headers(&[("mcp-method", "tools/call"), ("mcp-name", "echo")]),
            headers(&[("mcp-protocol-version", "2026-07-28"), ("mcp-name", "echo")]),
            headers(&[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
            ]),
            headers(&[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "TOOLS/CALL"),
                ("mcp-name", "echo"),
            ]),
            headers(&[
                ("mcp-protocol-version", "2025-11-25"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "echo"),
            ]),
            headers(&[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "other"),
            ]),
        ] {
            let error = check_headers(&bad, "tools/call", &probe).unwrap_err();
            assert_eq!(error.code, ErrorCode::HEADER_MISMATCH);
        }
    }

    #[test]
    fn modern_requests_are_recognised() {
        let none = ParamsProbe::default();
        assert!(is_modern(&HeaderMap::new(), "server/discover", &none));
        assert!(!is_modern(&HeaderMap::new(), "initialize", &none));
        let legacy = headers(&[("mcp-protocol-version", "2025-11-25")]);
        assert!(!is_modern(&legacy, "initialize", &none));
        let modern = headers(&[("mcp-protocol-version", "2026-07-28")]);
        assert!(is_modern(&modern, "initialize", &none));
        let by_position = raw(r#"[{"io.modelcontextprotocol/protocolVersion":"v9"},"echo",null]"#);
        let probe = ParamsProbe::read(Some(&by_position));
        assert!(probe.version.is_none() && probe.name.is_none());
        assert!(!is_modern(&legacy, "tools/list", &probe));
        let params = raw(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9"}}"#);
        assert!(is_modern(
            &legacy,
            "tools/list",
            &ParamsProbe::read(Some(&params))
        ));
    }
}
