//! `elm-report`: the ELM part of `cargo xtask bench` (issue 3, §5).
//!
//! Measures, in one run on MNIST (60000 training images, z-scored as by
//! `cargo xtask fit`), on 2 OpenBLAS threads:
//!
//! 1. **The batch fit** with 2000 sigmoid nodes and each of its parts' floors,
//!    timed alone on buffers already in memory: the input product `X·W` as
//!    one DGEMM, the activation over the K×l matrix, the Gram product
//!    `AᵀA` (DSYRK), `AᵀY` (DGEMM) and the Cholesky solve (DPOTRF + two
//!    DTRSM). The whole fit is [`models::Fit`] on `ElmParams` as the CLI calls it; the
//!    report gives its ratio to the sum of the floors, and numpy's time for
//!    the same fit when `python3` with numpy is available
//!    (`benches/numpy_elm.py`). The products `X·W` and `AᵀA` are also
//!    stated against the best DGEMM measured beside on the same threads
//!    (the project's BLAS, numpy's, faer: `benches::dgemm_peers`, issue 37),
//!    so that a slow BLAS kernel cannot hide behind floors computed from
//!    itself.
//! 2. **Adding one node at l = 2000** (Zhu & Wei's Table V step): the update
//!    given the new column for Alg. 1, 2, 3 and Li et al., nodes added one
//!    after another (l + 1, l + 2, …, after one untimed node), each against
//!    the time to stream the stored hidden matrix through memory once just
//!    before it; computing the new column is timed separately.
//!
//! Usage: `elm-report [--quick] [--out FILE] [--reps N]` (`--quick`: 10000
//! images, 500 nodes).

use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

use benches::dgemm_peers::{fraction_of_best, percent_cell, DgemmPeers};
use benches::{median, python_program, read_once_seconds, report_header, ReportArgs};
use experiments::datasets::{self, one_hot, StandardScaler};
use linalg_core::kernels::{self, Flops, MatMut, MatRef, Op, Owned, Tri};
use linalg_core::ridge::Strategy;
use linalg_core::threads::set_blas_threads;
use models::prelude::*;
use models::{Activation, ElmParams, HiddenLayer, InputScale};
use ndarray::{s, Array2};

const LAMBDA: f64 = 0.1;
const SEED: u64 = 7;
const THREADS: usize = 2;

/// Times the ELM's batch fit and its incremental growth on MNIST, beside numpy.
#[derive(clap::Parser)]
#[command(name = "elm-report")]
struct Args {
    #[command(flatten)]
    report: ReportArgs,
}

/// Median and best of `reps` timings of `f`.
fn time(reps: usize, mut f: impl FnMut()) -> (f64, f64) {
    let mut ts = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        f();
        ts.push(t.elapsed().as_secs_f64());
    }
    let best = ts.iter().copied().fold(f64::INFINITY, f64::min);
    (median(ts), best)
}

fn main() {
    let cli: Args = benches::start();
    benches::finish("elm-report", run(&cli.report));
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Loads MNIST, measures DGEMM here and beside it, and writes the report:
/// its header, the batch fit (section 1), adding one node (section 2) and
/// the total run time.
fn run(args: &ReportArgs) -> Res<()> {
    let reps = args.reps_or(5);
    let started = Instant::now();
    let (samples, l) = if args.quick { (10_000, 500) } else { (60_000, 2000) };
    eprintln!("elm-report: loading MNIST…");
    let train = datasets::load_shipped("mnist-train")?;
    let idx: Vec<usize> = (0..samples.min(train.n_samples())).collect();
    let train = train.select(&idx);
    let x = StandardScaler::fit(&train.x)?.transform(&train.x)?;
    let y = one_hot(&train.y, 10)?;
    let (k, n_in) = x.dim();
    let m = y.ncols();
    set_blas_threads(THREADS);

    let mut out = report_header(
        "ELM on MNIST (issue 3, §5)",
        "elm-report",
        args.quick,
        &format!(
            "{THREADS} OpenBLAS threads, {} repetitions per timing (median, best)",
            reps
        ),
    );
    let _ = writeln!(
        out,
        "- Data: K = {k} MNIST training images, N = {n_in} z-scored pixels, M = {m} one-hot classes; l = {l} sigmoid nodes, λ = {LAMBDA}\n"
    );

    // DGEMM here and in the other libraries, on the fit's thread count.
    let gemm_n = if args.quick { 1024 } else { 2048 };
    eprintln!("elm-report: DGEMM (n = {gemm_n}) here and in the other libraries…");
    let peers = DgemmPeers::measure(gemm_n, &[THREADS], 3);

    batch_fit_section(&mut out, &x, &y, samples, l, reps, &peers)?;
    one_node_section(&mut out, &x, &y, l, reps)?;
    let _ = writeln!(out, "\nTotal run time: {:.0} s.", started.elapsed().as_secs_f64());
    benches::write_report("elm-report", &out, args.out.as_deref())
}

/// Median and best seconds of each part of the batch fit, timed alone.
struct Parts {
    gemm: (f64, f64),
    activation: (f64, f64),
    syrk: (f64, f64),
    aty: (f64, f64),
    solve: (f64, f64),
}

/// Section 1: times the batch fit's parts alone (`time_parts`), the whole
/// fit and numpy's fit, and writes the DGEMM table of the libraries, the
/// parts' table against the best DGEMM and the whole fit against the sum
/// of the parts' floors.
fn batch_fit_section(
    out: &mut String,
    x: &Array2<f64>,
    y: &Array2<f64>,
    samples: usize,
    l: usize,
    reps: usize,
    peers: &DgemmPeers,
) -> Res<()> {
    let best = peers.best(THREADS).map(|(row, rate)| (row.library.clone(), rate));
    let parts = time_parts(x, y, l, reps)?;
    eprintln!("elm-report: batch fit, whole (Elm::fit)…");
    let config = ElmParams::new(l, Activation::Sigmoid)
        .with_lambda(LAMBDA)
        .with_seed(SEED)
        .with_input_scale(InputScale::Fixed(1.0));
    let mut fit_err = None;
    let whole = time(reps.min(3), || {
        if let Err(e) = config.fit(&Dataset::new(x.view(), y.view())) {
            fit_err = Some(e);
        }
    });
    if let Some(e) = fit_err {
        return Err(e.into());
    }
    let numpy = numpy_seconds(samples, l);
    let _ = writeln!(out, "{}", peers.markdown());
    let best_rate = best.as_ref().map(|(_, rate)| *rate);
    let sums = parts_table(out, &parts, x.dim(), y.ncols(), l, best);
    whole_fit_lines(out, whole, sums, best_rate, numpy);
    Ok(())
}

/// Times the batch fit's parts alone, `reps` times each, on buffers already
/// in memory: the input product `X·W` (one DGEMM), the sigmoid with bias
/// over the K×l matrix, `AᵀA` (DSYRK), `AᵀY` (DGEMM) and the Cholesky solve
/// of `AᵀA + λI` (DPOTRF + two DTRSM).
fn time_parts(x: &Array2<f64>, y: &Array2<f64>, l: usize, reps: usize) -> Res<Parts> {
    let (k, n_in) = x.dim();
    let m = y.ncols();
    eprintln!("elm-report: batch fit, parts…");
    let hidden = HiddenLayer::random(n_in, l, Activation::Sigmoid, SEED);
    let w_in = hidden.weights().as_standard_layout().into_owned();
    let xs = x.as_standard_layout().into_owned();
    let (Some(xd), Some(wd)) = (xs.as_slice(), w_in.as_slice()) else {
        return Err("inputs are not contiguous".into());
    };
    // Pre-touched K×l buffer (row-major: column-major l×K), reused by every part.
    let mut z = vec![0.0; k * l];
    let gemm = time(reps, || {
        kernels::gemm(
            &mut Flops::default(),
            1.0,
            MatRef::new(wd, l, n_in, l),
            Op::N,
            MatRef::new(xd, n_in, k, n_in),
            Op::N,
            0.0,
            MatMut::new(&mut z, l, k, l),
        )
    });
    let mut za = Array2::from_shape_vec((k, l), z)?;
    let biases = hidden.biases().to_owned();
    let activation = time(reps, || {
        // Values stay in (0, 1) after the first pass; the cost of the
        // sigmoid does not depend on them.
        let _ = Activation::Sigmoid.apply_with_bias_inplace(&mut za, biases.view());
    });
    let zd = za.as_slice().ok_or("hidden matrix not contiguous")?;
    let a_t = MatRef::new(zd, l, k, l); // Aᵀ, column-major.
    let mut gram = Owned::zeros(l, l);
    let syrk = time(reps, || {
        kernels::syrk(&mut Flops::default(), 1.0, a_t, Op::N, 0.0, gram.as_mut())
    });
    let y_cm = Owned::from_view(y.view());
    let mut aty = Owned::zeros(l, m);
    let aty_t = time(reps, || {
        kernels::matmul(&mut Flops::default(), a_t, Op::N, y_cm.as_ref(), Op::N, aty.as_mut())
    });
    for i in 0..l {
        gram.set(i, i, gram.at(i, i) + LAMBDA);
    }
    let mut chol_ok = true;
    let solve = time(reps, || {
        let mut r = gram.clone();
        let mut w = aty.clone();
        let mut fl = Flops::default();
        chol_ok &= kernels::potrf(&mut fl, Tri::Upper, r.as_mut()).is_ok();
        kernels::potrs_upper(&mut fl, r.as_ref(), w.as_mut());
    });
    if !chol_ok {
        return Err("AᵀA + λI is not positive definite".into());
    }
    Ok(Parts {
        gemm,
        activation,
        syrk,
        aty: aty_t,
        solve,
    })
}

/// Writes the heading of section 1 and the table of the batch fit's parts:
/// median, best, GFLOP/s and the fraction of the `best` library's DGEMM,
/// and the time `X·W` and `AᵀA` would take at its rate. Returns the sums
/// of the medians, of the bests and of the times at the best DGEMM rate.
fn parts_table(
    out: &mut String,
    parts: &Parts,
    (k, n_in): (usize, usize),
    m: usize,
    l: usize,
    best: Option<(String, f64)>,
) -> (f64, f64, f64) {
    // (name, (median, best) seconds, flops, whether it is one of the two
    // large products whose floor is also taken at the best DGEMM rate).
    let parts = [
        ("`X·W` (DGEMM)", parts.gemm, 2.0 * (k * n_in * l) as f64, true),
        ("activation (sigmoid + bias)", parts.activation, 0.0, false),
        ("`AᵀA` (DSYRK)", parts.syrk, (k * l * l) as f64, true),
        ("`AᵀY` (DGEMM)", parts.aty, 2.0 * (k * l * m) as f64, false),
        (
            "Cholesky solve (DPOTRF + 2 DTRSM)",
            parts.solve,
            (l * l * l) as f64 / 3.0 + 2.0 * (l * l * m) as f64,
            false,
        ),
    ];
    let best_rate = best.as_ref().map(|(_, rate)| *rate);
    let _ = writeln!(out, "### Batch fit: parts and whole\n");
    let _ = writeln!(
        out,
        "% of the best DGEMM: of the fastest library's DGEMM on {THREADS} threads in the table above{}. At the best \
         DGEMM rate: the time `X·W` and `AᵀA` would take at that rate (the other parts as measured: `AᵀY` has \
         only M = {m} columns and the solve is small, neither can reach a DGEMM rate).\n",
        best.as_ref().map_or_else(String::new, |(library, rate)| format!(
            " ({library}, {rate:.1} GFLOP/s)"
        ))
    );
    let _ = writeln!(
        out,
        "| part | median (s) | best (s) | GFLOP/s (median) | % of the best DGEMM | at the best DGEMM rate (s) |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    let (mut sum_med, mut sum_best, mut sum_at_best) = (0.0, 0.0, 0.0);
    for (name, (med, best), flops, product) in parts {
        sum_med += med;
        sum_best += best;
        let at_best = match best_rate {
            Some(rate) if product => flops / (rate * 1e9),
            _ => med,
        };
        sum_at_best += at_best;
        let (rate, of_best) = if flops > 0.0 {
            let rate = flops / med / 1e9;
            (format!("{rate:.1}"), percent_cell(fraction_of_best(rate, best_rate)))
        } else {
            ("—".into(), "—".into())
        };
        let _ = writeln!(
            out,
            "| {name} | {med:.3} | {best:.3} | {rate} | {of_best} | {at_best:.3} |"
        );
    }
    (sum_med, sum_best, sum_at_best)
}

/// Writes the last rows of the parts' table (the sum of the floors, the
/// whole fit) and the whole fit's ratios to the sums, then numpy's time for
/// the same fit (or why it was not run).
fn whole_fit_lines(
    out: &mut String,
    whole: (f64, f64),
    (sum_med, sum_best, sum_at_best): (f64, f64, f64),
    best_rate: Option<f64>,
    numpy: Option<f64>,
) {
    let _ = writeln!(
        out,
        "| **sum of the floors** | **{sum_med:.3}** | **{sum_best:.3}** | | | **{sum_at_best:.3}** |"
    );
    let _ = writeln!(
        out,
        "| **whole fit** (`Elm::fit`: draw, `X·W`, activation, checks, solve) | **{:.3}** | **{:.3}** | | | |",
        whole.0, whole.1
    );
    let _ = writeln!(
        out,
        "\nWhole fit / sum of floors: **{:.2}×** by median, {:.2}× best to best (target ≤ 1.2×).",
        whole.0 / sum_med,
        whole.1 / sum_best
    );
    match best_rate {
        Some(_) => {
            let _ = writeln!(
                out,
                "Whole fit / sum of floors with `X·W` and `AᵀA` at the best DGEMM rate measured beside: **{:.2}×** by median.",
                whole.0 / sum_at_best
            );
        }
        None => {
            let _ = writeln!(
                out,
                "No DGEMM was measured beside: the floors above are the project's BLAS alone."
            );
        }
    }
    match numpy {
        Some(t) => {
            let _ = writeln!(
                out,
                "numpy, same fit (`benches/numpy_elm.py`: `X@W + b`, sigmoid, `AᵀA + λI`, `AᵀY`, `np.linalg.solve`): **{t:.3} s** best of 3."
            );
        }
        None => {
            let _ = writeln!(
                out,
                "numpy was not run (python3 with numpy not found); the issue quotes about 6.5 s for this fit on this machine."
            );
        }
    }
}

/// One strategy's row of the one-node table: the strategy, median and best
/// seconds per append, its flops, the median ratio to the read just before
/// each append, and the median of those reads (seconds).
type NodeRow = (Strategy, f64, f64, u64, f64, f64);

/// Section 2: times adding one node at l with Alg. 2, Alg. 3, Alg. 1 and
/// Li et al. (`time_growth`) and computing the new column, and writes the
/// table of the appends against the time to stream the stored hidden
/// matrix once.
fn one_node_section(out: &mut String, x: &Array2<f64>, y: &Array2<f64>, l: usize, reps: usize) -> Res<()> {
    let k = x.nrows();
    let n_in = x.ncols();
    eprintln!("elm-report: one-node update at l = {l}…");
    // Nodes are added one after another, as a user grows a network: each
    // strategy appends one untimed node first (Alg. 2 then carries the
    // pending rank-one term of the node before, as in steady growth), then
    // `reps` timed nodes in a row, each right after one read of the stored A.
    let max_reps = reps.max(9);
    let grown = HiddenLayer::random(n_in, l + max_reps + 1, Activation::Sigmoid, SEED);
    let column = time(reps, || {
        let _ = grown.outputs_range(x.view(), l..l + 1);
    });
    let a = grown.outputs(x.view())?;
    let mut rows = vec![];
    let mut stream = None;
    for strategy in [Strategy::Alg2, Strategy::Alg3, Strategy::Alg1, Strategy::LiEtAl] {
        rows.push(time_growth(strategy, &a, y, l, reps, max_reps, &mut stream)?);
    }
    drop(a);
    let stream = stream.unwrap_or(f64::NAN);
    let bytes = (k * l * 8) as f64;
    let _ = writeln!(out, "\n### Adding one node at l = {l} (K = {k})\n");
    let _ = writeln!(
        out,
        "Streaming the K×l hidden matrix once ({:.0} MB, plain read loop on {THREADS} threads): **{:.1} ms** ({:.1} GB/s). Computing the new node's column (`X·w` + sigmoid), timed separately: {:.1} ms median. Nodes are appended one after another (nodes l + 2, l + 3, … after one untimed node), each right after one read of the stored A.\n",
        bytes / 1e6,
        stream * 1e3,
        bytes / stream / 1e9,
        column.0 * 1e3
    );
    let _ = writeln!(out, "| algorithm | median (ms) | best (ms) | flops | × stream (median) | × stream (best) | stream read just before each append: median (ms) | × that read, median of the pairs | speedup over Li et al. (median) |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let li = rows.iter().find(|r| r.0 == Strategy::LiEtAl).map_or(f64::NAN, |r| r.1);
    for (strategy, med, best, flops, ratio, s_med) in &rows {
        let _ = writeln!(
            out,
            "| {strategy} | {:.1} | {:.1} | {:.2e} | {:.2} | {:.2} | {:.1} | {:.2} | {:.1} |",
            med * 1e3,
            best * 1e3,
            *flops as f64,
            med / stream,
            best / stream,
            s_med * 1e3,
            ratio,
            li / med
        );
    }
    Ok(())
}

/// Builds `strategy` on the first l columns of `a`, appends one untimed
/// node, then times appending nodes l + 2, l + 3, … one after another
/// (`max_reps` of them, 3 at most for Li et al.), each right after one read
/// of the stored A on [`THREADS`] threads. The first strategy also measures
/// `stream`, the best of 5 reads of its stored A before its first append.
fn time_growth(
    strategy: Strategy,
    a: &Array2<f64>,
    y: &Array2<f64>,
    l: usize,
    reps: usize,
    max_reps: usize,
    stream: &mut Option<f64>,
) -> Res<NodeRow> {
    let a0 = a.slice(s![.., ..l]);
    let new_column = |i: usize| a.slice(s![.., l + i..l + i + 1]);
    eprintln!("elm-report: one-node update, {strategy}…");
    let mut sv = strategy.build(a0, y.view(), LAMBDA, linalg_core::Precision::F64)?;
    sv.reserve(max_reps + 1);
    if stream.is_none() {
        let stored = sv.hidden();
        let data = stored.as_slice_memory_order().ok_or("stored A not contiguous")?;
        *stream = Some(read_once_seconds(data, 5, THREADS));
    }
    sv.append(new_column(0))?;
    let mut ts = vec![];
    // Each append right after one read of the stored A: the machine
    // state (its memory bandwidth varies between runs) is the same for
    // both, and the ratio of the pair is what the 1.25× target means.
    let mut ratios = vec![];
    let mut streams = vec![];
    let mut flops = 0;
    let reps = if strategy == Strategy::LiEtAl {
        reps.min(3)
    } else {
        max_reps
    };
    for i in 1..=reps {
        let s_t = {
            let stored = sv.hidden();
            let data = stored.as_slice_memory_order().ok_or("stored A not contiguous")?;
            read_once_seconds(data, 1, THREADS)
        };
        let t = Instant::now();
        sv.append(new_column(i))?;
        let dt = t.elapsed().as_secs_f64();
        ts.push(dt);
        ratios.push(dt / s_t);
        streams.push(s_t);
        flops = sv.last_flops();
    }
    let best = ts.iter().copied().fold(f64::INFINITY, f64::min);
    Ok((strategy, median(ts), best, flops, median(ratios), median(streams)))
}

/// Seconds numpy takes for the same fit (best of 3), if Python
/// ([`python_program`]) and numpy are available.
fn numpy_seconds(samples: usize, l: usize) -> Option<f64> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/numpy_elm.py");
    let data = datasets::data_dir().join("mnist");
    let out = Command::new(python_program())
        .arg(script)
        .arg(&data)
        .arg(samples.to_string())
        .arg(l.to_string())
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "elm-report: numpy comparison skipped: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return None;
    }
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}
