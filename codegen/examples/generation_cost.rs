//! What a user's `build.rs` pays on every schema change: the time `Config::generate` takes
//! for each schema file given, and the size of the code it writes (the figures of
//! BENCHMARKS.md, "Code generation").
//!
//! ```sh
//! cargo run -p typed-mcp-codegen --example generation_cost -- \
//!     [--runs N] [--format-assertion] [--remotes DIR] FILE...
//! ```
//!
//! Each file is generated `N` times (default 5) into a temporary folder, as a build script
//! would (a fresh output folder each time, so every run writes); the median, least and
//! greatest wall times are printed with the generated file's size in bytes and lines.
//! `--remotes DIR` lists every `*.json` below `DIR` as the remote document
//! `http://localhost:1234/<path>` (the JSON Schema Test Suite's convention). Run it in the dev
//! profile, as cargo builds build scripts and their dependencies.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The command line.
struct Options {
    runs: usize,
    format_assertion: bool,
    remotes: Option<PathBuf>,
    files: Vec<PathBuf>,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        runs: 5,
        format_assertion: false,
        remotes: None,
        files: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => {
                let runs = args.next().ok_or("--runs needs a number")?;
                options.runs = runs
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or("--runs needs a positive number")?;
            }
            "--format-assertion" => options.format_assertion = true,
            "--remotes" => {
                options.remotes = Some(args.next().ok_or("--remotes needs a folder")?.into())
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
            _ => options.files.push(arg.into()),
        }
    }
    if options.files.is_empty() {
        return Err("no schema file given".into());
    }
    Ok(options)
}

/// Every `*.json` file below `dir`, sorted.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// One generation of `file` into a fresh folder: its wall time and the generated text.
fn generate(options: &Options, file: &Path) -> Result<(Duration, String), String> {
    let out = tempfile::tempdir().map_err(|e| format!("a temporary folder: {e}"))?;
    let mut config = typed_mcp_codegen::Config::new();
    config
        .emit_rerun_if_changed(false)
        .format_assertion(options.format_assertion)
        .schema(file)
        .out_dir(out.path());
    if let Some(remotes) = &options.remotes {
        for path in json_files(remotes) {
            let relative = path.strip_prefix(remotes).unwrap_or(&path);
            let relative = relative.to_string_lossy().replace('\\', "/");
            config.remote(format!("http://localhost:1234/{relative}"), &path);
        }
    }
    let started = Instant::now();
    let generated = config
        .generate()
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let elapsed = started.elapsed();
    let path = &generated.first().ok_or("nothing generated")?.path;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((elapsed, text))
}

fn run(options: &Options) -> Result<(), String> {
    for file in &options.files {
        let mut times = Vec::with_capacity(options.runs);
        let mut text = String::new();
        for _ in 0..options.runs {
            let (elapsed, generated) = generate(options, file)?;
            times.push(elapsed);
            text = generated;
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{}: {:.0} ms median ({:.0}..{:.0} over {} runs), {} bytes, {} lines",
            file.display(),
            ms(times[times.len() / 2]),
            ms(times[0]),
            ms(times[times.len() - 1]),
            options.runs,
            text.len(),
            text.lines().count()
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match parse().and_then(|options| run(&options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("generation_cost: {error}");
            ExitCode::from(2)
        }
    }
}
