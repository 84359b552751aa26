//! Shared harness of the `mcp_server_*` tests: the demo server (the example's own code) over
//! an in-memory duplex, and a line-oriented client.

#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::task::JoinHandle;
use typed_mcp::generated::limits::Limits;
use typed_mcp::mcp::{McpError, McpServer};
use typed_mcp::server::ShutdownReport;

#[path = "../../examples/demo_server/demo.rs"]
pub mod demo;

/// How long a test waits for one line before it declares the server hung (a hang guard, not
/// a measurement: the answers come in milliseconds).
const HANG_GUARD: Duration = Duration::from_secs(60);

/// The 2026-07-28 `_meta` every modern request carries.
pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test-client", "version": "1.0.0"}
    })
}

/// Modern params: `extra` plus the `_meta` envelope.
pub fn modern(extra: Value) -> Value {
    let mut params = extra;
    params["_meta"] = modern_meta();
    params
}

/// Limits from JSON (panics on an invalid document).
pub fn limits(json: Value) -> Limits {
    typed_mcp::config::limits_from_value(&json).expect("valid limits")
}

/// The demo server with `limits`.
pub fn demo_server(limits: Limits) -> McpServer {
    demo::build(limits).expect("the demo server builds")
}

/// A client connected to a server over an in-memory duplex.
pub struct TestClient {
    writer: Option<WriteHalf<DuplexStream>>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    server: JoinHandle<Result<ShutdownReport, McpError>>,
    /// Notifications received while waiting for responses, in order.
    pub notifications: Vec<Value>,
}

impl TestClient {
    /// Serves `server` on a fresh duplex.
    pub fn start(server: McpServer) -> Self {
        let (client, server_io) = tokio::io::duplex(1 << 20);
        let server = tokio::spawn(async move { server.serve_stream(server_io).await });
        let (reader, writer) = tokio::io::split(client);
        Self {
            writer: Some(writer),
            lines: BufReader::new(reader).lines(),
            server,
            notifications: Vec::new(),
        }
    }

    /// Writes one line.
    pub async fn send_line(&mut self, line: &str) {
        let writer = self.writer.as_mut().expect("input still open");
        writer.write_all(line.as_bytes()).await.expect("write");
        writer.write_all(b"\n").await.expect("write");
        writer.flush().await.expect("flush");
    }

    /// Writes a message.
    pub async fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string()).await;
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Option<Value>) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(&message).await;
    }

    /// The next line from the server, parsed; `None` at end of output.
    pub async fn next(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(HANG_GUARD, self.lines.next_line())
            .await
            .expect("the server answered (hang guard)")
            .expect("read");
        line.map(|line| serde_json::from_str(&line).expect("the server writes JSON lines"))
    }

    /// The next response (notifications before it are kept in `notifications`).
    pub async fn response(&mut self) -> Value {
        loop {
            let message = self.next().await.expect("a response");
            if message.get("method").is_some() && message.get("id").is_none() {
                self.notifications.push(message);
            } else {
                return message;
            }
        }
    }

    /// Sends a request and returns its response, which must carry the same id.
    pub async fn request(&mut self, id: Value, method: &str, params: Option<Value>) -> Value {
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(&message).await;
        let response = self.response().await;
        assert_eq!(
            response["id"], message["id"],
            "response to another request: {response}"
        );
        response
    }

    /// The `result` of a request that must succeed.
    pub async fn result(&mut self, id: Value, method: &str, params: Option<Value>) -> Value {
        let response = self.request(id, method, params).await;
        assert!(
            response.get("error").is_none(),
            "unexpected error: {response}"
        );
        response["result"].clone()
    }

    /// The `error` of a request that must fail.
    pub async fn error(&mut self, id: Value, method: &str, params: Option<Value>) -> Value {
        let response = self.request(id, method, params).await;
        assert!(
            response.get("result").is_none(),
            "unexpected result: {response}"
        );
        response["error"].clone()
    }

    /// Closes the input and returns everything the server still wrote, and its report.
    pub async fn close(mut self) -> (Vec<Value>, ShutdownReport) {
        if let Some(mut writer) = self.writer.take() {
            // Dropping one half of a split duplex does not close it; shutting down does.
            writer.shutdown().await.expect("close the input");
        }
        let mut rest = Vec::new();
        while let Some(message) = self.next().await {
            rest.push(message);
        }
        let report = self
            .server
            .await
            .expect("the server task ended")
            .expect("the server ran");
        (rest, report)
    }
}

/// A client after the `initialize` handshake at `version`.
pub async fn legacy_client(server: McpServer, version: &str) -> TestClient {
    let (client, result) = initialized_with(server, version, json!({})).await;
    assert!(result["protocolVersion"].is_string(), "{result}");
    client
}

/// A client after the `initialize` handshake at `version` declaring `capabilities`, and the
/// `initialize` result.
pub async fn initialized_with(
    server: McpServer,
    version: &str,
    capabilities: Value,
) -> (TestClient, Value) {
    let mut client = TestClient::start(server);
    let result = client
        .result(
            json!(0),
            "initialize",
            Some(json!({
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": {"name": "test-client", "version": "1.0.0"}
            })),
        )
        .await;
    client.notify("notifications/initialized", None).await;
    (client, result)
}

/// `params` of a legacy `tools/call`.
pub fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

/// The envelope (`structuredContent`) of a tool result.
pub fn envelope(result: &Value) -> &Value {
    &result["structuredContent"]
}

/// The error code of a failed tool result's envelope.
pub fn tool_error_code(result: &Value) -> &str {
    assert_eq!(result["isError"], true, "not an error result: {result}");
    result["structuredContent"]["error"]["code"]
        .as_str()
        .expect("an error code")
}

/// The paths of the violations in `-32602` data.
pub fn violation_paths(error: &Value) -> Vec<String> {
    error["data"]["validationErrors"]
        .as_array()
        .expect("data.validationErrors")
        .iter()
        .map(|v| v["path"].as_str().expect("a path").to_owned())
        .collect()
}
