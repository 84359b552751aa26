//! The downstream fixture server over stdio (logs on stderr, protocol on stdout).

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let served = match typed_mcp_downstream::server(Default::default()) {
        Ok(server) => server.serve_stdio().await,
        Err(error) => Err(error),
    };
    match served {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("typed-mcp-downstream: {error}");
            ExitCode::FAILURE
        }
    }
}
