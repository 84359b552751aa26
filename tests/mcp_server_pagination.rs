//! Pagination of every list method, in both eras, on stdio (HTTP: `http_lists.rs`): pages
//! of `limits.lists.pageSize`, opaque sealed cursors, `-32602` for an altered cursor or one
//! of another list.

mod mcp_server_support;

use mcp_server_support::{demo_server, legacy_client, limits, modern, TestClient};
use serde_json::{json, Value};
use typed_mcp::generated::protocol::validate;

/// Walks every page of `method` (names under `field`), checking each page's size.
async fn walk(
    client: &mut TestClient,
    method: &str,
    field: &str,
    key: &str,
    page_size: usize,
    wrap: impl Fn(Value) -> Option<Value>,
) -> Vec<String> {
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    for id in 1..100 {
        let params = match &cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        let result = client.result(json!(id), method, wrap(params)).await;
        let items = result[field].as_array().expect("a list");
        assert!(items.len() <= page_size, "{result}");
        names.extend(
            items
                .iter()
                .map(|item| item[key].as_str().unwrap().to_owned()),
        );
        match result.get("nextCursor") {
            Some(next) => {
                assert_eq!(items.len(), page_size, "a page before the last is full");
                cursor = Some(next.clone());
            }
            None => return names,
        }
    }
    panic!("the pages never end");
}

#[tokio::test]
async fn every_list_is_paged_in_both_eras() {
    let paged = || demo_server(limits(json!({"lists": {"pageSize": 3}})));
    let mut whole = legacy_client(demo_server(limits(json!({}))), "2025-11-25").await;
    let all_tools = whole.result(json!(1), "tools/list", None).await;
    assert!(all_tools.get("nextCursor").is_none());
    let expected: Vec<String> = all_tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        expected.len() > 6,
        "the demo has enough tools for three pages"
    );

    let mut legacy = legacy_client(paged(), "2025-11-25").await;
    let names = walk(&mut legacy, "tools/list", "tools", "name", 3, Some).await;
    assert_eq!(names, expected);
    let mut modern_client = TestClient::start(paged());
    let names = walk(&mut modern_client, "tools/list", "tools", "name", 3, |p| {
        Some(modern(p))
    })
    .await;
    assert_eq!(names, expected);

    // One page each: no cursor, and the results stay valid.
    for (method, field, key) in [
        ("resources/list", "resources", "uri"),
        ("resources/templates/list", "resourceTemplates", "name"),
        ("prompts/list", "prompts", "name"),
    ] {
        let names = walk(&mut legacy, method, field, key, 3, Some).await;
        assert_eq!(names.len(), 1, "{method}");
    }
    let one = limits(json!({"lists": {"pageSize": 1}}));
    let mut single = legacy_client(demo_server(one), "2025-06-18").await;
    let first = single.result(json!(1), "tools/list", None).await;
    validate::legacy_list_tools_result(&first).expect("valid");
    assert_eq!(first["tools"].as_array().unwrap().len(), 1);
    assert!(first["nextCursor"].is_string());
}

#[tokio::test]
async fn altered_and_foreign_cursors_are_refused() {
    let server = demo_server(limits(json!({"lists": {"pageSize": 2}})));
    let mut client = legacy_client(server.clone(), "2025-11-25").await;
    let first = client.result(json!(1), "tools/list", None).await;
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let mut altered = cursor.clone().into_bytes();
    altered[0] = if altered[0] == b'A' { b'B' } else { b'A' };
    let altered = String::from_utf8(altered).unwrap();
    let other_server = demo_server(limits(json!({"lists": {"pageSize": 2}})));
    let mut other = legacy_client(other_server, "2025-11-25").await;
    for (on_other, method, cursor) in [
        (false, "tools/list", altered.as_str()),
        (false, "prompts/list", cursor.as_str()),
        (false, "tools/list", "garbage-cursor-value"),
        (true, "tools/list", cursor.as_str()),
    ] {
        let target = if on_other { &mut other } else { &mut client };
        let error = target
            .error(json!(2), method, Some(json!({ "cursor": cursor })))
            .await;
        assert_eq!(error["code"], -32602, "{method}: {error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("invalid cursor"),
            "{error}"
        );
        assert_eq!(error["data"]["validationErrors"][0]["path"], "/cursor");
        assert!(
            !error.to_string().contains(cursor),
            "the cursor is not echoed"
        );
    }
    // The genuine cursor works on another connection of the same server, in the other era.
    let mut modern_client = TestClient::start(server);
    let second = modern_client
        .result(
            json!(3),
            "tools/list",
            Some(modern(json!({ "cursor": cursor }))),
        )
        .await;
    validate::list_tools_result(&second).expect("valid");
    let mut whole = legacy_client(demo_server(limits(json!({}))), "2025-11-25").await;
    let all = whole.result(json!(4), "tools/list", None).await;
    assert_eq!(second["tools"][0], all["tools"][2]);
    assert_eq!(second["tools"][1], all["tools"][3]);
}
