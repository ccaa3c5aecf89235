//! `dfnn-report`: the deep network of Palagi & Seccia (`models::dfnn`), the
//! DFNN part of `cargo xtask bench`.
//!
//! 1. **Kernels on [10 x 50]**, California as the reproduction prepares it
//!    (16512 × 9 inputs, no biases): one forward pass, one value + full
//!    gradient, and B2LD's block evaluation of layer ℓ (the forward pass
//!    from ℓ up, the backward pass down to ℓ only) for ℓ = 0, 5, 10, each
//!    the median of `--reps`; the block's time as a fraction of the full
//!    gradient's (the saving of Sec. 4.1); and the floor of a full
//!    evaluation: its matrix-product flops at the measured one-thread
//!    `dgemm` rate plus its sigmoids at the measured time of one (`sigmoid_in_place`, the
//!    layers' own, copy of the input included).
//! 2. **Ours beside scikit-learn**: full L-BFGS (memory 10 both) on the
//!    same network with biases, the same data and the same starting
//!    weights, no penalty, `--iters` iterations (default 100):
//!    `MLPRegressor(solver='lbfgs')` through `benches/sklearn_dfnn.py`
//!    against our `Dfnn::fit` with `FullLbfgs`, in the same run, one thread
//!    each; the losses are first checked to agree at the start. Skipped,
//!    with a message, when Python with scikit-learn is not found.
//!
//! Usage: `dfnn-report [--quick] [--out FILE] [--reps N]` (`--quick`:
//! 4000 training samples, 20 iterations).

use std::error::Error;
use std::fmt::Write as _;
use std::hint::black_box;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::Instant;

use benches::{json_field, json_number, median, report_header, run_python, target_dir, write_f64_le, ReportArgs};
use experiments::machine::{dgemm_peak_gflops, ScopedBlasThreads};
use experiments::papers::palagi_seccia::protocol::{prepare, Options, Prepared};
use experiments::papers::palagi_seccia::SOURCES;
use models::activation::sigmoid_in_place;
use models::dfnn::{Bias, Dfnn, DfnnTrainer, FullLbfgs, FullObjective, Objective3};
use ndarray::Array2;
use optim::Objective;

type Res<T> = Result<T, Box<dyn Error>>;

/// California's position in the reproduction's list.
const CALIFORNIA: usize = 4;

#[derive(clap::Parser)]
#[command(name = "dfnn-report")]
struct Args {
    #[command(flatten)]
    report: ReportArgs,
    /// L-BFGS iterations for the comparison with scikit-learn.
    #[arg(long, value_name = "K")]
    iters: Option<usize>,
}

fn main() {
    let cli: Args = benches::start();
    benches::finish("dfnn-report", run(&cli));
}

/// Median and best of `reps` timings of `f`.
fn time(reps: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let mut v = vec![];
    for _ in 0..reps {
        let t = Instant::now();
        f();
        v.push(t.elapsed().as_secs_f64());
    }
    let best = v.iter().copied().fold(f64::INFINITY, f64::min);
    (median(v), best)
}

/// Prepares California as the reproduction does and writes the report: its
/// header, the kernels (section 1) and ours beside scikit-learn (section 2).
fn run(cli: &Args) -> Res<()> {
    let quick = cli.report.quick;
    let reps = cli.report.reps_or(if quick { 3 } else { 7 });
    let iters = cli.iters.unwrap_or(if quick { 20 } else { 100 });
    let _threads = ScopedBlasThreads::new(1);
    let mut opts = Options::full(target_dir().join("dfnn-report-unused"), 1.0);
    if quick {
        opts.train_cap = Some(4000);
        opts.test_cap = Some(100);
    }
    let prep = prepare(CALIFORNIA, &SOURCES[CALIFORNIA], &opts)?;
    let (p, n0) = prep.x_train.dim();
    let mut md = report_header(
        "Deep network (Palagi & Seccia): kernels and L-BFGS beside scikit-learn",
        "dfnn-report",
        quick,
        &format!("California, {p} × {n0} inputs; one thread; median of {reps}"),
    );
    kernels_section(&mut md, &prep, reps, quick)?;
    sklearn_section(&mut md, &prep, iters, reps)?;
    println!("{md}");
    if let Some(out) = &cli.report.out {
        std::fs::write(out, &md)?;
    }
    Ok(())
}

/// Section 1: times one forward pass, one value + full gradient and B2LD's
/// block evaluation of layers 0, 5 and 10 on [10 x 50] without biases, and
/// writes their table with the floor of a full evaluation
/// ([`evaluation_floor`]).
fn kernels_section(md: &mut String, prep: &Prepared, reps: usize, quick: bool) -> Res<()> {
    let (p, n0) = prep.x_train.dim();
    let mut widths = vec![50; 10];
    widths.push(1);
    let net = Dfnn::random(n0, &widths, Bias::None, 1000, 0.5)?;
    let obj = Objective3::new(prep.x_train.view(), prep.y_train.view(), net.paper_rho())?;
    let w = net.weights().to_vec();
    let mut ws = obj.workspace(&w);
    let mut grads = w.clone();
    let (fwd, _) = time(reps, || obj.forward(&w, &mut ws));
    let (full, _) = time(reps, || {
        obj.forward(&w, &mut ws);
        black_box(obj.value(&w, &ws));
        obj.gradient(&w, &mut ws, 0, &mut grads);
    });
    let mut rows = String::new();
    for l in [0usize, 5, 10] {
        let mut g = Array2::zeros(w[l].dim());
        obj.forward(&w, &mut ws);
        let (t, _) = time(reps, || {
            obj.forward_from(&w, &mut ws, l);
            black_box(obj.value(&w, &ws));
            obj.block_gradient(&w, &mut ws, l, &mut g);
        });
        let _ = writeln!(
            rows,
            "| block ℓ = {l} (forward from ℓ, backward to ℓ) | {:.2} | {:.2} |",
            1e3 * t,
            t / full
        );
    }
    let Floor {
        flops,
        gflops,
        count,
        sig,
    } = evaluation_floor(&w, &widths, p, reps, quick);
    let floor = flops / (gflops * 1e9) + sig;
    let _ = writeln!(
        md,
        "\n### Kernels on [10 x 50] (B2LD's saving, Sec. 4.1)\n\n| evaluation | ms | ÷ full gradient |\n|---|---:|---:|\n\
         | forward pass | {:.2} | {:.2} |\n| value + full gradient | {:.2} | 1.00 |\n{rows}\n\
         Floor of a full evaluation: {:.2} GFLOP of products at the measured one-thread dgemm rate {gflops:.1} GFLOP/s \
         = {:.2} ms, plus {count} sigmoids at {:.2} ns each = {:.2} ms; total {:.2} ms: the measured full evaluation \
         is **{:.2}× its floor**, and the sigmoids are {:.0}% of the floor.\n",
        1e3 * fwd,
        fwd / full,
        1e3 * full,
        flops / 1e9,
        1e3 * flops / (gflops * 1e9),
        1e9 * sig / count as f64,
        1e3 * sig,
        1e3 * floor,
        full / floor,
        100.0 * sig / floor
    );
    Ok(())
}

/// The pieces of the floor of one full evaluation.
struct Floor {
    /// Matrix-product flops of one value + gradient.
    flops: f64,
    /// The measured one-thread dgemm rate (GFLOP/s).
    gflops: f64,
    /// Sigmoids per evaluation.
    count: usize,
    /// Seconds for `count` sigmoids.
    sig: f64,
}

/// Measures the floor of a full evaluation of the network of weights `w`
/// (layer `widths`) on `p` samples: its products, 2·P·Σ n_in·n_out
/// (forward) + 4·P·Σ (backward: δᵀA and δW, the first layer's δW not
/// needed), at the measured dgemm rate, and P·Σ_hidden n_ℓ sigmoids timed
/// by `sigmoid_in_place` (median of `reps`, copy of the input included).
fn evaluation_floor(w: &[Array2<f64>], widths: &[usize], p: usize, reps: usize, quick: bool) -> Floor {
    let fan: Vec<(usize, usize)> = w.iter().map(|m| (m.ncols(), m.nrows())).collect();
    let prod: f64 = fan.iter().map(|&(a, b)| (a * b) as f64).sum();
    let first = (fan[0].0 * fan[0].1) as f64;
    let flops = p as f64 * (2.0 * prod + 2.0 * prod + 2.0 * (prod - first));
    let gflops = dgemm_peak_gflops(if quick { 500 } else { 1000 }, 3);
    let units: usize = widths[..widths.len() - 1].iter().sum();
    let count = p * units;
    let xs: Vec<f64> = (0..count).map(|i| ((i % 1000) as f64) / 100.0 - 5.0).collect();
    let mut out = xs.clone();
    let (sig, _) = time(reps, || {
        out.copy_from_slice(&xs);
        sigmoid_in_place(&mut out);
        black_box(&out);
    });
    Floor {
        flops,
        gflops,
        count,
        sig,
    }
}

/// Section 2: full L-BFGS, ours beside scikit-learn's, on [1 x 50] and
/// [10 x 50] with biases ([`sklearn_row`]): writes the heading and the table.
fn sklearn_section(md: &mut String, prep: &Prepared, iters: usize, reps: usize) -> Res<()> {
    let _ = writeln!(
        md,
        "### Full L-BFGS, ours beside scikit-learn's MLPRegressor(solver='lbfgs')\n\nSame network with biases, data, \
         starting weights (U[−0.5, 0.5], seed 1000), no penalty, memory 10, {iters} iterations, one thread each; \
         f = mean squared error (scikit-learn's loss × 2). Both stop early only when the line search fails \
         (scikit-learn: scipy's own tests with `tol = 0`).\n\n| network | ours iters | ours s | ours s/iter | \
         scikit-learn iters | scikit-learn s | scikit-learn s/iter | ours/theirs per iter | one f+∇f ours ms | \
         scikit-learn ms | f ours | f scikit-learn |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for hidden in [vec![50usize], vec![50; 10]] {
        sklearn_row(md, prep, &hidden, iters, reps)?;
    }
    Ok(())
}

/// One network of section 2: times one value + gradient and our full
/// L-BFGS fit (median of up to 3), writes the data and the starting weights
/// for `benches/sklearn_dfnn.py`, runs it, checks that the start losses
/// agree, and writes the network's row (ours alone when scikit-learn could
/// not be run).
fn sklearn_row(md: &mut String, prep: &Prepared, hidden: &[usize], iters: usize, reps: usize) -> Res<()> {
    let n0 = prep.x_train.ncols();
    let mut widths = hidden.to_vec();
    widths.push(1);
    let net = Dfnn::random(n0 - 1, &widths, Bias::Every, 1000, 0.5)?;
    let x = prep.x_train.slice(ndarray::s![.., ..n0 - 1]).to_owned();
    let y = prep.y_train.clone();
    let name = format!("[{} x 50]", hidden.len());
    let obj = Objective3::new(x.view(), y.view(), 0.0)?;
    let mut fo = FullObjective::new(obj, net.weights());
    let z = FullObjective::flatten(net.weights());
    let mut g = vec![0.0; z.len()];
    let f0 = fo.value_and_gradient(&z, &mut g);
    let (eval, _) = time(reps, || {
        black_box(fo.value_and_gradient(&z, &mut g));
    });
    let trainer = DfnnTrainer::Lbfgs(FullLbfgs {
        gradient_tolerance: 0.0,
        relative_decrease: 0.0,
        max_iterations: iters,
        ..FullLbfgs::default()
    });
    let mut secs = vec![];
    let mut last = None;
    for _ in 0..reps.min(3) {
        let mut m = net.clone();
        let t = Instant::now();
        let r = m.fit(x.view(), y.view(), 0.0, &trainer, |_| ControlFlow::Continue(()))?;
        secs.push(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    let r = last.ok_or("no fit")?;
    let ours = median(secs);
    let ours_it = ours / r.iterations.max(1) as f64;
    let dir = target_dir().join("dfnn-report").join(format!("l{}", hidden.len()));
    write_inputs(&dir, &x, &y, &net, &widths)?;
    match sklearn(&dir, iters, reps.min(3)) {
        Ok(s) => {
            let agree = (s.start_loss - f0).abs() <= 1e-10 * f0;
            if !agree {
                return Err(format!(
                    "{name}: start losses differ: ours {f0:e}, scikit-learn {:e}",
                    s.start_loss
                )
                .into());
            }
            let theirs_it = s.seconds / s.iterations.max(1.0);
            let _ = writeln!(
                md,
                "| {name} | {} | {ours:.2} | {:.4} | {} | {:.2} | {:.4} | {:.2} | {:.2} | {:.2} | {:.3e} | {:.3e} |",
                r.iterations,
                ours_it,
                s.iterations,
                s.seconds,
                theirs_it,
                ours_it / theirs_it,
                1e3 * eval,
                1e3 * s.eval_seconds,
                r.objective,
                s.objective
            );
            if name == "[10 x 50]" {
                let _ = writeln!(md, "\n({}, start loss agrees to 10⁻¹⁰.)\n", s.versions);
            }
        }
        Err(e) => {
            let _ = writeln!(
                md,
                "| {name} | {} | {ours:.2} | {ours_it:.4} | — | — | — | — | {:.2} | — | {:.3e} | — |",
                r.iterations,
                1e3 * eval,
                r.objective
            );
            eprintln!("dfnn-report: scikit-learn part skipped: {e}");
        }
    }
    Ok(())
}

/// Writes what `benches/sklearn_dfnn.py` reads into `dir`: `x.f64`,
/// `y.f64`, each layer's starting weights `w<ℓ>.f64` and `meta.txt` (the
/// samples, the inputs, the layer count and the `widths`).
fn write_inputs(dir: &Path, x: &Array2<f64>, y: &Array2<f64>, net: &Dfnn, widths: &[usize]) -> Res<()> {
    std::fs::create_dir_all(dir)?;
    write_f64_le(&dir.join("x.f64"), x.iter())?;
    write_f64_le(&dir.join("y.f64"), y.iter())?;
    for (l, wl) in net.weights().iter().enumerate() {
        write_f64_le(&dir.join(format!("w{l}.f64")), wl.iter())?;
    }
    let meta = format!(
        "{} {} {} {}",
        x.nrows(),
        x.ncols(),
        widths.len(),
        widths.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" ")
    );
    std::fs::write(dir.join("meta.txt"), meta)?;
    Ok(())
}

struct Sklearn {
    start_loss: f64,
    seconds: f64,
    iterations: f64,
    objective: f64,
    eval_seconds: f64,
    versions: String,
}

fn sklearn(dir: &Path, iterations: usize, reps: usize) -> Result<Sklearn, String> {
    let args = [dir.display().to_string(), iterations.to_string(), reps.to_string()];
    let json = run_python("sklearn_dfnn.py", &args, 1)?;
    let num = |k: &str| json_number(&json, k).ok_or_else(|| format!("no {k} in the script's output {json:?}"));
    Ok(Sklearn {
        start_loss: num("start_loss")?,
        seconds: num("seconds")?,
        iterations: num("iterations")?,
        objective: num("objective")?,
        eval_seconds: num("eval_seconds")?,
        versions: format!(
            "scikit-learn {}, numpy {}, OPENBLAS_NUM_THREADS = {}",
            json_field(&json, "sklearn").unwrap_or("?"),
            json_field(&json, "numpy").unwrap_or("?"),
            json_field(&json, "threads").unwrap_or("?")
        ),
    })
}
