//! The Streamable HTTP request path, in process (no sockets): arbitrary headers and body
//! through the `tower::Service` of `McpServer::http_service`, in both eras. It never panics,
//! and every answer is a well-formed reply: `202` with an empty body, or a JSON-RPC body
//! (`application/json`: one response, or an array of them for a 2025-03-26 batch), or an
//! event stream whose `data:` lines are JSON-RPC messages. A JSON body must be complete;
//! an event stream may stay open (GET streams and `subscriptions/listen` do).
//!
//! Input: byte 0 picks the method, the `Accept` and `Content-Type` headers and the session
//! (none, a live one opened by `initialize` beforehand, or the input's own); byte 1 picks the
//! `MCP-Protocol-Version` header; then `name: value` header lines up to an empty line
//! (invalid ones skipped, as hyper would refuse them), then the body.
//!
//! Time is paused (tokio's test clock, advanced whenever the runtime is idle), so a stream
//! that stays open ends the run at once instead of hanging it, deterministically.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use tower::Service;
use typed_mcp::http::{McpHttpService, MCP_PROTOCOL_VERSION, MCP_SESSION_ID};
use typed_mcp::mcp::{
    user_text, McpServer, PromptDefinition, ResourceDefinition, ToolDefinition, VerbatimSchema,
};
use typed_mcp::tools::ToolContext;

/// The server every run talks to (each run gets a fresh service: its own sessions).
fn server() -> &'static McpServer {
    static SERVER: OnceLock<McpServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        let schema = VerbatimSchema::from_value(json!({
            "type": "object",
            "properties": {"text": {"type": "string", "maxLength": 64}},
            "required": ["text"]
        }))
        .expect("a valid schema");
        let echo = ToolDefinition::new(
            "echo",
            |_ctx: ToolContext, args: Value| async move { Ok(args["text"].clone()) },
        )
        .and_then(|tool| tool.description("Sends the text back.").input_schema(schema.clone()))
        .expect("echo");
        let chatty = ToolDefinition::new(
            "chatty",
            |ctx: ToolContext, args: Value| async move {
                let _sent = ctx
                    .progress()
                    .report(1.0, Some(2.0), Some("half".to_owned()));
                Ok(args["text"].clone())
            },
        )
        .and_then(|tool| {
            tool.description("Reports progress, then sends the text back.")
                .input_schema(schema)
        })
        .expect("chatty");
        let readme = ResourceDefinition::text("demo://readme", "readme", "text/plain", "hello");
        let greet = PromptDefinition::new("greet", "Greets.", |args| {
            Ok(vec![user_text(format!(
                "hello {}",
                args.get("name").map_or("you", String::as_str)
            ))])
        })
        .argument("name", "Who.", false);
        McpServer::builder("fuzz", "1.0.0")
            .tool(echo)
            .tool(chatty)
            .resource(readme)
            .prompt(greet)
            .build()
            .expect("the server builds")
    })
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a runtime")
    })
}

/// What the fuzzer said about the request.
struct Shape<'a> {
    method: Method,
    accept: Option<&'static str>,
    json_content: bool,
    session: u8,
    version: Option<&'static str>,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: &'a [u8],
}

fn shape(data: &[u8]) -> Option<Shape<'_>> {
    let (&flags, rest) = data.split_first()?;
    let (&version, rest) = rest.split_first()?;
    let method = match flags & 3 {
        0 | 1 => Method::POST,
        2 => Method::GET,
        _ => {
            if flags & 0x80 == 0 {
                Method::DELETE
            } else {
                Method::PUT
            }
        }
    };
    let accept = match (flags >> 2) & 3 {
        0 => None,
        1 => Some("application/json"),
        2 => Some("text/event-stream"),
        _ => Some("application/json, text/event-stream"),
    };
    let version = match version % 6 {
        0 => None,
        1 => Some("2026-07-28"),
        2 => Some("2025-11-25"),
        3 => Some("2025-06-18"),
        4 => Some("2025-03-26"),
        _ => Some("1999-01-01"),
    };
    let split = rest.windows(2).position(|w| w == b"\n\n");
    let (head, body) = match split {
        Some(at) => (&rest[..at], &rest[at + 2..]),
        None => (&[][..], rest),
    };
    let headers = head
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let colon = line.iter().position(|&b| b == b':')?;
            let name = HeaderName::from_bytes(&line[..colon]).ok()?;
            let value = HeaderValue::from_bytes(line[colon + 1..].trim_ascii()).ok()?;
            Some((name, value))
        })
        .collect();
    Some(Shape {
        method,
        accept,
        json_content: flags & 0x10 == 0,
        session: (flags >> 5) & 3,
        version,
        headers,
        body,
    })
}

/// A well-formed JSON-RPC response object.
fn is_response(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    object.get("jsonrpc") == Some(&Value::from("2.0"))
        && object.contains_key("id")
        && (object.contains_key("result") != object.contains_key("error"))
}

/// A well-formed JSON-RPC message of a server's stream (response, request or notification).
fn is_message(value: &Value) -> bool {
    is_response(value)
        || value.get("jsonrpc") == Some(&Value::from("2.0"))
            && value.get("method").is_some_and(Value::is_string)
}

async fn post(
    service: &mut McpHttpService,
    headers: &[(&str, &str)],
    body: &str,
) -> http::Response<axum::body::Body> {
    let mut request = Request::post("/mcp")
        .header(HOST, "127.0.0.1")
        .header(ACCEPT, "application/json, text/event-stream")
        .header(CONTENT_TYPE, "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_owned())))
        .expect("a request");
    service.call(request).await.expect("infallible")
}

/// Opens a session at `version`; its id.
async fn open_session(service: &mut McpHttpService, version: &str) -> String {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}
    });
    let answer = post(service, &[], &initialize.to_string()).await;
    assert_eq!(answer.status(), StatusCode::OK);
    let id = answer.headers()[MCP_SESSION_ID.as_str()]
        .to_str()
        .expect("ASCII")
        .to_owned();
    let initialized = post(
        service,
        &[(MCP_SESSION_ID.as_str(), &id)],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(initialized.status(), StatusCode::ACCEPTED);
    id
}

async fn run(shape: Shape<'_>) {
    let mut service = server().http_service(server().http_options());
    let mut request = Request::builder().method(shape.method.clone()).uri("/mcp");
    request = request.header(HOST, "127.0.0.1");
    if let Some(accept) = shape.accept {
        request = request.header(ACCEPT, accept);
    }
    if shape.json_content {
        request = request.header(CONTENT_TYPE, "application/json");
    }
    if let Some(version) = shape.version {
        request = request.header(MCP_PROTOCOL_VERSION, version);
    }
    match shape.session {
        1 => {
            let version = shape
                .version
                .filter(|v| v.starts_with("2025"))
                .unwrap_or("2025-11-25");
            let id = open_session(&mut service, version).await;
            request = request.header(MCP_SESSION_ID, id);
        }
        2 => request = request.header(MCP_SESSION_ID, "0123456789abcdef"),
        _ => {}
    }
    let mut request = request
        .body(Full::new(Bytes::copy_from_slice(shape.body)))
        .expect("a request");
    for (name, value) in shape.headers {
        let _previous = request.headers_mut().append(name, value);
    }
    let answer = service.call(request).await.expect("infallible");
    let status = answer.status();
    let content_type = answer
        .headers()
        .get(CONTENT_TYPE)
        .map(|value| value.to_str().expect("an ASCII content type").to_owned());
    let body = answer.into_body();
    let collected = tokio::time::timeout(Duration::from_secs(3600), body.collect()).await;
    match content_type.as_deref() {
        None => {
            assert!(
                status == StatusCode::ACCEPTED || status.is_success(),
                "no content type with {status}"
            );
            let bytes = collected
                .expect("an empty body ends")
                .expect("a body")
                .to_bytes();
            assert!(
                bytes.is_empty(),
                "{status} without a content type has a body"
            );
        }
        Some(kind) if kind.starts_with("application/json") => {
            assert_ne!(status, StatusCode::ACCEPTED, "202 carries no body");
            let bytes = collected
                .expect("a JSON body ends")
                .expect("a body")
                .to_bytes();
            let value: Value = serde_json::from_slice(&bytes).expect("the body is JSON");
            let ok = match &value {
                Value::Array(items) => !items.is_empty() && items.iter().all(is_response),
                single => is_response(single),
            };
            assert!(ok, "not a JSON-RPC response: {value}");
        }
        Some(kind) if kind.starts_with("text/event-stream") => {
            assert!(status.is_success(), "an event stream with {status}");
            // A stream may stay open (GET, subscriptions/listen): then nothing to check.
            if let Ok(Ok(collected)) = collected {
                let bytes = collected.to_bytes();
                let text = std::str::from_utf8(&bytes).expect("an event stream is UTF-8");
                for line in text.lines() {
                    if let Some(data) = line.strip_prefix("data:") {
                        let data = data.trim();
                        if data.is_empty() {
                            continue;
                        }
                        let value: Value = serde_json::from_str(data).expect("event data is JSON");
                        assert!(is_message(&value), "not a JSON-RPC message: {value}");
                    }
                }
            }
        }
        Some(other) => panic!("unexpected content type {other:?} with {status}"),
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(shape) = shape(data) {
        runtime().block_on(run(shape));
    }
});
