//! The server builder and the entry points that serve a connection.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};

use super::dispatch::Connection;
use super::prompts::PromptDefinition;
use super::resource_templates::ResourceTemplateDefinition;
use super::resources::{ResourceDefinition, UriPolicy};
use super::tools::ToolDefinition;
use super::McpError;
use crate::cache::Cache;
use crate::generated::limits::Limits;
use crate::generated::protocol::{CacheScope, Implementation, OpenObject};
use crate::jsonrpc::BatchPolicy;
use crate::server::{serve, ServeOptions, SharedBatchPolicy, ShutdownReport};
use crate::tools::ToolRunner;

/// Default `ttlMs` of the modern era's list, read and discover results: one minute.
pub const DEFAULT_TTL_MS: u64 = 60_000;

/// The cache hints (`ttlMs`, `cacheScope`) of modern-era results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// How long the client may reuse a result, in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl Default for CacheHints {
    fn default() -> Self {
        Self {
            ttl_ms: DEFAULT_TTL_MS,
            scope: CacheScope::Public,
        }
    }
}

/// Builds an [`McpServer`].
///
/// ```
/// use typed_mcp::mcp::{McpServer, PromptDefinition, ResourceDefinition, user_text};
///
/// let server = McpServer::builder("example", "1.0.0")
///     .instructions("Reads one file.")
///     .resource(ResourceDefinition::text("demo://readme", "readme", "text/plain", "hello"))
///     .prompt(PromptDefinition::new("greet", "Greets someone.", |args| {
///         Ok(vec![user_text(format!("Hello, {}!", args.get("name").map_or("you", String::as_str)))])
///     }))
///     .build()
///     .unwrap();
/// assert_eq!(server.name(), "example");
/// ```
///
/// `S` is the state its tools share ([`McpServerBuilder::state`]; `()` for none).
#[must_use]
pub struct McpServerBuilder<S = ()> {
    state: Arc<S>,
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<ToolDefinition>,
    resources: Vec<ResourceDefinition>,
    templates: Vec<ResourceTemplateDefinition>,
    prompts: Vec<PromptDefinition>,
    limits: Limits,
    uri_policy: UriPolicy,
    hints: CacheHints,
    serve_options: ServeOptions,
    keys: Option<crate::secrets::KeySet>,
    /// The declared extensions, checked by `build`.
    extensions: Vec<(String, serde_json::Map<String, serde_json::Value>)>,
    tasks: Option<super::tasks::TaskOptions>,
    /// The skills (the Skills extension).
    #[cfg(feature = "skills")]
    skills: Vec<super::skills::SkillDefinition>,
}

impl<S> std::fmt::Debug for McpServerBuilder<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServerBuilder")
            .field("info", &self.info)
            .field("tools", &self.tools)
            .field("resources", &self.resources)
            .field("templates", &self.templates)
            .field("prompts", &self.prompts)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl McpServerBuilder {
    fn new(name: String, version: String) -> Self {
        Self {
            state: Arc::new(()),
            info: Implementation {
                description: None,
                icons: None,
                name,
                title: None,
                version,
                website_url: None,
                extra: serde_json::Map::new(),
            },
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            limits: Limits::default(),
            uri_policy: UriPolicy::any(),
            hints: CacheHints::default(),
            serve_options: ServeOptions::default(),
            keys: None,
            extensions: Vec::new(),
            tasks: None,
            #[cfg(feature = "skills")]
            skills: Vec::new(),
        }
    }

    /// Gives the server a state shared by its tools: a tool whose handler takes the state
    /// ([`ToolDefinition::new`] with an `Arc<S>` or `&S` first parameter) gets it on every
    /// call. Call it before adding such tools:
    /// from here on the builder takes the tools of this state type.
    pub fn state<S: Send + Sync + 'static>(self, state: S) -> McpServerBuilder<S> {
        McpServerBuilder {
            state: Arc::new(state),
            info: self.info,
            instructions: self.instructions,
            tools: self.tools,
            resources: self.resources,
            templates: self.templates,
            prompts: self.prompts,
            limits: self.limits,
            uri_policy: self.uri_policy,
            hints: self.hints,
            serve_options: self.serve_options,
            keys: self.keys,
            extensions: self.extensions,
            #[cfg(feature = "skills")]
            skills: self.skills,
            tasks: self.tasks,
        }
    }
}

impl<S> McpServerBuilder<S> {
    /// Guidance for the model, sent in `initialize` and `server/discover` results.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Adds a tool (a tool taking the state gets the builder's, see
    /// [`McpServerBuilder::state`]).
    pub fn tool(mut self, tool: ToolDefinition<S>) -> Self {
        self.tools.push(tool.bind(Arc::clone(&self.state)));
        self
    }

    /// Adds a resource (its URI is checked by [`build`](Self::build)).
    pub fn resource(mut self, resource: ResourceDefinition) -> Self {
        self.resources.push(resource);
        self
    }

    /// Adds a resource template (RFC 6570): `resources/read` of a URI that matches it, and
    /// is no fixed resource, is read by the template's reader.
    pub fn resource_template(mut self, template: ResourceTemplateDefinition) -> Self {
        self.templates.push(template);
        self
    }

    /// Adds a prompt.
    pub fn prompt(mut self, prompt: PromptDefinition) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// The runtime limits: timeouts, response size, request shape, result cache, line size.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Restricts resource URIs (on registration and on `resources/read`).
    pub fn uri_policy(mut self, policy: UriPolicy) -> Self {
        self.uri_policy = policy;
        self
    }

    /// The cache hints of modern-era list, read and discover results.
    pub fn cache_hints(mut self, hints: CacheHints) -> Self {
        self.hints = hints;
        self
    }

    /// Options of the request loop (in-flight bound, grace period, signals). The line limit
    /// is taken from the limits and the batch policy is managed per connection.
    pub fn serve_options(mut self, options: ServeOptions) -> Self {
        self.serve_options = options;
        self
    }

    /// The keys that seal the tokens the server issues (list cursors, `requestState`); they
    /// win over the environment and the limits' `secrets` (see [`crate::secrets`]). Give
    /// every instance of a cluster the same set.
    pub fn keys(mut self, keys: crate::secrets::KeySet) -> Self {
        self.keys = Some(keys);
        self
    }

    /// Declares a protocol extension (`capabilities.extensions`, in `initialize` and
    /// `server/discover` alike) under its identifier, with its settings (an empty map for
    /// none). A tool uses an extension only when the client declared it too
    /// ([`ToolContext::extension`](crate::tools::ToolContext::extension)). Declaring an
    /// identifier again replaces its settings.
    ///
    /// ```
    /// use typed_mcp::mcp::McpServer;
    ///
    /// let server = McpServer::builder("example", "1.0.0")
    ///     .extension("com.example/notes-board", serde_json::Map::new())
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// let refused = McpServer::builder("example", "1.0.0")
    ///     .extension("notes-board", serde_json::Map::new())
    ///     .build();
    /// assert!(refused.is_err(), "an identifier needs its prefix");
    /// ```
    pub fn extension(
        mut self,
        id: impl Into<String>,
        settings: serde_json::Map<String, serde_json::Value>,
    ) -> Self {
        self.extensions.push((id.into(), settings));
        self
    }

    /// How the server keeps tasks (the Tasks extension, for tools with
    /// [`ToolDefinition::task_support`]): the store, the TTL, the poll interval. Without
    /// it, the limits' `tasks` section decides ([`TaskOptions::from_limits`]: in memory,
    /// 10 minutes, 500 ms by default; `tasks.store: redis` for a cluster).
    ///
    /// [`TaskOptions::from_limits`]: super::tasks::TaskOptions::from_limits
    pub fn tasks(mut self, options: super::tasks::TaskOptions) -> Self {
        self.tasks = Some(options);
        self
    }

    /// Publishes a skill (the Skills extension, [`skills`](super::skills), feature `skills`):
    /// its files become resources (`skill://<skill-path>/<file-path>`), and the server
    /// declares the extension (`{"directoryRead": true}`) and answers `skills/list`,
    /// `skills/get` and `resources/directory/read`. The skill is checked by
    /// [`build`](Self::build).
    #[cfg(feature = "skills")]
    pub fn skill(mut self, skill: super::skills::SkillDefinition) -> Self {
        self.skills.push(skill);
        self
    }

    /// Builds the server. Within a tokio runtime the result cache (used when a tool is
    /// cacheable) gets its cleanup task; outside one, expired entries are dropped on lookup.
    ///
    /// # Errors
    ///
    /// Duplicate tool, resource or prompt names, a resource URI the policy refuses, or
    /// cache limits that do not validate, an extension identifier that breaks the `_meta`
    /// key rule ([`McpError::InvalidExtensionId`]), a task store the limits' `tasks` name
    /// that cannot be set up ([`McpError::Tasks`]); [`McpError::Keys`] when no key set was given
    /// ([`keys`](Self::keys)) and the configured one ([`KeySet::configured`]: environment,
    /// then `secrets.keysFile`) cannot be read, or none is configured and the operating
    /// system gives no randomness for a random one.
    ///
    /// [`KeySet::configured`]: crate::secrets::KeySet::configured
    pub fn build(self) -> Result<McpServer, McpError> {
        let keys = match self.keys {
            Some(keys) => keys,
            None => crate::secrets::KeySet::configured(&self.limits).map_err(McpError::Keys)?,
        };
        #[cfg(feature = "skills")]
        let (skills, resources, skills_extension) = {
            let mut resources = self.resources;
            if self.skills.is_empty() {
                (None, resources, None)
            } else {
                let (set, files) = super::skills::set::compile(&self.skills)?;
                resources.extend(files);
                let mut settings = serde_json::Map::new();
                let _none = settings.insert("directoryRead".to_owned(), true.into());
                let extension = (super::skills::SKILLS_EXTENSION.to_owned(), settings);
                (Some(Arc::new(set)), resources, Some(extension))
            }
        };
        #[cfg(not(feature = "skills"))]
        let (resources, skills_extension) = (self.resources, None);
        let definitions = super::catalog::Definitions {
            tools: self.tools,
            resources,
            templates: self.templates,
            prompts: self.prompts,
        };
        let mut extensions = super::extensions::Declared::new();
        for (id, settings) in self.extensions.into_iter().chain(skills_extension) {
            let id = super::extensions::extension_id(id)?;
            let _replaced = extensions.insert(id, OpenObject(settings));
        }
        let catalog = super::catalog::Catalog::new(
            definitions,
            ToolRunner::new(&self.limits),
            self.limits.cache.clone(),
            self.uri_policy,
            extensions,
        )?;
        let tasks = match self.tasks {
            Some(tasks) => tasks,
            None => super::tasks::TaskOptions::from_limits(&self.limits.tasks)
                .map_err(McpError::Tasks)?,
        };
        let from_limits = ServeOptions::from_limits(&self.limits);
        Ok(McpServer {
            #[cfg(feature = "http")]
            limits: Arc::new(self.limits.clone()),
            state: Arc::new(ServerState {
                info: self.info,
                instructions: self.instructions,
                subscriptions: super::subscriptions::Subscriptions::default(),
                state_key: keys,
                page_size: usize::try_from(self.limits.lists.page_size.get()).unwrap_or(usize::MAX),
                hints: self.hints,
                catalog,
                tasks: Arc::new(super::tasks::Tasks::new(tasks)),
                #[cfg(feature = "skills")]
                skills,
            }),
            serve_options: self
                .serve_options
                .max_line_bytes(from_limits.max_line_bytes_value())
                .max_depth(from_limits.max_depth_value())
                .max_queued_bytes(from_limits.max_queued_bytes_value()),
        })
    }
}

/// Everything the connections of a server share.
#[derive(Debug)]
pub(crate) struct ServerState {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) hints: CacheHints,
    pub(crate) subscriptions: super::subscriptions::Subscriptions,
    /// Seals the `requestState` of `input_required` results, and the list cursors.
    pub(crate) state_key: crate::secrets::KeySet,
    /// Largest number of items in one page of a list result.
    pub(crate) page_size: usize,
    /// The tools, resources and prompts, which may change while serving.
    pub(crate) catalog: super::catalog::Catalog,
    /// The tasks (the Tasks extension).
    pub(crate) tasks: Arc<super::tasks::Tasks>,
    /// The skills (the Skills extension), when the server has any.
    #[cfg(feature = "skills")]
    pub(crate) skills: Option<Arc<super::skills::set::SkillSet>>,
}

/// An MCP server speaking both protocol eras. Cheap to clone; clones share tools, limits and
/// the result cache, and every connection served gets its own session.
///
/// Built once with [`McpServer::builder`], then served over stdio
/// ([`serve_stdio`](Self::serve_stdio)), any byte stream ([`serve`](Self::serve)) or, with
/// the `http` feature, Streamable HTTP (`serve_http`, or `http_service` to mount in your own
/// axum `Router`), one or several at once:
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use serde_json::Value;
/// use typed_mcp::mcp::{McpServer, ToolDefinition};
/// use typed_mcp::tools::ToolContext;
///
/// let server = McpServer::builder("example", "1.0.0")
///     .instructions("Echoes what it is given.")
///     .tool(ToolDefinition::new("echo", |_ctx: ToolContext, args: Value| async move {
///         Ok(args)
///     })?)
///     .build()?;
/// // Protocol on stdout, logs on stderr; returns when stdin ends.
/// server.serve_stdio().await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct McpServer {
    pub(super) state: Arc<ServerState>,
    serve_options: ServeOptions,
    /// The limits the server was built with (the HTTP transport derives its options from
    /// them, see `crate::http`).
    #[cfg(feature = "http")]
    limits: Arc<Limits>,
}

impl McpServer {
    /// A builder for a server called `name`, at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> McpServerBuilder {
        McpServerBuilder::new(name.into(), version.into())
    }

    /// The server's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.state.info.name
    }

    /// The result cache, when a tool is cacheable (e.g. for its statistics).
    #[must_use]
    pub fn cache(&self) -> Option<&Cache> {
        self.state.catalog.cache()
    }

    /// Sends `notifications/resources/updated` for `uri` to every connection (stdio or HTTP
    /// session, 2025 versions) subscribed to it with `resources/subscribe`; returns how many
    /// were notified.
    pub async fn notify_resource_updated(&self, uri: &str) -> usize {
        self.state.subscriptions.notify_updated(uri).await
    }

    /// The limits the server was built with.
    #[cfg(feature = "http")]
    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }

    /// What every connection of the server shares.
    #[cfg(feature = "http")]
    pub(crate) fn shared(&self) -> &Arc<ServerState> {
        &self.state
    }

    /// The tool runner (e.g. for its statistics).
    #[must_use]
    pub fn tool_runner(&self) -> &ToolRunner {
        self.state.catalog.runner()
    }

    /// Serves one connection over `input` / `output` until the input ends (or a stop the
    /// serve options enable), then finishes the requests in flight and flushes.
    ///
    /// # Errors
    ///
    /// [`McpError::Serve`] when reading or writing fails.
    pub async fn serve<R, W>(&self, input: R, output: W) -> Result<ShutdownReport, McpError>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.serve_with(input, output, self.serve_options.clone())
            .await
    }

    /// Serves one connection over a single bidirectional stream (a socket, an in-memory
    /// `tokio::io::duplex`), split into its read and write halves.
    ///
    /// # Errors
    ///
    /// As [`McpServer::serve`].
    pub async fn serve_stream<S>(&self, stream: S) -> Result<ShutdownReport, McpError>
    where
        S: AsyncRead + AsyncWrite + Send + 'static,
    {
        let (input, output) = tokio::io::split(stream);
        self.serve(input, output).await
    }

    /// Serves stdin / stdout, stopping gracefully on SIGTERM / SIGINT too.
    ///
    /// When both are pipes (as when a client spawns the server) they are driven as
    /// non-blocking FIFOs (see [`crate::framing::stdio()`]). Otherwise tokio reads stdin on a
    /// thread a signal cannot interrupt: once this returns, end the runtime with
    /// `Runtime::shutdown_background` rather than waiting for that read (see
    /// `examples/demo_server.rs`).
    ///
    /// The reading loop runs as a task of its own (aborted if this future is dropped; a
    /// panic in it is resumed here), so on a worker of a multi-thread runtime, next to the
    /// tasks of the requests it starts, rather than on the caller's thread (`block_on`'s):
    /// a request's task then starts on the same worker, without waking another thread, and
    /// what the loop allocates for it is freed where it was allocated.
    ///
    /// # Errors
    ///
    /// As [`McpServer::serve`]; [`McpError::LoopCancelled`] if the runtime shuts down first.
    pub async fn serve_stdio(&self) -> Result<ShutdownReport, McpError> {
        let options = self.serve_options.clone().stop_on_signals(true);
        let (input, output, kind) = crate::framing::stdio();
        tracing::debug!(?kind, "serving stdio");
        let server = self.clone();
        let serving = tokio_util::task::AbortOnDropHandle::new(tokio::spawn(async move {
            server.serve_with(input, output, options).await
        }));
        match serving.await {
            Ok(served) => served,
            Err(error) => match error.try_into_panic() {
                Ok(panic) => std::panic::resume_unwind(panic),
                Err(_cancelled) => Err(McpError::LoopCancelled),
            },
        }
    }

    async fn serve_with<R, W>(
        &self,
        input: R,
        output: W,
        options: ServeOptions,
    ) -> Result<ShutdownReport, McpError>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let batches = SharedBatchPolicy::new(BatchPolicy::Reject);
        let options = options.batch_policy(batches.clone());
        let connection = Connection::new(Arc::clone(&self.state), batches);
        serve(input, output, connection, options)
            .await
            .map_err(McpError::Serve)
    }
}
