//! A real `redis-server` for tests, on 127.0.0.1 and a free port, with no persistence.
//! Missing `redis-server`: the test is skipped with a printed reason, or fails when `CI` is
//! set (CI installs it: `apt-get install redis-server`).

#![allow(dead_code, unreachable_pub)]

#[path = "../reference_data.rs"]
mod reference_data;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `redis-server`, stopped on drop.
pub struct RedisServer {
    pub port: u16,
    child: Option<Child>,
    /// Arguments before the port (a Sentinel's configuration file and `--sentinel`).
    leading: Vec<String>,
    /// Arguments after the port (replacing the cache defaults when non-empty).
    trailing: Vec<String>,
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
        !reference_data::in_ci(),
        "redis-server is missing, and CI is set: install it (apt-get install redis-server)"
    );
    eprintln!("SKIPPED: redis-server is not installed (apt-get install redis-server)");
    None
}

/// The arguments of a cache server: no persistence, `maxmemory` bytes, `allkeys-lru`, then
/// `extra`.
pub fn cache_arguments(maxmemory: u64, extra: &[&str]) -> Vec<String> {
    let mut arguments: Vec<String> = ["--save", "", "--appendonly", "no", "--maxmemory"]
        .iter()
        .map(|argument| (*argument).to_owned())
        .collect();
    arguments.push(maxmemory.to_string());
    arguments.extend(["--maxmemory-policy".to_owned(), "allkeys-lru".to_owned()]);
    arguments.extend(extra.iter().map(|argument| (*argument).to_owned()));
    arguments
}

/// Sends one command line to the server on `port` and returns its first answer line.
pub fn command(port: u16, line: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream.write_all(format!("{line}\r\n").as_bytes()).ok()?;
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).ok()?;
    Some(answer.trim_end().to_owned())
}

pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().unwrap().port()
}

impl RedisServer {
    /// Starts a server with `maxmemory` bytes and the `allkeys-lru` policy; `None` when the
    /// test should skip.
    pub fn start(maxmemory: u64) -> Option<Self> {
        Self::start_with(Vec::new(), cache_arguments(maxmemory, &[]))
    }

    /// Starts a server with `leading` arguments before `--port PORT` and `trailing` ones
    /// after it; `None` when the test should skip.
    pub fn start_with(leading: Vec<String>, trailing: Vec<String>) -> Option<Self> {
        let binary = redis_binary()?;
        // A port found free may be taken again before the server binds it (by another
        // test's server): this one then exits, and another port is tried.
        for _ in 0..10 {
            let mut server = Self {
                port: free_port(),
                child: None,
                leading: leading.clone(),
                trailing: trailing.clone(),
            };
            if server.spawn(&binary) {
                return Some(server);
            }
        }
        panic!("redis-server found no free port in 10 tries");
    }

    /// Starts the server on `self.port`; `false` when it exited before answering (the port
    /// was taken).
    fn spawn(&mut self, binary: &str) -> bool {
        let child = Command::new(binary)
            .args(&self.leading)
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(self.port.to_string())
            .args(&self.trailing)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.child = Some(child);
        self.wait_ready()
    }

    /// Waits until this very server answers on its port (a hang guard of about 10 s, not a
    /// measurement): another test's server on the same port does not count. `false` when
    /// this one exited first.
    fn wait_ready(&mut self) -> bool {
        for _ in 0..200 {
            let Some(child) = self.child.as_mut() else {
                return false;
            };
            if child.try_wait().ok().flatten().is_some() {
                self.child = None;
                return false;
            }
            let pid = child.id();
            if self.answering_pid() == Some(pid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("redis-server on port {} never answered", self.port);
    }

    /// The process id of the server answering on this port (from `INFO server`).
    fn answering_pid(&self) -> Option<u32> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
        stream.write_all(b"INFO server\r\n").ok()?;
        let mut reader = BufReader::new(stream);
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let length: usize = header.strip_prefix('$')?.trim().parse().ok()?;
        let mut body = vec![0; length];
        std::io::Read::read_exact(&mut reader, &mut body).ok()?;
        String::from_utf8_lossy(&body)
            .lines()
            .find_map(|line| line.strip_prefix("process_id:"))
            .and_then(|pid| pid.trim().parse().ok())
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
        self.trailing = cache_arguments(maxmemory, &[]);
        let binary = redis_binary().expect("redis-server was there a moment ago");
        assert!(
            self.spawn(&binary),
            "port {} was taken while the server was down",
            self.port
        );
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
