//! Protocol extensions (`capabilities.extensions`): what the server declares
//! ([`McpServerBuilder::extension`](super::McpServerBuilder::extension)), what a client
//! declares, and what both did.
//!
//! Both sides declare an extension under its identifier (`io.modelcontextprotocol/tasks`),
//! with a settings object (`{}`: no settings). The server declares its own in the
//! capabilities of `initialize` (2025 versions) and `server/discover` (2026-07-28); a client
//! declares its own in `initialize` (2025 versions, for the session) or in every request's
//! `_meta["io.modelcontextprotocol/clientCapabilities"]` (2026-07-28, for that request
//! only). An extension is *negotiated* for a request when both declared it: only then may
//! the server use it ([`ToolContext::extension`](crate::tools::ToolContext::extension)
//! answers `None` otherwise).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::generated::protocol::{validate, OpenObject};

/// The extensions one request may use: for each extension both sides declared, the
/// settings the client declared for it.
pub(crate) type Negotiated = Option<Arc<Map<String, Value>>>;

/// The extensions a server declares, as its capabilities carry them.
pub(crate) type Declared = BTreeMap<String, OpenObject>;

/// Checks an extension identifier with the generated validator of the schema's
/// `ExtensionId`.
///
/// # Errors
///
/// [`McpError::InvalidExtensionId`](super::McpError::InvalidExtensionId) naming it.
pub(crate) fn extension_id(id: String) -> Result<String, super::McpError> {
    if validate::extension_id(&Value::String(id.clone())).is_ok() {
        Ok(id)
    } else {
        Err(super::McpError::InvalidExtensionId { id })
    }
}

/// What `client` (a `ClientCapabilities` object) and `server` both declare: the client's
/// settings of each such extension. `None` when there is none, so a request that uses no
/// extension allocates nothing.
pub(crate) fn negotiate(server: Option<&Declared>, client: &Value) -> Negotiated {
    let server = server.filter(|declared| !declared.is_empty())?;
    let client = client.get("extensions")?.as_object()?;
    let both: Map<String, Value> = client
        .iter()
        .filter(|(id, settings)| settings.is_object() && server.contains_key(id.as_str()))
        .map(|(id, settings)| (id.clone(), settings.clone()))
        .collect();
    (!both.is_empty()).then(|| Arc::new(both))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn declared(ids: &[&str]) -> Declared {
        ids.iter()
            .map(|id| {
                (
                    extension_id((*id).to_owned()).unwrap(),
                    OpenObject(Map::new()),
                )
            })
            .collect()
    }

    #[test]
    fn identifiers_follow_the_meta_key_rule() {
        for good in [
            "io.modelcontextprotocol/tasks",
            "com.example/notes-board",
            "x/y",
            "org.example/a.b_c",
        ] {
            assert!(extension_id(good.to_owned()).is_ok(), "{good}");
        }
        for bad in [
            "tasks",
            "/tasks",
            "io./tasks",
            "io.example/",
            "1io/tasks",
            "io/tasks-",
            "io.-x/tasks",
            "",
        ] {
            let error = extension_id(bad.to_owned()).unwrap_err();
            assert!(
                matches!(&error, super::super::McpError::InvalidExtensionId { id } if id == bad),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn only_what_both_declare_is_negotiated() {
        let server = declared(&["io.modelcontextprotocol/tasks", "com.example/board"]);
        let client = json!({"extensions": {
            "io.modelcontextprotocol/tasks": {"mode": "poll"},
            "com.example/other": {},
        }});
        let both = negotiate(Some(&server), &client).unwrap();
        assert_eq!(
            Value::Object((*both).clone()),
            json!({"io.modelcontextprotocol/tasks": {"mode": "poll"}})
        );
    }

    #[test]
    fn nothing_is_negotiated_when_one_side_declares_nothing() {
        let server = declared(&["io.modelcontextprotocol/tasks"]);
        let client = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        assert!(negotiate(None, &client).is_none());
        assert!(negotiate(Some(&Declared::new()), &client).is_none());
        assert!(negotiate(Some(&server), &json!({})).is_none());
        assert!(negotiate(Some(&server), &json!({"extensions": {}})).is_none());
        // A settings value that is not an object declares nothing.
        let odd = json!({"extensions": {"io.modelcontextprotocol/tasks": true}});
        assert!(negotiate(Some(&server), &odd).is_none());
    }
}
