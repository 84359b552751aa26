//! `typed-mcp-codegen`: the generator as a command, for projects that check generated code
//! in instead of generating it in `build.rs`.
//!
//! ```text
//! typed-mcp-codegen generate [--schema <FILE>...] [--snapshot <FILE>...] --out <DIR>
//!                            [--runtime-path <PATH>] [--format-assertion] [--check]
//! typed-mcp-codegen pull <ARGS>...
//! typed-mcp-codegen --help | --version
//! ```
//!
//! `generate` writes `<DIR>/<stem>.rs` for every schema and every server snapshot (only
//! files whose content changed are rewritten). With `--check` it writes nothing and compares
//! instead: every missing or stale file is listed on stderr with the lines that differ.
//!
//! `pull` runs `typed-mcp-pull` (a separate crate, since talking to a server needs the
//! runtime and tokio, which the generator does without) with the same arguments, and exits
//! with its status: it looks next to this executable first, then on the `PATH`.
//!
//! Exit status: 0 success (with `--check`: every file is fresh); 1 `--check` found a missing
//! or stale file; 2 usage error; 3 generation failed (the message names the schema file and
//! the JSON Pointer, or the file that could not be read or written).
//!
//! Everything this command prints goes to stderr.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `--check` found a missing or stale file.
const EXIT_STALE: u8 = 1;
/// The command line is not understood.
const EXIT_USAGE: u8 = 2;
/// The generator failed.
const EXIT_GENERATION: u8 = 3;

const USAGE: &str = "\
usage: typed-mcp-codegen generate [--schema <FILE>...] [--snapshot <FILE>...] --out <DIR>
                                  [--runtime-path <PATH>] [--format-assertion] [--check]
       typed-mcp-codegen pull <ARGS>...   (runs typed-mcp-pull <ARGS>...; see its --help)
       typed-mcp-codegen --help | --version

Generates Rust types and validators from JSON Schema files, one <DIR>/<stem>.rs per schema,
and a typed client from each server snapshot (the same code `typed_mcp_codegen::Config`
writes from a build.rs).

options:
  --schema <FILE>...     schema files (JSON Schema 2020-12 with $defs); repeat the flag or
                         list several files after it
  --snapshot <FILE>...   server snapshots written by `typed-mcp-pull` (or `pull`): each
                         becomes a typed client module
  --out <DIR>            where the generated files go
  --runtime-path <PATH>  how generated code names the typed-mcp crate (default ::typed_mcp);
                         set it when your Cargo.toml renames the dependency
  --format-assertion     the validators check `format` (off by default: an annotation, as
                         JSON Schema 2020-12 says)
  --check                write nothing; fail if a generated file is missing or stale

exit status: 0 success or fresh, 1 stale (--check), 2 usage error, 3 generation failed
(`pull`: typed-mcp-pull's own exit status, or 2 when it is not installed)";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Help,
    Version,
    Generate(Generate),
    /// `pull`: the arguments handed to `typed-mcp-pull`.
    Pull(Vec<String>),
}

/// The arguments of `generate`.
#[derive(Debug, PartialEq, Eq)]
struct Generate {
    schemas: Vec<PathBuf>,
    snapshots: Vec<PathBuf>,
    out: PathBuf,
    runtime_path: Option<String>,
    format_assertion: bool,
    check: bool,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args = args.into_iter().peekable();
    match args.next().as_deref() {
        None => return Err("no command given".into()),
        Some("--help" | "-h" | "help") => return Ok(Command::Help),
        Some("--version" | "-V") => return Ok(Command::Version),
        Some("generate") => {}
        Some("pull") => return Ok(Command::Pull(args.collect())),
        Some(_) => return Err("unknown command (the commands are `generate` and `pull`)".into()),
    }
    let mut schemas = Vec::new();
    let mut snapshots = Vec::new();
    let mut out = None;
    let mut runtime_path = None;
    let mut check = false;
    let mut format_assertion = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--schema" => {
                let before = schemas.len();
                while let Some(file) = args.next_if(|a| !a.starts_with("--")) {
                    schemas.push(PathBuf::from(file));
                }
                if schemas.len() == before {
                    return Err("--schema needs at least one file".into());
                }
            }
            "--snapshot" => {
                let before = snapshots.len();
                while let Some(file) = args.next_if(|a| !a.starts_with("--")) {
                    snapshots.push(PathBuf::from(file));
                }
                if snapshots.len() == before {
                    return Err("--snapshot needs at least one file".into());
                }
            }
            "--out" => {
                let dir = args.next_if(|a| !a.starts_with("--"));
                let dir = dir.ok_or("--out needs a directory")?;
                if out.replace(PathBuf::from(dir)).is_some() {
                    return Err("--out given twice".into());
                }
            }
            "--runtime-path" => {
                let path = args.next_if(|a| !a.starts_with("--"));
                let path = path.ok_or("--runtime-path needs a path such as ::typed_mcp")?;
                if runtime_path.replace(path).is_some() {
                    return Err("--runtime-path given twice".into());
                }
            }
            "--check" => check = true,
            "--format-assertion" => format_assertion = true,
            "--help" | "-h" => return Ok(Command::Help),
            other if other.starts_with("--") => return Err("unknown option".into()),
            _ => return Err("unexpected argument (schema files follow --schema)".into()),
        }
    }
    if schemas.is_empty() && snapshots.is_empty() {
        return Err("no --schema or --snapshot given".into());
    }
    let out = out.ok_or("no --out given")?;
    Ok(Command::Generate(Generate {
        schemas,
        snapshots,
        out,
        runtime_path,
        format_assertion,
        check,
    }))
}

fn main() -> ExitCode {
    // The generator turns every panic (typify's included) into an error naming the schema
    // file and pointer, reported below with exit status 3; the default hook would also print
    // the panic and a backtrace.
    std::panic::set_hook(Box::new(|_| {}));
    let command = match parse(std::env::args().skip(1)) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("typed-mcp-codegen: {message}\n\n{USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match command {
        Command::Help => {
            eprintln!("{USAGE}");
            ExitCode::SUCCESS
        }
        Command::Version => {
            eprintln!("typed-mcp-codegen {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Command::Generate(generate) => run(&generate),
        Command::Pull(args) => pull(&args),
    }
}

/// Runs `typed-mcp-pull` with `args`: the one next to this executable if there is one,
/// else the one on the `PATH`.
fn pull(args: &[String]) -> ExitCode {
    let name = format!("typed-mcp-pull{}", std::env::consts::EXE_SUFFIX);
    let sibling = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&name)))
        .filter(|path| path.is_file());
    let program = sibling.unwrap_or_else(|| PathBuf::from(&name));
    match std::process::Command::new(&program).args(args).status() {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(EXIT_GENERATION)),
            None => {
                eprintln!("typed-mcp-codegen: typed-mcp-pull was killed by a signal");
                ExitCode::from(EXIT_GENERATION)
            }
        },
        Err(error) => {
            eprintln!(
                "typed-mcp-codegen: cannot run typed-mcp-pull ({error}); it is a crate of its \
                 own, since it talks to servers: `cargo install typed-mcp-pull`"
            );
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn run(generate: &Generate) -> ExitCode {
    let mut config = typed_mcp_codegen::Config::new();
    config
        .schemas(&generate.schemas)
        .out_dir(&generate.out)
        .emit_rerun_if_changed(false);
    for snapshot in &generate.snapshots {
        config.server_snapshot(snapshot);
    }
    config.format_assertion(generate.format_assertion);
    if let Some(path) = &generate.runtime_path {
        config.runtime_path(path);
    }
    let result = if generate.check {
        config.check()
    } else {
        config.generate()
    };
    let files = match result {
        Ok(files) => files,
        Err(error) => {
            eprintln!("typed-mcp-codegen: {error}");
            return ExitCode::from(EXIT_GENERATION);
        }
    };
    if !generate.check {
        for file in &files {
            let status = if file.changed { "wrote" } else { "unchanged" };
            eprintln!("{status} {}", file.path.display());
            for warning in &file.warnings {
                eprintln!("warning: {}: {warning}", file.schema.display());
            }
        }
        return ExitCode::SUCCESS;
    }
    let stale: Vec<_> = files.iter().filter(|file| file.changed).collect();
    for file in &stale {
        match describe_staleness(&config, &file.schema, &file.path) {
            Ok(summary) => eprintln!("stale: {} ({summary})", file.path.display()),
            Err(error) => {
                eprintln!("typed-mcp-codegen: {error}");
                return ExitCode::from(EXIT_GENERATION);
            }
        }
    }
    if stale.is_empty() {
        eprintln!("{} generated file(s) fresh", files.len());
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "{} of {} generated file(s) stale; run the same command without --check to regenerate",
            stale.len(),
            files.len()
        );
        ExitCode::from(EXIT_STALE)
    }
}

/// A one-line summary of how the checked-in file at `path` differs from what `schema`
/// generates: missing, or the line range that differs.
fn describe_staleness(
    config: &typed_mcp_codegen::Config,
    schema: &Path,
    path: &Path,
) -> typed_mcp_codegen::Result<String> {
    let Ok(committed) = std::fs::read(path) else {
        return Ok(format!("missing; generated from {}", schema.display()));
    };
    let committed = String::from_utf8_lossy(&committed);
    let generated = config.generate_string(schema)?;
    Ok(changed_lines(&committed, &generated))
}

/// Which lines differ between `old` and `new`, once their common first and last lines are
/// set aside.
fn changed_lines(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let range = |total: usize| {
        let (first, last) = (prefix + 1, total - suffix);
        if last < first {
            format!("nothing after line {prefix}")
        } else if first == last {
            format!("line {first}")
        } else {
            format!("lines {first}-{last}")
        }
    };
    if old.len() == new.len() && prefix == old.len() {
        // Same lines: the difference is in line endings or the final newline.
        return "differs in line endings or the final newline".into();
    }
    format!(
        "checked-in {} of {} vs generated {} of {}",
        range(old.len()),
        old.len(),
        range(new.len()),
        new.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn generate_takes_several_schemas_per_flag_and_repeated_flags() {
        let parsed = parse(args(
            "generate --schema a.json b.json --out gen --schema c.json --check --runtime-path ::mcp --format-assertion --snapshot s.json",
        ));
        assert_eq!(
            parsed,
            Ok(Command::Generate(Generate {
                schemas: ["a.json", "b.json", "c.json"].map(PathBuf::from).to_vec(),
                snapshots: vec![PathBuf::from("s.json")],
                out: PathBuf::from("gen"),
                runtime_path: Some("::mcp".into()),
                format_assertion: true,
                check: true,
            }))
        );
    }

    #[test]
    fn incomplete_or_unknown_command_lines_are_usage_errors() {
        for line in [
            "",
            "build --schema a.json --out gen",
            "generate --out gen",
            "generate --schema a.json",
            "generate --schema --out gen",
            "generate --schema a.json --out",
            "generate --schema a.json --out a --out b",
            "generate --schema a.json --out gen --frobnicate",
            "generate stray --schema a.json --out gen",
            "generate --schema a.json --out gen --runtime-path",
            "generate --snapshot --out gen",
        ] {
            assert!(parse(args(line)).is_err(), "{line:?} was accepted");
        }
    }

    #[test]
    fn the_summary_names_the_differing_line_ranges() {
        assert_eq!(
            changed_lines("a\nb\nc\nd\n", "a\nB\nC\nd\n"),
            "checked-in lines 2-3 of 4 vs generated lines 2-3 of 4"
        );
        assert_eq!(
            changed_lines("a\nd\n", "a\nb\nd\n"),
            "checked-in nothing after line 1 of 2 vs generated line 2 of 3"
        );
        assert_eq!(
            changed_lines("a\nb", "a\nb\n"),
            "differs in line endings or the final newline"
        );
    }
}
