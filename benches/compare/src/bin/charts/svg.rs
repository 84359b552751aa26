//! A horizontal bar chart as plain SVG: groups of bars, each bar with an optional min–max
//! whisker, vertical reference lines, a linear axis. No fonts are read: the text is left to the
//! viewer, so the output is the same on every machine (and can be compared in CI).

/// One bar.
#[derive(Debug)]
pub(crate) struct Bar {
    /// The series, written left of the bar; its colour follows the series.
    pub(crate) series: String,
    /// The bar's length, in the axis unit.
    pub(crate) value: f64,
    /// A whisker from `.0` to `.1`, in the axis unit.
    pub(crate) range: Option<(f64, f64)>,
}

/// Bars drawn together under one label.
#[derive(Debug)]
pub(crate) struct Group {
    /// The group's label, written above its bars.
    pub(crate) label: String,
    /// Its bars, top to bottom.
    pub(crate) bars: Vec<Bar>,
}

/// A chart.
#[derive(Debug)]
pub(crate) struct Chart {
    /// The first line of the title.
    pub(crate) title: String,
    /// The second line: the run and how to read the chart.
    pub(crate) subtitle: String,
    /// The axis label, with its unit.
    pub(crate) axis: String,
    /// How a value is written at the end of its bar.
    pub(crate) unit: &'static str,
    /// The groups, top to bottom.
    pub(crate) groups: Vec<Group>,
    /// Vertical lines across the chart: where, and their label.
    pub(crate) lines: Vec<(f64, String)>,
    /// The axis's end; bars and whiskers beyond it are cut, with their value written.
    pub(crate) max: f64,
}

const WIDTH: f64 = 900.0;
const LEFT: f64 = 250.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 70.0;
const BAR: f64 = 14.0;
const BAR_GAP: f64 = 4.0;
const GROUP_LABEL: f64 = 20.0;
const GROUP_GAP: f64 = 12.0;
/// A bar's colour from its series: typed-mcp blue, rmcp and jsonschema orange, the floors
/// green; a series' variants (`rmcp-stdio`, `floor-structured`, ..) in a lighter shade.
fn colour(series: &str) -> &'static str {
    match series {
        s if s.starts_with("typed-mcp") => "#1f6fb2",
        "rmcp" | "rmcp-pipes" | "jsonschema, all errors" => "#e07b24",
        s if s.starts_with("rmcp") || s.starts_with("jsonschema") => "#f3b47e",
        "floor" => "#3a9a4f",
        s if s.contains("floor") => "#93c9a0",
        "warm" => "#1f6fb2",
        "cold" => "#7fb0dc",
        _ => "#8f8f8f",
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A round step giving about five ticks up to `max`.
fn tick_step(max: f64) -> f64 {
    let rough = max / 5.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|step| *step >= rough)
        .unwrap_or(rough)
}

fn number(value: f64) -> String {
    let text = if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    };
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

fn line(svg: &mut String, text: String) {
    svg.push_str(&text);
    svg.push('\n');
}

/// Draws `chart` as an SVG document.
pub(crate) fn render(chart: &Chart) -> String {
    let plot = WIDTH - LEFT - RIGHT;
    let x = |value: f64| LEFT + plot * (value.clamp(0.0, chart.max) / chart.max);
    let bars: usize = chart.groups.iter().map(|group| group.bars.len()).sum();
    let body =
        chart.groups.len() as f64 * (GROUP_LABEL + GROUP_GAP) + bars as f64 * (BAR + BAR_GAP);
    let bottom = TOP + body;
    let height = bottom + 50.0;

    let mut svg = String::new();
    line(
        &mut svg,
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
        ),
    );
    line(
        &mut svg,
        format!(r#"<rect width="{WIDTH}" height="{height}" fill="white"/>"#),
    );
    line(
        &mut svg,
        format!(
            r#"<text x="20" y="24" font-size="16" font-weight="bold">{}</text>"#,
            escape(&chart.title)
        ),
    );
    line(
        &mut svg,
        format!(
            r##"<text x="20" y="44" fill="#444">{}</text>"##,
            escape(&chart.subtitle)
        ),
    );

    // Grid and ticks.
    let step = tick_step(chart.max);
    let mut tick = 0.0;
    while tick <= chart.max + step * 1e-9 {
        let at = x(tick);
        line(
            &mut svg,
            format!(
                r##"<line x1="{at:.1}" y1="{TOP}" x2="{at:.1}" y2="{bottom}" stroke="#e4e4e4"/>"##
            ),
        );
        line(
            &mut svg,
            format!(
                r#"<text x="{at:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                bottom + 16.0,
                number(tick)
            ),
        );
        tick += step;
    }
    line(
        &mut svg,
        format!(
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + plot / 2.0,
            bottom + 36.0,
            escape(&chart.axis)
        ),
    );

    // Groups and bars.
    let mut y = TOP;
    for group in &chart.groups {
        y += GROUP_LABEL;
        line(
            &mut svg,
            format!(
                r#"<text x="20" y="{:.1}" font-weight="bold">{}</text>"#,
                y - 6.0,
                escape(&group.label)
            ),
        );
        for bar in &group.bars {
            let end = x(bar.value);
            line(
                &mut svg,
                format!(
                    r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                    LEFT - 6.0,
                    y + BAR - 3.0,
                    escape(&bar.series)
                ),
            );
            line(
                &mut svg,
                format!(
                    r#"<rect x="{LEFT}" y="{y:.1}" width="{:.1}" height="{BAR}" fill="{}"/>"#,
                    (end - LEFT).max(0.5),
                    colour(&bar.series)
                ),
            );
            let mut label_at = end;
            if let Some((low, high)) = bar.range {
                let middle = y + BAR / 2.0;
                let (from, to) = (x(low), x(high));
                line(
                    &mut svg,
                    format!(
                        r#"<path d="M{from:.1} {middle:.1}H{to:.1}M{from:.1} {:.1}V{:.1}M{to:.1} {:.1}V{:.1}" stroke="black" fill="none"/>"#,
                        y + 2.0,
                        y + BAR - 2.0,
                        y + 2.0,
                        y + BAR - 2.0
                    ),
                );
                label_at = label_at.max(to);
            }
            let cut = bar.value > chart.max || bar.range.is_some_and(|(_, high)| high > chart.max);
            let text = match bar.range {
                Some((low, high)) if cut => {
                    format!(
                        "{}{} ({}–{}) →",
                        number(bar.value),
                        chart.unit,
                        number(low),
                        number(high)
                    )
                }
                _ => format!("{}{}", number(bar.value), chart.unit),
            };
            line(
                &mut svg,
                format!(
                    r##"<text x="{:.1}" y="{:.1}" fill="#222">{}</text>"##,
                    label_at + 5.0,
                    y + BAR - 3.0,
                    escape(&text)
                ),
            );
            y += BAR + BAR_GAP;
        }
        y += GROUP_GAP;
    }

    // Reference lines, over the bars.
    for (value, label) in &chart.lines {
        let at = x(*value);
        line(
            &mut svg,
            format!(
                r##"<line x1="{at:.1}" y1="{:.1}" x2="{at:.1}" y2="{bottom}" stroke="#b5443b" stroke-dasharray="5 3"/>"##,
                TOP - 6.0
            ),
        );
        line(
            &mut svg,
            format!(
                r##"<text x="{at:.1}" y="{:.1}" text-anchor="middle" fill="#b5443b">{}</text>"##,
                TOP - 10.0,
                escape(label)
            ),
        );
    }
    svg.push_str("</svg>\n");
    svg
}
