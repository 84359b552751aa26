//! A local cluster for the tests (issue 13): `deploy/local-cluster.sh` starts redis-server,
//! demo-server instances on the Redis cache store and nginx in front of them; this module
//! drives it and speaks plain HTTP (reqwest) to it.
//!
//! Missing nginx or redis-server: the test is skipped with a printed reason, or fails when
//! `CI` is set (tests/setup.sh installs both).

#![allow(dead_code, unreachable_pub)]

#[path = "../example_support/mod.rs"]
mod example_support;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use reqwest::header::HeaderMap;
use reqwest::StatusCode;
use serde_json::{json, Value};

#[path = "../reference_data.rs"]
mod reference_data;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// How long one HTTP exchange may take before the test gives up (a hang guard only).
const HANG_GUARD: Duration = Duration::from_secs(30);

/// Whether the programs the cluster needs are installed; `false` (after printing why) when
/// the test should skip. Panics in CI.
pub fn tools_present() -> bool {
    let nginx = ["nginx", "/usr/sbin/nginx"].iter().any(|program| {
        Command::new(program)
            .arg("-v")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    });
    let redis = ["redis-server", "redis-cli"].iter().all(|program| {
        Command::new(program)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    });
    if nginx && redis {
        return true;
    }
    let reason = "the cluster test needs nginx, redis-server and redis-cli \
                  (apt-get install nginx redis-server; tests/setup.sh installs them)";
    assert!(
        !reference_data::in_ci(),
        "CI must run the cluster test: {reason}"
    );
    eprintln!("SKIPPED: {reason}");
    false
}

/// The demo server executable: `TYPED_MCP_DEMO_SERVER`, else the example built with this
/// test's profile.
pub fn demo_server() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| match std::env::var_os("TYPED_MCP_DEMO_SERVER") {
            Some(path) => PathBuf::from(path),
            None => build_demo_server(),
        })
        .clone()
}

fn build_demo_server() -> PathBuf {
    example_support::build_example("demo_server")
}

/// A port that was free a moment ago (nginx's, the one fixed port of the cluster), taken
/// from 10000–19999: below Linux's ephemeral range (32768–60999), where the instances' own
/// ports (bound to port 0) come from, and below the range the script tries for redis
/// (20000–59999). A port from the ephemeral range could be handed to an instance before
/// nginx binds it (seen once: "nginx did not start").
fn free_port() -> u16 {
    use std::hash::{BuildHasher, Hasher};
    for _ in 0..200 {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        let port = 10_000 + u16::try_from(hasher.finish() % 10_000).expect("below 10000");
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port in 10000-19999 after 200 tries");
}

/// One demo-server instance of the cluster.
#[derive(Debug, Clone)]
pub struct Instance {
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// `127.0.0.1:PORT`, as nginx's `$upstream_addr` names it.
    pub addr: String,
    /// Its process.
    pub pid: u32,
}

/// A running cluster, stopped on drop.
pub struct Cluster {
    /// nginx's URL.
    pub url: String,
    /// The instances, in the order the script printed them.
    pub instances: Vec<Instance>,
    /// Redis's port.
    pub redis_port: u16,
    /// Redis's process as the script started it.
    pub redis_pid: u32,
    /// A Redis this test started again after killing the script's.
    restarted_redis: Mutex<Option<Child>>,
    state: tempfile::TempDir,
    http: reqwest::Client,
}

fn script() -> PathBuf {
    Path::new(ROOT).join("deploy/local-cluster.sh")
}

/// How long a client waits before retrying a call that failed on a dying instance. Without
/// a pause the retry can reach the same instance: a killed process closes its sockets one
/// by one as it exits, and nginx may hand the retry to one of its idle keep-alive
/// connections to that instance that is not closed yet; the request is sent, then reset,
/// and a POST is never sent on (`recv() failed (104: Connection reset by peer)` in nginx's
/// log, 11 runs in 21 under load). Once the process is gone, nginx has seen those
/// connections close and a refused connection sends the request on to a live instance.
pub const RETRY_PAUSE: Duration = Duration::from_millis(500);

impl Cluster {
    /// `deploy/local-cluster.sh start COUNT PORT` in a fresh state directory.
    pub fn start(count: usize) -> Self {
        Self::start_with(count, "")
    }

    /// [`Cluster::start`] with `CLUSTER_LIMITS` (extra members of the limits document).
    pub fn start_with(count: usize, limits: &str) -> Self {
        Self::start_with_env(count, limits, &[])
    }

    /// [`Cluster::start_with`] with more environment variables for the script (e.g.
    /// `CLUSTER_SESSION_STORE`).
    pub fn start_with_env(count: usize, limits: &str, env: &[(&str, &str)]) -> Self {
        let state = tempfile::tempdir().expect("a state directory");
        let port = free_port();
        let output = Command::new("bash")
            .arg(script())
            .args(["start", &count.to_string(), &port.to_string()])
            .env("LOCAL_CLUSTER_DIR", state.path())
            .env("DEMO_SERVER_BIN", demo_server())
            .env("CLUSTER_LIMITS", limits)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .expect("the cluster script runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "local-cluster.sh start failed ({}); it printed:\n{stdout}",
            output.status
        );
        let mut url = None;
        let mut redis = None;
        let mut instances = Vec::new();
        for line in stdout.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                ["url", nginx] => url = Some((*nginx).to_owned()),
                ["redis", port, pid] => {
                    redis = Some((port.parse().expect("port"), pid.parse().expect("pid")));
                }
                ["instance", instance, pid] => instances.push(Instance {
                    url: (*instance).to_owned(),
                    addr: instance
                        .trim_start_matches("http://")
                        .trim_end_matches("/mcp")
                        .to_owned(),
                    pid: pid.parse().expect("pid"),
                }),
                _ => panic!("unexpected line from local-cluster.sh: {line:?}"),
            }
        }
        let (redis_port, redis_pid) = redis.expect("a redis line");
        let url = url.expect("a url line");
        assert_eq!(url, format!("http://127.0.0.1:{port}/mcp"));
        assert_eq!(instances.len(), count, "one instance line per instance");
        let http = reqwest::Client::builder()
            .timeout(HANG_GUARD)
            .build()
            .expect("an HTTP client");
        Self {
            url,
            instances,
            redis_port,
            redis_pid,
            restarted_redis: Mutex::new(None),
            state,
            http,
        }
    }

    /// The key set file every instance reads (`STATE/keys.json`, written by the script).
    pub fn keys_file(&self) -> PathBuf {
        self.state.path().join("keys.json")
    }

    /// Replaces the key set file with `keys` (id, base64 secret), the signing key first;
    /// the instances read it when they (re)start.
    pub fn write_keys(&self, keys: &[(&str, &str)]) {
        let keys: Vec<Value> = keys
            .iter()
            .map(|(id, secret)| json!({"id": id, "secret": secret}))
            .collect();
        std::fs::write(self.keys_file(), json!({ "keys": keys }).to_string())
            .expect("the key set file is written");
    }

    /// `deploy/local-cluster.sh restart`: every instance restarted in turn, on its own
    /// address; returns how long it took and the new processes' ids.
    pub fn restart(&self) -> (Duration, Vec<u32>) {
        let started = std::time::Instant::now();
        let output = Command::new("bash")
            .arg(script())
            .arg("restart")
            .env("LOCAL_CLUSTER_DIR", self.state.path())
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .expect("the cluster script runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "local-cluster.sh restart failed ({}); it printed:\n{stdout}",
            output.status
        );
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(
            lines.len(),
            self.instances.len(),
            "one line per instance: {stdout}"
        );
        let mut pids = Vec::new();
        for (instance, line) in self.instances.iter().zip(lines) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let ["instance", url, pid] = fields.as_slice() else {
                panic!("unexpected line from local-cluster.sh restart: {line:?}");
            };
            assert_eq!(*url, instance.url, "restarted on its own address");
            pids.push(pid.parse().expect("pid"));
        }
        (started.elapsed(), pids)
    }

    /// Sends SIGKILL to `pid` (a crash, not a shutdown) and waits until it is gone.
    pub fn kill(pid: u32) {
        let status = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -KILL {pid}");
        for _ in 0..200 {
            let alive = Command::new("kill")
                .args(["-0", &pid.to_string()])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|status| status.success());
            if !alive {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("process {pid} survived SIGKILL");
    }

    /// Starts an empty Redis again on the same port (after [`Cluster::kill`] of
    /// `redis_pid`) and waits until it answers.
    pub fn restart_redis(&self) {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(self.redis_port.to_string())
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        *self
            .restarted_redis
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(child);
        for _ in 0..200 {
            let pong = Command::new("redis-cli")
                .args([
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &self.redis_port.to_string(),
                    "ping",
                ])
                .output()
                .is_ok_and(|output| output.stdout.starts_with(b"PONG"));
            if pong {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the restarted redis-server never answered");
    }

    /// The instance whose address is `addr`.
    pub fn instance_at(&self, addr: &str) -> Option<usize> {
        self.instances
            .iter()
            .position(|instance| instance.addr == addr)
    }

    /// POSTs `body` to `url` with `headers`; `Err` with a description when no HTTP answer
    /// came (connection refused or reset).
    pub async fn post_to(
        &self,
        url: &str,
        body: &Value,
        headers: &[(&str, &str)],
    ) -> Result<Answer, String> {
        let mut request = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.map_err(|error| error.to_string())?;
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.map_err(|error| error.to_string())?;
        Ok(Answer {
            status,
            headers,
            body: text,
        })
    }

    /// DELETE with `headers` (ends a 2025 session).
    pub async fn delete(&self, headers: &[(&str, &str)]) -> StatusCode {
        let mut request = self.http.delete(&self.url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send().await.expect("an answer").status()
    }

    /// A 2026-07-28 request to `url`, with the headers a conforming client sends.
    pub async fn modern_to(
        &self,
        url: &str,
        id: u64,
        method: &str,
        params: Value,
    ) -> Result<Answer, String> {
        let name = match method {
            "tools/call" | "prompts/get" => params["name"].as_str().map(str::to_owned),
            "resources/read" => params["uri"].as_str().map(str::to_owned),
            _ => None,
        };
        let mut params = params;
        // The caller's own _meta (e.g. other client capabilities) is kept.
        if params.get("_meta").is_none() {
            params["_meta"] = meta();
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut headers = vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ];
        if let Some(name) = name.as_deref() {
            headers.push(("mcp-name", name));
        }
        self.post_to(url, &body, &headers).await
    }

    /// A 2026-07-28 request through nginx.
    pub async fn modern(&self, id: u64, method: &str, params: Value) -> Result<Answer, String> {
        let url = self.url.clone();
        self.modern_to(&url, id, method, params).await
    }

    /// A 2026-07-28 `tools/call` through nginx that must succeed; retried once, after
    /// [`RETRY_PAUSE`] (as a client's retry policy does), when nginx or the connection fails.
    /// Returns the answer and whether it took the retry.
    pub async fn call_retrying(&self, id: u64, tool: &str, arguments: Value) -> (Answer, bool) {
        let params = json!({"name": tool, "arguments": arguments});
        let first = self.modern(id, "tools/call", params.clone()).await;
        if let Ok(answer) = &first {
            if answer.status == StatusCode::OK {
                return (first.expect("checked"), false);
            }
        }
        tokio::time::sleep(RETRY_PAUSE).await;
        let second = self
            .modern(id, "tools/call", params)
            .await
            .unwrap_or_else(|error| panic!("the retry of {tool} failed too: {error}"));
        (second, true)
    }

    /// Opens a 2025 session through nginx at `version`: `initialize` and
    /// `notifications/initialized`. Returns the session id the client sees.
    pub async fn initialize(&self, version: &str) -> (String, Answer) {
        let body = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "cluster-test", "version": "1.0.0"}
            }
        });
        let answer = self.post_to(&self.url, &body, &[]).await.expect("answered");
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        assert_eq!(answer.json()["result"]["protocolVersion"], version);
        let session = answer
            .header("mcp-session-id")
            .expect("initialize answers with a session id");
        let initialized = self
            .post_to(
                &self.url,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                &[
                    ("mcp-session-id", &session),
                    ("mcp-protocol-version", version),
                ],
            )
            .await
            .expect("answered");
        assert_eq!(
            initialized.status,
            StatusCode::ACCEPTED,
            "{}",
            initialized.body
        );
        (session, answer)
    }

    /// A request of 2025 session `session` through nginx.
    pub async fn in_session(
        &self,
        session: &str,
        version: &str,
        id: u64,
        method: &str,
        params: Value,
    ) -> Answer {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.post_to(
            &self.url,
            &body,
            &[
                ("mcp-session-id", session),
                ("mcp-protocol-version", version),
            ],
        )
        .await
        .expect("answered")
    }
}

impl Cluster {
    /// After a failed test, to stderr: what nginx logged of failed upstreams (error.log
    /// without the refused connections that routing around a dead instance gives) and the
    /// requests it answered with another status than 200 (access.log); which upstream failed
    /// how is only there, and the state directory goes with the test.
    fn print_nginx_logs(&self) {
        let read =
            |name: &str| std::fs::read_to_string(self.state.path().join(name)).unwrap_or_default();
        let errors = read("error.log");
        let requests = read("access.log");
        let shown: [(&str, Vec<&str>); 2] = [
            (
                "error.log, refused connections left out",
                errors
                    .lines()
                    .filter(|line| !line.contains("(111: Connection refused)"))
                    .collect(),
            ),
            (
                "access.log, answers other than 200",
                requests
                    .lines()
                    .filter(|line| !line.contains("\" 200 "))
                    .collect(),
            ),
        ];
        for (title, lines) in shown {
            let last = &lines[lines.len().saturating_sub(40)..];
            eprintln!("--- nginx {title} (last {} lines) ---", last.len());
            for line in last {
                eprintln!("{line}");
            }
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let restarted = self
            .restarted_redis
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(mut child) = restarted {
            let _ignored = child.kill();
            let _status = child.wait();
        }
        if std::thread::panicking() {
            self.print_nginx_logs();
        }

        let stopped = Command::new("bash")
            .arg(script())
            .arg("stop")
            .env("LOCAL_CLUSTER_DIR", self.state.path())
            .stdin(Stdio::null())
            .status();
        if !stopped.is_ok_and(|status| status.success()) {
            eprintln!("local-cluster.sh stop failed");
        }
    }
}

/// The `_meta` of a 2026-07-28 request from a client without capabilities.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "cluster-test", "version": "1.0.0"}
    })
}

/// One HTTP answer.
#[derive(Debug)]
pub struct Answer {
    /// Its status.
    pub status: StatusCode,
    /// Its headers.
    pub headers: HeaderMap,
    /// Its body.
    pub body: String,
}

impl Answer {
    /// The body as JSON: the message itself, or the last `data:` event of an event stream.
    pub fn json(&self) -> Value {
        if let Ok(value) = serde_json::from_str(&self.body) {
            return value;
        }
        self.body
            .lines()
            .rev()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("id").is_some())
            .unwrap_or_else(|| panic!("no JSON-RPC response in: {}", self.body))
    }

    /// A header's value as text.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    }

    /// The instance that answered (the last address nginx tried), `127.0.0.1:PORT`.
    pub fn upstream(&self) -> String {
        last_upstream(
            &self
                .header("x-mcp-upstream")
                .expect("nginx names the instance that answered"),
        )
    }

    /// The `structuredContent` of a successful tool call (panics on any error).
    pub fn tool_output(&self) -> Value {
        assert_eq!(self.status, StatusCode::OK, "{}", self.body);
        let message = self.json();
        let result = &message["result"];
        assert!(result.is_object(), "not a result: {}", self.body);
        assert_ne!(result["isError"], true, "the tool failed: {}", self.body);
        let structured = result["structuredContent"].clone();
        assert_eq!(structured["ok"], true, "{}", self.body);
        structured
    }
}

/// The last address of nginx's `X-MCP-Upstream` header (the instance that answered, after any
/// it tried first), `127.0.0.1:PORT`.
pub fn last_upstream(tried: &str) -> String {
    tried
        .rsplit([',', ' '])
        .next()
        .expect("one address at least")
        .to_owned()
}
