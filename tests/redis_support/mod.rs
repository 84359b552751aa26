//! A real `redis-server` for tests, on 127.0.0.1 and a free port, with no persistence.
//! Missing `redis-server`: the test is skipped with a printed reason, or fails when `CI` is
//! set (CI installs it: `apt-get install redis-server`).

#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `redis-server`, stopped on drop.
pub struct RedisServer {
    pub port: u16,
    child: Option<Child>,
}

/// The `redis-server` binary, or `None` (after printing why) when the test should skip.
pub fn redis_binary() -> Option<String> {
    let found = Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if found {
        return Some("redis-server".to_owned());
    }
    assert!(
        std::env::var_os("CI").is_none_or(|value| value.is_empty()),
        "redis-server is missing, and CI is set: install it (apt-get install redis-server)"
    );
    eprintln!("SKIPPED: redis-server is not installed (apt-get install redis-server)");
    None
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().unwrap().port()
}

impl RedisServer {
    /// Starts a server with `maxmemory` bytes and the `allkeys-lru` policy; `None` when the
    /// test should skip.
    pub fn start(maxmemory: u64) -> Option<Self> {
        let binary = redis_binary()?;
        let mut server = Self {
            port: free_port(),
            child: None,
        };
        server.spawn(&binary, maxmemory);
        Some(server)
    }

    fn spawn(&mut self, binary: &str, maxmemory: u64) {
        let child = Command::new(binary)
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(self.port.to_string())
            .args(["--save", "", "--appendonly", "no", "--maxmemory"])
            .arg(maxmemory.to_string())
            .args(["--maxmemory-policy", "allkeys-lru"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        self.wait_ready();
    }

    /// Waits until the server answers PING (a hang guard of about 10 s, not a measurement).
    fn wait_ready(&self) {
        for _ in 0..200 {
            if self.ping() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("redis-server on port {} never answered", self.port);
    }

    /// Whether the server answers `PING` right now.
    pub fn ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ignored = stream.set_read_timeout(Some(Duration::from_secs(2)));
        if stream.write_all(b"PING\r\n").is_err() {
            return false;
        }
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).is_ok() && line.starts_with("+PONG")
    }

    /// The URL of this server.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills the server (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ignored = child.kill();
            let _status = child.wait();
        }
    }

    /// Starts the server again on the same port (empty: nothing is persisted).
    pub fn restart(&mut self, maxmemory: u64) {
        self.kill();
        let binary = redis_binary().expect("redis-server was there a moment ago");
        self.spawn(&binary, maxmemory);
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
