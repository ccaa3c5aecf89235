//! `dec-report`: DEC (Grippo, Manno & Sciandrone 2016) and the L-BFGS
//! baseline on the paper's error (5), the DEC part of `cargo xtask bench`.
//!
//! 1. **cod-rna, 20 hidden units** (the reproduction's data: z-scored
//!    features, 59535 × 8, one output `{0, 1}`; its first start, seed 1000):
//!    DEC(2) and DEC(10) training time (median of `--reps`, default 5)
//!    beside Table II's 3.22 s and 25.98 s; the time per unit step and per
//!    unit-error evaluation against the `O(P·n)` floor of one evaluation —
//!    one pass computing `t_p = x_pᵀw − θ` and `g(t_p)` for every sample
//!    (a plain loop, best of many) — and against the time to read `X` once.
//! 2. **L-BFGS(1000), ours beside scipy's L-BFGS-B**, on the same
//!    objective, data and starting point, in the same run, on cod-rna and
//!    magic (20 units each): the data, start and `τ`s are written to
//!    `target/dec-report/<set>/` and `benches/scipy_slfn.py` minimizes the
//!    same `E` written in numpy. The two objectives are first checked to
//!    agree at the start (value to 10⁻¹² relative, gradient to 10⁻¹⁰ of its
//!    largest entry). DEC(10) from the same input weights beside them.
//!
//! One thread throughout (OpenBLAS for our products; `OPENBLAS_NUM_THREADS =
//! OMP_NUM_THREADS = MKL_NUM_THREADS = 1` for Python), as the reproduction
//! and the paper's serial code. The Python part is skipped, with a message,
//! when `python3` (or `$PYTHON`) with numpy and scipy is not found.
//!
//! Usage: `dec-report [--quick] [--out FILE] [--reps N]` (`--quick`: 10000
//! training samples of each set, L-BFGS(100), one repetition).

use std::error::Error;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use benches::{
    json_field, json_number, median, read_f64_le, read_here_seconds, report_header, run_python, target_dir,
    write_f64_le, ReportArgs,
};
use experiments::machine::ScopedBlasThreads;
use experiments::papers::grippo_dec::protocol::{prepare, Options, Prepared};
use experiments::papers::grippo_dec::{published, SOURCES};
use models::activation::sigmoid;
use models::prelude::*;
use models::slfn::{ErrorFunction, FullObjective, SlfnParams, SlfnReport, SlfnTrainer, SlfnValidParams};
use ndarray::Array2;
use optim::Objective;

/// Hidden units (Table II's and Table III's DEC(10) and L-BFGS rows).
const HIDDEN: usize = 20;
/// The reproduction's first starting point.
const SEED: u64 = 1000;
/// Threads for ours and for Python.
const THREADS: usize = 1;
/// Table I's positions of the two sets.
const COD_RNA: usize = 0;
const MAGIC: usize = 1;
/// Agreement required of the two objectives at the start.
const VALUE_TOLERANCE: f64 = 1e-12;
const GRADIENT_TOLERANCE: f64 = 1e-10;

type Res<T> = Result<T, Box<dyn Error>>;

/// Times DEC on cod-rna against its floors, and our L-BFGS beside scipy's.
#[derive(clap::Parser)]
#[command(name = "dec-report")]
struct Args {
    #[command(flatten)]
    report: ReportArgs,
}

fn main() {
    let cli: Args = benches::start();
    benches::finish("dec-report", run(&cli.report));
}

/// Repeated fits of one trainer: wall times and the reports.
struct Fits {
    seconds: Vec<f64>,
    reports: Vec<SlfnReport>,
}

impl Fits {
    fn median(&self) -> f64 {
        median(self.seconds.clone())
    }
    fn best(&self) -> f64 {
        self.seconds.iter().copied().fold(f64::INFINITY, f64::min)
    }
    fn last(&self) -> &SlfnReport {
        self.reports.last().expect("at least one fit")
    }
    /// The final `E`, and whether every repetition ended at the same value.
    fn objective(&self) -> (f64, bool) {
        let e = self.last().objective;
        (e, self.reports.iter().all(|r| r.objective.to_bits() == e.to_bits()))
    }
    /// Median over the repetitions of `f` of the DEC report.
    fn dec_median(&self, f: impl Fn(&models::slfn::DecReport) -> f64) -> f64 {
        median(self.reports.iter().filter_map(|r| r.dec.as_ref()).map(f).collect())
    }
}

fn fits(params: SlfnValidParams, data: &Prepared, reps: usize) -> Res<Fits> {
    let dataset = Dataset::new(data.x_train.view(), data.y_train.view());
    let mut out = Fits {
        seconds: vec![],
        reports: vec![],
    };
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let (_, report) = params.fit_with_report(&dataset, |_| {})?;
        out.seconds.push(t.elapsed().as_secs_f64());
        out.reports.push(report);
    }
    Ok(out)
}

fn params(trainer: SlfnTrainer) -> Res<SlfnValidParams> {
    Ok(SlfnParams::new(HIDDEN).with_trainer(trainer).with_seed(SEED).check()?)
}

/// The paper's training time for `algorithm` with `HIDDEN` units on set `index`.
fn paper_seconds(index: usize, algorithm: &str) -> Option<f64> {
    published::RESULTS[index]
        .iter()
        .find(|r| r.algorithm == algorithm && r.neurons == HIDDEN)
        .map(|r| r.train_time)
}

fn load(index: usize, quick: bool) -> Res<Prepared> {
    let mut opts = Options::full(PathBuf::new());
    if quick {
        opts.train_cap = Some(10_000);
        opts.test_cap = Some(1_000);
    }
    Ok(prepare(index, &SOURCES[index], &opts)?)
}

/// `Σ_p g(x_pᵀw − θ)`: one pass over `X` (row-major, `n` columns) with the
/// unit's pre-activation and sigmoid, nothing stored — the floor of one
/// evaluation of a unit's error.
fn activation_pass(x: &[f64], n: usize, w: &[f64]) -> f64 {
    let (wx, theta) = (&w[..n], w[n]);
    x.chunks_exact(n)
        .map(|row| sigmoid(row.iter().zip(wx).map(|(a, b)| a * b).sum::<f64>() - theta))
        .sum()
}

fn best_of(reps: usize, mut f: impl FnMut() -> f64) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn fmt_ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.2}×")
    } else {
        "—".into()
    }
}

/// Writes the report: its header, cod-rna's DEC timings and unit step
/// against its floors (section 1), L-BFGS beside scipy's and DEC(10)
/// (section 2) and the total run time.
fn run(args: &ReportArgs) -> Res<()> {
    let started = Instant::now();
    let quick = args.quick;
    let reps = args.reps_or(if quick { 1 } else { 5 });
    let lbfgs_reps = args.reps_or(if quick { 1 } else { 3 });
    let iterations = if quick { 100 } else { 1000 };
    let _threads = ScopedBlasThreads::new(THREADS);

    let mut out = report_header(
        "DEC (Grippo, Manno & Sciandrone 2016) — `dec-report`",
        "dec-report",
        quick,
        &format!(
            "{THREADS} thread (OpenBLAS; `OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = MKL_NUM_THREADS = {THREADS}` for Python); DEC timings median of {reps}, L-BFGS timings median of {lbfgs_reps}"
        ),
    );
    if quick {
        let _ = writeln!(
            out,
            "- **Quick run**: 10000 training samples per set and L-BFGS({iterations}); the paper's figures are for the full sets and do not compare."
        );
    }

    // ---- 1. cod-rna: DEC(2), DEC(10) and the unit step against its floor.
    eprintln!("dec-report: loading cod-rna…");
    let cod = load(COD_RNA, quick)?;
    let (dec2_params, dec2, dec10) = dec_section(&mut out, &cod, reps)?;
    eprintln!("dec-report: floors…");
    let floors = measure_floors(&cod, dec2_params, quick)?;
    unit_step_section(&mut out, &cod, &floors, &dec2, &dec10);

    // ---- 2. L-BFGS(1000): ours beside scipy's L-BFGS-B, and DEC(10).
    lbfgs_section(&mut out, &cod, &dec10, quick, iterations, reps, lbfgs_reps)?;
    let _ = writeln!(out, "\nTotal run time: {:.0} s.", started.elapsed().as_secs_f64());
    benches::write_report("dec-report", &out, args.out.as_deref())
}

/// Section 1, first table: times DEC(2) and DEC(10) on cod-rna (`reps`
/// fits each) and writes the network's line, the data, their table beside
/// Table II's times and the DEC(2) verdict. Returns DEC(2)'s parameters
/// and both trainers' fits.
fn dec_section(out: &mut String, cod: &Prepared, reps: usize) -> Res<(SlfnValidParams, Fits, Fits)> {
    let (p, n) = cod.x_train.dim();
    let m = cod.y_train.ncols();
    let dec2_params = params(SlfnTrainer::Dec { maxiter: 2 })?;
    let tau_w = dec2_params.tau_w(n);
    let _ = writeln!(
        out,
        "- Network: N = {HIDDEN} sigmoid units, τ_λ = {}, τ_w = 10⁻²/(n·N) = {tau_w:.3e}, start: seed {SEED} (the reproduction's first run), every weight uniform on [−0.5, 0.5)\n",
        dec2_params.tau_lambda()
    );
    let _ = writeln!(out, "### cod-rna: DEC with {HIDDEN} units (Table II)\n");
    let _ = writeln!(
        out,
        "Data: the reproduction's (`protocol::prepare`): P = {p} training samples, n = {n} z-scored features (n + 1 = {} weights per unit with the threshold), M = {m} output with targets {{0, 1}}.\n",
        n + 1
    );
    eprintln!("dec-report: cod-rna DEC(2) ×{reps}…");
    let dec2 = fits(dec2_params, cod, reps)?;
    eprintln!("dec-report: cod-rna DEC(10) ×{reps}…");
    let dec10 = fits(params(SlfnTrainer::Dec { maxiter: 10 })?, cod, reps)?;

    let _ = writeln!(
        out,
        "| trainer | median (s) | best (s) | paper (s, 2010 CPU) | paper / ours | final E | unit steps | Step B time (s, median) | rest: Step A with h = 0, setup (s) |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, f) in [("DEC(2)", &dec2), ("DEC(10)", &dec10)] {
        let paper = paper_seconds(COD_RNA, name).unwrap_or(f64::NAN);
        let (e, same) = f.objective();
        let unit = f.dec_median(|d| d.unit_time.as_secs_f64());
        let _ = writeln!(
            out,
            "| {name} | {:.3} | {:.3} | {paper:.2} | {} | {e:.6}{} | {} | {unit:.3} | {:.3} |",
            f.median(),
            f.best(),
            fmt_ratio(paper / f.median()),
            if same { "" } else { " (varies between runs)" },
            f.last().dec.as_ref().map_or(0, |d| d.unit_steps),
            f.median() - unit,
        );
    }
    let dec2_med = dec2.median();
    let _ = writeln!(
        out,
        "\nDEC(2) in **{dec2_med:.3} s** against the paper's {:.2} s: **{:.1}× faster** (target: under 1 s — {}).",
        paper_seconds(COD_RNA, "DEC(2)").unwrap_or(f64::NAN),
        paper_seconds(COD_RNA, "DEC(2)").unwrap_or(f64::NAN) / dec2_med,
        if dec2_med < 1.0 { "met" } else { "not met" }
    );
    Ok((dec2_params, dec2, dec10))
}

/// The floors of one unit-error evaluation on cod-rna.
struct Floors {
    /// Repetitions of the two floors on X (the best is kept).
    reps: usize,
    /// Seconds of one activation pass over X (`activation_pass`).
    pass: f64,
    /// Bytes of X.
    x_bytes: f64,
    /// Seconds to read X once.
    read_x: f64,
    /// Bytes per second reading a 256 MB buffer (from DRAM).
    dram_rate: f64,
}

/// Measures the floors of one unit-error evaluation on cod-rna: one
/// activation pass over X with the first unit's starting weights, one read
/// of X (best of 200, or 1000 in a full run, each) and the DRAM read rate
/// on a 256 MB buffer (best of 5).
fn measure_floors(cod: &Prepared, dec2_params: SlfnValidParams, quick: bool) -> Res<Floors> {
    let (_, n) = cod.x_train.dim();
    let m = cod.y_train.ncols();
    let xs = cod.x_train.as_standard_layout().into_owned();
    let x_flat = xs.as_slice().ok_or("X not contiguous")?;
    let (w0, _) = dec2_params.start(n, m);
    let w_unit = w0.row(0).to_vec();
    let floor_reps = if quick { 200 } else { 1000 };
    let pass = best_of(floor_reps, || activation_pass(x_flat, n, &w_unit));
    let x_bytes = (x_flat.len() * 8) as f64;
    let read_x = read_here_seconds(x_flat, floor_reps);
    let big = vec![1.0_f64; 32 << 20];
    let read_big = read_here_seconds(&big, 5);
    drop(big);
    let dram_rate = (32usize << 20) as f64 * 8.0 / read_big;
    Ok(Floors {
        reps: floor_reps,
        pass,
        x_bytes,
        read_x,
        dram_rate,
    })
}

/// Section 1, second table: writes the floors of one unit-error evaluation
/// and DEC(2)'s and DEC(10)'s unit steps and evaluations against them
/// ([`unit_step_rows`]).
fn unit_step_section(out: &mut String, cod: &Prepared, floors: &Floors, dec2: &Fits, dec10: &Fits) {
    let (p, n) = cod.x_train.dim();
    let Floors {
        reps: floor_reps,
        pass,
        x_bytes,
        read_x,
        dram_rate,
    } = *floors;
    let _ = writeln!(out, "\n### cod-rna: a unit step against its O(P·n) floor\n");
    let _ = writeln!(
        out,
        "- **Floor of one unit-error evaluation**: one pass over X computing `t_p = x_pᵀw − θ` and `g(t_p)` for all {p} samples (a plain loop summing the sigmoids, nothing stored; best of {floor_reps}): **{:.3} ms** ({:.2} ns per sample).",
        pass * 1e3,
        pass / p as f64 * 1e9
    );
    let _ = writeln!(
        out,
        "- **Memory floor**: reading X once ({:.2} MB; 8-accumulator read loop, 1 thread, best of {floor_reps}): **{:.3} ms** ({:.1} GB/s — X stays in the cache between passes; a 256 MB buffer reads at {:.1} GB/s from DRAM, which would make it {:.3} ms).",
        x_bytes / 1e6,
        read_x * 1e3,
        x_bytes / read_x / 1e9,
        dram_rate / 1e9,
        x_bytes / dram_rate * 1e3
    );
    let _ = writeln!(
        out,
        "- Per evaluation below = Step B time / unit-error evaluations (values; those with the gradient are counted among them): a slight overestimate, since Step B's time also holds each unit's `b = φ − g_jλ_jᵀ − Y`, its new activations and the updates (27)–(28) with the closed-form `λ_j` (about four more O(P) passes per step) and the L-BFGS and Armijo bookkeeping.\n"
    );
    let _ = writeln!(out, "| | DEC(2) | DEC(10) |");
    let _ = writeln!(out, "|---|---:|---:|");
    for (name, a, b) in unit_step_rows(dec2, dec10, pass, read_x) {
        let _ = writeln!(out, "| {name} | {a} | {b} |");
    }
    let _ = writeln!(
        out,
        "\nThe evaluation floor itself is {} the memory floor: the loop is bound by the sigmoid's `exp` and the {n}-term dot product per sample, not by reading X.",
        fmt_ratio(pass / read_x)
    );
}

/// The rows of the unit-step table, `(name, DEC(2), DEC(10))`: the counts
/// of the last fit, and the times per unit step and per evaluation (median
/// over the fits) against the evaluation floor `pass` and the memory floor
/// `read_x`.
fn unit_step_rows(dec2: &Fits, dec10: &Fits, pass: f64, read_x: f64) -> Vec<(&'static str, String, String)> {
    let per = |f: &Fits, g: &dyn Fn(&models::slfn::DecReport) -> f64| f.dec_median(g);
    let step = |d: &models::slfn::DecReport| d.unit_time.as_secs_f64() / d.unit_steps.max(1) as f64;
    let eval = |d: &models::slfn::DecReport| d.unit_time.as_secs_f64() / d.unit_evaluations.values.max(1) as f64;
    let counts = |f: &Fits| {
        let d = f.last().dec.clone().unwrap_or_default();
        (
            d.unit_steps,
            d.unit_evaluations.values,
            d.unit_evaluations.gradients,
            d.lbfgs_iterations,
            d.skipped,
            d.lbfgs_accepted,
            d.armijo_taken,
        )
    };
    let (c2, c10) = (counts(dec2), counts(dec10));
    vec![
        ("unit steps (Step B on one unit)", c2.0.to_string(), c10.0.to_string()),
        (
            "unit-error evaluations: values (with gradient)",
            format!("{} ({})", c2.1, c2.2),
            format!("{} ({})", c10.1, c10.2),
        ),
        (
            "evaluations per step",
            format!("{:.1}", c2.1 as f64 / c2.0.max(1) as f64),
            format!("{:.1}", c10.1 as f64 / c10.0.max(1) as f64),
        ),
        (
            "inner L-BFGS iterations (per step)",
            format!("{} ({:.1})", c2.3, c2.3 as f64 / c2.0.max(1) as f64),
            format!("{} ({:.1})", c10.3, c10.3 as f64 / c10.0.max(1) as f64),
        ),
        (
            "steps skipped / L-BFGS point taken / Armijo point taken",
            format!("{} / {} / {}", c2.4, c2.5, c2.6),
            format!("{} / {} / {}", c10.4, c10.5, c10.6),
        ),
        (
            "**time per unit step (ms)**",
            format!("**{:.2}**", per(dec2, &step) * 1e3),
            format!("**{:.2}**", per(dec10, &step) * 1e3),
        ),
        (
            "time per unit step / evaluation floor",
            fmt_ratio(per(dec2, &step) / pass),
            fmt_ratio(per(dec10, &step) / pass),
        ),
        (
            "**time per evaluation (ms, overestimate)**",
            format!("**{:.3}**", per(dec2, &eval) * 1e3),
            format!("**{:.3}**", per(dec10, &eval) * 1e3),
        ),
        (
            "time per evaluation / evaluation floor",
            fmt_ratio(per(dec2, &eval) / pass),
            fmt_ratio(per(dec10, &eval) / pass),
        ),
        (
            "time per evaluation / memory floor (read X once)",
            fmt_ratio(per(dec2, &eval) / read_x),
            fmt_ratio(per(dec10, &eval) / read_x),
        ),
    ]
}

/// Section 2: on cod-rna and magic, our L-BFGS(`iterations`) beside
/// scipy's L-BFGS-B and DEC(10) ([`compare`]; magic's DEC(10) timed here,
/// `reps` fits, cod-rna's is `dec10`), then the summary of both sets.
fn lbfgs_section(
    out: &mut String,
    cod: &Prepared,
    dec10: &Fits,
    quick: bool,
    iterations: usize,
    reps: usize,
    lbfgs_reps: usize,
) -> Res<()> {
    let _ = writeln!(
        out,
        "\n### L-BFGS({iterations}) on all weights: ours beside scipy's L-BFGS-B, and DEC(10)\n"
    );
    let _ = writeln!(
        out,
        "Same objective E (5), data and start z⁰ = (Λ⁰, W⁰) in both, in this run. Ours: `optim::Lbfgs` as `SlfnTrainer::Lbfgs` runs it (memory 5, Moré–Thuente c₁ = 10⁻⁴, c₂ = 0.9, gradient test off) through `fit_with_report`. scipy: `benches/scipy_slfn.py`, E and ∇E in vectorized numpy (`scipy.special.expit`), `minimize(method='L-BFGS-B', jac=True, options=dict(maxiter={iterations}, maxcor=5, maxfun=10**9, ftol=0, gtol=0))` (its line search `dcsrch` with ftol = 10⁻³, gtol = 0.9), only the `minimize` call timed. DEC(10) starts from the same W⁰ (its first Step A computes λ, so Λ⁰ is not used). Both sets as the reproduction prepares them (`protocol::prepare`): cod-rna's training file; magic's training part by the reproduction's seeded split of the 19020 rows (Table I: 17118), features z-scored with the training part's statistics.\n"
    );
    let mut summary = vec![];
    for index in [COD_RNA, MAGIC] {
        let name = SOURCES[index].paper_name;
        let data = if index == COD_RNA {
            cod.clone()
        } else {
            eprintln!("dec-report: loading {name}…");
            load(index, quick)?
        };
        let dec10_here = if index == COD_RNA {
            None
        } else {
            eprintln!("dec-report: {name} DEC(10) ×{reps}…");
            Some(fits(params(SlfnTrainer::Dec { maxiter: 10 })?, &data, reps)?)
        };
        let dec10_fits = dec10_here.as_ref().unwrap_or(dec10);
        let section = compare(name, index, &data, iterations, lbfgs_reps, dec10_fits)?;
        out.push_str(&section.0);
        summary.push(section.1);
    }
    let _ = writeln!(out, "\n### Summary\n");
    for line in summary {
        let _ = writeln!(out, "- {line}");
    }
    Ok(())
}

/// What scipy's run returned.
struct Scipy {
    start_objective: f64,
    seconds: f64,
    seconds_best: f64,
    objective: f64,
    nit: f64,
    nfev: f64,
    eval_seconds: f64,
    message: String,
    versions: String,
    gradient: Vec<f64>,
}

/// Runs `benches/scipy_slfn.py` on the files in `dir`.
fn scipy(dir: &Path, iterations: usize, reps: usize) -> Result<Scipy, String> {
    let args = [dir.display().to_string(), iterations.to_string(), reps.to_string()];
    let json = run_python("scipy_slfn.py", &args, THREADS)?;
    let num = |k: &str| json_number(&json, k).ok_or_else(|| format!("no {k} in the script's output {json:?}"));
    Ok(Scipy {
        start_objective: num("start_objective")?,
        seconds: num("seconds")?,
        seconds_best: num("seconds_best")?,
        objective: num("objective")?,
        nit: num("nit")?,
        nfev: num("nfev")?,
        eval_seconds: num("eval_seconds")?,
        message: json_field(&json, "message").unwrap_or("").to_string(),
        versions: format!(
            "numpy {}, scipy {}, OPENBLAS_NUM_THREADS = {}",
            json_field(&json, "numpy").unwrap_or("?"),
            json_field(&json, "scipy").unwrap_or("?"),
            json_field(&json, "threads").unwrap_or("?")
        ),
        gradient: read_f64_le(&dir.join("grad0_py.f64")).map_err(|e| e.to_string())?,
    })
}

/// One set's comparison: its Markdown section and a summary line. Times
/// one E + ∇E at the start z⁰ ([`start_point`]), writes the files for
/// Python ([`write_scipy_inputs`]), times our L-BFGS(`iterations`) (`reps`
/// fits) and scipy's, then writes the check at the start, the table beside
/// `dec10` and the verdict.
fn compare(
    name: &str,
    index: usize,
    data: &Prepared,
    iterations: usize,
    reps: usize,
    dec10: &Fits,
) -> Res<(String, String)> {
    let mut out = String::new();
    let (p, n) = data.x_train.dim();
    let m = data.y_train.ncols();
    let lb_params = params(SlfnTrainer::Lbfgs { iterations })?;
    let (w0, l0): (Array2<f64>, Array2<f64>) = lb_params.start(n, m);
    let (tau_l, tau_w) = (lb_params.tau_lambda(), lb_params.tau_w(n));
    let (e0, g0, eval) = start_point(data, &w0, &l0, tau_l, tau_w)?;
    let dir = target_dir().join("dec-report").join(name);
    write_scipy_inputs(&dir, data, &w0, &l0, tau_l, tau_w)?;

    eprintln!("dec-report: {name} ours L-BFGS({iterations}) ×{reps}…");
    let ours = fits(lb_params, data, reps)?;
    eprintln!("dec-report: {name} scipy L-BFGS-B({iterations}) ×{reps}…");
    let sp = scipy(&dir, iterations, reps);

    let _ = writeln!(
        out,
        "#### {name} (P = {p}, n = {n}, M = {m}; files in `{}`)\n",
        dir.strip_prefix(target_dir().parent().unwrap_or(Path::new("")))
            .unwrap_or(&dir)
            .display()
    );
    let agree = start_check(&mut out, &sp, e0, &g0);
    let runs = Runs {
        ours: &ours,
        scipy: &sp,
        dec10,
        eval,
    };
    results_table(&mut out, index, iterations, e0, &runs);
    let summary = verdict(&mut out, name, iterations, &runs, agree);
    let _ = writeln!(out);
    Ok((out, summary))
}

/// The runs of one set's comparison.
struct Runs<'a> {
    /// Our L-BFGS fits.
    ours: &'a Fits,
    /// scipy's run, or why it was not run.
    scipy: &'a Result<Scipy, String>,
    /// DEC(10)'s fits.
    dec10: &'a Fits,
    /// Seconds of one of our E + ∇E at z⁰.
    eval: f64,
}

/// Our E and ∇E at z⁰ = (Λ⁰, W⁰), and the best of 20 times of one E + ∇E
/// there: `(E(z⁰), ∇E(z⁰), seconds)`.
fn start_point(
    data: &Prepared,
    w0: &Array2<f64>,
    l0: &Array2<f64>,
    tau_l: f64,
    tau_w: f64,
) -> Res<(f64, Vec<f64>, f64)> {
    let error = ErrorFunction::new(data.x_train.view(), data.y_train.view(), tau_l, tau_w)?;
    let mut objective = FullObjective::new(error, HIDDEN);
    let z0: Vec<f64> = l0.iter().chain(w0.iter()).copied().collect();
    let mut g0 = vec![0.0; z0.len()];
    let e0 = objective.value_and_gradient(&z0, &mut g0);
    let mut g = g0.clone();
    let eval = best_of(20, || objective.value_and_gradient(&z0, &mut g));
    Ok((e0, g0, eval))
}

/// Writes what `benches/scipy_slfn.py` reads into `dir`: the data, the
/// start (W⁰, Λ⁰) and `meta.txt` (P, n, M, the units and the two `τ`s).
fn write_scipy_inputs(
    dir: &Path,
    data: &Prepared,
    w0: &Array2<f64>,
    l0: &Array2<f64>,
    tau_l: f64,
    tau_w: f64,
) -> Res<()> {
    let (p, n) = data.x_train.dim();
    let m = data.y_train.ncols();
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    write_f64_le(&dir.join("x.f64"), data.x_train.iter())?;
    write_f64_le(&dir.join("y.f64"), data.y_train.iter())?;
    write_f64_le(&dir.join("w0.f64"), w0.iter())?;
    write_f64_le(&dir.join("lambda0.f64"), l0.iter())?;
    std::fs::write(dir.join("meta.txt"), format!("{p} {n} {m} {HIDDEN} {tau_l} {tau_w}\n"))?;
    Ok(())
}

/// Writes the check that our E and ∇E at z⁰ (`e0`, `g0`) agree with
/// numpy's (or that scipy was not run); whether they agree.
fn start_check(out: &mut String, sp: &Result<Scipy, String>, e0: f64, g0: &[f64]) -> bool {
    let mut agree = true;
    match sp {
        Ok(s) => {
            let rel = (s.start_objective - e0).abs() / e0.abs();
            let gmax = g0.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
            let gdiff = if s.gradient.len() == g0.len() {
                g0.iter()
                    .zip(&s.gradient)
                    .fold(0.0_f64, |a, (u, v)| a.max((u - v).abs()))
                    / gmax
            } else {
                f64::INFINITY
            };
            agree = rel <= VALUE_TOLERANCE && gdiff <= GRADIENT_TOLERANCE;
            let _ = writeln!(
                out,
                "Check at the start: E(z⁰) ours **{e0:.17e}**, numpy **{:.17e}**, relative difference {rel:.1e}; ∇E: largest difference {gdiff:.1e} of its largest entry — {}\n",
                s.start_objective,
                if agree {
                    "the same function.".to_string()
                } else {
                    format!("**THE OBJECTIVES DIFFER (tolerances {VALUE_TOLERANCE:.0e}, {GRADIENT_TOLERANCE:.0e}): the comparison below is meaningless.**")
                }
            );
        }
        Err(e) => {
            let _ = writeln!(
                out,
                "**scipy's L-BFGS-B was not run**: {e}. Run with a `python3` (or `$PYTHON`) that has numpy and scipy to include it. E(z⁰) ours: {e0:.17e}.\n"
            );
        }
    }
    agree
}

/// Writes the table of the start, ours, scipy's and DEC(10)'s runs beside
/// the paper's times, why ours stopped and the time of one evaluation.
fn results_table(out: &mut String, index: usize, iterations: usize, e0: f64, runs: &Runs<'_>) {
    let Runs {
        ours,
        scipy: sp,
        dec10,
        eval,
    } = *runs;
    let _ = writeln!(
        out,
        "| method | time (s, median) | best (s) | final E | iterations | evaluations (E with ∇E) | ms per evaluation | paper (s) |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
    let _ = writeln!(out, "| start z⁰ | — | — | {e0:.6} | — | — | — | — |");
    let (e_ours, same) = ours.objective();
    let r = ours.last();
    let paper_lb = paper_seconds(index, &format!("lbfgs({iterations})"));
    let paper_cell = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.2}"));
    let _ = writeln!(
        out,
        "| ours, `optim::Lbfgs` | {:.3} | {:.3} | {e_ours:.6}{} | {} | {} | {:.3} | {} |",
        ours.median(),
        ours.best(),
        if same { "" } else { " (varies)" },
        r.iterations,
        r.evaluations.values,
        ours.median() / r.evaluations.values.max(1) as f64 * 1e3,
        paper_cell(paper_lb),
    );
    if let Ok(s) = sp {
        let _ = writeln!(
            out,
            "| scipy L-BFGS-B | {:.3} | {:.3} | {:.6} | {} | {} | {:.3} | — |",
            s.seconds,
            s.seconds_best,
            s.objective,
            s.nit,
            s.nfev,
            s.seconds / s.nfev.max(1.0) * 1e3
        );
    }
    let (e_dec, _) = dec10.objective();
    let d = dec10.last().dec.clone().unwrap_or_default();
    let _ = writeln!(
        out,
        "| DEC(10) | {:.3} | {:.3} | {e_dec:.6} | 10 major, {} unit steps | {} unit-error | — | {} |",
        dec10.median(),
        dec10.best(),
        d.unit_steps,
        d.unit_evaluations.values,
        paper_cell(paper_seconds(index, "DEC(10)")),
    );
    let ours_stop = r.termination.as_ref().map_or("—".to_string(), |t| t.to_string());
    let _ = writeln!(out, "\nOurs stopped: {ours_stop}.");
    let _ = writeln!(
        out,
        "One E + ∇E evaluation at z⁰ (best of 20): ours (`FullObjective`) **{:.3} ms**{}.",
        eval * 1e3,
        match sp {
            Ok(s) => format!(", numpy **{:.3} ms**", s.eval_seconds * 1e3),
            Err(_) => String::new(),
        }
    );
}

/// Writes how scipy stopped and the verdict (time, final E, DEC(10)
/// against both), and returns the set's summary line.
fn verdict(out: &mut String, name: &str, iterations: usize, runs: &Runs<'_>, agree: bool) -> String {
    let Runs {
        ours,
        scipy: sp,
        dec10,
        eval,
    } = *runs;
    let (e_ours, _) = ours.objective();
    let (e_dec, _) = dec10.objective();
    match sp {
        Ok(s) => {
            let _ = writeln!(out, "scipy stopped: {} ({}).", s.message, s.versions);
            let time_ratio = s.seconds / ours.median();
            let _ = writeln!(
                out,
                "\n**scipy / ours in time: {time_ratio:.2}×** ({}); final E: ours {e_ours:.6}, scipy {:.6} ({}). DEC(10): E {e_dec:.6} in {:.3} s — {} E than both, {} than both.{}",
                if time_ratio >= 1.0 { "ours faster" } else { "**scipy faster**" },
                s.objective,
                if e_ours <= s.objective { "ours lower" } else { "scipy lower" },
                dec10.median(),
                if e_dec < e_ours.min(s.objective) { "lower" } else { "**not** lower" },
                if dec10.median() < ours.median().min(s.seconds) { "faster" } else { "**not** faster" },
                if agree { "" } else { " (objectives differ: see the check above)" },
            );
            format!(
                "{name}: L-BFGS({iterations}) ours {:.2} s (E {e_ours:.4}), scipy {:.2} s (E {:.4}), scipy/ours {time_ratio:.2}×; DEC(10) {:.2} s (E {e_dec:.4}); per evaluation ours {:.3} ms, numpy {:.3} ms{}.",
                ours.median(),
                s.seconds,
                s.objective,
                dec10.median(),
                eval * 1e3,
                s.eval_seconds * 1e3,
                if agree { "" } else { " — OBJECTIVES DIFFER" }
            )
        }
        Err(_) => {
            let _ = writeln!(
                out,
                "\nDEC(10): E {e_dec:.6} in {:.3} s — {} E than ours, {} than ours.",
                dec10.median(),
                if e_dec < e_ours { "lower" } else { "**not** lower" },
                if dec10.median() < ours.median() {
                    "faster"
                } else {
                    "**not** faster"
                },
            );
            format!(
                "{name}: L-BFGS({iterations}) ours {:.2} s (E {e_ours:.4}); scipy not run; DEC(10) {:.2} s (E {e_dec:.4}).",
                ours.median(),
                dec10.median()
            )
        }
    }
}
