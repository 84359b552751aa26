//! Measurement helpers of the typed-mcp side-by-side benchmarks (`benches/compare/`): what a
//! child process costs (`/proc`), and percentiles of latency samples. The benchmarks
//! themselves are the bench target `compare` (`cargo bench -p typed-mcp-bench`); the figures
//! of a full run are in `BENCHMARKS.md` at the repository root.

use std::fs;
use std::time::Duration;

/// Errors of reading a child process's accounting from `/proc`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProcError {
    /// A `/proc` file could not be read (the process is gone, or this is not Linux).
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A `/proc` file did not hold the expected field.
    #[error("{path} has no readable {field}")]
    Field {
        /// The file.
        path: String,
        /// The field looked for.
        field: &'static str,
    },
}

fn read(path: String) -> Result<String, ProcError> {
    fs::read_to_string(&path).map_err(|source| ProcError::Read { path, source })
}

/// CPU time spent so far by every live thread of process `pid`, in nanoseconds (the first
/// field of each `/proc/<pid>/task/<tid>/schedstat`). Threads that already exited are not
/// counted; the servers measured here keep their threads for the whole run.
///
/// # Errors
///
/// If the task list or a thread's `schedstat` cannot be read.
pub fn cpu_ns(pid: u32) -> Result<u64, ProcError> {
    let dir = format!("/proc/{pid}/task");
    let tasks = fs::read_dir(&dir).map_err(|source| ProcError::Read {
        path: dir.clone(),
        source,
    })?;
    let mut total = 0u64;
    for task in tasks {
        let task = task.map_err(|source| ProcError::Read {
            path: dir.clone(),
            source,
        })?;
        let path = task.path().join("schedstat").display().to_string();
        // A thread may exit between listing and reading: it is simply not counted.
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let on_cpu = text
            .split_whitespace()
            .next()
            .and_then(|field| field.parse::<u64>().ok())
            .ok_or(ProcError::Field {
                path,
                field: "on-CPU time",
            })?;
        total += on_cpu;
    }
    Ok(total)
}

/// Peak resident set size of process `pid` so far (`VmHWM` of `/proc/<pid>/status`), in KiB.
///
/// # Errors
///
/// If the file cannot be read or has no `VmHWM` line.
pub fn peak_rss_kib(pid: u32) -> Result<u64, ProcError> {
    let path = format!("/proc/{pid}/status");
    let text = read(path.clone())?;
    text.lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .ok_or(ProcError::Field {
            path,
            field: "VmHWM",
        })
}

/// The `q`-quantile (0 ≤ q ≤ 1, nearest rank) of `samples`, which must be sorted; `None` when
/// there are none.
pub fn quantile(sorted: &[Duration], q: f64) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((sorted.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    sorted.get(rank).copied()
}

/// The range of three (or any number of) repeated figures, for "min–max" columns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// The smallest figure.
    pub min: f64,
    /// The largest figure.
    pub max: f64,
}

impl Range {
    /// The range of `figures`; `None` when there are none or one is NaN.
    pub fn of(figures: impl IntoIterator<Item = f64>) -> Option<Self> {
        let mut range: Option<Self> = None;
        for figure in figures {
            if figure.is_nan() {
                return None;
            }
            range = Some(match range {
                None => Self {
                    min: figure,
                    max: figure,
                },
                Some(r) => Self {
                    min: r.min.min(figure),
                    max: r.max.max(figure),
                },
            });
        }
        range
    }
}
