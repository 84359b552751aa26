//! HTTP interop tests: the official MCP clients drive the demo server (`examples/demo_server.rs`)
//! over Streamable HTTP, in every protocol version each client can be made to offer, with the
//! same checks as the stdio matrix of `tests/interop.rs` (the harness is shared:
//! `tests/interop_support/`).
//!
//! The server is chosen as in `tests/interop.rs` (`TYPED_MCP_INTEROP_SERVER`, else
//! `TYPED_MCP_DEMO_SERVER`, else the `demo_server` example built here) and started ONCE with
//! `--http 127.0.0.1:0 --limits FILE`; it must print a line matching
//! `listening on (http://\S+)` to stderr once it accepts connections. Every client × mode
//! combination then connects to that URL (`--http URL` of the client scripts), three clients at
//! a time: the legacy modes open sessions (`initialize`, `Mcp-Session-Id`, DELETE at the end),
//! `auto` and `2026-07-28` send stateless 2026-07-28 requests. Besides every check of every
//! combination, the test asserts that the server is still running afterwards and wrote nothing
//! to stdout.

mod interop_support;

use interop_support::http_server::{listening_url, HttpServer, BIND};
use interop_support::{
    announce, limits_file, run_matrix, runnable_clients, server_command, summarize, tail, Target,
};

#[test]
fn official_clients_pass_every_check_in_every_era_over_http() {
    let server = server_command();
    let runnable = runnable_clients();
    if runnable.is_empty() {
        return;
    }
    let (_dir, limits) = limits_file();
    let listening = HttpServer::start(&server, &limits).unwrap_or_else(|why| panic!("{why}"));
    let url = listening.url.clone();
    announce(&format!(
        "interop http: {} listening on {url}\n",
        server.join(" ")
    ));

    let rows = run_matrix(&runnable, &limits, Target::Http(&url));

    let stopped = listening.stop();
    let title = format!(
        "HTTP interop matrix (server: {} --http {BIND}, at {url})",
        server.join(" ")
    );
    let (matrix, failed) = summarize(&title, &rows);
    if failed > 0 || !stopped.was_running || !stopped.stdout.is_empty() {
        announce(&format!(
            "interop http: server {}; its stderr (last 60 lines):\n{}\n",
            stopped.exit,
            tail(&stopped.stderr, 60)
        ));
    }
    assert!(
        stopped.was_running,
        "the server did not survive the run: {}",
        stopped.exit
    );
    assert!(
        stopped.stdout.is_empty(),
        "the server wrote to stdout: {:?}",
        tail(&stopped.stdout, 10)
    );
    assert_eq!(failed, 0, "HTTP interop failures (details above):{matrix}");
}

#[test]
fn listening_lines_are_recognised() {
    let url = listening_url("listening on http://127.0.0.1:4321/mcp\n");
    assert_eq!(url.as_deref(), Some("http://127.0.0.1:4321/mcp"));
    let logged = "2026-01-01T00:00:00Z INFO demo: listening on http://[::1]:80/mcp (stateless)";
    assert_eq!(
        listening_url(logged).as_deref(),
        Some("http://[::1]:80/mcp")
    );
    assert_eq!(listening_url("listening on stdio"), None);
    assert_eq!(
        listening_url("\x1b[32mlistening on http://h:1/mcp\x1b[0m").as_deref(),
        Some("http://h:1/mcp")
    );
}
