//! `typed-mcp`: a command-line MCP client on `typed_mcp::client`. Point it at any server,
//! over stdio or Streamable HTTP, and it prints the typed, schema-validated result as JSON.
//!
//! ```sh
//! cargo install --locked --path cli
//! typed-mcp --http http://127.0.0.1:8080/mcp tools
//! typed-mcp call add '{"a":2,"b":3}' --stdio -- cargo run --example demo_server
//! typed-mcp --stdio -- python3 server.py -- --version 2025-06-18 prompts
//! ```
//!
//! Commands: `discover`, `tools`, `call NAME JSON`, `resources`, `templates`, `read URI`,
//! `task NAME JSON`, `prompts`, `prompt NAME JSON`, `complete prompt|template NAME ARGUMENT VALUE`, and
//! `listen [URI...]` (prints the server's notifications, one JSON line each, until
//! interrupted: list changes, and updates of the resources named). `--stdio -- CMD ARGS...`
//! takes the server's command line up to a lone `--` or the end. `--version` is `auto` (the
//! default), a 2026-07-28 version (pinned) or a 2025 version (offered by `initialize`).
//! `--timeout SECS` bounds each request (default 60). A `call` whose tool reports progress
//! shows a progress bar on stderr. `task` calls the tool as a task (the Tasks extension,
//! 2026-07-28): it polls `tasks/get` at the interval the server suggests, with a progress
//! line on stderr (status, polls, the server's status message); Ctrl-C cancels the task.
//!
//! Remote servers (`--http`): `--header 'NAME: VALUE'` (repeatable) and `--bearer TOKEN` add
//! headers to every request; `--ca-cert FILE` trusts the PEM root certificates in FILE
//! besides the platform's; `--oauth` authorizes when the server asks: with the
//! authorization code flow through a loopback redirect listener (the URL to open is printed
//! on stderr), or with client credentials when `--client-id` and `--client-secret` are given
//! (with `--oauth` alone, `--client-id` names a pre-registered public client).
//! `--token-file FILE` keeps the tokens in FILE (mode 0600) between runs.
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
use typed_mcp::client::auth::{FileTokenStore, LoopbackRedirect, OAuthOptions};
use typed_mcp::client::{
    Client, ClientError, ClientHandler, ClientOptions, CompletionTarget, ListenNotification,
    Progress, RequestOptions, ServerCommand, TaskUpdate, TaskWait, VersionChoice,
};
use typed_mcp::generated::protocol::SubscriptionFilter;
use typed_mcp::mcp::tasks::TASKS_EXTENSION;

const USAGE: &str = "usage: typed-mcp [--http URL | --stdio -- CMD ARGS... [--]] \
[--version V|auto] [--timeout SECS] [--header 'NAME: VALUE']... [--bearer TOKEN] \
[--ca-cert FILE] [--oauth] [--client-id ID] [--client-secret SECRET] [--token-file FILE] COMMAND
commands: discover | tools | call NAME JSON | task NAME JSON | resources | templates | read URI | prompts | \
prompt NAME JSON | complete prompt|template NAME ARGUMENT VALUE | listen [URI...]";

/// How long the user has to authorize in the browser.
const AUTHORIZATION_WAIT: Duration = Duration::from_secs(300);

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
    /// A call as a task, polled to its end.
    Task(String, Value),
    Resources,
    Templates,
    Read(String),
    Prompts,
    Prompt(String, Value),
    /// Whether the target is a prompt, its name (or URI template), the argument, its text.
    Complete(bool, String, String, String),
    /// Print notifications (and updates of these resources) until interrupted.
    Listen(Vec<String>),
}

/// How to reach a remote server.
#[derive(Default)]
struct Remote {
    headers: Vec<(String, String)>,
    bearer: Option<String>,
    ca_cert: Option<String>,
    oauth: bool,
    client_id: Option<String>,
    client_secret: Option<String>,
    token_file: Option<String>,
}

struct Args {
    target: Target,
    version: VersionChoice,
    timeout: Duration,
    command: Command,
    remote: Remote,
}

fn parse_args(raw: Vec<String>) -> Result<Args, String> {
    let mut target = None;
    let mut version = VersionChoice::Auto;
    let mut timeout = Duration::from_secs(60);
    let mut words = Vec::new();
    let mut remote = Remote::default();
    let mut raw = raw.into_iter();
    while let Some(arg) = raw.next() {
        let mut value = |what: &str| raw.next().ok_or(format!("{arg} needs {what}"));
        match arg.as_str() {
            "--header" => {
                let text = value("NAME: VALUE")?;
                let (name, header) = text.split_once(':').ok_or("--header needs NAME: VALUE")?;
                remote
                    .headers
                    .push((name.trim().to_owned(), header.trim().to_owned()));
            }
            "--bearer" => remote.bearer = Some(value("a token")?),
            "--ca-cert" => remote.ca_cert = Some(value("a PEM file")?),
            "--oauth" => remote.oauth = true,
            "--client-id" => remote.client_id = Some(value("an id")?),
            "--client-secret" => remote.client_secret = Some(value("a secret")?),
            "--token-file" => remote.token_file = Some(value("a file")?),
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
        [c, uris @ ..] if *c == "listen" => {
            Command::Listen(uris.iter().map(|u| (*u).clone()).collect())
        }
        [c, uri] if *c == "read" => Command::Read((*uri).clone()),
        [c, name, rest @ ..] if *c == "call" && rest.len() <= 1 => {
            Command::Call((*name).clone(), json_arg(rest.first().copied())?)
        }
        [c, name, rest @ ..] if *c == "task" && rest.len() <= 1 => {
            Command::Task((*name).clone(), json_arg(rest.first().copied())?)
        }
        [c, name, rest @ ..] if *c == "prompt" && rest.len() <= 1 => {
            Command::Prompt((*name).clone(), json_arg(rest.first().copied())?)
        }
        [] => return Err("no command given".into()),
        _ => return Err("unknown command or wrong number of arguments".into()),
    };
    if remote.client_secret.is_some() && remote.client_id.is_none() {
        return Err("--client-secret needs --client-id".into());
    }
    Ok(Args {
        target,
        version,
        timeout,
        command,
        remote,
    })
}

/// Prints each notification of a 2025 session as a JSON line (for `listen`).
struct PrintNotifications;

impl ClientHandler for PrintNotifications {
    fn notification(&self, method: &str, params: Value) {
        print_line(&json!({"method": method, "params": params}));
    }
}

fn print_line(value: &Value) {
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = writeln!(stdout, "{value}").and_then(|()| stdout.flush()) {
        tracing::debug!(%error, "writing a notification");
    }
}

/// The options for `remote`; a usage error is returned as text.
fn remote_options(
    mut options: ClientOptions,
    remote: &Remote,
) -> Result<ClientOptions, ClientError> {
    for (name, value) in &remote.headers {
        options = options.header(name, value)?;
    }
    if let Some(token) = &remote.bearer {
        options = options.bearer_token(token)?;
    }
    if let Some(file) = &remote.ca_cert {
        let pem = std::fs::read(file).map_err(ClientError::Io)?;
        options = options.root_certificates_pem(&pem)?;
    }
    if remote.oauth {
        let mut oauth = match (&remote.client_id, &remote.client_secret) {
            (Some(id), Some(secret)) => OAuthOptions::client_credentials(id, secret.as_str()),
            (id, _) => {
                let step = LoopbackRedirect::bind(0, AUTHORIZATION_WAIT).map_err(|source| {
                    ClientError::Auth {
                        url: "the loopback redirect listener".to_owned(),
                        source,
                    }
                })?;
                let oauth = OAuthOptions::authorization_code("typed-mcp-cli", step);
                match id {
                    Some(id) => oauth.pre_registered(id, None),
                    None => oauth,
                }
            }
        };
        if let Some(file) = &remote.token_file {
            oauth = oauth.token_store(FileTokenStore::new(file));
        }
        options = options.oauth(oauth);
    }
    Ok(options)
}

async fn run(args: Args) -> Result<Option<Value>, ClientError> {
    let options = ClientOptions::new("typed-mcp-cli", env!("CARGO_PKG_VERSION"))
        .version(args.version)
        .request_timeout(args.timeout);
    let options = match args.command {
        Command::Listen(_) => options.handler(PrintNotifications),
        Command::Task(..) => options.extension(TASKS_EXTENSION, serde_json::Map::new()),
        _ => options,
    };
    let client = match args.target {
        Target::Http(url) => {
            let options = remote_options(options, &args.remote)?;
            Client::connect_http(&url, options).await?
        }
        Target::Stdio(argv) => {
            let command = ServerCommand::new(&argv[0]).args(&argv[1..]);
            Client::connect_stdio(command, options).await?
        }
    };
    let result = answer(&client, args.command).await;
    client.close().await;
    result
}

async fn answer(client: &Client, command: Command) -> Result<Option<Value>, ClientError> {
    if let Command::Listen(uris) = command {
        listen(client, uris).await?;
        return Ok(None);
    }
    let to_json = |value: Result<Value, serde_json::Error>| value.unwrap_or(Value::Null);
    Ok(Some(match command {
        Command::Discover if client.is_modern() => {
            to_json(serde_json::to_value(client.discover().await?))
        }
        // A 2025 server describes itself in its `initialize` answer.
        Command::Discover => to_json(serde_json::to_value(client.server())),
        Command::Tools => {
            json!({"tools": to_json(serde_json::to_value(client.list_tools().await?))})
        }
        Command::Call(name, arguments) => {
            let bar = indicatif::ProgressBar::hidden();
            let shown = bar.clone();
            let options = RequestOptions::new().on_progress(move |report: Progress| {
                show_progress(&shown, &report);
            });
            let result = client.call_tool_with(&name, arguments, options).await;
            bar.finish_and_clear();
            to_json(serde_json::to_value(result?))
        }
        Command::Task(name, arguments) => {
            let bar = indicatif::ProgressBar::hidden();
            let shown = bar.clone();
            let cancel = tokio_util::sync::CancellationToken::new();
            let on_interrupt = cancel.clone();
            let interrupts = tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    on_interrupt.cancel();
                }
            });
            let wait = TaskWait::new()
                .cancel_on(cancel)
                .on_update(move |update: &TaskUpdate| show_task(&shown, update));
            let result = client.call_tool_as_task(&name, arguments, wait).await;
            interrupts.abort();
            bar.finish_and_clear();
            to_json(serde_json::to_value(result?))
        }
        // Printed as they arrive.
        Command::Listen(_) => Value::Null,
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
    }))
}

/// Draws a progress report on stderr (the bar appears with the first report).
fn show_progress(bar: &indicatif::ProgressBar, report: &Progress) {
    if bar.is_hidden() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        let style = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
    }
    // Progress values are numbers the server chose; the bar counts in hundredths.
    let scale = |value: f64| (value.max(0.0) * 100.0).round() as u64;
    match report.total {
        Some(total) => bar.set_length(scale(total)),
        None => bar.set_length(scale(report.progress).max(1)),
    }
    bar.set_position(scale(report.progress));
    if let Some(message) = &report.message {
        bar.set_message(message.clone());
    }
}

/// Draws a task's progress on stderr: a spinner, the time spent, the status, the polls and
/// the server's status message.
fn show_task(bar: &indicatif::ProgressBar, update: &TaskUpdate) {
    if bar.is_hidden() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        let style = indicatif::ProgressStyle::with_template("{spinner} {elapsed:>4} task {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(120));
    }
    let status = serde_json::to_value(update.status)
        .ok()
        .and_then(|status| status.as_str().map(str::to_owned))
        .unwrap_or_default();
    let note = update
        .status_message
        .as_deref()
        .map(|message| format!(": {message}"))
        .unwrap_or_default();
    bar.set_message(format!("{status} (poll {}){note}", update.polls));
}

/// Prints notifications until interrupted (Ctrl-C) or the server ends the stream.
async fn listen(client: &Client, uris: Vec<String>) -> Result<(), ClientError> {
    if client.is_modern() {
        let filter = SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resources_list_changed: Some(true),
            resource_subscriptions: (!uris.is_empty()).then_some(uris),
            ..SubscriptionFilter::default()
        };
        let mut subscription = client.listen(filter).await?;
        loop {
            tokio::select! {
                next = subscription.next() => match next? {
                    Some(notification) => print_line(&describe(&notification)),
                    None => return Ok(()),
                },
                _ = tokio::signal::ctrl_c() => return Ok(()),
            }
        }
    }
    for uri in &uris {
        client.subscribe(uri).await?;
    }
    // The handler prints what arrives on the session's stream.
    if let Err(error) = tokio::signal::ctrl_c().await {
        tracing::warn!(%error, "waiting for Ctrl-C");
    }
    Ok(())
}

fn describe(notification: &ListenNotification) -> Value {
    match notification {
        ListenNotification::ToolsListChanged => {
            json!({"method": "notifications/tools/list_changed"})
        }
        ListenNotification::ResourcesListChanged => {
            json!({"method": "notifications/resources/list_changed"})
        }
        ListenNotification::PromptsListChanged => {
            json!({"method": "notifications/prompts/list_changed"})
        }
        ListenNotification::ResourceUpdated { uri } => {
            json!({"method": "notifications/resources/updated", "params": {"uri": uri}})
        }
        other => json!({"method": format!("{other:?}")}),
    }
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::WARN) {
        eprintln!("typed-mcp: {error}");
    }
    let args = match parse_args(std::env::args().skip(1).collect()) {
        Ok(args) => args,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("typed-mcp: {message}");
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
            eprintln!("typed-mcp: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(args));
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        // `listen` printed as it went.
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(value)) => {
            let text = serde_json::to_string_pretty(&value).unwrap_or_else(|_| "null".to_owned());
            let mut stdout = std::io::stdout().lock();
            match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                // `typed-mcp ... | head`: the reader has what it wanted.
                Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("typed-mcp: cannot write the result: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(error) => {
            eprintln!("typed-mcp: {error}");
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
