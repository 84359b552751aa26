//! A command-line MCP client on `typed_mcp::client`: point it at any server, over stdio or
//! Streamable HTTP, and it prints the typed, schema-validated result as JSON.
//!
//! ```sh
//! cargo run --example mcp_client -- --http http://127.0.0.1:8080/mcp tools
//! cargo run --example mcp_client -- call add '{"a":2,"b":3}' --stdio -- cargo run --example demo_server
//! cargo run --example mcp_client -- --stdio -- python3 server.py -- --version 2025-06-18 prompts
//! ```
//!
//! Commands: `discover`, `tools`, `call NAME JSON`, `resources`, `templates`, `read URI`,
//! `prompts`, `prompt NAME JSON`, `complete prompt|template NAME ARGUMENT VALUE`. `--stdio -- CMD ARGS...` takes the server's command line up to a
//! lone `--` or the end. `--version` is `auto` (the default), a 2026-07-28 version
//! (pinned) or a 2025 version (offered by `initialize`). `--timeout SECS` bounds each
//! request (default 60).
//!
//! The result goes to stdout, diagnostics to stderr (`RUST_LOG`, default `warn`; the
//! server's own stderr is logged at `info`). Exit code 0 on success (a tool's own failure,
//! `isError: true`, is a result), 1 when the server or the connection fails, 2 for a usage
//! error.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{json, Value};
use tracing::level_filters::LevelFilter;
use typed_mcp::client::{
    Client, ClientError, ClientOptions, CompletionTarget, ServerCommand, VersionChoice,
};

const USAGE: &str = "usage: mcp_client [--http URL | --stdio -- CMD ARGS... [--]] \
[--version V|auto] [--timeout SECS] COMMAND
commands: discover | tools | call NAME JSON | resources | templates | read URI | prompts | \
prompt NAME JSON | complete prompt|template NAME ARGUMENT VALUE";

/// Where the server is.
enum Target {
    Http(String),
    Stdio(Vec<String>),
}

/// What to ask it.
enum Command {
    Discover,
    Tools,
    Call(String, Value),
    Resources,
    Templates,
    Read(String),
    Prompts,
    Prompt(String, Value),
    /// Whether the target is a prompt, its name (or URI template), the argument, its text.
    Complete(bool, String, String, String),
}

struct Args {
    target: Target,
    version: VersionChoice,
    timeout: Duration,
    command: Command,
}

fn parse_args(raw: Vec<String>) -> Result<Args, String> {
    let mut target = None;
    let mut version = VersionChoice::Auto;
    let mut timeout = Duration::from_secs(60);
    let mut words = Vec::new();
    let mut raw = raw.into_iter();
    while let Some(arg) = raw.next() {
        match arg.as_str() {
            "--http" => {
                let url = raw.next().ok_or("--http needs a URL")?;
                target = Some(Target::Http(url));
            }
            "--stdio" => {
                if raw.next().as_deref() != Some("--") {
                    return Err("--stdio must be followed by -- and the server's command".into());
                }
                let command: Vec<String> = raw.by_ref().take_while(|a| a != "--").collect();
                if command.is_empty() {
                    return Err("--stdio -- needs the server's command".into());
                }
                target = Some(Target::Stdio(command));
            }
            "--version" => {
                let text = raw.next().ok_or("--version needs a version or auto")?;
                version = VersionChoice::parse(&text)
                    .ok_or_else(|| format!("unknown protocol version {text:?}"))?;
            }
            "--timeout" => {
                let secs: f64 = raw
                    .next()
                    .and_then(|t| t.parse().ok())
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or("--timeout needs a positive number of seconds")?;
                timeout = Duration::from_secs_f64(secs);
            }
            "-h" | "--help" => return Err(String::new()),
            _ if arg.starts_with("--") => return Err(format!("unknown flag {arg}")),
            _ => words.push(arg),
        }
    }
    let target = target.ok_or("give the server: --http URL or --stdio -- CMD ARGS...")?;
    let json_arg = |text: Option<&String>| -> Result<Value, String> {
        match text {
            None => Ok(json!({})),
            Some(text) => {
                serde_json::from_str(text).map_err(|e| format!("the JSON argument is invalid: {e}"))
            }
        }
    };
    let words: Vec<&String> = words.iter().collect();
    let command = match words.as_slice() {
        [c] if *c == "discover" => Command::Discover,
        [c] if *c == "tools" => Command::Tools,
        [c] if *c == "resources" => Command::Resources,
        [c] if *c == "templates" => Command::Templates,
        [c, kind, name, argument, value] if *c == "complete" => {
            let prompt = match kind.as_str() {
                "prompt" => true,
                "template" => false,
                _ => return Err("complete needs `prompt` or `template`".into()),
            };
            Command::Complete(
                prompt,
                (*name).clone(),
                (*argument).clone(),
                (*value).clone(),
            )
        }
        [c] if *c == "prompts" => Command::Prompts,
        [c, uri] if *c == "read" => Command::Read((*uri).clone()),
        [c, name, rest @ ..] if *c == "call" && rest.len() <= 1 => {
            Command::Call((*name).clone(), json_arg(rest.first().copied())?)
        }
        [c, name, rest @ ..] if *c == "prompt" && rest.len() <= 1 => {
            Command::Prompt((*name).clone(), json_arg(rest.first().copied())?)
        }
        [] => return Err("no command given".into()),
        _ => return Err("unknown command or wrong number of arguments".into()),
    };
    Ok(Args {
        target,
        version,
        timeout,
        command,
    })
}

async fn run(args: Args) -> Result<Value, ClientError> {
    let options = ClientOptions::new("typed-mcp-cli", env!("CARGO_PKG_VERSION"))
        .version(args.version)
        .request_timeout(args.timeout);
    let client = match args.target {
        Target::Http(url) => Client::connect_http(&url, options).await?,
        Target::Stdio(argv) => {
            let command = ServerCommand::new(&argv[0]).args(&argv[1..]);
            Client::connect_stdio(command, options).await?
        }
    };
    let result = answer(&client, args.command).await;
    client.close().await;
    result
}

async fn answer(client: &Client, command: Command) -> Result<Value, ClientError> {
    let to_json = |value: Result<Value, serde_json::Error>| value.unwrap_or(Value::Null);
    Ok(match command {
        Command::Discover if client.is_modern() => {
            to_json(serde_json::to_value(client.discover().await?))
        }
        // A 2025 server describes itself in its `initialize` answer.
        Command::Discover => to_json(serde_json::to_value(client.server())),
        Command::Tools => {
            json!({"tools": to_json(serde_json::to_value(client.list_tools().await?))})
        }
        Command::Call(name, arguments) => to_json(serde_json::to_value(
            client.call_tool(&name, arguments).await?,
        )),
        Command::Resources => {
            json!({"resources": to_json(serde_json::to_value(client.list_resources().await?))})
        }
        Command::Templates => json!({
            "resourceTemplates": to_json(serde_json::to_value(client.list_resource_templates().await?))
        }),
        Command::Complete(prompt, name, argument, value) => {
            let target = if prompt {
                CompletionTarget::Prompt(&name)
            } else {
                CompletionTarget::ResourceTemplate(&name)
            };
            let completion = client
                .complete(target, &argument, &value, &BTreeMap::new())
                .await?;
            json!({"completion": to_json(serde_json::to_value(completion))})
        }
        Command::Read(uri) => to_json(serde_json::to_value(client.read_resource(&uri).await?)),
        Command::Prompts => {
            json!({"prompts": to_json(serde_json::to_value(client.list_prompts().await?))})
        }
        Command::Prompt(name, arguments) => to_json(serde_json::to_value(
            client.get_prompt(&name, arguments).await?,
        )),
    })
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::WARN) {
        eprintln!("mcp_client: {error}");
    }
    let args = match parse_args(std::env::args().skip(1).collect()) {
        Ok(args) => args,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("mcp_client: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcp_client: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(args));
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(value) => {
            let text = serde_json::to_string_pretty(&value).unwrap_or_else(|_| "null".to_owned());
            let mut stdout = std::io::stdout().lock();
            match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                // `mcp_client ... | head`: the reader has what it wanted.
                Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("mcp_client: cannot write the result: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(error) => {
            eprintln!("mcp_client: {error}");
            let mut source = std::error::Error::source(&error);
            while let Some(cause) = source {
                eprintln!("  caused by: {cause}");
                source = cause.source();
            }
            for violation in error.violations() {
                eprintln!("  at {:?}: {}", violation.path(), violation.message());
            }
            ExitCode::FAILURE
        }
    }
}
