//! A shipping-quote server over stdio: one tool, `quote_shipment`, whose arguments and output
//! refer to a shared `Address` definition by `$ref`.
//!
//! ```sh
//! cargo run --example shipping_server
//! ```
//!
//! The schema (`examples/shipping_server/shipping.json`) defines `Address` once; the arguments
//! use it twice (`from`, `to`) and so does the output. The generator makes one `Address`
//! struct that all three members share, and validators that report a violation inside an
//! address with its full path (`/to/zip`). The tool publishes its definitions with the
//! `Address` definition they refer to in their `$defs`, so the published `inputSchema` and
//! `outputSchema` are self-contained. As for `examples/notes_server.rs`, this crate's
//! `build.rs` generates the code into `$OUT_DIR/shipping/shipping.rs` and `include!` brings it
//! in. Logs go to stderr; stdout carries protocol messages only.

use std::process::ExitCode;

use tracing::level_filters::LevelFilter;
use typed_mcp::logging::ErrorChain;
use typed_mcp::mcp::{McpError, McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

/// The types and validators generated from `examples/shipping_server/shipping.json`.
#[allow(missing_docs, unreachable_pub, dead_code)]
mod shipping {
    include!(concat!(env!("OUT_DIR"), "/shipping/shipping.rs"));
}
use shipping::{Address, QuoteShipmentArguments, QuoteShipmentOutput};

/// Cents per started kilogram, and twice that between cities.
const CENTS_PER_KG: u64 = 150;

/// The price of sending `grams` from `from` to `to`.
fn price(from: &Address, to: &Address, grams: u64) -> u64 {
    let kilograms = grams.div_ceil(1000);
    let rate = if from.city == to.city {
        CENTS_PER_KG
    } else {
        2 * CENTS_PER_KG
    };
    kilograms.saturating_mul(rate)
}

async fn quote_shipment(
    _: ToolContext,
    args: QuoteShipmentArguments,
) -> Result<QuoteShipmentOutput, ToolCallError> {
    let price_cents = price(&args.from, &args.to, args.weight_grams.get());
    Ok(QuoteShipmentOutput {
        from: args.from,
        to: args.to,
        price_cents,
    })
}

fn server() -> Result<McpServer, McpError> {
    McpServer::builder("shipping", "1.0.0")
        .tool(ToolDefinition::new("quote_shipment", quote_shipment)?)
        .build()
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::INFO) {
        eprintln!("shipping_server: {error}");
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async { server()?.serve_stdio().await });
    runtime.shutdown_background();
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(error = %ErrorChain(&error), "shipping server failed");
            ExitCode::FAILURE
        }
    }
}
