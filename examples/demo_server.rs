//! The typed-mcp demo server: an MCP server over stdio (or Streamable HTTP) speaking
//! 2025-03-26, 2025-06-18, 2025-11-25 (after `initialize`) and 2026-07-28 (requests carrying
//! their version).
//!
//! ```sh
//! cargo run --release --example demo_server [-- --limits FILE] [--http ADDR]
//! ```
//!
//! With `--http ADDR` (e.g. `127.0.0.1:8080`; port 0 picks a free one) it serves
//! `http://ADDR/mcp` instead of stdio and writes `listening on http://ADDR/mcp` to stderr
//! once it accepts connections; it stops on SIGTERM / SIGINT.
//!
//! With `--auth-issuer ISSUER_URL --auth-audience RESOURCE` (feature `auth` of this
//! package, on by default)
//! the HTTP server is an OAuth resource server: it accepts only JWT access tokens of that
//! issuer for that resource (the MCP endpoint's URL, e.g. `http://127.0.0.1:8080/mcp`),
//! checked against the JWKS the issuer's OpenID or RFC 8414 metadata names, and serves its
//! protected resource metadata (RFC 9728) at `/.well-known/oauth-protected-resource/mcp`.
//! `--auth-scopes "a b"` lists the scopes a client should ask for (and every request needs).
//!
//! FILE is a limits document (`schema/limits.json`); an invalid one is refused with every
//! violation listed (exit 2). Tools: `echo`, `add`, `sleep`, `spin`, `big`, `sum`, `lookup`,
//! `route`, `confirm`, `touch`;
//! resource `demo://readme`; prompt `greet`. Logs go to stderr (`RUST_LOG`, default `info`);
//! stdout carries protocol messages only. The server exits when stdin closes, or on
//! SIGTERM / SIGINT, after finishing the requests in flight.

use std::net::SocketAddr;
use std::process::ExitCode;

use tracing::level_filters::LevelFilter;
use typed_mcp::generated::limits::Limits;
use typed_mcp::logging::ErrorChain;
use typed_mcp::mcp::McpServer;

#[path = "demo_server/demo.rs"]
mod demo;

const USAGE: &str = "usage: demo_server [--limits FILE] [--http ADDR \
                     [--auth-issuer ISSUER_URL --auth-audience RESOURCE [--auth-scopes SCOPES]]]";

/// The resource server options of the command line.
#[derive(Default)]
struct AuthArgs {
    issuer: Option<String>,
    audience: Option<String>,
    scopes: Vec<String>,
}

/// The command line: the limits, and the HTTP address when serving HTTP.
fn parse_args() -> Result<(Limits, Option<SocketAddr>, AuthArgs), String> {
    let mut limits = Limits::default();
    let mut http = None;
    let mut auth = AuthArgs::default();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--limits" => {
                let path = args.next().ok_or("--limits needs a file")?;
                // The error's text lists every violation with its path.
                limits =
                    typed_mcp::config::load_limits(&path).map_err(|error| error.to_string())?;
            }
            "--http" => {
                let addr = args
                    .next()
                    .ok_or("--http needs an address such as 127.0.0.1:8080")?;
                let addr = addr
                    .parse()
                    .map_err(|_| "--http needs an address such as 127.0.0.1:8080".to_owned())?;
                http = Some(addr);
            }
            "--auth-issuer" => auth.issuer = Some(args.next().ok_or("--auth-issuer needs a URL")?),
            "--auth-audience" => {
                auth.audience = Some(args.next().ok_or("--auth-audience needs a URL")?);
            }
            "--auth-scopes" => {
                let scopes = args.next().ok_or("--auth-scopes needs a list")?;
                auth.scopes = scopes.split_whitespace().map(str::to_owned).collect();
            }
            "--help" | "-h" => return Err(USAGE.to_owned()),
            _ => return Err(format!("unknown option; {USAGE}")),
        }
    }
    if auth.issuer.is_some() != auth.audience.is_some() {
        return Err("--auth-issuer and --auth-audience go together".to_owned());
    }
    if auth.issuer.is_some() && http.is_none() {
        return Err("--auth-issuer needs --http".to_owned());
    }
    Ok((limits, http, auth))
}

/// Serves HTTP until SIGTERM / SIGINT.
async fn serve_http(
    server: McpServer,
    addr: SocketAddr,
    auth: AuthArgs,
) -> Result<(), Box<dyn std::error::Error>> {
    let options = server.http_options().bound_to(addr);
    let options = protect(options, auth).await?;
    let running = server.serve_http_with(addr, options).await?;
    // The line tests and scripts wait for (stderr: stdout stays free of anything else).
    eprintln!("listening on {}", running.url());
    running.shutdown_on_signal().await?;
    Ok(())
}

/// The options with the resource server the command line asks for.
#[cfg(feature = "auth")]
async fn protect(
    options: typed_mcp::http::HttpOptions,
    auth: AuthArgs,
) -> Result<typed_mcp::http::HttpOptions, Box<dyn std::error::Error>> {
    use typed_mcp::http::auth::{JwtValidator, ResourceServer};
    let (Some(issuer), Some(audience)) = (auth.issuer, auth.audience) else {
        return Ok(options);
    };
    let validator = JwtValidator::discover(&issuer, &audience).await?;
    let server = ResourceServer::new(&audience, &issuer, validator)
        .scopes_supported(auth.scopes.clone())
        .require_scopes(auth.scopes);
    tracing::info!(%issuer, resource = %audience, "accepting JWT access tokens only");
    Ok(options.auth(server))
}

#[cfg(not(feature = "auth"))]
async fn protect(
    options: typed_mcp::http::HttpOptions,
    auth: AuthArgs,
) -> Result<typed_mcp::http::HttpOptions, Box<dyn std::error::Error>> {
    if auth.issuer.is_some() || auth.audience.is_some() || !auth.scopes.is_empty() {
        return Err("--auth-issuer needs the demo built with the feature auth".into());
    }
    Ok(options)
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::INFO) {
        eprintln!("demo_server: {error}");
    }
    let (limits, http, auth) = match parse_args() {
        Ok(parsed) => parsed,
        Err(message) => {
            tracing::error!("not starting: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    if let Some(addr) = http {
        let result = runtime.block_on(async {
            let server = demo::build(limits)?;
            let _first = demo::SERVER.set(server.clone());
            serve_http(server, addr, auth).await
        });
        runtime.shutdown_background();
        return match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                tracing::error!(error = %ErrorChain(&*error), "demo server failed");
                ExitCode::FAILURE
            }
        };
    }
    let result = runtime.block_on(async {
        let server = demo::build(limits)?;
        let _first = demo::SERVER.set(server.clone());
        tracing::info!("demo server ready on stdio");
        server.serve_stdio().await
    });
    // Everything is flushed; a read of stdin may still be blocked on its thread.
    runtime.shutdown_background();
    match result {
        Ok(report) => {
            tracing::info!(reason = ?report.reason, answered = report.requests_answered, "demo server done");
            ExitCode::SUCCESS
        }
        Err(error) => {
            tracing::error!(error = %ErrorChain(&error), "demo server failed");
            ExitCode::FAILURE
        }
    }
}
