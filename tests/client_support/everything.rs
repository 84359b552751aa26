//! `@modelcontextprotocol/server-everything` (npm, pinned in tests/interop/package.json and
//! installed by tests/interop/setup.sh): its script, and the server over Streamable HTTP on
//! 127.0.0.1 at an ephemeral port (it takes the port from `PORT`), killed when dropped.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::interop_support::{interop_dir, unavailable};

/// Longest the server may take from spawn to its `listening on port` line.
const START_DEADLINE: Duration = Duration::from_secs(60);

/// `node` and the server's entry script, or `None` after announcing why (a failure in CI).
pub(crate) fn everything_command() -> Option<(String, PathBuf)> {
    let script =
        interop_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !script.is_file() {
        unavailable(
            "@modelcontextprotocol/server-everything",
            "tests/interop/node_modules lacks it (run `bash tests/interop/setup.sh`)",
        );
        return None;
    }
    Some(("node".to_owned(), script))
}

/// The server over Streamable HTTP; killed and reaped when dropped.
pub(crate) struct EverythingHttp {
    child: Child,
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub(crate) url: String,
}

impl EverythingHttp {
    /// Starts `node SCRIPT streamableHttp` on a free port and waits until it listens.
    pub(crate) fn start(node: &str, script: &PathBuf) -> Self {
        // A port the kernel just handed out and released; the server binds it next.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let mut child = Command::new(node)
            .arg(script)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let (listening, heard) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("listening on port") && listening.send(()).is_err() {
                    break;
                }
            }
        });
        let started = Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        };
        heard
            .recv_timeout(START_DEADLINE)
            .expect("server-everything prints `listening on port`");
        started
    }
}

impl Drop for EverythingHttp {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            if let Err(error) = self.child.kill() {
                eprintln!("server-everything: killing it failed: {error}");
            }
        }
        if let Err(error) = self.child.wait() {
            eprintln!("server-everything: reaping it failed: {error}");
        }
    }
}
