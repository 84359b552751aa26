//! The downstream server end to end over an in-memory stream (2026-07-28 requests): its
//! tools publish the schemas, run with the generated argument types (schema defaults
//! applied), and calls whose arguments the generated validators reject are answered with
//! every violation.

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

struct Client {
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    next_id: u64,
}

impl Client {
    fn start() -> Self {
        Self::with_limits(Default::default())
    }

    fn with_limits(limits: typed_mcp::generated::limits::Limits) -> Self {
        let server = typed_mcp_downstream::server(limits).expect("the server builds");
        let (client, server_io) = tokio::io::duplex(1 << 20);
        drop(tokio::spawn(
            async move { server.serve_stream(server_io).await },
        ));
        let (reader, writer) = tokio::io::split(client);
        Self {
            writer,
            lines: BufReader::new(reader).lines(),
            next_id: 0,
        }
    }

    /// The `result` of `method` with `params` (plus the 2026-07-28 `_meta`).
    async fn result(&mut self, method: &str, mut params: Value) -> Value {
        self.next_id += 1;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        let request =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        let line = format!("{request}\n");
        self.writer.write_all(line.as_bytes()).await.expect("write");
        self.writer.flush().await.expect("flush");
        let answer = self
            .lines
            .next_line()
            .await
            .expect("read")
            .expect("an answer");
        let answer: Value = serde_json::from_str(&answer).expect("JSON");
        assert_eq!(answer["id"], self.next_id, "{answer}");
        assert!(answer.get("error").is_none(), "{answer}");
        answer["result"].clone()
    }

    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.result("tools/call", json!({"name": tool, "arguments": arguments}))
            .await
    }
}

fn data(result: &Value) -> &Value {
    assert_ne!(result["isError"], true, "{result}");
    &result["structuredContent"]["data"]
}

/// The violations of a rejected call, as `(path, keyword)` pairs.
fn violations(result: &Value) -> Vec<(String, String)> {
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"]["error"]["code"], "VALIDATION_FAILED",
        "{result}"
    );
    result["structuredContent"]["error"]["validationErrors"]
        .as_array()
        .expect("validationErrors")
        .iter()
        .map(|v| {
            (
                v["path"].as_str().unwrap_or_default().to_owned(),
                v["keyword"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn tools_list_publishes_the_schema_definitions() {
    let mut client = Client::start();
    let list = client.result("tools/list", json!({})).await;
    let tools = list["tools"].as_array().expect("tools");
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["count_words", "mean", "round", "shout"]);
    let schema: Value =
        serde_json::from_str(include_str!("../schema/text_tools.json")).expect("schema");
    let shout = tools.iter().find(|t| t["name"] == "shout").expect("shout");
    assert_eq!(
        shout["inputSchema"]["properties"],
        schema["$defs"]["ShoutArguments"]["properties"]
    );
}

#[tokio::test]
async fn calls_run_with_the_generated_types_and_schema_defaults() {
    let mut client = Client::start();
    let shouted = client
        .call("shout", json!({"text": "hey", "times": 2}))
        .await;
    assert_eq!(data(&shouted), "HEY HEY");
    let once = client.call("shout", json!({"text": "hey"})).await;
    assert_eq!(data(&once), "HEY", "times defaults to 1");
    let words = client
        .call("count_words", json!({"text": " a  b c "}))
        .await;
    assert_eq!(data(&words)["words"], 3);
    let mean = client.call("mean", json!({"values": [1, 2, 6]})).await;
    assert_eq!(data(&mean)["mean"], 3.0);
    let nearest = client.call("round", json!({"value": 2.4})).await;
    assert_eq!(data(&nearest)["rounded"], 2.0, "mode defaults to nearest");
    let up = client
        .call("round", json!({"value": 2.4, "mode": "up"}))
        .await;
    assert_eq!(data(&up)["rounded"], 3.0);
}

#[tokio::test]
async fn rejected_arguments_are_answered_with_their_violations() {
    let mut client = Client::start();
    let too_many = client
        .call("shout", json!({"text": "hey", "times": 6}))
        .await;
    assert_eq!(
        violations(&too_many),
        [("/times".to_owned(), "maximum".to_owned())]
    );
    let empty = client.call("mean", json!({"values": []})).await;
    assert_eq!(
        violations(&empty),
        [("/values".to_owned(), "minItems".to_owned())]
    );
    let unknown_mode = client
        .call("round", json!({"value": 1, "mode": "sideways"}))
        .await;
    assert_eq!(
        violations(&unknown_mode),
        [("/mode".to_owned(), "enum".to_owned())]
    );
    let extra = client
        .call("count_words", json!({"text": "a", "lang": "en"}))
        .await;
    assert_eq!(violations(&extra).len(), 1, "{extra}");
}

#[test]
fn the_generated_validators_and_types_are_usable_directly() {
    use typed_mcp::validation::SchemaValidate;
    use typed_mcp_downstream::math_tools::{self, RoundArguments, RoundArgumentsMode};

    let errors = math_tools::validate::mean_arguments(&json!({"values": ["x"]}))
        .expect_err("a string is not a number");
    assert_eq!(errors[0].path(), "/values/0");
    let value = json!({"value": 1.5});
    RoundArguments::validate_value(&value).expect("valid");
    let decoded: RoundArguments = serde_json::from_value(value).expect("decodes");
    assert_eq!(decoded.mode, RoundArgumentsMode::Nearest);
}

#[tokio::test]
async fn the_limits_file_applies_per_tool_array_limits() {
    let limits =
        typed_mcp::config::load_limits(concat!(env!("CARGO_MANIFEST_DIR"), "/limits.json"))
            .expect("limits.json is valid");
    let mut client = Client::with_limits(limits);
    let values: Vec<u32> = (0..60).collect();
    let refused = client.call("mean", json!({ "values": values })).await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["structuredContent"]["error"]["code"], "ARRAY_TOO_LARGE",
        "{refused}"
    );
    let values: Vec<u32> = (0..50).collect();
    let accepted = client.call("mean", json!({ "values": values })).await;
    assert_eq!(data(&accepted)["mean"], 24.5);
}
