//! A notes board as an MCP App (the `io.modelcontextprotocol/ui` extension): the server
//! publishes the board's HTML at `ui://notes/board.html` and two tools linked to it,
//! `show_board` (opens the board) and `pin_note` (the board's button calls it through the
//! host). A host that renders MCP Apps (Claude, ChatGPT, VS Code, ...) shows the board in a
//! sandboxed iframe; any other client sees two plain tools.
//!
//! ```sh
//! cargo run --example notes_board                        # stdio
//! cargo run --example notes_board -- --http 127.0.0.1:8080   # Streamable HTTP at /mcp
//! ```
//!
//! The app (`examples/notes_board/board.html`) is one self-contained document: its sandbox
//! gets no network and no external scripts (`_meta.ui.csp` declares no origin). It speaks
//! the app side of the extension's postMessage protocol by hand (`ui/initialize`, then
//! `tools/call`); `tests/apps_browser.rs` renders it in Chromium inside a host page built
//! on the official `@modelcontextprotocol/ext-apps` host bridge.

use std::net::SocketAddr;
use std::num::NonZeroU64;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

use tracing::level_filters::LevelFilter;
use typed_mcp::logging::ErrorChain;
use typed_mcp::mcp::apps::{UiResourceCsp, UiResourceMeta};
use typed_mcp::mcp::{McpError, McpServer, ResourceDefinition, ToolDefinition};
use typed_mcp::tools::ToolContext;

/// The types and validators generated from `examples/notes_board/board.json`.
#[allow(missing_docs, unreachable_pub, dead_code)]
mod board {
    include!(concat!(env!("OUT_DIR"), "/board/board.rs"));
}
use board::{Board, BoardNotesItem as Note, PinNoteArguments, ShowBoardArguments};

/// The board's URI.
const BOARD_URI: &str = "ui://notes/board.html";

/// The most notes the board keeps (the oldest go first).
const MAX_NOTES: usize = 50;

/// The notes, oldest first, and the last id given.
#[derive(Default)]
struct Notes {
    inner: Mutex<(u64, Vec<Note>)>,
}

impl Notes {
    fn board(&self, pin: Option<String>) -> Board {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let (last, notes) = &mut *inner;
        if let Some(text) = pin {
            let id = NonZeroU64::MIN.saturating_add(*last);
            *last = id.get();
            notes.push(Note { id, text });
            if notes.len() > MAX_NOTES {
                let _oldest = notes.remove(0);
            }
        }
        Board {
            notes: notes.clone(),
        }
    }
}

async fn show_board(
    notes: Arc<Notes>,
    _: ToolContext,
    _: ShowBoardArguments,
) -> Result<Board, typed_mcp::tools::ToolCallError> {
    Ok(notes.board(None))
}

async fn pin_note(
    notes: Arc<Notes>,
    _: ToolContext,
    args: PinNoteArguments,
) -> Result<Board, typed_mcp::tools::ToolCallError> {
    Ok(notes.board(Some(args.text)))
}

fn server() -> Result<McpServer, McpError> {
    let app = ResourceDefinition::app(
        BOARD_URI,
        "Notes board",
        include_str!("notes_board/board.html"),
    )
    .description("The notes board: pin a note, see the pinned ones.")
    .app_ui(UiResourceMeta {
        // No origin at all: the board needs nothing outside its document.
        csp: Some(UiResourceCsp::default()),
        prefers_border: Some(true),
        ..UiResourceMeta::default()
    });
    McpServer::builder("notes-board", "1.0.0")
        .state(Notes::default())
        .resource(app)
        .tool(ToolDefinition::new("show_board", show_board)?.app(BOARD_URI))
        .tool(ToolDefinition::new("pin_note", pin_note)?.app(BOARD_URI))
        .build()
}

/// `--http ADDR` when given; stdio otherwise.
fn http_address() -> Result<Option<SocketAddr>, String> {
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => Ok(None),
        (Some("--http"), Some(addr)) => addr
            .parse()
            .map(Some)
            .map_err(|_| "--http needs an address such as 127.0.0.1:8080".to_owned()),
        _ => Err("usage: notes_board [--http ADDR]".to_owned()),
    }
}

async fn run(http: Option<SocketAddr>) -> Result<(), Box<dyn std::error::Error>> {
    let server = server()?;
    match http {
        Some(addr) => {
            let running = server.serve_http(addr).await?;
            // The line tests wait for (stderr: stdout stays free of anything else).
            eprintln!("listening on {}", running.url());
            running.shutdown_on_signal().await?;
        }
        None => {
            let _report = server.serve_stdio().await?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::INFO) {
        eprintln!("notes_board: {error}");
    }
    let http = match http_address() {
        Ok(http) => http,
        Err(message) => {
            tracing::error!("not starting: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(http));
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(error = %ErrorChain(&*error), "notes board failed");
            ExitCode::FAILURE
        }
    }
}
