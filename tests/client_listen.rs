//! `Client::listen` (`subscriptions/listen`, 2026-07-28) against our own servers: the demo
//! server in process (over an in-memory pipe, where it also ends a stream gracefully when
//! its input ends, and over Streamable HTTP), and the conformance fixture server as a child
//! process over stdio and over HTTP, whose `test_trigger_*` tools change its lists. Each
//! test checks the acknowledgement (what was granted) and real notifications delivered to
//! the subscription, typed.

mod client_support;

#[path = "../examples/demo_server/demo.rs"]
#[allow(dead_code, unreachable_pub)]
mod demo;

use std::time::Duration;

use serde_json::json;
use typed_mcp::client::{Client, ClientError, ListenNotification, ServerCommand, Subscription};
use typed_mcp::generated::protocol::SubscriptionFilter;
use typed_mcp::mcp::McpServer;

use client_support::{build_example, options, runtime, HttpServer};

/// A hang guard, not a measurement.
const WAIT: Duration = Duration::from_secs(30);

fn filter(tools: bool, prompts: bool, uris: &[&str]) -> SubscriptionFilter {
    SubscriptionFilter {
        tools_list_changed: tools.then_some(true),
        prompts_list_changed: prompts.then_some(true),
        resource_subscriptions: (!uris.is_empty())
            .then(|| uris.iter().map(|u| (*u).to_owned()).collect()),
        ..SubscriptionFilter::default()
    }
}

async fn next(subscription: &mut Subscription) -> Option<ListenNotification> {
    tokio::time::timeout(WAIT, subscription.next())
        .await
        .expect("hang guard: no notification")
        .expect("a valid notification")
}

fn demo() -> McpServer {
    let limits = typed_mcp::config::limits_from_value(&json!({})).expect("valid limits");
    demo::build(limits).expect("the demo server builds")
}

/// Waits until `uri` has `count` subscribers (a dropped subscription ends asynchronously).
async fn until_subscribers(server: &McpServer, uri: &str, count: usize) {
    let waited = tokio::time::timeout(WAIT, async {
        while server.notify_resource_updated(uri).await != count {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(
        waited.is_ok(),
        "hang guard: {uri} never had {count} subscribers"
    );
}

/// The demo server's notifications on two streams of one connection, the first ended by
/// drop.
async fn demo_streams(client: &Client, server: &McpServer, what: &str) -> Subscription {
    let mut first = client
        .listen(filter(true, false, &["demo://readme", "demo://unknown"]))
        .await
        .unwrap_or_else(|e| panic!("{what}: listen: {e}"));
    let granted = first.granted();
    assert_eq!(granted.tools_list_changed, Some(true), "{what}");
    assert_eq!(granted.prompts_list_changed, None, "{what}");
    assert_eq!(
        granted.resource_subscriptions.as_deref(),
        Some(&["demo://readme".to_owned()][..]),
        "{what}: the unknown URI is not granted"
    );
    let mut second = client
        .listen(filter(false, true, &["demo://readme"]))
        .await
        .unwrap_or_else(|e| panic!("{what}: second listen: {e}"));
    assert_ne!(first.id(), second.id(), "{what}");

    assert!(server.remove_tool("echo").await, "{what}");
    assert_eq!(
        next(&mut first).await,
        Some(ListenNotification::ToolsListChanged),
        "{what}"
    );
    assert!(server.remove_prompt("greet").await, "{what}");
    assert_eq!(server.notify_resource_updated("demo://readme").await, 2);
    assert_eq!(
        next(&mut first).await,
        Some(ListenNotification::ResourceUpdated {
            uri: "demo://readme".to_owned()
        }),
        "{what}: the prompt change was not asked for by the first stream"
    );
    assert_eq!(
        next(&mut second).await,
        Some(ListenNotification::PromptsListChanged),
        "{what}"
    );
    assert_eq!(
        next(&mut second).await,
        Some(ListenNotification::ResourceUpdated {
            uri: "demo://readme".to_owned()
        }),
        "{what}"
    );
    // Dropping the first stream ends it on the server.
    drop(first);
    until_subscribers(server, "demo://readme", 1).await;
    second
}

#[test]
fn demo_server_in_process_over_a_pipe_ends_streams_gracefully() {
    runtime().block_on(async {
        let server = demo();
        // The client's output reaches the server through a copy the test can stop: the
        // server then sees the end of its input while the client still reads.
        let (client_out, mut relay_in) = tokio::io::duplex(1 << 16);
        let (mut relay_out, server_in) = tokio::io::duplex(1 << 16);
        let relay =
            tokio::spawn(async move { tokio::io::copy(&mut relay_in, &mut relay_out).await });
        let (server_out, client_in) = tokio::io::duplex(1 << 16);
        let serving = {
            let server = server.clone();
            tokio::spawn(async move { server.serve(server_in, server_out).await })
        };
        let client = Client::connect_io(client_in, client_out, options("auto"))
            .await
            .expect("connected");
        let mut second = demo_streams(&client, &server, "pipe").await;
        // The server's input ends: it answers the open stream, which ends it (after the
        // updates `until_subscribers` sent while waiting).
        relay.abort();
        let readme = ListenNotification::ResourceUpdated {
            uri: "demo://readme".to_owned(),
        };
        while let Some(notification) = next(&mut second).await {
            assert_eq!(notification, readme);
        }
        assert_eq!(next(&mut second).await, None, "and after the end");
        drop(second);
        let _report = tokio::time::timeout(WAIT, serving)
            .await
            .expect("hang guard: the server stops");
        client.close().await;
    });
}

#[test]
fn demo_server_in_process_over_http() {
    runtime().block_on(async {
        let server = demo();
        let running = server
            .serve_http("127.0.0.1:0".parse().expect("an address"))
            .await
            .expect("listening");
        let client = Client::connect_http(&running.url(), options("auto"))
            .await
            .expect("connected");
        assert!(client.is_modern());
        let second = demo_streams(&client, &server, "http").await;
        // Dropping the last stream closes its response, which ends it on the server.
        drop(second);
        until_subscribers(&server, "demo://readme", 0).await;
        client.close().await;
        let _stopped = tokio::time::timeout(WAIT, running.shutdown())
            .await
            .expect("hang guard: the server stops");
    });
}

#[test]
fn listen_is_refused_in_a_2025_session() {
    runtime().block_on(async {
        let server = demo();
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server_end);
        let serving = tokio::spawn(async move { server.serve(server_in, server_out).await });
        let (client_in, client_out) = tokio::io::split(client_end);
        let client = Client::connect_io(client_in, client_out, options("2025-11-25"))
            .await
            .expect("connected");
        let refused = client.listen(filter(true, false, &[])).await;
        assert!(
            matches!(
                refused,
                Err(ClientError::NotInEra {
                    method: "subscriptions/listen",
                    ..
                })
            ),
            "{refused:?}"
        );
        client.close().await;
        let _report = tokio::time::timeout(WAIT, serving).await;
    });
}

/// The fixture server's trigger tools change its lists; the changes reach the stream.
async fn conformance_triggers(client: &Client, what: &str) {
    assert!(client.is_modern(), "{what}");
    let mut subscription = client
        .listen(filter(true, true, &[]))
        .await
        .unwrap_or_else(|e| panic!("{what}: listen: {e}"));
    assert_eq!(subscription.granted().tools_list_changed, Some(true));
    assert_eq!(subscription.granted().prompts_list_changed, Some(true));
    for (tool, expected) in [
        (
            "test_trigger_tool_change",
            ListenNotification::ToolsListChanged,
        ),
        (
            "test_trigger_prompt_change",
            ListenNotification::PromptsListChanged,
        ),
        (
            "test_trigger_tool_change",
            ListenNotification::ToolsListChanged,
        ),
    ] {
        let result = client
            .call_tool(tool, json!({}))
            .await
            .unwrap_or_else(|e| panic!("{what}: {tool}: {e}"));
        assert!(!result.is_error(), "{what}: {tool}");
        assert_eq!(
            next(&mut subscription).await,
            Some(expected),
            "{what}: {tool}"
        );
    }
}

#[test]
fn conformance_server_over_stdio_and_http() {
    let fixture = build_example("conformance_server");
    let rt = runtime();
    rt.block_on(async {
        let command = ServerCommand::new(&fixture).env("RUST_LOG", "warn");
        let client = Client::connect_stdio(command, options("auto"))
            .await
            .expect("connected over stdio");
        conformance_triggers(&client, "stdio").await;
        client.close().await;
    });
    let server = HttpServer::start_plain(&[fixture.display().to_string()])
        .expect("the fixture server listens");
    rt.block_on(async {
        let client = Client::connect_http(&server.url, options("auto"))
            .await
            .expect("connected over HTTP");
        conformance_triggers(&client, "http").await;
        client.close().await;
    });
}

/// A fake server's listen stream, well-formed or not: each message is validated, nothing it
/// sent is echoed in an error, and a refused stream is cancelled.
#[test]
fn a_fake_servers_stream_is_validated() {
    use client_support::fake::{connect, SECRET};

    const ACK: &str = "notifications/subscriptions/acknowledged";
    const TAG: &str = "io.modelcontextprotocol/subscriptionId";
    runtime().block_on(async {
        let (client, mut fake) = connect(1 << 16).await;

        // An acknowledgement that breaks the schema: refused, and the stream cancelled.
        let listening = {
            let client = client.clone();
            tokio::spawn(async move { client.listen(filter(true, false, &[])).await })
        };
        let request = fake.request("subscriptions/listen").await;
        assert_eq!(
            request["params"]["notifications"],
            json!({"toolsListChanged": true})
        );
        let meta = &request["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        let id = request["id"].clone();
        let bad = json!({"jsonrpc": "2.0", "method": ACK,
            "params": {"_meta": {TAG: id}, "notifications": {"toolsListChanged": SECRET}}});
        fake.send(&bad.to_string()).await;
        let refused = listening.await.expect("no panic");
        let Err(error) = refused else {
            panic!("a bad acknowledgement is refused");
        };
        assert!(
            matches!(error, ClientError::InvalidMessage { .. }),
            "{error:?}"
        );
        assert!(!error.to_string().contains(SECRET), "{error}");
        let cancelled = fake.next().await;
        assert_eq!(cancelled["method"], "notifications/cancelled");
        assert_eq!(cancelled["params"]["requestId"], id);

        // A good stream: a bad notification is an error and the stream goes on; kinds not
        // granted are skipped; the server's result ends it.
        let listening = {
            let client = client.clone();
            tokio::spawn(async move { client.listen(filter(true, true, &["a://x"])).await })
        };
        let request = fake.request("subscriptions/listen").await;
        let id = request["id"].clone();
        let tagged = |method: &str, mut params: serde_json::Value| {
            params["_meta"] = json!({ TAG: id });
            json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
        };
        let granted = json!({"notifications": {"toolsListChanged": true,
            "resourceSubscriptions": ["a://x"], "laterMember": 1}});
        fake.send(&tagged(ACK, granted)).await;
        let mut subscription = listening.await.expect("no panic").expect("acknowledged");
        assert_eq!(subscription.granted().prompts_list_changed, None);
        fake.send(&tagged(
            "notifications/resources/updated",
            json!({"uri": 5}),
        ))
        .await;
        fake.send(&tagged("notifications/prompts/list_changed", json!({})))
            .await;
        fake.send(&tagged("notifications/tools/list_changed", json!({})))
            .await;
        fake.send(&tagged(
            "notifications/resources/updated",
            json!({"uri": "a://x"}),
        ))
        .await;
        let invalid = subscription.next().await;
        assert!(
            matches!(invalid, Err(ClientError::InvalidMessage { .. })),
            "{invalid:?}"
        );
        assert_eq!(
            next(&mut subscription).await,
            Some(ListenNotification::ToolsListChanged),
            "the prompt change was not granted"
        );
        assert_eq!(
            next(&mut subscription).await,
            Some(ListenNotification::ResourceUpdated {
                uri: "a://x".to_owned()
            })
        );
        fake.answer(&id, json!({"resultType": "complete", "_meta": { TAG: id }}))
            .await;
        assert_eq!(next(&mut subscription).await, None);
        drop(subscription);

        // A stream refused with an error.
        let listening = {
            let client = client.clone();
            tokio::spawn(async move { client.listen(filter(false, false, &[])).await })
        };
        let request = fake.request("subscriptions/listen").await;
        let error = json!({"jsonrpc": "2.0", "id": request["id"],
            "error": {"code": -32602, "message": "no"}});
        fake.send(&error.to_string()).await;
        let refused = listening.await.expect("no panic");
        assert!(
            matches!(refused, Err(ClientError::Rpc { .. })),
            "{refused:?}"
        );
    });
}
