//! Changing a server's tools, resources, resource templates and prompts while it serves.
//!
//! Every change applies to the server and all its clones, on every transport: requests
//! that start afterwards see it, requests already running keep the offer they started
//! with. Each change that takes effect sends `notifications/{tools,resources,prompts}/list_changed`
//! to every interested client: each initialized 2025 connection (stdio, or an HTTP
//! session's GET stream), and each 2026-07-28 `subscriptions/listen` stream that asked for
//! it. The capabilities follow the offer: a server that gains its first prompt declares
//! `prompts` to clients that connect (or `server/discover`) afterwards.

use super::builder::McpServer;
use super::prompts::PromptDefinition;
use super::resource_templates::ResourceTemplateDefinition;
use super::resources::ResourceDefinition;
use super::subscriptions::ListKind;
use super::tools::ToolDefinition;
use super::McpError;

impl McpServer {
    /// Adds a tool while serving and announces the change. A tool taking a state
    /// (see [`ToolDefinition::new`]) is given it first with [`ToolDefinition::bind`].
    ///
    /// # Errors
    ///
    /// [`McpError::DuplicateName`] when a tool of this name exists; [`McpError::Cache`]
    /// when the tool is cacheable and the result cache cannot be built. The offer is then
    /// unchanged.
    pub async fn add_tool(&self, tool: ToolDefinition) -> Result<(), McpError> {
        self.change(ListKind::Tools, |definitions| {
            definitions.tools.push(tool.bind(std::sync::Arc::new(())));
            Ok(true)
        })
        .await
    }

    /// Removes the tool called `name` and announces the change; `false` if there is none.
    pub async fn remove_tool(&self, name: &str) -> bool {
        self.removal(ListKind::Tools, |definitions| {
            remove_where(&mut definitions.tools, |tool| tool.name() == name)
        })
        .await
    }

    /// Adds a resource while serving and announces the change.
    /// ```
    /// # tokio_test::block_on(async {
    /// use typed_mcp::mcp::{McpServer, ResourceDefinition};
    ///
    /// let server = McpServer::builder("example", "1.0.0").build().unwrap();
    /// let notes = ResourceDefinition::text("demo://notes", "notes", "text/plain", "none yet");
    /// server.add_resource(notes.clone()).await.unwrap();
    /// assert!(server.add_resource(notes).await.is_err(), "the URI is taken");
    /// assert!(server.remove_resource("demo://notes").await);
    /// assert!(!server.remove_resource("demo://notes").await);
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// [`McpError::DuplicateName`] when its URI is taken, [`McpError::InvalidResourceUri`]
    /// when the server's URI policy refuses it.
    pub async fn add_resource(&self, resource: ResourceDefinition) -> Result<(), McpError> {
        self.change(ListKind::Resources, |definitions| {
            definitions.resources.push(resource);
            Ok(true)
        })
        .await
    }

    /// Removes the resource at `uri` and announces the change; `false` if there is none.
    pub async fn remove_resource(&self, uri: &str) -> bool {
        self.removal(ListKind::Resources, |definitions| {
            remove_where(&mut definitions.resources, |resource| resource.uri() == uri)
        })
        .await
    }

    /// Adds a resource template while serving and announces the change (as a change of
    /// the resources).
    ///
    /// # Errors
    ///
    /// [`McpError::DuplicateName`] when a template of this name exists.
    pub async fn add_resource_template(
        &self,
        template: ResourceTemplateDefinition,
    ) -> Result<(), McpError> {
        self.change(ListKind::Resources, |definitions| {
            definitions.templates.push(template);
            Ok(true)
        })
        .await
    }

    /// Removes the resource template called `name` and announces the change; `false` if
    /// there is none.
    pub async fn remove_resource_template(&self, name: &str) -> bool {
        self.removal(ListKind::Resources, |definitions| {
            remove_where(&mut definitions.templates, |template| {
                template.template.name == name
            })
        })
        .await
    }

    /// Adds a prompt while serving and announces the change.
    ///
    /// # Errors
    ///
    /// [`McpError::DuplicateName`] when a prompt of this name exists.
    pub async fn add_prompt(&self, prompt: PromptDefinition) -> Result<(), McpError> {
        self.change(ListKind::Prompts, |definitions| {
            definitions.prompts.push(prompt);
            Ok(true)
        })
        .await
    }

    /// Removes the prompt called `name` and announces the change; `false` if there is none.
    pub async fn remove_prompt(&self, name: &str) -> bool {
        self.removal(ListKind::Prompts, |definitions| {
            remove_where(&mut definitions.prompts, |prompt| prompt.name() == name)
        })
        .await
    }

    async fn change(
        &self,
        kind: ListKind,
        edit: impl FnOnce(&mut super::catalog::Definitions) -> Result<bool, McpError>,
    ) -> Result<(), McpError> {
        if self.state.catalog.edit(edit)? {
            let notified = self.state.subscriptions.notify_list_changed(kind).await;
            tracing::debug!(?kind, notified, "list changed");
        }
        Ok(())
    }

    async fn removal(
        &self,
        kind: ListKind,
        edit: impl FnOnce(&mut super::catalog::Definitions) -> bool,
    ) -> bool {
        let mut removed = false;
        let outcome = self
            .change(kind, |definitions| {
                removed = edit(definitions);
                Ok(removed)
            })
            .await;
        // Removing never breaks a rule the remaining definitions kept.
        outcome.is_ok() && removed
    }
}

fn remove_where<T>(items: &mut Vec<T>, matches: impl Fn(&T) -> bool) -> bool {
    let before = items.len();
    items.retain(|item| !matches(item));
    items.len() != before
}
