//! Code generated with `runtime_path("::mcp")` works in a crate whose `typed-mcp`
//! dependency is called `mcp`: the types decode, the validators reject, the tools run.

use mcp::validation::SchemaValidate;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use typed_mcp_downstream_renamed::tools::{self, ScaleArguments, ScaleArgumentsFactor};

#[test]
fn generated_types_and_validators_work_under_the_renamed_path() {
    let value = json!({"value": 1.5, "labels": {"k": "v"}});
    ScaleArguments::validate_value(&value).expect("valid");
    let decoded: ScaleArguments = serde_json::from_value(value).expect("decodes");
    assert_eq!(decoded.factor, ScaleArgumentsFactor::Double, "the default");
    assert_eq!(decoded.value.as_f64(), Some(1.5));
    let errors = tools::validate::scale_arguments(&json!({"value": 1, "factor": "triple"}))
        .expect_err("not in the enum");
    assert_eq!(errors[0].path(), "/factor");
    assert_eq!(errors[0].keyword(), "enum");
}

#[tokio::test]
async fn the_tools_run_over_the_protocol() {
    let server = typed_mcp_downstream_renamed::server().expect("the server builds");
    let (client, server_io) = tokio::io::duplex(1 << 16);
    drop(tokio::spawn(
        async move { server.serve_stream(server_io).await },
    ));
    let (reader, mut writer) = tokio::io::split(client);
    let mut lines = BufReader::new(reader).lines();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let calls = [
        ("reverse", json!({"text": "abc"})),
        ("scale", json!({"value": 3, "factor": "half"})),
        ("scale", json!({"value": 3, "labels": {"a": 1}})),
    ];
    let mut results = Vec::new();
    for (id, (name, arguments)) in calls.into_iter().enumerate() {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta}});
        writer
            .write_all(format!("{request}\n").as_bytes())
            .await
            .expect("write");
        let line = lines.next_line().await.expect("read").expect("an answer");
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(answer["id"], id, "{answer}");
        results.push(answer["result"].clone());
    }
    assert_eq!(results[0]["structuredContent"]["data"], "cba");
    assert_eq!(results[1]["structuredContent"]["data"], 1.5);
    assert_eq!(results[2]["isError"], true, "a label must be a string");
    assert_eq!(
        results[2]["structuredContent"]["error"]["validationErrors"][0]["path"],
        "/labels/a"
    );
}
