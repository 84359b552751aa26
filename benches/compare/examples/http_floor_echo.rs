//! The floor of the HTTP benchmarks: one axum route, `POST /mcp`, on the same stack as both
//! SDKs (tokio multi-thread runtime with one worker per core, hyper's HTTP/1 server through
//! `axum::serve`). It parses each body into `serde_json::Value` and answers a request (a
//! message with an `id`) with a fixed-shape result as JSON: the request's id and the echoed
//! `params.arguments.text`, twice, in a text block and in `structuredContent`, as
//! `floor_echo structured` writes it over stdio (the size of typed-mcp's answer, its `meta`
//! left out). A notification gets `202 Accepted`, a body that is not JSON `400`.
//!
//! No sessions, no headers checked, no validation, no dispatch (`initialize` gets the same
//! shape of answer, a result, which is all the driver checks of it): the least an MCP server
//! on this stack can do per call, the kernel's TCP work and hyper's included. It is the
//! yardstick of what is left to cut in the HTTP cells (BENCHMARKS.md, "Issue 12, stop 29").
//! Writes `listening on http://ADDR/mcp` to stderr once it accepts connections; stops on
//! SIGTERM / SIGINT.

#[path = "support/runtime.rs"]
mod runtime;

use std::process::ExitCode;

use axum::body::Bytes;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// The answer to one body.
async fn answer(body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let Some(id) = request.get("id") else {
        return StatusCode::ACCEPTED.into_response();
    };
    let text = request
        .pointer("/params/arguments/text")
        .and_then(Value::as_str)
        .unwrap_or("");
    match reply(id, text) {
        Ok(json) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            json,
        )
            .into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// The result for `id` echoing `text`, in a text block and in `structuredContent`.
fn reply(id: &Value, text: &str) -> serde_json::Result<Vec<u8>> {
    // Two copies of the text, escaped, and about a hundred bytes around them.
    let mut out = Vec::with_capacity(2 * text.len() + 128);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut out, id)?;
    out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
    serde_json::to_writer(&mut out, text)?;
    out.extend_from_slice(br#"}],"structuredContent":{"ok":true,"data":"#);
    serde_json::to_writer(&mut out, text)?;
    out.extend_from_slice(b"}}}");
    Ok(out)
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    use tokio::signal::unix::{signal, SignalKind};
    let app = axum::Router::new().route("/mcp", axum::routing::post(answer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    eprintln!("listening on http://{addr}/mcp");
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
        .await?;
    Ok(())
}

fn main() -> ExitCode {
    runtime::run("http_floor_echo", serve())
}
