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

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use interop_support::{
    announce, limits_file, read_all, run_matrix, runnable_clients, server_or_skip, summarize, tail,
    Target, ROOT,
};

/// Longest the server may take from spawn to its `listening on` line.
const START_DEADLINE: Duration = Duration::from_secs(60);

/// The address the server is told to bind: loopback, an ephemeral port.
const BIND: &str = "127.0.0.1:0";

/// The server under test, listening; killed when dropped.
struct HttpServer {
    child: Child,
    /// Held open so a server that also serves stdio never sees end of input.
    stdin: Option<ChildStdin>,
    url: String,
    stderr: Arc<Mutex<String>>,
    stderr_reader: Option<thread::JoinHandle<()>>,
    stdout_reader: Option<thread::JoinHandle<String>>,
}

/// What the server printed and whether it was still running when stopped.
struct Stopped {
    was_running: bool,
    exit: String,
    stdout: String,
    stderr: String,
}

impl HttpServer {
    /// Starts `server --http 127.0.0.1:0 --limits FILE` and waits for its `listening on` line.
    fn start(server: &[String], limits: &Path) -> Result<Self, String> {
        let mut child = Command::new(&server[0])
            .args(&server[1..])
            .args(["--http", BIND, "--limits"])
            .arg(limits)
            .current_dir(ROOT)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| format!("{} does not start: {error}", server[0]))?;
        let stdin = child.stdin.take();
        let stdout_reader = read_all(child.stdout.take().expect("piped stdout"));
        let stderr = Arc::new(Mutex::new(String::new()));
        let (found, listening) = mpsc::channel();
        let stderr_reader = {
            let stderr = Arc::clone(&stderr);
            let pipe = child.stderr.take().expect("piped stderr");
            thread::spawn(move || collect_stderr(pipe, &stderr, &found))
        };
        let mut started = Self {
            child,
            stdin,
            url: String::new(),
            stderr,
            stderr_reader: Some(stderr_reader),
            stdout_reader: Some(stdout_reader),
        };
        match listening.recv_timeout(START_DEADLINE) {
            Ok(url) => {
                started.url = url;
                Ok(started)
            }
            Err(waited) => {
                let why = match waited {
                    mpsc::RecvTimeoutError::Timeout => {
                        format!(
                            "no `listening on` line within {} s",
                            START_DEADLINE.as_secs()
                        )
                    }
                    mpsc::RecvTimeoutError::Disconnected => {
                        "its stderr closed before a `listening on` line".to_owned()
                    }
                };
                let stopped = started.stop();
                Err(format!(
                    "the server did not start listening ({why}; {}); its stderr (last 40 lines):\n{}",
                    stopped.exit,
                    tail(&stopped.stderr, 40)
                ))
            }
        }
    }

    /// Kills the server (if it still runs) and collects what it printed.
    fn stop(mut self) -> Stopped {
        let was_running = matches!(self.child.try_wait(), Ok(None));
        if was_running {
            if let Err(error) = self.child.kill() {
                announce(&format!(
                    "interop http: killing the server failed: {error}\n"
                ));
            }
        }
        drop(self.stdin.take());
        let exit = match self.child.wait() {
            Ok(status) if was_running => format!("killed at the end ({status})"),
            Ok(status) => format!("exited by itself with {status}"),
            Err(error) => format!("reaping it failed: {error}"),
        };
        let stdout = self
            .stdout_reader
            .take()
            .map(|reader| reader.join().expect("stdout reader"))
            .unwrap_or_default();
        if let Some(reader) = self.stderr_reader.take() {
            reader.join().expect("stderr reader");
        }
        let stderr = self.stderr.lock().expect("stderr buffer").clone();
        Stopped {
            was_running,
            exit,
            stdout,
            stderr,
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            if let Err(error) = self.child.kill() {
                announce(&format!(
                    "interop http: killing the server failed: {error}\n"
                ));
            }
            if let Err(error) = self.child.wait() {
                announce(&format!(
                    "interop http: reaping the server failed: {error}\n"
                ));
            }
        }
    }
}

/// The URL of a `listening on http://...` line (`listening on (http://\S+)`).
fn listening_url(line: &str) -> Option<String> {
    let start = line.find("listening on http://")? + "listening on ".len();
    let url: String = line[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !c.is_control())
        .collect();
    Some(url)
}

/// Appends every stderr line of the server to `buffer`; sends the first `listening on` URL.
fn collect_stderr(pipe: impl std::io::Read, buffer: &Mutex<String>, found: &mpsc::Sender<String>) {
    let mut reader = BufReader::new(pipe);
    let mut sent = false;
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match reader.read_until(b'\n', &mut bytes) {
            Ok(0) => return,
            Ok(_) => {
                let line = String::from_utf8_lossy(&bytes);
                if !sent {
                    if let Some(url) = listening_url(&line) {
                        // The receiver is gone only when the start already gave up.
                        sent = found.send(url).is_ok();
                    }
                }
                buffer.lock().expect("stderr buffer").push_str(&line);
            }
            Err(error) => {
                let mut buffer = buffer.lock().expect("stderr buffer");
                buffer.push_str(&format!(
                    "\n[reading the server's stderr failed: {error}]\n"
                ));
                return;
            }
        }
    }
}

#[test]
fn official_clients_pass_every_check_in_every_era_over_http() {
    let Some(server) = server_or_skip() else {
        return;
    };
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
