//! The conformance fixture server: the tools, resources and prompts the official MCP
//! conformance suite's server scenarios call, by the names the suite uses, over stdio (the
//! default) or Streamable HTTP.
//!
//! ```sh
//! cargo run --example conformance_server -- --http 127.0.0.1:0
//! ```
//!
//! With `--http ADDR` it serves `http://ADDR/mcp` and writes `listening on URL` to stderr
//! once it accepts connections. Logs go to stderr; stdout carries protocol messages only.
//! `tests/conformance.rs` runs the suite against it (`tests/conformance/scenarios-fixture.txt`).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{json, Value};
use tracing::level_filters::LevelFilter;
use typed_mcp::generated::protocol::{
    BlobResourceContents, ContentBlock, EmbeddedResource, EmbeddedResourceType, ImageContent,
    ImageContentType, LoggingLevel, PromptMessage, ResourceContents, Role, TextResourceContents,
    ToolAnnotations,
};
use typed_mcp::mcp::{
    content, user_text, McpError, McpServer, PromptDefinition, PromptError, ResourceDefinition,
    ResourceError, ResourceTemplateDefinition, TemplateParams, ToolDefinition,
};
use typed_mcp::tools::{ToolCallError, ToolContext};

/// The generated argument types of `examples/conformance_server/tools.json` (see `build.rs`).
#[allow(missing_docs, unreachable_pub, dead_code)]
mod arguments {
    include!(concat!(env!("OUT_DIR"), "/conformance/tools.rs"));
}
use arguments::{KeyArguments, MessageArguments, NoArguments, PromptArguments};

/// The tools whose schemas go beyond plain generated arguments: a verbatim JSON Schema
/// 2020-12 argument schema and a typed output.
#[path = "conformance_server/schema_tools.rs"]
mod schema_tools;

/// The `input_required` scenarios' fixtures (tools and a prompt that ask the client).
#[path = "conformance_server/input_required.rs"]
mod input_required;

/// The Skills scenarios' fixtures (`pdf-processing`, `acme/billing/refunds`).
#[path = "conformance_server/skills.rs"]
mod skills;

/// The Tasks scenarios' fixtures (`greet`, `slow_compute`, `failing_job`, ...).
#[path = "conformance_server/tasks.rs"]
mod tasks;

/// `test_trigger_tool_change` / `test_trigger_prompt_change`: list changes while serving.
#[path = "conformance_server/triggers.rs"]
mod triggers;

/// A tiny WAV file, base64.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// A 1×1 PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

fn text_contents(uri: &str, mime_type: &str, text: impl Into<String>) -> ResourceContents {
    ResourceContents::TextResourceContents(TextResourceContents {
        meta: None,
        mime_type: Some(mime_type.to_owned()),
        text: text.into(),
        uri: uri.to_owned(),
    })
}

fn message(content: ContentBlock) -> PromptMessage {
    PromptMessage {
        content,
        role: Role::User,
    }
}

fn tools() -> Result<Vec<ToolDefinition>, McpError> {
    // Listed first: the suite calls the first tool with `{}` and expects a result.
    let simple = ToolDefinition::new(
        "test_simple_text",
        |_ctx: ToolContext, _args: NoArguments| async move {
            Ok(Value::from("This is a simple text response for testing."))
        },
    )?
    .description("Returns a fixed text.")
    // A fixed answer: reads nothing, changes nothing, the same every time.
    .annotations(ToolAnnotations {
        title: Some("Simple text".to_owned()),
        read_only_hint: Some(true),
        idempotent_hint: Some(true),
        open_world_hint: Some(false),
        ..ToolAnnotations::default()
    });
    let error = ToolDefinition::new(
        "test_error_handling",
        |_ctx: ToolContext, _args: NoArguments| async move {
            Err::<Value, _>(ToolCallError::failed(
                "This tool intentionally returns an error for testing",
            ))
        },
    )?
    .description("Always fails, as a tool result with isError.")
    .annotations(ToolAnnotations {
        read_only_hint: Some(true),
        open_world_hint: Some(false),
        ..ToolAnnotations::default()
    });
    let progress = ToolDefinition::new(
        "test_tool_with_progress",
        |ctx: ToolContext, _args: NoArguments| async move {
            for step in [0.0, 50.0, 100.0] {
                ctx.progress().report(
                    step,
                    Some(100.0),
                    Some(format!("Completed step {step} of 100")),
                );
                if step < 100.0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            Ok(Value::from("Progress complete"))
        },
    )?
    .description("Reports progress 0, 50 and 100 of 100, 50 ms apart.");
    let logging = |name: &str| {
        ToolDefinition::new(name, |ctx: ToolContext, _args: NoArguments| async move {
            for (index, text) in [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ]
            .into_iter()
            .enumerate()
            {
                if index > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                ctx.log(LoggingLevel::Info, text);
            }
            Ok(Value::from("Logging complete"))
        })
        .map(|tool| {
            tool.description(
                "Logs three info messages, 50 ms apart, at the level the client asked for.",
            )
        })
    };
    let missing_capability = ToolDefinition::new(
        "test_missing_capability",
        |_ctx: ToolContext, _args: NoArguments| async move {
            Ok(Value::from("The client declared the sampling capability."))
        },
    )?
    .description("Needs the client's sampling capability: refused with -32021 without it.")
    .requires_client_capability("sampling");
    let content_tool = |name: &str, description: &str, output: fn() -> Value| {
        Ok::<_, McpError>(
            ToolDefinition::new(
                name,
                move |_ctx: ToolContext, _args: NoArguments| async move { Ok(output()) },
            )?
            .description(description)
            .returns_content(),
        )
    };
    let image = content_tool("test_image_content", "Returns an image.", || {
        content::blocks([content::image(PNG, "image/png")])
    })?;
    let audio = content_tool("test_audio_content", "Returns audio.", || {
        content::blocks([content::audio(WAV, "audio/wav")])
    })?;
    let embedded = content_tool(
        "test_embedded_resource",
        "Returns an embedded resource.",
        || {
            content::blocks([content::embedded_text(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.",
            )])
        },
    )?;
    let mixed = content_tool(
        "test_multiple_content_types",
        "Returns text, an image and an embedded resource.",
        || {
            content::blocks([
                content::text("Multiple content types test:"),
                content::image(PNG, "image/png"),
                content::embedded_text(
                    "test://mixed-content-resource",
                    "application/json",
                    r#"{"test":"data","value":123}"#,
                ),
            ])
        },
    )?;
    let sampling = ToolDefinition::new(
        "test_sampling",
        |ctx: ToolContext, args: PromptArguments| async move {
            let answer = ctx
                .sample(json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": args.prompt}}],
                    "maxTokens": 100
                }))
                .await
                .map_err(|error| ToolCallError::failed(error.to_string()))?;
            let text = answer["content"]["text"].as_str().unwrap_or_default();
            Ok(Value::from(format!("LLM response: {text}")))
        },
    )?
    .description("Asks the client's model (sampling/createMessage) and returns its answer.");
    let elicit_fixed = |name: &str, description: &str, request: fn() -> Value| {
        ToolDefinition::new(
            name,
            move |ctx: ToolContext, _args: NoArguments| async move {
                let answer = ctx
                    .elicit(request())
                    .await
                    .map_err(|error| ToolCallError::failed(error.to_string()))?;
                Ok(Value::from(format!(
                    "Elicitation completed: action={}, content={}",
                    answer["action"].as_str().unwrap_or("unknown"),
                    answer["content"]
                )))
            },
        )
        .map(|tool| tool.description(description))
    };
    let elicit = |name: &str, description: &str, request: fn(&str) -> Value| {
        ToolDefinition::new(
            name,
            move |ctx: ToolContext, args: MessageArguments| async move {
                let answer = ctx
                    .elicit(request(&args.message))
                    .await
                    .map_err(|error| ToolCallError::failed(error.to_string()))?;
                Ok(Value::from(format!(
                    "User response: action={}, content={}",
                    answer["action"].as_str().unwrap_or("unknown"),
                    answer["content"]
                )))
            },
        )
        .map(|tool| tool.description(description))
    };
    let elicitation = elicit(
        "test_elicitation",
        "Asks the user (elicitation/create) for a username and an email.",
        |message| {
            json!({
                "message": message,
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "username": {"type": "string", "description": "User's response"},
                        "email": {"type": "string", "description": "User's email address"}
                    },
                    "required": ["username", "email"]
                }
            })
        },
    )?;
    let defaults = elicit_fixed(
        "test_elicitation_sep1034_defaults",
        "Asks the user for fields that have defaults (SEP-1034).",
        || {
            json!({
                "mode": "form",
                "message": "Please review and update the form fields with defaults",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "User name", "default": "John Doe"},
                        "age": {"type": "integer", "description": "User age", "default": 30},
                        "score": {"type": "number", "description": "User score", "default": 95.5},
                        "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                        "verified": {"type": "boolean", "description": "Verification status", "default": true}
                    },
                    "required": []
                }
            })
        },
    )?;
    let enums = elicit_fixed(
        "test_elicitation_sep1330_enums",
        "Asks the user to choose in every enum form (SEP-1330).",
        || {
            json!({
                "mode": "form",
                "message": "Please select options from the enum fields",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
                        "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": [
                            {"const": "value1", "title": "First Option"},
                            {"const": "value2", "title": "Second Option"},
                            {"const": "value3", "title": "Third Option"}
                        ]},
                        "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                        "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                        "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3, "items": {"anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}
                        ]}}
                    },
                    "required": []
                }
            })
        },
    )?;
    // SSE polling (SEP-1699, the suite's server-sse-polling): the server ends the call's
    // event stream before the result, which waits in the session's event log until the
    // client resumes with GET and Last-Event-ID.
    let reconnection = ToolDefinition::new(
        "test_reconnection",
        |ctx: ToolContext, _args: NoArguments| async move {
            if ctx.close_event_stream() {
                // The result comes after the stream closed: only a resumed stream gets it.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Ok(Value::from("Reconnection test completed"))
        },
    )?
    .description(
        "Closes its event stream before answering (2025 HTTP sessions): the result is \
         delivered when the client resumes with GET and Last-Event-ID.",
    );
    let key = ToolDefinition::new(
        "test_header_key",
        |_ctx: ToolContext, args: KeyArguments| async move { Ok(json!({ "key": args.key })) },
    )?
    .description("Sends back its key, which HTTP clients mirror in the Mcp-Param-Key header.");
    Ok(vec![
        simple,
        error,
        progress,
        logging("test_tool_with_logging")?,
        logging("test_logging_tool")?,
        missing_capability,
        image,
        audio,
        embedded,
        mixed,
        sampling,
        elicitation,
        defaults,
        enums,
        reconnection,
        key,
        schema_tools::json_schema_2020_12()?,
        schema_tools::typed_output()?,
    ]
    .into_iter()
    .chain(input_required::tools()?)
    .collect())
}

fn resources() -> Result<(Vec<ResourceDefinition>, ResourceTemplateDefinition), McpError> {
    let text = ResourceDefinition::text(
        "test://static-text",
        "static-text",
        "text/plain",
        "This is the content of the static text resource.",
    )
    .description("A fixed text.");
    let binary = ResourceDefinition::new("test://static-binary", "static-binary", |uri: &str| {
        Ok(vec![ResourceContents::BlobResourceContents(
            BlobResourceContents {
                blob: PNG.to_owned(),
                meta: None,
                mime_type: Some("image/png".to_owned()),
                uri: uri.to_owned(),
            },
        )])
    })
    .mime_type("image/png")
    .description("A 1×1 PNG image.");
    let watched = ResourceDefinition::text(
        "test://watched-resource",
        "watched-resource",
        "text/plain",
        "Watched resource content",
    )
    .description("A text resource.");
    let template = ResourceTemplateDefinition::new(
        "test://template/{id}/data",
        "template-data",
        |uri: &str, params: &TemplateParams| {
            let id = params.get("id").ok_or(ResourceError::NotFound)?;
            let data =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            Ok(vec![text_contents(
                uri,
                "application/json",
                data.to_string(),
            )])
        },
    )?
    .mime_type("application/json")
    .description("Data for any id.");
    Ok((vec![text, binary, watched], template))
}

fn prompts() -> Vec<PromptDefinition> {
    let simple = PromptDefinition::new("test_simple_prompt", "A prompt without arguments.", |_| {
        Ok(vec![user_text("This is a simple prompt for testing.")])
    });
    let with_arguments = PromptDefinition::new(
        "test_prompt_with_arguments",
        "A prompt with two required arguments.",
        |args| {
            let arg = |name: &str| {
                args.get(name)
                    .cloned()
                    .ok_or_else(|| PromptError::InvalidArguments(format!("{name} is required")))
            };
            Ok(vec![user_text(format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                arg("arg1")?,
                arg("arg2")?
            ))])
        },
    )
    .argument("arg1", "First test argument.", true)
    .argument("arg2", "Second test argument.", true)
    // No suggestions: the suite checks the shape of the answer.
    .completer(|_argument, _prefix, _resolved| Vec::new());
    let embedded = PromptDefinition::new(
        "test_prompt_with_embedded_resource",
        "A prompt embedding the resource it is given.",
        |args| {
            let uri = args.get("resourceUri").ok_or_else(|| {
                PromptError::InvalidArguments("resourceUri is required".to_owned())
            })?;
            Ok(vec![
                message(ContentBlock::EmbeddedResource(EmbeddedResource {
                    annotations: None,
                    meta: None,
                    resource: text_contents(
                        uri,
                        "text/plain",
                        "Embedded resource content for testing.",
                    ),
                    type_: EmbeddedResourceType::Resource,
                })),
                user_text("Please process the embedded resource above."),
            ])
        },
    )
    .argument("resourceUri", "The URI of the resource to embed.", true);
    let image = PromptDefinition::new("test_prompt_with_image", "A prompt with an image.", |_| {
        Ok(vec![
            message(ContentBlock::ImageContent(ImageContent {
                annotations: None,
                data: PNG.to_owned(),
                meta: None,
                mime_type: "image/png".to_owned(),
                type_: ImageContentType::Image,
            })),
            user_text("Please analyze the image above."),
        ])
    });
    vec![
        simple,
        with_arguments,
        embedded,
        image,
        input_required::prompt(),
    ]
}

fn build() -> Result<McpServer, McpError> {
    let (resources, template) = resources()?;
    let mut builder =
        McpServer::builder("typed-mcp-conformance-fixture", env!("CARGO_PKG_VERSION"))
            .instructions("The fixtures of the official MCP conformance suite's server scenarios.")
            .resource_template(template);
    let slot = triggers::ServerSlot::default();
    let tools = tools()?
        .into_iter()
        .chain(triggers::trigger_tools(&slot)?)
        .chain(tasks::task_tools()?);
    for tool in tools {
        builder = builder.tool(tool);
    }
    for resource in resources {
        builder = builder.resource(resource);
    }
    for prompt in prompts() {
        builder = builder.prompt(prompt);
    }
    for skill in skills::skills() {
        builder = builder.skill(skill);
    }
    let server = builder.build()?;
    // The hooks hold the server they change (a cycle that lives as long as the process).
    if slot.set(server.clone()).is_err() {
        unreachable!("the slot is filled once, here");
    }
    Ok(server)
}

async fn serve(http: Option<SocketAddr>) -> Result<(), Box<dyn std::error::Error>> {
    let server = build()?;
    let Some(addr) = http else {
        server.serve_stdio().await?;
        return Ok(());
    };
    let running = server.serve_http(addr).await?;
    eprintln!("listening on {}", running.url());
    running.shutdown_on_signal().await?;
    Ok(())
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::INFO) {
        eprintln!("conformance_server: {error}");
    }
    let mut args = std::env::args().skip(1);
    let http = match (args.next().as_deref(), args.next()) {
        (None, _) => None,
        (Some("--http"), Some(addr)) => match addr.parse() {
            Ok(addr) => Some(addr),
            Err(_) => {
                eprintln!("usage: conformance_server [--http ADDR]");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: conformance_server [--http ADDR]");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("conformance_server: no async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(serve(http));
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(error = %typed_mcp::logging::ErrorChain(&*error), "conformance_server failed");
            ExitCode::FAILURE
        }
    }
}
