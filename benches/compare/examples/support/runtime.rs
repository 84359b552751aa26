//! The `main` of the HTTP example servers: `serve` on a tokio multi-thread runtime with one
//! worker per core, its error on stderr.

use std::future::Future;
use std::process::ExitCode;

/// Runs `serve` to its end on a new multi-thread runtime; `name` prefixes the errors.
pub(crate) fn run<F>(name: &str, serve: F) -> ExitCode
where
    F: Future<Output = Result<(), Box<dyn std::error::Error>>>,
{
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("{name}: tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(serve);
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{name}: {error}");
            ExitCode::FAILURE
        }
    }
}
