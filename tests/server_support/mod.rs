//! Shared pieces of the request-loop tests: a probing handler and an in-memory client.
#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::Value;
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadBuf, ReadHalf,
    WriteHalf,
};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use typed_mcp::jsonrpc::{ErrorCode, ErrorObject};
use typed_mcp::server::{
    serve, Handler, HandlerResult, NotificationContext, RequestContext, ServeOptions, ServerError,
    ShutdownReport,
};

/// Longer than any test should take; with the paused clock it passes only when every task is
/// idle, so a deadlock becomes a prompt failure instead of a hang.
pub const PATIENCE: Duration = Duration::from_secs(3600);

/// What the probe saw, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A `block` request started.
    Started(String),
    /// A `block` request's future was dropped before it finished.
    Dropped(String),
    /// A `block` request finished.
    Finished(String),
}

/// A handler that records what happens to it.
///
/// Methods: `ping` → `{}`; `block` waits for a permit of `gate` (or forever), answering
/// `"released"`; `panic` panics; `notify` sends a `notifications/message` through the peer,
/// then answers `{}`; `sleep` with `{"ms": n}` sleeps (tokio time); `big` with
/// `{"bytes": n}` answers a string of `n` bytes (counted in `bigs`); `bounded` with
/// `{"bytes": n, "bound": b}` does the same and declares `b` as its answer bound
/// ([`Handler::max_answer_bytes`]); `task` answers the id of the task it runs on; anything
/// else `-32601`. Each method prefixed `in-place/` does the same and may start on the
/// loop's reading task ([`Handler::runs_in_place`]).
pub struct Probe {
    pub gate: Semaphore,
    pub events: Mutex<Vec<Event>>,
    pub running: AtomicUsize,
    pub max_running: AtomicUsize,
    pub tokens: Mutex<HashMap<String, CancellationToken>>,
    pub notifications: Mutex<Vec<(String, Option<String>)>>,
    pub shutdown_calls: AtomicUsize,
    pub bigs: AtomicUsize,
}

impl Default for Probe {
    fn default() -> Self {
        Self {
            gate: Semaphore::new(0),
            events: Mutex::default(),
            running: AtomicUsize::default(),
            max_running: AtomicUsize::default(),
            tokens: Mutex::default(),
            notifications: Mutex::default(),
            shutdown_calls: AtomicUsize::default(),
            bigs: AtomicUsize::default(),
        }
    }
}

impl Probe {
    pub fn events(&self) -> Vec<Event> {
        self.events.lock().unwrap().clone()
    }

    pub fn started(&self) -> usize {
        self.count(|e| matches!(e, Event::Started(_)))
    }

    pub fn count(&self, predicate: impl Fn(&Event) -> bool) -> usize {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| predicate(e))
            .count()
    }

    pub fn token(&self, id: &str) -> CancellationToken {
        self.tokens.lock().unwrap()[id].clone()
    }

    fn record(&self, event: Event) {
        self.events.lock().unwrap().push(event);
    }
}

/// Records `Dropped` unless disarmed.
struct DropGuard<'a> {
    probe: &'a Probe,
    id: String,
    armed: bool,
}

impl Drop for DropGuard<'_> {
    fn drop(&mut self) {
        let _before: usize = self.probe.running.fetch_sub(1, Ordering::SeqCst);
        if self.armed {
            self.probe.record(Event::Dropped(self.id.clone()));
        }
    }
}

/// The prefix of the methods that may start on the reading task.
pub const IN_PLACE: &str = "in-place/";

fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_owned()).unwrap()
}

impl Handler for Probe {
    async fn handle_request(
        &self,
        ctx: RequestContext,
        method: &str,
        params: Option<&RawValue>,
    ) -> HandlerResult {
        let method = method.strip_prefix(IN_PLACE).unwrap_or(method);
        match method {
            "ping" => Ok(raw("{}")),
            "task" => {
                let task = tokio::task::try_id().map(|id| id.to_string());
                Ok(raw(&serde_json::to_string(&task).unwrap()))
            }
            "block" => {
                let id = ctx.id().as_json().to_owned();
                let _replaced: Option<CancellationToken> = self
                    .tokens
                    .lock()
                    .unwrap()
                    .insert(id.clone(), ctx.cancellation().clone());
                self.record(Event::Started(id.clone()));
                let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
                let _before: usize = self.max_running.fetch_max(now, Ordering::SeqCst);
                let mut guard = DropGuard {
                    probe: self,
                    id: id.clone(),
                    armed: true,
                };
                self.gate.acquire().await.unwrap().forget();
                guard.armed = false;
                self.record(Event::Finished(id));
                Ok(raw(r#""released""#))
            }
            "big" => {
                let _before: usize = self.bigs.fetch_add(1, Ordering::SeqCst);
                let args: Value = serde_json::from_str(params.unwrap().get()).unwrap();
                let bytes = usize::try_from(args["bytes"].as_u64().unwrap()).unwrap();
                Ok(raw(&format!("\"{}\"", "x".repeat(bytes))))
            }
            "bounded" => {
                let _before: usize = self.bigs.fetch_add(1, Ordering::SeqCst);
                let args: Value = serde_json::from_str(params.unwrap().get()).unwrap();
                let bytes = usize::try_from(args["bytes"].as_u64().unwrap()).unwrap();
                Ok(raw(&format!("\"{}\"", "x".repeat(bytes))))
            }
            "panic" => panic!("the probe panics on purpose"),
            "notify" => {
                ctx.peer()
                    .notify("notifications/message", Some(raw(r#"{"level":"info"}"#)))
                    .await
                    .expect("output open");
                Ok(raw("{}"))
            }
            "sleep" => {
                let ms: Value = serde_json::from_str(params.unwrap().get()).unwrap();
                tokio::time::sleep(Duration::from_millis(ms["ms"].as_u64().unwrap())).await;
                Ok(raw(r#""slept""#))
            }
            _ => Err(ErrorObject::new(
                ErrorCode::METHOD_NOT_FOUND,
                "method not found",
            )),
        }
    }

    fn runs_in_place(&self, method: &str, _params: Option<&RawValue>) -> bool {
        method.starts_with(IN_PLACE)
    }

    fn max_answer_bytes(&self, method: &str, params: Option<&RawValue>) -> Option<usize> {
        if method.strip_prefix(IN_PLACE).unwrap_or(method) != "bounded" {
            return None;
        }
        let args: Value = serde_json::from_str(params?.get()).ok()?;
        usize::try_from(args["bound"].as_u64()?).ok()
    }

    async fn handle_notification(
        &self,
        _ctx: NotificationContext,
        method: &str,
        params: Option<&RawValue>,
    ) {
        self.notifications
            .lock()
            .unwrap()
            .push((method.to_owned(), params.map(|p| p.get().to_owned())));
    }

    async fn on_shutdown(&self) {
        let _before: usize = self.shutdown_calls.fetch_add(1, Ordering::SeqCst);
    }
}

/// The test's side of an in-memory connection to a running loop.
pub struct Client {
    pub input: WriteHalf<DuplexStream>,
    pub output: Lines<BufReader<ReadHalf<DuplexStream>>>,
    pub server: JoinHandle<Result<ShutdownReport, ServerError>>,
}

/// Starts `serve` on a spawned task over an in-memory duplex stream.
pub fn start(probe: Arc<Probe>, options: ServeOptions) -> Client {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let (client_read, client_write) = tokio::io::split(client_end);
    let server = tokio::spawn(serve(server_read, server_write, probe, options));
    Client {
        input: client_write,
        output: BufReader::new(client_read).lines(),
        server,
    }
}

impl Client {
    /// Writes one line (a newline is added).
    pub async fn send(&mut self, line: &str) {
        self.input.write_all(line.as_bytes()).await.unwrap();
        self.input.write_all(b"\n").await.unwrap();
    }

    /// Writes a request line.
    pub async fn request(&mut self, id: &str, method: &str) {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#
        ))
        .await;
    }

    /// Writes `notifications/cancelled` for `id`.
    pub async fn cancel(&mut self, id: &str) {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"test"}}}}"#
        ))
        .await;
    }

    /// The next output line, parsed; `None` at end of output. Fails instead of hanging.
    pub async fn next(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(PATIENCE, self.output.next_line())
            .await
            .expect("the server went idle without writing")
            .unwrap()?;
        Some(serde_json::from_str(&line).expect("output line is JSON"))
    }

    /// Closes the input, reads every remaining line and returns them with the loop's result.
    pub async fn finish(mut self) -> (Vec<Value>, ShutdownReport) {
        self.input.shutdown().await.unwrap();
        let mut lines = Vec::new();
        while let Some(line) = self.next().await {
            lines.push(line);
        }
        let report = tokio::time::timeout(PATIENCE, self.server)
            .await
            .expect("the loop ends")
            .expect("the loop does not panic")
            .expect("the loop ends without error");
        (lines, report)
    }
}

/// Lets every task run until all are idle (the paused clock advances only then).
pub async fn settle() {
    tokio::time::sleep(Duration::from_millis(1)).await;
}

/// An input that hands out at most `chunk` bytes per read and counts what it handed out.
pub struct CountingReader {
    pub data: Vec<u8>,
    pub position: Arc<AtomicUsize>,
    pub chunk: usize,
}

impl AsyncRead for CountingReader {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let at = this.position.load(Ordering::SeqCst);
        let end = (at + this.chunk.min(buf.remaining())).min(this.data.len());
        buf.put_slice(&this.data[at..end]);
        this.position.store(end, Ordering::SeqCst);
        Poll::Ready(Ok(()))
    }
}
