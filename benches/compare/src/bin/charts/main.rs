//! Draws the charts of `BENCHMARKS.md` from the bench's own Markdown report:
//!
//! ```sh
//! cargo bench -p typed-mcp-bench > report.md
//! cargo run -p typed-mcp-bench --bin charts -- --out benches/compare/charts report.md
//! ```
//!
//! Several reports may be given (say, one run's stdio and HTTP parts and another's
//! validators): each chart is drawn from the last report that holds its tables, and names that
//! run. Writes `cpu_per_request.svg` (server CPU per request ÷ rmcp's, per cell, for every
//! server but the baselines), `stalled_client_rss.svg` (peak RSS with a client that stops
//! reading) and `validators.svg` (time per validation, ours against `jsonschema`). With
//! `--check`, writes nothing and fails when a chart in `--out` differs from what it would draw.

mod report;
mod svg;

use std::path::PathBuf;
use std::process::ExitCode;

use report::{Report, Table};
use svg::{Bar, Chart, Group};

/// Draws one chart from a report, if the report holds its tables.
type Draw = fn(&Report) -> Option<Chart>;

/// `--out`, `--check`, and the reports.
struct Options {
    out: PathBuf,
    check: bool,
    reports: Vec<PathBuf>,
}

fn options() -> Result<Options, String> {
    let mut out = None;
    let mut check = false;
    let mut reports = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = Some(PathBuf::from(args.next().ok_or("--out needs a directory")?)),
            "--check" => check = true,
            _ => reports.push(PathBuf::from(arg)),
        }
    }
    if reports.is_empty() {
        return Err("usage: charts --out DIR [--check] REPORT.md...".to_owned());
    }
    Ok(Options {
        out: out.ok_or("--out DIR is required")?,
        check,
        reports,
    })
}

/// A cell's name from its table heading: `pipelined, 16 B text, 30000 requests` → `pipelined,
/// 16 B`.
fn cell(heading: &str) -> String {
    heading
        .split(", ")
        .filter(|part| !part.ends_with(" requests"))
        .map(|part| part.trim_end_matches(" text"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Server CPU per request ÷ the reference row's (the one whose ratio column is `1.00–1.00×`),
/// with the within-repetition ratio range as the whisker.
fn cpu_group(table: &Table) -> Option<Group> {
    let cpu = table.column(|c| c == "server CPU / req")?;
    let ratio = table.column(|c| c.starts_with("CPU") && c.contains("÷ rmcp"))?;
    let transport = if table.header[ratio].contains("stdio") {
        "stdio"
    } else {
        "HTTP"
    };
    let reference = table
        .rows
        .iter()
        .find(|row| row.get(ratio).map(String::as_str) == Some("1.00–1.00×"))?;
    let reference_cpu = report::figure(reference.get(cpu)?)?.median;
    let bars = table
        .rows
        .iter()
        .filter(|row| !row[0].contains("baseline"))
        .filter_map(|row| {
            let median = report::figure(row.get(cpu)?)?.median;
            Some(Bar {
                series: row[0].clone(),
                value: median / reference_cpu,
                range: report::ratio(row.get(ratio)?),
            })
        })
        .collect();
    Some(Group {
        label: format!(
            "{transport} {} (rmcp: {})",
            cell(&table.heading),
            reference[0]
        ),
        bars,
    })
}

fn cpu_chart(report: &Report) -> Option<Chart> {
    let groups: Vec<Group> = report.tables.iter().filter_map(cpu_group).collect();
    (!groups.is_empty()).then(|| Chart {
        title: "Server CPU per request, ÷ rmcp's (lower is better)".to_owned(),
        subtitle: format!(
            "{}: bar = median ÷ rmcp's median, whisker = ratio range over the repetitions",
            report.run
        ),
        axis: "server CPU per request ÷ rmcp's".to_owned(),
        unit: "×",
        groups,
        lines: vec![(0.5, "target 0.5×".to_owned()), (1.0, "rmcp".to_owned())],
        max: 1.5,
    })
}

fn stalled_chart(report: &Report) -> Option<Chart> {
    let table = report.tables.iter().rev().find(|table| {
        table.heading.contains("stops reading") && table.column(|c| c == "start").is_some()
    })?;
    let start = table.column(|c| c == "start")?;
    let rss = table.column(|c| c == "peak RSS")?;
    let mut groups: Vec<Group> = Vec::new();
    for row in table.rows.iter().filter(|row| !row[0].contains("baseline")) {
        let Some(value) = row.get(rss).and_then(|cell| report::single(cell)) else {
            continue;
        };
        let bar = Bar {
            series: row.get(start)?.clone(),
            value,
            range: None,
        };
        match groups.iter_mut().find(|group| group.label == row[0]) {
            Some(group) => group.bars.push(bar),
            None => groups.push(Group {
                label: row[0].clone(),
                bars: vec![bar],
            }),
        }
    }
    let max = groups
        .iter()
        .flat_map(|group| &group.bars)
        .map(|bar| bar.value)
        .fold(40.0, f64::max);
    Some(Chart {
        title: "Peak RSS with a client that stops reading (1 MB results, 200 requests)".to_owned(),
        subtitle: format!(
            "{}: typed-mcp over stdio, every answer delivered once",
            report.run
        ),
        axis: "peak RSS (MB)".to_owned(),
        unit: " MB",
        groups,
        lines: vec![(33.55, "target 32 MiB".to_owned())],
        max: (max / 20.0).ceil() * 20.0,
    })
}

fn validators_chart(report: &Report) -> Option<Chart> {
    let table = report
        .tables
        .iter()
        .rev()
        .find(|table| table.column(|c| c == "ours").is_some())?;
    let columns = [
        ("typed-mcp (generated)", table.column(|c| c == "ours")?),
        (
            "jsonschema, all errors",
            table.column(|c| c == "jsonschema all errors")?,
        ),
        (
            "jsonschema, is_valid",
            table.column(|c| c == "jsonschema is_valid")?,
        ),
    ];
    let mut max: f64 = 0.0;
    let groups = table
        .rows
        .iter()
        .map(|row| Group {
            label: row[0].clone(),
            bars: columns
                .iter()
                .filter_map(|(name, column)| {
                    // Times come back in µs; this chart is in ns.
                    let figure = report::figure(row.get(*column)?)?;
                    max = max.max(figure.range.1 * 1e3);
                    Some(Bar {
                        series: (*name).to_owned(),
                        value: figure.median * 1e3,
                        range: Some((figure.range.0 * 1e3, figure.range.1 * 1e3)),
                    })
                })
                .collect(),
        })
        .collect();
    Some(Chart {
        title: "Time per validation, generated validators against jsonschema (lower is better)"
            .to_owned(),
        subtitle: format!(
            "{}: median, whisker = min–max over the repetitions; \"all errors\" is like for like",
            report.run
        ),
        axis: "ns per validation".to_owned(),
        unit: " ns",
        groups,
        lines: Vec::new(),
        max: (max / 100.0).ceil() * 100.0,
    })
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let mut reports = Vec::new();
    for path in &options.reports {
        match std::fs::read_to_string(path) {
            Ok(text) => reports.push(report::parse(&text)),
            Err(error) => {
                eprintln!("reading {}: {error}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    let draw: [(&str, Draw); 3] = [
        ("cpu_per_request.svg", cpu_chart),
        ("stalled_client_rss.svg", stalled_chart),
        ("validators.svg", validators_chart),
    ];
    let mut failed = false;
    for (name, chart) in draw {
        let Some(chart) = reports.iter().rev().find_map(chart) else {
            eprintln!("{name}: no report holds its tables; not drawn");
            continue;
        };
        let svg = svg::render(&chart);
        let path = options.out.join(name);
        if options.check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(svg.as_str()) {
                eprintln!(
                    "{} is not what the reports draw: run without --check",
                    path.display()
                );
                failed = true;
            }
        } else if let Err(error) = std::fs::write(&path, svg) {
            eprintln!("writing {}: {error}", path.display());
            failed = true;
        } else {
            eprintln!("wrote {}", path.display());
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
