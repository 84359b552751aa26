//! The typed requests, in both eras.

use serde_json::{Map, Value};

use crate::generated::protocol::{
    validate, DiscoverResult, GetPromptResult, LegacyGetPromptResult, LegacyListPromptsResult,
    LegacyListResourcesResult, LegacyListToolsResult, LegacyReadResourceResult, ListPromptsResult,
    ListResourcesResult, ListToolsResult, Prompt, ReadResourceResult, Resource, Tool,
};
use crate::generated::protocol::{CallToolResult, LegacyCallToolResult};

use super::call::{decode, validate_received, Call, Validator};
use super::handler;
use super::{
    Client, ClientError, PromptResult, RequestOptions, ResourceResult, ToolReply, Versioned,
};

/// The most `input_required` rounds one request goes through.
const MAX_INPUT_ROUNDS: usize = 8;

/// What an `input_required` answer asks for.
struct InputRound {
    requests: Vec<(String, Value)>,
    state: Option<String>,
}

/// The input an answer asks for, or `None` for a final answer.
fn input_round(
    method: &str,
    raw: &serde_json::value::RawValue,
) -> Result<Option<InputRound>, ClientError> {
    let mut value: Value =
        serde_json::from_str(raw.get()).map_err(|_| ClientError::MalformedMessage {
            reason: "the result is not valid JSON".to_owned(),
        })?;
    if value.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return Ok(None);
    }
    validate_received(
        &mut value,
        validate::input_required_result,
        "InputRequiredResult",
    )
    .map_err(|errors| ClientError::InvalidMessage {
        what: format!("{method} result"),
        definition: "InputRequiredResult",
        errors,
    })?;
    let requests = value
        .get("inputRequests")
        .and_then(Value::as_object)
        .map(|map| map.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    let state = value
        .get("requestState")
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(Some(InputRound { requests, state }))
}

/// The most pages a listing follows before giving up on a server whose cursors never end.
const MAX_PAGES: usize = 1000;

impl Client {
    /// `server/discover` (2026-07-28): the server's versions, capabilities and identity.
    ///
    /// # Errors
    ///
    /// [`ClientError::NotInEra`] in a 2025 session; any request error.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        let version = self.modern_version("server/discover")?;
        let call = Call {
            method: "server/discover",
            params: Map::new(),
            name: None,
            validator: validate::discover_request,
            modern_meta: Some(&version),
            headers: Vec::new(),
        };
        let raw = self.inner.request(call, &RequestOptions::new()).await?;
        decode(
            "server/discover",
            &raw,
            validate::discover_result,
            "DiscoverResult",
        )
    }

    /// `ping` (2025 only).
    ///
    /// # Errors
    ///
    /// [`ClientError::NotInEra`] in 2026-07-28; any request error.
    pub async fn ping(&self) -> Result<(), ClientError> {
        let negotiated = self.negotiated();
        if negotiated.modern {
            return Err(ClientError::NotInEra {
                method: "ping",
                version: negotiated.version,
            });
        }
        let call = Call {
            method: "ping",
            params: Map::new(),
            name: None,
            validator: validate::ping_request,
            modern_meta: None,
            headers: Vec::new(),
        };
        let raw = self.inner.request(call, &RequestOptions::new()).await?;
        let _: Map<String, Value> = decode("ping", &raw, validate::empty_result, "EmptyResult")?;
        Ok(())
    }

    /// Every tool, following `nextCursor` through all pages.
    ///
    /// # Errors
    ///
    /// Any request error; [`ClientError::InvalidMessage`] for a page that breaks the schema.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let (modern_v, legacy_v): (Validator, Validator) = (
            validate::list_tools_request,
            validate::legacy_list_tools_request,
        );
        let mut tools = self
            .paged("tools/list", modern_v, legacy_v, |modern, raw| {
                Ok(if modern {
                    let page: ListToolsResult = decode(
                        "tools/list",
                        raw,
                        validate::list_tools_result,
                        "ListToolsResult",
                    )?;
                    (page.tools, page.next_cursor.map(|c| c.0))
                } else {
                    let page: LegacyListToolsResult = decode(
                        "tools/list",
                        raw,
                        validate::legacy_list_tools_result,
                        "LegacyListToolsResult",
                    )?;
                    (page.tools, page.next_cursor.map(|c| c.0))
                })
            })
            .await?;
        self.learn_param_headers(&mut tools);
        #[cfg(feature = "output-schema")]
        super::typed_call::learn(
            &mut self
                .inner
                .output_schemas
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            &tools,
        );
        Ok(tools)
    }

    /// Over HTTP, remembers the tools' `x-mcp-header` annotations and leaves out the tools
    /// whose annotations are invalid.
    fn learn_param_headers(&self, tools: &mut Vec<Tool>) {
        #[cfg(feature = "http")]
        if matches!(self.inner.transport, super::Transport::Http(_)) {
            self.inner
                .param_headers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .learn(tools);
        }
        let _: &Vec<Tool> = tools;
    }

    /// The `Mcp-Param-*` headers of a call (learnt from the last `list_tools`).
    fn param_headers_for(&self, tool: &str, params: &Map<String, Value>) -> Vec<(String, String)> {
        #[cfg(feature = "http")]
        if let Some(arguments) = params.get("arguments") {
            return self
                .inner
                .param_headers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .for_call(tool, arguments);
        }
        let _: (&str, &Map<String, Value>) = (tool, params);
        Vec::new()
    }

    /// Every resource, following `nextCursor` through all pages.
    ///
    /// # Errors
    ///
    /// Any request error; [`ClientError::InvalidMessage`] for a page that breaks the schema.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        let (modern_v, legacy_v): (Validator, Validator) = (
            validate::list_resources_request,
            validate::legacy_list_resources_request,
        );
        self.paged("resources/list", modern_v, legacy_v, |modern, raw| {
            Ok(if modern {
                let page: ListResourcesResult = decode(
                    "resources/list",
                    raw,
                    validate::list_resources_result,
                    "ListResourcesResult",
                )?;
                (page.resources, page.next_cursor.map(|c| c.0))
            } else {
                let page: LegacyListResourcesResult = decode(
                    "resources/list",
                    raw,
                    validate::legacy_list_resources_result,
                    "LegacyListResourcesResult",
                )?;
                (page.resources, page.next_cursor.map(|c| c.0))
            })
        })
        .await
    }

    /// Every prompt, following `nextCursor` through all pages.
    ///
    /// # Errors
    ///
    /// Any request error; [`ClientError::InvalidMessage`] for a page that breaks the schema.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        let (modern_v, legacy_v): (Validator, Validator) = (
            validate::list_prompts_request,
            validate::legacy_list_prompts_request,
        );
        self.paged("prompts/list", modern_v, legacy_v, |modern, raw| {
            Ok(if modern {
                let page: ListPromptsResult = decode(
                    "prompts/list",
                    raw,
                    validate::list_prompts_result,
                    "ListPromptsResult",
                )?;
                (page.prompts, page.next_cursor.map(|c| c.0))
            } else {
                let page: LegacyListPromptsResult = decode(
                    "prompts/list",
                    raw,
                    validate::legacy_list_prompts_result,
                    "LegacyListPromptsResult",
                )?;
                (page.prompts, page.next_cursor.map(|c| c.0))
            })
        })
        .await
    }

    /// `tools/call` with the client's default timeout.
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidRequest`] if `arguments` is not an object; any request error.
    /// A tool that fails reports it in the result ([`ToolReply::is_error`]).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<ToolReply, ClientError> {
        self.call_tool_with(name, arguments, RequestOptions::new())
            .await
    }

    /// `tools/call` with per-request options (timeouts, progress).
    ///
    /// # Errors
    ///
    /// As [`Client::call_tool`].
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        options: RequestOptions,
    ) -> Result<ToolReply, ClientError> {
        #[cfg(feature = "http")]
        if self.is_modern() && matches!(self.inner.transport, super::Transport::Http(_)) {
            let learned = self
                .inner
                .param_headers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .learned();
            if !learned {
                // The tools' `x-mcp-header` annotations decide the call's headers.
                self.list_tools().await?;
            }
        }
        let mut params = Map::new();
        params.insert("name".to_owned(), Value::from(name));
        params.insert("arguments".to_owned(), arguments);
        let raw = self
            .era_request(
                "tools/call",
                params,
                Some(name),
                &options,
                validate::call_tool_request,
                validate::legacy_call_tool_request,
            )
            .await?;
        if self.is_modern() {
            let result: CallToolResult = decode(
                "tools/call",
                &raw,
                validate::call_tool_result,
                "CallToolResult",
            )?;
            Ok(Versioned::Modern(result))
        } else {
            let result: LegacyCallToolResult = decode(
                "tools/call",
                &raw,
                validate::legacy_call_tool_result,
                "LegacyCallToolResult",
            )?;
            Ok(Versioned::Legacy(result))
        }
    }

    /// `resources/read`.
    ///
    /// # Errors
    ///
    /// Any request error (an unknown URI is a [`ClientError::Rpc`]).
    pub async fn read_resource(&self, uri: &str) -> Result<ResourceResult, ClientError> {
        let mut params = Map::new();
        params.insert("uri".to_owned(), Value::from(uri));
        let raw = self
            .era_request(
                "resources/read",
                params,
                Some(uri),
                &RequestOptions::new(),
                validate::read_resource_request,
                validate::legacy_read_resource_request,
            )
            .await?;
        if self.is_modern() {
            let result: ReadResourceResult = decode(
                "resources/read",
                &raw,
                validate::read_resource_result,
                "ReadResourceResult",
            )?;
            Ok(Versioned::Modern(result))
        } else {
            let result: LegacyReadResourceResult = decode(
                "resources/read",
                &raw,
                validate::legacy_read_resource_result,
                "LegacyReadResourceResult",
            )?;
            Ok(Versioned::Legacy(result))
        }
    }

    /// `prompts/get` with `arguments` (an object of strings, or `{}`).
    ///
    /// # Errors
    ///
    /// [`ClientError::InvalidRequest`] if `arguments` is not an object of strings; any
    /// request error.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<PromptResult, ClientError> {
        let mut params = Map::new();
        params.insert("name".to_owned(), Value::from(name));
        params.insert("arguments".to_owned(), arguments);
        let raw = self
            .era_request(
                "prompts/get",
                params,
                Some(name),
                &RequestOptions::new(),
                validate::get_prompt_request,
                validate::legacy_get_prompt_request,
            )
            .await?;
        if self.is_modern() {
            let result: GetPromptResult = decode(
                "prompts/get",
                &raw,
                validate::get_prompt_result,
                "GetPromptResult",
            )?;
            Ok(Versioned::Modern(result))
        } else {
            let result: LegacyGetPromptResult = decode(
                "prompts/get",
                &raw,
                validate::legacy_get_prompt_result,
                "LegacyGetPromptResult",
            )?;
            Ok(Versioned::Legacy(result))
        }
    }

    /// Sends a request of either era, with that era's validator and `_meta`. In 2026-07-28,
    /// an `input_required` answer is fulfilled through the handler and the request sent
    /// again with `inputResponses` and the echoed `requestState`, for a few rounds.
    pub(super) async fn era_request(
        &self,
        method: &'static str,
        params: Map<String, Value>,
        name: Option<&str>,
        options: &RequestOptions,
        modern_validator: Validator,
        legacy_validator: Validator,
    ) -> Result<Box<serde_json::value::RawValue>, ClientError> {
        let negotiated = self.negotiated();
        let headers = match (method, name) {
            ("tools/call", Some(tool)) if negotiated.modern => {
                self.param_headers_for(tool, &params)
            }
            _ => Vec::new(),
        };
        let mut params = params;
        for _ in 0..MAX_INPUT_ROUNDS {
            let call = Call {
                method,
                params: params.clone(),
                name,
                validator: if negotiated.modern {
                    modern_validator
                } else {
                    legacy_validator
                },
                modern_meta: negotiated.modern.then_some(negotiated.version.as_str()),
                headers: headers.clone(),
            };
            let raw = self.inner.request(call, options).await?;
            if !negotiated.modern {
                return Ok(raw);
            }
            let Some(round) = input_round(method, &raw)? else {
                return Ok(raw);
            };
            let mut responses = Map::new();
            for (key, request) in round.requests {
                let input_method = request["method"].as_str().unwrap_or_default().to_owned();
                let input_params = request
                    .get("params")
                    .cloned()
                    .unwrap_or(Value::Object(Map::new()));
                let answer =
                    handler::serve(self.inner.router.handler(), input_method, input_params)
                        .await
                        .map_err(|error| {
                            tracing::warn!(%error, "an input request of the server was refused");
                            ClientError::InputRequired {
                                method: method.to_owned(),
                            }
                        })?;
                responses.insert(key, answer);
            }
            params.remove("inputResponses");
            params.remove("requestState");
            if !responses.is_empty() {
                params.insert("inputResponses".to_owned(), Value::Object(responses));
            }
            if let Some(state) = round.state {
                params.insert("requestState".to_owned(), Value::from(state));
            }
        }
        Err(ClientError::InputRequired {
            method: method.to_owned(),
        })
    }

    /// Follows cursors until a page has none.
    pub(super) async fn paged<T>(
        &self,
        method: &'static str,
        modern_validator: Validator,
        legacy_validator: Validator,
        page: impl Fn(
            bool,
            &serde_json::value::RawValue,
        ) -> Result<(Vec<T>, Option<String>), ClientError>,
    ) -> Result<Vec<T>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(cursor) = &cursor {
                params.insert("cursor".to_owned(), Value::from(cursor.as_str()));
            }
            let raw = self
                .era_request(
                    method,
                    params,
                    None,
                    &RequestOptions::new(),
                    modern_validator,
                    legacy_validator,
                )
                .await?;
            let (mut more, next) = page(self.is_modern(), &raw)?;
            items.append(&mut more);
            match next {
                Some(next) if Some(&next) == cursor.as_ref() => {
                    return Err(ClientError::MalformedMessage {
                        reason: format!("{method} returned the same nextCursor twice"),
                    });
                }
                Some(next) => cursor = Some(next),
                None => return Ok(items),
            }
        }
        Err(ClientError::MalformedMessage {
            reason: format!("{method} still had a nextCursor after {MAX_PAGES} pages"),
        })
    }

    /// The modern version, or `NotInEra` for a 2025 session.
    fn modern_version(&self, method: &'static str) -> Result<String, ClientError> {
        let negotiated = self.negotiated();
        if negotiated.modern {
            Ok(negotiated.version)
        } else {
            Err(ClientError::NotInEra {
                method,
                version: negotiated.version,
            })
        }
    }
}
