//! A minimal SVG line plot (no dependencies): enough for the reports'
//! figures — several named series, linear x, linear or log₁₀ y.

use std::fmt::Write as _;

/// One named series of `(x, y)` points.
pub struct Series {
    /// Legend name.
    pub name: String,
    /// Points, in drawing order.
    pub points: Vec<(f64, f64)>,
}

const COLORS: [&str; 6] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

/// Render a line plot. With `log_y`, non-positive values are skipped.
pub fn line_plot(title: &str, x_label: &str, y_label: &str, series: &[Series], log_y: bool) -> String {
    let (w, h, left, right, top, bottom) = (720.0, 440.0, 80.0, 170.0, 40.0, 50.0);
    let ty = |y: f64| if log_y { y.log10() } else { y };
    let pts: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|&(x, y)| x.is_finite() && y.is_finite() && (!log_y || y > 0.0))
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
    if log_y {
        y0 = y0.floor();
        y1 = y1.ceil();
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let (pw, ph) = (w - left - right, h - top - bottom);
    let sx = |x: f64| left + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| top + ph - (y - y0) / (y1 - y0) * ph;
    let _ = writeln!(
        svg,
        r#"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
    );
    for i in 0..=5 {
        let fx = x0 + (x1 - x0) * i as f64 / 5.0;
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            sx(fx),
            top + ph + 16.0,
            fmt_num(fx)
        );
    }
    let ticks: Vec<f64> = if log_y {
        (y0 as i64..=y1 as i64).map(|e| e as f64).collect()
    } else {
        (0..=5).map(|i| y0 + (y1 - y0) * i as f64 / 5.0).collect()
    };
    for fy in ticks {
        let label = if log_y { format!("1e{}", fy as i64) } else { fmt_num(fy) };
        let _ = writeln!(
            svg,
            r##"<line x1="{left}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#ddd"/>"##,
            left + pw,
            sy(fy),
            sy(fy)
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{label}</text>"#,
            left - 6.0,
            sy(fy) + 4.0
        );
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
        let color = COLORS[k % COLORS.len()];
        let path: Vec<String> = s
            .points
            .iter()
            .filter(|&&(x, y)| x.is_finite() && y.is_finite() && (!log_y || y > 0.0))
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(ty(y))))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{color}" stroke-width="1.5" points="{}"/>"#,
            path.join(" ")
        );
        let ly = top + 14.0 + 18.0 * k as f64;
        let _ = writeln!(
            svg,
            r#"<line x1="{:.1}" x2="{:.1}" y1="{ly:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2"/>"#,
            left + pw + 10.0,
            left + pw + 30.0
        );
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

fn fmt_num(v: f64) -> String {
    if v != 0.0 && (v.abs() >= 1e4 || v.abs() < 1e-2) {
        format!("{v:.1e}")
    } else {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
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
            Series {
                name: "a<b".into(),
                points: vec![(1.0, 1e-3), (2.0, 1e-1), (3.0, 0.0)],
            },
            Series {
                name: "c".into(),
                points: vec![(1.0, 2e-2), (3.0, 5e-2)],
            },
        ];
        let svg = line_plot("t", "x", "y", &s, true);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("a&lt;b"));
        assert!(svg.contains(">1e-3<") && svg.contains(">1e-1<"));
        // The zero was skipped: the first polyline has two points.
        let first = svg.lines().find(|l| l.starts_with("<polyline")).unwrap();
        assert_eq!(first.matches(',').count(), 2);
    }
}
