//! A notes server over stdio: tools `add_note`, `search_notes` and `delete_note`, the notes
//! kept in the server's shared state.
//!
//! ```sh
//! cargo run --example notes_server
//! ```
//!
//! The tools' arguments and outputs are the definitions of `examples/notes_server/notes.json`;
//! their Rust types and validators are generated from it at build time. An example cannot have
//! a build script of its own, so this crate's `build.rs` generates them into
//! `$OUT_DIR/notes/notes.rs` (as a user's `build.rs` would with
//! `typed_mcp_codegen::Config::new().schemas(["notes.json"])`), and `include!` brings them in.
//! Each tool takes its `inputSchema`, description and validator from its argument type, and
//! publishes its output type as `outputSchema`. Logs go to stderr; stdout carries protocol
//! messages only.

use std::collections::BTreeMap;
use std::num::NonZeroU64;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

use tracing::level_filters::LevelFilter;
use typed_mcp::logging::ErrorChain;
use typed_mcp::mcp::{McpError, McpServer, ToolDefinition};
use typed_mcp::tools::{ToolCallError, ToolContext};

/// The types and validators generated from `examples/notes_server/notes.json`.
#[allow(missing_docs, unreachable_pub, dead_code)]
mod notes {
    include!(concat!(env!("OUT_DIR"), "/notes/notes.rs"));
}
use notes::{
    AddNoteArguments, AddNoteOutput, DeleteNoteArguments, DeleteNoteOutput, SearchNotesArguments,
    SearchNotesOutput, SearchNotesOutputNotesItem as Note,
};

/// The server's state: the notes by id, and the last id given.
#[derive(Default)]
struct Notes {
    inner: Mutex<(u64, BTreeMap<u64, Note>)>,
}

impl Notes {
    fn with<T>(&self, f: impl FnOnce(&mut u64, &mut BTreeMap<u64, Note>) -> T) -> T {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let (last, notes) = &mut *inner;
        f(last, notes)
    }
}

fn matches(note: &Note, query: &str) -> bool {
    let query = query.to_lowercase();
    [&note.title, &note.body]
        .into_iter()
        .chain(&note.tags)
        .any(|text| text.to_lowercase().contains(&query))
}

type Answer<T> = Result<T, ToolCallError>;

async fn add_note(
    notes: Arc<Notes>,
    _: ToolContext,
    args: AddNoteArguments,
) -> Answer<AddNoteOutput> {
    let id = notes.with(|last, notes| {
        let id = NonZeroU64::MIN.saturating_add(*last);
        *last = id.get();
        let note = Note {
            id,
            title: args.title,
            body: args.body,
            tags: args.tags.unwrap_or_default(),
        };
        notes.insert(id.get(), note);
        id
    });
    Ok(AddNoteOutput { id })
}

async fn search_notes(
    notes: Arc<Notes>,
    _: ToolContext,
    args: SearchNotesArguments,
) -> Answer<SearchNotesOutput> {
    let limit = usize::try_from(args.limit.get()).unwrap_or(usize::MAX);
    let found = notes.with(|_, notes| {
        let matching = notes.values().filter(|note| matches(note, &args.query));
        matching.take(limit).cloned().collect()
    });
    Ok(SearchNotesOutput { notes: found })
}

async fn delete_note(
    notes: Arc<Notes>,
    _: ToolContext,
    args: DeleteNoteArguments,
) -> Answer<DeleteNoteOutput> {
    match notes.with(|_, notes| notes.remove(&args.id.get())) {
        Some(_) => Ok(DeleteNoteOutput { deleted: args.id }),
        None => Err(ToolCallError::failed("no note has this id")),
    }
}

fn server() -> Result<McpServer, McpError> {
    McpServer::builder("notes", "1.0.0")
        .state(Notes::default())
        .tool(ToolDefinition::new("add_note", add_note)?)
        .tool(ToolDefinition::new("search_notes", search_notes)?)
        .tool(ToolDefinition::new("delete_note", delete_note)?)
        .build()
}

fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::INFO) {
        eprintln!("notes_server: {error}");
    }
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
    let result = runtime.block_on(async { server()?.serve_stdio().await });
    runtime.shutdown_background();
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(error = %ErrorChain(&error), "notes server failed");
            ExitCode::FAILURE
        }
    }
}
