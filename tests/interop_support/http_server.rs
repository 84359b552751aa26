//! The server under test over HTTP: started with `--http 127.0.0.1:0`, its
//! `listening on (http://\S+)` line awaited, killed when dropped (shared by the HTTP
//! interop and conformance tests).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use super::{announce, read_all, tail, ROOT};

/// Longest the server may take from spawn to its `listening on` line.
const START_DEADLINE: Duration = Duration::from_secs(60);

/// The address the server is told to bind: loopback, an ephemeral port.
pub(crate) const BIND: &str = "127.0.0.1:0";

/// The server under test, listening; killed when dropped.
pub(crate) struct HttpServer {
    pub(crate) child: Child,
    /// Held open so a server that also serves stdio never sees end of input.
    pub(crate) stdin: Option<ChildStdin>,
    pub(crate) url: String,
    pub(crate) stderr: Arc<Mutex<String>>,
    pub(crate) stderr_reader: Option<thread::JoinHandle<()>>,
    pub(crate) stdout_reader: Option<thread::JoinHandle<String>>,
}

/// What the server printed and whether it was still running when stopped.
pub(crate) struct Stopped {
    pub(crate) was_running: bool,
    pub(crate) exit: String,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl HttpServer {
    /// Starts `server --http 127.0.0.1:0 --limits FILE` and waits for its `listening on` line.
    pub(crate) fn start(server: &[String], limits: &Path) -> Result<Self, String> {
        let mut command = Command::new(&server[0]);
        command
            .args(&server[1..])
            .args(["--http", BIND, "--limits"])
            .arg(limits);
        Self::spawn(command, &server[0])
    }

    /// Starts `server --http 127.0.0.1:0` (no limits file) and waits for its `listening on`
    /// line.
    pub(crate) fn start_plain(server: &[String]) -> Result<Self, String> {
        let mut command = Command::new(&server[0]);
        command.args(&server[1..]).args(["--http", BIND]);
        Self::spawn(command, &server[0])
    }

    fn spawn(mut command: Command, program: &str) -> Result<Self, String> {
        let server = [program];
        let mut child = command
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
    pub(crate) fn stop(mut self) -> Stopped {
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
pub(crate) fn listening_url(line: &str) -> Option<String> {
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
