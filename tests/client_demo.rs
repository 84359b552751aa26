//! The client against our demo server, as a real child process over stdio and over
//! Streamable HTTP on 127.0.0.1, in every version choice: handshake, every typed method,
//! progress, timeouts with cancellation, and the child reaped when the client goes.

mod client_support;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use typed_mcp::client::{Client, ClientError, CompletionTarget, RequestOptions};
use typed_mcp::generated::protocol::LoggingLevel;
use typed_mcp::jsonrpc::ErrorCode;

use client_support::{demo_server, demo_stdio, limits_file, options, runtime, HttpServer, CHOICES};

/// Everything a user does with a connected client, checked against the demo server.
async fn exercise(client: &Client, expected_version: &str, what: &str) {
    assert_eq!(client.protocol_version(), expected_version, "{what}");
    let modern = expected_version == "2026-07-28";
    assert_eq!(client.is_modern(), modern, "{what}");
    let server = client.server().expect("a server description");
    assert!(server.capabilities().tools.is_some(), "{what}");

    let tools = client.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in ["echo", "add", "sleep", "sum"] {
        assert!(names.contains(&expected), "{what}: {names:?}");
    }

    let sum = client
        .call_tool("add", json!({"a": 2, "b": 3.5}))
        .await
        .expect("tools/call add");
    assert!(!sum.is_error(), "{what}");
    let structured = sum.structured_content().expect("structured content");
    assert_eq!(
        structured["data"]["sum"],
        json!(5.5),
        "{what}: {structured}"
    );

    let echo = client
        .call_tool("echo", json!({"text": "héllo"}))
        .await
        .expect("tools/call echo");
    let text = serde_json::to_string(echo.content()).expect("serializable");
    assert!(text.contains("héllo"), "{what}: {text}");

    // `route` mirrors its `key` into `Mcp-Param-Route` over 2026-07-28 HTTP (the server
    // refuses the call without it), with non-ASCII text Base64-encoded.
    for key in ["plain-key", "clé à molette"] {
        let routed = client
            .call_tool("route", json!({"key": key}))
            .await
            .unwrap_or_else(|e| panic!("{what}: tools/call route: {e}"));
        assert!(!routed.is_error(), "{what}: {routed:?}");
    }

    // Arguments the tool's schema refuses: the server's -32602, typed.
    match client.call_tool("add", json!({"a": "two"})).await {
        Err(error @ ClientError::Rpc { .. }) => {
            assert_eq!(error.rpc_code(), Some(ErrorCode::INVALID_PARAMS), "{what}")
        }
        Ok(result) => assert!(result.is_error(), "{what}: accepted bad arguments"),
        Err(other) => panic!("{what}: {other}"),
    }
    // Arguments that break the protocol schema never leave the client.
    match client.call_tool("add", json!([1, 2])).await {
        Err(ClientError::InvalidRequest { errors, .. }) => {
            assert!(
                errors.iter().any(|e| e.path() == "/params/arguments"),
                "{what}: {errors:?}"
            )
        }
        other => panic!("{what}: {other:?}"),
    }

    let resources = client.list_resources().await.expect("resources/list");
    assert!(resources.iter().any(|r| r.uri == "demo://readme"), "{what}");
    let readme = client
        .read_resource("demo://readme")
        .await
        .expect("resources/read");
    assert_eq!(readme.contents().len(), 1, "{what}");
    let missing = client.read_resource("demo://missing").await;
    assert!(
        matches!(missing, Err(ClientError::Rpc { .. })),
        "{what}: {missing:?}"
    );

    let templates = client
        .list_resource_templates()
        .await
        .expect("resources/templates/list");
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "demo://greetings/{name}"),
        "{what}: {templates:?}"
    );
    let greeting = client
        .read_resource("demo://greetings/Ada")
        .await
        .expect("resources/read through the template");
    let text = serde_json::to_string(greeting.contents()).expect("serializable");
    assert!(text.contains("Hello, Ada!"), "{what}: {text}");
    let none = BTreeMap::new();
    let names = client
        .complete(CompletionTarget::Prompt("greet"), "name", "a", &none)
        .await
        .expect("completion/complete of a prompt argument");
    assert_eq!(names.values, ["Ada", "Alan"], "{what}");
    let target = CompletionTarget::ResourceTemplate("demo://greetings/{name}");
    let names = client
        .complete(target, "name", "G", &none)
        .await
        .expect("completion/complete of a template variable");
    assert_eq!(names.values, ["Grace"], "{what}");
    client
        .set_log_level(LoggingLevel::Info)
        .await
        .expect("the log level");
    if modern {
        assert!(
            matches!(
                client.subscribe("demo://readme").await,
                Err(ClientError::NotInEra { .. })
            ),
            "{what}"
        );
    } else {
        client
            .subscribe("demo://readme")
            .await
            .expect("resources/subscribe");
        client
            .unsubscribe("demo://readme")
            .await
            .expect("resources/unsubscribe");
    }

    let prompts = client.list_prompts().await.expect("prompts/list");
    assert!(prompts.iter().any(|p| p.name == "greet"), "{what}");
    let greet = client
        .get_prompt("greet", json!({"name": "Ada"}))
        .await
        .expect("prompts/get");
    let text = serde_json::to_string(greet.messages()).expect("serializable");
    assert!(text.contains("Ada"), "{what}: {text}");

    if modern {
        let discovered = client.discover().await.expect("server/discover");
        assert!(discovered
            .supported_versions
            .iter()
            .any(|v| v == "2026-07-28"));
        assert!(
            matches!(client.ping().await, Err(ClientError::NotInEra { .. })),
            "{what}"
        );
    } else {
        client.ping().await.expect("ping");
        assert!(
            matches!(client.discover().await, Err(ClientError::NotInEra { .. })),
            "{what}"
        );
    }

    // Progress reports reach the callback.
    let reports = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&reports);
    let slept = client
        .call_tool_with(
            "sleep",
            json!({"ms": 50}),
            RequestOptions::new().on_progress(move |_| {
                counted.fetch_add(1, Ordering::SeqCst);
            }),
        )
        .await
        .expect("tools/call sleep");
    assert!(!slept.is_error(), "{what}");
    assert!(
        reports.load(Ordering::SeqCst) >= 1,
        "{what}: no progress report"
    );

    // A request that outlives its timeout fails fast, typed, and the connection goes on.
    let started = Instant::now();
    let late = client
        .call_tool_with(
            "sleep",
            json!({"ms": 250}),
            RequestOptions::new().timeout(Duration::from_millis(50)),
        )
        .await;
    assert!(
        matches!(late, Err(ClientError::Timeout { .. })),
        "{what}: {late:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{what}");
    client
        .call_tool("echo", json!({"text": "still here"}))
        .await
        .expect("the connection survives a timeout");

    // Concurrent requests on clones of one client.
    let calls = (0..8).map(|i| {
        let client = client.clone();
        async move { client.call_tool("add", json!({"a": i, "b": 1})).await }
    });
    for (i, result) in futures_join(calls).await.into_iter().enumerate() {
        let result = result.expect("concurrent tools/call");
        let sum = result.structured_content().expect("structured")["data"]["sum"].as_f64();
        assert_eq!(sum, Some(i as f64 + 1.0), "{what}");
    }
}

/// Runs futures concurrently (no extra crates: one task each).
async fn futures_join<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut outputs = Vec::new();
    for handle in handles {
        outputs.push(handle.await.expect("the task finishes"));
    }
    outputs
}

#[test]
fn demo_server_over_stdio_in_every_version_choice() {
    let (_dir, limits) = limits_file();
    let rt = runtime();
    for (choice, expected) in CHOICES {
        rt.block_on(async {
            let what = format!("stdio, --version {choice}");
            let client = Client::connect_stdio(demo_stdio(&limits), options(choice))
                .await
                .unwrap_or_else(|error| panic!("{what}: connect: {error}"));
            exercise(&client, expected, &what).await;
            let pid = client.server_pid().expect("a child process");
            client.close().await;
            assert!(
                client_support::process_gone(pid),
                "{what}: the child is not reaped"
            );
            let after = client.call_tool("echo", json!({"text": "x"})).await;
            assert!(
                matches!(after, Err(ClientError::Closed)),
                "{what}: {after:?}"
            );
        });
    }
}

#[test]
fn demo_server_over_http_in_every_version_choice() {
    let (_dir, limits) = limits_file();
    let server = HttpServer::start(&[demo_server().display().to_string()], &limits)
        .expect("the demo server listens");
    let rt = runtime();
    for (choice, expected) in CHOICES {
        rt.block_on(async {
            let what = format!("HTTP, --version {choice}");
            let client = Client::connect_http(&server.url, options(choice))
                .await
                .unwrap_or_else(|error| panic!("{what}: connect: {error}"));
            exercise(&client, expected, &what).await;
            client.close().await;
        });
    }
    // A first call needing `Mcp-Param-*` headers, before any tools/list: the client reads
    // the annotations itself.
    rt.block_on(async {
        let client = Client::connect_http(&server.url, options("auto"))
            .await
            .expect("connects");
        let routed = client
            .call_tool("route", json!({"key": "k"}))
            .await
            .expect("routed");
        assert!(!routed.is_error(), "{routed:?}");
        client.close().await;
    });
    let stopped = server.stop();
    assert!(
        stopped.was_running,
        "the server ran to the end: {}",
        stopped.stderr
    );
}

#[test]
fn a_dropped_client_kills_and_reaps_its_child() {
    let (_dir, limits) = limits_file();
    let rt = runtime();
    let pid = rt.block_on(async {
        let client = Client::connect_stdio(demo_stdio(&limits), options("auto"))
            .await
            .expect("connects");
        let pid = client.server_pid().expect("a child");
        drop(client);
        pid
    });
    rt.block_on(async {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !client_support::process_gone(pid) {
            assert!(Instant::now() < deadline, "process {pid} still exists");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
}

#[test]
fn a_server_that_cannot_start_is_a_typed_error() {
    let rt = runtime();
    rt.block_on(async {
        let missing = typed_mcp::client::ServerCommand::new("/nonexistent/typed-mcp-server");
        let error = Client::connect_stdio(missing, options("auto"))
            .await
            .unwrap_err();
        assert!(matches!(error, ClientError::Spawn { .. }), "{error:?}");
        let exits = typed_mcp::client::ServerCommand::new("true");
        let error = Client::connect_stdio(exits, options("auto"))
            .await
            .unwrap_err();
        // Whether the first request left before the process was gone is a race: either it
        // went unanswered, or the connection had already ended when it was to be sent.
        assert!(
            matches!(
                error,
                ClientError::ConnectionClosed { .. } | ClientError::Closed
            ),
            "{error:?}"
        );
        let refused = Client::connect_http("http://127.0.0.1:9/mcp", options("auto"))
            .await
            .unwrap_err();
        assert!(matches!(refused, ClientError::Http { .. }), "{refused:?}");
        let bad = Client::connect_http("ftp://example/mcp", options("auto"))
            .await
            .unwrap_err();
        assert!(matches!(bad, ClientError::Http { .. }), "{bad:?}");
    });
}
