//! One request from send to typed answer: id, `_meta`, outbound validation, the timeout
//! (reset by progress, bounded by a maximum total), cancellation when dropped, and the
//! answer validated by its generated validator before it is decoded.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::validation::ValidationError;

use super::router::Reply;
use super::{ClientError, Inner, RequestOptions, Transport};

/// A generated whole-message validator.
pub(crate) type Validator = fn(&Value) -> Result<(), Vec<ValidationError>>;

/// What a request is, before it gets an id.
pub(crate) struct Call<'a> {
    /// The JSON-RPC method.
    pub(crate) method: &'static str,
    /// The params object, without `_meta` (added here).
    pub(crate) params: Map<String, Value>,
    /// `Mcp-Name` over HTTP (tool or prompt name, resource URI).
    pub(crate) name: Option<&'a str>,
    /// The validator of the whole request message.
    pub(crate) validator: Validator,
    /// Whether the 2026-07-28 `_meta` members are added.
    pub(crate) modern_meta: Option<&'a str>,
    /// Extra HTTP headers (`Mcp-Param-*`), as name and value.
    pub(crate) headers: Vec<(String, String)>,
}

/// Sends `notifications/cancelled` if dropped while armed.
struct CancelGuard {
    inner: Arc<Inner>,
    id: u64,
    token: Option<String>,
    armed: bool,
}

impl CancelGuard {
    fn finish(mut self) {
        self.armed = false;
    }
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        self.inner.router.forget(self.id);
        if let Some(token) = &self.token {
            self.inner.router.unwatch_progress(token);
        }
        if self.armed {
            self.inner.send_cancelled(self.id);
        }
    }
}

impl Inner {
    /// Sends a request and returns its raw result (a JSON-RPC error becomes
    /// [`ClientError::Rpc`]).
    pub(crate) async fn request(
        self: &Arc<Self>,
        call: Call<'_>,
        options: &RequestOptions,
    ) -> Result<Box<RawValue>, ClientError> {
        let method = call.method;
        let (id, answer) = self.router.register(method)?;
        let mut params = call.params;
        let mut meta = call
            .modern_meta
            .map(|version| self.modern_meta(version))
            .unwrap_or_default();
        let (progress_sink, mut progress) = mpsc::unbounded_channel();
        let token = options.progress.as_ref().map(|_| {
            let token = format!("typed-mcp-{id}");
            meta.insert("progressToken".to_owned(), Value::from(token.clone()));
            let key = Value::from(token).to_string();
            self.router.watch_progress(key.clone(), progress_sink);
            key
        });
        if !meta.is_empty() {
            params.insert("_meta".to_owned(), Value::Object(meta));
        }
        let mut message = Map::new();
        message.insert("jsonrpc".to_owned(), Value::from("2.0"));
        message.insert("id".to_owned(), Value::from(id));
        message.insert("method".to_owned(), Value::from(method));
        if !params.is_empty() || method != "ping" {
            message.insert("params".to_owned(), Value::Object(params));
        }
        let message = Value::Object(message);
        let guard = CancelGuard {
            inner: Arc::clone(self),
            id,
            token,
            armed: false,
        };
        if let Err(errors) = (call.validator)(&message) {
            return Err(ClientError::InvalidRequest {
                method: method.to_owned(),
                errors,
            });
        }
        let mut guard = guard;
        guard.armed = method != "initialize";
        let body = encode(&message);
        let exchange = async {
            self.transport
                .send(id, method, call.name, &call.headers, body)
                .await?;
            answer.await.map_err(|_| ClientError::ConnectionClosed {
                method: method.to_owned(),
            })?
        };
        tokio::pin!(exchange);
        let idle = options.timeout.unwrap_or(self.options.request_timeout);
        let started = Instant::now();
        let total = if options.progress.is_some() {
            options
                .max_total
                .unwrap_or(self.options.max_total)
                .max(idle)
        } else {
            idle
        };
        let total_deadline = started + total;
        let mut idle_deadline = started + idle;
        loop {
            let deadline = idle_deadline.min(total_deadline);
            tokio::select! {
                reply = &mut exchange => {
                    guard.finish();
                    return match reply? {
                        Reply::Result(raw) => Ok(raw),
                        Reply::Error { code, message, data } => Err(ClientError::Rpc {
                            method: method.to_owned(),
                            code,
                            message,
                            data,
                        }),
                    };
                }
                Some(report) = progress.recv() => {
                    if let Some(callback) = &options.progress {
                        callback(report);
                    }
                    idle_deadline = Instant::now() + idle;
                }
                () = tokio::time::sleep_until(deadline) => {
                    return Err(ClientError::Timeout {
                        method: method.to_owned(),
                        elapsed: started.elapsed(),
                    });
                }
            }
        }
    }

    /// The 2026-07-28 `_meta` members of a request: version, capabilities, client identity
    /// and the log level asked for.
    pub(crate) fn modern_meta(&self, version: &str) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert(
            "io.modelcontextprotocol/protocolVersion".to_owned(),
            Value::from(version),
        );
        meta.insert(
            "io.modelcontextprotocol/clientCapabilities".to_owned(),
            self.options.capabilities.clone(),
        );
        meta.insert(
            "io.modelcontextprotocol/clientInfo".to_owned(),
            self.options.client_info(),
        );
        let level = *self
            .log_level
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(level) = level {
            meta.insert(
                "io.modelcontextprotocol/logLevel".to_owned(),
                serde_json::to_value(level).unwrap_or(Value::Null),
            );
        }
        meta
    }

    /// Sends a notification (fire and forget over stdio; one POST over HTTP).
    pub(crate) async fn notify(
        &self,
        method: &'static str,
        params: Value,
    ) -> Result<(), ClientError> {
        let message = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.transport.notify(method, encode(&message)).await
    }

    /// `notifications/cancelled` for a request given up on, without waiting.
    pub(crate) fn send_cancelled(self: &Arc<Self>, id: u64) {
        let message = serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "the client gave up on the request"},
        });
        let line = encode(&message);
        match &self.transport {
            Transport::Stream(stream) => stream.send_now(line),
            #[cfg(feature = "http")]
            Transport::Http(_) => {
                let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                    return;
                };
                let inner = Arc::clone(self);
                drop(runtime.spawn(async move {
                    if let Err(error) = inner
                        .transport
                        .notify("notifications/cancelled", line)
                        .await
                    {
                        tracing::debug!(%error, "sending the cancellation failed");
                    }
                }));
            }
        }
    }
}

/// Validates what a server sent against definition `definition`: undeclared members are
/// dropped first (receivers ignore what they do not know), then the rest is checked in full.
pub(crate) fn validate_received(
    value: &mut Value,
    validator: Validator,
    definition: &'static str,
) -> Result<(), Vec<ValidationError>> {
    super::prune::prune(value, definition);
    validator(value)
}

/// Validates a result with its generated validator (after dropping undeclared members), then
/// decodes it.
pub(crate) fn decode<T: DeserializeOwned>(
    method: &str,
    raw: &RawValue,
    validator: Validator,
    definition: &'static str,
) -> Result<T, ClientError> {
    let value: Value =
        serde_json::from_str(raw.get()).map_err(|_| ClientError::MalformedMessage {
            reason: "the result is not valid JSON".to_owned(),
        })?;
    if value.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Err(ClientError::InputRequired {
            method: method.to_owned(),
        });
    }
    let invalid = |errors| ClientError::InvalidMessage {
        what: format!("{method} result"),
        definition,
        errors,
    };
    let mut value = value;
    validate_received(&mut value, validator, definition).map_err(invalid)?;
    serde_json::from_value(value).map_err(|_| invalid(Vec::new()))
}

/// One compact line, `\n`-terminated.
pub(crate) fn encode(message: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).unwrap_or_default();
    line.push(b'\n');
    line
}
