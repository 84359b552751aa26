//! Instructions per request (user space, every thread), counted by
//! `valgrind --tool=callgrind`: each server answers the pipelined workload (16 B, then 64 KiB)
//! in both protocol eras (2025-11-25 after `initialize`, 2026-07-28 with its `_meta`, see
//! [`driver::Era`]) at two request counts, and the difference of the totals is divided by
//! the difference of the counts, which cancels start-up, handshake and warm-up. Counts are
//! exact and repeatable, unlike time.
//! The output files stay in `$TMPDIR/typed-mcp-bench-callgrind/` for `callgrind_annotate`.

use std::path::{Path, PathBuf};

use crate::driver::{self, Era, Launcher, Mode, Workload};
use crate::servers::Server;

/// (text bytes, fewer requests, more requests).
const RUNS: [(usize, usize, usize); 2] = [(16, 2_000, 6_000), (64 * 1024, 100, 300)];

pub(crate) fn total_instructions(file: &Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    text.lines()
        .find_map(|line| {
            line.strip_prefix("summary:")
                .or_else(|| line.strip_prefix("totals:"))
        })
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|count| count.parse().ok())
        .ok_or_else(|| format!("{} has no summary line", file.display()))
}

fn counted(
    dir: &Path,
    server: Server,
    era: Era,
    payload: usize,
    requests: usize,
) -> Result<(u64, PathBuf), String> {
    let file = dir.join(format!(
        "{}-{}-{payload}B-{requests}.out",
        server.name(),
        era.label()
    ));
    let launcher = Launcher {
        wrapper: vec![
            "valgrind".to_owned(),
            "--tool=callgrind".to_owned(),
            "--quiet".to_owned(),
            format!("--callgrind-out-file={}", file.display()),
        ],
    };
    let workload = Workload {
        era,
        mode: Mode::Pipelined,
        payload,
        requests,
    };
    driver::run(&launcher, server, workload)?;
    Ok((total_instructions(&file)?, file))
}

/// Whether `server` is one of the rows asked for (`None`: every row). The baseline row
/// answers to `baseline` as well as to its label.
pub(crate) fn selected(server: Server, wanted: Option<&[String]>) -> bool {
    wanted.is_none_or(|names| {
        names
            .iter()
            .any(|name| name == server.name() || (server == Server::Baseline && name == "baseline"))
    })
}

/// `rows` in order, the baseline after typed-mcp when `TYPED_MCP_BENCH_BASELINE` is set,
/// limited to those `wanted` (see [`selected`]).
pub(crate) fn row_servers(rows: &[Server], wanted: Option<&[String]>) -> Vec<Server> {
    rows.iter()
        .flat_map(|&server| match server {
            Server::Typed => vec![Some(server), Server::baseline()],
            _ => vec![Some(server)],
        })
        .flatten()
        .filter(|&server| selected(server, wanted))
        .collect()
}

/// Prints instructions per request of every server (or of those `wanted` names) in both
/// eras, the ratios the issue-41 targets name, and where the profiles are.
pub(crate) fn run(wanted: Option<&[String]>) -> Result<(), String> {
    let dir = std::env::temp_dir().join("typed-mcp-bench-callgrind");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let [legacy, modern] = Era::BOTH;
    for (payload, few, many) in RUNS {
        println!(
            "## Instructions per request (callgrind, pipelined, {payload} B text, \
             {many} − {few} requests)\n"
        );
        println!(
            "| server | {l} | {m} | {m} ÷ {l} | ÷ floor, {l} | ÷ floor, {m} | profiles ({m}) |",
            l = legacy.label(),
            m = modern.label()
        );
        println!("|---|---|---|---|---|---|---|");
        let mut floor = [f64::NAN; 2];
        let mut rows = Vec::new();
        let servers = [
            Server::Floor,
            Server::FloorStructured,
            Server::Typed,
            Server::RmcpPipes,
            Server::RmcpStdio,
        ];
        for server in row_servers(&servers, wanted) {
            let mut per_era = [0.0; 2];
            let mut profile = PathBuf::new();
            for (slot, era) in Era::BOTH.into_iter().enumerate() {
                eprintln!(
                    "callgrind: {} at {payload} B, {}",
                    server.name(),
                    era.label()
                );
                let (fewer, _) = counted(&dir, server, era, payload, few)?;
                let (more, file) = counted(&dir, server, era, payload, many)?;
                per_era[slot] = more.saturating_sub(fewer) as f64 / (many - few) as f64;
                profile = file;
            }
            if server == Server::Floor {
                floor = per_era;
            }
            rows.push((server, per_era, profile));
        }
        for (server, [old, new], file) in rows {
            println!(
                "| {} | {old:.0} | {new:.0} | {:.2}× | {:.2}× | {:.2}× | `{}` |",
                server.name(),
                new / old,
                old / floor[0],
                new / floor[1],
                file.display()
            );
        }
        println!();
    }
    crate::code_lines::run(&dir, wanted)
}
