//! The server's tools, resources, resource templates and prompts, which may change while it
//! serves: every request works on one consistent snapshot ([`Sets`]); an edit builds the
//! next snapshot from the definitions and swaps it in, so requests already running keep
//! the one they started with.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

use super::prompts::{PromptDefinition, PromptSet};
use super::resource_templates::ResourceTemplateDefinition;
use super::resources::{ResourceDefinition, ResourceSet, UriPolicy};
use super::tool_call::ToolSet;
use super::tools::ToolDefinition;
use super::McpError;
use crate::cache::{Cache, CacheBuilder};
use crate::generated::limits::CacheLimits;
use crate::generated::protocol::{
    OpenObject, ServerCapabilities, ServerCapabilitiesPrompts, ServerCapabilitiesResources,
    ServerCapabilitiesTools,
};
use crate::tools::ToolRunner;

/// Everything that may be added or removed while serving.
#[derive(Debug, Clone, Default)]
pub(crate) struct Definitions {
    pub(crate) tools: Vec<ToolDefinition>,
    pub(crate) resources: Vec<ResourceDefinition>,
    pub(crate) templates: Vec<ResourceTemplateDefinition>,
    pub(crate) prompts: Vec<PromptDefinition>,
}

/// One snapshot of the server's offer, and the capabilities it declares.
#[derive(Debug)]
pub(crate) struct Sets {
    /// Counts the snapshots: a new number after every change.
    pub(crate) generation: u64,
    pub(crate) tools: ToolSet,
    pub(crate) resources: ResourceSet,
    pub(crate) prompts: PromptSet,
    /// What `initialize` and `server/discover` declare (2026-07-28 subscribes to
    /// resources and list changes through `subscriptions/listen`).
    pub(crate) capabilities: ServerCapabilities,
    /// The apps (the MCP Apps extension), when the offer has any.
    pub(crate) apps: Option<super::apps::Apps>,
}

/// The live offer of a server.
#[derive(Debug)]
pub(crate) struct Catalog {
    current: RwLock<Arc<Sets>>,
    /// Whether a tool of the current snapshot declares an answer bound: when none does, the
    /// request loop's question costs one load.
    answer_bounds: AtomicBool,
    /// Whether a tool of the current snapshot may be called on the reading task: when none
    /// may, the request loop's question costs one load.
    in_place_tools: AtomicBool,
    /// The definitions of the current snapshot; held while an edit builds the next one,
    /// so edits apply one at a time.
    definitions: Mutex<Definitions>,
    runner: ToolRunner,
    cache: OnceLock<Cache>,
    cache_limits: CacheLimits,
    policy: UriPolicy,
    /// The extensions the server declares (fixed for its life).
    extensions: super::extensions::Declared,
}

impl Catalog {
    /// The first snapshot.
    ///
    /// # Errors
    ///
    /// Duplicate names, a URI the policy refuses, cache limits that do not validate.
    pub(crate) fn new(
        definitions: Definitions,
        runner: ToolRunner,
        cache_limits: CacheLimits,
        policy: UriPolicy,
        extensions: super::extensions::Declared,
    ) -> Result<Self, McpError> {
        let catalog = Self {
            current: RwLock::new(Arc::new(Sets::empty(runner.clone()))),
            answer_bounds: AtomicBool::new(false),
            in_place_tools: AtomicBool::new(false),
            definitions: Mutex::new(Definitions::default()),
            runner,
            cache: OnceLock::new(),
            cache_limits,
            policy,
            extensions,
        };
        let first = catalog.build(&definitions, 0)?;
        *catalog
            .definitions
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = definitions;
        catalog.swap(first);
        Ok(catalog)
    }

    /// The current snapshot.
    pub(crate) fn current(&self) -> Arc<Sets> {
        Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The result cache, once a cacheable tool has been registered.
    pub(crate) fn cache(&self) -> Option<&Cache> {
        self.cache.get()
    }

    /// The tool runner.
    pub(crate) fn runner(&self) -> &ToolRunner {
        &self.runner
    }

    /// Applies `edit` to the definitions and, when it reports a change, swaps in the
    /// snapshot built from them. Returns whether anything changed.
    ///
    /// # Errors
    ///
    /// What `edit` returns, or what building the snapshot finds (the offer is then left
    /// as it was).
    pub(crate) fn edit(
        &self,
        edit: impl FnOnce(&mut Definitions) -> Result<bool, McpError>,
    ) -> Result<bool, McpError> {
        let mut definitions = self
            .definitions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut next = definitions.clone();
        if !edit(&mut next)? {
            return Ok(false);
        }
        let generation = self.current().generation + 1;
        let sets = self.build(&next, generation)?;
        *definitions = next;
        self.swap(sets);
        Ok(true)
    }

    /// Makes `sets` the current snapshot.
    fn swap(&self, sets: Sets) {
        let bounds = sets.tools.has_answer_bounds();
        let in_place = sets.tools.has_in_place_tools();
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(sets);
        self.answer_bounds.store(bounds, Ordering::Release);
        self.in_place_tools.store(in_place, Ordering::Release);
    }

    /// Whether a tool of the current snapshot may be called on the reading task (one load).
    pub(crate) fn has_in_place_tools(&self) -> bool {
        self.in_place_tools.load(Ordering::Acquire)
    }

    /// Whether a tool of the current snapshot declares an answer bound (one load).
    pub(crate) fn has_answer_bounds(&self) -> bool {
        self.answer_bounds.load(Ordering::Acquire)
    }

    fn build(&self, definitions: &Definitions, generation: u64) -> Result<Sets, McpError> {
        let mut by_name = crate::fast_map::FastMap::default();
        let mut list = Vec::new();
        for tool in &definitions.tools {
            let name: Arc<str> = tool.name().into();
            if by_name.insert(Arc::clone(&name), tool.clone()).is_some() {
                return Err(McpError::DuplicateName {
                    kind: "tool",
                    name: name.as_ref().to_owned(),
                });
            }
            list.push(tool.tool.clone());
        }
        if self.cache.get().is_none()
            && by_name.values().any(|tool| tool.entry.cache.is_cacheable())
        {
            let in_runtime = tokio::runtime::Handle::try_current().is_ok();
            let cache = CacheBuilder::from_limits(&self.cache_limits)
                .cleanup_task(in_runtime)
                .build()
                .map_err(McpError::Cache)?;
            // Edits are serialised: nobody set it in between.
            let _unset = self.cache.set(cache);
        }
        let answer_bounds = ToolSet::answer_bounds_of(&by_name, &self.runner);
        let tools = ToolSet {
            list,
            by_name,
            runner: self.runner.clone(),
            cache: self.cache.get().cloned(),
            answer_bounds,
        };
        let resources = ResourceSet::new(
            definitions.resources.clone(),
            definitions.templates.clone(),
            self.policy.clone(),
        )?;
        let prompts = PromptSet::new(definitions.prompts.clone())?;
        let apps = super::apps::Apps::of(&tools.list, &definitions.resources)?;
        let mut capabilities = capabilities(&tools, &resources, &prompts);
        let mut extensions = self.extensions.clone();
        if apps.is_some() {
            let _own = extensions
                .entry(super::apps::APPS_EXTENSION.to_owned())
                .or_insert_with(|| OpenObject(serde_json::Map::new()));
        }
        if tools.has_task_tools() {
            let _own = extensions
                .entry(super::tasks::TASKS_EXTENSION.to_owned())
                .or_insert_with(|| OpenObject(serde_json::Map::new()));
        }
        capabilities.extensions = (!extensions.is_empty()).then_some(extensions);
        Ok(Sets {
            generation,
            tools,
            resources,
            prompts,
            capabilities,
            apps,
        })
    }
}

impl Sets {
    fn empty(runner: ToolRunner) -> Self {
        Self {
            generation: 0,
            tools: ToolSet {
                list: Vec::new(),
                by_name: crate::fast_map::FastMap::default(),
                runner,
                cache: None,
                answer_bounds: Vec::new(),
            },
            resources: ResourceSet::default(),
            prompts: PromptSet::default(),
            capabilities: ServerCapabilities::default(),
            apps: None,
        }
    }
}

/// The capabilities of an offer: a feature is declared when the offer has any of it, with
/// list-change notifications (the offer may change while serving).
fn capabilities(
    tools: &ToolSet,
    resources: &ResourceSet,
    prompts: &PromptSet,
) -> ServerCapabilities {
    ServerCapabilities {
        // Prompt arguments and template variables can be completed (with no suggestions
        // where no completer is set).
        completions: (!prompts.is_empty() || !resources.templates.is_empty())
            .then(|| OpenObject(serde_json::Map::new())),
        experimental: None,
        extensions: None,
        // Tools may log (`ToolContext::log`); nothing is sent unless the client asks.
        logging: Some(OpenObject(serde_json::Map::new())),
        prompts: (!prompts.is_empty()).then_some(ServerCapabilitiesPrompts {
            list_changed: Some(true),
        }),
        resources: (!resources.is_empty()).then_some(ServerCapabilitiesResources {
            list_changed: Some(true),
            subscribe: Some(true),
        }),
        tools: (!tools.list.is_empty()).then_some(ServerCapabilitiesTools {
            list_changed: Some(true),
        }),
    }
}
