//! The command line of `typed-mcp-pull`.

use std::path::PathBuf;
use std::time::Duration;

/// The usage text (printed by `--help` and after a usage error).
pub(crate) const USAGE: &str = "\
usage: typed-mcp-pull --out <FILE.json> [--check] [--protocol <VERSION>] [--timeout <SECONDS>]
                      (--http <URL> | --stdio -- <COMMAND> [<ARG>...])
       typed-mcp-pull --help | --version

Connects to an MCP server, lists every tool (all pages) and writes a snapshot of them to
<FILE.json>: the server's name and version, the protocol version, and each tool's name, title,
description, annotations, inputSchema and outputSchema as the server sent them, with sorted
keys. typed-mcp-codegen turns a snapshot into a typed client (Config::server_snapshot in a
build.rs, or `typed-mcp-codegen generate --snapshot <FILE.json> --out <DIR>`).

options:
  --out <FILE.json>      the snapshot to write (or, with --check, to compare with)
  --check                write nothing; compare the server's tools with <FILE.json> and print
                         every difference (tools added, removed or changed, by member)
  --stdio -- <COMMAND>   run the server as a child process speaking stdio; everything after
                         `--` is the command and its arguments, so --stdio comes last
  --http <URL>           a Streamable HTTP server (2026-07-28 stateless or a 2025 session)
  --protocol <VERSION>   auto (default: 2026-07-28 if the server speaks it, else 2025), or a
                         version to pin: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26
  --timeout <SECONDS>    longest wait for each answer (default 30)

exit status: 0 written, or fresh (--check); 1 the server's tools differ from the snapshot
(--check); 2 usage error; 3 the server could not be reached or broke the protocol; 4 the
snapshot file could not be read, parsed or written";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Command {
    /// `--help`.
    Help,
    /// `--version`.
    Version,
    /// A pull (or a check).
    Pull(Pull),
}

/// Where the server is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Server {
    /// A child process: the program and its arguments.
    Stdio(Vec<String>),
    /// A Streamable HTTP endpoint.
    Http(String),
}

/// The arguments of a pull.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Pull {
    /// The server.
    pub(crate) server: Server,
    /// The snapshot file.
    pub(crate) out: PathBuf,
    /// Compare instead of writing.
    pub(crate) check: bool,
    /// `auto` or a protocol version.
    pub(crate) protocol: String,
    /// The request timeout.
    pub(crate) timeout: Duration,
}

/// Parses the arguments (without the program name).
pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let mut server = None;
    let mut out = None;
    let mut check = false;
    let mut protocol = None;
    let mut timeout = None;
    let mut any = false;
    while let Some(arg) = args.next() {
        any = true;
        let mut value = |what: &str| args.next().ok_or(format!("{arg} needs {what}"));
        match arg.as_str() {
            "--help" | "-h" => return Ok(Command::Help),
            "--version" | "-V" => return Ok(Command::Version),
            "--out" => set(&mut out, PathBuf::from(value("a file")?), "--out")?,
            "--check" => check = true,
            "--protocol" => set(&mut protocol, value("a version or auto")?, "--protocol")?,
            "--timeout" => {
                let text = value("a number of seconds")?;
                let seconds: u64 = text
                    .parse()
                    .ok()
                    .filter(|s| *s > 0)
                    .ok_or("--timeout needs a whole number of seconds above 0")?;
                set(&mut timeout, Duration::from_secs(seconds), "--timeout")?;
            }
            "--http" => set(&mut server, Server::Http(value("a URL")?), "a server")?,
            "--stdio" => {
                if args.next().as_deref() != Some("--") {
                    return Err("--stdio is followed by `--` and the server's command".into());
                }
                let command: Vec<String> = args.by_ref().collect();
                if command.is_empty() {
                    return Err("--stdio -- needs the server's command".into());
                }
                set(&mut server, Server::Stdio(command), "a server")?;
            }
            _ => return Err(format!("unknown argument `{arg}`")),
        }
    }
    if !any {
        return Err("no arguments given".into());
    }
    let server = server.ok_or("no server given (--http URL or --stdio -- COMMAND)")?;
    let protocol = protocol.unwrap_or_else(|| "auto".to_owned());
    Ok(Command::Pull(Pull {
        server,
        out: out.ok_or("no --out given")?,
        check,
        protocol,
        timeout: timeout.unwrap_or(Duration::from_secs(30)),
    }))
}

/// Sets `slot` once.
fn set<T>(slot: &mut Option<T>, value: T, what: &str) -> Result<(), String> {
    if slot.replace(value).is_some() {
        return Err(format!("{what} given twice"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn stdio_takes_everything_after_the_double_dash() {
        let parsed = parse(args(
            "--out s.json --check --timeout 5 --stdio -- node server.js --out x",
        ));
        assert_eq!(
            parsed,
            Ok(Command::Pull(Pull {
                server: Server::Stdio(args("node server.js --out x")),
                out: PathBuf::from("s.json"),
                check: true,
                protocol: "auto".into(),
                timeout: Duration::from_secs(5),
            }))
        );
    }

    #[test]
    fn incomplete_or_contradictory_command_lines_are_usage_errors() {
        for line in [
            "",
            "--out s.json",
            "--http http://127.0.0.1:1/mcp",
            "--out s.json --http",
            "--out s.json --stdio node",
            "--out s.json --stdio --",
            "--out s.json --http u --http v",
            "--out a --out b --http u",
            "--out s.json --http u --timeout 0",
            "--out s.json --http u --frobnicate",
            "--out s.json --http u --stdio -- node",
        ] {
            assert!(parse(args(line)).is_err(), "{line:?} was accepted");
        }
    }
}
