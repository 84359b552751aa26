//! The code a server runs per sequential call, counted by `valgrind --tool=callgrind
//! --dump-instr=yes`: each server answers the sequential 16 B workload at two request
//! counts, and the instructions whose execution count rose by at least 0.9 of the requests
//! added are the ones each request runs. The table gives their number and the 64-byte cache
//! lines that hold them.
//!
//! Why this is measured (BENCHMARKS.md, "Issue 12, stop 30"): between two sequential
//! requests the server sleeps, and its code leaves the caches; the user time of a sequential
//! call then follows the lines of code it runs more than its instruction count. Not timed,
//! so not noisy: runs of the same binary agree within about 1%.
//! `benches/compare/scripts/code_lines.py` counts the same way for the scripts (any stdio
//! server, and HTTP over one connection, which this harness does not profile).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::callgrind::row_servers;
use crate::driver::{self, Era, Launcher, Mode, Workload};
use crate::servers::Server;

/// (text bytes, fewer requests, more requests).
const RUN: (usize, usize, usize) = (16, 1_000, 2_000);

/// Execution count and object of each instruction address of a profile written with
/// `--dump-instr=yes --compress-pos=no --compress-strings=no`.
fn counts_per_instruction(file: &Path) -> Result<HashMap<u64, (u64, String)>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut counts: HashMap<u64, (u64, String)> = HashMap::new();
    let mut object = String::new();
    let mut after_call = false;
    for line in text.lines() {
        if line.starts_with("calls=") {
            // The next cost line is the call's, its callee's instructions included.
            after_call = true;
        } else if let Some(name) = line.strip_prefix("ob=") {
            object = name.trim().to_owned();
        } else if let Some(rest) = line.strip_prefix("0x") {
            if std::mem::take(&mut after_call) {
                continue;
            }
            let mut fields = rest.split_whitespace();
            let address = fields.next().and_then(|a| u64::from_str_radix(a, 16).ok());
            let count = fields.nth(1).and_then(|c| c.parse::<u64>().ok());
            let (Some(address), Some(count)) = (address, count) else {
                return Err(format!("{}: unreadable cost line", file.display()));
            };
            let entry = counts.entry(address).or_insert((0, String::new()));
            entry.0 += count;
            if entry.1.is_empty() {
                entry.1.clone_from(&object);
            }
        }
    }
    Ok(counts)
}

/// Per request between the two profiles: (instructions executed, distinct instructions run
/// once or more, cache lines holding those). The executed count is the difference of the
/// profiles' summed counts, which equal their `summary:` totals.
fn per_request(fewer: &Path, more: &Path, added: usize) -> Result<(f64, usize, usize), String> {
    let low = counts_per_instruction(fewer)?;
    let high = counts_per_instruction(more)?;
    let total = |counts: &HashMap<u64, (u64, String)>| -> u64 {
        counts.values().map(|(count, _)| count).sum()
    };
    let executed = total(&high).saturating_sub(total(&low)) as f64 / added as f64;
    let mut instructions = 0;
    let mut lines = HashSet::new();
    for (address, (count, object)) in &high {
        let before = low.get(address).map_or(0, |(count, _)| *count);
        if (count.saturating_sub(before) as f64) >= 0.9 * added as f64 {
            instructions += 1;
            lines.insert((object.as_str(), address >> 6));
        }
    }
    Ok((executed, instructions, lines.len()))
}

fn profiled(dir: &Path, server: Server, requests: usize) -> Result<std::path::PathBuf, String> {
    let (payload, _, _) = RUN;
    let file = dir.join(format!("{}-lines-{payload}B-{requests}.out", server.name()));
    let launcher = Launcher {
        wrapper: [
            "valgrind",
            "--tool=callgrind",
            "--quiet",
            "--dump-instr=yes",
            "--compress-pos=no",
            "--compress-strings=no",
        ]
        .into_iter()
        .map(str::to_owned)
        .chain([format!("--callgrind-out-file={}", file.display())])
        .collect(),
    };
    let workload = Workload {
        era: Era::Legacy,
        mode: Mode::Sequential,
        payload,
        requests,
    };
    driver::run(&launcher, server, workload)?;
    Ok(file)
}

/// Prints the code each sequential request runs, for every server (or those `wanted`).
pub(crate) fn run(dir: &Path, wanted: Option<&[String]>) -> Result<(), String> {
    let (payload, few, many) = RUN;
    println!(
        "## Code run per request (callgrind --dump-instr, sequential, {payload} B text, \
         {many} − {few} requests)\n"
    );
    println!("| server | instructions / request | distinct instructions | 64-byte lines | KiB |");
    println!("|---|---|---|---|---|");
    let servers = [
        Server::Floor,
        Server::FloorTokio,
        Server::Typed,
        Server::RmcpPipes,
    ];
    for server in row_servers(&servers, wanted) {
        eprintln!("callgrind: code lines of {}", server.name());
        let fewer = profiled(dir, server, few)?;
        let more = profiled(dir, server, many)?;
        let (executed, distinct, lines) = per_request(&fewer, &more, many - few)?;
        println!(
            "| {} | {executed:.0} | {distinct} | {lines} | {:.1} |",
            server.name(),
            lines as f64 * 64.0 / 1024.0
        );
    }
    println!();
    Ok(())
}
