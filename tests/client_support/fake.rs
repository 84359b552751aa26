//! A fake server on an in-memory pipe, written in the tests: it reads what the client sends
//! and answers whatever the test wants, well-formed or not.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, WriteHalf};
use typed_mcp::client::{Client, ClientOptions, VersionChoice};

/// A secret the fake server puts in its bad messages: no error may contain it.
pub(crate) const SECRET: &str = "s3cr3t-payload";

/// The fake server's end of the pipe.
pub(crate) struct Fake {
    pub(crate) lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    pub(crate) output: WriteHalf<DuplexStream>,
}

impl Fake {
    /// The next message the client sent.
    pub(crate) async fn next(&mut self) -> Value {
        let line = self
            .lines
            .next_line()
            .await
            .expect("readable")
            .expect("a line");
        serde_json::from_str(&line).expect("the client sends JSON")
    }

    /// The next request (skipping notifications), with its id.
    pub(crate) async fn request(&mut self, method: &str) -> Value {
        loop {
            let message = self.next().await;
            if message.get("id").is_some() {
                assert_eq!(message["method"], method, "{message}");
                return message;
            }
        }
    }

    pub(crate) async fn send(&mut self, text: &str) {
        self.output
            .write_all(text.as_bytes())
            .await
            .expect("writable");
        self.output.write_all(b"\n").await.expect("writable");
    }

    pub(crate) async fn answer(&mut self, id: &Value, result: Value) {
        let line = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
        self.send(&line).await;
    }
}

pub(crate) fn tools_page(tools: Value) -> Value {
    json!({"resultType": "complete", "tools": tools, "ttlMs": 0, "cacheScope": "private"})
}

pub(crate) fn tool_result(text: &str) -> Value {
    json!({"resultType": "complete", "content": [{"type": "text", "text": text}]})
}

/// A connected client (2026-07-28, pinned) and the fake server behind it.
pub(crate) async fn connect(line_limit: usize) -> (Client, Fake) {
    let options = ClientOptions::new("hostile-test", "1")
        .version(VersionChoice::parse("2026-07-28").expect("known"))
        .request_timeout(Duration::from_secs(5))
        .max_line_bytes(line_limit);
    connect_with(options).await
}

/// A client with `options` (version 2026-07-28 pinned) and the fake server behind it.
pub(crate) async fn connect_with(options: ClientOptions) -> (Client, Fake) {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (client_in, client_out) = tokio::io::split(client_io);
    let (server_in, server_out) = tokio::io::split(server_io);
    let mut fake = Fake {
        lines: BufReader::new(server_in).lines(),
        output: server_out,
    };
    let connecting = tokio::spawn(Client::connect_io(client_in, client_out, options));
    let discover = fake.request("server/discover").await;
    let meta = &discover["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert!(meta["io.modelcontextprotocol/clientInfo"]["name"].is_string());
    assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
    let discovered = json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "private"});
    fake.answer(&discover["id"], discovered).await;
    let client = connecting
        .await
        .expect("no panic")
        .expect("the handshake succeeds");
    (client, fake)
}
