//! Results whose shape depends on the protocol era, with accessors for what both share.

use serde::Serialize;
use serde_json::Value;

use crate::generated::protocol::{
    CallToolResult, ContentBlock, DiscoverResult, GetPromptResult, InitializeResult,
    LegacyCallToolResult, LegacyGetPromptResult, LegacyReadResourceResult, PromptMessage,
    ReadResourceResult, ResourceContents, ServerCapabilities,
};

/// A result in the connection's era: the 2026-07-28 type or the 2025 (`Legacy*`) one, both
/// generated from the schema. Serializes as the result itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Versioned<M, L> {
    /// A 2026-07-28 result.
    Modern(M),
    /// A 2025 result.
    Legacy(L),
}

/// The answer to `tools/call`.
pub type ToolReply = Versioned<CallToolResult, LegacyCallToolResult>;
/// The answer to `resources/read`.
pub type ResourceResult = Versioned<ReadResourceResult, LegacyReadResourceResult>;
/// The answer to `prompts/get`.
pub type PromptResult = Versioned<GetPromptResult, LegacyGetPromptResult>;
/// What the handshake told about the server: the `server/discover` result (2026-07-28) or
/// the `initialize` result (2025).
pub type ServerDescription = Versioned<DiscoverResult, InitializeResult>;

impl ToolReply {
    /// What the tool produced.
    #[must_use]
    pub fn content(&self) -> &[ContentBlock] {
        match self {
            Self::Modern(result) => &result.content,
            Self::Legacy(result) => &result.content,
        }
    }

    /// The structured result, if any (in 2025 an object).
    #[must_use]
    pub fn structured_content(&self) -> Option<Value> {
        match self {
            Self::Modern(result) => result.structured_content.clone(),
            Self::Legacy(result) => result.structured_content.clone().map(Value::Object),
        }
    }

    /// Whether the tool reported a failure (`isError: true`).
    #[must_use]
    pub fn is_error(&self) -> bool {
        match self {
            Self::Modern(result) => result.is_error.unwrap_or(false),
            Self::Legacy(result) => result.is_error.unwrap_or(false),
        }
    }
}

impl ResourceResult {
    /// The resource's contents.
    #[must_use]
    pub fn contents(&self) -> &[ResourceContents] {
        match self {
            Self::Modern(result) => &result.contents,
            Self::Legacy(result) => &result.contents,
        }
    }
}

impl PromptResult {
    /// The prompt's messages.
    #[must_use]
    pub fn messages(&self) -> &[PromptMessage] {
        match self {
            Self::Modern(result) => &result.messages,
            Self::Legacy(result) => &result.messages,
        }
    }
}

impl ServerDescription {
    /// What the server offers.
    #[must_use]
    pub fn capabilities(&self) -> &ServerCapabilities {
        match self {
            Self::Modern(result) => &result.capabilities,
            Self::Legacy(result) => &result.capabilities,
        }
    }

    /// The settings the server declared for the protocol extension `id`
    /// (`capabilities.extensions`); `None` when it does not declare it, and then the client
    /// must not use it.
    #[must_use]
    pub fn extension(&self, id: &str) -> Option<&serde_json::Map<String, serde_json::Value>> {
        self.capabilities()
            .extensions
            .as_ref()?
            .get(id)
            .map(|settings| &settings.0)
    }

    /// The server's instructions, if any.
    #[must_use]
    pub fn instructions(&self) -> Option<&str> {
        match self {
            Self::Modern(result) => result.instructions.as_deref(),
            Self::Legacy(result) => result.instructions.as_deref(),
        }
    }
}
