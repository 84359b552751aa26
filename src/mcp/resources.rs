//! Resources: URIs checked (RFC 3986, and an optional scheme policy) when a resource is
//! registered and on every `resources/read`; `resources/list`, `resources/read` and
//! `resources/templates/list` in both eras.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::json;

use super::builder::CacheHints;
use super::era::Era;
use super::outbound::respond;
use super::pagination::Pager;
use super::params::{error_with_data, internal_error, invalid_params, violation};
use super::resource_templates::ResourceTemplateDefinition;
use super::McpError;
use crate::generated::protocol::{
    LegacyListResourceTemplatesResult, LegacyListResourcesResult, LegacyReadResourceResult,
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResultType, TextResourceContents,
};
use crate::jsonrpc::ErrorCode;
use crate::server::HandlerResult;

/// Which resource URIs a server accepts, beyond being valid RFC 3986 URIs.
///
/// ```
/// use typed_mcp::mcp::UriPolicy;
///
/// let policy = UriPolicy::any().schemes(["resource"]).authority("demo");
/// assert!(policy.check("resource://demo/readme").is_ok());
/// assert!(policy.check("resource://other/readme").is_err());
/// assert!(policy.check("file:///etc/passwd").is_err());
/// assert!(policy.check("not a uri").is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UriPolicy {
    schemes: Option<Vec<String>>,
    authority: Option<String>,
}

impl UriPolicy {
    /// Any valid URI.
    #[must_use]
    pub fn any() -> Self {
        Self::default()
    }

    /// Only URIs with one of these schemes (compared case-insensitively).
    #[must_use]
    pub fn schemes<S: Into<String>>(mut self, schemes: impl IntoIterator<Item = S>) -> Self {
        self.schemes = Some(
            schemes
                .into_iter()
                .map(|s| s.into().to_ascii_lowercase())
                .collect(),
        );
        self
    }

    /// Only URIs whose authority (the part after `//`) is exactly `provider`, as in
    /// `resource://<provider>/...`.
    #[must_use]
    pub fn authority(mut self, provider: impl Into<String>) -> Self {
        self.authority = Some(provider.into());
        self
    }

    /// Checks `uri`: valid per RFC 3986 and allowed by the policy.
    ///
    /// # Errors
    ///
    /// Which rule it breaks, in words that do not quote the URI.
    pub fn check(&self, uri: &str) -> Result<(), &'static str> {
        if !crate::validation::formats::is_uri(uri) {
            return Err("not a valid URI (RFC 3986)");
        }
        let (scheme, rest) = uri.split_once(':').unwrap_or((uri, ""));
        if let Some(schemes) = &self.schemes {
            if !schemes.iter().any(|s| s.eq_ignore_ascii_case(scheme)) {
                return Err("the URI's scheme is not allowed by the server's policy");
            }
        }
        if let Some(provider) = &self.authority {
            let authority = rest
                .strip_prefix("//")
                .map(|after| after.split(['/', '?', '#']).next().unwrap_or(""));
            if authority != Some(provider.as_str()) {
                return Err("the URI's authority is not allowed by the server's policy");
            }
        }
        Ok(())
    }
}

/// How a resource's contents are produced on `resources/read`: from the URI read.
pub type ResourceReader =
    Arc<dyn Fn(&str) -> Result<Vec<ResourceContents>, ResourceError> + Send + Sync>;

/// Why a resource reader failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// The resource does not exist (answered as resource-not-found).
    #[error("the resource does not exist")]
    NotFound,
    /// Reading failed (answered with `-32603`; the message is logged, not sent).
    #[error("reading the resource failed: {0}")]
    Failed(String),
}

/// A resource: what `resources/list` publishes and how `resources/read` reads it.
#[derive(Clone)]
pub struct ResourceDefinition {
    pub(crate) resource: Resource,
    pub(crate) reader: ResourceReader,
}

impl std::fmt::Debug for ResourceDefinition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceDefinition")
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl ResourceDefinition {
    /// A resource read by `reader`.
    pub fn new<F>(uri: impl Into<String>, name: impl Into<String>, reader: F) -> Self
    where
        F: Fn(&str) -> Result<Vec<ResourceContents>, ResourceError> + Send + Sync + 'static,
    {
        Self {
            resource: Resource {
                annotations: None,
                description: None,
                icons: None,
                meta: None,
                mime_type: None,
                name: name.into(),
                size: None,
                title: None,
                uri: uri.into(),
            },
            reader: Arc::new(reader),
        }
    }

    /// A resource whose contents are a fixed text.
    pub fn text(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let text: Arc<str> = Arc::from(text.into());
        let mime_type = mime_type.into();
        let size = u64::try_from(text.len()).ok();
        let reader_mime = mime_type.clone();
        let mut definition = Self::new(uri, name, move |uri: &str| {
            Ok(vec![ResourceContents::TextResourceContents(
                TextResourceContents {
                    meta: None,
                    mime_type: Some(reader_mime.clone()),
                    text: text.to_string(),
                    uri: uri.to_owned(),
                },
            )])
        });
        definition.resource.mime_type = Some(mime_type);
        definition.resource.size = size;
        definition
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.resource.description = Some(description.into());
        self
    }

    /// Sets the media type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.resource.mime_type = Some(mime_type.into());
        self
    }

    /// The resource's URI.
    #[must_use]
    pub fn uri(&self) -> &str {
        &self.resource.uri
    }
}

/// The resources of a server.
#[derive(Debug, Default)]
pub(crate) struct ResourceSet {
    list: Vec<Resource>,
    by_uri: HashMap<String, ResourceDefinition>,
    pub(crate) templates: Vec<ResourceTemplateDefinition>,
    policy: UriPolicy,
}

impl ResourceSet {
    /// Registers the resources, checking every URI against `policy`.
    pub(crate) fn new(
        definitions: Vec<ResourceDefinition>,
        templates: Vec<ResourceTemplateDefinition>,
        policy: UriPolicy,
    ) -> Result<Self, McpError> {
        let mut set = Self {
            policy,
            ..Self::default()
        };
        for template in templates {
            if set
                .templates
                .iter()
                .any(|known| known.template.name == template.template.name)
            {
                return Err(McpError::DuplicateName {
                    kind: "resource template",
                    name: template.template.name.clone(),
                });
            }
            set.templates.push(template);
        }
        for definition in definitions {
            if let Err(reason) = set.policy.check(definition.uri()) {
                return Err(McpError::InvalidResourceUri {
                    name: definition.resource.name.clone(),
                    reason,
                });
            }
            if set.by_uri.contains_key(definition.uri()) {
                return Err(McpError::DuplicateName {
                    kind: "resource",
                    name: definition.uri().to_owned(),
                });
            }
            set.list.push(definition.resource.clone());
            set.by_uri.insert(definition.uri().to_owned(), definition);
        }
        Ok(set)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty() && self.templates.is_empty()
    }

    /// The `resources/list` result.
    pub(crate) fn list(
        &self,
        era: Era,
        hints: &CacheHints,
        pager: &Pager<'_>,
        hidden_apps: Option<&super::apps::Apps>,
    ) -> HandlerResult {
        // A client that does not render apps is not shown their resources.
        let shown: Vec<Resource>;
        let list = match hidden_apps {
            Some(apps) => {
                shown = self
                    .list
                    .iter()
                    .filter(|resource| !apps.resources.contains(&resource.uri))
                    .cloned()
                    .collect();
                &shown
            }
            None => &self.list,
        };
        let page = pager.page(list, |resource| &resource.uri)?;
        let (resources, next_cursor) = (page.items, page.next_cursor);
        match era {
            Era::Legacy(_) => respond(&LegacyListResourcesResult {
                meta: None,
                next_cursor,
                resources,
            }),
            Era::Modern => respond(&ListResourcesResult {
                cache_scope: hints.scope,
                meta: None,
                next_cursor,
                resources,
                result_type: ResultType::Complete,
                ttl_ms: hints.ttl_ms,
            }),
        }
    }

    /// The `resources/templates/list` result.
    pub(crate) fn list_templates(
        &self,
        era: Era,
        hints: &CacheHints,
        pager: &Pager<'_>,
    ) -> HandlerResult {
        let page = pager.page(&self.templates, |definition| &definition.template.name)?;
        let next_cursor = page.next_cursor;
        let resource_templates: Vec<_> = page
            .items
            .into_iter()
            .map(|definition| definition.template)
            .collect();
        match era {
            Era::Legacy(_) => respond(&LegacyListResourceTemplatesResult {
                meta: None,
                next_cursor,
                resource_templates: resource_templates.clone(),
            }),
            Era::Modern => respond(&ListResourceTemplatesResult {
                cache_scope: hints.scope,
                meta: None,
                next_cursor,
                resource_templates,
                result_type: ResultType::Complete,
                ttl_ms: hints.ttl_ms,
            }),
        }
    }

    /// Whether `uri` names a resource (fixed or matching a template): the resource-not-found
    /// error of the era otherwise.
    pub(crate) fn check_known(
        &self,
        uri: &str,
        era: Era,
    ) -> Result<(), crate::jsonrpc::ErrorObject<'static>> {
        let known = self.by_uri.contains_key(uri)
            || self
                .templates
                .iter()
                .any(|definition| definition.parsed.matches(uri).is_some());
        if known {
            Ok(())
        } else {
            Err(not_found(uri, era))
        }
    }

    /// The `resources/read` result for `uri` (already checked by the params' validator).
    pub(crate) fn read(
        &self,
        uri: &str,
        era: Era,
        hints: &CacheHints,
        hidden_apps: Option<&super::apps::Apps>,
    ) -> HandlerResult {
        if let Err(reason) = self.policy.check(uri) {
            return Err(invalid_params(
                "invalid resource URI",
                vec![violation("/uri", "format", reason)],
            ));
        }
        if hidden_apps.is_some_and(|apps| apps.resources.contains(uri)) {
            return Err(not_found(uri, era));
        }
        let read = match self.by_uri.get(uri) {
            Some(definition) if definition.is_app() => {
                Some((definition.reader)(uri).map(|contents| {
                    super::apps::with_ui_meta(contents, definition.resource.meta.as_ref())
                }))
            }
            Some(definition) => Some((definition.reader)(uri)),
            // Fixed resources first, then the templates in the order they were added.
            None => self.templates.iter().find_map(|definition| {
                let params = definition.parsed.matches(uri)?;
                Some((definition.reader)(uri, &params))
            }),
        };
        let contents = match read {
            Some(Ok(contents)) => contents,
            None | Some(Err(ResourceError::NotFound)) => return Err(not_found(uri, era)),
            Some(Err(ResourceError::Failed(message))) => {
                tracing::error!(%message, "a resource reader failed");
                return Err(internal_error("reading the resource failed"));
            }
        };
        match era {
            Era::Legacy(_) => respond(&LegacyReadResourceResult {
                contents,
                meta: None,
            }),
            Era::Modern => respond(&ReadResourceResult {
                cache_scope: hints.scope,
                contents,
                meta: None,
                result_type: ResultType::Complete,
                ttl_ms: hints.ttl_ms,
            }),
        }
    }
}

/// The resource-not-found error of the session's version: `-32002` in the legacy era,
/// `-32602` in 2026-07-28; `data.uri` names the URI (valid, checked above).
fn not_found(uri: &str, era: Era) -> crate::jsonrpc::ErrorObject<'static> {
    let code = match era {
        Era::Legacy(_) => ErrorCode::RESOURCE_NOT_FOUND,
        Era::Modern => ErrorCode::INVALID_PARAMS,
    };
    error_with_data(
        code,
        "resource not found".to_owned(),
        &json!({ "uri": uri }),
    )
}
