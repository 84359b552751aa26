//! Resource templates: a family of resources behind one URI template (RFC 6570), listed by
//! `resources/templates/list` and read when a `resources/read` URI matches the template.

use std::collections::HashMap;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use super::resources::ResourceError;
use super::uri_template::UriTemplate;
use super::McpError;
use crate::generated::protocol::{ResourceContents, ResourceTemplate};

/// The variables a URI matched, by name (percent-decoded).
pub type TemplateParams = HashMap<String, String>;

/// How a templated resource is read: from the URI and the variables it matched.
pub type TemplateReader = Arc<
    dyn Fn(&str, &TemplateParams) -> Result<Vec<ResourceContents>, ResourceError> + Send + Sync,
>;

/// Suggests values for a template variable (`completion/complete`): from the variable's
/// name, the prefix typed so far and the variables already resolved.
pub type TemplateCompleter = Arc<dyn Fn(&str, &str, &TemplateParams) -> Vec<String> + Send + Sync>;

/// A resource template: what `resources/templates/list` publishes and how matching URIs are
/// read.
///
/// ```
/// use typed_mcp::generated::protocol::{ResourceContents, TextResourceContents};
/// use typed_mcp::mcp::{McpServer, ResourceTemplateDefinition};
///
/// #[derive(serde::Deserialize)]
/// struct NoteParams { id: u32 }
///
/// let notes = ResourceTemplateDefinition::typed(
///     "notes://{id}",
///     "note",
///     |uri: &str, params: NoteParams| {
///         Ok(vec![ResourceContents::TextResourceContents(TextResourceContents {
///             meta: None,
///             mime_type: Some("text/plain".to_owned()),
///             text: format!("note number {}", params.id),
///             uri: uri.to_owned(),
///         })])
///     },
/// )
/// .unwrap()
/// .mime_type("text/plain");
/// let server = McpServer::builder("notes", "1.0.0").resource_template(notes).build().unwrap();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct ResourceTemplateDefinition {
    pub(crate) template: ResourceTemplate,
    pub(crate) parsed: UriTemplate,
    pub(crate) reader: TemplateReader,
    pub(crate) completer: Option<TemplateCompleter>,
}

impl std::fmt::Debug for ResourceTemplateDefinition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceTemplateDefinition")
            .field("template", &self.template)
            .finish_non_exhaustive()
    }
}

impl ResourceTemplateDefinition {
    /// A template read by `reader` with the matched variables as strings.
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidResourceUri`] when the template does not parse.
    pub fn new<F>(
        uri_template: impl Into<String>,
        name: impl Into<String>,
        reader: F,
    ) -> Result<Self, McpError>
    where
        F: Fn(&str, &TemplateParams) -> Result<Vec<ResourceContents>, ResourceError>
            + Send
            + Sync
            + 'static,
    {
        let uri_template = uri_template.into();
        let name = name.into();
        let parsed =
            UriTemplate::parse(&uri_template).map_err(|error| McpError::InvalidResourceUri {
                name: name.clone(),
                reason: template_reason(&error),
            })?;
        Ok(Self {
            template: ResourceTemplate {
                annotations: None,
                description: None,
                icons: None,
                meta: None,
                mime_type: None,
                name,
                title: None,
                uri_template,
            },
            parsed,
            reader: Arc::new(reader),
            completer: None,
        })
    }

    /// A template whose variables are decoded into `P` (a struct with one field per
    /// variable; numbers and booleans are parsed from the text). A URI whose variables do
    /// not decode is answered as not found.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub fn typed<P, F>(
        uri_template: impl Into<String>,
        name: impl Into<String>,
        reader: F,
    ) -> Result<Self, McpError>
    where
        P: DeserializeOwned,
        F: Fn(&str, P) -> Result<Vec<ResourceContents>, ResourceError> + Send + Sync + 'static,
    {
        Self::new(
            uri_template,
            name,
            move |uri: &str, params: &TemplateParams| {
                // As strings first (a `String` field keeps "007"), then with numbers and
                // booleans read from the text.
                let as_text = serde_json::Value::Object(
                    params
                        .iter()
                        .map(|(name, text)| (name.clone(), serde_json::Value::String(text.clone())))
                        .collect(),
                );
                let typed = serde_json::from_value::<P>(as_text).or_else(|_| {
                    let as_json = serde_json::Value::Object(
                        params
                            .iter()
                            .map(|(name, text)| (name.clone(), typed_value(text)))
                            .collect(),
                    );
                    serde_json::from_value::<P>(as_json)
                });
                reader(uri, typed.map_err(|_| ResourceError::NotFound)?)
            },
        )
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.template.description = Some(description.into());
        self
    }

    /// Sets the media type shared by the matching resources.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.template.mime_type = Some(mime_type.into());
        self
    }

    /// Completes the template's variables (`completion/complete` with a `ref/resource`).
    #[must_use]
    pub fn completer<F>(mut self, completer: F) -> Self
    where
        F: Fn(&str, &str, &TemplateParams) -> Vec<String> + Send + Sync + 'static,
    {
        self.completer = Some(Arc::new(completer));
        self
    }

    /// The template text.
    #[must_use]
    pub fn uri_template(&self) -> &str {
        self.parsed.as_str()
    }
}

/// A variable's text as JSON for typed decoding: a number or boolean when it reads as one,
/// else the string.
fn typed_value(text: &str) -> serde_json::Value {
    match text {
        "true" => serde_json::Value::Bool(true),
        "false" => serde_json::Value::Bool(false),
        _ => match serde_json::from_str::<serde_json::Number>(text) {
            Ok(number) => serde_json::Value::Number(number),
            Err(_) => serde_json::Value::String(text.to_owned()),
        },
    }
}

fn template_reason(error: &super::uri_template::UriTemplateError) -> &'static str {
    use super::uri_template::UriTemplateError as E;
    match error {
        E::Unbalanced => "unbalanced braces in the URI template",
        E::InvalidVariable => "an invalid variable in the URI template",
        E::InvalidPrefix => "an invalid prefix modifier in the URI template",
        E::DuplicateVariable => "a variable appears twice in the URI template",
    }
}
