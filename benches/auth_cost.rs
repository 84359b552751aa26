//! What the resource server costs per request (feature `auth`): the CPU time of one JWT
//! check (RS256 and ES256, keys cached) the first time a token is seen and once it is
//! remembered, and the process CPU time per 16 B `echo` call over
//! HTTP with and without the layer (client and server in this process, one connection, so
//! the difference is the layer's cost).
//!
//! Run with `cargo bench --bench auth_cost` (needs `bash tests/oauth/setup.sh`: the tokens
//! come from the oidc-provider of the auth tests); not part of `cargo test`. Each figure is
//! the median of 5 runs.

#[path = "../tests/oauth_support/mod.rs"]
mod oauth_support;

use std::time::Duration;

use serde_json::json;
use typed_mcp::http::auth::{JwtValidator, ResourceServer, TokenValidator};
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::ToolContext;

const CHECKS: u32 = 2_000;
const FIRST_CHECKS: u32 = 200;
const CALLS: u32 = 2_000;
const RUNS: usize = 5;

/// This process's CPU time (user + system).
fn cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage struct.
    let status = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(status, 0, "getrusage failed");
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

async fn serve(auth: Option<ResourceServer>, listener: tokio::net::TcpListener) -> String {
    let addr = listener.local_addr().unwrap();
    let echo = ToolDefinition::new(
        "echo",
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(args["text"].clone()) },
    )
    .unwrap()
    .description("Echoes its text.");
    let server = McpServer::builder("bench", "1.0.0")
        .tool(echo)
        .build()
        .unwrap();
    let mut options = server.http_options().bound_to(addr);
    if let Some(auth) = auth {
        options = options.auth(auth);
    }
    drop(listener);
    let running = server.serve_http_with(addr, options).await.unwrap();
    let url = running.url();
    std::mem::forget(running);
    url
}

async fn calls(client: &reqwest::Client, url: &str, token: Option<&str>) -> f64 {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "sixteen bytes..."},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}}})
    .to_string();
    let started = cpu();
    for _ in 0..CALLS {
        let mut request = client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo")
            .body(body.clone());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let answer = request.send().await.unwrap();
        assert!(answer.status().is_success(), "{}", answer.status());
        let _text = answer.text().await.unwrap();
    }
    (cpu() - started).as_secs_f64() * 1e6 / f64::from(CALLS)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let Some(provider) = oauth_support::Provider::start() else {
            return;
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
        let validator = JwtValidator::discover(&provider.issuer, &resource)
            .await
            .unwrap();
        let metadata = provider.get_json("/.well-known/openid-configuration").await;
        let jwks_uri = metadata["jwks_uri"].as_str().unwrap().to_owned();
        for (client_id, alg) in [("mcp-cc", "RS256"), ("mcp-cc-es256", "ES256")] {
            let token = provider
                .access_token(client_id, &resource, "notes:read")
                .await;
            // The first check of a token: a validator of its own each time (keys fetched
            // before the clock starts), so nothing is remembered.
            let mut first = Vec::new();
            for _ in 0..RUNS {
                let mut spent = Duration::ZERO;
                for _ in 0..FIRST_CHECKS {
                    let fresh = JwtValidator::new(&provider.issuer, &resource, &jwks_uri);
                    fresh.refresh().await.unwrap();
                    let started = cpu();
                    let _identity = fresh.validate(&token).await.unwrap();
                    spent += cpu() - started;
                }
                first.push(spent.as_secs_f64() * 1e6 / f64::from(FIRST_CHECKS));
            }
            println!(
                "JWT check {alg}, first time: {:.1} us CPU (median of {RUNS} x {FIRST_CHECKS})",
                median(first)
            );
            let mut runs = Vec::new();
            for _ in 0..RUNS {
                let started = cpu();
                for _ in 0..CHECKS {
                    let _identity = validator.validate(&token).await.unwrap();
                }
                runs.push((cpu() - started).as_secs_f64() * 1e6 / f64::from(CHECKS));
            }
            println!(
                "JWT check {alg}, remembered: {:.1} us CPU (median of {RUNS} x {CHECKS})",
                median(runs)
            );
        }
        let token = provider
            .access_token("mcp-cc", &resource, "notes:read")
            .await;
        let auth = ResourceServer::new(&resource, &provider.issuer, validator);
        let protected = serve(Some(auth), listener).await;
        let open_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let open = serve(None, open_listener).await;
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()
            .unwrap();
        let (mut with, mut without) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            without.push(calls(&client, &open, None).await);
            with.push(calls(&client, &protected, Some(&token)).await);
        }
        let (with, without) = (median(with), median(without));
        println!(
            "16 B echo over HTTP, process CPU per call: {without:.1} us without auth, \
             {with:.1} us with an RS256 JWT (+{:.1} us)",
            with - without
        );
    });
}
