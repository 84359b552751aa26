//! The official SDK clients — Python (PyPI `mcp`, its `OAuthClientProvider`) and TypeScript
//! (npm `@modelcontextprotocol/sdk`, its `authProvider`), both installed by
//! tests/interop/setup.sh — complete the authorization flow against the demo server protected
//! by `HttpOptions::auth`, with npm `oidc-provider` as the authorization server: protected
//! resource metadata, the provider's metadata, dynamic client registration, authorization
//! code + PKCE with the resource indicator (tests/oauth/py_oauth_client.py and
//! ts_oauth_client.mjs play the user at the login and consent pages), then `tools/list` and
//! `tools/call`. Without a token the server answers 401. Over `http://`, and over
//! `https://` with a test CA.

mod http_support;
mod oauth_support;
mod tls_support;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

use http_support::demo;
use oauth_support::{oauth_dir, Provider};
use serde_json::Value;
use tls_support::TestCa;
use typed_mcp::generated::limits::Limits;
use typed_mcp::http::auth::{JwtValidator, ResourceServer};
use typed_mcp::http::{RunningHttpServer, TlsConfig};

/// An official SDK client script of tests/oauth.
#[derive(Clone, Copy, Debug)]
enum Sdk {
    /// tests/oauth/py_oauth_client.py in the interop venv (PyPI `mcp`).
    Python,
    /// tests/oauth/ts_oauth_client.mjs with the interop node_modules (npm
    /// `@modelcontextprotocol/sdk`).
    TypeScript,
}

impl Sdk {
    /// The command that runs the client, or `None` (with a printed reason) when its SDK is not
    /// installed and `CI` is unset; panics when `CI` is set.
    fn command(self) -> Option<Command> {
        let interop = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop");
        let (installed, mut command) = match self {
            Self::Python => {
                let python = interop.join(".venv/bin/python");
                let mut command = Command::new(&python);
                command.arg(oauth_dir().join("py_oauth_client.py"));
                (python.exists(), command)
            }
            Self::TypeScript => {
                let package = interop.join("node_modules/@modelcontextprotocol/sdk/package.json");
                let mut command = Command::new("node");
                command.arg(oauth_dir().join("ts_oauth_client.mjs"));
                (package.exists(), command)
            }
        };
        if !installed {
            let reason = format!("the {self:?} SDK is not installed (run tests/interop/setup.sh)");
            assert!(!oauth_support::reference_data::in_ci(), "{reason}");
            eprintln!("skipped: {reason}");
            return None;
        }
        command.stdin(std::process::Stdio::null());
        Some(command)
    }
}

/// A free port on 127.0.0.1 (the resource URL names it before the server binds it).
fn free_addr() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    probe.local_addr().unwrap()
}

async fn protected_demo(
    provider: &Provider,
    addr: SocketAddr,
    scheme: &str,
    tls: Option<TlsConfig>,
) -> RunningHttpServer {
    let resource = format!("{scheme}://{addr}/mcp");
    let validator = JwtValidator::discover(&provider.issuer, &resource)
        .await
        .expect("the provider's JWKS");
    let auth = ResourceServer::new(&resource, &provider.issuer, validator)
        .scopes_supported(["notes:read", "notes:write"])
        .require_scopes(["notes:read"]);
    let server = demo::build(Limits::default()).expect("the demo server builds");
    let mut options = server.http_options().bound_to(addr).auth(auth);
    if let Some(tls) = tls {
        options = options.tls(tls);
    }
    server
        .serve_http_with(addr, options)
        .await
        .expect("listening")
}

/// Runs `command` against `url` (trusting `ca` for https) and returns its report.
fn run_client(mut command: Command, url: &str, ca: Option<&Path>) -> Value {
    command.arg(url);
    if let Some(ca) = ca {
        // The Python script takes it as an argument; node reads it from the environment.
        command.arg("--ca").arg(ca).env("NODE_EXTRA_CA_CERTS", ca);
    }
    let output = command.output().expect("the client starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = stdout
        .lines()
        .last()
        .and_then(|line| serde_json::from_str(line).ok())
        .unwrap_or_else(|| panic!("no report from the client ({}): {stderr}", output.status));
    assert!(
        output.status.success() && report["ok"] == true,
        "the client failed: {report}\n{stderr}"
    );
    report
}

/// The client went through the authorization flow and then listed and called the demo's
/// tools with the token it obtained.
fn check(report: &Value) {
    assert_eq!(report["authorized_at_pages"], true, "{report}");
    assert_eq!(report["registered"], true, "{report}");
    assert!(
        report["token_type"]
            .as_str()
            .is_some_and(|kind| kind.eq_ignore_ascii_case("bearer")),
        "{report}"
    );
    assert!(
        report["scope"]
            .as_str()
            .is_some_and(|scope| scope.split(' ').any(|one| one == "notes:read")),
        "{report}"
    );
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        tools.contains(&"echo") && tools.contains(&"add"),
        "{report}"
    );
    assert!(
        report["echo"]
            .as_str()
            .unwrap_or("")
            .contains("hello through OAuth"),
        "{report}"
    );
}

/// Without a token the server answers 401 (so the client's success is the OAuth flow's).
async fn refused_without_token(url: &str, ca: Option<&Path>) {
    let mut builder = reqwest::Client::builder().timeout(std::time::Duration::from_secs(60));
    if let Some(ca) = ca {
        let pem = std::fs::read(ca).unwrap();
        builder = builder.add_root_certificate(reqwest::Certificate::from_pem(&pem).unwrap());
    }
    let answer = builder
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .expect("an answer");
    assert_eq!(answer.status(), reqwest::StatusCode::UNAUTHORIZED);
}

/// The demo protected over http, `sdk` authorizes and calls.
async fn over_http(sdk: Sdk) {
    let (Some(provider), Some(command)) = (Provider::start(), sdk.command()) else {
        return;
    };
    let running = protected_demo(&provider, free_addr(), "http", None).await;
    let url = running.url();
    refused_without_token(&url, None).await;
    let report = tokio::task::spawn_blocking(move || run_client(command, &url, None))
        .await
        .unwrap();
    check(&report);
    running.shutdown().await.unwrap();
}

/// The demo protected over https with a test CA, `sdk` authorizes and calls.
async fn over_https(sdk: Sdk) {
    let (Some(provider), Some(command)) = (Provider::start(), sdk.command()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let test_ca = TestCa::new("typed-mcp auth test CA");
    let (cert, key) = test_ca.write_server_identity(dir.path(), &["127.0.0.1", "localhost"]);
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, test_ca.pem()).unwrap();
    let tls = TlsConfig::from_pem_files(&cert, &key).unwrap();
    let running = protected_demo(&provider, free_addr(), "https", Some(tls)).await;
    let url = running.url();
    assert!(url.starts_with("https://"), "{url}");
    refused_without_token(&url, Some(&ca)).await;
    let report = tokio::task::spawn_blocking(move || run_client(command, &url, Some(&ca)))
        .await
        .unwrap();
    check(&report);
    running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_authorizes_then_lists_and_calls_over_http() {
    over_http(Sdk::Python).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_authorizes_then_lists_and_calls_over_https() {
    over_https(Sdk::Python).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_client_authorizes_then_lists_and_calls_over_http() {
    over_http(Sdk::TypeScript).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_client_authorizes_then_lists_and_calls_over_https() {
    over_https(Sdk::TypeScript).await;
}
