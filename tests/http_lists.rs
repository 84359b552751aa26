//! The list features over Streamable HTTP: pagination across stateless requests.

mod http_support;

use serde_json::json;

#[tokio::test]
async fn stateless_http_requests_page_with_the_same_cursor() {
    let harness = http_support::start(http_support::limits(r#"{"lists": {"pageSize": 5}}"#)).await;
    let first = harness.modern(1, "tools/list", json!({})).await.json();
    let cursor = first["result"]["nextCursor"]
        .as_str()
        .expect("a cursor")
        .to_owned();
    assert_eq!(first["result"]["tools"].as_array().unwrap().len(), 5);
    let second = harness
        .modern(2, "tools/list", json!({ "cursor": cursor }))
        .await
        .json();
    assert!(second["result"].get("nextCursor").is_none(), "{second}");
    let names: Vec<&str> = first["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["result"]["tools"].as_array().unwrap())
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "no tool twice: {names:?}");
    let refused = harness
        .modern(3, "tools/list", json!({ "cursor": format!("{cursor}x") }))
        .await;
    assert_eq!(refused.error_code(), -32602);
}
