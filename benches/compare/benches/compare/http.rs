//! The client side of the HTTP benchmarks: a load generator on hyper 1's client connections.
//!
//! For each run it spawns a server binary (which names its URL on stderr), opens
//! `concurrency` keep-alive TCP connections (`TCP_NODELAY`), and on each one a worker speaks
//! the 2025-11-25 session era: `initialize` (taking the `Mcp-Session-Id` the server
//! answers with, if any), `notifications/initialized`, then `tools/call echo {text}`
//! requests one after another (a closed loop: one request in flight per connection). Every
//! request carries `Accept: application/json, text/event-stream`, the session id and
//! `MCP-Protocol-Version: 2025-11-25`. In the 2026-07-28 era ([`Era::Modern`]) the body
//! carries that era's `_meta` ([`Era::echo_params`]) and every server (typed-mcp, rmcp 3.9,
//! which serves that era statelessly whatever its session setting, and the floor) gets no
//! handshake and no session; each request carries the headers that era requires: an
//! `MCP-Protocol-Version` equal to the `_meta`'s version (the schema's `protocolVersion`:
//! "this value MUST match the `MCP-Protocol-Version` header; otherwise the server MUST
//! return a `400 Bad Request`"), `Mcp-Method` and `Mcp-Name`. Each answer is read whole
//! and checked: status 200, a JSON body or an event stream whose data events hold the
//! answer, the request's id, no `error`, not `isError`, and a text content block equal to
//! the text sent.
//!
//! Each worker warms up first; when all have, the server's CPU time is read and the
//! measured requests start, drawn from a shared counter until `requests` are answered.
//! Latency is from building a request to having read and checked its answer's body
//! (the check is cheap next to the round trip). The client runs on one thread (a
//! current-thread tokio runtime), so it never takes more than one core from the server.

use std::borrow::Cow;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::sync::Barrier;
use typed_mcp_bench::{cpu_ns, peak_rss_kib, quantile};

use crate::driver::{Era, Measured};
use crate::servers::HttpServer;

/// One cell of the HTTP matrix.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HttpWorkload {
    /// The protocol era of the requests.
    pub(crate) era: Era,
    /// Length of the echoed text, in bytes.
    pub(crate) payload: usize,
    /// Keep-alive connections, one request in flight on each.
    pub(crate) concurrency: usize,
    /// Measured requests over all connections (after the warm-up).
    pub(crate) requests: usize,
}

/// Warm-up requests over all connections (at least [`WARM_UP_PER_CONNECTION`] on each).
const WARM_UP: usize = 400;
const WARM_UP_PER_CONNECTION: usize = 10;
/// A run taking longer than this is a hang.
const DEADLINE: Duration = Duration::from_secs(180);
/// How long a server gets to name its URL.
const START_DEADLINE: Duration = Duration::from_secs(20);
const PROTOCOL_VERSION: &str = "2025-11-25";
const MODERN_VERSION: &str = "2026-07-28";
const ACCEPT_BOTH: HeaderValue = HeaderValue::from_static("application/json, text/event-stream");
const JSON: HeaderValue = HeaderValue::from_static("application/json");

const INITIALIZE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","#,
    r#""capabilities":{},"clientInfo":{"name":"typed-mcp-bench","version":"0.1.0"}}}"#
);
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A server process and the thread draining its stderr.
struct Running {
    child: Child,
    drain: Option<thread::JoinHandle<()>>,
}

impl Running {
    fn start(server: HttpServer) -> Result<(Self, SocketAddr), String> {
        let (binary, args) = server.command()?;
        let mut child = Command::new(&binary)
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("spawning {}: {e}", binary.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr pipe")?;
        let (found, url) = mpsc::channel::<String>();
        // Reads until the URL line, then keeps draining so the server never blocks on logs.
        let drain = thread::spawn(move || {
            let mut found = Some(found);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("listening on ") {
                    if let Some(found) = found.take() {
                        if found.send(url.trim().to_owned()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut running = Self {
            child,
            drain: Some(drain),
        };
        let url = match url.recv_timeout(START_DEADLINE) {
            Ok(url) => url,
            Err(_) => {
                running.stop();
                return Err(format!("{} did not name its URL", server.name()));
            }
        };
        let addr = url
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .and_then(|authority| authority.parse().ok())
            .ok_or_else(|| format!("{} named an unexpected URL", server.name()))?;
        Ok((running, addr))
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn stop(&mut self) {
        if let Err(error) = self.child.kill() {
            eprintln!("stopping a server: {error}");
        }
        if let Err(error) = self.child.wait() {
            eprintln!("waiting for a server: {error}");
        }
        if let Some(drain) = self.drain.take() {
            if drain.join().is_err() {
                eprintln!("the stderr drain panicked");
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.drain.is_some() {
            self.stop();
        }
    }
}

/// Runs `workload` against a fresh process of `server`.
pub(crate) fn run(server: HttpServer, workload: HttpWorkload) -> Result<Measured, String> {
    let (mut running, addr) = Running::start(server)?;
    let pid = running.pid();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("client runtime: {e}"))?;
    let outcome = runtime.block_on(async {
        let modern = workload.era == Era::Modern;
        tokio::time::timeout(DEADLINE, measure(addr, pid, workload, modern))
            .await
            .unwrap_or_else(|_| Err("the run exceeded its deadline".to_owned()))
    });
    // Connections still open are closed with the runtime.
    drop(runtime);
    running.stop();
    outcome.map_err(|e| format!("{}: {e}", server.name()))
}

/// What a worker shares with the others.
struct Shared {
    addr: SocketAddr,
    host: HeaderValue,
    text: String,
    template: Template,
    /// Requests in the 2026-07-28 era, to a server that speaks it: no session, that era's
    /// headers.
    modern: bool,
    warm_up: usize,
    requests: usize,
    next: AtomicUsize,
    ready: Barrier,
    go: Barrier,
}

async fn measure(
    addr: SocketAddr,
    pid: u32,
    workload: HttpWorkload,
    modern: bool,
) -> Result<Measured, String> {
    let concurrency = workload.concurrency.max(1);
    let text = "x".repeat(workload.payload);
    let shared = Rc::new(Shared {
        addr,
        host: HeaderValue::from_str(&addr.to_string()).map_err(|e| e.to_string())?,
        template: Template::new(&text, workload.era),
        modern,
        text,
        warm_up: (WARM_UP / concurrency).max(WARM_UP_PER_CONNECTION),
        requests: workload.requests,
        next: AtomicUsize::new(0),
        ready: Barrier::new(concurrency + 1),
        go: Barrier::new(concurrency + 1),
    });
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async move {
            let workers: Vec<_> = (0..concurrency)
                .map(|_| tokio::task::spawn_local(worker(Rc::clone(&shared))))
                .collect();
            // Every worker reaches `ready`, even a failed one, so this cannot hang.
            shared.ready.wait().await;
            let cpu_before = cpu_ns(pid).map_err(|e| e.to_string())?;
            let started = Instant::now();
            shared.go.wait().await;
            let mut latencies = Vec::with_capacity(workload.requests);
            let mut failure = None;
            for worker in workers {
                match worker.await {
                    Ok(Ok(mut samples)) => latencies.append(&mut samples),
                    Ok(Err(error)) => failure = failure.or(Some(error)),
                    Err(error) => failure = failure.or(Some(format!("worker: {error}"))),
                }
            }
            let elapsed = started.elapsed();
            let cpu_after = cpu_ns(pid).map_err(|e| e.to_string())?;
            let peak = peak_rss_kib(pid).map_err(|e| e.to_string())?;
            if let Some(error) = failure {
                return Err(error);
            }
            if latencies.len() != workload.requests {
                return Err(format!(
                    "{} answers for {} requests",
                    latencies.len(),
                    workload.requests
                ));
            }
            latencies.sort_unstable();
            let n = workload.requests as f64;
            Ok(Measured {
                per_second: n / elapsed.as_secs_f64(),
                p50: quantile(&latencies, 0.50).unwrap_or_default(),
                p99: quantile(&latencies, 0.99).unwrap_or_default(),
                cpu_ns_per_request: cpu_after.saturating_sub(cpu_before) as f64 / n,
                peak_rss_kib: peak,
            })
        })
        .await
}

/// One connection's life: connect, handshake, warm up, then measured requests until the
/// shared counter runs out. Always passes both barriers (a failed worker waits at them
/// before returning its error), so the others and the coordinator never hang.
async fn worker(shared: Rc<Shared>) -> Result<Vec<Duration>, String> {
    let prepared = prepare(&shared).await;
    shared.ready.wait().await;
    shared.go.wait().await;
    let (mut session, mut id) = prepared?;
    let mut latencies = Vec::new();
    while shared.next.fetch_add(1, Ordering::Relaxed) < shared.requests {
        id += 1;
        let sent = Instant::now();
        session.echo(&shared, id).await?;
        latencies.push(sent.elapsed());
    }
    Ok(latencies)
}

async fn prepare(shared: &Shared) -> Result<(Session, u64), String> {
    let mut session = Session::open(shared).await?;
    for id in 1..=shared.warm_up as u64 {
        session
            .echo(shared, id)
            .await
            .map_err(|e| format!("warm-up: {e}"))?;
    }
    Ok((session, shared.warm_up as u64))
}

/// The bytes of a `tools/call echo` request of id N: prefix, N, suffix.
struct Template {
    prefix: &'static [u8],
    suffix: Vec<u8>,
}

impl Template {
    fn new(text: &str, era: Era) -> Self {
        let params = era.echo_params(text);
        Self {
            prefix: br#"{"jsonrpc":"2.0","id":"#,
            suffix: format!(r#","method":"tools/call","params":{params}}}"#).into_bytes(),
        }
    }

    fn body(&self, id: u64) -> Bytes {
        let mut out = BytesMut::with_capacity(self.prefix.len() + 20 + self.suffix.len());
        out.put_slice(self.prefix);
        out.put_slice(id.to_string().as_bytes());
        out.put_slice(&self.suffix);
        out.freeze()
    }
}

/// One keep-alive connection with its MCP session.
struct Session {
    sender: SendRequest<Full<Bytes>>,
    session_id: Option<HeaderValue>,
}

impl Session {
    async fn open(shared: &Shared) -> Result<Self, String> {
        let stream = tokio::net::TcpStream::connect(shared.addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        stream
            .set_nodelay(true)
            .map_err(|e| format!("nodelay: {e}"))?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| format!("handshake: {e}"))?;
        tokio::task::spawn_local(async move {
            // Ends with an error when the server goes away at the end of a run.
            if let Err(error) = connection.await {
                drop(error);
            }
        });
        let mut session = Self {
            sender,
            session_id: None,
        };
        if shared.modern {
            // Stateless: nothing to open.
            return Ok(session);
        }
        let (status, headers, body) = session
            .post(shared, Bytes::from_static(INITIALIZE.as_bytes()))
            .await?;
        if status != StatusCode::OK {
            return Err(format!("initialize: HTTP {status}"));
        }
        session.session_id = headers.get("mcp-session-id").cloned();
        let answered = messages(&headers, &body).into_iter().any(|message| {
            serde_json::from_slice::<serde_json::Value>(&message)
                .ok()
                .is_some_and(|answer| answer["id"] == 0 && answer["result"].is_object())
        });
        if !answered {
            return Err("initialize was not answered with a result".to_owned());
        }
        let (status, _, _) = session
            .post(shared, Bytes::from_static(INITIALIZED.as_bytes()))
            .await?;
        if !status.is_success() {
            return Err(format!("notifications/initialized: HTTP {status}"));
        }
        Ok(session)
    }

    async fn post(
        &mut self,
        shared: &Shared,
        body: Bytes,
    ) -> Result<(StatusCode, hyper::HeaderMap, Bytes), String> {
        let mut request = Request::builder()
            .method(Method::POST)
            .uri("/mcp")
            .header(HOST, shared.host.clone())
            .header(CONTENT_TYPE, JSON)
            .header(ACCEPT, ACCEPT_BOTH);
        request = if shared.modern {
            // Only `tools/call echo` is sent in this era.
            request
                .header("mcp-protocol-version", MODERN_VERSION)
                .header("mcp-method", "tools/call")
                .header("mcp-name", "echo")
        } else {
            request.header("mcp-protocol-version", PROTOCOL_VERSION)
        };
        if let Some(id) = &self.session_id {
            request = request.header("mcp-session-id", id.clone());
        }
        let request = request
            .body(Full::new(body))
            .map_err(|e| format!("request: {e}"))?;
        self.sender
            .ready()
            .await
            .map_err(|e| format!("connection: {e}"))?;
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(|e| format!("sending: {e}"))?;
        let (parts, body) = response.into_parts();
        let body = body
            .collect()
            .await
            .map_err(|e| format!("reading the answer: {e}"))?
            .to_bytes();
        Ok((parts.status, parts.headers, body))
    }

    /// One `tools/call echo` of id `id`, its answer checked.
    async fn echo(&mut self, shared: &Shared, id: u64) -> Result<(), String> {
        let (status, headers, body) = self.post(shared, shared.template.body(id)).await?;
        if status != StatusCode::OK {
            return Err(format!("request {id}: HTTP {status}"));
        }
        for message in messages(&headers, &body) {
            let Ok(answer) = serde_json::from_slice::<Answer<'_>>(&message) else {
                continue;
            };
            if answer.id != Some(id) {
                continue;
            }
            let echoed = answer.error.is_none()
                && answer.result.is_some_and(|result| {
                    !result.is_error
                        && result.content.len() == 1
                        && result.content[0].kind == "text"
                        && result.content[0].text.as_deref() == Some(shared.text.as_str())
                });
            return if echoed {
                Ok(())
            } else {
                Err(format!("request {id} was not echoed"))
            };
        }
        Err(format!("request {id} got no answer"))
    }
}

/// A `tools/call` answer, borrowing from the body where it can.
#[derive(Deserialize)]
struct Answer<'a> {
    #[serde(default)]
    id: Option<u64>,
    #[serde(default, borrow)]
    result: Option<CallResult<'a>>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct CallResult<'a> {
    #[serde(borrow)]
    content: Vec<Content<'a>>,
    #[serde(default, rename = "isError")]
    is_error: bool,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
}

/// The JSON-RPC messages of an answer body: the body itself when it is JSON, or the data
/// of each event (data lines joined by newlines, empty ones skipped) of an event stream.
fn messages<'a>(headers: &hyper::HeaderMap, body: &'a [u8]) -> Vec<Cow<'a, [u8]>> {
    let event_stream = headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    if !event_stream {
        return vec![Cow::Borrowed(body)];
    }
    let mut out = Vec::new();
    let mut data: Option<Cow<'a, [u8]>> = None;
    let mut flush = |data: &mut Option<Cow<'a, [u8]>>| {
        if let Some(data) = data.take() {
            if !data.is_empty() {
                out.push(data);
            }
        }
    };
    for line in body.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            flush(&mut data);
            continue;
        }
        let Some(value) = line.strip_prefix(b"data:") else {
            continue;
        };
        let value = value.strip_prefix(b" ").unwrap_or(value);
        data = Some(match data.take() {
            None => Cow::Borrowed(value),
            Some(before) => {
                let mut joined = before.into_owned();
                joined.push(b'\n');
                joined.extend_from_slice(value);
                Cow::Owned(joined)
            }
        });
    }
    flush(&mut data);
    out
}
