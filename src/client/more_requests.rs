//! The requests beyond tools, resources and prompts: resource templates, argument
//! completion, resource subscriptions (2025) and the log level.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::generated::protocol::{
    validate, CompleteResult, Completion, LegacyCompleteResult, LegacyListResourceTemplatesResult,
    ListResourceTemplatesResult, LoggingLevel, ResourceTemplate,
};
use crate::validation::ValidationError;

use super::call::{decode, Call, Validator};
use super::{Client, ClientError, RequestOptions};

/// What `completion/complete` completes an argument of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompletionTarget<'a> {
    /// An argument of the prompt with this name (`ref/prompt`).
    Prompt(&'a str),
    /// A variable of the resource template with this URI template (`ref/resource`).
    ResourceTemplate(&'a str),
}

impl CompletionTarget<'_> {
    fn reference(self) -> Value {
        match self {
            Self::Prompt(name) => serde_json::json!({"type": "ref/prompt", "name": name}),
            Self::ResourceTemplate(uri) => {
                serde_json::json!({"type": "ref/resource", "uri": uri})
            }
        }
    }
}

/// Runs a params validator over the `params` of a whole request message, so that the
/// violations' paths point into the message.
pub(crate) fn params_of(message: &Value, check: Validator) -> Result<(), Vec<ValidationError>> {
    let params = message.get("params").unwrap_or(&Value::Null);
    check(params).map_err(|errors| {
        errors
            .into_iter()
            .map(|mut error| {
                error.prefix_path("/params");
                error
            })
            .collect()
    })
}

fn complete_request(message: &Value) -> Result<(), Vec<ValidationError>> {
    params_of(message, validate::complete_request_params)
}

fn legacy_complete_request(message: &Value) -> Result<(), Vec<ValidationError>> {
    params_of(message, validate::legacy_complete_request_params)
}

fn legacy_set_level_request(message: &Value) -> Result<(), Vec<ValidationError>> {
    params_of(message, validate::legacy_set_level_request_params)
}

fn legacy_subscribe_request(message: &Value) -> Result<(), Vec<ValidationError>> {
    params_of(message, validate::legacy_subscribe_request_params)
}

impl Client {
    /// Every resource template, following `nextCursor` through all pages.
    ///
    /// # Errors
    ///
    /// Any request error; [`ClientError::InvalidMessage`] for a page that breaks the schema.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        let (modern_v, legacy_v): (Validator, Validator) = (
            validate::list_resource_templates_request,
            validate::legacy_list_resource_templates_request,
        );
        self.paged(
            "resources/templates/list",
            modern_v,
            legacy_v,
            |modern, raw| {
                Ok(if modern {
                    let page: ListResourceTemplatesResult = decode(
                        "resources/templates/list",
                        raw,
                        validate::list_resource_templates_result,
                        "ListResourceTemplatesResult",
                    )?;
                    (page.resource_templates, page.next_cursor.map(|c| c.0))
                } else {
                    let page: LegacyListResourceTemplatesResult = decode(
                        "resources/templates/list",
                        raw,
                        validate::legacy_list_resource_templates_result,
                        "LegacyListResourceTemplatesResult",
                    )?;
                    (page.resource_templates, page.next_cursor.map(|c| c.0))
                })
            },
        )
        .await
    }

    /// `completion/complete`: suggestions for the argument `argument` of `target`, whose
    /// text so far is `value`; `context` holds the values already chosen for the other
    /// arguments (may be empty).
    ///
    /// # Errors
    ///
    /// Any request error (a server without completions answers with a
    /// [`ClientError::Rpc`]); [`ClientError::InvalidMessage`] for an answer that breaks the
    /// schema (e.g. more than 100 values).
    pub async fn complete(
        &self,
        target: CompletionTarget<'_>,
        argument: &str,
        value: &str,
        context: &BTreeMap<String, String>,
    ) -> Result<Completion, ClientError> {
        let mut params = Map::new();
        params.insert("ref".to_owned(), target.reference());
        params.insert(
            "argument".to_owned(),
            serde_json::json!({"name": argument, "value": value}),
        );
        if !context.is_empty() {
            params.insert(
                "context".to_owned(),
                serde_json::json!({ "arguments": context }),
            );
        }
        let raw = self
            .era_request(
                "completion/complete",
                params,
                None,
                &RequestOptions::new(),
                complete_request,
                legacy_complete_request,
            )
            .await?;
        if self.is_modern() {
            let result: CompleteResult = decode(
                "completion/complete",
                &raw,
                validate::complete_result,
                "CompleteResult",
            )?;
            Ok(result.completion)
        } else {
            let result: LegacyCompleteResult = decode(
                "completion/complete",
                &raw,
                validate::legacy_complete_result,
                "LegacyCompleteResult",
            )?;
            Ok(result.completion)
        }
    }

    /// The least severe log messages (`notifications/message`) the client wants, passed to
    /// the client's handler. In a 2025 session this is `logging/setLevel`; in 2026-07-28,
    /// where the level is per request, every later request carries it in its `_meta`.
    ///
    /// # Errors
    ///
    /// Any request error of `logging/setLevel` (2025).
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        if !self.is_modern() {
            let mut params = Map::new();
            params.insert(
                "level".to_owned(),
                serde_json::to_value(level).unwrap_or(Value::Null),
            );
            self.empty_legacy_request("logging/setLevel", params, legacy_set_level_request)
                .await?;
        }
        *self
            .inner
            .log_level
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(level);
        Ok(())
    }

    /// `resources/subscribe` (2025): the server sends `notifications/resources/updated`
    /// (to the client's handler) when the resource changes.
    ///
    /// # Errors
    ///
    /// [`ClientError::NotInEra`] in 2026-07-28 (where [`Client::listen`] replaces it); any
    /// request error.
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        self.subscription("resources/subscribe", uri).await
    }

    /// `resources/unsubscribe` (2025): ends a [`Client::subscribe`].
    ///
    /// # Errors
    ///
    /// As [`Client::subscribe`].
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
        self.subscription("resources/unsubscribe", uri).await
    }

    async fn subscription(&self, method: &'static str, uri: &str) -> Result<(), ClientError> {
        let negotiated = self.negotiated();
        if negotiated.modern {
            return Err(ClientError::NotInEra {
                method,
                version: negotiated.version,
            });
        }
        let mut params = Map::new();
        params.insert("uri".to_owned(), Value::from(uri));
        self.empty_legacy_request(method, params, legacy_subscribe_request)
            .await
    }

    /// A 2025 request whose answer is an empty result.
    async fn empty_legacy_request(
        &self,
        method: &'static str,
        params: Map<String, Value>,
        validator: Validator,
    ) -> Result<(), ClientError> {
        let call = Call {
            method,
            params,
            name: None,
            validator,
            modern_meta: None,
            headers: Vec::new(),
        };
        let raw = self.inner.request(call, &RequestOptions::new()).await?;
        let _: Map<String, Value> = decode(method, &raw, validate::empty_result, "EmptyResult")?;
        Ok(())
    }
}
