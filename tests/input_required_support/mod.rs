//! The fixture of `tests/mcp_server_input_required.rs`: a server whose tools and prompt ask
//! the client questions, counters of how often each handler started and finished, and
//! helpers building `tools/call` params, retries and answers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::mcp_server_support::demo::arguments::EchoArguments;
use crate::mcp_server_support::{call, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::mcp::{user_text, McpServer, PromptDefinition, PromptError, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

/// How many times each tool's handler started and how many times it ran to its end.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    pub(crate) started: AtomicUsize,
    pub(crate) completed: AtomicUsize,
}

impl Runs {
    pub(crate) fn counts(&self) -> (usize, usize) {
        (
            self.started.load(Ordering::SeqCst),
            self.completed.load(Ordering::SeqCst),
        )
    }
}

pub(crate) fn failed(error: typed_mcp::tools::ClientRequestError) -> ToolCallError {
    ToolCallError::failed(error.to_string())
}

pub(crate) fn sampling_params(text: &str) -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": 10
    })
}

pub(crate) fn elicitation_params(message: &str) -> Value {
    json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"]
        }
    })
}

/// The server of these tests:
/// - `two_rounds` samples (unkeyed: `sampling-1`), then, with that answer, elicits
///   (unkeyed: `elicitation-2`), and returns both answers;
/// - `three_at_once` asks a sampling, an elicitation and the roots at once, under the keys
///   `greeting`, `name` and `roots`;
/// - `declared` needs `sampling` and `elicitation.url` declared (`-32021` otherwise).
pub(crate) fn server(two: &Arc<Runs>, three: &Arc<Runs>, declared: &Arc<Runs>) -> McpServer {
    let runs = Arc::clone(two);
    let two_rounds = ToolDefinition::new(
        "two_rounds",
        move |ctx: ToolContext, args: EchoArguments| {
            let runs = Arc::clone(&runs);
            async move {
                let _before: usize = runs.started.fetch_add(1, Ordering::SeqCst);
                let sample = ctx
                    .sample(sampling_params(&args.text))
                    .await
                    .map_err(failed)?;
                let said = sample["content"]["text"].as_str().unwrap_or("?").to_owned();
                let elicited = ctx
                    .elicit(elicitation_params(&format!("The model said {said}. Name?")))
                    .await
                    .map_err(failed)?;
                let name = elicited["content"]["name"].as_str().unwrap_or("?");
                let _before: usize = runs.completed.fetch_add(1, Ordering::SeqCst);
                Ok(Value::from(format!("{}: {said} / {name}", args.text)))
            }
        },
    )
    .unwrap()
    .description("Asks the model, then the user about the model's answer.");
    let runs = Arc::clone(three);
    let three_at_once = ToolDefinition::new(
        "three_at_once",
        move |ctx: ToolContext, args: EchoArguments| {
            let runs = Arc::clone(&runs);
            async move {
                let _before: usize = runs.started.fetch_add(1, Ordering::SeqCst);
                let (greeting, name, roots) = tokio::join!(
                    ctx.ask(
                        Some("greeting"),
                        "sampling/createMessage",
                        sampling_params(&args.text)
                    ),
                    ctx.ask(
                        Some("name"),
                        "elicitation/create",
                        elicitation_params("Name?")
                    ),
                    ctx.ask(Some("roots"), "roots/list", json!({})),
                );
                let (greeting, name, roots) = (
                    greeting.map_err(failed)?,
                    name.map_err(failed)?,
                    roots.map_err(failed)?,
                );
                let roots: Vec<&str> = roots["roots"]
                    .as_array()
                    .map(|roots| roots.iter().filter_map(|r| r["uri"].as_str()).collect())
                    .unwrap_or_default();
                let _before: usize = runs.completed.fetch_add(1, Ordering::SeqCst);
                Ok(Value::from(format!(
                    "{} {} in {}",
                    greeting["content"]["text"].as_str().unwrap_or("?"),
                    name["content"]["name"].as_str().unwrap_or("?"),
                    roots.join(",")
                )))
            }
        },
    )
    .unwrap()
    .description("Asks a sampling, an elicitation and the roots in one round.");
    let runs = Arc::clone(declared);
    let declared =
        ToolDefinition::new("declared", move |_ctx: ToolContext, args: EchoArguments| {
            let runs = Arc::clone(&runs);
            async move {
                let _before: usize = runs.started.fetch_add(1, Ordering::SeqCst);
                let _before: usize = runs.completed.fetch_add(1, Ordering::SeqCst);
                Ok(Value::from(args.text))
            }
        })
        .unwrap()
        .description("Needs sampling and URL-mode elicitation declared.")
        .requires_client_capability("sampling")
        .requires_client_capability("elicitation.url");
    // A prompt of the same name as the tool: two keyed rounds.
    let prompt = PromptDefinition::asking(
        "two_rounds",
        "Asks a topic, then the model about it.",
        |ctx, args| async move {
            let failed = |error: typed_mcp::tools::ClientRequestError| {
                PromptError::Failed(error.to_string())
            };
            let topic = ctx
                .ask(
                    Some("topic"),
                    "elicitation/create",
                    elicitation_params("Topic?"),
                )
                .await
                .map_err(failed)?;
            let topic = topic["content"]["name"].as_str().unwrap_or("?").to_owned();
            let said = ctx
                .ask(
                    Some("said"),
                    "sampling/createMessage",
                    sampling_params(&topic),
                )
                .await
                .map_err(failed)?;
            Ok(vec![user_text(format!(
                "{} {topic}: {}",
                args.get("style").map_or("?", String::as_str),
                said["content"]["text"].as_str().unwrap_or("?")
            ))])
        },
    )
    .argument("style", "How to say it.", true);
    McpServer::builder("input-required", "1")
        .prompt(prompt)
        .tool(two_rounds)
        .tool(three_at_once)
        .tool(declared)
        .build()
        .unwrap()
}

pub(crate) struct Fixture {
    pub(crate) client: TestClient,
    pub(crate) two: Arc<Runs>,
    pub(crate) three: Arc<Runs>,
    pub(crate) declared: Arc<Runs>,
}

pub(crate) fn start() -> Fixture {
    let (two, three, declared) = Default::default();
    let client = TestClient::start(server(&two, &three, &declared));
    Fixture {
        client,
        two,
        three,
        declared,
    }
}

/// Modern `tools/call` params of `tool` from a client declaring `capabilities`.
pub(crate) fn params(tool: &str, text: &str, capabilities: Value) -> Value {
    let mut params = modern(call(tool, json!({ "text": text })));
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    params
}

pub(crate) fn all_capabilities() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {}})
}

/// A request that asks the client (`tools/call` or `prompts/get`) and its retries, each
/// with the first request's params, the answers given and a `requestState`.
pub(crate) struct Asking {
    method: &'static str,
    pub(crate) params: Value,
}

impl Asking {
    /// `tools/call` of `tool` with `text`, from a client declaring every capability.
    pub(crate) fn tool(tool: &str, text: &str) -> Self {
        Self {
            method: "tools/call",
            params: params(tool, text, all_capabilities()),
        }
    }

    /// `prompts/get` with `params`.
    pub(crate) fn prompt(params: Value) -> Self {
        Self {
            method: "prompts/get",
            params,
        }
    }

    /// The result of the first request.
    pub(crate) async fn first(&self, client: &mut TestClient, id: u64) -> Value {
        client
            .result(json!(id), self.method, Some(self.params.clone()))
            .await
    }

    /// The result of a retry with `answers` and the state of the result `previous`.
    pub(crate) async fn answer(
        &self,
        client: &mut TestClient,
        id: u64,
        answers: Value,
        previous: &Value,
    ) -> Value {
        let retried = retry(&self.params, answers, &state_of(previous));
        client.result(json!(id), self.method, Some(retried)).await
    }

    /// The error a retry with `answers` and `state` gets.
    pub(crate) async fn refused(
        &self,
        client: &mut TestClient,
        id: u64,
        answers: Value,
        state: &str,
    ) -> Value {
        let retried = retry(&self.params, answers, state);
        client.error(json!(id), self.method, Some(retried)).await
    }
}

/// `params` retried with `responses` and `state`.
pub(crate) fn retry(params: &Value, responses: Value, state: &str) -> Value {
    let mut params = params.clone();
    params["inputResponses"] = responses;
    params["requestState"] = json!(state);
    params
}

/// The keys of an `input_required` result's `inputRequests`, sorted.
pub(crate) fn keys(result: &Value) -> Vec<String> {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let mut keys: Vec<String> = result["inputRequests"]
        .as_object()
        .expect("inputRequests")
        .keys()
        .cloned()
        .collect();
    keys.sort();
    keys
}

pub(crate) fn state_of(result: &Value) -> String {
    result["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned()
}

pub(crate) fn sampled(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "m"})
}

pub(crate) fn elicited(name: &str) -> Value {
    json!({"action": "accept", "content": {"name": name}})
}

pub(crate) fn listed_roots() -> Value {
    json!({"roots": [{"uri": "file:///a", "name": "a"}, {"uri": "file:///b"}]})
}

/// The three answers `three_at_once` asks for.
pub(crate) fn three_answers() -> Value {
    json!({"greeting": sampled("Hello"), "name": elicited("Ada"), "roots": listed_roots()})
}

/// `state` with the character at `at` replaced by another base64url character.
pub(crate) fn flipped(state: &str, at: usize) -> String {
    let mut bytes = state.as_bytes().to_vec();
    bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
    String::from_utf8(bytes).unwrap()
}
