//! Content blocks for tool results ([`ToolDefinition::returns_content`]) and prompt
//! messages: text, image, audio, embedded resources and resource links.
//!
//! ```
//! use typed_mcp::mcp::content;
//!
//! let output = content::blocks([
//!     content::text("A red dot:"),
//!     content::image("iVBORw0KGgo=", "image/png"),
//!     content::embedded_text("notes://1", "text/plain", "the note"),
//! ]);
//! assert_eq!(output[1]["type"], "image");
//! assert_eq!(output[2]["resource"]["uri"], "notes://1");
//! ```
//!
//! [`ToolDefinition::returns_content`]: super::ToolDefinition::returns_content

use serde_json::Value;

use crate::generated::protocol::{
    AudioContent, AudioContentType, BlobResourceContents, ContentBlock, EmbeddedResource,
    EmbeddedResourceType, ImageContent, ImageContentType, ResourceContents, ResourceLink,
    ResourceLinkType, TextContent, TextContentType, TextResourceContents,
};

/// A text block.
#[must_use]
pub fn text(text: impl Into<String>) -> ContentBlock {
    ContentBlock::TextContent(TextContent {
        annotations: None,
        meta: None,
        text: text.into(),
        type_: TextContentType::Text,
    })
}

/// An image: base64 `data` of media type `mime_type`.
#[must_use]
pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> ContentBlock {
    ContentBlock::ImageContent(ImageContent {
        annotations: None,
        data: data.into(),
        meta: None,
        mime_type: mime_type.into(),
        type_: ImageContentType::Image,
    })
}

/// Audio: base64 `data` of media type `mime_type`.
#[must_use]
pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> ContentBlock {
    ContentBlock::AudioContent(AudioContent {
        annotations: None,
        data: data.into(),
        meta: None,
        mime_type: mime_type.into(),
        type_: AudioContentType::Audio,
    })
}

/// An embedded text resource.
#[must_use]
pub fn embedded_text(
    uri: impl Into<String>,
    mime_type: impl Into<String>,
    text: impl Into<String>,
) -> ContentBlock {
    embedded(ResourceContents::TextResourceContents(
        TextResourceContents {
            meta: None,
            mime_type: Some(mime_type.into()),
            text: text.into(),
            uri: uri.into(),
        },
    ))
}

/// An embedded binary resource (base64 `blob`).
#[must_use]
pub fn embedded_blob(
    uri: impl Into<String>,
    mime_type: impl Into<String>,
    blob: impl Into<String>,
) -> ContentBlock {
    embedded(ResourceContents::BlobResourceContents(
        BlobResourceContents {
            blob: blob.into(),
            meta: None,
            mime_type: Some(mime_type.into()),
            uri: uri.into(),
        },
    ))
}

/// An embedded resource with the given contents.
#[must_use]
pub fn embedded(resource: ResourceContents) -> ContentBlock {
    ContentBlock::EmbeddedResource(EmbeddedResource {
        annotations: None,
        meta: None,
        resource,
        type_: EmbeddedResourceType::Resource,
    })
}

/// A link to a resource the client may read.
#[must_use]
pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> ContentBlock {
    ContentBlock::ResourceLink(ResourceLink {
        annotations: None,
        description: None,
        icons: None,
        meta: None,
        mime_type: None,
        name: name.into(),
        size: None,
        title: None,
        type_: ResourceLinkType::ResourceLink,
        uri: uri.into(),
    })
}

/// The output of a content tool: the blocks as a JSON array.
#[must_use]
pub fn blocks(blocks: impl IntoIterator<Item = ContentBlock>) -> Value {
    Value::Array(
        blocks
            .into_iter()
            .map(|block| serde_json::to_value(block).unwrap_or(Value::Null))
            .collect(),
    )
}
