//! λ and size selection ([`models::select::lambda`]) against brute force:
//! leave-one-out by K refits, k-fold and validation by refits on each
//! part's training rows (Gaussian elimination on plain-loop normal
//! equations), for the ELM and the BLS, regression and classification; the
//! candidate chosen is the brute-force argmin and the model returned
//! predicts as the ridge fit of that candidate on all rows.

mod common;

use common::*;
use models::prelude::*;
use models::select::folds::Folds;
use models::select::lambda::{Method, SelectOptions, Selected};
use models::select::{Criterion, CurvePoint};
use models::{Activation, Bls, BlsParams, Elm, ElmParams, LinearReadout, ModelError};
use ndarray::{Array2, ArrayView2, Axis, Slice};

/// Regression data: K samples of 3 inputs, 2 smooth targets.
fn regression(seed: u64, k: usize) -> (Array2<f64>, Array2<f64>) {
    let mut r = rng(seed);
    let x = r.uniform_matrix(k, 3, -1.0, 1.0);
    let noise = r.uniform_matrix(k, 2, -0.1, 0.1);
    let y = Array2::from_shape_fn((k, 2), |(i, c)| {
        let v = x.row(i);
        noise[[i, c]]
            + match c {
                0 => (2.0 * v[0] + v[1]).sin(),
                _ => v[1] * v[2] - 0.5 * v[0],
            }
    });
    (x, y)
}

/// Three classes from a noisy rule, one-hot.
fn classification(seed: u64, k: usize) -> (Array2<f64>, Array2<f64>) {
    let mut r = rng(seed);
    let x = r.uniform_matrix(k, 3, -1.0, 1.0);
    let noise = r.uniform_matrix(k, 1, -0.6, 0.6);
    let y = Array2::from_shape_fn((k, 3), |(i, c)| {
        let s = x[[i, 0]] + 0.7 * x[[i, 1]] * x[[i, 2]] + noise[[i, 0]];
        let class = if s < -0.3 {
            0
        } else if s < 0.4 {
            1
        } else {
            2
        };
        f64::from(class == c)
    });
    (x, y)
}

/// The ridge weights of `a`, `y` at λ by Gaussian elimination on the
/// normal equations formed by plain loops, and the bound on their distance
/// to the library's, whose sums were formed over `a_full`'s rows and
/// reduced by subtraction (the bound of `online_ridge.rs`'s forget:
/// `‖R⁻¹‖‖A_full‖²` in place of κ; `γ = (K + n)u`, 2 for the two
/// computations, 2 for the constants).
fn brute_ridge(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    a_full: ArrayView2<'_, f64>,
    lambda: f64,
) -> (Array2<f64>, f64) {
    let n = a.ncols();
    let mut g = at_b(a, a);
    for i in 0..n {
        g[[i, i]] += lambda;
    }
    let w = gauss_solve(g.view(), at_b(a, y).view());
    let (sp, full) = (spectrum(a), spectrum(a_full));
    let norm_rinv = 1.0 / (sp.sigma_min * sp.sigma_min + lambda);
    let gamma = (a_full.nrows() + n) as f64 * U;
    let bound = 2.0 * 2.0 * gamma * norm_rinv * (full.norm_a * full.norm_a * fro(w.view()) + full.norm_a * fro(y));
    (w, bound)
}

/// The score of predictions `p` against `t` and how far it may move when
/// every prediction moves by at most `dp` in Frobenius norm (MSE: by
/// `(2‖P − T‖dp + dp²)/(KM)`); for the classification error, `None` when a
/// sample's two largest predictions are within `2dp` (a tie the rounding
/// may break either way).
fn score_bound(criterion: Criterion, p: ArrayView2<'_, f64>, t: ArrayView2<'_, f64>, dp: f64) -> (f64, Option<f64>) {
    let score = criterion.score(p, t).expect("same shapes");
    match criterion {
        Criterion::MeanSquaredError => {
            let r = fro_diff(p, t);
            (score, Some((2.0 * r * dp + dp * dp) / (p.len() as f64)))
        }
        Criterion::ClassificationError => {
            let tie = p.rows().into_iter().any(|row| {
                let mut v = row.to_vec();
                v.sort_by(f64::total_cmp);
                v[v.len() - 1] - v[v.len() - 2] <= 2.0 * dp
            });
            (score, (!tie).then_some(0.0))
        }
    }
}

/// Brute-force curve of k-fold / validation: for every part, λ and size,
/// the refit on the part's training rows of the first `size` columns of
/// `a`, scored on its held-out rows; mean, sample spread, and the slack of
/// the mean (`None` if a tie made the comparison meaningless).
fn brute_curve(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    folds: &Folds,
    lambdas: &[f64],
    sizes: &[usize],
    criterion: Criterion,
) -> Vec<(CurvePoint, Option<f64>)> {
    let mut out = Vec::new();
    for &lambda in lambdas {
        for &size in sizes {
            let cols = a.slice_axis(Axis(1), Slice::from(..size));
            let mut scores = Vec::new();
            let mut slack = Some(0.0);
            for f in 0..folds.len() {
                let (train, held) = (folds.training(f), folds.held_out(f));
                let (at, yt) = (cols.select(Axis(0), &train), y.select(Axis(0), &train));
                let (ah, yh) = (cols.select(Axis(0), held), y.select(Axis(0), held));
                let (w, dw) = brute_ridge(at.view(), yt.view(), cols, lambda);
                let p = a_b(ah.view(), w.view());
                let (s, b) = score_bound(criterion, p.view(), yh.view(), fro(ah.view()) * dw);
                scores.push(s);
                slack = slack.zip(b).map(|(x, y)| x + y);
            }
            let mean = scores.iter().sum::<f64>() / scores.len() as f64;
            let spread = if scores.len() > 1 {
                (scores.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (scores.len() - 1) as f64).sqrt()
            } else {
                0.0
            };
            out.push((
                CurvePoint {
                    lambda,
                    nodes: size,
                    scale: None,
                    score: mean,
                    spread,
                },
                slack.map(|s| s / scores.len() as f64 + 4.0 * U * mean.abs()),
            ));
        }
    }
    out
}

/// Brute-force leave-one-out curve: K refits per λ.
fn brute_loo(
    a: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    lambdas: &[f64],
    criterion: Criterion,
) -> Vec<(CurvePoint, Option<f64>)> {
    let k = a.nrows();
    lambdas
        .iter()
        .map(|&lambda| {
            let mut p = Array2::zeros(y.dim());
            let mut dp2 = 0.0;
            for i in 0..k {
                let keep: Vec<usize> = (0..k).filter(|&r| r != i).collect();
                let (w, dw) = brute_ridge(
                    a.select(Axis(0), &keep).view(),
                    y.select(Axis(0), &keep).view(),
                    a,
                    lambda,
                );
                let row = a.slice_axis(Axis(0), Slice::from(i..i + 1));
                p.row_mut(i).assign(&a_b(row, w.view()).row(0));
                // The library's LOO residual carries the leverage's error too:
                // bounded like linalg-core's loo_path test, here folded into a
                // factor 1/(1 − h) ≤ 1/(1 − h_max) on the prediction bound.
                dp2 += (fro(row) * dw).powi(2);
            }
            let (s, b) = score_bound(criterion, p.view(), y, dp2.sqrt() * 4.0);
            (
                CurvePoint {
                    lambda,
                    nodes: a.ncols(),
                    scale: None,
                    score: s,
                    spread: 0.0,
                },
                b,
            )
        })
        .collect()
}

/// The library's curve against the brute-force one, point by point, and
/// its choice against the brute-force argmin (unless two scores are
/// within their slacks: a tie).
fn compare(got: &Selected<impl LinearReadout>, want: &[(CurvePoint, Option<f64>)]) -> usize {
    assert_eq!(got.curve.len(), want.len());
    let mut compared = 0;
    for (g, (w, slack)) in got.curve.iter().zip(want) {
        assert_eq!((g.lambda, g.nodes), (w.lambda, w.nodes));
        if let Some(s) = slack {
            assert!(
                (g.score - w.score).abs() <= *s,
                "λ {} size {}: score {} vs brute force {} (slack {s:e})",
                g.lambda,
                g.nodes,
                g.score,
                w.score
            );
            assert!(
                (g.spread - w.spread).abs() <= 2.0 * s + 1e-15,
                "spread {} vs {}",
                g.spread,
                w.spread
            );
            compared += 1;
        }
    }
    let (ib, (wb, sb)) = want
        .iter()
        .enumerate()
        .min_by(|x, y| x.1 .0.score.total_cmp(&y.1 .0.score))
        .expect("non-empty");
    let tie = want.iter().enumerate().any(|(i, (w, s))| {
        i != ib && (w.score - wb.score).abs() <= s.unwrap_or(f64::INFINITY) + sb.unwrap_or(f64::INFINITY)
    });
    if !tie {
        assert_eq!((got.lambda, got.nodes), (wb.lambda, wb.nodes), "chosen candidate");
    }
    compared
}

fn options(method: Method, criterion: Criterion, sizes: Vec<usize>) -> SelectOptions {
    SelectOptions {
        method,
        lambdas: SelectOptions::log_grid(1e-6, 1.0, 5).expect("grid"),
        sizes,
        criterion,
        seed: 7,
    }
}

/// ELM: every method and criterion against brute force; the model returned
/// is the ELM drawn at the chosen size (bitwise the same hidden layer) with
/// the ridge weights of all rows at the chosen λ.
#[test]
fn elm_selection_equals_brute_force() -> Result<(), ModelError> {
    for (data, criterion) in [
        (regression(1, 60), Criterion::MeanSquaredError),
        (classification(2, 72), Criterion::ClassificationError),
    ] {
        let (x, y) = data;
        let d = Dataset::new(x.view(), y.view());
        let params = ElmParams::new(12, Activation::Sigmoid).with_seed(5);
        let a = params.fit(&d)?.hidden_outputs(x.view())?;
        let labels: Option<Vec<usize>> = (criterion == Criterion::ClassificationError).then(|| {
            y.rows()
                .into_iter()
                .map(|r| (0..3).fold(0, |b, c| if r[c] > r[b] { c } else { b }))
                .collect()
        });
        let mut compared = 0;
        for (method, sizes) in [
            (Method::LeaveOneOut, vec![]),
            (Method::KFold { k: 4 }, vec![4, 8, 12]),
            (Method::Validation { fraction: 0.25 }, vec![4, 8, 12]),
        ] {
            let opts = options(method, criterion, sizes.clone());
            let got = params.check_ref()?.select(&d, &opts)?;
            let want = match method {
                Method::LeaveOneOut => brute_loo(a.view(), y.view(), &opts.lambdas, criterion),
                Method::KFold { k } => {
                    let folds = Folds::k_fold(x.nrows(), k, 7, labels.as_deref())?;
                    brute_curve(a.view(), y.view(), &folds, &opts.lambdas, &sizes, criterion)
                }
                Method::Validation { fraction } => {
                    let folds = Folds::validation(x.nrows(), fraction, 7, labels.as_deref())?;
                    brute_curve(a.view(), y.view(), &folds, &opts.lambdas, &sizes, criterion)
                }
            };
            compared += compare(&got, &want);
            // The model: the ELM drawn at the chosen size, ridge on all rows.
            let fresh = params.with_nodes(got.nodes).with_lambda(got.lambda).fit(&d)?;
            assert_eq!(got.model.hidden(), fresh.hidden(), "{method}: hidden layer");
            let cols = a.slice_axis(Axis(1), Slice::from(..got.nodes));
            let (w, dw) = brute_ridge(cols, y.view(), cols, got.lambda);
            // LOO's weights come from the eigendecomposition (the same
            // first-order bound), k-fold's from the total sums.
            let diff = fro_diff(got.model.output_weights(), w.view());
            assert!(diff <= dw, "{method}: weights off by {diff:e} > {dw:e}");
            assert_eq!(got.method, method);
        }
        assert!(compared >= 8, "too few candidates compared: {compared}");
    }
    Ok(())
}

/// BLS: k-fold over λ and sizes (feature nodes + the first enhancement
/// nodes) and leave-one-out against brute force on the BLS's own `A`; the
/// model returned predicts as `A[:, :n]·W` with W the ridge fit of all rows.
#[test]
fn bls_selection_equals_brute_force() -> Result<(), ModelError> {
    let (x, y3) = bls_data(11, 70, 6);
    let y = y3.slice_axis(Axis(1), Slice::from(..2)).to_owned();
    let d = Dataset::new(x.view(), y.view());
    let params = BlsParams::new(2, 4, 10).with_seed(3).with_lambda(1e-3);
    let fitted: Bls = params.fit(&d)?;
    let a = fitted.hidden_outputs(x.view())?;
    let sizes = vec![9, 13, 18];
    for (method, sizes) in [(Method::LeaveOneOut, vec![]), (Method::KFold { k: 5 }, sizes.clone())] {
        let opts = options(method, Criterion::MeanSquaredError, sizes.clone());
        let got = params.check_ref()?.select(&d, &opts)?;
        let want = match method {
            Method::LeaveOneOut => brute_loo(a.view(), y.view(), &opts.lambdas, Criterion::MeanSquaredError),
            _ => {
                let folds = Folds::k_fold(x.nrows(), 5, 7, None)?;
                brute_curve(
                    a.view(),
                    y.view(),
                    &folds,
                    &opts.lambdas,
                    &sizes,
                    Criterion::MeanSquaredError,
                )
            }
        };
        assert_eq!(compare(&got, &want), want.len());
        let cols = a.slice_axis(Axis(1), Slice::from(..got.nodes));
        let (w, dw) = brute_ridge(cols, y.view(), cols, got.lambda);
        let p = got.model.predict(x.view())?;
        let dp = fro_diff(p.view(), a_b(cols, w.view()).view());
        let bound = fro(cols) * dw + 4.0 * (x.nrows() * got.nodes) as f64 * U * fro(p.view());
        assert!(dp <= bound, "{method}: predictions off by {dp:e} > {bound:e}");
        assert_eq!(got.model.nodes(), got.nodes);
    }
    Ok(())
}

/// The options' errors, each naming what is wrong.
#[test]
fn selection_errors() -> Result<(), ModelError> {
    let (x, y) = regression(3, 30);
    let d = Dataset::new(x.view(), y.view());
    let params = ElmParams::new(8, Activation::Sigmoid).check()?;
    let named = |r: Result<Selected<Elm>, ModelError>, want: &str| match r {
        Err(ModelError::InvalidParameter { name, .. }) => assert_eq!(name, want),
        other => panic!("expected an error naming {want}, got {other:?}"),
    };
    let mut o = options(Method::LeaveOneOut, Criterion::MeanSquaredError, vec![]);
    o.lambdas = vec![];
    named(params.select(&d, &o), "lambdas");
    o.lambdas = vec![1.0, -1.0];
    named(params.select(&d, &o), "lambdas");
    named(
        params.select(&d, &options(Method::LeaveOneOut, Criterion::MeanSquaredError, vec![4])),
        "sizes",
    );
    named(
        params.select(
            &d,
            &options(Method::KFold { k: 3 }, Criterion::MeanSquaredError, vec![9]),
        ),
        "sizes",
    );
    named(
        params.select(
            &d,
            &options(Method::KFold { k: 1 }, Criterion::MeanSquaredError, vec![]),
        ),
        "k",
    );
    named(
        params.select(
            &d,
            &options(
                Method::Validation { fraction: 1.5 },
                Criterion::MeanSquaredError,
                vec![],
            ),
        ),
        "fraction",
    );
    // At most MAX_LAMBDAS values (issue 36: 10⁸ of them took 10.6 GB before a score).
    o.lambdas = vec![1.0; SelectOptions::MAX_LAMBDAS + 1];
    named(params.select(&d, &o), "lambdas");
    assert!(SelectOptions::log_grid(1e-3, 1e3, SelectOptions::MAX_LAMBDAS + 1).is_err());
    assert!(SelectOptions::log_grid(1e-3, 1e3, usize::MAX).is_err());
    assert_eq!(
        SelectOptions::log_grid(1e-3, 1e3, SelectOptions::MAX_LAMBDAS)?.len(),
        SelectOptions::MAX_LAMBDAS
    );
    // Leave-one-out on one sample leaves nothing to fit (issue 36: it scored 0 for every λ).
    let one = Dataset::new(x.slice(ndarray::s![..1, ..]), y.slice(ndarray::s![..1, ..]));
    named(
        params.select(&one, &options(Method::LeaveOneOut, Criterion::MeanSquaredError, vec![])),
        "samples",
    );
    assert!(SelectOptions::log_grid(0.0, 1.0, 3).is_err() && SelectOptions::log_grid(2.0, 1.0, 3).is_err());
    let g = SelectOptions::log_grid(1e-4, 1.0, 5)?;
    assert_eq!(g.len(), 5);
    assert!((g[0] - 1e-4).abs() < 1e-18 && (g[4] - 1.0).abs() < 1e-15 && (g[2] - 1e-2).abs() < 1e-16);
    Ok(())
}
