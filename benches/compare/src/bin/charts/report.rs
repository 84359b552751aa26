//! Reads the bench's Markdown report back: its tables, the heading above each, and the run's
//! date and commit; figures such as `2.4 µs (2.4 µs–2.5 µs)` and ratios such as `0.22–0.23×`.

/// One Markdown table of the report.
#[derive(Debug)]
pub(crate) struct Table {
    /// The text of the last heading above the table, without its `#`s.
    pub(crate) heading: String,
    /// The header cells.
    pub(crate) header: Vec<String>,
    /// The body rows, cell by cell.
    pub(crate) rows: Vec<Vec<String>>,
}

impl Table {
    /// The index of the first column whose header satisfies `wanted`.
    pub(crate) fn column(&self, wanted: impl Fn(&str) -> bool) -> Option<usize> {
        self.header.iter().position(|cell| wanted(cell))
    }
}

/// A report: which run it is, and its tables.
#[derive(Debug)]
pub(crate) struct Report {
    /// `commit, date` from the report's `- commit:` and `- date:` lines (what is present).
    pub(crate) run: String,
    /// Every table, in order.
    pub(crate) tables: Vec<Table>,
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner
        .split('|')
        .map(|cell| cell.trim().to_owned())
        .collect()
}

/// Splits `text` (a report as the bench prints it) into its tables.
pub(crate) fn parse(text: &str) -> Report {
    let mut heading = String::new();
    let mut tables: Vec<Table> = Vec::new();
    let mut in_table = false;
    let (mut date, mut commit) = (None, None);
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix("- date: ") {
            date = Some(rest.to_owned());
        } else if let Some(rest) = trimmed.strip_prefix("- commit: ") {
            commit = Some(rest.to_owned());
        }
        if trimmed.starts_with('#') {
            heading = trimmed.trim_start_matches('#').trim().to_owned();
        }
        if !trimmed.starts_with('|') {
            in_table = false;
            continue;
        }
        let row = cells(trimmed);
        if !in_table {
            tables.push(Table {
                heading: heading.clone(),
                header: row,
                rows: Vec::new(),
            });
            in_table = true;
        } else if !row
            .iter()
            .all(|cell| cell.chars().all(|c| c == '-' || c == ':'))
        {
            if let Some(table) = tables.last_mut() {
                table.rows.push(row);
            }
        }
    }
    let run = [commit, date]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ");
    Report { run, tables }
}

/// A quantity with its unit, in the unit's base (`s` as µs, `B` as MB): `839.6 ms` → 839600.
fn quantity(text: &str) -> Option<f64> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let number: f64 = text[..split].parse().ok()?;
    let scale = match text[split..].trim() {
        "ns" => 1e-3,
        "µs" | "us" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        "kB" | "KB" => 1e-3,
        "MB" => 1.0,
        "GB" => 1e3,
        _ => return None,
    };
    Some(number * scale)
}

/// A figure printed as `median (min–max)`, each with its unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Figure {
    /// The median.
    pub(crate) median: f64,
    /// The lowest and highest repetition.
    pub(crate) range: (f64, f64),
}

/// Reads `2.4 µs (2.4 µs–2.5 µs)`; times come back in µs, sizes in MB.
pub(crate) fn figure(text: &str) -> Option<Figure> {
    let (median, rest) = text.split_once('(')?;
    let (low, high) = rest.trim_end_matches(')').split_once('–')?;
    Some(Figure {
        median: quantity(median)?,
        range: (quantity(low)?, quantity(high)?),
    })
}

/// Reads a ratio range `0.22–0.23×` (anything after the `×` is ignored).
pub(crate) fn ratio(text: &str) -> Option<(f64, f64)> {
    let (range, _) = text.split_once('×')?;
    let (low, high) = range.split_once('–')?;
    Some((low.trim().parse().ok()?, high.trim().parse().ok()?))
}

/// Reads a single quantity such as `18.2 MB`.
pub(crate) fn single(text: &str) -> Option<f64> {
    quantity(text)
}
