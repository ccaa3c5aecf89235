//! `select-report`: choosing λ and the size (issue 22), the part of
//! `cargo xtask bench` that measures it. BLAS threads = the machine's
//! cores; MNIST (60000 training images, pixels / 255; `--quick`: 10000),
//! sigmoid ELM.
//!
//! 1. **Leave-one-out over 20 λ against one batch fit** (2000 nodes;
//!    `--quick`: 500): `ElmValidParams::fit` at one λ against
//!    `select` by [`Method::LeaveOneOut`] over 20 λ log-spaced from 10⁻⁶ to
//!    10³ (which returns the model at the chosen λ), timed in rounds; then
//!    the parts of the LOO path timed alone against their flop floors at the
//!    measured dgemm rate — the hidden layer (`2KNl`), the Gram sums (`Kl²`,
//!    DSYRK), the eigendecomposition (DSYEVD), `Q = AV` (`2Kl²`) — which is
//!    why the 1.5× cannot hold when `Q = AV` alone costs twice the
//!    Gram product, nor with `Q = AV` in single precision (SGEMM, timed
//!    beside it); also 5-fold cross-validation over the same grid.
//!    Then `leave_one_out` alone on the same `A` beside scikit-learn's
//!    `RidgeCV` (its efficient leave-one-out through the SVD of `A`,
//!    `benches/ridgecv_loo.py`), skipped with a message when scikit-learn is
//!    not importable.
//! 2. **Growing until the validation error stops improving against
//!    refitting at every size** (hpelm's way): from 100 nodes by 100
//!    (`--quick`: 50 by 50) up to 2000 (500), patience 3, λ the one
//!    leave-one-out chose, validation = a seeded sixth of the training
//!    images; `grow_until_val` against `refit_elm_curve` over the sizes
//!    growth reached: seconds, the size each chooses, its test accuracy;
//!    then our 5-fold over the same sizes, and hpelm's own selection of the
//!    number of neurons (`train(…, 'V')` on the same split, `'CV'` 5-fold;
//!    `benches/hpelm_select.py`, skipped with a message without hpelm).
//!
//! Usage: `select-report [--quick] [--out FILE] [--reps N]`.

use std::error::Error;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

use benches::{json_field, json_number, report_header, round_robin, run_python, write_f64_le, Job, ReportArgs};
use experiments::datasets;
use experiments::machine::{cores, dgemm_peak_gflops, ScopedBlasThreads};
use experiments::papers::tomic_bpls::mnist::load;
use linalg_core::ridge::{leave_one_out, GramAccumulator, RidgePath};
use models::prelude::*;
use models::select::folds::Folds;
use models::select::grow::{refit_elm_curve, GrowOptions};
use models::select::lambda::{Method, SelectOptions};
use models::select::Criterion;
use models::{Activation, ElmParams, ElmValidParams};
use ndarray::{Array2, ArrayView2, Axis};

type Res<T> = Result<T, Box<dyn Error>>;

fn main() {
    let args: Args = benches::start();
    benches::finish("select-report", run(&args.report));
}

#[derive(clap::Parser)]
#[command(name = "select-report")]
struct Args {
    #[command(flatten)]
    report: ReportArgs,
}

/// Test accuracy (%) of predictions against one-hot targets.
fn accuracy(p: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Res<f64> {
    Ok(100.0 * (1.0 - Criterion::ClassificationError.score(p, y)?))
}

fn run(args: &ReportArgs) -> Res<()> {
    let quick = args.quick;
    let reps = args.reps_or(if quick { 2 } else { 3 });
    let threads = cores();
    let _blas = ScopedBlasThreads::new(threads);
    let (k, l) = if quick { (10_000, 500) } else { (60_000, 2000) };
    let mut md = report_header(
        "Choosing λ and the size: leave-one-out, k-fold, growing until the validation error stops improving",
        "select-report",
        quick,
        &format!("{threads} OpenBLAS threads; median (best) of {reps} rounds after one untimed round"),
    );
    let gflops = dgemm_peak_gflops(if quick { 1000 } else { 2000 }, 3);
    writeln!(md, "- Measured dgemm rate: {gflops:.1} GFLOP/s\n")?;
    eprintln!("select-report: loading MNIST ({k} training images)…");
    let img = load(&datasets::data_dir().join("mnist"), "MNIST", Some(k), None)?;
    let data = Dataset::new(img.x_train.view(), img.y_train.view());
    let lambdas = SelectOptions::log_grid(1e-6, 1e3, 20)?;
    let params = ElmParams::new(l, Activation::Sigmoid)
        .with_seed(1)
        .with_lambda(1e-3)
        .check()?;
    let (chosen, a) = loo_table(
        &mut md,
        &params,
        &data,
        &img.x_test,
        &img.y_test,
        &lambdas,
        reps,
        gflops,
    )?;
    peer_table(&mut md, &a, &img.y_train, &lambdas, threads)?;
    drop(a);
    grow_table(&mut md, quick, chosen, &data, &img.x_test, &img.y_test)?;
    print!("{md}");
    if let Some(out) = &args.out {
        std::fs::write(out, &md)?;
    }
    Ok(())
}

/// Table 1 and its breakdown; returns the λ leave-one-out chose and the
/// hidden outputs `A` of the training images.
#[allow(clippy::too_many_arguments)]
fn loo_table(
    md: &mut String,
    params: &ElmValidParams,
    data: &Dataset<'_>,
    x_test: &Array2<f64>,
    y_test: &Array2<f64>,
    lambdas: &[f64],
    reps: usize,
    gflops: f64,
) -> Res<(f64, Array2<f64>)> {
    let (k, l) = (data.features().nrows(), params.nodes());
    eprintln!(
        "select-report: one fit against leave-one-out over {} λ, l = {l}…",
        lambdas.len()
    );
    let loo = SelectOptions {
        method: Method::LeaveOneOut,
        lambdas: lambdas.to_vec(),
        sizes: vec![],
        criterion: Criterion::ClassificationError,
        seed: 0,
    };
    let kfold = SelectOptions {
        method: Method::KFold { k: 5 },
        ..loo.clone()
    };
    let mut last = None;
    let mut jobs: Vec<Job<'_>> = vec![
        Box::new(|| {
            let t = Instant::now();
            black_box(params.fit(data)?);
            Ok(t.elapsed().as_secs_f64())
        }),
        Box::new(|| {
            let t = Instant::now();
            let s = params.select(data, &loo)?;
            let secs = t.elapsed().as_secs_f64();
            last = Some(s);
            Ok(secs)
        }),
    ];
    let times = round_robin(reps, &mut jobs)?;
    drop(jobs);
    let selected = last.ok_or("no LOO run")?;
    eprintln!("select-report: 5-fold over the same grid (once)…");
    let t = Instant::now();
    let folds = params.select(data, &kfold)?;
    let kfold_secs = t.elapsed().as_secs_f64();
    let fit_model = params.fit(data)?;
    let acc_fit = accuracy(fit_model.predict(x_test.view())?.view(), y_test.view())?;
    let acc_loo = accuracy(selected.model.predict(x_test.view())?.view(), y_test.view())?;
    let acc_fold = accuracy(folds.model.predict(x_test.view())?.view(), y_test.view())?;
    let (fit_med, fit_best) = times[0];
    let (loo_med, loo_best) = times[1];
    writeln!(
        md,
        "### Leave-one-out over {} λ against one batch fit (MNIST, K = {k}, l = {l})\n\n\
         λ log-spaced from 1e-6 to 1e3; the LOO classification error scores each λ; the selection returns the \
         model at the chosen λ (weights from the same eigendecomposition).\n\n\
         | run | seconds, median (best) | × one fit | λ | score | test accuracy |\n|---|---|---|---|---|---|\n\
         | one batch fit, λ = {:e} | {fit_med:.2} ({fit_best:.2}) | 1.00 | {:e} | — | {acc_fit:.2}% |\n\
         | leave-one-out, {} λ | {loo_med:.2} ({loo_best:.2}) | {:.2} | {:e} | LOO error {:.4} | {acc_loo:.2}% |\n\
         | 5-fold, {} λ (once) | {kfold_secs:.2} | {:.2} | {:e} | CV error {:.4} | {acc_fold:.2}% |\n",
        lambdas.len(),
        params.lambda(),
        params.lambda(),
        lambdas.len(),
        loo_med / fit_med,
        selected.lambda,
        selected.score,
        lambdas.len(),
        kfold_secs / fit_med,
        folds.lambda,
        folds.score,
    )?;
    // The parts of the LOO path alone.
    let x = data.features();
    let hidden = fit_model.hidden().clone();
    let t = Instant::now();
    let a = hidden.outputs(x)?;
    let hidden_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut sums = GramAccumulator::new(l, data.targets().ncols());
    sums.add(a.view(), data.targets())?;
    let gram_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let path = RidgePath::from_accumulator(&sums)?;
    let eig_s = t.elapsed().as_secs_f64();
    let v = Array2::from_shape_fn((l, l), |(i, j)| if i == j { 1.0 } else { 0.0 });
    let t = Instant::now();
    black_box(a.dot(&v));
    let q_s = t.elapsed().as_secs_f64();
    // The single-precision shortcut, not used by the library: A and V
    // rounded to f32 (part of the time), then SGEMM.
    let t = Instant::now();
    let q32 = a.mapv(|x| x as f32).dot(&v.mapv(|x| x as f32));
    let q32_s = t.elapsed().as_secs_f64();
    black_box(q32[[0, 0]]);
    drop(q32);
    black_box(path.eigenvalues());
    let n_in = x.ncols() as f64;
    let (kf, lf) = (k as f64, l as f64);
    let rate = gflops * 1e9;
    let rows = [
        ("hidden layer A = f(XW + b)", hidden_s, 2.0 * kf * n_in * lf),
        (
            "Gram sums AᵀA, AᵀY (DSYRK, DGEMM)",
            gram_s,
            kf * lf * lf + 2.0 * kf * lf * 10.0,
        ),
        ("eigendecomposition (DSYEVD, 9l³ counted)", eig_s, 9.0 * lf * lf * lf),
        ("Q = A·V (DGEMM, 2Kl²)", q_s, 2.0 * kf * lf * lf),
    ];
    writeln!(
        md,
        "\nThe parts of the leave-one-out path, each timed once alone, against their flops at the dgemm rate:\n\n\
         | part | seconds | GFLOP | floor (s) | × floor |\n|---|---|---|---|---|"
    )?;
    for (name, secs, flops) in rows {
        writeln!(
            md,
            "| {name} | {secs:.2} | {:.0} | {:.2} | {:.2} |",
            flops / 1e9,
            flops / rate,
            secs / (flops / rate)
        )?;
    }
    writeln!(
        md,
        "\nA batch fit is the hidden layer, the Gram sums and a Cholesky solve; leave-one-out adds the \
         eigendecomposition and `Q = AV`, whose `2Kl²` flops are twice the Gram product's `Kl²`: at \
         l = {l} with N = {} inputs its floor alone is {:.2}× a fit's floor, so the issue's 1.5× is \
         out of reach of any exact PRESS computation that forms the leverages this way.\n",
        x.ncols(),
        (2.0 * kf * n_in * lf + 3.0 * kf * lf * lf + 9.0 * lf * lf * lf) / (2.0 * kf * n_in * lf + kf * lf * lf)
    )?;
    writeln!(
        md,
        "Not even leverages in single precision would reach it (not implemented; their scores would be \
         exact only to about 1e-7): rounding A and V to f32 and `Q = AV` by SGEMM took {q32_s:.2} s here \
         ({:.1}× faster than DGEMM), so the parts of such a path would still sum to {:.2}× the parts of a \
         fit (hidden layer and Gram sums: {:.2} s).\n",
        q_s / q32_s,
        (hidden_s + gram_s + eig_s + q32_s) / (hidden_s + gram_s),
        hidden_s + gram_s
    )?;
    Ok((selected.lambda, a))
}

/// Table 1b: our `leave_one_out` against scikit-learn's `RidgeCV` (its
/// efficient LOO through the SVD of `A`) on the same `A`, `Y` and grid.
fn peer_table(md: &mut String, a: &Array2<f64>, y: &Array2<f64>, lambdas: &[f64], threads: usize) -> Res<()> {
    let (k, l) = a.dim();
    let m = y.ncols();
    eprintln!("select-report: leave_one_out on A alone, then scikit-learn's RidgeCV…");
    let t = Instant::now();
    let ours = leave_one_out(a.view(), y.view(), lambdas)?;
    let ours_s = t.elapsed().as_secs_f64();
    let dir = benches::target_dir();
    let (a_file, y_file) = (dir.join("select-report-a.f64"), dir.join("select-report-y.f64"));
    write_f64_le(&a_file, a.iter())?;
    write_f64_le(&y_file, y.iter())?;
    let grid: Vec<String> = lambdas.iter().map(|v| format!("{v:e}")).collect();
    let args = vec![
        a_file.display().to_string(),
        y_file.display().to_string(),
        k.to_string(),
        l.to_string(),
        m.to_string(),
        "svd".to_string(),
        grid.join(","),
    ];
    let peer = run_python("ridgecv_loo.py", &args, threads);
    let _ = std::fs::remove_file(&a_file);
    let _ = std::fs::remove_file(&y_file);
    let best = ours
        .scores
        .iter()
        .filter(|s| s.mse.is_finite())
        .min_by(|x, y| x.mse.total_cmp(&y.mse))
        .ok_or("no finite LOO score")?;
    writeln!(
        md,
        "\n### Beside scikit-learn's RidgeCV (efficient leave-one-out) on the same A\n\n\
         `leave_one_out` on the hidden outputs A (K = {k}, l = {l}, M = {m}) over the same {} λ, against \
         `RidgeCV(alphas, fit_intercept=False, gcv_mode='svd', store_cv_results=True)` (the thin SVD of A; \
         `gcv_mode='eigen'` would decompose the K×K matrix AAᵀ), both scored by the mean squared LOO error.\n",
        lambdas.len()
    )?;
    match peer {
        Ok(json) if json_field(&json, "error").is_none() => {
            let secs = json_number(&json, "seconds").ok_or("no seconds")?;
            let alpha = json_number(&json, "alpha").ok_or("no alpha")?;
            let theirs: Vec<f64> = json_field(&json, "mse")
                .map(|_| {
                    let start = json.find("\"mse\": [").map_or(0, |i| i + 8);
                    let end = json[start..].find(']').map_or(json.len(), |e| start + e);
                    json[start..end]
                        .split(',')
                        .filter_map(|v| v.trim().parse().ok())
                        .collect()
                })
                .unwrap_or_default();
            let worst = ours
                .scores
                .iter()
                .zip(&theirs)
                .map(|(o, t)| ((o.mse - t) / t).abs())
                .fold(0.0f64, f64::max);
            writeln!(
                md,
                "| implementation | seconds | λ chosen (MSE) | LOO MSE there |\n|---|---|---|---|\n\
                 | ours, `leave_one_out` | {ours_s:.2} | {:e} | {:.6} |\n\
                 | scikit-learn {} `RidgeCV` (numpy {}) | {secs:.2} | {alpha:e} | {:.6} |\n\n\
                 Ours is {:.1}× faster; the two LOO MSE curves agree to {worst:.1e} relative at worst over the grid.\n",
                best.lambda,
                best.mse,
                json_field(&json, "sklearn").unwrap_or("?"),
                json_field(&json, "numpy").unwrap_or("?"),
                theirs
                    .get(lambdas.iter().position(|&v| v == alpha).unwrap_or(0))
                    .copied()
                    .unwrap_or(f64::NAN),
                secs / ours_s
            )?;
        }
        Ok(json) => writeln!(md, "(skipped: {})", json_field(&json, "error").unwrap_or("?"))?,
        Err(e) => writeln!(md, "(skipped: {e})")?,
    }
    Ok(())
}

/// Table 2: growing against refitting at every size.
fn grow_table(
    md: &mut String,
    quick: bool,
    lambda: f64,
    data: &Dataset<'_>,
    x_test: &Array2<f64>,
    y_test: &Array2<f64>,
) -> Res<()> {
    let (start, step, max) = if quick { (50, 50, 500) } else { (100, 100, 2000) };
    let k = data.features().nrows();
    let labels: Vec<usize> = data
        .targets()
        .rows()
        .into_iter()
        .map(|r| r.iter().enumerate().fold(0, |b, (c, &v)| if v > r[b] { c } else { b }))
        .collect();
    let split = Folds::validation(k, 1.0 / 6.0, 3, Some(&labels))?;
    let (tr, va) = (split.training(0), split.held_out(0).to_vec());
    let (xt, yt) = (
        data.features().select(Axis(0), &tr),
        data.targets().select(Axis(0), &tr),
    );
    let (xv, yv) = (
        data.features().select(Axis(0), &va),
        data.targets().select(Axis(0), &va),
    );
    let (train, val) = (Dataset::new(xt.view(), yt.view()), Dataset::new(xv.view(), yv.view()));
    let params = ElmParams::new(start, Activation::Sigmoid)
        .with_seed(1)
        .with_lambda(lambda)
        .check()?;
    eprintln!("select-report: growing from {start} by {step} to at most {max}…");
    let t = Instant::now();
    let grown = params.grow_until_val(
        &train,
        &val,
        // Fixed steps (growth 0): the schedule of the figures in
        // docs/performance.md and of hpelm's refits beside them.
        &GrowOptions::new(step, 3, max, Criterion::ClassificationError).with_growth(0.0),
    )?;
    let grow_s = t.elapsed().as_secs_f64();
    let reached = grown.curve.last().map_or(start, |p| p.nodes);
    eprintln!("select-report: refitting at every size up to {reached}…");
    let t = Instant::now();
    let refit = refit_elm_curve(
        &params,
        &train,
        &val,
        &GrowOptions::new(step, 3, reached, Criterion::ClassificationError).with_growth(0.0),
    )?;
    let refit_s = t.elapsed().as_secs_f64();
    let acc_g = accuracy(grown.model.predict(x_test.view())?.view(), y_test.view())?;
    let acc_r = accuracy(refit.model.predict(x_test.view())?.view(), y_test.view())?;
    writeln!(
        md,
        "### Growing until the validation error stops improving, against refitting at every size\n\n\
         ELM from {start} nodes by {step}, patience 3, at most {max} nodes, λ = {lambda:e} (the leave-one-out \
         choice above); validation: a seeded, stratified sixth of the training images ({} of {k}); growth by \
         D-Rdg (the validation outputs grow by the new columns only); the refits are fresh batch fits at every \
         size growth reached ({} sizes).\n\n\
         | method | seconds | sizes tried | size chosen | validation error | stopped | test accuracy |\n\
         |---|---|---|---|---|---|---|\n\
         | grow until val | {grow_s:.2} | {} | {} | {:.4} | {:?} | {acc_g:.2}% |\n\
         | refit at every size | {refit_s:.2} | {} | {} | {:.4} | — | {acc_r:.2}% |",
        va.len(),
        refit.curve.len(),
        grown.curve.len(),
        grown.nodes,
        grown.score,
        grown.stop,
        refit.curve.len(),
        refit.nodes,
        refit.score,
    )?;
    // Ours: 5-fold over the same sizes at the same λ, on all training images.
    let sizes: Vec<usize> = (start..=max).step_by(step).collect();
    let kfold = SelectOptions {
        method: Method::KFold { k: 5 },
        lambdas: vec![lambda],
        sizes: sizes.clone(),
        criterion: Criterion::ClassificationError,
        seed: 3,
    };
    let largest = ElmParams::new(max, Activation::Sigmoid)
        .with_seed(1)
        .with_lambda(lambda)
        .check()?;
    eprintln!("select-report: 5-fold over {} sizes…", sizes.len());
    let t = Instant::now();
    let folds = largest.select(data, &kfold)?;
    let folds_s = t.elapsed().as_secs_f64();
    let acc_f = accuracy(folds.model.predict(x_test.view())?.view(), y_test.view())?;
    writeln!(
        md,
        "| 5-fold over the {} sizes (all {k} images) | {folds_s:.2} | {} | {} | CV {:.4} | — | {acc_f:.2}% |",
        sizes.len(),
        folds.curve.len(),
        folds.nodes,
        folds.score
    )?;
    hpelm_rows(md, max, (&xt, &yt), (&xv, &yv), (x_test, y_test))?;
    Ok(())
}

/// hpelm's selection of the number of neurons ('V' on the same split, 'CV'
/// 5-fold on all training images) with the largest size `l`, beside ours
/// (`benches/hpelm_select.py`); skipped with a message when hpelm is not
/// importable.
fn hpelm_rows(
    md: &mut String,
    l: usize,
    train: (&Array2<f64>, &Array2<f64>),
    val: (&Array2<f64>, &Array2<f64>),
    test: (&Array2<f64>, &Array2<f64>),
) -> Res<()> {
    eprintln!("select-report: hpelm's 'V' and 'CV' selection…");
    let dir = benches::target_dir().join("select-report-hpelm");
    std::fs::create_dir_all(&dir)?;
    for (name, m) in [
        ("xt", train.0),
        ("yt", train.1),
        ("xv", val.0),
        ("yv", val.1),
        ("xs", test.0),
        ("ys", test.1),
    ] {
        write_f64_le(&dir.join(format!("{name}.f64")), m.as_standard_layout().iter())?;
    }
    let args: Vec<String> = [
        dir.display().to_string(),
        l.to_string(),
        train.0.ncols().to_string(),
        train.1.ncols().to_string(),
        train.0.nrows().to_string(),
        val.0.nrows().to_string(),
        test.0.nrows().to_string(),
        "5".to_string(),
    ]
    .into();
    let out = run_python("hpelm_select.py", &args, experiments::machine::cores());
    let _ = std::fs::remove_dir_all(&dir);
    match out {
        Ok(json) if json_field(&json, "error").is_none() => {
            let num = |key: &str| json_number(&json, key).unwrap_or(f64::NAN);
            writeln!(
                md,
                "| hpelm {} `train(…, 'V')`, {l} neurons | {:.2} | interval halving | {} | — | — | {:.2}% |\n\
                 | hpelm `train(…, 'CV', k=5)`, {l} neurons | {:.2} | interval halving | {} | — | — | {:.2}% |\n\n\
                 hpelm (numpy {}) ranks the neurons at random and halves an interval of neuron counts, re-solving the \
                 sub-Gram at each probe, with a 1% size penalty and its own regularization; its test accuracy is of \
                 the pruned network.",
                json_field(&json, "hpelm").unwrap_or("?"),
                num("v_seconds"),
                num("v_neurons"),
                num("v_test_accuracy"),
                num("cv_seconds"),
                num("cv_neurons"),
                num("cv_test_accuracy"),
                json_field(&json, "numpy").unwrap_or("?"),
            )?;
        }
        Ok(json) => writeln!(md, "\n(hpelm skipped: {})", json_field(&json, "error").unwrap_or("?"))?,
        Err(e) => writeln!(md, "\n(hpelm skipped: {e})")?,
    }
    Ok(())
}
