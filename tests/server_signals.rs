//! A signal stops the reading loop, which reports it by name, while its input stays open.
//! A test binary of its own: the signal goes to the whole process, and a loop of another
//! test listening for signals would stop too.

#![cfg(unix)]

use std::time::Duration;

use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use typed_mcp::jsonrpc::{ErrorCode, ErrorObject};
use typed_mcp::server::{
    serve, Handler, HandlerResult, RequestContext, ServeOptions, ShutdownReason,
};

struct Pong;

impl Handler for Pong {
    async fn handle_request(
        &self,
        _ctx: RequestContext,
        method: &str,
        _params: Option<&RawValue>,
    ) -> HandlerResult {
        match method {
            "ping" => Ok(RawValue::from_string("{}".to_owned()).expect("valid JSON")),
            _ => Err(ErrorObject::new(
                ErrorCode::METHOD_NOT_FOUND,
                "method not found",
            )),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_stops_the_loop_and_is_reported_by_name() {
    let (mut client_end, server_input) = tokio::io::duplex(1 << 16);
    let (server_output, client_output) = tokio::io::duplex(1 << 16);
    let options = ServeOptions::default().stop_on_signals(true);
    let serving = tokio::spawn(serve(server_input, server_output, Pong, options));
    // An answer means the loop runs, its signal handlers installed before it read anything.
    client_end
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .await
        .unwrap();
    let mut answers = BufReader::new(client_output).lines();
    let answer = answers
        .next_line()
        .await
        .unwrap()
        .expect("the ping's answer");
    assert!(answer.contains("\"result\":{}"), "{answer}");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &std::process::id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let report = tokio::time::timeout(Duration::from_secs(60), serving)
        .await
        .expect("the loop stopped on the signal")
        .expect("serve did not panic")
        .expect("serve ended cleanly");
    assert_eq!(report.reason, ShutdownReason::Signal { name: "SIGTERM" });
    assert_eq!(report.requests_answered, 1);
    drop(client_end);
}
