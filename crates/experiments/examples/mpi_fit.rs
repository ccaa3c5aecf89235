//! Sharded fits under MPI against the one-process fit (issue 21, part 3).
//!
//! Run under `mpirun -np P` (built with `--features mpi`; `cargo xtask test`
//! runs it for P = 1, 2, 4 when `mpirun` is on `PATH`):
//!
//! ```text
//! mpirun -np 4 target/debug/examples/mpi_fit                      # --case fit
//! mpirun -np 2 target/debug/examples/mpi_fit --case empty-shard   # must fail on every process
//! mpirun -np 2 target/debug/examples/mpi_fit --case reader-error  # must fail on every process
//! mpirun -np 2 target/release/examples/mpi_fit --timing --rows 60000 --inputs 784 --nodes 1000
//! ```
//!
//! **`--case fit`** (the default): a deterministic synthetic data set of
//! `--rows` rows (row `i` drawn from its own seed, so a shard is the same
//! rows whatever the number of processes) is split into P contiguous
//! shards by rank. Each process fits the ELM and the BLS with
//! `fit_shards(&world, …)` on its shard in chunks, and on all rows with the
//! one-process `fit_chunks`. Checked on every process:
//!
//! 1. the sharded model's output weights `W_d` against the ridge solution
//!    `W*` of its own features `A_d` on all rows (one Cholesky solve on the
//!    whole `A_dᵀA_d`): both solve `(AᵀA + λI)W = AᵀY` with `AᵀA`, `AᵀY`
//!    summed in different orders. Forming them perturbs them by at most
//!    `γ‖A‖²`, `γ‖A‖‖Y‖` with `γ = (K + l)u` (sums of K terms, then of P ≤ K
//!    partial sums, l for the products), and the Cholesky solve is backward
//!    stable with a perturbation of the same order; first-order perturbation
//!    of `RW = B` (`R = AᵀA + λI`) gives, per solve,
//!    `‖ΔW‖ ≤ γ(κ(R)‖W‖ + ‖R⁻¹‖‖A‖‖Y‖)` with `κ(R) = (σ_max² + λ)/(σ_min² + λ)`,
//!    `‖R⁻¹‖ = 1/(σ_min² + λ)` from the singular values of `A`. The two
//!    solves' errors add (factor 2), and a factor 2 absorbs the constants:
//!    `tol = 4γ(κ(R)‖W‖_F + ‖R⁻¹‖‖A‖‖Y‖_F)` — the bound of
//!    `crates/models/tests/elm_stream.rs` (`ridge_tolerance(…, steps = 2, 1)`).
//! 2. `W_d` against the one-process fit's weights `W_1`: the same bound,
//!    plus the first-order effect of the difference of the two models'
//!    features `ΔA = A_1 − A_d` (the input scale comes from sums in
//!    another order, so `ΔA` is a few roundings, measured here):
//!    `dW = R⁻¹(ΔAᵀ(Y − AW) − AᵀΔA·W)`, so
//!    `‖dW‖ ≤ ‖R⁻¹‖(‖ΔA‖‖Y − AW‖ + ‖A‖‖ΔA‖‖W‖)`, doubled for the second
//!    order. `‖ΔA‖_F/‖A‖_F ≤ 1e-9` is required too (an empirical bound: a
//!    shard read twice or not at all moves the features by far more).
//! 3. every process's model file bytes ([`Persist::to_bytes`]) are bitwise
//!    equal to process 0's (gathered).
//!
//! **`--case empty-shard`**: the last process's shard has no rows;
//! **`--case reader-error`**: the last process's reader yields an I/O error
//! at its second chunk of the fit's last pass. Every process must then get
//! an error naming that process, print it as
//! `mpi_fit: process R of P: error: MODEL: …` and exit with status 1 (after
//! a barrier, so that `mpirun` does not kill a process that has not printed
//! yet: a process that did not get the error would wait in its collective
//! operation, and the run would time out).
//!
//! **`--timing`**: the ELM's `fit_shards` on an MNIST-size problem
//! (`--rows`, `--inputs`, `--targets`, `--nodes` a comma-separated list),
//! each phase timed on every process (the input-scale pass, the Gram pass,
//! the wait for the slowest process, the all-reduce, the solve), and the
//! all-reduce of `l² + l·M + 1` doubles alone, 5 times.

use std::cell::RefCell;
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use experiments::distributed::MpiWorld;
use linalg_core::collective::Collective;
use linalg_core::lstsq::min_norm_lstsq;
use linalg_core::ridge::ridge_solve;
use models::prelude::*;
use models::Chunk;
use models::{Activation, BlsParams, ElmParams, ModelError};
use ndarray::{s, Array2, ArrayView2};
use test_support::{fro, fro_diff, TestRng};

/// What this run checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Fit,
    EmptyShard,
    ReaderError,
}

/// The command line.
#[derive(Debug)]
struct Args {
    case: Case,
    timing: bool,
    rows: usize,
    inputs: usize,
    targets: usize,
    nodes: Vec<usize>,
    chunk: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        case: Case::Fit,
        timing: false,
        rows: 1203,
        inputs: 6,
        targets: 2,
        nodes: vec![40],
        chunk: 100,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{v}: {e}"));
        match flag.as_str() {
            "--case" => {
                args.case = match value()?.as_str() {
                    "fit" => Case::Fit,
                    "empty-shard" => Case::EmptyShard,
                    "reader-error" => Case::ReaderError,
                    other => return Err(format!("unknown case `{other}` (fit, empty-shard, reader-error)")),
                }
            }
            "--timing" => args.timing = true,
            "--rows" => args.rows = number(value()?)?,
            "--inputs" => args.inputs = number(value()?)?,
            "--targets" => args.targets = number(value()?)?,
            "--chunk" => args.chunk = number(value()?)?.max(1),
            "--nodes" => {
                args.nodes = value()?
                    .split(',')
                    .map(|v| number(v.to_string()))
                    .collect::<Result<_, _>>()?
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

/// Row `i` of the synthetic data set: `d` inputs uniform on [−1, 1) and
/// `y.len()` smooth targets with a little noise, from the row's own seed.
fn row(i: usize, d: usize, x: &mut [f64], y: &mut [f64]) {
    let mut rng = TestRng::salted(0x5EED_0021, i as u64);
    for v in x.iter_mut() {
        *v = rng.range(-1.0, 1.0);
    }
    let v = |j: usize| x[j % d];
    for (c, t) in y.iter_mut().enumerate() {
        *t = match c % 3 {
            0 => (2.0 * v(c) + v(c + 1)).sin(),
            1 => v(c) * v(c + 2) - 0.5 * v(c + 3),
            _ => (3.0 * (v(c + 4) - v(c + 1))).tanh(),
        } + 0.05 * rng.normal();
    }
}

/// Rows `lo..hi` of the data set.
fn rows(lo: usize, hi: usize, d: usize, m: usize) -> (Array2<f64>, Array2<f64>) {
    let mut x = Array2::zeros((hi - lo, d));
    let mut y = Array2::zeros((hi - lo, m));
    for (r, i) in (lo..hi).enumerate() {
        let (mut xr, mut yr) = (x.row_mut(r), y.row_mut(r));
        row(
            i,
            d,
            xr.as_slice_mut().expect("row-major"),
            yr.as_slice_mut().expect("row-major"),
        );
    }
    (x, y)
}

/// Process `rank`'s contiguous shard of `k` rows among `p`: `lo..hi`.
fn shard(k: usize, rank: usize, p: usize) -> (usize, usize) {
    (k * rank / p, k * (rank + 1) / p)
}

/// The rows of `x`, `y` in chunks of `chunk` rows; with `fail_at`, the
/// chunk of that index is an I/O error instead.
fn chunks<'a>(
    x: &'a Array2<f64>,
    y: &'a Array2<f64>,
    chunk: usize,
    fail_at: Option<usize>,
) -> impl Iterator<Item = models::Result<Chunk>> + 'a {
    let k = x.nrows();
    (0..k.div_ceil(chunk)).map(move |c| {
        if fail_at == Some(c) {
            return Err(ModelError::Io {
                path: "shard.csv".into(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, format!("chunk {c}: bad record")),
            });
        }
        let (lo, hi) = (c * chunk, ((c + 1) * chunk).min(k));
        Ok((x.slice(s![lo..hi, ..]).to_owned(), y.slice(s![lo..hi, ..]).to_owned()))
    })
}

/// A fitted model as the checks see it.
trait Sharded: Persist {
    fn features(&self, x: ArrayView2<'_, f64>) -> models::Result<Array2<f64>>;
    fn weights(&self) -> ArrayView2<'_, f64>;
}

impl Sharded for models::Elm {
    fn features(&self, x: ArrayView2<'_, f64>) -> models::Result<Array2<f64>> {
        self.hidden_outputs(x)
    }
    fn weights(&self) -> ArrayView2<'_, f64> {
        self.output_weights()
    }
}

impl Sharded for models::Bls {
    fn features(&self, x: ArrayView2<'_, f64>) -> models::Result<Array2<f64>> {
        self.hidden_outputs(x)
    }
    fn weights(&self) -> ArrayView2<'_, f64> {
        self.output_weights()
    }
}

/// Checks 1–3 of the module's doc for one model; `Err` says which failed.
fn check_model<M: Sharded>(
    name: &str,
    world: &MpiWorld,
    sharded: &M,
    single: &M,
    lambda: f64,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<String, String> {
    let e = |err: ModelError| format!("{name}: {err}");
    let a = sharded.features(x.view()).map_err(e)?;
    let (k, l) = a.dim();
    let sv = min_norm_lstsq(a.view(), y.view(), None)
        .map_err(|err| format!("{name}: {err}"))?
        .singular_values;
    let sigma_max = sv[0];
    let sigma_min = if k >= l { sv[sv.len() - 1] } else { 0.0 };
    let kappa = (sigma_max * sigma_max + lambda) / (sigma_min * sigma_min + lambda);
    let r_inv = 1.0 / (sigma_min * sigma_min + lambda);
    let gamma = (k + l) as f64 * f64::EPSILON / 2.0;
    let w = sharded.weights();
    let tol = 4.0 * gamma * (kappa * fro(w) + r_inv * sigma_max * fro(y.view()));

    // 1. Against the ridge solution of its own features on all rows.
    let w_ref = ridge_solve(a.view(), y.view(), lambda)
        .map_err(|err| format!("{name}: {err}"))?
        .weights;
    let d_ref = fro_diff(w, w_ref.view());
    if d_ref > tol {
        return Err(format!(
            "{name}: ‖W_d − W*‖ = {d_ref:.3e} > {tol:.3e} (κ = {kappa:.3e}): the all-reduced sums are not those of all the rows"
        ));
    }

    // 2. Against the one-process fit.
    let a1 = single.features(x.view()).map_err(e)?;
    let da = fro_diff(a1.view(), a.view());
    let rel_da = da / fro(a1.view());
    if rel_da > 1e-9 {
        return Err(format!(
            "{name}: the features differ from the one-process fit's by ‖ΔA‖/‖A‖ = {rel_da:.3e} > 1e-9"
        ));
    }
    let residual = fro((y - &a.dot(&w)).view());
    let tol1 = tol + 2.0 * r_inv * (da * residual + sigma_max * da * fro(w));
    let d_single = fro_diff(w, single.weights());
    if d_single > tol1 {
        return Err(format!(
            "{name}: ‖W_d − W_1‖ = {d_single:.3e} > {tol1:.3e} (κ = {kappa:.3e}, ‖ΔA‖/‖A‖ = {rel_da:.1e})"
        ));
    }

    // 3. The same model on every process, bit for bit.
    let bytes = sharded.to_bytes().map_err(e)?;
    let all = world.gather(&bytes).map_err(|err| format!("{name}: {err}"))?;
    if let Some(other) = all.iter().position(|b| *b != all[0]) {
        return Err(format!("{name}: process {other}'s model differs from process 0's"));
    }
    Ok(format!(
        "{name}: ‖W_d − W*‖ = {d_ref:.2e}, ‖W_d − W_1‖ = {d_single:.2e} ≤ {tol1:.2e} (κ = {kappa:.2e}, ‖ΔA‖/‖A‖ = {rel_da:.1e}), {} model bytes identical on {} process(es)",
        bytes.len(),
        all.len()
    ))
}

/// `MpiWorld`'s operations on values known on every process: sums, maxima
/// and minima of rank-dependent vectors (longer than one all-reduce piece
/// would need no more: the pieces are tested by the timing runs' sizes),
/// gathers of bytes of every length, none among them.
fn check_collectives(world: &MpiWorld) -> Result<String, String> {
    let (rank, p) = (world.rank(), world.size());
    let n = 1000;
    let sign = |i: usize| if i.is_multiple_of(2) { 1.0 } else { -1.0 };
    let mine = |i: usize| ((rank + 1) * (i + 1)) as f64 * sign(i);
    let mut sum: Vec<f64> = (0..n).map(mine).collect();
    let mut max = sum.clone();
    let mut min = sum.clone();
    world.sum(&mut sum).map_err(|e| e.to_string())?;
    world.max(&mut max).map_err(|e| e.to_string())?;
    world.min(&mut min).map_err(|e| e.to_string())?;
    let ranks = (p * (p + 1) / 2) as f64;
    for i in 0..n {
        let (lo, hi) = ((i + 1) as f64 * sign(i), (p * (i + 1)) as f64 * sign(i));
        let (lo, hi) = (lo.min(hi), lo.max(hi));
        if sum[i] != ranks * (i + 1) as f64 * sign(i) || max[i] != hi || min[i] != lo {
            return Err(format!(
                "collectives: at {i}: sum {} max {} min {} (expected {}, {hi}, {lo})",
                sum[i],
                max[i],
                min[i],
                ranks * (i + 1) as f64 * sign(i)
            ));
        }
    }
    // Process r sends r bytes (process 0 none) equal to r.
    let bytes = vec![rank as u8; rank];
    let all = world.gather(&bytes).map_err(|e| e.to_string())?;
    let expected: Vec<Vec<u8>> = (0..p).map(|r| vec![r as u8; r]).collect();
    if all != expected {
        return Err(format!("collectives: gather gave {all:?}, expected {expected:?}"));
    }
    Ok(format!(
        "collectives: sum, max, min of {n} values and gather of 0..{p} bytes as expected"
    ))
}

/// The checks of one case: the lines of those that passed, and of those
/// that failed (in the failure cases, each fit's error is a failure line:
/// `error: MODEL: …`, or `wrong error: …` when it does not name the
/// failing process).
fn run_case(world: &MpiWorld, args: &Args) -> (Vec<String>, Vec<String>) {
    let (rank, p) = (world.rank(), world.size());
    let (d, m, k) = (args.inputs, args.targets, args.rows);
    let (x, y) = rows(0, k, d, m);
    let (lo, hi) = match args.case {
        // The last process has no rows; the others share all of them.
        Case::EmptyShard if p > 1 => {
            if rank == p - 1 {
                (k, k)
            } else {
                shard(k, rank, p - 1)
            }
        }
        Case::EmptyShard => (0, 0),
        _ => shard(k, rank, p),
    };
    let (xs, ys) = (x.slice(s![lo..hi, ..]).to_owned(), y.slice(s![lo..hi, ..]).to_owned());
    let failing = p - 1;
    // The last process's reader fails on the last pass's second chunk.
    let passes = RefCell::new(0usize);
    let last_pass = |total: usize| {
        let mut n = passes.borrow_mut();
        *n += 1;
        args.case == Case::ReaderError && rank == failing && *n == total
    };
    let lambda = 1e-4;
    let mut lines = Vec::new();
    let mut failed = Vec::new();
    if args.case == Case::Fit {
        match check_collectives(world) {
            Ok(line) => lines.push(line),
            Err(why) => failed.push(format!("check failed: {why}")),
        }
    }

    let elm = ElmParams::new(args.nodes[0], Activation::Sigmoid)
        .with_lambda(lambda)
        .with_seed(21)
        .check()
        .expect("valid ELM parameters");
    let bls = BlsParams::new(2, 4, 30)
        .with_lambda(lambda)
        .with_seed(21)
        .check()
        .expect("valid BLS parameters");

    // The ELM reads its rows twice (the input scale, then the Gram sums);
    // the BLS five times.
    *passes.borrow_mut() = 0;
    let sharded = elm.fit_shards(world, || chunks(&xs, &ys, args.chunk, last_pass(2).then_some(1)));
    report(
        "ELM",
        world,
        args,
        sharded,
        || elm.fit_chunks(|| chunks(&x, &y, args.chunk, None)),
        &mut lines,
        &mut failed,
        lambda,
        &x,
        &y,
    );
    *passes.borrow_mut() = 0;
    let sharded = bls.fit_shards(world, || chunks(&xs, &ys, args.chunk, last_pass(5).then_some(1)));
    report(
        "BLS",
        world,
        args,
        sharded,
        || bls.fit_chunks(|| chunks(&x, &y, args.chunk, None)),
        &mut lines,
        &mut failed,
        lambda,
        &x,
        &y,
    );
    (lines, failed)
}

/// Checks one model's sharded fit for the case: in `--case fit` against the
/// one-process fit, otherwise that it failed naming the failing process.
#[allow(clippy::too_many_arguments)]
fn report<M: Sharded>(
    name: &str,
    world: &MpiWorld,
    args: &Args,
    sharded: models::Result<M>,
    single: impl FnOnce() -> models::Result<M>,
    lines: &mut Vec<String>,
    failed: &mut Vec<String>,
    lambda: f64,
    x: &Array2<f64>,
    y: &Array2<f64>,
) {
    let p = world.size();
    match (args.case, sharded) {
        (Case::Fit, Ok(model)) => match single() {
            Ok(one) => match check_model(name, world, &model, &one, lambda, x, y) {
                Ok(line) => lines.push(line),
                Err(why) => failed.push(format!("check failed: {why}")),
            },
            Err(err) => failed.push(format!("error: {name}: the one-process fit failed: {err}")),
        },
        (Case::Fit, Err(err)) => failed.push(format!("error: {name}: {err}")),
        (_, Ok(_)) => failed.push(format!("wrong outcome: {name}: the fit succeeded, expected an error")),
        (_, Err(err)) => {
            let text = err.to_string();
            let named = format!("process {}", p - 1);
            let collective = matches!(&err, ModelError::Linalg(linalg_core::Error::Collective { .. }));
            if p > 1 && !(collective && text.contains(&named)) {
                failed.push(format!(
                    "wrong error: {name}: {text} (expected a collective error naming {named})"
                ));
            } else {
                failed.push(format!("error: {name}: {text}"));
            }
        }
    }
}

/// Times spent in the collective operations of a fit (each sum of more than
/// `BIG` values is preceded by a barrier, so that the sum's own time is the
/// communication, not the wait for the slowest process).
struct Timed<'w> {
    world: &'w MpiWorld,
    start: Instant,
    log: RefCell<Vec<Event>>,
}

/// One collective operation of a timed fit.
struct Event {
    kind: &'static str,
    /// Values (or bytes, for a gather) sent.
    len: usize,
    /// Since the fit started.
    at: Duration,
    /// In the barrier before it.
    waited: Duration,
    /// In the operation.
    took: Duration,
}

const BIG: usize = 1000;

impl Timed<'_> {
    fn timed<T>(&self, kind: &'static str, len: usize, f: impl FnOnce() -> T) -> T {
        let at = self.start.elapsed();
        let waited = if len > BIG {
            let t = Instant::now();
            self.world.barrier();
            t.elapsed()
        } else {
            Duration::ZERO
        };
        let t = Instant::now();
        let out = f();
        self.log.borrow_mut().push(Event {
            kind,
            len,
            at,
            waited,
            took: t.elapsed(),
        });
        out
    }
}

impl Collective for Timed<'_> {
    fn rank(&self) -> usize {
        self.world.rank()
    }
    fn size(&self) -> usize {
        self.world.size()
    }
    fn sum(&self, values: &mut [f64]) -> linalg_core::Result<()> {
        self.timed("sum", values.len(), || self.world.sum(values))
    }
    fn max(&self, values: &mut [f64]) -> linalg_core::Result<()> {
        self.timed("max", values.len(), || self.world.max(values))
    }
    fn gather(&self, mine: &[u8]) -> linalg_core::Result<Vec<Vec<u8>>> {
        self.timed("gather", mine.len(), || self.world.gather(mine))
    }
}

/// `--timing`: the phases of the ELM's sharded fit, per process.
fn run_timing(world: &MpiWorld, args: &Args) -> Result<Vec<String>, String> {
    let (rank, p) = (world.rank(), world.size());
    let (d, m, k) = (args.inputs, args.targets, args.rows);
    let (lo, hi) = shard(k, rank, p);
    let t = Instant::now();
    let (xs, ys) = rows(lo, hi, d, m);
    let generated = t.elapsed();
    let threads = std::env::var("OPENBLAS_NUM_THREADS").unwrap_or_else(|_| "(unset)".into());
    let mut lines = vec![format!(
        "timing: P = {p}, rows {k}×{d} → {m} targets, shard {} rows generated in {:.2} s, OPENBLAS_NUM_THREADS={threads}",
        hi - lo,
        generated.as_secs_f64()
    )];
    for &l in &args.nodes {
        let elm = ElmParams::new(l, Activation::Sigmoid)
            .with_lambda(1e-3)
            .with_seed(21)
            .check()
            .map_err(|e| e.to_string())?;
        world.barrier();
        let start = Instant::now();
        let timed = Timed {
            world,
            start,
            log: RefCell::new(Vec::new()),
        };
        // The start of each pass and the end of its rows (the chunk
        // iterator running dry), relative to `timed.start`.
        let marks: RefCell<Vec<(Duration, Option<Duration>)>> = RefCell::new(Vec::new());
        let marks_ref = &marks;
        let model = elm
            .fit_shards(&timed, || {
                let pass = {
                    let mut mk = marks_ref.borrow_mut();
                    mk.push((timed.start.elapsed(), None));
                    mk.len() - 1
                };
                let mut inner = chunks(&xs, &ys, args.chunk, None);
                std::iter::from_fn(move || {
                    let next = inner.next();
                    if next.is_none() {
                        marks_ref.borrow_mut()[pass].1 = Some(start.elapsed());
                    }
                    next
                })
            })
            .map_err(|e| format!("l = {l}: {e}"))?;
        let total = timed.start.elapsed();
        let marks = marks.into_inner();
        let log = timed.log.into_inner();
        let secs = |d: Duration| d.as_secs_f64();
        let span = |(a, b): (Duration, Option<Duration>)| b.map_or(0.0, |b| secs(b - a));
        let scale_pass = marks.first().copied().map_or(0.0, span);
        let gram_pass = marks.get(1).copied().map_or(0.0, span);
        let big = log.iter().find(|e| e.kind == "sum" && e.len > BIG);
        // The wait for the slowest process: from the end of this process's
        // Gram pass to the start of the all-reduce (the phase's agreement,
        // a gather, and the barrier).
        let gram_end = marks.get(1).and_then(|m| m.1);
        let (wait, allreduce, big_end) = big.map_or((0.0, 0.0, None), |e| {
            let started = e.at + e.waited;
            let wait = gram_end.map_or(secs(e.waited), |g| secs(started.saturating_sub(g)));
            (wait, secs(e.took), Some(started + e.took))
        });
        // One process: no all-reduce (the sums are already all of them).
        let solve = big_end
            .or(gram_end)
            .map_or(f64::NAN, |end| secs(total.saturating_sub(end)));
        let values = l * l + l * m + 1;
        let gram_flops = (2 * k * d * l + k * l * (l + 1) + 2 * k * l * m) as f64;
        lines.push(format!(
            "timing: l = {l}: process {rank}: total {:.3} s; scale pass {scale_pass:.3} s, Gram pass {gram_pass:.3} s ({:.2} GFLOP/s on the shard, {:.3e} flops in all), wait {wait:.3} s, allreduce of {values} doubles ({:.1} MiB) {allreduce:.4} s, after it (solve) {solve:.3} s; ‖W‖ = {:.6e}",
            secs(total),
            gram_flops / p as f64 / gram_pass / 1e9,
            gram_flops,
            values as f64 * 8.0 / (1 << 20) as f64,
            fro(model.output_weights()),
        ));
        // The all-reduce of the same size alone, 5 times.
        let mut buffer = vec![1.0; values];
        let mut times = Vec::new();
        for _ in 0..5 {
            world.barrier();
            let t = Instant::now();
            world.sum(&mut buffer).map_err(|e| e.to_string())?;
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        lines.push(format!(
            "timing: l = {l}: process {rank}: allreduce alone of {values} doubles: median {:.4} s, min {:.4} s ({:.2} GB/s of the buffer)",
            times[2],
            times[0],
            values as f64 * 8.0 / times[2] / 1e9
        ));
    }
    Ok(lines)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("mpi_fit: error: {e}");
            return ExitCode::from(2);
        }
    };
    let (world, _mpi) = match MpiWorld::init() {
        Ok(w) => w,
        Err(e) => {
            eprintln!("mpi_fit: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (rank, p) = (world.rank(), world.size());
    let (passed, failed) = if args.timing {
        match run_timing(&world, &args) {
            Ok(lines) => (lines, Vec::new()),
            Err(e) => (Vec::new(), vec![format!("error: {e}")]),
        }
    } else {
        run_case(&world, &args)
    };
    // One write per line, so that the lines of the processes, which mpirun
    // forwards as they come, do not interleave.
    for line in &passed {
        let _ = std::io::stdout().write_all(format!("mpi_fit: process {rank} of {p}: ok: {line}\n").as_bytes());
    }
    for line in &failed {
        let _ = std::io::stderr().write_all(format!("mpi_fit: process {rank} of {p}: {line}\n").as_bytes());
    }
    let _ = std::io::stdout().flush();
    let code = if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    // Every process has printed its outcome before any exits (mpirun ends
    // the others when one exits with an error).
    world.barrier();
    code
}
