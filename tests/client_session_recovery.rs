//! A 2025 session the server forgot (it expired: 404) is re-initialized once by the client,
//! and the request that met the 404 is sent again in the new session.

use std::time::Duration;

use typed_mcp::client::{Client, ClientOptions, VersionChoice};
use typed_mcp::config::parse_limits;
use typed_mcp::http::HttpOptions;
use typed_mcp::mcp::McpServer;

#[tokio::test]
async fn an_expired_session_is_reinitialized_and_the_request_retried() {
    let limits = parse_limits(r#"{"http": {"sessionIdleTimeoutMs": 1000}}"#).expect("limits");
    let server = McpServer::builder("recovery-test", "1.0.0")
        .limits(limits.clone())
        .build()
        .expect("a server");
    let addr = "127.0.0.1:0".parse().expect("an address");
    let running = server
        .serve_http_with(addr, HttpOptions::from_limits(&limits))
        .await
        .expect("listening");
    for version in ["2025-11-25", "2025-03-26"] {
        let options = ClientOptions::new("recovery-test-client", "1.0.0")
            .version(VersionChoice::Legacy(version.to_owned()))
            .request_timeout(Duration::from_secs(20));
        let client = Client::connect_http(&running.url(), options)
            .await
            .expect("connects");
        assert_eq!(client.protocol_version(), version);
        client
            .list_tools()
            .await
            .expect("tools/list in the first session");
        // Idle past the server's timeout: the session id now answers 404.
        tokio::time::sleep(Duration::from_millis(1300)).await;
        client
            .list_tools()
            .await
            .expect("tools/list after the session expired: recovered");
        client
            .list_tools()
            .await
            .expect("tools/list in the new session");
        client.close().await;
    }
    running.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn a_server_that_keeps_answering_404_fails_the_request_after_one_recovery() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    // A server that opens sessions and then forgets every one: initialize is answered,
    // everything else is 404. The client must not loop.
    let initializes = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&initializes);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |body: String| {
            let counted = Arc::clone(&counted);
            async move {
                let message: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
                match message["method"].as_str() {
                    Some("initialize") => {
                        let n = counted.fetch_add(1, Ordering::SeqCst);
                        let answer = serde_json::json!({
                            "jsonrpc": "2.0", "id": message["id"],
                            "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                       "serverInfo": {"name": "forgetful", "version": "1"}}
                        });
                        (
                            axum::http::StatusCode::OK,
                            [
                                ("content-type", "application/json".to_owned()),
                                ("mcp-session-id", format!("session-{n}")),
                            ],
                            answer.to_string(),
                        )
                    }
                    Some("notifications/initialized") => (
                        axum::http::StatusCode::ACCEPTED,
                        [
                            ("content-type", "application/json".to_owned()),
                            ("x-none", String::new()),
                        ],
                        String::new(),
                    ),
                    _ => (
                        axum::http::StatusCode::NOT_FOUND,
                        [
                            ("content-type", "text/plain".to_owned()),
                            ("x-none", String::new()),
                        ],
                        String::new(),
                    ),
                }
            }
        }),
    );
    let task = tokio::spawn(async move { axum::serve(listener, app).await });
    let options = ClientOptions::new("recovery-test-client", "1.0.0")
        .version(VersionChoice::latest_legacy())
        .request_timeout(Duration::from_secs(20));
    let client = Client::connect_http(&format!("http://{addr}/mcp"), options)
        .await
        .expect("connects");
    let error = client
        .list_tools()
        .await
        .expect_err("404 again after recovery");
    assert!(
        matches!(
            error,
            typed_mcp::client::ClientError::HttpStatus { status: 404, .. }
        ),
        "{error:?}"
    );
    assert_eq!(
        initializes.load(Ordering::SeqCst),
        2,
        "one recovery, no loop"
    );
    task.abort();
}
