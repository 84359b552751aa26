//! Interop tests: the official MCP clients drive the demo server (`examples/demo_server.rs`)
//! over stdio, in every protocol version each client can be made to offer.
//!
//! The clients are installed by `tests/interop/setup.sh` (run by `.ci/run`): PyPI `mcp` in
//! `tests/interop/.venv`, npm `@modelcontextprotocol/sdk` and `@modelcontextprotocol/client`
//! in `tests/interop/node_modules`. Each client script (`tests/interop/*_client.*`) spawns the
//! server, runs the checks (every tool, the resource, the prompt, and the limit errors the
//! limits file provokes) and prints one JSON report line; this test runs every client × mode
//! combination, prints the matrix and asserts every check passed. The harness is shared with
//! `tests/interop_http.rs` (the same matrix over Streamable HTTP): `tests/interop_support/`.
//!
//! The server is, in order: the command line in `TYPED_MCP_INTEROP_SERVER` (e.g. the reference
//! server, for self-tests of the harness); the binary named by `TYPED_MCP_DEMO_SERVER`; else the
//! `demo_server` example, built here with the test's own profile. `--limits FILE` is appended.
//! A client that is not installed fails the test in CI (`CI` set) and is skipped elsewhere.

mod interop_support;

use interop_support::{
    limits_file, run_matrix, runnable_clients, server_command, summarize, Target,
};

#[test]
fn official_clients_pass_every_check_in_every_era() {
    let server = server_command();
    let runnable = runnable_clients();
    if runnable.is_empty() {
        return;
    }
    let (_dir, limits) = limits_file();
    let rows = run_matrix(&runnable, &limits, Target::Spawn(&server));
    let title = format!("interop matrix (server: {})", server.join(" "));
    let (matrix, failed) = summarize(&title, &rows);
    assert_eq!(failed, 0, "interop failures (details above):{matrix}");
}
