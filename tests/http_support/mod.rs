//! Shared harness of the `http_*` tests: the demo server (the example's own code) listening
//! on 127.0.0.1 with an ephemeral port, and a real HTTP client (reqwest).

#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

use reqwest::header::HeaderMap;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use typed_mcp::generated::limits::Limits;
use typed_mcp::http::RunningHttpServer;
use typed_mcp::mcp::McpServer;

#[path = "../../examples/demo_server/demo.rs"]
pub mod demo;

/// A hang guard for one HTTP exchange, not a measurement.
pub const HANG_GUARD: Duration = Duration::from_secs(60);

/// The demo server over HTTP, and a client for it.
pub struct Harness {
    pub server: McpServer,
    pub running: RunningHttpServer,
    pub url: String,
    pub client: Client,
}

/// An answer: status, headers, body text.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Answer {
    /// The body as JSON (panics if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.body))
    }

    /// The `data:` payloads of an event-stream body, as JSON (a priming event's empty data
    /// skipped).
    pub fn events(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter(|data| !data.trim().is_empty())
            .map(|data| serde_json::from_str(data).expect("event data is JSON"))
            .collect()
    }

    pub fn content_type(&self) -> &str {
        self.headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The JSON-RPC error code of the body.
    pub fn error_code(&self) -> i64 {
        self.json()["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no error code: {}", self.body))
    }
}

/// Starts the demo server on 127.0.0.1:0 with `limits`.
pub async fn start(limits: Limits) -> Harness {
    start_with(limits, |options| options).await
}

/// Starts the demo server on 127.0.0.1:0 with `limits` and the HTTP options `options` makes
/// of the server's own (e.g. another session store).
pub async fn start_with(
    limits: Limits,
    options: impl FnOnce(typed_mcp::http::HttpOptions) -> typed_mcp::http::HttpOptions,
) -> Harness {
    let server = demo::build(limits).expect("the demo server builds");
    let addr = "127.0.0.1:0".parse().unwrap();
    let running = server
        .serve_http_with(addr, options(server.http_options().bound_to(addr)))
        .await
        .expect("listening");
    let url = running.url();
    let client = Client::builder()
        .timeout(HANG_GUARD)
        .pool_max_idle_per_host(1)
        .build()
        .unwrap();
    Harness {
        server,
        running,
        url,
        client,
    }
}

/// Limits from JSON (panics on an invalid document).
pub fn limits(json: &str) -> Limits {
    typed_mcp::config::parse_limits(json).expect("valid limits")
}

/// The 2026-07-28 `_meta` of a request.
pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "http-test", "version": "1.0.0"}
    })
}

/// A 2026-07-28 request body: `extra` params plus `_meta`.
pub fn modern_body(id: u64, method: &str, extra: Value) -> Value {
    let mut params = extra;
    params["_meta"] = modern_meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

impl Harness {
    /// POSTs `body` with the standard headers plus `headers`.
    pub async fn post(&self, body: &str, headers: &[(&str, &str)]) -> Answer {
        self.post_to(&self.url, body, headers).await
    }

    /// [`Harness::post`] to another URL of the same server.
    pub async fn post_to(&self, url: &str, body: &str, headers: &[(&str, &str)]) -> Answer {
        let mut request = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_owned());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        finish(request.send().await.expect("the request is answered")).await
    }

    /// A 2026-07-28 request with the headers a conforming client sends.
    pub async fn modern(&self, id: u64, method: &str, extra: Value) -> Answer {
        let name = match method {
            "tools/call" | "prompts/get" => extra["name"].as_str().map(str::to_owned),
            "resources/read" => extra["uri"].as_str().map(str::to_owned),
            _ => None,
        };
        let body = modern_body(id, method, extra).to_string();
        let mut headers = vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ];
        if let Some(name) = name.as_deref() {
            headers.push(("mcp-name", name));
        }
        self.post(&body, &headers).await
    }

    /// Opens a 2025 session at `version`; returns its id.
    pub async fn initialize(&self, version: &str) -> String {
        let body = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "http-test", "version": "1.0.0"}
            }
        })
        .to_string();
        let answer = self.post(&body, &[]).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        assert_eq!(answer.json()["result"]["protocolVersion"], version);
        let id = answer.headers["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let initialized = self
            .post(
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                &[("mcp-session-id", &id), ("mcp-protocol-version", version)],
            )
            .await;
        assert_eq!(initialized.status, StatusCode::ACCEPTED);
        id
    }

    /// A request in a session.
    pub async fn in_session(&self, session: &str, id: u64, method: &str, params: Value) -> Answer {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.post(&body.to_string(), &[("mcp-session-id", session)])
            .await
    }
}

/// Reads a whole response.
pub async fn finish(response: reqwest::Response) -> Answer {
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.text().await.expect("the body arrives");
    Answer {
        status,
        headers,
        body,
    }
}
