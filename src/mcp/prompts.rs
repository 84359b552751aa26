//! Prompts: `prompts/list` and `prompts/get` in both eras.

use std::collections::HashMap;
use std::sync::Arc;

use super::builder::CacheHints;
use super::era::Era;
use super::outbound::respond;
use super::pagination::Pager;
use super::params::{internal_error, invalid_params, violation};
use super::McpError;
use crate::generated::protocol::{
    ContentBlock, GetPromptResult, LegacyGetPromptResult, LegacyListPromptsResult,
    ListPromptsResult, Prompt, PromptArgument, PromptMessage, ResultType, Role, TextContent,
    TextContentType,
};
use crate::server::HandlerResult;

/// The arguments of a `prompts/get`, by name.
pub type PromptArguments = HashMap<String, String>;

/// How a prompt is rendered from its arguments.
pub type PromptRenderer =
    Arc<dyn Fn(&PromptArguments) -> Result<Vec<PromptMessage>, PromptError> + Send + Sync>;

/// The future of a prompt that asks the client while rendering.
pub type PromptFuture = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Vec<PromptMessage>, PromptError>> + Send>,
>;

/// How a prompt that may ask the client is rendered.
pub type AskingPromptRenderer =
    Arc<dyn Fn(PromptContext, PromptArguments) -> PromptFuture + Send + Sync>;

/// What an asking prompt gets besides its arguments: a way to ask the client (a request in
/// the 2025 versions, an `input_required` result in 2026-07-28; see
/// [`ToolContext::ask`](crate::tools::ToolContext::ask)).
#[derive(Clone)]
pub struct PromptContext {
    client: Option<crate::tools::ClientRequester>,
    auth: crate::server::SharedAuth,
}

impl std::fmt::Debug for PromptContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptContext")
            .field("client", &self.client.is_some())
            .field("auth", &self.auth)
            .finish()
    }
}

impl PromptContext {
    /// The caller's verified identity when the server is protected (see
    /// [`ToolContext::auth`](crate::tools::ToolContext::auth)).
    #[must_use]
    pub fn auth(&self) -> Option<&crate::server::AuthInfo> {
        self.auth.as_deref()
    }

    /// Asks the client under `key` (`sampling/createMessage`, `elicitation/create`,
    /// `roots/list`).
    ///
    /// # Errors
    ///
    /// As [`ToolContext::ask`](crate::tools::ToolContext::ask).
    pub async fn ask(
        &self,
        key: Option<&str>,
        method: &'static str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, crate::tools::ClientRequestError> {
        let request = crate::tools::ClientRequest {
            key: key.map(str::to_owned),
            method,
            params,
        };
        match &self.client {
            Some(client) => client(request).await,
            None => Err(crate::tools::ClientRequestError::Unavailable(
                "this request has no client connection to ask",
            )),
        }
    }

    /// Asks the user to open a URL out of band (`elicitation/create` in URL mode, needs the
    /// client's `elicitation.url` capability); see
    /// [`ToolContext::elicit_url`](crate::tools::ToolContext::elicit_url).
    ///
    /// # Errors
    ///
    /// As [`ToolContext::elicit_url`](crate::tools::ToolContext::elicit_url).
    pub async fn elicit_url(
        &self,
        request: &crate::tools::UrlElicitation,
    ) -> Result<crate::generated::protocol::ElicitResult, crate::tools::ClientRequestError> {
        crate::tools::elicitation::ask_url(
            self.client.as_ref(),
            request,
            "this request has no client connection to ask",
        )
        .await
    }

    /// Tells the client that a URL-mode elicitation's out-of-band step is done; see
    /// [`ToolContext::elicitation_complete`](crate::tools::ToolContext::elicitation_complete).
    pub async fn elicitation_complete(&self, elicitation_id: &str) -> bool {
        crate::tools::elicitation::complete(self.client.as_ref(), elicitation_id).await
    }
}

/// A prompt's renderer: plain, or asking the client.
#[derive(Clone)]
pub(crate) enum Render {
    Plain(PromptRenderer),
    Asking(AskingPromptRenderer),
}

/// Why a prompt could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// The arguments do not fit the prompt (answered with `-32602`).
    #[error("invalid prompt arguments: {0}")]
    InvalidArguments(String),
    /// Rendering failed (answered with `-32603`; the message is logged, not sent).
    #[error("rendering the prompt failed: {0}")]
    Failed(String),
}

/// A prompt template: what `prompts/list` publishes and how `prompts/get` renders it.
#[derive(Clone)]
pub struct PromptDefinition {
    pub(crate) prompt: Prompt,
    pub(crate) render: Render,
    pub(crate) completer: Option<PromptCompleter>,
}

/// Suggests values for a prompt argument (`completion/complete`): from the argument's name,
/// the prefix typed so far and the arguments already chosen.
pub type PromptCompleter = Arc<dyn Fn(&str, &str, &PromptArguments) -> Vec<String> + Send + Sync>;

impl std::fmt::Debug for PromptDefinition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptDefinition")
            .field("prompt", &self.prompt)
            .finish_non_exhaustive()
    }
}

impl PromptDefinition {
    /// A prompt rendered by `render`. Required arguments are checked before it runs.
    pub fn new<F>(name: impl Into<String>, description: impl Into<String>, render: F) -> Self
    where
        F: Fn(&PromptArguments) -> Result<Vec<PromptMessage>, PromptError> + Send + Sync + 'static,
    {
        Self {
            prompt: Prompt {
                arguments: None,
                description: Some(description.into()),
                icons: None,
                meta: None,
                name: name.into(),
                title: None,
            },
            render: Render::Plain(Arc::new(render)),
            completer: None,
        }
    }

    /// A prompt whose renderer may ask the client ([`PromptContext::ask`]) before it
    /// answers. Required arguments are checked before it runs.
    pub fn asking<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        render: F,
    ) -> Self
    where
        F: Fn(PromptContext, PromptArguments) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Vec<PromptMessage>, PromptError>> + Send + 'static,
    {
        let mut definition = Self::new(name, description, |_| Ok(Vec::new()));
        definition.render = Render::Asking(Arc::new(move |ctx, args| Box::pin(render(ctx, args))));
        definition
    }

    /// Completes the prompt's arguments (`completion/complete` with a `ref/prompt`): the
    /// function gets the argument's name, the text typed so far and the other arguments.
    #[must_use]
    pub fn completer<F>(mut self, completer: F) -> Self
    where
        F: Fn(&str, &str, &PromptArguments) -> Vec<String> + Send + Sync + 'static,
    {
        self.completer = Some(Arc::new(completer));
        self
    }

    /// Declares an argument.
    #[must_use]
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.prompt
            .arguments
            .get_or_insert_with(Vec::new)
            .push(PromptArgument {
                description: Some(description.into()),
                name: name.into(),
                required: Some(required),
                title: None,
            });
        self
    }

    /// The prompt's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.prompt.name
    }
}

/// A user message with one text block, the usual content of a prompt.
#[must_use]
pub fn user_text(text: impl Into<String>) -> PromptMessage {
    PromptMessage {
        content: ContentBlock::TextContent(TextContent {
            annotations: None,
            meta: None,
            text: text.into(),
            type_: TextContentType::Text,
        }),
        role: Role::User,
    }
}

/// The prompts of a server.
#[derive(Debug, Default)]
pub(crate) struct PromptSet {
    list: Vec<Prompt>,
    by_name: HashMap<String, PromptDefinition>,
}

impl PromptSet {
    pub(crate) fn new(definitions: Vec<PromptDefinition>) -> Result<Self, McpError> {
        let mut set = Self::default();
        for definition in definitions {
            if set.by_name.contains_key(definition.name()) {
                return Err(McpError::DuplicateName {
                    kind: "prompt",
                    name: definition.name().to_owned(),
                });
            }
            set.list.push(definition.prompt.clone());
            set.by_name.insert(definition.name().to_owned(), definition);
        }
        Ok(set)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The prompt of this name.
    pub(crate) fn definition(&self, name: &str) -> Option<&PromptDefinition> {
        self.by_name.get(name)
    }

    /// The `prompts/list` result.
    pub(crate) fn list(&self, era: Era, hints: &CacheHints, pager: &Pager<'_>) -> HandlerResult {
        let page = pager.page(&self.list, |prompt| &prompt.name)?;
        let (prompts, next_cursor) = (page.items, page.next_cursor);
        match era {
            Era::Legacy(_) => respond(&LegacyListPromptsResult {
                meta: None,
                next_cursor,
                prompts,
            }),
            Era::Modern => respond(&ListPromptsResult {
                cache_scope: hints.scope,
                meta: None,
                next_cursor,
                prompts,
                result_type: ResultType::Complete,
                ttl_ms: hints.ttl_ms,
            }),
        }
    }

    /// The `prompts/get` result; an asking prompt asks through `client`.
    pub(crate) async fn get(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        era: Era,
        client: Option<crate::tools::ClientRequester>,
        auth: crate::server::SharedAuth,
    ) -> HandlerResult {
        let Some(definition) = self.by_name.get(name) else {
            return Err(invalid_params(
                "unknown prompt",
                vec![violation("/name", "enum", "no prompt of this name")],
            ));
        };
        // The params' validator has checked that every value is a string.
        let arguments: PromptArguments = arguments
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(key, value)| match value {
                serde_json::Value::String(text) => Some((key, text)),
                _ => None,
            })
            .collect();
        let missing: Vec<_> = definition
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| {
                crate::validation::ValidationError::new(
                    "/arguments",
                    "",
                    "required",
                    serde_json::Value::from(a.name.clone()),
                    serde_json::Value::Null,
                    "a required prompt argument is missing",
                )
            })
            .collect();
        if !missing.is_empty() {
            return Err(invalid_params("missing prompt arguments", missing));
        }
        let rendered = match &definition.render {
            Render::Plain(render) => render(&arguments),
            Render::Asking(render) => render(PromptContext { client, auth }, arguments).await,
        };
        let messages = match rendered {
            Ok(messages) => messages,
            Err(PromptError::InvalidArguments(message)) => {
                tracing::debug!(%message, "prompt arguments rejected");
                return Err(invalid_params(
                    "invalid prompt arguments",
                    vec![violation("/arguments", "prompt", "rejected by the prompt")],
                ));
            }
            Err(PromptError::Failed(message)) => {
                tracing::error!(%message, "a prompt renderer failed");
                return Err(internal_error("rendering the prompt failed"));
            }
        };
        let description = definition.prompt.description.clone();
        match era {
            Era::Legacy(_) => respond(&LegacyGetPromptResult {
                description,
                messages,
                meta: None,
            }),
            Era::Modern => respond(&GetPromptResult {
                description,
                messages,
                meta: None,
                result_type: ResultType::Complete,
            }),
        }
    }
}
