//! Dispatch of the MCP server over an in-memory duplex: unknown methods, invalid params with
//! their paths, notifications (never answered), resources (URI checks, not-found per era),
//! prompts, and outbound validation of results.

mod mcp_server_support;

use mcp_server_support::{demo_server, legacy_client, modern, violation_paths, TestClient};
use serde_json::json;
use typed_mcp::generated::limits::Limits;
use typed_mcp::generated::protocol::{BlobResourceContents, ResourceContents};
use typed_mcp::mcp::{McpError, McpServer, ResourceDefinition, UriPolicy};

#[tokio::test]
async fn an_unknown_method_is_method_not_found_in_every_state() {
    let mut client = TestClient::start(demo_server(Limits::default()));
    let early = client.error(json!(1), "tools/frobnicate", None).await;
    assert_eq!(early["code"], -32601);
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    let legacy = client
        .error(json!(2), "sampling/createMessage", Some(json!({})))
        .await;
    assert_eq!(legacy["code"], -32601);
    let mut client = TestClient::start(demo_server(Limits::default()));
    client
        .result(json!(3), "tools/list", Some(modern(json!({}))))
        .await;
    let modern_unknown = client
        .error(
            json!(4),
            "logging/setLevel",
            Some(modern(json!({"level": "info"}))),
        )
        .await;
    assert_eq!(modern_unknown["code"], -32601);
}

#[tokio::test]
async fn invalid_params_are_32602_with_every_violation_and_its_path() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    let error = client
        .error(
            json!(1),
            "tools/call",
            Some(json!({"name": 5, "arguments": []})),
        )
        .await;
    assert_eq!(error["code"], -32602);
    let mut paths = violation_paths(&error);
    paths.sort();
    assert_eq!(paths, ["/arguments", "/name"]);
    let first = &error["data"]["validationErrors"][0];
    assert_eq!(first["keyword"], "type");
    assert!(
        first["limit"].is_string() || first["limit"].is_array(),
        "{first}"
    );
    assert!(first["actual"].is_string(), "{first}");

    let missing = client.error(json!(2), "tools/call", None).await;
    assert_eq!(missing["code"], -32602);

    let cursor = client
        .error(json!(3), "tools/list", Some(json!({"cursor": 7})))
        .await;
    assert_eq!(violation_paths(&cursor), ["/cursor"]);

    // Modern: the per-request envelope is part of the params.
    let mut client = TestClient::start(demo_server(Limits::default()));
    client
        .result(json!(4), "tools/list", Some(modern(json!({}))))
        .await;
    let mut params = modern(json!({}));
    params["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let error = client.error(json!(5), "tools/list", Some(params)).await;
    assert_eq!(error["code"], -32602);
    assert_eq!(violation_paths(&error), ["/_meta"]);
}

#[tokio::test]
async fn notifications_are_never_answered() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    client
        .notify("notifications/whatever", Some(json!({"x": 1})))
        .await;
    // Params that break the MCP schemas (still valid JSON-RPC: a non-structured `params` is
    // an invalid message, which the JSON-RPC layer answers with id null).
    client
        .notify("notifications/initialized", Some(json!({"_meta": 5})))
        .await;
    client
        .notify("notifications/cancelled", Some(json!({"requestId": {}})))
        .await;
    client
        .notify("notifications/progress", Some(json!({"bogus": true})))
        .await;
    client
        .notify("tools/call", Some(json!({"name": "echo"})))
        .await;
    client
        .notify("notifications/cancelled", Some(json!({"requestId": 99})))
        .await;
    // The next message is the ping's answer: nothing was written for the notifications.
    let pong = client.request(json!("p"), "ping", None).await;
    assert_eq!(pong["result"], json!({}));
    let (rest, report) = client.close().await;
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(report.requests_answered, 2, "initialize and ping only");
}

#[tokio::test]
async fn resources_are_listed_and_read_in_both_eras() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-03-26").await;
    let list = client.result(json!(1), "resources/list", None).await;
    assert_eq!(list["resources"][0]["uri"], "demo://readme");
    let read = client
        .result(
            json!(2),
            "resources/read",
            Some(json!({"uri": "demo://readme"})),
        )
        .await;
    assert_eq!(read["contents"][0]["uri"], "demo://readme");
    assert!(read["contents"][0]["text"]
        .as_str()
        .unwrap()
        .contains("lookup"));
    let templates = client
        .result(json!(3), "resources/templates/list", None)
        .await;
    assert_eq!(
        templates["resourceTemplates"][0]["uriTemplate"],
        "demo://greetings/{name}"
    );
}

#[tokio::test]
async fn an_unknown_resource_is_not_found_as_each_era_says() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-06-18").await;
    let legacy = client
        .error(
            json!(1),
            "resources/read",
            Some(json!({"uri": "demo://missing"})),
        )
        .await;
    assert_eq!(legacy["code"], -32002);
    assert_eq!(legacy["data"]["uri"], "demo://missing");
    let mut client = TestClient::start(demo_server(Limits::default()));
    let modern_error = client
        .error(
            json!(2),
            "resources/read",
            Some(modern(json!({"uri": "demo://missing"}))),
        )
        .await;
    assert_eq!(modern_error["code"], -32602);
    assert_eq!(modern_error["data"]["uri"], "demo://missing");
}

#[tokio::test]
async fn a_malformed_uri_is_invalid_params_at_uri() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    for (id, uri) in [(1, "not a uri"), (2, "demo://readme with spaces"), (3, "")] {
        let error = client
            .error(json!(id), "resources/read", Some(json!({"uri": uri})))
            .await;
        assert_eq!(error["code"], -32602, "{uri:?}");
        assert_eq!(violation_paths(&error), ["/uri"], "{uri:?}");
    }
}

fn readme(uri: &str) -> ResourceDefinition {
    ResourceDefinition::text(uri, "readme", "text/plain", "hello")
}

#[tokio::test]
async fn the_uri_policy_applies_at_registration_and_on_read() {
    let refused = McpServer::builder("s", "1")
        .uri_policy(UriPolicy::any().schemes(["resource"]).authority("demo"))
        .resource(readme("file:///etc/hosts"))
        .build();
    assert!(matches!(refused, Err(McpError::InvalidResourceUri { .. })));
    let invalid = McpServer::builder("s", "1")
        .resource(readme("no scheme here"))
        .build();
    assert!(matches!(invalid, Err(McpError::InvalidResourceUri { .. })));
    let duplicate = McpServer::builder("s", "1")
        .resource(readme("demo://a"))
        .resource(readme("demo://a"))
        .build();
    assert!(matches!(duplicate, Err(McpError::DuplicateName { .. })));

    let server = McpServer::builder("s", "1")
        .uri_policy(UriPolicy::any().schemes(["resource"]).authority("demo"))
        .resource(readme("resource://demo/readme"))
        .build()
        .unwrap();
    let mut client = legacy_client(server, "2025-11-25").await;
    let ok = client
        .result(
            json!(1),
            "resources/read",
            Some(json!({"uri": "resource://demo/readme"})),
        )
        .await;
    assert_eq!(ok["contents"][0]["text"], "hello");
    for (id, uri) in [(2, "file:///etc/hosts"), (3, "resource://other/readme")] {
        let error = client
            .error(json!(id), "resources/read", Some(json!({"uri": uri})))
            .await;
        assert_eq!(error["code"], -32602, "{uri}");
        assert_eq!(violation_paths(&error), ["/uri"]);
    }
}

#[tokio::test]
async fn prompts_check_their_arguments() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    let list = client.result(json!(1), "prompts/list", None).await;
    assert_eq!(list["prompts"][0]["name"], "greet");
    assert_eq!(list["prompts"][0]["arguments"][0]["required"], true);
    let missing = client
        .error(json!(2), "prompts/get", Some(json!({"name": "greet"})))
        .await;
    assert_eq!(missing["code"], -32602);
    assert_eq!(violation_paths(&missing), ["/arguments"]);
    let not_a_string = client
        .error(
            json!(3),
            "prompts/get",
            Some(json!({"name": "greet", "arguments": {"name": 5}})),
        )
        .await;
    assert_eq!(violation_paths(&not_a_string), ["/arguments/name"]);
    let unknown = client
        .error(json!(4), "prompts/get", Some(json!({"name": "nope"})))
        .await;
    assert_eq!(violation_paths(&unknown), ["/name"]);
}

#[tokio::test]
async fn a_result_failing_outbound_validation_becomes_an_internal_error() {
    // A deliberately bad reader: its blob is not base64.
    let bad = ResourceDefinition::new("demo://bad", "bad", |uri: &str| {
        Ok(vec![ResourceContents::BlobResourceContents(
            BlobResourceContents {
                blob: "this is *not* base64!".to_owned(),
                meta: None,
                mime_type: None,
                uri: uri.to_owned(),
            },
        )])
    });
    let server = McpServer::builder("s", "1").resource(bad).build().unwrap();
    for era in ["legacy", "modern"] {
        let (mut client, params) = if era == "legacy" {
            (
                legacy_client(server.clone(), "2025-11-25").await,
                json!({"uri": "demo://bad"}),
            )
        } else {
            (
                TestClient::start(server.clone()),
                modern(json!({"uri": "demo://bad"})),
            )
        };
        let response = client
            .request(json!("bad-1"), "resources/read", Some(params))
            .await;
        assert_eq!(
            response["id"], "bad-1",
            "{era}: the error carries the request id"
        );
        assert_eq!(response["error"]["code"], -32603, "{era}");
        assert!(response.get("result").is_none());
        // The connection goes on.
        let (rest, _) = client.close().await;
        assert!(rest.is_empty());
    }
}
