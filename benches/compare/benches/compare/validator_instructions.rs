//! Instructions per validation, ours against jsonschema, counted by
//! `valgrind --tool=callgrind` on the `validator_probe` example: each row is validated
//! 2,000 and 20,000 times and the difference of the totals is divided by 18,000, which
//! cancels start-up (schema compilation included). Exact and repeatable where the timed
//! rows of `--only validators` move with the load of shared cores.

use std::process::{Command, Stdio};

use crate::callgrind::total_instructions;
use crate::servers::release_dir;
use crate::validators::{cases, Side};

/// (fewer, more) validations per run.
const COUNTS: (usize, usize) = (2_000, 20_000);

fn per_validation(row: usize, side: Side) -> Result<f64, String> {
    let probe = release_dir()?.join("examples/validator_probe");
    let dir = std::env::temp_dir().join("typed-mcp-bench-callgrind");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut totals = Vec::new();
    for times in [COUNTS.0, COUNTS.1] {
        let file = dir.join(format!("validator-{row}-{}-{times}.out", side.arg()));
        let status = Command::new("valgrind")
            .args(["--tool=callgrind", "--quiet"])
            .arg(format!("--callgrind-out-file={}", file.display()))
            .arg(&probe)
            .args([row.to_string(), side.arg().to_owned(), times.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("running valgrind: {e}"))?;
        if !status.success() {
            return Err(format!("{} failed ({status})", probe.display()));
        }
        totals.push(total_instructions(&file)?);
    }
    let extra = totals[1].saturating_sub(totals[0]) as f64;
    Ok(extra / (COUNTS.1 - COUNTS.0) as f64)
}

/// Prints instructions per validation for every row.
pub(crate) fn run() -> Result<(), String> {
    let (rows, skipped) = cases()?;
    println!(
        "## Instructions per validation (callgrind, {} − {} validations)\n",
        COUNTS.1, COUNTS.0
    );
    println!(
        "| schema, instance | ours | jsonschema is_valid | jsonschema all errors | \
         ratio, like for like |"
    );
    println!("|---|---|---|---|---|");
    for (row, case) in rows.iter().enumerate() {
        let ours = per_validation(row, Side::Ours)?;
        let is_valid = per_validation(row, Side::IsValid)?;
        let all_errors = per_validation(row, Side::AllErrors)?;
        // Valid instances against `is_valid`, invalid ones against every error (as the
        // timed table reads its target).
        let valid = (case.ours)(&case.instance).is_ok();
        let theirs = if valid { is_valid } else { all_errors };
        println!(
            "| {} | {ours:.0} | {is_valid:.0} | {all_errors:.0} | {:.2}× |",
            case.label,
            theirs / ours.max(1.0)
        );
    }
    for line in skipped {
        println!("\n{line}");
    }
    println!();
    Ok(())
}
