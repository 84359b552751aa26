//! The client against a server others wrote: the Python reference server (the official
//! `mcp` SDK) over stdio and over Streamable HTTP on 127.0.0.1, in every version choice.
//! Skipped with a printed reason when `tests/interop/.venv` is missing, failed in CI.

mod client_support;

use serde_json::json;
use typed_mcp::client::{Client, ClientError, ServerCommand};

use client_support::{
    limits_file, options, reference_python, reference_script, runtime, HttpServer, CHOICES,
};

async fn exercise(client: &Client, expected_version: &str, what: &str) {
    assert_eq!(client.protocol_version(), expected_version, "{what}");
    let tools = client
        .list_tools()
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/list: {e}"));
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(
        names.contains(&"echo") && names.contains(&"add"),
        "{what}: {names:?}"
    );
    let echo = client
        .call_tool("echo", json!({"text": "hi from rust"}))
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/call echo: {e}"));
    assert!(!echo.is_error(), "{what}");
    let text = serde_json::to_string(echo.content()).expect("serializable");
    assert!(text.contains("hi from rust"), "{what}: {text}");
    let sum = client
        .call_tool("add", json!({"a": 2, "b": 3}))
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/call add: {e}"));
    let structured = sum.structured_content().expect("structured content");
    assert_eq!(
        structured["data"]["sum"].as_f64(),
        Some(5.0),
        "{what}: {structured}"
    );
    let resources = client
        .list_resources()
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/list: {e}"));
    assert!(resources.iter().any(|r| r.uri == "demo://readme"), "{what}");
    let readme = client
        .read_resource("demo://readme")
        .await
        .unwrap_or_else(|e| panic!("{what}: resources/read: {e}"));
    assert_eq!(readme.contents().len(), 1, "{what}");
    let prompts = client
        .list_prompts()
        .await
        .unwrap_or_else(|e| panic!("{what}: prompts/list: {e}"));
    assert!(prompts.iter().any(|p| p.name == "greet"), "{what}");
    let greet = client
        .get_prompt("greet", json!({"name": "Ada"}))
        .await
        .unwrap_or_else(|e| panic!("{what}: prompts/get: {e}"));
    assert!(!greet.messages().is_empty(), "{what}");
    if client.is_modern() {
        client
            .discover()
            .await
            .unwrap_or_else(|e| panic!("{what}: discover: {e}"));
    } else {
        client
            .ping()
            .await
            .unwrap_or_else(|e| panic!("{what}: ping: {e}"));
    }
    match client.read_resource("demo://missing").await {
        Err(ClientError::Rpc { .. }) => {}
        other => panic!("{what}: an unknown resource: {other:?}"),
    }
}

#[test]
fn reference_server_over_stdio() {
    let Some(python) = reference_python() else {
        return;
    };
    let (_dir, limits) = limits_file();
    let rt = runtime();
    for (choice, expected) in CHOICES {
        rt.block_on(async {
            let what = format!("reference server, stdio, --version {choice}");
            let command = ServerCommand::new(&python)
                .arg(reference_script())
                .arg("--limits")
                .arg(&limits);
            let client = Client::connect_stdio(command, options(choice))
                .await
                .unwrap_or_else(|error| panic!("{what}: connect: {error}"));
            exercise(&client, expected, &what).await;
            client.close().await;
        });
    }
}

#[test]
fn reference_server_over_http() {
    let Some(python) = reference_python() else {
        return;
    };
    let (_dir, limits) = limits_file();
    let argv = [
        python.display().to_string(),
        reference_script().display().to_string(),
    ];
    let server = HttpServer::start(&argv, &limits).expect("the reference server listens");
    let rt = runtime();
    for (choice, expected) in CHOICES {
        rt.block_on(async {
            let what = format!("reference server, HTTP, --version {choice}");
            let client = Client::connect_http(&server.url, options(choice))
                .await
                .unwrap_or_else(|error| panic!("{what}: connect: {error}"));
            exercise(&client, expected, &what).await;
            client.close().await;
        });
    }
    let stopped = server.stop();
    assert!(
        stopped.was_running,
        "the server ran to the end: {}",
        stopped.stderr
    );
}
