//! `Mcp-Param-*` headers (SEP-2243): a tool argument whose schema property carries
//! `x-mcp-header: NAME` is mirrored by the client into the header `Mcp-Param-NAME`, literally
//! or as `=?base64?...?=`; the server checks the two agree (`-32020` otherwise).

use std::collections::HashMap;

use axum::http::{HeaderMap, HeaderName};
use base64::Engine as _;
use serde_json::{Map, Value};

use crate::generated::protocol::Tool;
use crate::jsonrpc::{ErrorCode, ErrorObject};

use super::headers::single;

/// One mirrored argument: the property and its header.
#[derive(Debug, Clone)]
pub(crate) struct ParamHeader {
    property: String,
    header: HeaderName,
}

/// The mirrored arguments of every tool that has any, by tool name.
#[derive(Debug, Default)]
pub(crate) struct ParamHeaders {
    by_tool: HashMap<String, Vec<ParamHeader>>,
}

impl ParamHeaders {
    /// Reads `x-mcp-header` from each tool's `inputSchema.properties`. A header name that is
    /// not a valid HTTP header name is skipped (and logged): no client could send it.
    pub(crate) fn from_tools(tools: &[Tool]) -> Self {
        let mut by_tool = HashMap::new();
        for tool in tools {
            let Ok(Value::Object(schema)) = serde_json::to_value(&tool.input_schema) else {
                continue;
            };
            let Some(Value::Object(properties)) = schema.get("properties") else {
                continue;
            };
            let mut headers = Vec::new();
            for (property, definition) in properties {
                let Some(Value::String(name)) = definition.get("x-mcp-header") else {
                    continue;
                };
                match HeaderName::try_from(format!("mcp-param-{name}")) {
                    Ok(header) => headers.push(ParamHeader {
                        property: property.clone(),
                        header,
                    }),
                    Err(_) => tracing::warn!(
                        tool = %tool.name,
                        property = %property,
                        "x-mcp-header is not a valid header name: ignored"
                    ),
                }
            }
            if !headers.is_empty() {
                let _previous = by_tool.insert(tool.name.clone(), headers);
            }
        }
        Self { by_tool }
    }

    /// Whether the tool mirrors any argument into a header.
    pub(crate) fn has(&self, tool: &str) -> bool {
        self.by_tool.contains_key(tool)
    }

    /// Checks the headers of a `tools/call` of `tool` against its `arguments`.
    pub(crate) fn check(
        &self,
        tool: &str,
        arguments: Option<&Map<String, Value>>,
        headers: &HeaderMap,
    ) -> Result<(), ErrorObject<'static>> {
        let Some(mirrored) = self.by_tool.get(tool) else {
            return Ok(());
        };
        for param in mirrored {
            let expected = arguments.and_then(|arguments| arguments.get(&param.property));
            let sent = single(headers, &param.header)
                .map_err(|()| mismatch("an Mcp-Param header is malformed or repeated"))?;
            match (expected.and_then(header_text), sent) {
                // An absent argument is the validator's business.
                (None, _) => {}
                (Some(_), None) => {
                    return Err(mismatch("a required Mcp-Param header is missing"));
                }
                (Some(value), Some(sent)) => {
                    if decode(sent)? != value {
                        return Err(mismatch(
                            "an Mcp-Param header does not match the argument it mirrors",
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The text a client puts in the header for an argument value (strings as they are,
/// numbers and booleans as JSON); `None` for other kinds.
fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// A header value: `=?base64?B64?=` decoded (strict: standard alphabet, padded), anything
/// else literal.
fn decode(sent: &str) -> Result<String, ErrorObject<'static>> {
    let wrapped = sent
        .get(..9)
        .filter(|prefix| prefix.eq_ignore_ascii_case("=?base64?"))
        .and_then(|_| sent[9..].strip_suffix("?="));
    let Some(encoded) = wrapped else {
        return Ok(sent.to_owned());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| mismatch("an Mcp-Param header is not valid Base64"))?;
    String::from_utf8(bytes).map_err(|_| mismatch("an Mcp-Param header does not decode to UTF-8"))
}

fn mismatch(message: &'static str) -> ErrorObject<'static> {
    ErrorObject::new(ErrorCode::HEADER_MISMATCH, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_values_are_decoded_strictly_and_others_are_literal() {
        assert_eq!(decode("=?base64?SGVsbG8=?=").unwrap(), "Hello");
        assert_eq!(decode("=?BASE64?SGVsbG8=?=").unwrap(), "Hello");
        assert!(decode("=?base64?SGVsbG8?=").is_err());
        assert!(decode("=?base64?SGVs!!!bG8=?=").is_err());
        assert_eq!(decode("SGVsbG8=").unwrap(), "SGVsbG8=");
        assert_eq!(decode("=?base64?SGVsbG8=").unwrap(), "=?base64?SGVsbG8=");
    }
}
