//! The demo server's tools, resource and prompt (shared by `examples/demo_server.rs` and the
//! `tests/mcp_server_*.rs` tests).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Number, Value};
use typed_mcp::generated::limits::Limits;
use typed_mcp::generated::protocol::{LoggingLevel, ResourceContents, TextResourceContents};
use typed_mcp::mcp::{
    user_text, McpError, McpServer, PromptDefinition, PromptError, ResourceDefinition,
    ResourceError, ResourceTemplateDefinition, TemplateParams, ToolDefinition,
};
use typed_mcp::tools::{ToolCallError, ToolContext, ToolResult};

/// The generated argument types of `examples/demo_server/tools.json` (see `build.rs`).
#[allow(missing_docs, unreachable_pub, dead_code)]
pub mod arguments {
    include!(concat!(env!("OUT_DIR"), "/demo/tools.rs"));
}

use arguments::{
    AddArguments, BigArguments, ConfirmArguments, EchoArguments, LookupArguments, RouteArguments,
    SleepArguments, SpinArguments, SumArguments, TouchArguments,
};

/// The server `touch` announces changes through: set by the demo server once it is built
/// (tests that build the tools alone leave it unset, and `touch` then notifies no one).
pub(crate) static SERVER: std::sync::OnceLock<McpServer> = std::sync::OnceLock::new();

/// The text of the `demo://readme` resource.
pub(crate) const README: &str = include_str!("README.md");

/// The largest text `big` produces (a guard for the server's memory, not a protocol limit).
pub(crate) const BIG_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// What `big` repeats.
const BIG_PATTERN: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

fn as_f64(number: &Number) -> f64 {
    number.as_f64().unwrap_or(f64::NAN)
}

fn number(value: f64) -> ToolResult {
    Number::from_f64(value)
        .map(Value::Number)
        .ok_or_else(|| ToolCallError::failed("the result is not a finite number"))
}

/// The demo server with `limits`.
///
/// # Errors
///
/// If a tool's schema and type disagree, or the limits do not validate.
/// The names the demo suggests for `name` (prompt argument and template variable).
const NAMES: &[&str] = &["Ada", "Alan", "Barbara", "Grace", "Linus", "Margaret"];

fn complete_name(prefix: &str) -> Vec<String> {
    NAMES
        .iter()
        .filter(|name| name.to_lowercase().starts_with(&prefix.to_lowercase()))
        .map(|name| (*name).to_owned())
        .collect()
}

pub(crate) fn build(limits: Limits) -> Result<McpServer, McpError> {
    let computations = Arc::new(AtomicU64::new(0));
    let echo = ToolDefinition::new(
        "echo",
        |_ctx: ToolContext, args: EchoArguments| async move { Ok(Value::String(args.text)) },
    )?
    .description("Sends the text back unchanged.")
    .in_place();
    let add = ToolDefinition::new("add", |_ctx: ToolContext, args: AddArguments| async move {
        Ok(json!({ "sum": number(as_f64(&args.a) + as_f64(&args.b))? }))
    })?
    .description("Adds two numbers; answers {sum}.")
    .in_place();
    let sleep = ToolDefinition::new(
        "sleep",
        |ctx: ToolContext, args: SleepArguments| async move {
            let total = args.ms as f64;
            ctx.progress()
                .report(0.0, Some(total), Some("sleeping".to_owned()));
            ctx.log(LoggingLevel::Info, format!("sleeping for {} ms", args.ms));
            tokio::time::sleep(Duration::from_millis(args.ms)).await;
            ctx.progress()
                .report(total, Some(total), Some("awake".to_owned()));
            ctx.log(LoggingLevel::Debug, "awake");
            Ok(json!({ "sleptMs": args.ms }))
        },
    )?
    .description("Waits for ms milliseconds without holding a thread (category slow).")
    .category("slow");
    let spin = ToolDefinition::new("spin", |ctx: ToolContext, args: SpinArguments| {
        let started = Instant::now();
        let duration = Duration::from_millis(args.ms);
        while started.elapsed() < duration {
            if ctx.is_cancelled() {
                return Err(ToolCallError::Cancelled);
            }
            std::thread::sleep(Duration::from_millis(1).min(duration));
        }
        Ok(json!({ "spunMs": args.ms }))
    })?
    .description("Blocks its thread for ms milliseconds (a synchronous handler).");
    let big = ToolDefinition::new("big", |_ctx: ToolContext, args: BigArguments| async move {
        if args.bytes > BIG_MAX_BYTES {
            return Err(ToolCallError::failed(format!(
                "big produces at most {BIG_MAX_BYTES} bytes"
            )));
        }
        let length = usize::try_from(args.bytes)
            .map_err(|_| ToolCallError::failed("too many bytes for this machine"))?;
        let text: String = BIG_PATTERN
            .iter()
            .cycle()
            .take(length)
            .map(|&b| char::from(b))
            .collect();
        Ok(Value::String(text))
    })?
    .description("Produces a text of exactly `bytes` bytes.")
    // Its answer is as large as the response limit allows: the request loop reserves that
    // much of the output budget per call, so a burst of calls stays within the budget even
    // before the first answer exists.
    .max_answer_bytes(usize::try_from(limits.response.max_response_bytes).unwrap_or(usize::MAX));
    let sum = ToolDefinition::new("sum", |_ctx: ToolContext, args: SumArguments| async move {
        Ok(json!({ "sum": number(args.values.iter().map(as_f64).sum())? }))
    })?
    .description("Adds up an array of numbers; answers {sum}.");
    let counter = Arc::clone(&computations);
    let lookup = ToolDefinition::new("lookup", move |_ctx: ToolContext, args: LookupArguments| {
        let counter = Arc::clone(&counter);
        async move {
            let computations = counter.fetch_add(1, Ordering::SeqCst) + 1;
            let value: String = args.key.chars().rev().collect();
            Ok(json!({ "key": args.key, "value": value, "computations": computations }))
        }
    })?
    .description(
        "Looks up the value of a key (cacheable); `computations` counts how often the lookup \
         really ran, so a cached answer repeats it.",
    )
    .cacheable(true);
    let route = ToolDefinition::new(
        "route",
        |_ctx: ToolContext, args: RouteArguments| async move { Ok(json!({ "routedTo": args.key })) },
    )?
    .description(
        "Sends back the routing key; over Streamable HTTP the key is mirrored in the \
         Mcp-Param-Route header, which the server checks against the body.",
    );
    let confirm = ToolDefinition::new(
        "confirm",
        |ctx: ToolContext, args: ConfirmArguments| async move {
            let answer = ctx
                .elicit(json!({
                    "message": args.question,
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"confirmed": {"type": "boolean"}},
                        "required": ["confirmed"]
                    }
                }))
                .await
                .map_err(|error| ToolCallError::failed(error.to_string()))?;
            Ok(json!({
                "question": args.question,
                "action": answer["action"],
                "confirmed": answer["content"]["confirmed"] == true
            }))
        },
    )?
    .description(
        "Asks the user a yes/no question (an elicitation: a request to the client in 2025, an \
         input_required round in 2026-07-28), then reports the answer.",
    );
    let touch = ToolDefinition::new(
        "touch",
        |_ctx: ToolContext, args: TouchArguments| async move {
            let notified = match SERVER.get() {
                Some(server) => server.notify_resource_updated(&args.uri).await,
                None => 0,
            };
            Ok(json!({ "uri": args.uri, "notified": notified }))
        },
    )?
    .description(
        "Announces that a resource changed: sends notifications/resources/updated to the \
         sessions of this process subscribed to it (resources/subscribe); answers {notified}.",
    );
    let greetings = ResourceTemplateDefinition::new(
        "demo://greetings/{name}",
        "greeting",
        |uri: &str, params: &TemplateParams| {
            let name = params.get("name").ok_or(ResourceError::NotFound)?;
            Ok(vec![ResourceContents::TextResourceContents(
                TextResourceContents {
                    meta: None,
                    mime_type: Some("text/plain".to_owned()),
                    text: format!("Hello, {name}!"),
                    uri: uri.to_owned(),
                },
            )])
        },
    )?
    .description("A greeting for anyone: demo://greetings/{name}.")
    .mime_type("text/plain")
    .completer(|_variable, prefix, _resolved| complete_name(prefix));
    let readme = ResourceDefinition::text("demo://readme", "readme", "text/markdown", README)
        .description("What the demo server offers.");
    let greet = PromptDefinition::new("greet", "Greets someone by name.", |args| {
        let name = args
            .get("name")
            .ok_or_else(|| PromptError::InvalidArguments("name is required".to_owned()))?;
        Ok(vec![user_text(format!(
            "Please greet {name} warmly, in one sentence."
        ))])
    })
    .argument("name", "Who to greet.", true)
    .completer(|_argument, prefix, _resolved| complete_name(prefix));
    McpServer::builder("typed-mcp-demo", env!("CARGO_PKG_VERSION"))
        .instructions(
            "A demo of the typed-mcp runtime: echo, add, sleep, spin, big, sum, lookup, route, touch and \
             confirm, \
             the demo://readme resource and the greet prompt.",
        )
        .limits(limits)
        .tool(echo)
        .tool(add)
        .tool(sleep)
        .tool(spin)
        .tool(big)
        .tool(sum)
        .tool(lookup)
        .tool(route)
        .tool(confirm)
        .tool(touch)
        .resource(readme)
        .resource_template(greetings)
        .prompt(greet)
        .build()
}
