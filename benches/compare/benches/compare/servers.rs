//! The servers under test, each a separate release binary run as a child process, so each
//! is measured as what it is (its own size, its own resident set):
//! - `typed-mcp`: the demo server itself, `examples/demo_server.rs` (package `typed-mcp-examples`)
//!   (what `cargo run --release --example demo_server` runs);
//! - `rmcp-stdio` and `rmcp-pipes`: `examples/rmcp_echo.rs` of this package over rmcp 3.9's
//!   `stdio()` and `stdio_pipes()` transports;
//! - `floor`: `examples/floor_echo.rs` of this package (parse into `Value`, write a template);
//!   `floor-structured` writes typed-mcp's answer shape, `floor-tokio` runs the loop as a task
//!   on a tokio multi-thread runtime.
//!
//!
//! The HTTP servers ([`HttpServer`]) are this package's `examples/typed_http_echo.rs`,
//! `examples/rmcp_http_echo.rs` and the HTTP floor `examples/http_floor_echo.rs`; each listens
//! on `127.0.0.1:0` and names its URL on stderr.
//!
//! [`build`] compiles them first, with the cargo that runs this bench, into the same target
//! directory (a no-op when they are up to date), in the `bench-servers` profile of the
//! workspace's `Cargo.toml` (release with fat LTO and one codegen unit) and linked with packed
//! relative relocations (`-z pack-relative-relocs`): how a server shipped as a binary is built,
//! the same for every server under test. `TYPED_MCP_BENCH_PROFILE=release` measures plain
//! `cargo build --release` binaries instead (what `cargo run --release` runs).

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// One server under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Server {
    /// The typed-mcp demo server.
    Typed,
    /// rmcp 3.9 over `stdio()`.
    RmcpStdio,
    /// rmcp 3.9 over `stdio_pipes()`.
    RmcpPipes,
    /// Parse into `Value`, write a template.
    Floor,
    /// The floor writing typed-mcp's answer (the text twice: its block and
    /// `structuredContent`): what that answer costs with no runtime at all.
    FloorStructured,
    /// The floor's loop (plain answer) as a task on a tokio multi-thread runtime, reading
    /// and writing non-blocking pipes as `serve_stdio` and `stdio_pipes()` do: what the
    /// runtime's wake-ups cost with no SDK at all.
    FloorTokio,
    /// Another build of the demo server, for before/after figures side by side: the binary
    /// named by `TYPED_MCP_BENCH_BASELINE` (e.g. built from an older commit). Only the
    /// callgrind, stdio and memory parts run it, and only when the variable is set.
    Baseline,
}

impl Server {
    /// Every server, in the order of the tables.
    pub(crate) const ALL: [Server; 6] = [
        Server::Typed,
        Server::RmcpStdio,
        Server::RmcpPipes,
        Server::Floor,
        Server::FloorStructured,
        Server::FloorTokio,
    ];

    /// The row label.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Server::Typed => "typed-mcp",
            Server::RmcpStdio => "rmcp-stdio",
            Server::RmcpPipes => "rmcp-pipes",
            Server::Floor => "floor",
            Server::FloorStructured => "floor-structured",
            Server::FloorTokio => "floor-tokio",
            Server::Baseline => "typed-mcp (baseline)",
        }
    }

    /// The binary and its arguments.
    pub(crate) fn command(self) -> Result<(PathBuf, &'static [&'static str]), String> {
        let examples = servers_dir()?.join("examples");
        Ok(match self {
            Server::Typed => (examples.join("demo_server"), &[]),
            Server::RmcpStdio => (examples.join("rmcp_echo"), &["stdio"]),
            Server::RmcpPipes => (examples.join("rmcp_echo"), &["pipes"]),
            Server::Floor => (examples.join("floor_echo"), &[]),
            Server::FloorStructured => (examples.join("floor_echo"), &["structured"]),
            Server::FloorTokio => (examples.join("floor_echo"), &["tokio"]),
            Server::Baseline => (
                std::env::var_os(BASELINE_VAR)
                    .map(PathBuf::from)
                    .ok_or_else(|| format!("{BASELINE_VAR} is not set"))?,
                &[],
            ),
        })
    }

    /// Whether the server speaks 2026-07-28 (then it gets no handshake in that era): the
    /// SDKs do (rmcp 3.9 serves a first request carrying that era's `_meta` statelessly),
    /// the floors answer any line and get the 2025-11-25 handshake first.
    pub(crate) fn speaks_modern(self) -> bool {
        matches!(
            self,
            Server::Typed | Server::Baseline | Server::RmcpStdio | Server::RmcpPipes
        )
    }

    /// [`Server::Baseline`] when `TYPED_MCP_BENCH_BASELINE` names a binary.
    pub(crate) fn baseline() -> Option<Server> {
        std::env::var_os(BASELINE_VAR).map(|_| Server::Baseline)
    }
}

/// The rows of the stdio matrix: every server, with the baseline after typed-mcp when
/// `TYPED_MCP_BENCH_BASELINE` is set, limited to the `wanted` row labels (all when `None`).
pub(crate) fn stdio(wanted: Option<&[String]>) -> Vec<Server> {
    let mut servers = Server::ALL.to_vec();
    if let Some(baseline) = Server::baseline() {
        servers.insert(1, baseline);
    }
    servers.retain(|&server| crate::callgrind::selected(server, wanted));
    servers
}

/// The environment variable naming the baseline demo server binary.
const BASELINE_VAR: &str = "TYPED_MCP_BENCH_BASELINE";

/// One HTTP server under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HttpServer {
    /// typed-mcp's `serve_http`, 2025-11-25 session.
    Typed,
    /// rmcp 3.9's `StreamableHttpService`, default configuration (sessions, event streams).
    Rmcp,
    /// rmcp 3.9's `StreamableHttpService` without sessions, JSON answers (reference only).
    RmcpStateless,
    /// Another build of `typed_http_echo`, for before/after figures side by side: the binary
    /// named by `TYPED_MCP_BENCH_HTTP_BASELINE` (e.g. built from an older commit), run only
    /// when the variable is set.
    Baseline,
    /// `examples/http_floor_echo.rs`: one axum route parsing the body into a `Value` and
    /// answering with a fixed-shape echo, on the same stack (reference only).
    Floor,
}

impl HttpServer {
    /// Every HTTP server, in the order of the tables.
    pub(crate) const ALL: [HttpServer; 4] = [
        HttpServer::Typed,
        HttpServer::Rmcp,
        HttpServer::RmcpStateless,
        HttpServer::Floor,
    ];

    /// The row label.
    pub(crate) fn name(self) -> &'static str {
        match self {
            HttpServer::Typed => "typed-mcp",
            HttpServer::Rmcp => "rmcp",
            HttpServer::RmcpStateless => "rmcp-stateless-json",
            HttpServer::Baseline => "typed-mcp (baseline)",
            HttpServer::Floor => "floor (axum + serde_json)",
        }
    }

    /// The binary and its arguments.
    pub(crate) fn command(self) -> Result<(PathBuf, &'static [&'static str]), String> {
        let examples = servers_dir()?.join("examples");
        Ok(match self {
            HttpServer::Typed => (examples.join("typed_http_echo"), &[]),
            HttpServer::Rmcp => (examples.join("rmcp_http_echo"), &["session"]),
            HttpServer::RmcpStateless => (examples.join("rmcp_http_echo"), &["stateless"]),
            HttpServer::Baseline => (
                std::env::var_os(HTTP_BASELINE_VAR)
                    .map(PathBuf::from)
                    .ok_or_else(|| format!("{HTTP_BASELINE_VAR} is not set"))?,
                &[],
            ),
            HttpServer::Floor => (examples.join("http_floor_echo"), &[]),
        })
    }
}

/// The rows of the HTTP matrix: every HTTP server, with the baseline after typed-mcp when
/// `TYPED_MCP_BENCH_HTTP_BASELINE` is set.
pub(crate) fn http() -> Vec<HttpServer> {
    let mut servers = HttpServer::ALL.to_vec();
    if std::env::var_os(HTTP_BASELINE_VAR).is_some() {
        servers.insert(1, HttpServer::Baseline);
    }
    servers
}

/// The environment variable naming the baseline `typed_http_echo` binary.
const HTTP_BASELINE_VAR: &str = "TYPED_MCP_BENCH_HTTP_BASELINE";

/// The environment variable naming the cargo profile the servers are built in.
const PROFILE_VAR: &str = "TYPED_MCP_BENCH_PROFILE";

/// The profile the servers are built in (see the module documentation).
pub(crate) fn profile() -> String {
    std::env::var(PROFILE_VAR).unwrap_or_else(|_| "bench-servers".to_owned())
}

/// The linker argument every server of the `bench-servers` profile is linked with: relative
/// relocations packed (DT_RELR, glibc 2.36 or later), so the dynamic loader does not read
/// half a megabyte of relocation entries into memory at start.
const PACKED_RELOCATIONS: &str = "-Clink-arg=-Wl,-z,pack-relative-relocs";

/// `<target>/<dir>`, where this bench binary (`<target>/<dir>/deps/compare-…`) lives:
/// `release` under `cargo bench`, the profile's name under `cargo bench --profile NAME`.
fn bench_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    exe.parent()
        .and_then(|deps| deps.parent())
        .map(PathBuf::from)
        .ok_or_else(|| format!("{} is not in <target>/<profile>/deps", exe.display()))
}

/// The cargo profile this bench binary was built in, read from the directory it lives in
/// (`bench` for `<target>/release`, where `cargo bench` puts it).
pub(crate) fn bench_profile() -> String {
    let dir = bench_dir().ok();
    match dir.as_deref().and_then(std::path::Path::file_name) {
        Some(name) if name == "release" => "bench".to_owned(),
        Some(name) => name.to_string_lossy().into_owned(),
        None => "unknown".to_owned(),
    }
}

/// `<target>/release`, where [`build`] puts the `validator_probe` example.
pub(crate) fn release_dir() -> Result<PathBuf, String> {
    Ok(target_dir()?.join("release"))
}

/// `<target>/<profile>`, where the servers are built.
fn servers_dir() -> Result<PathBuf, String> {
    let profile = profile();
    let dir = match profile.as_str() {
        "release" | "bench" => "release",
        "dev" | "test" => "debug",
        other => other,
    };
    Ok(target_dir()?.join(dir))
}

fn target_dir() -> Result<PathBuf, String> {
    bench_dir()?
        .parent()
        .map(PathBuf::from)
        .ok_or_else(|| "no target directory".to_owned())
}

/// Which servers [`build`] compiles: those of the parts of the bench that run.
#[derive(Debug, Clone)]
pub(crate) struct Parts {
    /// The stdio servers (the stdio, memory and callgrind parts).
    pub(crate) stdio: bool,
    /// The HTTP servers.
    pub(crate) http: bool,
    /// The `validator_probe` example (the callgrind part's validator rows).
    pub(crate) probe: bool,
    /// The stdio rows asked for (`--servers` of the callgrind part): only their binaries
    /// are built. `None`: every stdio server.
    pub(crate) stdio_rows: Option<Vec<String>>,
}

/// Builds the server binaries of `parts` in the profile of [`profile`], and the
/// `validator_probe` example (no server: `validator_instructions.rs` runs it from
/// `<target>/release`) in release.
pub(crate) fn build(parts: Parts) -> Result<(), String> {
    let target = target_dir()?;
    let profile = profile();
    let bench = ["-p", "typed-mcp-bench", "--features", "servers"];
    let mut builds: Vec<Vec<&str>> = Vec::new();
    let mut examples = Vec::new();
    if parts.stdio {
        let rows = parts.stdio_rows.as_deref();
        let wanted = |servers: &[Server]| {
            servers
                .iter()
                .any(|&server| crate::callgrind::selected(server, rows))
        };
        if wanted(&[Server::Typed]) {
            builds.push(vec!["-p", "typed-mcp-examples", "--example", "demo_server"]);
        }
        if wanted(&[Server::RmcpStdio, Server::RmcpPipes]) {
            examples.push("rmcp_echo");
        }
        if wanted(&[Server::Floor, Server::FloorStructured, Server::FloorTokio]) {
            examples.push("floor_echo");
        }
    }
    if parts.http {
        examples.extend(["typed_http_echo", "rmcp_http_echo", "http_floor_echo"]);
    }
    for example in examples {
        builds.push([&bench[..], &["--example", example]].concat());
    }
    for args in builds {
        cargo_build(&target, &profile, &args)?;
    }
    if !parts.probe {
        return Ok(());
    }
    let probe = [&bench[..], &["--example", "validator_probe"]].concat();
    cargo_build(&target, "release", &probe)
}

/// `cargo build` (`cargo rustc` with the linker argument in the `bench-servers` profile: it
/// passes it to the example alone, the dependencies are built as by `cargo build`).
fn cargo_build(target: &std::path::Path, profile: &str, args: &[&str]) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut command = Command::new(&cargo);
    command.current_dir(&root);
    let packed = profile == "bench-servers";
    command
        .arg(if packed { "rustc" } else { "build" })
        .args(["--profile", profile, "--quiet", "--target-dir"])
        .arg(target)
        .args(args);
    if packed {
        command.args(["--", PACKED_RELOCATIONS]);
    }
    let status = command
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("running cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building {} failed ({status})", args.join(" ")));
    }
    Ok(())
}
