//! The 2026-07-28 era over Streamable HTTP: stateless POSTs, header checks against the body,
//! the spec's status for each error class, JSON or event-stream answers. A real HTTP client
//! against the demo server listening on 127.0.0.1.

mod http_support;

use http_support::{modern_body, start};
use reqwest::StatusCode;
use serde_json::json;
use typed_mcp::generated::limits::Limits;
use typed_mcp::generated::protocol::validate;

#[tokio::test]
async fn discover_answers_json_with_the_versions_of_the_32022_error() {
    let h = start(Limits::default()).await;
    let answer = h.modern(1, "server/discover", json!({})).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type(), "application/json");
    let result = &answer.json()["result"];
    validate::discover_result(result).expect("a valid DiscoverResult");
    let listed = result["supportedVersions"].clone();

    let mut body = modern_body(2, "server/discover", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let answer = h
        .post(
            &body.to_string(),
            &[
                ("mcp-protocol-version", "v999.0.0"),
                ("mcp-method", "server/discover"),
            ],
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    let error = answer.json();
    assert_eq!(error["id"], 2);
    assert_eq!(error["error"]["code"], -32022);
    assert_eq!(error["error"]["data"]["requested"], "v999.0.0");
    assert_eq!(error["error"]["data"]["supported"], listed);
}

#[tokio::test]
async fn discover_without_its_version_is_32602_with_400() {
    let h = start(Limits::default()).await;
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "server/discover"),
    ];
    let no_meta = r#"{"jsonrpc":"2.0","id":101,"method":"server/discover","params":{}}"#;
    let no_version = r#"{"jsonrpc":"2.0","id":102,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    for body in [no_meta, no_version] {
        let answer = h.post(body, &headers).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.body);
        assert_eq!(answer.error_code(), -32602);
        assert!(answer.json()["id"].is_number());
    }
}

#[tokio::test]
async fn headers_that_disagree_with_the_body_are_32020_with_400() {
    let h = start(Limits::default()).await;
    let call = modern_body(
        7,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    )
    .to_string();
    let cases: &[&[(&str, &str)]] = &[
        &[("mcp-method", "tools/call"), ("mcp-name", "echo")],
        &[("mcp-protocol-version", "2026-07-28"), ("mcp-name", "echo")],
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
        ],
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "TOOLS/CALL"),
            ("mcp-name", "echo"),
        ],
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
            ("mcp-name", "echo"),
        ],
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "add"),
        ],
        &[
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "echo"),
        ],
    ];
    for headers in cases {
        let answer = h.post(&call, headers).await;
        assert_eq!(
            answer.status,
            StatusCode::BAD_REQUEST,
            "{headers:?}: {}",
            answer.body
        );
        assert_eq!(answer.error_code(), -32020, "{headers:?}");
        assert_eq!(answer.json()["id"], 7);
    }
    // Header names are case-insensitive and values are trimmed.
    let answer = h
        .post(
            &call,
            &[
                ("MCP-PROTOCOL-VERSION", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("mcp-name", "  echo "),
            ],
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.json()["result"]["content"][0]["text"], "hi");
}

#[tokio::test]
async fn removed_and_unknown_methods_are_32601_with_404() {
    let h = start(Limits::default()).await;
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "unknown/method",
    ] {
        let answer = h.modern(500, method, json!({})).await;
        assert_eq!(
            answer.status,
            StatusCode::NOT_FOUND,
            "{method}: {}",
            answer.body
        );
        assert_eq!(answer.error_code(), -32601, "{method}");
        assert_eq!(answer.json()["id"], 500);
    }
}

#[tokio::test]
async fn notifications_and_responses_are_accepted_with_202() {
    let h = start(Limits::default()).await;
    let headers = [("mcp-protocol-version", "2026-07-28")];
    for body in [
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
    ] {
        let answer = h.post(body, &headers).await;
        assert_eq!(answer.status, StatusCode::ACCEPTED);
        assert!(answer.body.is_empty());
    }
}

#[tokio::test]
async fn a_request_asking_for_progress_is_answered_as_an_event_stream() {
    let h = start(Limits::default()).await;
    let mut body = modern_body(
        3,
        "tools/call",
        json!({"name": "sleep", "arguments": {"ms": 30}}),
    );
    body["params"]["_meta"]["progressToken"] = json!("p-1");
    let answer = h
        .post(
            &body.to_string(),
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "sleep"),
            ],
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type(), "text/event-stream");
    let events = answer.events();
    let (last, before) = events.split_last().expect("events");
    assert_eq!(last["id"], 3);
    assert_eq!(last["result"]["isError"], false);
    assert!(!before.is_empty(), "progress before the result");
    for event in before {
        assert_eq!(event["method"], "notifications/progress");
        assert_eq!(event["params"]["progressToken"], "p-1");
    }
    // A client accepting JSON only gets JSON (the progress is not sent).
    let answer = h
        .client
        .post(&h.url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "sleep")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let answer = http_support::finish(answer).await;
    assert_eq!(answer.content_type(), "application/json");
    assert_eq!(answer.json()["id"], 3);
}

#[tokio::test]
async fn every_list_read_and_call_result_is_valid_and_carries_cache_hints() {
    let h = start(Limits::default()).await;
    for method in [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ] {
        let answer = h.modern(1, method, json!({})).await;
        assert_eq!(answer.status, StatusCode::OK, "{method}");
        let result = &answer.json()["result"];
        assert!(
            result["ttlMs"].is_u64() && result["cacheScope"].is_string(),
            "{method}"
        );
        assert_eq!(result["resultType"], "complete");
    }
    let answer = h
        .modern(2, "resources/read", json!({"uri": "demo://readme"}))
        .await;
    validate::read_resource_result(&answer.json()["result"]).expect("valid");
    let answer = h
        .modern(3, "resources/read", json!({"uri": "test://nope"}))
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.error_code(), -32602);
    assert_eq!(answer.json()["error"]["data"]["uri"], "test://nope");
    let answer = h
        .modern(
            4,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await;
    validate::get_prompt_result(&answer.json()["result"]).expect("valid");
}

#[tokio::test]
async fn mirrored_arguments_must_match_their_mcp_param_header() {
    let h = start(Limits::default()).await;
    let call = |value: &str| {
        modern_body(
            9,
            "tools/call",
            json!({"name": "route", "arguments": {"key": value}}),
        )
        .to_string()
    };
    let base = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "route"),
    ];
    let with = |param: &'static str| {
        let mut headers = base.to_vec();
        headers.push(("mcp-param-route", param));
        headers
    };
    let accepted = [
        (call("Hello"), with("=?base64?SGVsbG8=?=")),
        (call("Hello"), with("Hello")),
        (call("SGVsbG8="), with("SGVsbG8=")),
    ];
    for (body, headers) in &accepted {
        let answer = h.post(body, headers).await;
        assert_eq!(
            answer.status,
            StatusCode::OK,
            "{headers:?}: {}",
            answer.body
        );
        assert!(answer.json()["error"].is_null());
    }
    let refused = [
        (call("Hello"), with("=?base64?SGVsbG8?=")),
        (call("Hello"), with("=?base64?SGVs!!!bG8=?=")),
        (call("Hello"), with("Goodbye")),
        (call("Hello"), base.to_vec()),
    ];
    for (body, headers) in &refused {
        let answer = h.post(body, headers).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{headers:?}");
        assert_eq!(answer.error_code(), -32020);
    }
}

#[tokio::test]
async fn get_and_delete_without_a_session_are_405() {
    let h = start(Limits::default()).await;
    let get = h
        .client
        .get(&h.url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), StatusCode::METHOD_NOT_ALLOWED);
    let delete = h.client.delete(&h.url).send().await.unwrap();
    assert_eq!(delete.status(), StatusCode::METHOD_NOT_ALLOWED);
    let put = h.client.put(&h.url).send().await.unwrap();
    assert_eq!(put.status(), StatusCode::METHOD_NOT_ALLOWED);
}
