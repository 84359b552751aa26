//! `typed-mcp-pull`: records the tools a live MCP server publishes in a snapshot file, which
//! `typed-mcp-codegen` turns into a typed Rust client; with `--check`, fails when the server's
//! tools no longer match the snapshot.
//!
//! ```text
//! typed-mcp-pull --out mcp/github.json --http https://example.com/mcp
//! typed-mcp-pull --out mcp/everything.json --stdio -- npx @modelcontextprotocol/server-everything
//! typed-mcp-pull --out mcp/github.json --check --http https://example.com/mcp
//! ```
//!
//! (`typed-mcp-codegen pull ...` runs this command with the same arguments.)
//!
//! Exit status: 0 the snapshot was written (or, with `--check`, is fresh); 1 `--check` found
//! tools added, removed or changed (each difference is printed, naming the tool and the
//! member); 2 usage error; 3 the server could not be reached or broke the protocol; 4 the
//! snapshot file could not be read, parsed or written. Only the tools decide freshness: a new
//! server or protocol version is printed as a note.
//!
//! Everything this command prints goes to stderr; the server's own stderr is logged there too.

mod args;

use std::process::ExitCode;

use serde_json::Value;
use typed_mcp::client::{Client, ClientError, ClientOptions, ServerCommand, VersionChoice};
use typed_mcp_codegen::Snapshot;

use args::{Command, Pull, Server, USAGE};

/// `--check` found differences.
const EXIT_DIFFERS: u8 = 1;
/// The command line is not understood.
const EXIT_USAGE: u8 = 2;
/// The server could not be reached or broke the protocol.
const EXIT_SERVER: u8 = 3;
/// The snapshot file could not be read, parsed or written.
const EXIT_FILE: u8 = 4;

fn main() -> ExitCode {
    let command = match args::parse(std::env::args().skip(1)) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("typed-mcp-pull: {message}\n\n{USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let pull = match command {
        Command::Help => {
            eprintln!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Command::Version => {
            eprintln!("typed-mcp-pull {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Command::Pull(pull) => pull,
    };
    let Some(choice) = VersionChoice::parse(&pull.protocol) else {
        eprintln!(
            "typed-mcp-pull: unknown protocol version `{}`\n\n{USAGE}",
            pull.protocol
        );
        return ExitCode::from(EXIT_USAGE);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("typed-mcp-pull: cannot start the async runtime: {error}");
            return ExitCode::from(EXIT_SERVER);
        }
    };
    let live = match runtime.block_on(snapshot(&pull, choice)) {
        Ok(live) => live,
        Err(message) => {
            eprintln!("typed-mcp-pull: {message}");
            return ExitCode::from(EXIT_SERVER);
        }
    };
    if pull.check {
        check(&pull, &live)
    } else {
        write(&pull, &live)
    }
}

/// Connects, lists every tool and closes.
async fn snapshot(pull: &Pull, choice: VersionChoice) -> Result<Snapshot, String> {
    let options = ClientOptions::new("typed-mcp-pull", env!("CARGO_PKG_VERSION"))
        .version(choice)
        .request_timeout(pull.timeout);
    let (client, place) = match &pull.server {
        Server::Stdio(command) => {
            let server = ServerCommand::new(&command[0]).args(&command[1..]);
            let client = Client::connect_stdio(server, options).await;
            (client, format!("the server `{}`", command[0]))
        }
        Server::Http(url) => {
            let client = Client::connect_http(url, options).await;
            (client, format!("the server at {url}"))
        }
    };
    let failed = |step: &str, error: ClientError| format!("{step} {place} failed: {error}");
    let client = client.map_err(|error| failed("connecting to", error))?;
    let listed = client.list_tools().await;
    let protocol = client.protocol_version();
    let description = client.server();
    client.close().await;
    let tools = listed.map_err(|error| failed("listing the tools of", error))?;
    let tools = tools
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<Value>, _>>()
        .map_err(|error| format!("a tool of {place} cannot be written as JSON: {error}"))?;
    let info = description
        .as_ref()
        .and_then(|d| serde_json::to_value(d).ok())
        .and_then(server_info)
        .unwrap_or_default();
    let text = |key: &str| {
        info.get(key)
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned()
    };
    Snapshot::new(text("name"), text("version"), protocol, tools)
        .map_err(|error| format!("the tools of {place} make no snapshot: {error}"))
}

/// The `serverInfo` of a handshake result (2025: a member; 2026-07-28: in `_meta`).
fn server_info(description: Value) -> Option<Value> {
    ["/serverInfo", "/_meta/io.modelcontextprotocol~1serverInfo"]
        .iter()
        .find_map(|pointer| description.pointer(pointer).cloned())
}

fn write(pull: &Pull, live: &Snapshot) -> ExitCode {
    match live.write(&pull.out) {
        Ok(changed) => {
            let status = if changed { "wrote" } else { "unchanged" };
            eprintln!(
                "{status} {} ({} tools of {} {}, protocol {})",
                pull.out.display(),
                live.tools.len(),
                live.server_name,
                live.server_version,
                live.protocol_version
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("typed-mcp-pull: {error}");
            ExitCode::from(EXIT_FILE)
        }
    }
}

fn check(pull: &Pull, live: &Snapshot) -> ExitCode {
    let recorded = match Snapshot::read(&pull.out) {
        Ok(recorded) => recorded,
        Err(error) => {
            eprintln!("typed-mcp-pull: {error}");
            return ExitCode::from(EXIT_FILE);
        }
    };
    let diff = recorded.diff(live);
    eprint!("{diff}");
    if diff.is_empty() {
        eprintln!(
            "{}: fresh ({} tools)",
            pull.out.display(),
            recorded.tools.len()
        );
        return ExitCode::SUCCESS;
    }
    eprintln!(
        "{}: {} tool(s) differ from the server; run the same command without --check to \
         update the snapshot, then rebuild",
        pull.out.display(),
        diff.tools.len()
    );
    ExitCode::from(EXIT_DIFFERS)
}
