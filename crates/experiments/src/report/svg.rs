//! A minimal SVG line plot (no dependencies): enough for the reports'
//! figures — several named series, linear x, linear or log₁₀ y, axis ticks
//! at round values (1–2–5 steps; decades labelled 10⁻¹ … 10² on a log axis),
//! and the paper's values drawn as hollow markers in the colour of the line
//! they belong to.

use std::fmt::Write as _;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    /// Our measurements: a line, in its own colour.
    Line,
    /// The paper's values for the line at this index of the series list:
    /// hollow circles in that line's colour, no line.
    Paper {
        /// Index of our series these values belong to.
        of: usize,
    },
}

/// One named series of `(x, y)` points.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Series {
    /// Legend name.
    pub name: String,
    /// Points, in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Line or the paper's markers.
    pub kind: Kind,
}

impl Series {
    /// Our measurements, drawn as a line.
    pub fn line(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
            kind: Kind::Line,
        }
    }

    /// The paper's values for series `of`, drawn as hollow markers.
    pub fn paper(name: impl Into<String>, points: Vec<(f64, f64)>, of: usize) -> Self {
        Self {
            name: name.into(),
            points,
            kind: Kind::Paper { of },
        }
    }
}

const COLORS: [&str; 6] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

/// Round tick values covering `[lo, hi]`: a step of 1, 2 or 5 × 10^k chosen
/// so that there are at most `max_ticks` intervals, and the ticks from the
/// last multiple of the step at or below `lo` to the first at or above `hi`.
/// Returns the ticks and the step.
pub fn nice_ticks(lo: f64, hi: f64, max_ticks: usize) -> (Vec<f64>, f64) {
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5, lo + 0.5) };
    let max_ticks = max_ticks.max(1) as f64;
    let raw = (hi - lo) / max_ticks;
    let mag = 10f64.powf(raw.log10().floor());
    // The range can need one more interval than `raw` suggests once it is
    // widened to multiples of the step, hence the next decade's steps too.
    let step = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        .iter()
        .map(|m| m * mag)
        .find(|&s| ((hi / s).ceil() - (lo / s).floor()) <= max_ticks)
        .unwrap_or(100.0 * mag);
    let (first, last) = ((lo / step).floor() as i64, (hi / step).ceil() as i64);
    // k · step, rounded to the step's decimals so that 0.1 · 3 prints as 0.3.
    let ticks = (first..=last).map(|k| round_to_step(k as f64 * step, step)).collect();
    (ticks, step)
}

/// `v` rounded to the decimals of `step` (removes 0.30000000000000004).
fn round_to_step(v: f64, step: f64) -> f64 {
    let d = decimals(step) as i32;
    let f = 10f64.powi(d);
    (v * f).round() / f
}

/// Decimals needed to print multiples of `step` exactly.
fn decimals(step: f64) -> usize {
    (-step.log10().floor()).max(0.0) as usize
}

/// A tick label with the step's decimals (`97.5`, `2000`, `0.02`).
fn tick_label(v: f64, step: f64) -> String {
    let d = decimals(step);
    let s = format!("{v:.d$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// `10` with the exponent in superscript digits (`10⁻³`).
pub fn power_of_ten_label(e: i64) -> String {
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::from("10");
    if e < 0 {
        s.push('⁻');
    }
    for c in e.unsigned_abs().to_string().chars() {
        s.push(SUP[c.to_digit(10).unwrap_or(0) as usize]);
    }
    s
}

/// Render a line plot. With `log_y`, non-positive values are skipped.
pub fn line_plot(title: &str, x_label: &str, y_label: &str, series: &[Series], log_y: bool) -> String {
    let (w, h, left, right, top, bottom) = (720.0, 440.0, 80.0, 170.0, 40.0, 50.0);
    let ty = |y: f64| if log_y { y.log10() } else { y };
    let keep = |&(x, y): &(f64, f64)| x.is_finite() && y.is_finite() && (!log_y || y > 0.0);
    let pts: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(keep)
        .map(|(x, y)| (x, ty(y)))
        .collect();
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="14">{}</text>"#,
        w / 2.0,
        escape(title)
    );
    if pts.is_empty() {
        let _ = writeln!(svg, "</svg>");
        return svg;
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in &pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let (x_ticks, x_step) = nice_ticks(x0, x1, 6);
    let (x0, x1) = (x_ticks[0], x_ticks[x_ticks.len() - 1]);
    // Log axis: whole decades; linear: round ticks.
    let y_ticks: Vec<(f64, String)> = if log_y {
        let (lo, hi) = (y0.floor() as i64, (y1.ceil() as i64).max(y0.floor() as i64 + 1));
        let every = ((hi - lo) as usize).div_ceil(8).max(1);
        (lo..=hi)
            .map(|e| {
                let label = if ((e - lo) as usize).is_multiple_of(every) {
                    power_of_ten_label(e)
                } else {
                    String::new()
                };
                (e as f64, label)
            })
            .collect()
    } else {
        let (t, step) = nice_ticks(y0, y1, 6);
        t.into_iter().map(|v| (v, tick_label(v, step))).collect()
    };
    let (y0, y1) = (y_ticks[0].0, y_ticks[y_ticks.len() - 1].0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let sx = |x: f64| left + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| top + ph - (y - y0) / (y1 - y0) * ph;
    let _ = writeln!(
        svg,
        r#"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
    );
    for &fx in &x_ticks {
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            sx(fx),
            top + ph + 16.0,
            tick_label(fx, x_step)
        );
    }
    for (fy, label) in &y_ticks {
        let _ = writeln!(
            svg,
            r##"<line x1="{left}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#ddd"/>"##,
            left + pw,
            sy(*fy),
            sy(*fy)
        );
        if !label.is_empty() {
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{label}</text>"#,
                left - 6.0,
                sy(*fy) + 4.0
            );
        }
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        left + pw / 2.0,
        h - 12.0,
        escape(x_label)
    );
    let _ = writeln!(
        svg,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">{}</text>"#,
        top + ph / 2.0,
        top + ph / 2.0,
        escape(y_label)
    );
    for (k, s) in series.iter().enumerate() {
        let visible = s.points.iter().filter(|p| keep(p)).map(|&(x, y)| (sx(x), sy(ty(y))));
        let ly = top + 14.0 + 18.0 * k as f64;
        let (lx0, lx1) = (left + pw + 10.0, left + pw + 30.0);
        match s.kind {
            Kind::Line => {
                let color = COLORS[k % COLORS.len()];
                let path: Vec<String> = visible.map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
                let _ = writeln!(
                    svg,
                    r#"<polyline fill="none" stroke="{color}" stroke-width="1.5" points="{}"/>"#,
                    path.join(" ")
                );
                let _ = writeln!(
                    svg,
                    r#"<line x1="{lx0:.1}" x2="{lx1:.1}" y1="{ly:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2"/>"#
                );
            }
            Kind::Paper { of } => {
                let color = COLORS[of % COLORS.len()];
                for (x, y) in visible {
                    let _ = writeln!(
                        svg,
                        r#"<circle cx="{x:.1}" cy="{y:.1}" r="4" fill="none" stroke="{color}" stroke-width="1.5"/>"#
                    );
                }
                let _ = writeln!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{ly:.1}" r="4" fill="none" stroke="{color}" stroke-width="1.5"/>"#,
                    (lx0 + lx1) / 2.0
                );
            }
        }
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            left + pw + 36.0,
            ly + 4.0,
            escape(&s.name)
        );
    }
    let _ = writeln!(svg, "</svg>");
    svg
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_is_well_formed_and_skips_non_positive_values_on_log_axes() {
        let s = vec![
            Series::line("a<b", vec![(1.0, 1e-3), (2.0, 1e-1), (3.0, 0.0)]),
            Series::line("c", vec![(1.0, 2e-2), (3.0, 5e-2)]),
            Series::paper("paper: c", vec![(1.0, 3e-2), (3.0, -1.0)], 1),
        ];
        let svg = line_plot("t", "x", "y", &s, true);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("a&lt;b"));
        assert!(svg.contains(">10⁻³<") && svg.contains(">10⁻¹<") && svg.contains(">10⁻²<"));
        // The zero was skipped: the first polyline has two points.
        let first = svg.lines().find(|l| l.starts_with("<polyline")).unwrap();
        assert_eq!(first.matches(',').count(), 2);
        // One paper marker (the negative value is skipped) plus its legend,
        // in the colour of series 1.
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(svg.contains(r##"stroke="#d62728" stroke-width="1.5"/>"##));
    }

    /// The axes the reports had (98.056, 97.292 and 102.4, 201.8 as
    /// labels) now get round 1–2–5 ticks covering the data.
    #[test]
    fn ticks_are_round_and_cover_the_data() {
        let (t, step) = nice_ticks(94.18, 98.87, 6);
        assert_eq!(step, 1.0);
        assert_eq!(t, [94.0, 95.0, 96.0, 97.0, 98.0, 99.0]);
        let (t, step) = nice_ticks(3.0, 500.0, 6);
        assert_eq!(step, 100.0);
        assert_eq!(t, [0.0, 100.0, 200.0, 300.0, 400.0, 500.0]);
        let (t, step) = nice_ticks(-30.0, -5.0, 6);
        assert_eq!(step, 5.0);
        assert_eq!(t, [-30.0, -25.0, -20.0, -15.0, -10.0, -5.0]);
        let (t, step) = nice_ticks(260.0, 1934.0, 6);
        assert_eq!(step, 500.0);
        assert_eq!(t, [0.0, 500.0, 1000.0, 1500.0, 2000.0]);
        let (t, step) = nice_ticks(0.013, 0.071, 6);
        assert_eq!(step, 0.02);
        assert_eq!(t, [0.0, 0.02, 0.04, 0.06, 0.08]);
        assert_eq!(tick_label(0.06, step), "0.06");
        // A single value gets a unit-wide axis around it.
        let (t, _) = nice_ticks(97.0, 97.0, 6);
        assert!(t[0] <= 97.0 && *t.last().unwrap() >= 97.0 && t.len() >= 2);
        // Every step is 1, 2 or 5 times a power of ten, and at most 6 intervals.
        for (lo, hi) in [(0.0, 1.0), (1.0, 7.0), (-3.3, 12.9), (1e-4, 3e-4), (97.29, 98.06)] {
            let (t, step) = nice_ticks(lo, hi, 6);
            let m = step / 10f64.powf(step.log10().floor());
            assert!(
                [1.0, 2.0, 5.0].iter().any(|r| (m - r).abs() < 1e-9),
                "{lo}..{hi}: step {step}"
            );
            assert!(
                t.len() - 1 <= 6 && t[0] <= lo && *t.last().unwrap() >= hi,
                "{lo}..{hi}: {t:?}"
            );
        }
    }

    #[test]
    fn powers_of_ten_in_superscript() {
        assert_eq!(power_of_ten_label(-1), "10⁻¹");
        assert_eq!(power_of_ten_label(2), "10²");
        assert_eq!(power_of_ten_label(-16), "10⁻¹⁶");
        assert_eq!(power_of_ten_label(0), "10⁰");
    }
}
