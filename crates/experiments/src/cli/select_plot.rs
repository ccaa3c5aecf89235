//! `--plot FILE` of `nn fit`'s selections (`select.rs`): the score
//! against log₁₀ λ (one line per scale and size), against the scale (one λ,
//! several scales: one line per size), or against the size (growth).

use models::select::CurvePoint;

use crate::report::svg::{line_plot, Series};

/// The distinct values of `key` over the curve, in increasing order.
fn distinct(curve: &[CurvePoint], key: impl Fn(&CurvePoint) -> f64) -> Vec<f64> {
    let mut v: Vec<f64> = curve.iter().map(key).collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// A point's scale, NaN where none was recorded (growth).
fn scale_of(p: &CurvePoint) -> f64 {
    p.scale.unwrap_or(f64::NAN)
}

/// The SVG of a selection's `curve`, titled `title`, its scores by
/// `criterion`; `lambda` names the growth curve's one λ.
pub(crate) fn plot(curve: &[CurvePoint], title: &str, criterion: &str, lambda: f64) -> String {
    let sizes = distinct(curve, |p| p.nodes as f64);
    let lambdas = distinct(curve, |p| p.lambda);
    let scales: Vec<f64> = distinct(curve, scale_of).into_iter().filter(|s| !s.is_nan()).collect();
    let finite = |p: &&CurvePoint| p.score.is_finite();
    let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
    if lambdas.len() > 1 {
        let mut series = Vec::new();
        let scale_keys: Vec<f64> = if scales.len() > 1 {
            scales.clone()
        } else {
            vec![f64::NAN]
        };
        for &s in &scale_keys {
            for &n in &sizes {
                let points = curve
                    .iter()
                    .filter(|p| p.nodes as f64 == n && (scales.len() <= 1 || same(scale_of(p), s)))
                    .filter(finite)
                    .map(|p| (p.lambda.log10(), p.score))
                    .collect();
                let name = if scales.len() > 1 {
                    format!("s = {s:.3e}, {n} nodes")
                } else {
                    format!("{n} nodes")
                };
                series.push(Series::line(name, points));
            }
        }
        line_plot(title, "log10 λ", criterion, &series, false)
    } else if scales.len() > 1 {
        let series: Vec<Series> = sizes
            .iter()
            .map(|&n| {
                let points = curve
                    .iter()
                    .filter(|p| p.nodes as f64 == n)
                    .filter(finite)
                    .map(|p| (scale_of(p).log10(), p.score))
                    .collect();
                Series::line(format!("{n} nodes"), points)
            })
            .collect();
        line_plot(title, "log10 scale", criterion, &series, false)
    } else {
        let points = curve.iter().filter(finite).map(|p| (p.nodes as f64, p.score)).collect();
        line_plot(
            title,
            "hidden nodes",
            criterion,
            &[Series::line(format!("λ = {:e}", lambda), points)],
            false,
        )
    }
}
