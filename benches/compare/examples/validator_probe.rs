//! Validates one row of the validator bench a given number of times, with our generated
//! validator or with jsonschema: `validator_probe <row index> <ours|is-valid|all-errors>
//! <times>`. The bench's `--callgrind` part runs it under callgrind at two counts and divides
//! the difference, which gives exact instructions per validation (time on shared cores is
//! noisy; instruction counts are not).

use std::hint::black_box;
use std::process::ExitCode;

use validators::{Case, Side};

#[allow(dead_code, reason = "the probe uses the rows, not the timing")]
#[path = "../benches/compare/validators.rs"]
mod validators;

/// The side named by a probe argument.
fn side(arg: &str) -> Option<Side> {
    [Side::Ours, Side::IsValid, Side::AllErrors]
        .into_iter()
        .find(|side| side.arg() == arg)
}

/// Validates `case`'s instance `times` times on `side`; the violations counted, summed
/// (so the work cannot be optimised away).
fn probe(case: &Case, side: Side, times: usize) -> usize {
    let mut total = 0;
    for _ in 0..times {
        let instance = black_box(&case.instance);
        total += match side {
            Side::Ours => (case.ours)(instance).err().map_or(0, |errors| errors.len()),
            Side::IsValid => usize::from(case.theirs.is_valid(instance)),
            Side::AllErrors => case.theirs.iter_errors(instance).count(),
        };
    }
    black_box(total)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed = match args.as_slice() {
        [row, side, times] => row
            .parse::<usize>()
            .ok()
            .zip(self::side(side))
            .zip(times.parse::<usize>().ok()),
        _ => None,
    };
    let Some(((row, side), times)) = parsed else {
        eprintln!("usage: validator_probe <row index> <ours|is-valid|all-errors> <times>");
        return ExitCode::from(2);
    };
    let cases = match validators::cases() {
        Ok((cases, _skipped)) => cases,
        Err(message) => {
            eprintln!("validator_probe: {message}");
            return ExitCode::FAILURE;
        }
    };
    let Some(case) = cases.get(row) else {
        eprintln!("validator_probe: no row {row} ({} rows)", cases.len());
        return ExitCode::from(2);
    };
    eprintln!("{}: {}", case.label, probe(case, side, times));
    ExitCode::SUCCESS
}
