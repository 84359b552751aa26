//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865): a tool points at a
//! `ui://` HTML resource, which the host renders in a sandboxed iframe; the app talks to
//! the host over `postMessage` and may call the server's tools through it.
//!
//! On the server, an app is two things: its resource ([`ResourceDefinition::app`], MIME type
//! [`APP_MIME_TYPE`], `_meta.ui` from [`ResourceDefinition::app_ui`] for its sandbox's
//! origins and permissions), and the tools linked to it ([`ToolDefinition::app`], which
//! sets the tool's `_meta.ui.resourceUri`). A server with an app declares the extension;
//! the apps are shown only to a client that declared it too (with
//! `{"mimeTypes": ["text/html;profile=mcp-app"]}`, or no `mimeTypes`): for any other client
//! linked tools are listed without `_meta.ui`, and the app resources are neither listed nor
//! readable (`resources/read` answers resource-not-found), so a host that cannot render
//! them never sees them.
//!
//! **Visibility** (`_meta.ui.visibility`, [`ToolDefinition::app_meta`]): who may call a
//! tool, `["model", "app"]` when absent. A tool whose visibility lacks `"model"` (`["app"]`:
//! only the app calls it) is, for a client that does not render apps (which hands its tools
//! to a model), neither listed nor callable: `tools/call` answers `-32602` "unknown tool",
//! as for a tool that does not exist. A host that renders apps gets the tool with its
//! `visibility` and, as SEP-1865 asks of hosts, keeps it out of its model's tool list and
//! refuses an app's call of a tool whose visibility lacks `"app"`: both calls reach the
//! server the same way, so it cannot tell them apart.
//!
//! ```
//! use typed_mcp::mcp::apps::{UiResourceCsp, UiResourceMeta};
//! use typed_mcp::mcp::{McpServer, ResourceDefinition, ToolDefinition};
//! use typed_mcp::tools::ToolContext;
//!
//! let board = ResourceDefinition::app("ui://notes/board.html", "Notes board", "<!doctype html>...")
//!     .app_ui(UiResourceMeta {
//!         csp: Some(UiResourceCsp::default()), // no network: the secure default
//!         prefers_border: Some(true),
//!         ..UiResourceMeta::default()
//!     });
//! let show = ToolDefinition::new("show_board", |_ctx: ToolContext, _args: serde_json::Value| async move {
//!     Ok(serde_json::json!({"notes": []}))
//! })
//! .unwrap()
//! .app("ui://notes/board.html");
//! let server = McpServer::builder("notes", "1.0.0").resource(board).tool(show).build().unwrap();
//! # let _ = server;
//! ```
//!
//! The types of the `_meta` parts are generated from `schema/mcp/apps.json`.

use serde_json::{Map, Value};

use crate::generated::apps::validate;
pub use crate::generated::apps::{
    UiClientSettings, UiOrigins, UiPermission, UiResourceCsp, UiResourceMeta,
    UiResourcePermissions, UiResourceUri, UiToolMeta, UiToolVisibility,
};
use crate::generated::protocol::MetaObject;

use super::resources::ResourceDefinition;
use super::tools::ToolDefinition;
use super::McpError;

/// The extension's identifier, as both sides declare it under `capabilities.extensions`.
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML resource.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The `_meta` key of the extension's metadata on tools, resources and contents.
const UI_KEY: &str = "ui";

impl ResourceDefinition {
    /// An app: the HTML document `html` at `uri` (the `ui://` scheme), of MIME type
    /// [`APP_MIME_TYPE`]. Register it with
    /// [`McpServerBuilder::resource`](super::McpServerBuilder::resource) and link tools to it
    /// with [`ToolDefinition::app`]. The document is sent as it is: it must carry its
    /// scripts and styles inline, or declare where it loads them from
    /// ([`app_ui`](Self::app_ui), `csp.resourceDomains`).
    pub fn app(uri: impl Into<String>, name: impl Into<String>, html: impl Into<String>) -> Self {
        Self::text(uri, name, APP_MIME_TYPE, html)
    }

    /// Sets the app's `_meta.ui` (its sandbox's origins, permissions, domain, border), in
    /// `resources/list` and on the contents `resources/read` returns.
    #[must_use]
    pub fn app_ui(mut self, ui: UiResourceMeta) -> Self {
        let ui = serde_json::to_value(ui).unwrap_or_default();
        let meta = self
            .resource
            .meta
            .get_or_insert_with(|| MetaObject(Map::new()));
        let _previous = meta.0.insert(UI_KEY.to_owned(), ui);
        self
    }

    /// Whether this resource is an app (its MIME type is [`APP_MIME_TYPE`]).
    pub(crate) fn is_app(&self) -> bool {
        self.resource.mime_type.as_deref() == Some(APP_MIME_TYPE)
    }
}

impl<S> ToolDefinition<S> {
    /// Links the tool to the app at `resource_uri` (a `ui://` resource registered with
    /// [`ResourceDefinition::app`]): `tools/list` shows it as `_meta.ui.resourceUri` to
    /// clients that declared the extension, and a host renders the app when the tool is
    /// called. The server refuses to build when the URI names no app it has
    /// ([`McpError::InvalidApp`]).
    #[must_use]
    pub fn app(self, resource_uri: impl Into<String>) -> Self {
        self.app_meta(UiToolMeta {
            resource_uri: Some(UiResourceUri(resource_uri.into())),
            visibility: None,
        })
    }

    /// Links the tool to an app with the whole `_meta.ui` of the tool: the resource and who
    /// may call the tool (`visibility`: `["app"]` for a tool only the app calls).
    #[must_use]
    pub fn app_meta(mut self, ui: UiToolMeta) -> Self {
        let ui = serde_json::to_value(ui).unwrap_or_default();
        let meta = self.tool.meta.get_or_insert_with(|| MetaObject(Map::new()));
        let _previous = meta.0.insert(UI_KEY.to_owned(), ui);
        self
    }
}

/// The apps of one snapshot of the server's offer: what a client that did not declare the
/// extension is shown instead.
#[derive(Debug, Default)]
pub(crate) struct Apps {
    /// The URIs of the app resources.
    pub(crate) resources: std::collections::HashSet<String>,
    /// The tools as listed to a client without the extension (`_meta.ui` removed, app-only
    /// tools left out).
    pub(crate) plain_tools: Vec<crate::generated::protocol::Tool>,
    /// The tools only an app may call (`_meta.ui.visibility` without `"model"`): neither
    /// listed to nor callable by a client that does not render apps.
    pub(crate) app_only: std::collections::HashSet<String>,
}

impl Apps {
    /// The apps of `tools` and `resources`, checked: `None` when there is none.
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidApp`] when an app resource's URI is not `ui://`, its `_meta.ui`
    /// does not validate, or a tool's `_meta.ui` does not validate or names no app resource.
    pub(crate) fn of(
        tools: &[crate::generated::protocol::Tool],
        resources: &[ResourceDefinition],
    ) -> Result<Option<Self>, McpError> {
        let mut apps = Self::default();
        for resource in resources.iter().filter(|resource| resource.is_app()) {
            let name = &resource.resource.name;
            if validate::ui_resource_uri(&Value::String(resource.uri().to_owned())).is_err() {
                return Err(invalid(name, "an app's URI has the ui:// scheme"));
            }
            if let Some(ui) = ui_of(resource.resource.meta.as_ref()) {
                if validate::ui_resource_meta(ui).is_err() {
                    return Err(invalid(name, "the app's _meta.ui does not validate"));
                }
            }
            let _new = apps.resources.insert(resource.uri().to_owned());
        }
        let mut linked = false;
        for tool in tools {
            let Some(ui) = ui_of(tool.meta.as_ref()) else {
                apps.plain_tools.push(tool.clone());
                continue;
            };
            if validate::ui_tool_meta(ui).is_err() {
                return Err(invalid(&tool.name, "the tool's _meta.ui does not validate"));
            }
            let uri = ui.get("resourceUri").and_then(Value::as_str);
            if uri.is_some_and(|uri| !apps.resources.contains(uri)) {
                return Err(invalid(
                    &tool.name,
                    "the tool's _meta.ui.resourceUri names no app resource of the server",
                ));
            }
            linked = true;
            if app_only(ui) {
                let _new = apps.app_only.insert(tool.name.clone());
                continue;
            }
            let mut plain = tool.clone();
            if let Some(meta) = plain.meta.as_mut() {
                let _ui = meta.0.remove(UI_KEY);
            }
            if plain.meta.as_ref().is_some_and(|meta| meta.0.is_empty()) {
                plain.meta = None;
            }
            apps.plain_tools.push(plain);
        }
        Ok((linked || !apps.resources.is_empty()).then_some(apps))
    }
}

/// Whether a tool's `_meta.ui` keeps it from the model: a `visibility` without `"model"`
/// (SEP-1865: `["app"]`, a tool only the app calls; absent means `["model", "app"]`).
fn app_only(ui: &Value) -> bool {
    ui.get("visibility")
        .and_then(Value::as_array)
        .is_some_and(|visibility| !visibility.iter().any(|v| v.as_str() == Some("model")))
}

/// Whether a client that declared `client` (its `ClientCapabilities`) renders apps: it
/// declared the extension, with no `mimeTypes` or with [`APP_MIME_TYPE`] among them.
pub(crate) fn client_renders_apps(client: &Value) -> bool {
    let Some(settings) = client
        .get("extensions")
        .and_then(|extensions| extensions.get(APPS_EXTENSION))
        .and_then(Value::as_object)
    else {
        return false;
    };
    match settings.get("mimeTypes") {
        None => true,
        Some(Value::Array(types)) => types.iter().any(|t| t.as_str() == Some(APP_MIME_TYPE)),
        Some(_) => false,
    }
}

/// The apps of `sets` to hide from the client of this request: `None` when the server has
/// no app or the client renders them. `legacy` is the session's capabilities (2025
/// versions), `params` the request's (2026-07-28: its `_meta` declares them).
pub(crate) fn hidden<'s>(
    sets: &'s super::catalog::Sets,
    era: super::era::Era,
    legacy: impl FnOnce() -> Option<Value>,
    params: Option<&Value>,
) -> Option<&'s Apps> {
    let apps = sets.apps.as_ref()?;
    let renders = match era {
        super::era::Era::Legacy(_) => legacy().is_some_and(|client| client_renders_apps(&client)),
        super::era::Era::Modern => params
            .and_then(|params| params.get("_meta"))
            .and_then(|meta| meta.get(CLIENT_CAPABILITIES_KEY))
            .is_some_and(client_renders_apps),
    };
    (!renders).then_some(apps)
}

/// `-32602` "unknown tool" (the answer for a tool that does not exist) for a call of an
/// app-only tool from a client that declared `client` (its `ClientCapabilities`) and does
/// not render apps: such a client hands its tools to a model, which must not see the tool.
/// A host that renders apps gets the tool with its `visibility`, and keeps it from its
/// model itself (SEP-1865): the server cannot tell a model's call from an app's.
pub(crate) fn check_callable(
    sets: &super::catalog::Sets,
    tool: &str,
    client: &Value,
) -> Result<(), crate::jsonrpc::ErrorObject<'static>> {
    let hidden = sets
        .apps
        .as_ref()
        .is_some_and(|apps| apps.app_only.contains(tool) && !client_renders_apps(client));
    if hidden {
        return Err(super::tool_call::unknown_tool());
    }
    Ok(())
}

/// Where a 2026-07-28 request declares the client's capabilities.
const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// An app's contents as `resources/read` returns them: each carries the resource's
/// `_meta.ui` unless its reader set its own.
pub(crate) fn with_ui_meta(
    mut contents: Vec<crate::generated::protocol::ResourceContents>,
    meta: Option<&MetaObject>,
) -> Vec<crate::generated::protocol::ResourceContents> {
    use crate::generated::protocol::ResourceContents;
    let Some(ui) = ui_of(meta) else {
        return contents;
    };
    for content in &mut contents {
        let own = match content {
            ResourceContents::TextResourceContents(text) => &mut text.meta,
            ResourceContents::BlobResourceContents(blob) => &mut blob.meta,
        };
        let own = own.get_or_insert_with(|| MetaObject(Map::new()));
        let _kept = own.0.entry(UI_KEY.to_owned()).or_insert_with(|| ui.clone());
    }
    contents
}

fn ui_of(meta: Option<&MetaObject>) -> Option<&Value> {
    meta.and_then(|meta| meta.0.get(UI_KEY))
}

fn invalid(name: &str, reason: &'static str) -> McpError {
    McpError::InvalidApp {
        name: name.to_owned(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_client_renders_apps_only_when_it_declared_the_extension_for_html() {
        assert!(client_renders_apps(
            &json!({"extensions": {APPS_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}})
        ));
        assert!(client_renders_apps(
            &json!({"extensions": {APPS_EXTENSION: {}}})
        ));
        assert!(!client_renders_apps(&json!({})));
        assert!(!client_renders_apps(&json!({"extensions": {}})));
        assert!(!client_renders_apps(
            &json!({"extensions": {APPS_EXTENSION: {"mimeTypes": ["text/html"]}}})
        ));
        assert!(!client_renders_apps(
            &json!({"extensions": {APPS_EXTENSION: true}})
        ));
    }

    fn tool(meta: Option<Value>) -> crate::generated::protocol::Tool {
        serde_json::from_value(json!({
            "name": "show",
            "inputSchema": {"type": "object"},
            "_meta": meta,
        }))
        .map(|mut tool: crate::generated::protocol::Tool| {
            if tool.meta.as_ref().is_some_and(|m| m.0.is_empty()) {
                tool.meta = None;
            }
            tool
        })
        .unwrap()
    }

    #[test]
    fn linked_tools_lose_their_ui_meta_for_plain_clients() {
        let resources = [ResourceDefinition::app("ui://a/b.html", "b", "<p>")];
        let linked = tool(Some(
            json!({"ui": {"resourceUri": "ui://a/b.html"}, "other": 1}),
        ));
        let apps = Apps::of(&[linked], &resources).unwrap().unwrap();
        assert_eq!(apps.plain_tools[0].meta.as_ref().unwrap().0.len(), 1);
        assert!(apps.resources.contains("ui://a/b.html"));
    }

    #[test]
    fn a_link_to_no_app_or_a_non_ui_uri_is_refused() {
        let dangling = tool(Some(json!({"ui": {"resourceUri": "ui://a/none.html"}})));
        let error = Apps::of(&[dangling], &[]).unwrap_err();
        assert!(matches!(error, McpError::InvalidApp { .. }), "{error}");
        let wrong = [ResourceDefinition::app("https://a/b.html", "b", "<p>")];
        let error = Apps::of(&[], &wrong).unwrap_err();
        assert!(error.to_string().contains("ui://"), "{error}");
        assert!(Apps::of(&[tool(None)], &[]).unwrap().is_none());
    }
}
