//! Streamable HTTP bad input and bounds: Host/Origin (DNS rebinding), malformed bodies, body
//! size and read time, header read time, the bound on concurrent requests; one server value
//! serving stdio and HTTP at once. A real client against a server listening on 127.0.0.1.

mod http_support;

use std::time::Duration;

use http_support::{limits, modern_body, start};
use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use typed_mcp::generated::limits::Limits;

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused_with_403() {
    let h = start(Limits::default()).await;
    let body = modern_body(1, "server/discover", json!({})).to_string();
    let modern = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "server/discover"),
    ];
    let port = h.running.local_addr().port();
    let local_host = format!("localhost:{port}");
    let local_origin = format!("http://127.0.0.1:{port}");
    let cases: Vec<(Vec<(&str, &str)>, StatusCode)> = vec![
        (vec![("host", "evil.example.com")], StatusCode::FORBIDDEN),
        (
            vec![("origin", "http://evil.example.com")],
            StatusCode::FORBIDDEN,
        ),
        (
            vec![
                ("host", "evil.example.com"),
                ("origin", "http://evil.example.com"),
            ],
            StatusCode::FORBIDDEN,
        ),
        (vec![("host", &local_host)], StatusCode::OK),
        (vec![("origin", &local_origin)], StatusCode::OK),
    ];
    for (extra, expected) in cases {
        let mut headers = modern.to_vec();
        headers.extend(extra.iter().copied());
        let answer = h.post(&body, &headers).await;
        assert_eq!(answer.status, expected, "{extra:?}: {}", answer.body);
        if expected == StatusCode::FORBIDDEN {
            assert_eq!(answer.error_code(), -32600);
            assert!(!answer.body.contains("evil"), "the input is not echoed");
        }
    }
}

#[tokio::test]
async fn malformed_bodies_get_a_json_rpc_error_that_never_quotes_them() {
    let h = start(Limits::default()).await;
    let secret = "SECRET-INPUT-TEXT";
    for (body, code) in [
        (
            format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"{secret}"),
            -32700,
        ),
        (
            format!("{{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"{secret}\"}}"),
            -32600,
        ),
        (
            format!("[{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"{secret}\"}}]"),
            -32600,
        ),
        (format!("\"{secret}\""), -32600),
    ] {
        let answer = h.post(&body, &[]).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(answer.error_code(), code, "{body}");
        assert!(!answer.body.contains(secret));
    }
    let wrong_type = h
        .client
        .post(&h.url)
        .header("content-type", "text/plain")
        .header("accept", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong_type.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let not_acceptable = h
        .client
        .post(&h.url)
        .header("content-type", "application/json")
        .header("accept", "text/html")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(not_acceptable.status(), StatusCode::NOT_ACCEPTABLE);
}

#[tokio::test]
async fn an_oversized_body_is_413_and_the_connection_keeps_working() {
    let h = start(limits(r#"{"request": {"maxLineBytes": 4096}}"#)).await;
    let big = modern_body(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x".repeat(10_000)}}),
    )
    .to_string();
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "echo"),
    ];
    let answer = h.post(&big, &headers).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer.error_code(), -32600);
    assert!(answer.body.contains("4096"));
    // The same client (one pooled connection) goes on.
    let small = modern_body(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "ok"}}),
    )
    .to_string();
    let answer = h.post(&small, &headers).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json()["result"]["content"][0]["text"], "ok");
}

#[tokio::test]
async fn after_a_413_the_same_tcp_connection_serves_the_next_request() {
    let h = start(limits(r#"{"request": {"maxLineBytes": 4096}}"#)).await;
    let request = |body: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/list\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(10_000));
    let small = modern_body(2, "tools/list", json!({})).to_string();
    let mut socket = TcpStream::connect(h.running.local_addr()).await.unwrap();
    socket.write_all(request(&big).as_bytes()).await.unwrap();
    socket.write_all(request(&small).as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let mut chunk = [0_u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("\"tools\"") {
        let read = tokio::time::timeout(http_support::HANG_GUARD, socket.read(&mut chunk))
            .await
            .expect("the second answer arrives")
            .unwrap();
        assert!(
            read > 0,
            "the connection closed: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&chunk[..read]);
    }
    let seen = String::from_utf8_lossy(&seen);
    assert!(seen.starts_with("HTTP/1.1 413"), "{seen}");
    assert_eq!(seen.matches("HTTP/1.1 200").count(), 1, "{seen}");
}

/// Sends raw bytes on a fresh connection; returns what the server wrote before closing (or
/// before `wait`).
async fn raw_exchange(addr: std::net::SocketAddr, bytes: &[u8], wait: Duration) -> String {
    let mut socket = TcpStream::connect(addr).await.unwrap();
    socket.write_all(bytes).await.unwrap();
    let mut answer = Vec::new();
    let _read = tokio::time::timeout(wait, socket.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_client_trickling_its_body_is_cut_off_with_408() {
    let h = start(limits(r#"{"http": {"bodyReadTimeoutMs": 300}}"#)).await;
    let head = concat!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n",
        "accept: application/json\r\ncontent-length: 100\r\n\r\n{\"jsonrpc\""
    );
    let answer = raw_exchange(
        h.running.local_addr(),
        head.as_bytes(),
        Duration::from_secs(20),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("-32600"));
}

#[tokio::test]
async fn a_client_trickling_its_headers_is_disconnected() {
    let h = start(limits(r#"{"http": {"headerReadTimeoutMs": 300}}"#)).await;
    let started = std::time::Instant::now();
    let answer = raw_exchange(
        h.running.local_addr(),
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n",
        Duration::from_secs(20),
    )
    .await;
    // hyper answers 408 or just closes; either way the connection does not stay open.
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the connection was held"
    );
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
}

#[tokio::test]
async fn requests_beyond_the_concurrency_bound_get_503_with_retry_after() {
    let h = start(limits(
        r#"{"http": {"maxConcurrentRequests": 1, "retryAfterSeconds": 7}}"#,
    ))
    .await;
    let slow = {
        let client = h.client.clone();
        let url = h.url.clone();
        let body = modern_body(
            1,
            "tools/call",
            json!({"name": "sleep", "arguments": {"ms": 1500}}),
        )
        .to_string();
        tokio::spawn(async move {
            client
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "sleep")
                .body(body)
                .send()
                .await
                .unwrap()
                .status()
        })
    };
    let mut refused = None;
    for _ in 0..100 {
        let answer = h.modern(2, "tools/list", json!({})).await;
        if answer.status == StatusCode::SERVICE_UNAVAILABLE {
            refused = Some(answer);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let refused = refused.expect("a request over the bound was refused");
    assert_eq!(refused.headers["retry-after"], "7");
    assert_eq!(refused.error_code(), -32603);
    assert_eq!(slow.await.unwrap(), StatusCode::OK);
    let answer = h.modern(3, "tools/list", json!({})).await;
    assert_eq!(answer.status, StatusCode::OK);
}

#[tokio::test]
async fn one_server_serves_stdio_and_http_at_once_with_one_cache() {
    let h = start(Limits::default()).await;
    let (client, server_io) = tokio::io::duplex(64 * 1024);
    let server = h.server.clone();
    let stdio = tokio::spawn(async move { server.serve_stream(server_io).await });
    let (reader, mut writer) = tokio::io::split(client);
    let line = modern_body(
        1,
        "tools/call",
        json!({"name": "lookup", "arguments": {"key": "shared"}}),
    );
    writer
        .write_all(format!("{line}\n").as_bytes())
        .await
        .unwrap();
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(reader));
    let first = lines.next_line().await.unwrap().unwrap();
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(
        first["result"]["structuredContent"]["data"]["computations"],
        1
    );
    // The same call over HTTP is a cache hit: computed once for both transports.
    let answer = h
        .modern(
            2,
            "tools/call",
            json!({"name": "lookup", "arguments": {"key": "shared"}}),
        )
        .await;
    let data = &answer.json()["result"]["structuredContent"];
    assert_eq!(data["data"]["computations"], 1);
    assert_eq!(data["meta"]["cached"], true);
    writer.shutdown().await.unwrap();
    drop(lines);
    tokio::time::timeout(http_support::HANG_GUARD, stdio)
        .await
        .expect("stdio ends at EOF")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn only_the_mcp_path_is_served_and_other_paths_get_404() {
    let h = start(Limits::default()).await;
    let body = modern_body(1, "server/discover", json!({})).to_string();
    let modern = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "server/discover"),
    ];
    let root = h.url.trim_end_matches("/mcp").to_owned();
    for (path, expected) in [
        ("/mcp", StatusCode::OK),
        ("/mcp?trace=1", StatusCode::OK),
        ("/", StatusCode::NOT_FOUND),
        ("/mcp/", StatusCode::NOT_FOUND),
        ("/mcpx", StatusCode::NOT_FOUND),
        ("/MCP", StatusCode::NOT_FOUND),
        ("/other/mcp", StatusCode::NOT_FOUND),
    ] {
        let answer = h.post_to(&format!("{root}{path}"), &body, &modern).await;
        assert_eq!(answer.status, expected, "POST {path}");
        let get = h
            .client
            .get(format!("{root}{path}"))
            .send()
            .await
            .expect("an answer");
        if expected == StatusCode::NOT_FOUND {
            assert_eq!(get.status(), StatusCode::NOT_FOUND, "GET {path}");
            assert!(get.bytes().await.expect("a body").is_empty(), "GET {path}");
        } else {
            assert_ne!(get.status(), StatusCode::NOT_FOUND, "GET {path}");
        }
    }
}
