//! The README's code fragments, compiled: `tests/readme.rs` checks that every ```rust block of
//! the README appears in this fixture crate (here, in `examples/quick_start.rs` or in
//! `build.rs`), so a README example that stops compiling fails the tests.

// The fragments are compiled, not run.
#![allow(dead_code)]

use typed_mcp::generated::protocol::{ResourceContents, TextResourceContents};
use typed_mcp::mcp::{
    user_text, McpServer, PromptDefinition, ResourceDefinition, ResourceError,
    ResourceTemplateDefinition, ToolDefinition,
};

/// README "The build.rs integration": the builder with every option.
fn build_rs_options() -> Result<(), typed_mcp_codegen::Error> {
    typed_mcp_codegen::Config::new()
        .schemas(["schema/text_tools.json", "schema/math_tools.json"]) // one .rs file per schema
        .out_dir("src/generated") // default: $OUT_DIR
        .runtime_path("::typed_mcp") // default; see below
        .emit_rerun_if_changed(true) // default inside build scripts
        .format_assertion(true) // check `format`; default: an annotation, as 2020-12 says
        .generate()?; // Vec<GeneratedFile>: paths, changed?, definitions
    Ok(())
}

/// The variables of `notes://{id}`, decoded from the URI.
#[derive(serde::Deserialize)]
struct NoteParams {
    id: u32,
}

fn suggest_ids(prefix: &str) -> Vec<String> {
    (1..=3)
        .map(|id| id.to_string())
        .filter(|id| id.starts_with(prefix))
        .collect()
}

fn suggest_names(prefix: &str) -> Vec<String> {
    ["Ada", "Alan"]
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .map(String::from)
        .collect()
}

/// README "Resources, templates, prompts, completions".
async fn resources_templates_prompts() -> Result<(), Box<dyn std::error::Error>> {
    let readme = ResourceDefinition::text("notes://readme", "readme", "text/plain", "Hello");
    let note =
        ResourceTemplateDefinition::typed("notes://{id}", "note", |uri: &str, p: NoteParams| {
            if p.id > 3 {
                return Err(ResourceError::NotFound);
            }
            Ok(vec![ResourceContents::TextResourceContents(
                TextResourceContents {
                    meta: None,
                    mime_type: Some("text/plain".to_owned()),
                    text: format!("note {}", p.id),
                    uri: uri.to_owned(),
                },
            )])
        })?
        .completer(|_variable, prefix, _resolved| suggest_ids(prefix));
    let greet = PromptDefinition::new("greet", "Greets someone.", |args| {
        let name = args.get("name").map_or("you", String::as_str);
        Ok(vec![user_text(format!("Say hello to {name}."))])
    })
    .argument("name", "Who to greet.", true)
    .completer(|_argument, prefix, _resolved| suggest_names(prefix));
    let server = McpServer::builder("notes", "1.0.0")
        .resource(readme)
        .resource_template(note)
        .prompt(greet)
        .build()?;
    server.notify_resource_updated("notes://readme").await; // to every subscriber, both eras
    let farewell =
        PromptDefinition::new("farewell", "Says goodbye.", |_| Ok(vec![user_text("Bye.")]));
    server.add_prompt(farewell).await?; // while serving: announced with list_changed
    server.remove_tool("shout").await; // likewise (add_/remove_ tool, resource, template, prompt)
    Ok(())
}

/// README "Configuring limits".
fn configuring_limits(shout: ToolDefinition) -> Result<McpServer, Box<dyn std::error::Error>> {
    let limits = typed_mcp::config::load_limits("limits.json")?; // every violation, with its path
    let server = McpServer::builder("my-server", "1.0.0")
        .limits(limits)
        .tool(shout)
        .build()?;
    Ok(server)
}

/// README "Serving Streamable HTTP": on its own.
async fn serving_http(server: McpServer) -> Result<(), Box<dyn std::error::Error>> {
    let running = server.serve_http("127.0.0.1:8080".parse()?).await?;
    eprintln!("listening on {}", running.url());
    running.wait().await?; // or running.shutdown().await? from a signal handler
    Ok(())
}

/// README "Serving Streamable HTTP": mounted in the user's own axum `Router`.
#[allow(clippy::let_and_return)] // the README shows the binding
fn mounting_http(server: McpServer) -> axum::Router {
    let mcp = server.http_service(server.http_options()); // loopback-only Host/Origin checks
    let app = axum::Router::new().route_service("/tools/mcp", mcp.clone());
    // At shutdown, before your server drains its connections: open `subscriptions/listen`
    // streams end with their closing result instead of being cut (`serve_http` does this itself).
    mcp.close_streams();
    app
}

/// README "The client": list the demo server's tools and call one, over stdio.
async fn client_over_stdio() -> Result<(), Box<dyn std::error::Error>> {
    use serde_json::json;
    use typed_mcp::client::{Client, ClientOptions, ServerCommand};
    let server = ServerCommand::new("cargo").args(["run", "--example", "demo_server"]);
    let client = Client::connect_stdio(server, ClientOptions::new("my-agent", "1.0.0")).await?;
    let tools = client.list_tools().await?; // every page
    let sum = client.call_tool("add", json!({"a": 2, "b": 3})).await?;
    eprintln!("{} tools; add: {sum:?}", tools.len());
    Ok(())
}

/// README "Logging": a server prints nothing until a subscriber is installed.
fn logging() {
    // tracing to stderr (never stdout, which carries the protocol); RUST_LOG overrides the level
    if let Err(error) = typed_mcp::logging::init_stderr(tracing::level_filters::LevelFilter::INFO) {
        eprintln!("logging: {error}");
    }
}

fn main() {}
