//! The MCP server's protocol eras over an in-memory duplex: the legacy handshake in each
//! version, the modern era (`server/discover`, per-request versions, `-32022`), the era
//! gate, cache hints, and batches (processed in 2025-03-26, rejected later).

mod mcp_server_support;

use mcp_server_support::{call, demo_server, legacy_client, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::generated::limits::Limits;
use typed_mcp::generated::protocol::validate;

#[tokio::test]
async fn the_legacy_handshake_negotiates_each_supported_version() {
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut client = TestClient::start(demo_server(Limits::default()));
        let result = client
            .result(
                json!(1),
                "initialize",
                Some(json!({
                    "protocolVersion": version,
                    "capabilities": {"roots": {}},
                    "clientInfo": {"name": "c", "version": "1"}
                })),
            )
            .await;
        validate::initialize_result(&result).expect("a valid InitializeResult");
        assert_eq!(result["protocolVersion"], version);
        assert_eq!(result["serverInfo"]["name"], "typed-mcp-demo");
        assert!(result["capabilities"]["tools"].is_object());
        assert!(result.get("resultType").is_none());
        client.notify("notifications/initialized", None).await;
        let pong = client.result(json!(2), "ping", None).await;
        assert_eq!(pong, json!({}));
        let (rest, _) = client.close().await;
        assert!(rest.is_empty(), "nothing after the last answer: {rest:?}");
    }
}

#[tokio::test]
async fn an_unsupported_legacy_offer_is_answered_with_the_latest_legacy_version() {
    let mut client = TestClient::start(demo_server(Limits::default()));
    let result = client
        .result(
            json!("init"),
            "initialize",
            Some(json!({
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"}
            })),
        )
        .await;
    assert_eq!(result["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn legacy_results_have_no_result_type_or_cache_hints() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-06-18").await;
    let tools = client.result(json!(1), "tools/list", None).await;
    validate::legacy_list_tools_result(&tools).expect("valid");
    assert!(tools.get("ttlMs").is_none() && tools.get("resultType").is_none());
    let call = client
        .result(
            json!(2),
            "tools/call",
            Some(call("echo", json!({"text": "hi"}))),
        )
        .await;
    validate::legacy_call_tool_result(&call).expect("valid");
    assert!(call.get("resultType").is_none());
    assert_eq!(call["content"][0]["text"], "hi");
    assert_eq!(call["structuredContent"]["data"], "hi");
}

#[tokio::test]
async fn the_modern_era_discovers_then_serves_versioned_requests() {
    let mut client = TestClient::start(demo_server(Limits::default()));
    let discover = client
        .result(json!("d"), "server/discover", Some(modern(json!({}))))
        .await;
    validate::discover_result(&discover).expect("a valid DiscoverResult");
    assert_eq!(discover["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(discover["resultType"], "complete");
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "typed-mcp-demo"
    );
    assert!(discover["instructions"].is_string());

    for (id, method, params) in [
        (1, "tools/list", json!({})),
        (2, "resources/list", json!({})),
        (3, "prompts/list", json!({})),
        (4, "resources/read", json!({"uri": "demo://readme"})),
        (5, "resources/templates/list", json!({})),
    ] {
        let result = client.result(json!(id), method, Some(modern(params))).await;
        assert_eq!(result["resultType"], "complete", "{method}");
        assert!(result["ttlMs"].is_u64(), "{method} carries ttlMs");
        assert_eq!(result["cacheScope"], "public", "{method}");
    }
    let call = client
        .result(
            json!(6),
            "tools/call",
            Some(modern(call("add", json!({"a": 2, "b": 3.5})))),
        )
        .await;
    validate::call_tool_result(&call).expect("a valid CallToolResult");
    assert_eq!(call["resultType"], "complete");
    assert_eq!(call["structuredContent"]["data"]["sum"], 5.5);
    let prompt = client
        .result(
            json!(7),
            "prompts/get",
            Some(modern(
                json!({"name": "greet", "arguments": {"name": "Ada"}}),
            )),
        )
        .await;
    validate::get_prompt_result(&prompt).expect("valid");
    assert!(prompt["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .contains("Ada"));
}

#[tokio::test]
async fn an_unsupported_modern_version_is_32022_with_the_supported_list() {
    let mut client = TestClient::start(demo_server(Limits::default()));
    let mut params = modern(json!({}));
    params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let response = client
        .request(json!(1), "server/discover", Some(params))
        .await;
    validate::unsupported_protocol_version_error(&response).expect("the -32022 shape");
    let error = &response["error"];
    assert_eq!(error["code"], -32022);
    assert_eq!(error["data"]["requested"], "1900-01-01");
    let supported: Vec<&str> = error["data"]["supported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // The same list as server/discover's supportedVersions: the versions a request may name
    // (asked on another connection: a served discover chooses the modern era).
    let mut other = TestClient::start(demo_server(Limits::default()));
    let discover = other
        .result(json!(9), "server/discover", Some(modern(json!({}))))
        .await;
    let listed: Vec<&str> = discover["supportedVersions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(supported, listed);
    assert_eq!(supported, ["2026-07-28"]);
    // The probe chose no era: the client may still fall back to the handshake.
    let init = client
        .result(
            json!(2),
            "initialize",
            Some(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"}
            })),
        )
        .await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn the_era_is_fixed_by_how_the_connection_opens() {
    // Modern connection: no handshake, no ping.
    let mut client = TestClient::start(demo_server(Limits::default()));
    client
        .result(json!(1), "tools/list", Some(modern(json!({}))))
        .await;
    let init = client
        .error(
            json!(2),
            "initialize",
            Some(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"}
            })),
        )
        .await;
    assert_eq!(init["code"], -32022);
    let ping = client
        .error(json!(3), "ping", Some(modern(json!({}))))
        .await;
    assert_eq!(ping["code"], -32601);
    let unversioned = client.error(json!(4), "tools/list", None).await;
    assert_eq!(unversioned["code"], -32602);

    // Legacy connection: versioned requests and a second handshake are refused.
    let mut client = legacy_client(demo_server(Limits::default()), "2025-11-25").await;
    let versioned = client
        .error(json!(5), "tools/list", Some(modern(json!({}))))
        .await;
    assert_eq!(versioned["code"], -32600);
    let again = client
        .error(
            json!(6),
            "initialize",
            Some(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"}
            })),
        )
        .await;
    assert_eq!(again["code"], -32600);
    let discover = client.error(json!(7), "server/discover", None).await;
    assert_eq!(discover["code"], -32601);

    // Undecided: ping is fine, anything else needs a handshake or a version.
    let mut client = TestClient::start(demo_server(Limits::default()));
    assert_eq!(client.result(json!(8), "ping", None).await, json!({}));
    let early = client.error(json!(9), "tools/list", None).await;
    assert_eq!(early["code"], -32600);
    // server/discover exists in 2026-07-28 only: without `_meta`, or without its version,
    // it is a params error there, not a missing handshake.
    let no_meta = client
        .error(json!(10), "server/discover", Some(json!({})))
        .await;
    assert_eq!(no_meta["code"], -32602);
    let no_version = client
        .error(
            json!(11),
            "server/discover",
            Some(json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}})),
        )
        .await;
    assert_eq!(no_version["code"], -32602);
    // ... and it chose no era: the handshake is still open.
    let init = client
        .result(
            json!(12),
            "initialize",
            Some(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"}
            })),
        )
        .await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
}

fn batch_of_two() -> String {
    json!([
        {"jsonrpc": "2.0", "id": 10, "method": "ping"},
        {"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": call("echo", json!({"text": "b"}))}
    ])
    .to_string()
}

#[tokio::test]
async fn batches_are_processed_in_a_2025_03_26_session() {
    let mut client = legacy_client(demo_server(Limits::default()), "2025-03-26").await;
    client.send_line(&batch_of_two()).await;
    let answer = client.next().await.expect("the batch's answer");
    let answers = answer.as_array().expect("a batch response");
    let mut ids: Vec<i64> = answers.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [10, 11]);
    let echo = answers.iter().find(|a| a["id"] == 11).unwrap();
    assert_eq!(echo["result"]["content"][0]["text"], "b");

    // Invalid members are answered one by one; notification members are not answered.
    let mixed = json!([
        {"jsonrpc": "2.0", "id": 20, "method": "ping"},
        {"jsonrpc": "2.0", "id": 21},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 22, "method": "no/such/method"}
    ]);
    client.send_line(&mixed.to_string()).await;
    let answer = client.next().await.expect("the batch's answer");
    let answers = answer.as_array().expect("a batch response");
    assert_eq!(answers.len(), 3, "{answer}");
    let by_id = |id: i64| answers.iter().find(|a| a["id"] == id).expect("answered");
    assert_eq!(by_id(20)["result"], json!({}));
    assert_eq!(by_id(21)["error"]["code"], -32600);
    assert_eq!(by_id(22)["error"]["code"], -32601);
}

#[tokio::test]
async fn batches_are_rejected_in_later_versions() {
    for version in ["2025-06-18", "2025-11-25"] {
        let mut client = legacy_client(demo_server(Limits::default()), version).await;
        client.send_line(&batch_of_two()).await;
        let answer = client.next().await.expect("an answer");
        assert!(
            answer.is_object(),
            "one error, not a batch response: {answer}"
        );
        assert_eq!(answer["error"]["code"], -32600, "{version}: {answer}");
        // The members were not run.
        let (rest, report) = client.close().await;
        assert!(rest.is_empty(), "{rest:?}");
        assert_eq!(report.requests_answered, 1, "only initialize was answered");
    }
}

#[tokio::test]
async fn a_modern_connection_rejects_batches() {
    let mut client = TestClient::start(demo_server(Limits::default()));
    client
        .result(json!(1), "tools/list", Some(modern(json!({}))))
        .await;
    client
        .send_line(&json!([{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": modern(json!({}))}]).to_string())
        .await;
    let answer: Value = client.next().await.expect("an answer");
    assert_eq!(answer["error"]["code"], -32600);
}
