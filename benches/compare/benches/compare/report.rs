//! Prints the run as Markdown tables (pasted as they are into `BENCHMARKS.md`): every figure
//! as the median of the repetitions with their range, every ratio computed within one
//! repetition (servers measured side by side) and given as the range over repetitions, then
//! each target with how many repetitions met it.

use std::process::Command;

use typed_mcp_bench::Range;

use crate::driver::{self, Era, Launcher, Measured, Mode, Workload};
use crate::http::{self, HttpWorkload};
use crate::servers::{self, HttpServer, Server};
use crate::validators::{Row, Skipped};

/// One repetition of the stdio matrix: `[workload][server]`, in the order of the servers
/// passed to [`stdio_repetition`].
pub(crate) type Repetition = Vec<Vec<Result<Measured, String>>>;

/// Prints the machine, the toolchain and the date.
pub(crate) fn machine() {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("model name"))
                .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|text| text.trim().to_owned())
        .unwrap_or_else(|_| "unknown".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    println!("# typed-mcp side-by-side benchmarks\n");
    println!(
        "- date: {}",
        command_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"])
    );
    println!("- machine: {cores} cores (nproc), {cpu}, Linux {kernel}");
    println!(
        "- commit: {}",
        command_line("git", &["rev-parse", "--short", "HEAD"])
    );
    println!("- toolchain: {}", command_line("rustc", &["--version"]));
    println!(
        "- profile: the servers `{}` (see servers.rs), this bench `{}`\n",
        crate::servers::profile(),
        crate::servers::bench_profile()
    );
}

fn command_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        .unwrap_or_else(|| format!("({program} unavailable)"))
}

/// Runs every workload against every server in `servers` once.
pub(crate) fn stdio_repetition(
    launcher: &Launcher,
    workloads: &[Workload],
    servers: &[Server],
) -> Repetition {
    workloads
        .iter()
        .map(|&workload| {
            servers
                .iter()
                .map(|&server| driver::run(launcher, server, workload))
                .collect()
        })
        .collect()
}

fn rate(per_second: f64) -> String {
    if per_second >= 1e6 {
        format!("{:.2}M", per_second / 1e6)
    } else if per_second >= 1e3 {
        format!("{:.1}k", per_second / 1e3)
    } else {
        format!("{per_second:.0}")
    }
}

fn micros(d: f64) -> String {
    if d >= 10_000.0 {
        format!("{:.1} ms", d / 1000.0)
    } else {
        format!("{d:.1} µs")
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// "median (min–max)" of the figures, formatted by `show`.
fn spread(values: &[f64], show: fn(f64) -> String) -> String {
    match Range::of(values.iter().copied()) {
        Some(range) if values.len() > 1 => format!(
            "{} ({}–{})",
            show(median(values.to_vec())),
            show(range.min),
            show(range.max)
        ),
        Some(range) => show(range.min),
        None => "—".to_owned(),
    }
}

fn ratio_range(values: &[f64]) -> String {
    match Range::of(values.iter().copied()) {
        Some(range) if values.len() > 1 => format!("{:.2}–{:.2}×", range.min, range.max),
        Some(range) => format!("{:.2}×", range.min),
        None => "—".to_owned(),
    }
}

fn title(workload: &Workload) -> String {
    let mode = match workload.mode {
        Mode::Pipelined => "pipelined",
        Mode::Sequential => "sequential",
    };
    let size = if workload.payload >= 1024 {
        format!("{} KiB", workload.payload / 1024)
    } else {
        format!("{} B", workload.payload)
    };
    format!(
        "{}, {mode}, {size} text, {} requests",
        workload.era.label(),
        workload.requests
    )
}

/// Per repetition, `pick(server) / pick(other)`; left out where either run failed, and
/// empty when either server was not run.
fn ratios(
    runs: &[Repetition],
    w: usize,
    server: Option<usize>,
    other: Option<usize>,
    pick: fn(&Measured) -> f64,
) -> Vec<f64> {
    let (Some(server), Some(other)) = (server, other) else {
        return Vec::new();
    };
    runs.iter()
        .filter_map(|run| match (&run[w][server], &run[w][other]) {
            (Ok(a), Ok(b)) => Some(pick(a) / pick(b)),
            _ => None,
        })
        .collect()
}

fn index(servers: &[Server], server: Server) -> Option<usize> {
    servers.iter().position(|&s| s == server)
}

/// Prints the stdio tables and targets; true when a run failed.
pub(crate) fn stdio(workloads: &[Workload], servers: &[Server], runs: &[Repetition]) -> bool {
    let mut failed = false;
    println!(
        "## 1. stdio `tools/call echo` ({} repetitions)\n",
        runs.len()
    );
    println!(
        "Figures: median (min–max) over repetitions. Ratios: req/s of the row's server ÷ req/s \
         of the column's, within each repetition, as min–max. p50 ÷ floor: the row's median \
         latency ÷ the floor's. CPU ÷ rmcp stdio_pipes(): the row's server CPU per request ÷ \
         rmcp-pipes', within each repetition.\n"
    );
    let per_second: fn(&Measured) -> f64 = |m| m.per_second;
    let p50: fn(&Measured) -> f64 = |m| m.p50.as_secs_f64();
    let cpu: fn(&Measured) -> f64 = |m| m.cpu_ns_per_request;
    for (w, workload) in workloads.iter().enumerate() {
        println!("### {}\n", title(workload));
        println!(
            "| server | req/s | p50 | p99 | server CPU / req | peak RSS | ÷ rmcp stdio() | \
             ÷ rmcp stdio_pipes() | ÷ floor | p50 ÷ floor | CPU ÷ rmcp stdio_pipes() |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|---|");
        for (s, server) in servers.iter().enumerate() {
            let ok: Vec<&Measured> = runs
                .iter()
                .filter_map(|run| run[w][s].as_ref().ok())
                .collect();
            for run in runs {
                if let Err(error) = &run[w][s] {
                    failed = true;
                    println!("| **{} FAILED** | {error} |||||||||", server.name());
                }
            }
            let column = |f: fn(&Measured) -> f64| ok.iter().map(|m| f(m)).collect::<Vec<_>>();
            let to = |other: Server, pick| {
                ratio_range(&ratios(runs, w, Some(s), index(servers, other), pick))
            };
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                server.name(),
                spread(&column(per_second), rate),
                spread(&column(|m| m.p50.as_secs_f64() * 1e6), micros),
                spread(&column(|m| m.p99.as_secs_f64() * 1e6), micros),
                spread(&column(|m| m.cpu_ns_per_request / 1000.0), micros),
                spread(&column(|m| m.peak_rss_kib as f64 / 1024.0), |mb| format!(
                    "{mb:.1} MB"
                )),
                to(Server::RmcpStdio, per_second),
                to(Server::RmcpPipes, per_second),
                to(Server::Floor, per_second),
                to(Server::Floor, p50),
                to(Server::RmcpPipes, cpu),
            );
        }
        println!();
    }
    targets(workloads, servers, runs);
    failed
}

/// How many repetitions met `holds`, as "k/n".
fn met(values: &[f64], holds: impl Fn(f64) -> bool) -> String {
    let count = values.iter().filter(|&&v| holds(v)).count();
    let verdict = if count == values.len() && count > 0 {
        "met"
    } else if count == 0 {
        "MISSED"
    } else {
        "mixed"
    };
    format!("{verdict} ({count}/{})", values.len())
}

fn targets(workloads: &[Workload], servers: &[Server], runs: &[Repetition]) {
    for era in Era::BOTH {
        era_targets(era, workloads, servers, runs);
    }
}

fn era_targets(era: Era, workloads: &[Workload], servers: &[Server], runs: &[Repetition]) {
    let typed = index(servers, Server::Typed);
    let index = |server| index(servers, server);
    let find = |mode: Mode, payload: usize| {
        workloads
            .iter()
            .position(|w| w.era == era && w.mode == mode && w.payload == payload)
    };
    let per_second: fn(&Measured) -> f64 = |m| m.per_second;
    let p50: fn(&Measured) -> f64 = |m| m.p50.as_secs_f64();
    println!("### Targets (typed-mcp, {})\n", era.label());
    println!("| target | measured | verdict |");
    println!("|---|---|---|");
    if let Some(w) = find(Mode::Pipelined, 16) {
        for (other, goal) in [(Server::RmcpStdio, 10.0), (Server::RmcpPipes, 3.0)] {
            let r = ratios(runs, w, typed, index(other), per_second);
            println!(
                "| ≥ {goal}× {} req/s, pipelined 16 B | {} | {} |",
                other.name(),
                ratio_range(&r),
                met(&r, |v| v >= goal)
            );
        }
    }
    for (mode, payload, label) in [
        (Mode::Pipelined, 16, "pipelined 16 B"),
        (Mode::Pipelined, 65536, "pipelined 64 KiB"),
    ] {
        if let Some(w) = find(mode, payload) {
            let r = ratios(runs, w, typed, index(Server::Floor), per_second);
            println!(
                "| ≥ 0.4× floor req/s, {label} | {} | {} |",
                ratio_range(&r),
                met(&r, |v| v >= 0.4)
            );
        }
    }
    for (payload, label) in [(16, "16 B"), (65536, "64 KiB")] {
        if let Some(w) = find(Mode::Sequential, payload) {
            let r = ratios(runs, w, typed, index(Server::Floor), p50);
            println!(
                "| sequential p50 ≤ 2× floor, {label} | {} | {} |",
                ratio_range(&r),
                met(&r, |v| v <= 2.0)
            );
        }
    }
    let cpu: fn(&Measured) -> f64 = |m| m.cpu_ns_per_request;
    for (mode, payload, label) in [
        (Mode::Pipelined, 16, "pipelined 16 B"),
        (Mode::Pipelined, 65536, "pipelined 64 KiB"),
        (Mode::Sequential, 16, "sequential 16 B"),
        (Mode::Sequential, 65536, "sequential 64 KiB"),
    ] {
        if let Some(w) = find(mode, payload) {
            let r = ratios(runs, w, typed, index(Server::RmcpPipes), cpu);
            let floor = |server| ratios(runs, w, index(server), index(Server::RmcpPipes), cpu);
            println!(
                "| CPU ≤ 0.5× rmcp-pipes (issue 12), {label} | {} (floor-structured: {}; \
                 floor-tokio: {}) | {} |",
                ratio_range(&r),
                ratio_range(&floor(Server::FloorStructured)),
                ratio_range(&floor(Server::FloorTokio)),
                met(&r, |v| v <= 0.5)
            );
        }
    }
    for (payload, label) in [(16, "16 B"), (65536, "64 KiB")] {
        if let Some(w) = find(Mode::Pipelined, payload) {
            let Some(typed) = typed else { continue };
            let mb: Vec<f64> = runs
                .iter()
                .filter_map(|run| run[w][typed].as_ref().ok())
                .map(|m| m.peak_rss_kib as f64 / 1024.0)
                .collect();
            println!(
                "| peak RSS ≤ 8 MB, pipelined {label} | {} | {} |",
                spread(&mb, |v| format!("{v:.1} MB")),
                met(&mb, |v| v <= 8.0)
            );
        }
    }
    println!();
}

/// Prints the validator table; true when a verdict differed or nothing could be measured.
pub(crate) fn validators(runs: &[(Vec<Row>, Skipped)]) -> bool {
    let mut failed = runs.is_empty();
    println!(
        "## 2. Generated validators vs `jsonschema` 0.60 ({} repetitions)\n",
        runs.len()
    );
    println!(
        "ns per validation, median (min–max). Ours always collects every violation (with \
         path, keyword, limit and actual value); jsonschema is timed with `is_valid` (stops \
         at the first violation) and `iter_errors().count()` (all). Speed-up: jsonschema ns ÷ \
         ours, per repetition. The target (≥ 3×) is read against `is_valid` on valid \
         instances and against all errors on invalid ones (like for like).\n"
    );
    println!(
        "| schema, instance | verdict ours / jsonschema (violations) | ours | jsonschema is_valid | \
         jsonschema all errors | speed-up vs is_valid | speed-up vs all errors |"
    );
    println!("|---|---|---|---|---|---|---|");
    let Some((first, skipped)) = runs.first() else {
        println!("(no run succeeded)\n");
        return true;
    };
    let mut speedups = Vec::new();
    for (i, row) in first.iter().enumerate() {
        let rows: Vec<&Row> = runs.iter().filter_map(|(rows, _)| rows.get(i)).collect();
        let column = |f: fn(&Row) -> f64| rows.iter().map(|r| f(r)).collect::<Vec<f64>>();
        let ns = |v: f64| format!("{v:.0} ns");
        let vs_valid: Vec<f64> = rows.iter().map(|r| r.is_valid_ns / r.ours_ns).collect();
        let vs_all: Vec<f64> = rows.iter().map(|r| r.all_errors_ns / r.ours_ns).collect();
        let like_for_like = if row.ours.0 { &vs_valid } else { &vs_all };
        speedups.extend(like_for_like.iter().copied());
        let agree = rows.iter().all(|r| r.ours.0 == r.theirs.0);
        if !agree {
            failed = true;
            println!("| **WARNING: VERDICTS DIFFER on {}** |||||||", row.label);
        }
        let verdict = |(valid, count): (bool, usize)| {
            if valid {
                "valid".to_owned()
            } else {
                format!("invalid ({count})")
            }
        };
        println!(
            "| {} | {} / {} | {} | {} | {} | {} | {} |",
            row.label,
            verdict(row.ours),
            verdict(row.theirs),
            spread(&column(|r| r.ours_ns), ns),
            spread(&column(|r| r.is_valid_ns), ns),
            spread(&column(|r| r.all_errors_ns), ns),
            ratio_range(&vs_valid),
            ratio_range(&vs_all),
        );
    }
    for note in skipped {
        println!("\n> {note}");
    }
    println!(
        "\nTarget ≥ 3× faster than jsonschema, like for like, counted over rows × repetitions: \
         {}\n",
        met(&speedups, |v| v >= 3.0)
    );
    failed
}

/// Prints the output of one of the runtime's own benches.
pub(crate) fn existing(name: &str, output: Result<Vec<String>, String>) {
    println!("## 3. `cargo bench -p typed-mcp --bench {name}` (run once, from this bench)\n");
    match output {
        Ok(lines) => {
            println!("```");
            for line in lines {
                println!("{line}");
            }
            println!("```\n");
        }
        Err(message) => println!("**not measured**: {message}\n"),
    }
}

/// Runs every HTTP workload against every HTTP server once, servers interleaved.
pub(crate) fn http_repetition(workloads: &[HttpWorkload]) -> Repetition {
    workloads
        .iter()
        .map(|&workload| {
            servers::http()
                .into_iter()
                .map(|server| http::run(server, workload))
                .collect()
        })
        .collect()
}

fn http_title(workload: &HttpWorkload) -> String {
    let size = if workload.payload >= 1024 {
        format!("{} KiB", workload.payload / 1024)
    } else {
        format!("{} B", workload.payload)
    };
    let connections = if workload.concurrency == 1 {
        "1 connection".to_owned()
    } else {
        format!("{} connections", workload.concurrency)
    };
    format!(
        "{}, {size} text, {connections}, {} requests",
        workload.era.label(),
        workload.requests
    )
}

fn http_index(server: HttpServer) -> usize {
    servers::http()
        .iter()
        .position(|&s| s == server)
        .unwrap_or_default()
}

/// Prints the HTTP tables and targets; true when a run failed.
pub(crate) fn http(workloads: &[HttpWorkload], runs: &[Repetition]) -> bool {
    let mut failed = false;
    println!(
        "## 4. Streamable HTTP `tools/call echo`, 2025-11-25 sessions and 2026-07-28, \
         keep-alive ({} repetitions)\n",
        runs.len()
    );
    println!(
        "Figures: median (min–max) over repetitions. Ratios: the row's figure ÷ rmcp's \
         (sessions, its default configuration), within each repetition, as min–max. \
         rmcp-stateless-json is rmcp without sessions answering plain JSON, for reference; \
         the floor is one axum route parsing the body into a `serde_json::Value` and writing \
         a fixed-shape echo (no session, no validation), the least a server on this stack \
         does; typed-mcp (baseline), when present, is the build named by \
         `TYPED_MCP_BENCH_HTTP_BASELINE`. In 2026-07-28 every server gets each request \
         stateless: no handshake, no session, that era's headers (rmcp 3.9 serves that era \
         without a session whatever its session setting).\n"
    );
    let per_second: fn(&Measured) -> f64 = |m| m.per_second;
    let cpu: fn(&Measured) -> f64 = |m| m.cpu_ns_per_request;
    let rmcp = http_index(HttpServer::Rmcp);
    for (w, workload) in workloads.iter().enumerate() {
        println!("### {}\n", http_title(workload));
        println!(
            "| server | req/s | p50 | p99 | server CPU / req | peak RSS | req/s ÷ rmcp | \
             CPU / req ÷ rmcp |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        for (s, server) in servers::http().iter().enumerate() {
            let ok: Vec<&Measured> = runs
                .iter()
                .filter_map(|run| run[w][s].as_ref().ok())
                .collect();
            for run in runs {
                if let Err(error) = &run[w][s] {
                    failed = true;
                    println!("| **{} FAILED** | {error} |||||||", server.name());
                }
            }
            let column = |f: fn(&Measured) -> f64| ok.iter().map(|m| f(m)).collect::<Vec<_>>();
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                server.name(),
                spread(&column(per_second), rate),
                spread(&column(|m| m.p50.as_secs_f64() * 1e6), micros),
                spread(&column(|m| m.p99.as_secs_f64() * 1e6), micros),
                spread(&column(|m| m.cpu_ns_per_request / 1000.0), micros),
                spread(&column(|m| m.peak_rss_kib as f64 / 1024.0), |mb| format!(
                    "{mb:.1} MB"
                )),
                ratio_range(&ratios(runs, w, Some(s), Some(rmcp), per_second)),
                ratio_range(&ratios(runs, w, Some(s), Some(rmcp), cpu)),
            );
        }
        println!();
    }
    let typed = http_index(HttpServer::Typed);
    let floor = http_index(HttpServer::Floor);
    println!("### Targets (typed-mcp over HTTP)\n");
    println!("| target | measured | verdict |");
    println!("|---|---|---|");
    for (w, workload) in workloads.iter().enumerate() {
        let label = http_title(workload);
        if workload.concurrency >= 64 {
            let r = ratios(runs, w, Some(typed), Some(rmcp), per_second);
            println!(
                "| ≥ 2× rmcp req/s, {label} | {} | {} |",
                ratio_range(&r),
                met(&r, |v| v >= 2.0)
            );
        }
        let r = ratios(runs, w, Some(typed), Some(rmcp), cpu);
        println!(
            "| CPU / req < rmcp's, {label} | {} | {} |",
            ratio_range(&r),
            met(&r, |v| v < 1.0)
        );
        println!(
            "| CPU / req ≤ 0.5× rmcp's (issue 12), {label} | {} | {} |",
            ratio_range(&r),
            met(&r, |v| v <= 0.5)
        );
        let r = ratios(runs, w, Some(floor), Some(rmcp), cpu);
        println!(
            "| (reference) the floor's CPU / req ÷ rmcp's, {label} | {} | – |",
            ratio_range(&r)
        );
    }
    println!();
    failed
}
