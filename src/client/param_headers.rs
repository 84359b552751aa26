//! `Mcp-Param-*` headers, client side (SEP-2243, 2026-07-28 over HTTP): a tool argument
//! whose `inputSchema` property carries `x-mcp-header: NAME` is mirrored into the header
//! `Mcp-Param-NAME` on `tools/call`, literally when it is plain visible ASCII, otherwise as
//! `=?base64?…?=`. A tool whose annotations are invalid (not a header token, repeated,
//! on a property that is not a string, integer or boolean: SEP-2243 leaves `number` out) is left out of the tool
//! list, so it is never called with headers the server cannot check.

use std::collections::{HashMap, HashSet};

use base64::Engine as _;
use hyper::header::HeaderName;
use serde_json::Value;

use crate::generated::protocol::Tool;

/// The mirrored properties of every tool that has any, by tool name.
#[derive(Debug, Default)]
pub(crate) struct ParamHeaders {
    by_tool: HashMap<String, Vec<(String, HeaderName)>>,
    /// Whether a tool list was read.
    learned: bool,
}

impl ParamHeaders {
    /// Reads the annotations of `tools`, dropping (and logging) the tools whose annotations
    /// are invalid.
    pub(crate) fn learn(&mut self, tools: &mut Vec<Tool>) {
        self.learned = true;
        tools.retain(|tool| match annotations(tool) {
            Ok(headers) => {
                if headers.is_empty() {
                    self.by_tool.remove(&tool.name);
                } else {
                    self.by_tool.insert(tool.name.clone(), headers);
                }
                true
            }
            Err(reason) => {
                tracing::warn!(tool = %tool.name, reason, "tool left out: invalid x-mcp-header");
                false
            }
        });
    }

    /// Whether a tool list was read (the annotations are known).
    pub(crate) fn learned(&self) -> bool {
        self.learned
    }

    /// The headers of a call of `tool` with `arguments`.
    pub(crate) fn for_call(&self, tool: &str, arguments: &Value) -> Vec<(String, String)> {
        let Some(mirrored) = self.by_tool.get(tool) else {
            return Vec::new();
        };
        mirrored
            .iter()
            .filter_map(|(property, header)| {
                let text = encode(arguments.get(property)?)?;
                Some((header.as_str().to_owned(), text))
            })
            .collect()
    }
}

fn annotations(tool: &Tool) -> Result<Vec<(String, HeaderName)>, &'static str> {
    let Ok(schema) = serde_json::to_value(&tool.input_schema) else {
        return Ok(Vec::new());
    };
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    let mut headers = Vec::new();
    let mut seen = HashSet::new();
    for (property, definition) in properties {
        let Some(annotation) = definition.get("x-mcp-header") else {
            continue;
        };
        let name = annotation
            .as_str()
            .ok_or("the annotation is not a string")?;
        if name.is_empty() || !name.bytes().all(is_token_byte) {
            return Err("the annotation is not an HTTP header token");
        }
        if !seen.insert(name.to_ascii_lowercase()) {
            return Err("two properties use the same header");
        }
        let primitive = match definition.get("type") {
            None => true,
            Some(Value::String(kind)) => {
                matches!(kind.as_str(), "string" | "integer" | "boolean")
            }
            Some(_) => false,
        };
        if !primitive {
            return Err("the annotated property is not a string, integer or boolean");
        }
        let header = HeaderName::try_from(format!("mcp-param-{name}"))
            .map_err(|_| "the annotation is not an HTTP header token")?;
        headers.push((property.clone(), header));
    }
    Ok(headers)
}

/// RFC 9110 `tchar`.
fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// The header text of an argument: strings literally when safe, else Base64; numbers and
/// booleans as JSON; `None` (no header) for null and structured values.
fn encode(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => {
            let safe = text.bytes().all(|b| (0x20..0x7f).contains(&b))
                && !text.starts_with(' ')
                && !text.ends_with(' ');
            Some(if safe {
                text.clone()
            } else {
                let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
                format!("=?base64?{encoded}?=")
            })
        }
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_literal_when_safe_and_base64_otherwise() {
        assert_eq!(
            encode(&Value::from("us-west1")).as_deref(),
            Some("us-west1")
        );
        assert_eq!(
            encode(&Value::from("us west 1")).as_deref(),
            Some("us west 1")
        );
        assert_eq!(
            encode(&Value::from(" padded ")).as_deref(),
            Some("=?base64?IHBhZGRlZCA=?=")
        );
        assert_eq!(
            encode(&Value::from("Hello, 世界")).as_deref(),
            Some("=?base64?SGVsbG8sIOS4lueVjA==?=")
        );
        assert_eq!(encode(&Value::from(42)).as_deref(), Some("42"));
        assert_eq!(encode(&Value::from(false)).as_deref(), Some("false"));
        assert_eq!(encode(&Value::Null), None);
    }
}
