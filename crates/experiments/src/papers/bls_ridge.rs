//! `reproduce bls-ridge`: Zhu et al., "Two ridge solutions for the
//! incremental broad learning system on added nodes", Sec. V on MNIST —
//! the analogue of their Tables II–III (testing accuracy after every update,
//! per strategy and ridge parameter λ), Table VI (training time per update
//! and accumulated, with Chol-1's speedups) and Fig. 1 (maximum testing
//! accuracy vs λ).
//!
//! Protocol (the paper's, Sec. V-B): 60 feature nodes (6 groups of 10) and
//! 3000 enhancement nodes, then 11 updates each adding a feature group of 10
//! nodes, 750 enhancement nodes fed by it and 1250 enhancement nodes fed by
//! all feature nodes (up to 170 feature and 25000 enhancement nodes), tansig
//! enhancement nodes with U[−1, 1] weights. The paper averages 100 random
//! networks; we run what fits (the report says how many).
//!
//! The unit of work is a **cell**: one (seed, λ, strategy) run of the whole
//! schedule. Each finished cell is written as JSON to the cells directory and
//! skipped when the run is repeated, so the full sweep (hours: about 8 h per
//! seed for 6 strategies × 6 λ at 60000 × 25170) can be spread over several
//! invocations (`--time-budget-min`), and the report is made from whatever
//! cells exist, naming the missing ones.
//!
//! Memory (issue 4 §3): at the last update `A` is 60000 × 25170 (12.1 GB in
//! f64). R-Inv and Orig. also keep a K×n pseudo-inverse, and D-Rdg copies
//! its n×n Gram matrix to factor it, so at full size these three store `A`
//! in f32 ([`Options::precision`], [`linalg_core::hidden_store`]); the quick run
//! measures f32 against f64 on the same networks. Each cell records the
//! solver's state size and the process's peak resident memory during it
//! (`VmHWM`, reset per cell through `/proc/self/clear_refs`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use linalg_core::kernels::{self, Flops, Op, Owned};
use linalg_core::ridge::Strategy;
use linalg_core::Precision;
use models::bls::{BlsParams, IncrementalBls};
use models::ParamGuard;
use ndarray::{Array2, Axis, Slice};
use serde::{Deserialize, Serialize};

use super::ReproError;
use crate::datasets::{self, argmax_rows, one_hot};
use crate::report::{self, svg, Table};

/// The network and its growth.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// Training images used (the first ones).
    pub train: usize,
    /// Test images used (the first ones).
    pub test: usize,
    /// Initial feature groups.
    pub feature_groups: usize,
    /// Nodes per feature group (also of each added group).
    pub feature_nodes: usize,
    /// Initial enhancement nodes.
    pub enhancement: usize,
    /// Updates.
    pub updates: usize,
    /// Enhancement nodes fed by the new group, per update.
    pub fed: usize,
    /// Enhancement nodes fed by all feature nodes, per update.
    pub extra: usize,
}

impl Schedule {
    /// The paper's MNIST schedule.
    pub const FULL: Schedule = Schedule {
        train: 60_000,
        test: 10_000,
        feature_groups: 6,
        feature_nodes: 10,
        enhancement: 3000,
        updates: 11,
        fed: 750,
        extra: 1250,
    };
    /// The same 12 steps with a fifteenth of the enhancement nodes
    /// (200 → 1674) on 4000 training and 2000 test images.
    pub const QUICK: Schedule = Schedule {
        train: 4000,
        test: 2000,
        feature_groups: 6,
        feature_nodes: 10,
        enhancement: 200,
        updates: 11,
        fed: 50,
        extra: 84,
    };

    /// Nodes after update `u` (0: the initial network).
    pub fn nodes_after(&self, u: usize) -> (usize, usize) {
        (
            (self.feature_groups + u) * self.feature_nodes,
            self.enhancement + u * (self.fed + self.extra),
        )
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The schedule.
    pub schedule: Schedule,
    /// Seeds (random networks) per (λ, strategy).
    pub seeds: usize,
    /// λ = 2^e for these e.
    pub lambda_exps: Vec<i32>,
    /// Strategies, in the order they are run.
    pub strategies: Vec<Strategy>,
    /// Where the report goes.
    pub out_dir: PathBuf,
    /// Where finished cells are kept (and looked up to skip).
    pub cells_dir: PathBuf,
    /// Stop starting new cells after this many minutes (the report is still
    /// written).
    pub time_budget_min: Option<f64>,
    /// Quick run (also compares f32 with f64 storage of `A`).
    pub quick: bool,
}

/// The paper's λ sweep as required by issue 4 (2⁻³⁰ … 2⁻⁵).
pub const LAMBDA_EXPS: [i32; 6] = [-30, -25, -20, -15, -10, -5];

/// Table VI's five strategies and D-Rdg, in the paper's table order.
pub const STRATEGIES: [Strategy; 6] = [
    Strategy::Orig,
    Strategy::ExgE,
    Strategy::Chol1,
    Strategy::Chol2,
    Strategy::RInv,
    Strategy::DRdg,
];

impl Options {
    /// The full protocol (`seeds` networks per cell).
    pub fn full(out_dir: PathBuf, seeds: usize) -> Self {
        Self {
            schedule: Schedule::FULL,
            seeds,
            lambda_exps: LAMBDA_EXPS.to_vec(),
            strategies: STRATEGIES.to_vec(),
            cells_dir: out_dir.join("cells"),
            out_dir,
            time_budget_min: None,
            quick: false,
        }
    }

    /// The quick run: [`Schedule::QUICK`], two seeds, the whole λ sweep.
    pub fn quick(out_dir: PathBuf) -> Self {
        Self {
            schedule: Schedule::QUICK,
            quick: true,
            ..Self::full(out_dir, 2)
        }
    }

    /// The storage precision of `A` for a strategy: at full size f32 for the
    /// two that keep a K×n pseudo-inverse beside it (R-Inv, Orig.: 24 GB in
    /// f64) and for D-Rdg (whose Cholesky solve copies the n×n Gram matrix:
    /// 12.1 + 2 × 5.1 GB in f64); f64 otherwise.
    pub fn precision(&self, s: Strategy) -> Precision {
        if !self.quick && matches!(s, Strategy::RInv | Strategy::Orig | Strategy::DRdg) {
            Precision::F32
        } else {
            Precision::F64
        }
    }
}

/// One (seed, λ, strategy) run of the schedule.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cell {
    /// Schedule run.
    pub schedule: Schedule,
    /// Seed of the random maps.
    pub seed: u64,
    /// λ = 2^lambda_exp.
    pub lambda_exp: i32,
    /// Strategy (CLI name).
    pub strategy: String,
    /// Precision `A` was stored in.
    pub precision: String,
    /// Test accuracy (%) after each update (index 0: the initial network);
    /// `None` once the strategy failed.
    pub accuracy: Vec<Option<f64>>,
    /// The failure, if any: update index and message.
    pub failure: Option<(usize, String)>,
    /// Solver seconds per update (the start: the initial solve).
    pub solver_seconds: Vec<f64>,
    /// Seconds computing the new columns per update.
    pub columns_seconds: Vec<f64>,
    /// Solver flops per update.
    pub flops: Vec<u64>,
    /// Bytes of the solver's state after the last update.
    pub state_bytes: usize,
    /// Peak resident memory of the process during the cell (bytes).
    pub peak_rss_bytes: Option<u64>,
    /// When it ran (UTC).
    pub ran_at: String,
    /// DGEMM rate (GFLOP/s) measured at the start of the invocation that
    /// ran this cell: what its GFLOP/s are compared with. `None` for cells
    /// written before it was stored; the report then uses its own run's
    /// figure and says so.
    #[serde(default)]
    pub dgemm_peak_gflops: Option<f64>,
    /// Whether the solver took the initial `A` over without copying it
    /// (`Strategy::build_owned`, since 2026-11-22 evening). `false` for cells
    /// written before: their update 0 includes that copy. With `precision`
    /// F32 the f64 copy is saved, but `A` is still rounded into a new f32
    /// buffer.
    #[serde(default)]
    pub initial_a_taken: bool,
}

impl Cell {
    /// Achieved solver rate of update `u` as a fraction of the DGEMM peak of
    /// the run that produced the cell (`fallback` for cells that did not
    /// store one).
    fn fraction_of_peak(&self, u: usize, fallback: f64) -> f64 {
        let g = self.flops[u] as f64 / self.solver_seconds[u] / 1e9;
        g / self.dgemm_peak_gflops.unwrap_or(fallback)
    }
}

fn cell_file(dir: &Path, schedule: &Schedule, seed: u64, e: i32, s: Strategy, p: Precision) -> PathBuf {
    let size = if *schedule == Schedule::FULL { "full" } else { "quick" };
    let prec = match p {
        Precision::F64 => "",
        Precision::F32 => "-f32",
    };
    dir.join(format!("{size}-seed{seed}-lambda2^{e}-{}{prec}.json", s.cli_name()))
}

/// Peak resident memory since the last reset (Linux), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// MNIST with pixels in [0, 1] (Chen's BLS code divides by 255), one-hot
/// training targets and test labels.
struct Data {
    x_train: Array2<f64>,
    y_train: Array2<f64>,
    x_test: Array2<f64>,
    labels: Vec<usize>,
}

fn load(schedule: &Schedule) -> Result<Data, ReproError> {
    let train = datasets::load_shipped("mnist-train")?;
    let test = datasets::load_shipped("mnist-test")?;
    let tr: Vec<usize> = (0..schedule.train.min(train.n_samples())).collect();
    let te: Vec<usize> = (0..schedule.test.min(test.n_samples())).collect();
    let (train, test) = (train.select(&tr), test.select(&te));
    Ok(Data {
        x_train: train.x.mapv(|v| v / 255.0),
        y_train: one_hot(&train.y, 10)?,
        x_test: test.x.mapv(|v| v / 255.0),
        labels: test.y.iter().map(|&v| v as usize).collect(),
    })
}

/// Test accuracy (%) in batches of 500 rows (the test hidden matrix of the
/// full network would be 2 GB; a batch is 100 MB).
fn accuracy(bls: &IncrementalBls, d: &Data) -> Result<f64, ReproError> {
    let mut right = 0usize;
    let k = d.x_test.nrows();
    for start in (0..k).step_by(500) {
        let end = (start + 500).min(k);
        let z = bls.predict(d.x_test.slice_axis(Axis(0), Slice::from(start..end)))?;
        right += argmax_rows(&z)
            .iter()
            .zip(&d.labels[start..end])
            .filter(|(p, t)| p == t)
            .count();
    }
    Ok(100.0 * right as f64 / k as f64)
}

/// One cell. The training data are moved into the network and given back
/// at the end (one copy of the 376 MB MNIST matrix, not two, at the peak).
fn run_cell(
    opts: &Options,
    d: &mut Data,
    (seed, e, s, p): (u64, i32, Strategy, Precision),
    peak: f64,
) -> Result<Cell, ReproError> {
    let sch = opts.schedule;
    reset_peak_rss();
    let config = BlsParams::new(sch.feature_groups, sch.feature_nodes, sch.enhancement)
        .with_lambda(2f64.powi(e))
        .with_strategy(s)
        .with_seed(seed)
        .with_precision(p)
        .check()?;
    let mut cell = Cell {
        schedule: sch,
        seed,
        lambda_exp: e,
        strategy: s.cli_name().into(),
        precision: format!("{p:?}"),
        accuracy: vec![],
        failure: None,
        solver_seconds: vec![],
        columns_seconds: vec![],
        flops: vec![],
        state_bytes: 0,
        peak_rss_bytes: None,
        ran_at: report::utc_now(),
        dgemm_peak_gflops: Some(peak),
        // `models::bls` builds its solver with `Strategy::build_owned`.
        initial_a_taken: true,
    };
    let (x, y) = (std::mem::take(&mut d.x_train), std::mem::take(&mut d.y_train));
    let mut bls = match IncrementalBls::start(&config, x, y) {
        Ok(b) => b,
        Err(err) => {
            let fresh = load(&sch)?;
            (d.x_train, d.y_train) = (fresh.x_train, fresh.y_train);
            cell.failure = Some((0, err.to_string()));
            cell.accuracy = vec![None; sch.updates + 1];
            return Ok(cell);
        }
    };
    bls.reserve(sch.updates * (sch.feature_nodes + sch.fed + sch.extra));
    let record = |bls: &IncrementalBls, cell: &mut Cell| -> Result<(), ReproError> {
        if let Some(r) = bls.reports().last() {
            cell.solver_seconds.push(r.solver_seconds());
            cell.columns_seconds.push(r.columns_seconds());
            cell.flops.push(r.flops);
        }
        cell.accuracy.push(Some(accuracy(bls, d)?));
        Ok(())
    };
    record(&bls, &mut cell)?;
    eprintln!("{}", progress_line(&cell));
    for u in 1..=sch.updates {
        match bls.add_feature_group(sch.feature_nodes, sch.fed, sch.extra) {
            Ok(_) => {
                record(&bls, &mut cell)?;
                eprintln!("{}", progress_line(&cell));
            }
            Err(err) => {
                eprintln!("bls-ridge:   {s} at λ = 2^{e}: update {u} failed: {err}");
                cell.failure = Some((u, err.to_string()));
                cell.accuracy.extend(std::iter::repeat_n(None, sch.updates + 1 - u));
                break;
            }
        }
    }
    cell.state_bytes = bls.memory_bytes();
    cell.peak_rss_bytes = peak_rss();
    (d.x_train, d.y_train) = bls.into_data();
    Ok(cell)
}

/// The progress line printed after each update of a cell (a full-size cell
/// runs 8–20 minutes): the update just done, the network's size, its test
/// accuracy, and the solver's time and rate for that update.
fn progress_line(cell: &Cell) -> String {
    let u = cell.accuracy.len().saturating_sub(1);
    let (f, e) = cell.schedule.nodes_after(u);
    let acc = cell
        .accuracy
        .last()
        .copied()
        .flatten()
        .map_or("NA".into(), |a| format!("{a:.2}%"));
    let secs = cell.solver_seconds.last().copied().unwrap_or(0.0);
    let gflops = cell
        .flops
        .last()
        .map_or(0.0, |&fl| fl as f64 / secs.max(f64::MIN_POSITIVE) / 1e9);
    let name = cell
        .strategy
        .parse::<Strategy>()
        .map_or(cell.strategy.as_str(), |s| s.paper_name());
    let f32_note = if cell.precision == "F32" { " (f32 A)" } else { "" };
    format!(
        "bls-ridge:   seed {}, λ = 2^{}, {name}{f32_note}: update {u}/{} ({f}/{e} nodes): accuracy {acc}, solver {secs:.1} s ({gflops:.1} GFLOP/s)",
        cell.seed, cell.lambda_exp, cell.schedule.updates
    )
}

/// The DGEMM rate (GFLOP/s) on 2 threads, n = 3072, best of 5 after a
/// warm-up: the peak the updates are compared with. (n = 2048 best of 3
/// varied 90.7–104.5 GFLOP/s between invocations.)
fn dgemm_peak() -> f64 {
    let n = 3072;
    let a = Owned::from_fn(n, n, |i, j| ((i * 7 + j * 3) % 11) as f64 / 11.0 - 0.5);
    let mut c = Owned::zeros(n, n);
    let mut best = f64::INFINITY;
    for rep in 0..6 {
        let t = Instant::now();
        kernels::gemm(
            &mut Flops::default(),
            1.0,
            a.as_ref(),
            Op::N,
            a.as_ref(),
            Op::N,
            0.0,
            c.as_mut(),
        );
        if rep > 0 {
            best = best.min(t.elapsed().as_secs_f64());
        }
    }
    2.0 * (n * n * n) as f64 / best / 1e9
}

/// Run the reproduction; returns the report's path.
pub fn run(opts: &Options) -> Result<PathBuf, ReproError> {
    let started = Instant::now();
    std::fs::create_dir_all(&opts.cells_dir)?;
    linalg_core::threads::set_blas_threads(2);
    eprintln!(
        "bls-ridge: MNIST {} train / {} test images, {} seeds × {} λ × {} strategies",
        opts.schedule.train,
        opts.schedule.test,
        opts.seeds,
        opts.lambda_exps.len(),
        opts.strategies.len()
    );
    let mut data = load(&opts.schedule)?;
    let peak = dgemm_peak();
    eprintln!("bls-ridge: DGEMM peak {peak:.1} GFLOP/s (2 threads)");
    let mut plan = vec![];
    for seed in 0..opts.seeds as u64 {
        for &e in &opts.lambda_exps {
            for &s in &opts.strategies {
                plan.push((seed, e, s, opts.precision(s)));
                if opts.quick && seed == 0 && e == -10 && matches!(s, Strategy::RInv | Strategy::Orig | Strategy::DRdg)
                {
                    plan.push((seed, e, s, Precision::F32));
                }
            }
        }
    }
    let total = plan.len();
    let file_of =
        |&(seed, e, s, p): &(u64, i32, Strategy, Precision)| cell_file(&opts.cells_dir, &opts.schedule, seed, e, s, p);
    let mut ran = 0;
    for (i, &(seed, e, s, p)) in plan.iter().enumerate() {
        let file = file_of(&plan[i]);
        if file.exists() {
            continue;
        }
        if let Some(budget) = opts.time_budget_min {
            if started.elapsed().as_secs_f64() > budget * 60.0 {
                let left = plan[i..].iter().filter(|c| !file_of(c).exists()).count();
                eprintln!("bls-ridge: time budget of {budget} min used; {left} of {total} cells not run");
                break;
            }
        }
        let t = Instant::now();
        let cell = run_cell(opts, &mut data, (seed, e, s, p), peak)?;
        ran += 1;
        let last = cell.accuracy.iter().rev().flatten().next().copied();
        eprintln!(
            "bls-ridge: cell {}/{total}: seed {seed}, λ = 2^{e}, {s}{}: final accuracy {}, solver {:.1} s, {:.0} s ({:.0} s so far)",
            i + 1,
            if p == Precision::F32 { " (f32 A)" } else { "" },
            last.map_or("NA".into(), |a| format!("{a:.2}%")),
            cell.solver_seconds.iter().sum::<f64>(),
            t.elapsed().as_secs_f64(),
            started.elapsed().as_secs_f64()
        );
        std::fs::write(&file, serde_json::to_string_pretty(&cell)?)?;
    }
    eprintln!("bls-ridge: {ran} cells run in {:.0} s", started.elapsed().as_secs_f64());
    let cells = load_cells(&opts.cells_dir, &opts.schedule)?;
    write_report(opts, &cells, peak, started.elapsed().as_secs_f64())
}

fn load_cells(dir: &Path, schedule: &Schedule) -> Result<Vec<Cell>, ReproError> {
    let mut cells = vec![];
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let cell: Cell =
            serde_json::from_str(&std::fs::read_to_string(&path)?).map_err(|e| format!("{}: {e}", path.display()))?;
        if cell.schedule == *schedule {
            cells.push(cell);
        }
    }
    cells.sort_by(|a, b| (a.lambda_exp, &a.strategy, a.seed).cmp(&(b.lambda_exp, &b.strategy, b.seed)));
    Ok(cells)
}

/// Mean and standard deviation over seeds, `None` where a seed failed.
type MeanStd = Option<(f64, Option<f64>)>;

/// Mean and sample standard deviation (`None` for fewer than two values,
/// where it is undefined).
fn mean_std(v: &[f64]) -> (f64, Option<f64>) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.len() > 1).then(|| (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt());
    (mean, sd)
}

/// The paper's MNIST testing accuracies (means, %), Tables II–III, in the
/// order printed. The λ of each block was lost in the text extraction; the
/// blocks are in increasing λ (the initial network's accuracy falls from
/// 98.30% to 93.64%). Rows: Orig., Exg-E, Chol-1, Chol-2, R-Inv, D-Rdg;
/// `NAN` is the paper's "NA".
pub const PAPER_BLOCKS: [[[f64; 12]; 6]; 8] = {
    const NA: f64 = f64::NAN;
    [
        [
            [
                98.30, 98.62, 98.76, 98.85, 98.88, 98.88, 98.86, 98.81, 98.73, 98.59, 98.39, 98.10,
            ],
            [
                98.30, 98.62, 98.76, 98.85, 98.89, 98.88, 98.86, 98.82, 98.73, 98.61, 98.42, 98.16,
            ],
            [98.30, 98.62, 98.76, 98.85, 98.90, NA, NA, NA, NA, NA, NA, NA],
            [
                98.30, 98.62, 98.76, 98.85, 98.89, 98.90, 98.92, 98.93, 98.93, 98.92, 98.91, 98.89,
            ],
            [
                98.30, 98.62, 98.76, 98.85, 98.89, 98.90, 98.92, 98.92, 98.91, 98.89, 98.88, 98.86,
            ],
            [
                98.30, 98.62, 98.76, 98.85, 98.90, 98.91, 98.93, 98.94, 98.95, 98.95, 98.95, 98.95,
            ],
        ],
        [
            [
                98.30, 98.58, 98.72, 98.79, 98.81, 98.77, 98.69, 98.52, 98.27, 97.91, 97.38, 96.69,
            ],
            [
                98.30, 98.58, 98.72, 98.80, 98.82, 98.78, 98.68, 98.53, 98.27, 97.90, 97.40, 96.73,
            ],
            [98.30, 98.57, 98.72, 98.81, 98.86, 98.90, 98.93, 98.95, NA, NA, NA, NA],
            [
                98.30, 98.57, 98.72, 98.81, 98.87, 98.90, 98.93, 98.95, 98.96, 98.95, 98.96, 98.96,
            ],
            [
                98.30, 98.57, 98.71, 98.81, 98.87, 98.90, 98.93, 98.94, 98.95, 98.95, 98.95, 98.95,
            ],
            [
                98.30, 98.57, 98.72, 98.81, 98.86, 98.90, 98.93, 98.95, 98.96, 98.97, 98.97, 98.98,
            ],
        ],
        [
            [
                98.22, 98.50, 98.65, 98.70, 98.65, 98.50, 98.22, 97.79, 97.15, 96.32, 95.19, 93.82,
            ],
            [
                98.22, 98.50, 98.65, 98.69, 98.65, 98.50, 98.22, 97.79, 97.16, 96.33, 95.21, 93.82,
            ],
            [
                98.22, 98.48, 98.64, 98.73, 98.79, 98.83, 98.86, 98.88, 98.91, 98.93, 98.94, 98.96,
            ],
            [
                98.22, 98.48, 98.64, 98.73, 98.79, 98.83, 98.86, 98.88, 98.91, 98.92, 98.94, 98.95,
            ],
            [
                98.22, 98.48, 98.64, 98.73, 98.79, 98.83, 98.86, 98.89, 98.91, 98.92, 98.94, 98.95,
            ],
            [
                98.22, 98.48, 98.64, 98.73, 98.79, 98.83, 98.86, 98.88, 98.91, 98.93, 98.94, 98.96,
            ],
        ],
        [
            [
                97.98, 98.27, 98.43, 98.47, 98.38, 98.17, 97.78, 97.20, 96.34, 95.18, 93.70, 91.88,
            ],
            [
                97.98, 98.27, 98.43, 98.47, 98.38, 98.17, 97.78, 97.20, 96.34, 95.17, 93.70, 91.88,
            ],
            [
                97.98, 98.24, 98.38, 98.47, 98.56, 98.63, 98.66, 98.71, 98.74, 98.77, 98.79, 98.81,
            ],
            [
                97.98, 98.24, 98.38, 98.47, 98.56, 98.63, 98.67, 98.71, 98.74, 98.77, 98.79, 98.81,
            ],
            [
                97.98, 98.24, 98.38, 98.48, 98.56, 98.63, 98.66, 98.71, 98.74, 98.77, 98.79, 98.81,
            ],
            [
                97.98, 98.24, 98.38, 98.47, 98.56, 98.63, 98.66, 98.71, 98.74, 98.77, 98.79, 98.81,
            ],
        ],
        [
            [
                97.47, 97.84, 98.01, 98.06, 97.93, 97.66, 97.17, 96.42, 95.35, 93.95, 92.21, 90.12,
            ],
            [
                97.47, 97.84, 98.01, 98.06, 97.93, 97.66, 97.17, 96.42, 95.35, 93.95, 92.22, 90.12,
            ],
            [
                97.47, 97.80, 97.98, 98.10, 98.19, 98.25, 98.32, 98.36, 98.40, 98.45, 98.48, 98.50,
            ],
            [
                97.47, 97.80, 97.98, 98.10, 98.19, 98.25, 98.32, 98.36, 98.40, 98.45, 98.48, 98.50,
            ],
            [
                97.47, 97.80, 97.98, 98.10, 98.19, 98.25, 98.32, 98.36, 98.40, 98.44, 98.48, 98.50,
            ],
            [
                97.47, 97.80, 97.98, 98.10, 98.19, 98.25, 98.32, 98.36, 98.40, 98.45, 98.48, 98.50,
            ],
        ],
        [
            [
                96.65, 97.13, 97.35, 97.40, 97.24, 96.84, 96.18, 95.16, 93.77, 92.07, 90.06, 87.78,
            ],
            [
                96.65, 97.13, 97.35, 97.40, 97.24, 96.84, 96.18, 95.16, 93.77, 92.07, 90.06, 87.78,
            ],
            [
                96.65, 97.06, 97.30, 97.48, 97.62, 97.71, 97.78, 97.85, 97.90, 97.96, 98.00, 98.04,
            ],
            [
                96.65, 97.06, 97.30, 97.48, 97.62, 97.71, 97.78, 97.85, 97.90, 97.96, 98.00, 98.04,
            ],
            [
                96.65, 97.06, 97.30, 97.48, 97.62, 97.71, 97.78, 97.85, 97.90, 97.96, 98.00, 98.04,
            ],
            [
                96.65, 97.06, 97.30, 97.48, 97.62, 97.71, 97.78, 97.85, 97.90, 97.96, 98.00, 98.04,
            ],
        ],
        [
            [
                95.44, 96.03, 96.29, 96.32, 96.05, 95.51, 94.61, 93.29, 91.64, 89.58, 87.24, 84.66,
            ],
            [
                95.44, 96.03, 96.29, 96.32, 96.05, 95.51, 94.61, 93.29, 91.64, 89.58, 87.24, 84.66,
            ],
            [
                95.44, 95.98, 96.28, 96.50, 96.65, 96.79, 96.89, 96.98, 97.07, 97.13, 97.19, 97.23,
            ],
            [
                95.44, 95.98, 96.28, 96.50, 96.65, 96.79, 96.89, 96.98, 97.07, 97.13, 97.19, 97.23,
            ],
            [
                95.44, 95.98, 96.28, 96.50, 96.65, 96.79, 96.89, 96.98, 97.07, 97.13, 97.19, 97.23,
            ],
            [
                95.44, 95.98, 96.28, 96.50, 96.65, 96.79, 96.89, 96.98, 97.07, 97.13, 97.19, 97.23,
            ],
        ],
        [
            [
                93.64, 94.45, 94.82, 94.89, 94.63, 94.03, 93.05, 91.64, 89.91, 87.83, 85.50, 83.02,
            ],
            [
                93.64, 94.45, 94.82, 94.89, 94.63, 94.03, 93.05, 91.64, 89.91, 87.83, 85.50, 83.02,
            ],
            [
                93.64, 94.41, 94.82, 95.11, 95.32, 95.48, 95.63, 95.73, 95.83, 95.92, 95.99, 96.07,
            ],
            [
                93.64, 94.41, 94.82, 95.11, 95.32, 95.48, 95.63, 95.73, 95.83, 95.92, 95.99, 96.07,
            ],
            [
                93.64, 94.41, 94.82, 95.11, 95.32, 95.48, 95.63, 95.73, 95.83, 95.92, 95.99, 96.07,
            ],
            [
                93.64, 94.41, 94.82, 95.11, 95.32, 95.48, 95.63, 95.73, 95.83, 95.92, 95.99, 96.07,
            ],
        ],
    ]
};

/// The paper's Table VI (MNIST, seconds): additional time per update for
/// Orig., R-Inv, Exg-E, Chol-2, Chol-1 (rows: the initial network, then the
/// 11 updates).
pub const PAPER_TABLE6: [[f64; 5]; 12] = [
    [9.56, 9.58, 4.93, 4.93, 4.92],
    [15.33, 15.47, 8.77, 8.89, 5.53],
    [22.62, 22.72, 13.85, 13.97, 8.52],
    [29.69, 29.80, 19.39, 19.57, 11.71],
    [36.91, 37.09, 25.43, 25.59, 15.50],
    [43.81, 44.19, 31.47, 31.65, 19.54],
    [51.04, 51.49, 37.99, 38.25, 24.03],
    [57.73, 58.24, 44.53, 44.75, 28.49],
    [65.27, 65.75, 51.87, 52.26, 33.81],
    [71.70, 72.51, 59.03, 59.39, 38.85],
    [79.13, 80.00, 67.12, 67.33, 44.83],
    [85.82, 87.00, 74.83, 75.07, 50.44],
];

/// Table VI's strategies, in its column order.
const TABLE6: [Strategy; 5] = [
    Strategy::Orig,
    Strategy::RInv,
    Strategy::ExgE,
    Strategy::Chol2,
    Strategy::Chol1,
];

/// One family's best run at one λ: strategy, maximum mean accuracy, the
/// update where it is reached, and the accuracy after the last update
/// (`None` if the strategy failed before it).
struct FamilyBest {
    strategy: Strategy,
    max: f64,
    at_update: usize,
    last: Option<f64>,
}

fn family_best(
    strategies: &[Strategy],
    per: &dyn Fn(Strategy) -> Option<Vec<MeanStd>>,
    nu: usize,
) -> Option<FamilyBest> {
    strategies
        .iter()
        .filter_map(|&s| {
            let per = per(s)?;
            let (at_update, max) = per
                .iter()
                .enumerate()
                .filter_map(|(u, v)| v.map(|x| (u, x.0)))
                .max_by(|a, b| a.1.total_cmp(&b.1))?;
            let last = per.get(nu - 1).copied().flatten().map(|x| x.0);
            Some(FamilyBest {
                strategy: s,
                max,
                at_update,
                last,
            })
        })
        .max_by(|a, b| a.max.total_cmp(&b.max))
}

/// The Fig. 1 comparison per λ: the best generalized-inverse and the best
/// ridge strategy, where each peaks, where each ends, and which is higher.
fn family_table(lambdas: &[i32], per: impl Fn(i32, Strategy) -> Option<Vec<MeanStd>>, nu: usize) -> Table {
    let mut t = Table::new(&[
        "λ",
        "generalized inverse: max (strategy, update)",
        "its last update",
        "ridge: max (strategy, update)",
        "its last update",
        "higher maximum",
    ]);
    let fmt = |b: &Option<FamilyBest>| match b {
        Some(b) => (
            format!("{:.2} ({}, {})", b.max, b.strategy.paper_name(), b.at_update),
            b.last.map_or("NA".into(), |v| format!("{v:.2}")),
        ),
        None => ("—".into(), "—".into()),
    };
    for &e in lambdas {
        let g = family_best(&[Strategy::Orig, Strategy::ExgE], &|s| per(e, s), nu);
        let r = family_best(
            &[Strategy::Chol1, Strategy::Chol2, Strategy::RInv, Strategy::DRdg],
            &|s| per(e, s),
            nu,
        );
        let higher = match (&g, &r) {
            (Some(g), Some(r)) if r.max > g.max => "ridge",
            (Some(g), Some(r)) if g.max > r.max => "generalized inverse",
            (Some(_), Some(_)) => "equal",
            _ => "—",
        };
        let ((gm, gl), (rm, rl)) = (fmt(&g), fmt(&r));
        t.push(vec![format!("2^{e}"), gm, gl, rm, rl, higher.into()]);
    }
    t
}

/// Each family's best maximum on one seed: the strategies reaching it
/// (ties are common: the ridge solutions agree to the last test image at
/// larger λ), joined by " = ", and the maximum test accuracy over the
/// updates they completed.
fn seed_family_best<'c>(cells: impl Iterator<Item = &'c Cell>, family: &[Strategy]) -> Option<(String, f64)> {
    let maxima: Vec<(Strategy, f64)> = cells
        .filter_map(|c| {
            let s = c.strategy.parse::<Strategy>().ok().filter(|s| family.contains(s))?;
            let max = c.accuracy.iter().flatten().copied().max_by(f64::total_cmp)?;
            Some((s, max))
        })
        .collect();
    let best = maxima.iter().map(|m| m.1).max_by(f64::total_cmp)?;
    // In the family's order, so the name does not depend on file order.
    let names: Vec<&str> = family
        .iter()
        .filter(|s| maxima.iter().any(|m| m.0 == **s && m.1 == best))
        .map(|s| s.paper_name())
        .collect();
    Some((names.join(" = "), best))
}

/// The Fig. 1 comparison paired by seed: on every seed where both families
/// ran at a λ, each family's best maximum on that seed (over the strategies
/// that ran on it), the difference ridge − generalized inverse, and on how
/// many seeds ridge is higher. Unlike [`family_table`], which compares
/// means over whatever seeds each strategy has, both sides here share the
/// same random networks. `cells` should hold one precision per strategy.
fn paired_family_table(lambdas: &[i32], cells: &[&Cell]) -> Table {
    const GI: [Strategy; 2] = [Strategy::Orig, Strategy::ExgE];
    const RIDGE: [Strategy; 4] = [Strategy::Chol1, Strategy::Chol2, Strategy::RInv, Strategy::DRdg];
    let mut t = Table::new(&[
        "λ",
        "seeds",
        "per seed: generalized inverse vs ridge maximum",
        "ridge − generalized inverse: mean (std)",
        "ridge higher on",
    ]);
    for &e in lambdas {
        let seeds: BTreeSet<u64> = cells.iter().filter(|c| c.lambda_exp == e).map(|c| c.seed).collect();
        let mut entries = vec![];
        let mut diffs = vec![];
        for seed in seeds {
            let on_seed = || {
                cells
                    .iter()
                    .copied()
                    .filter(move |c| c.lambda_exp == e && c.seed == seed)
            };
            let (Some((gs, g)), Some((rs, r))) =
                (seed_family_best(on_seed(), &GI), seed_family_best(on_seed(), &RIDGE))
            else {
                continue;
            };
            entries.push(format!("{seed}: {gs} {g:.2} vs {rs} {r:.2}"));
            diffs.push(r - g);
        }
        if diffs.is_empty() {
            t.push(vec![format!("2^{e}"), "0".into(), "—".into(), "—".into(), "—".into()]);
            continue;
        }
        let (mean, sd) = mean_std(&diffs);
        let higher = diffs.iter().filter(|&&d| d > 0.0).count();
        t.push(vec![
            format!("2^{e}"),
            diffs.len().to_string(),
            entries.join("; "),
            match sd {
                Some(sd) => format!("{mean:+.2} ({sd:.2})"),
                None => format!("{mean:+.2}"),
            },
            format!("{higher} of {}", diffs.len()),
        ]);
    }
    t
}

/// `mean (std)`, or the mean alone when one seed ran, or `NA` after a failure.
fn fmt_acc(v: MeanStd) -> String {
    match v {
        Some((m, Some(sd))) => format!("{m:.2} ({sd:.2})"),
        Some((m, None)) => format!("{m:.2}"),
        None => "NA".into(),
    }
}

fn write_report(opts: &Options, cells: &[Cell], peak: f64, seconds: f64) -> Result<PathBuf, ReproError> {
    let sch = opts.schedule;
    let dir = &opts.out_dir;
    std::fs::create_dir_all(dir)?;
    let nu = sch.updates + 1;
    // (λ, strategy, precision) → cells.
    let mut groups: BTreeMap<(i32, String, String), Vec<&Cell>> = BTreeMap::new();
    for c in cells {
        groups
            .entry((c.lambda_exp, c.strategy.clone(), c.precision.clone()))
            .or_default()
            .push(c);
    }
    let default_precision = |s: Strategy| format!("{:?}", opts.precision(s));
    let stats = |e: i32, s: Strategy, prec: &str| -> Option<(usize, Vec<MeanStd>)> {
        let g = groups.get(&(e, s.cli_name().to_string(), prec.to_string()))?;
        let per_update = (0..nu)
            .map(|u| {
                // A strategy that failed in any seed is NA from there on (the paper's convention).
                let v: Option<Vec<f64>> = g.iter().map(|c| c.accuracy.get(u).copied().flatten()).collect();
                v.map(|v| mean_std(&v))
            })
            .collect();
        Some((g.len(), per_update))
    };

    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Reproduction: Zhu et al., two ridge solutions for the incremental BLS (MNIST)\n"
    );
    let _ = writeln!(
        md,
        "Generated by `cargo xtask reproduce bls-ridge{}` on {} (UTC), on this machine: {}; DGEMM peak measured in the same run: {peak:.1} GFLOP/s on 2 threads. Report written after {seconds:.0} s of this invocation (cells from earlier invocations are reused).\n",
        if opts.quick { " --quick" } else { "" },
        report::utc_now(),
        machine()
    );
    let (f0, e0) = sch.nodes_after(0);
    let (f1, e1) = sch.nodes_after(sch.updates);
    let _ = writeln!(
        md,
        "Protocol: {} training / {} test MNIST images (pixels / 255), {} feature groups × {} nodes and {} enhancement nodes, then {} updates each adding a feature group of {} nodes, {} enhancement nodes fed by it and {} fed by all feature nodes: {f0} → {f1} feature and {e0} → {e1} enhancement nodes. Sparse-autoencoder feature maps (lasso by 50 ADMM steps), tanh enhancement nodes with U[−1, 1] weights and shrink 0.8. {}\n",
        sch.train,
        sch.test,
        sch.feature_groups,
        sch.feature_nodes,
        sch.enhancement,
        sch.updates,
        sch.feature_nodes,
        sch.fed,
        sch.extra,
        if sch == Schedule::FULL {
            "This is the paper's schedule."
        } else {
            "This is the quick schedule: the paper's 12 steps with a fifteenth of its enhancement nodes, on 4000 training images."
        }
    );
    let seeds_run: std::collections::BTreeSet<u64> = cells.iter().map(|c| c.seed).collect();
    let _ = writeln!(
        md,
        "Seeds (random networks) per cell: up to {} (the paper: 100). Cells present: {} of the {} planned (seeds × λ × strategies){}.{}\n",
        seeds_run.len(),
        cells.iter().filter(|c| c.precision == format!("{:?}", opts.precision(strategy_of(c)))).count(),
        opts.seeds * opts.lambda_exps.len() * opts.strategies.len(),
        if opts.quick { ", plus the f32-storage comparison cells" } else { "" },
        seed_counts_note(&groups)
    );

    // Accuracy tables, one per λ.
    let _ = writeln!(
        md,
        "## Testing accuracy after each update (analogue of Tables II–III)\n"
    );
    let _ = writeln!(
        md,
        "Mean (standard deviation) over seeds, %; the standard deviation is left out where one seed ran. NA: the strategy failed (its typed error is listed below). The paper's blocks give the λ only as lost symbols; they are listed in increasing λ, and the block whose initial accuracy is closest to ours is shown beside each of our tables.\n"
    );
    let mut csv = Table::new(&[
        "lambda_exp",
        "strategy",
        "precision",
        "seeds",
        "update",
        "feature_nodes",
        "enhancement_nodes",
        "mean_accuracy",
        "std_accuracy",
    ]);
    let mut header = vec!["strategy".to_string(), "seeds".into()];
    for u in 0..nu {
        let (f, e) = sch.nodes_after(u);
        header.push(format!("{f}/{e}"));
    }
    let mut fig = vec![];
    let mut lambda_sorted = opts.lambda_exps.clone();
    lambda_sorted.sort_unstable();
    for &e in &lambda_sorted {
        let mut t = Table {
            header: header.clone(),
            rows: vec![],
        };
        let mut ours_initial = None;
        for &s in &opts.strategies {
            let prec = default_precision(s);
            let Some((n, per)) = stats(e, s, &prec) else {
                t.push(
                    std::iter::once(s.paper_name().to_string())
                        .chain(std::iter::once("0".into()))
                        .chain((0..nu).map(|_| "—".into()))
                        .collect(),
                );
                continue;
            };
            ours_initial = ours_initial.or(per[0].map(|p| p.0));
            let mut row = vec![
                format!("{}{}", s.paper_name(), if prec == "F32" { " (f32 A)" } else { "" }),
                n.to_string(),
            ];
            for (u, v) in per.iter().enumerate() {
                row.push(fmt_acc(*v));
                let (f, en) = sch.nodes_after(u);
                csv.push(vec![
                    e.to_string(),
                    s.cli_name().into(),
                    prec.clone(),
                    n.to_string(),
                    u.to_string(),
                    f.to_string(),
                    en.to_string(),
                    v.map_or("NA".into(), |x| format!("{:.4}", x.0)),
                    v.map_or("NA".into(), |x| x.1.map_or(String::new(), |sd| format!("{sd:.4}"))),
                ]);
            }
            t.push(row);
            let best = per.iter().flatten().map(|x| x.0).fold(f64::NAN, f64::max);
            if best.is_finite() {
                fig.push((s, e, best));
            }
        }
        let _ = writeln!(md, "### λ = 2^{e}\n");
        let _ = writeln!(md, "{}", t.markdown());
        if sch == Schedule::FULL {
            if let Some(init) = ours_initial {
                let (k, block) = PAPER_BLOCKS
                    .iter()
                    .enumerate()
                    .min_by(|a, b| (a.1[0][0] - init).abs().total_cmp(&(b.1[0][0] - init).abs()))
                    .unwrap_or((0, &PAPER_BLOCKS[0]));
                let _ = writeln!(md, "Paper, block {} of 8 (closest initial accuracy):\n", k + 1);
                let mut pt = Table {
                    header: header.clone(),
                    rows: vec![],
                };
                for (r, s) in STRATEGIES.iter().enumerate() {
                    let mut row = vec![s.paper_name().to_string(), "100".into()];
                    row.extend(
                        block[r]
                            .iter()
                            .map(|v| if v.is_nan() { "NA".into() } else { format!("{v:.2}") }),
                    );
                    pt.push(row);
                }
                let _ = writeln!(md, "{}", pt.markdown());
            }
        }
    }
    // Failures.
    let failures: Vec<&Cell> = cells.iter().filter(|c| c.failure.is_some()).collect();
    if !failures.is_empty() {
        let _ = writeln!(md, "### Failures (typed errors)\n");
        let mut ft = Table::new(&["λ", "strategy", "seed", "update", "error"]);
        for c in failures {
            if let Some((u, msg)) = &c.failure {
                ft.push(vec![
                    format!("2^{}", c.lambda_exp),
                    c.strategy.clone(),
                    c.seed.to_string(),
                    u.to_string(),
                    msg.replace('|', "/"),
                ]);
            }
        }
        let _ = writeln!(md, "{}", ft.markdown());
    }

    // f32 vs f64 (quick run).
    let f32_pairs: Vec<(&Cell, &Cell)> = cells
        .iter()
        .filter(|c| c.precision == "F32")
        .filter_map(|c32| {
            cells
                .iter()
                .find(|c| {
                    c.precision == "F64"
                        && c.seed == c32.seed
                        && c.lambda_exp == c32.lambda_exp
                        && c.strategy == c32.strategy
                })
                .map(|c64| (c32, c64))
        })
        .collect();
    if !f32_pairs.is_empty() {
        let _ = writeln!(md, "## Storing A in f32 against f64 (same networks)\n");
        let mut t = Table::new(&[
            "strategy",
            "λ",
            "seed",
            "largest accuracy difference over the updates (points)",
            "state bytes f64",
            "state bytes f32",
        ]);
        for (a, b) in f32_pairs {
            let d = a
                .accuracy
                .iter()
                .zip(&b.accuracy)
                .filter_map(|(x, y)| Some((x.as_ref()? - y.as_ref()?).abs()))
                .fold(0.0f64, f64::max);
            t.push(vec![
                a.strategy.clone(),
                format!("2^{}", a.lambda_exp),
                a.seed.to_string(),
                format!("{d:.3}"),
                b.state_bytes.to_string(),
                a.state_bytes.to_string(),
            ]);
        }
        let _ = writeln!(md, "{}", t.markdown());
    }

    // Table VI: time per update, first seed and the λ with the most complete row.
    let _ = writeln!(md, "## Training time per update (analogue of Table VI)\n");
    let mut time_csv = Table::new(&[
        "lambda_exp",
        "strategy",
        "seed",
        "update",
        "nodes",
        "solver_seconds",
        "columns_seconds",
        "flops",
        "gflops",
        "fraction_of_peak",
    ]);
    for c in cells {
        let mut nodes = 0;
        for u in 0..c.solver_seconds.len() {
            let (f, e) = sch.nodes_after(u);
            nodes = f + e;
            let g = c.flops[u] as f64 / c.solver_seconds[u] / 1e9;
            time_csv.push(vec![
                c.lambda_exp.to_string(),
                c.strategy.clone(),
                c.seed.to_string(),
                u.to_string(),
                nodes.to_string(),
                format!("{:.4}", c.solver_seconds[u]),
                format!("{:.4}", c.columns_seconds[u]),
                c.flops[u].to_string(),
                format!("{g:.2}"),
                format!("{:.3}", c.fraction_of_peak(u, peak)),
            ]);
        }
        let _ = nodes;
    }
    // Mean over the cells without failure, per strategy and update, over all λ and seeds.
    let mut t6 = Table::new(&[
        "update",
        "nodes (feature/enh.)",
        "Orig. s",
        "R-Inv s",
        "Exg-E s",
        "Chol-2 s",
        "Chol-1 s",
        "Chol-1 vs Orig.",
        "Chol-1 vs Exg-E",
        "accum. Orig.",
        "accum. R-Inv",
        "accum. Exg-E",
        "accum. Chol-2",
        "accum. Chol-1",
        "accum. vs Orig.",
        "accum. vs Exg-E",
        "paper Chol-1 s (accum.)",
    ]);
    // Mean seconds, flops and fraction of each cell's own DGEMM peak.
    let mean_time = |s: Strategy, u: usize| -> Option<(f64, f64, f64)> {
        let v: Vec<(f64, f64, f64)> = cells
            .iter()
            .filter(|c| c.strategy == s.cli_name() && c.solver_seconds.len() == nu)
            .map(|c| (c.solver_seconds[u], c.flops[u] as f64, c.fraction_of_peak(u, peak)))
            .collect();
        (!v.is_empty()).then(|| {
            let n = v.len() as f64;
            (
                v.iter().map(|x| x.0).sum::<f64>() / n,
                v.iter().map(|x| x.1).sum::<f64>() / n,
                v.iter().map(|x| x.2).sum::<f64>() / n,
            )
        })
    };
    let secs = |v: f64| if v.is_finite() { format!("{v:.2}") } else { "—".into() };
    let mut acc = [0.0f64; 5];
    let mut paper_acc = 0.0;
    let mut flops_rows = vec![];
    for u in 0..nu {
        let (f, e) = sch.nodes_after(u);
        let times: Vec<Option<(f64, f64, f64)>> = TABLE6.iter().map(|&s| mean_time(s, u)).collect();
        for (k, t) in times.iter().enumerate() {
            acc[k] += t.map_or(f64::NAN, |x| x.0);
        }
        paper_acc += PAPER_TABLE6.get(u).map_or(f64::NAN, |r| r[4]);
        let ts = |k: usize| times[k].map_or("—".into(), |x| format!("{:.2}", x.0));
        let ratio = |a: f64, b: f64| {
            if a.is_finite() && b.is_finite() {
                format!("{:.2}", a / b)
            } else {
                "—".into()
            }
        };
        let t = |k: usize| times[k].map_or(f64::NAN, |x| x.0);
        let paper = if sch == Schedule::FULL {
            PAPER_TABLE6
                .get(u)
                .map_or("—".into(), |r| format!("{:.2} ({paper_acc:.2})", r[4]))
        } else {
            "—".into()
        };
        t6.push(vec![
            u.to_string(),
            format!("{f}/{e}"),
            ts(0),
            ts(1),
            ts(2),
            ts(3),
            ts(4),
            ratio(t(0), t(4)),
            ratio(t(2), t(4)),
            secs(acc[0]),
            secs(acc[1]),
            secs(acc[2]),
            secs(acc[3]),
            secs(acc[4]),
            ratio(acc[0], acc[4]),
            ratio(acc[2], acc[4]),
            paper,
        ]);
        flops_rows.push((u, f + e, times));
    }
    let _ = writeln!(
        md,
        "Solver seconds per update (mean over the cells of each strategy that completed the schedule, all λ and seeds); the columns of each update (feature maps, enhancement nodes) are computed outside the timed solver update and listed in `times.csv`. The paper (MATLAB, a Windows server) reports Chol-1 at 1.99× Orig. and 1.53× Exg-E accumulated, and 286 s in total.\n"
    );
    let _ = writeln!(md, "{}", t6.markdown());
    let _ = writeln!(
        md,
        "The means above mix two code versions (see the note under the next heading). The accumulated time per version, with Chol-1's speedups computed within each version (cells run before 2026-11-22 21:30 UTC also include a finiteness check that walked `A` across its memory layout, about 6 s per cell; docs/performance.md):\n"
    );
    let _ = writeln!(md, "{}", accumulated_by_version(cells, nu).markdown());
    let _ = writeln!(md, "### Flops and achieved rate per update\n");
    let timed: Vec<Cell> = cells.iter().filter(|c| c.solver_seconds.len() == nu).cloned().collect();
    let _ = writeln!(md, "{}\n", peak_note(&timed, peak));
    let mut ft = Table::new(&[
        "update",
        "nodes",
        "strategy",
        "flops",
        "seconds",
        "GFLOP/s",
        "of DGEMM peak",
    ]);
    for (u, n, times) in &flops_rows {
        for (k, t) in times.iter().enumerate() {
            if let Some((sec, fl, frac)) = t {
                let g = fl / sec / 1e9;
                ft.push(vec![
                    u.to_string(),
                    n.to_string(),
                    TABLE6[k].paper_name().into(),
                    format!("{fl:.3e}"),
                    format!("{sec:.3}"),
                    format!("{g:.1}"),
                    format!("{:.0}%", 100.0 * frac),
                ]);
            }
        }
    }
    let _ = writeln!(md, "{}", ft.markdown());

    // Memory.
    let _ = writeln!(md, "## Memory\n");
    let _ = writeln!(
        md,
        "Per strategy over the cells that completed the schedule: the solver's state at the end, and the \
         process's peak resident memory (`VmHWM`) in the most recent cell and the largest over all cells. \
         Cells keep the figure of the code they ran with: an older cell can show a higher peak than the \
         current code reaches. The issue's limit is 20 GiB = {:.2} GB.\n",
        20.0 * (1u64 << 30) as f64 / 1e9
    );
    let mut mt = Table::new(&[
        "strategy",
        "A stored in",
        "solver state at the end (GB)",
        "peak RSS, latest cell (GB)",
        "latest cell (λ, ran at)",
        "within 20 GiB",
        "peak RSS, max over cells (GB)",
    ]);
    let mut groups: std::collections::BTreeMap<(String, String), Vec<&Cell>> = Default::default();
    for c in cells.iter().filter(|c| c.failure.is_none()) {
        groups
            .entry((c.strategy.clone(), c.precision.clone()))
            .or_default()
            .push(c);
    }
    let gb = |b: Option<u64>| b.map_or("—".to_string(), |b| format!("{:.2}", b as f64 / 1e9));
    for ((strategy, precision), group) in &groups {
        let Some(latest) = group.iter().max_by(|a, b| a.ran_at.cmp(&b.ran_at)) else {
            continue;
        };
        let max_peak = group.iter().filter_map(|c| c.peak_rss_bytes).max();
        let state = group.iter().map(|c| c.state_bytes).max().unwrap_or(0);
        let within = latest
            .peak_rss_bytes
            .map_or("—", |b| if b <= 20 << 30 { "yes" } else { "no" });
        mt.push(vec![
            strategy.clone(),
            precision.clone(),
            format!("{:.2}", state as f64 / 1e9),
            gb(latest.peak_rss_bytes),
            format!("2^{}, {}", latest.lambda_exp, latest.ran_at),
            within.into(),
            gb(max_peak),
        ]);
    }
    let _ = writeln!(md, "{}", mt.markdown());

    // Fig. 1: maximum testing accuracy vs λ.
    let mut series: Vec<svg::Series> = vec![];
    for &s in &opts.strategies {
        let points: Vec<(f64, f64)> = fig
            .iter()
            .filter(|(t, _, _)| *t == s)
            .map(|&(_, e, best)| (e as f64, best))
            .collect();
        if !points.is_empty() {
            series.push(svg::Series {
                name: s.paper_name().into(),
                points,
            });
        }
    }
    let mut fig_t = Table::new(&["λ", "strategy", "max accuracy over updates (%)"]);
    for (s, e, best) in &fig {
        fig_t.push(vec![format!("2^{e}"), s.paper_name().into(), format!("{best:.2}")]);
    }
    let _ = writeln!(md, "## Maximum testing accuracy vs λ (analogue of Fig. 1a)\n");
    let _ = writeln!(
        md,
        "![max accuracy vs λ](fig1_max_accuracy.svg)\n\nThe paper's finding: the generalized-inverse solutions (Orig., Exg-E) reach their maximum early and then degrade as nodes are added at small λ, while the ridge solutions keep improving and reach a higher maximum.\n"
    );
    let _ = writeln!(md, "{}", fig_t.markdown());
    let _ = writeln!(
        md,
        "Per λ, the two families side by side (means over seeds; generalized inverse: Orig., Exg-E; ridge: Chol-1, Chol-2, R-Inv, D-Rdg; update 0 is the initial network, the last is update {}):\n\n{}",
        nu - 1,
        family_table(&lambda_sorted, |e, s| stats(e, s, &default_precision(s)).map(|(_, per)| per), nu).markdown()
    );
    let default_cells: Vec<&Cell> = cells
        .iter()
        .filter(|c| c.precision == default_precision(strategy_of(c)))
        .collect();
    let _ = writeln!(
        md,
        "The same comparison paired by seed. The table above compares means over different sets of seeds where strategies have different numbers of them; here each seed's networks are shared by both sides. On each seed, a family's maximum is the best over those of its strategies that ran on that seed (named beside it, all of them where several tie; seeds beyond 0 have fewer strategies, see the seed counts above). Update 0 is the same network for every strategy, so a family's maximum is at least the initial accuracy.\n\n{}",
        paired_family_table(&lambda_sorted, &default_cells).markdown()
    );
    report::write(
        dir,
        "fig1_max_accuracy.svg",
        &svg::line_plot(
            "Maximum testing accuracy vs log2 λ",
            "log2 λ",
            "max test accuracy (%)",
            &series,
            false,
        ),
    )?;
    // Accuracy vs update at the smallest λ.
    if let Some(&e) = lambda_sorted.first() {
        let mut series = vec![];
        for &s in &opts.strategies {
            if let Some((_, per)) = stats(e, s, &default_precision(s)) {
                let points: Vec<(f64, f64)> = per
                    .iter()
                    .enumerate()
                    .filter_map(|(u, v)| v.map(|x| ((sch.nodes_after(u).0 + sch.nodes_after(u).1) as f64, x.0)))
                    .collect();
                if !points.is_empty() {
                    series.push(svg::Series {
                        name: s.paper_name().into(),
                        points,
                    });
                }
            }
        }
        report::write(
            dir,
            "accuracy_vs_nodes.svg",
            &svg::line_plot(
                &format!("Testing accuracy vs nodes, λ = 2^{e}"),
                "nodes",
                "test accuracy (%)",
                &series,
                false,
            ),
        )?;
        let _ = writeln!(md, "\n![accuracy vs nodes](accuracy_vs_nodes.svg)\n");
    }
    let _ = writeln!(
        md,
        "## Differences from the paper\n\n\
         - Construction details the paper leaves to Chen's BLS code, as we implement them (`models::bls`): \
         the sparse autoencoder's input map is min–max scaled per column (Chen's MATLAB scales per row); the \
         enhancement shrink divides by the largest |value| (Chen: the largest value); enhancement weights are \
         U[−1, 1] as the paper states, not orthonormalized as in Chen's code; pixels are divided by 255.\n\
         - Exg-E keeps the inverse Cholesky factor of CᵀC with λ dropped and, like the paper's MATLAB `chol`, \
         stops only when that factorization breaks down (a non-positive pivot; see the failure table). The \
         enhancement nodes fed by one new 10-node group are nearly collinear (hundreds of tanh nodes of 11 \
         inputs at shrink 0.8), so CᵀC is nearly singular and its tiny positive pivots give the large weights \
         of a nearly rank-deficient least-squares problem. Orig. instead computes C⁺ with a rank tolerance \
         (as MATLAB's pinv) and drops those directions, so the two generalized-inverse solutions can differ \
         more than in the paper. (Until 2026-11-22 06:00 our Exg-E also refused pivots below K·ε·‖h‖²; \
         with that rule it stopped at update 1 of the MNIST schedule.)\n\
         - Times: the paper's are MATLAB on a Windows server; ours are this 2-core machine. Solver time \
         excludes computing the new columns (listed separately in `times.csv`).\n\
         - One or a few random networks per λ instead of 100 (see the seed counts above).\n"
    );
    let _ = writeln!(
        md,
        "## Not reproduced\n\n- NORB (the paper's Tables IV–V and Fig. 1b): the dataset is not available here.\n"
    );
    report::write(dir, "report.md", &md)?;
    report::write(dir, "accuracy.csv", &csv.csv())?;
    report::write(dir, "times.csv", &time_csv.csv())?;
    report::write(dir, "cells.json", &serde_json::to_string_pretty(cells)?)?;
    Ok(dir.join("report.md"))
}

/// Where the (λ, strategy) groups differ in their number of seeds, which
/// have how many (empty when all have the same).
fn seed_counts_note(groups: &BTreeMap<(i32, String, String), Vec<&Cell>>) -> String {
    let mut by_count: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for ((e, s, prec), g) in groups {
        let name = s.parse::<Strategy>().map_or(s.clone(), |s| s.paper_name().to_string());
        let f32 = if prec == "F32" { " (f32 A)" } else { "" };
        by_count
            .entry(g.len())
            .or_default()
            .push(format!("{name}{f32} at λ = 2^{e}"));
    }
    if by_count.len() < 2 {
        return String::new();
    }
    let parts: Vec<String> = by_count
        .iter()
        .rev()
        .map(|(n, names)| {
            if names.len() > 6 {
                format!("{n} seed(s): the other {} pairs", names.len())
            } else {
                format!("{n} seed(s): {}", names.join(", "))
            }
        })
        .collect();
    format!(" Seeds per (λ, strategy): {}.", parts.join("; "))
}

/// Table VI's accumulated solver time split by code version: the complete
/// cells that copied the initial `A` into the solver (run before
/// `Strategy::build_owned`) and those whose solver took it over, with
/// Chol-1's accumulated speedups computed within each group, so that a
/// speedup never divides one version's time by the other's. `nu`: the
/// schedule's updates + 1 (a cell is complete when it timed all of them).
fn accumulated_by_version(cells: &[Cell], nu: usize) -> Table {
    let mean = |s: Strategy, taken: bool| -> Option<(f64, usize)> {
        let v: Vec<f64> = cells
            .iter()
            .filter(|c| c.strategy == s.cli_name() && c.solver_seconds.len() == nu && c.initial_a_taken == taken)
            .map(|c| c.solver_seconds.iter().sum())
            .collect();
        (!v.is_empty()).then(|| (v.iter().sum::<f64>() / v.len() as f64, v.len()))
    };
    let mut t = Table::new(&[
        "accumulated solver s (mean)",
        "cells that copied A",
        "cells whose solver took A over",
    ]);
    let shown = |m: Option<(f64, usize)>| m.map_or("—".into(), |(v, n)| format!("{v:.1} ({n} cells)"));
    for s in TABLE6 {
        t.push(vec![s.paper_name().into(), shown(mean(s, false)), shown(mean(s, true))]);
    }
    let speedup = |other: Strategy, taken: bool| match (mean(other, taken), mean(Strategy::Chol1, taken)) {
        (Some((a, _)), Some((b, _))) => format!("{:.2}", a / b),
        _ => "—".into(),
    };
    // The paper's accumulated speedup, from its Table VI (1.99 and 1.53).
    let paper_total = |s: Strategy| -> f64 {
        let k = TABLE6.iter().position(|&t| t == s).unwrap_or(0);
        PAPER_TABLE6.iter().map(|r| r[k]).sum()
    };
    for other in [Strategy::Orig, Strategy::ExgE] {
        t.push(vec![
            format!(
                "Chol-1 vs {} (paper: {:.2})",
                other.paper_name(),
                paper_total(other) / paper_total(Strategy::Chol1)
            ),
            speedup(other, false),
            speedup(other, true),
        ]);
    }
    t
}

/// What update 0's time includes: in cells run before `build_owned`, a copy
/// of the initial `A` into the solver (first-touch page faults, about a third
/// of update 0 at full size).
fn initial_copy_note(cells: &[Cell]) -> String {
    let copied = cells.iter().filter(|c| !c.initial_a_taken).count();
    let taken = cells.len() - copied;
    let cost = "whose first-touch page faults are about a third of update 0's time at this size (docs/performance.md)";
    // Taking `A` over saves the f64 copy; an f32 store still rounds it into
    // a buffer of its own.
    let f32_taken = if cells.iter().any(|c| c.initial_a_taken && c.precision == "F32") {
        " Where `A` is stored in f32, taking it over still rounds it into a new f32 buffer of half the size."
    } else {
        ""
    };
    match (copied, taken) {
        (0, _) => format!("In every cell the solver took the initial `A` over without a copy (`Strategy::build_owned`); Orig. and R-Inv still copy it into `B`.{f32_taken}"),
        (_, 0) => format!("In every cell update 0's time includes copying the initial `A` into the solver (and, for Orig. and R-Inv, into `B`), {cost}; the cells ran before `Strategy::build_owned` removed the first copy."),
        _ => format!("In {copied} of {} cells (run before `Strategy::build_owned`) update 0's time includes copying the initial `A` into the solver, {cost}; in the other {taken} the solver took `A` over without a copy, so update 0 is not comparable between the two groups.{f32_taken}", cells.len()),
    }
}

/// Which DGEMM peak the "of DGEMM peak" figures are relative to: each
/// cell's own run's, or this run's for cells that did not store one
/// (`cells`: those the flops table averages, the complete ones).
fn peak_note(cells: &[Cell], peak: f64) -> String {
    let own: Vec<f64> = cells.iter().filter_map(|c| c.dgemm_peak_gflops).collect();
    let old = cells.len() - own.len();
    let mut note = String::from("GFLOP/s and seconds are means over the same cells as the table above. ");
    note.push_str(&initial_copy_note(cells));
    note.push_str(
        " \"Of DGEMM peak\" is the mean, over those cells, of each cell's rate divided by the DGEMM peak measured by the invocation that ran the cell",
    );
    if !own.is_empty() {
        let (lo, hi) = own
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        let _ = write!(note, " ({} cells; their peaks {lo:.1}–{hi:.1} GFLOP/s)", own.len());
    }
    note.push('.');
    if old > 0 {
        let _ = write!(
            note,
            " {old} cells were written before cells stored their run's peak; they are divided by this invocation's peak, {peak:.1} GFLOP/s, which is not the peak of the machine state they ran in (n = 2048 best-of-3 peaks varied 90.7–104.5 GFLOP/s between invocations), so their percentages carry that ±7% uncertainty."
        );
    }
    note
}

fn strategy_of(c: &Cell) -> Strategy {
    c.strategy.parse().unwrap_or(Strategy::DRdg)
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sample_std_by_hand() {
        // Mean 2, squared deviations 1 + 0 + 1 over n − 1 = 2: sd = 1.
        assert_eq!(mean_std(&[1.0, 2.0, 3.0]), (2.0, Some(1.0)));
        assert_eq!(fmt_acc(Some(mean_std(&[1.0, 2.0, 3.0]))), "2.00 (1.00)");
        // One seed: no spread to report, not a spread of zero.
        assert_eq!(mean_std(&[98.6]), (98.6, None));
        assert_eq!(fmt_acc(Some(mean_std(&[98.6]))), "98.60");
        assert_eq!(fmt_acc(None), "NA");
    }

    fn timed_cell(flops: u64, seconds: f64, peak: Option<f64>) -> Cell {
        Cell {
            schedule: Schedule::FULL,
            seed: 0,
            lambda_exp: -10,
            strategy: "chol1".into(),
            precision: "F64".into(),
            accuracy: vec![Some(98.0)],
            failure: None,
            solver_seconds: vec![seconds],
            columns_seconds: vec![0.0],
            flops: vec![flops],
            state_bytes: 0,
            peak_rss_bytes: None,
            ran_at: String::new(),
            dgemm_peak_gflops: peak,
            initial_a_taken: false,
        }
    }

    /// The per-update progress line names the update, the network's size
    /// after it and the rate of that update (not of the whole cell).
    #[test]
    fn progress_line_describes_the_last_update() {
        let mut cell = timed_cell(10_000_000_000, 5.0, None);
        cell.accuracy.push(Some(98.456));
        cell.solver_seconds.push(2.0);
        cell.columns_seconds.push(0.0);
        cell.flops.push(190_000_000_000);
        let line = progress_line(&cell);
        // Update 1 of the full schedule: 60 + 10 feature, 3000 + 2000 enhancement nodes.
        assert!(line.contains("update 1/11 (70/5000 nodes)"), "{line}");
        assert!(line.contains("accuracy 98.46%"), "{line}");
        // 190 GFLOP in 2 s, not (200 GFLOP in 7 s).
        assert!(line.contains("solver 2.0 s (95.0 GFLOP/s)"), "{line}");
        assert!(line.contains("seed 0, λ = 2^-10, Chol-1: update"), "{line}");
        cell.strategy = "r-inv".into();
        cell.precision = "F32".into();
        assert!(progress_line(&cell).contains("R-Inv (f32 A): update 1/11"));
        let first = timed_cell(10_000_000_000, 5.0, None);
        assert!(progress_line(&first).contains("update 0/11 (60/3000 nodes)"));
    }

    /// A cell is compared with the peak of the run that produced it; only a
    /// cell without one falls back to the current run's peak, and the
    /// report says how many did.
    #[test]
    fn rate_is_relative_to_the_cells_own_peak() {
        // 90 GFLOP in 1 s = 90 GFLOP/s.
        let own = timed_cell(90_000_000_000, 1.0, Some(100.0));
        let old = timed_cell(90_000_000_000, 1.0, None);
        assert!((own.fraction_of_peak(0, 80.0) - 0.9).abs() < 1e-12);
        assert!((old.fraction_of_peak(0, 80.0) - 1.125).abs() < 1e-12);
        let note = peak_note(&[own.clone(), old], 80.0);
        assert!(note.contains("(1 cells; their peaks 100.0–100.0 GFLOP/s)"), "{note}");
        assert!(note.contains("1 cells were written before"), "{note}");
        assert!(!peak_note(&[own], 80.0).contains("written before"));
    }

    /// Chol-1's speedups are taken within one code version: a cell that
    /// copied `A` is never divided by one that took it over, and failed
    /// (incomplete) cells are left out.
    #[test]
    fn accumulated_time_is_split_by_code_version() {
        let cell = |strategy: &str, secs: [f64; 2], taken: bool| Cell {
            strategy: strategy.into(),
            solver_seconds: secs.to_vec(),
            initial_a_taken: taken,
            ..timed_cell(1, 1.0, None)
        };
        let cells = [
            cell("orig", [10.0, 30.0], false),
            cell("orig", [20.0, 40.0], false),
            cell("exg-e", [6.0, 18.0], false),
            cell("chol1", [4.0, 11.0], false),
            cell("orig", [8.0, 28.0], true),
            cell("chol1", [3.0, 9.0], true),
            // Failed after update 0: not complete, not counted.
            Cell {
                solver_seconds: vec![1.0],
                ..cell("chol1", [0.0, 0.0], true)
            },
        ];
        let md = accumulated_by_version(&cells, 2).markdown();
        // Orig.: copied (40 + 60) / 2 = 50 over 2 cells; took over 36.
        assert!(md.contains("| Orig. | 50.0 (2 cells) | 36.0 (1 cells) |"), "{md}");
        assert!(md.contains("| Chol-1 | 15.0 (1 cells) | 12.0 (1 cells) |"), "{md}");
        assert!(md.contains("| Exg-E | 24.0 (1 cells) | — |"), "{md}");
        assert!(md.contains("| R-Inv | — | — |"), "{md}");
        // 50 / 15 and 36 / 12 (not 50 / 12 or 36 / 15).
        assert!(md.contains("| Chol-1 vs Orig. (paper: 1.99) | 3.33 | 3.00 |"), "{md}");
        // No Exg-E cell took A over: no speedup there.
        assert!(md.contains("| Chol-1 vs Exg-E (paper: 1.53) | 1.60 | — |"), "{md}");
    }

    /// The report says whether update 0 includes the copy of `A`, by what
    /// the cells record; cells written before the field existed copied.
    #[test]
    fn initial_copy_note_follows_the_cells() {
        let copied = timed_cell(1, 1.0, None);
        let taken = Cell {
            initial_a_taken: true,
            ..timed_cell(1, 1.0, None)
        };
        assert!(initial_copy_note(&[copied.clone(), copied.clone()])
            .starts_with("In every cell update 0's time includes copying"));
        assert!(initial_copy_note(std::slice::from_ref(&taken)).starts_with("In every cell the solver took"));
        let mixed = initial_copy_note(&[copied.clone(), copied.clone(), taken.clone()]);
        assert!(mixed.starts_with("In 2 of 3 cells"), "{mixed}");
        assert!(mixed.contains("in the other 1 the solver took"), "{mixed}");
        // An f32 store is taken over too, but rounds `A` into its own buffer.
        assert!(!mixed.contains("f32"), "{mixed}");
        let taken_f32 = Cell {
            precision: "F32".into(),
            ..taken
        };
        let with_f32 = initial_copy_note(&[copied.clone(), taken_f32]);
        assert!(
            with_f32.contains("stored in f32, taking it over still rounds"),
            "{with_f32}"
        );
        // A copying f32 cell is covered by the copy sentence alone.
        let copied_f32 = Cell {
            precision: "F32".into(),
            ..copied.clone()
        };
        assert!(!initial_copy_note(&[copied_f32]).contains("taking it over"));
        let mut v = serde_json::to_value(&copied).unwrap();
        v.as_object_mut().unwrap().remove("initial_a_taken");
        let old: Cell = serde_json::from_value(v).unwrap();
        assert!(!old.initial_a_taken);
    }

    /// The report names the (λ, strategy) pairs with more seeds than the rest.
    #[test]
    fn seed_counts_note_names_the_pairs_with_more_seeds() {
        let cell = |seed: u64, e: i32, s: &str| Cell {
            seed,
            lambda_exp: e,
            strategy: s.into(),
            ..timed_cell(1, 1.0, None)
        };
        let cells: Vec<Cell> = vec![
            cell(0, -25, "exg-e"),
            cell(1, -25, "exg-e"),
            cell(0, -25, "chol2"),
            cell(0, -10, "exg-e"),
        ];
        let mut groups: BTreeMap<(i32, String, String), Vec<&Cell>> = BTreeMap::new();
        for c in &cells {
            groups
                .entry((c.lambda_exp, c.strategy.clone(), c.precision.clone()))
                .or_default()
                .push(c);
        }
        assert_eq!(
            seed_counts_note(&groups),
            " Seeds per (λ, strategy): 2 seed(s): Exg-E at λ = 2^-25; 1 seed(s): Chol-2 at λ = 2^-25, Exg-E at λ = 2^-10."
        );
        groups.retain(|k, _| k.0 == -10);
        assert_eq!(seed_counts_note(&groups), "");
    }

    /// A cell JSON written before the peak was stored still loads.
    #[test]
    fn old_cell_json_without_peak_loads() {
        let mut v = serde_json::to_value(timed_cell(1, 1.0, Some(1.0))).unwrap();
        v.as_object_mut().unwrap().remove("dgemm_peak_gflops");
        let c: Cell = serde_json::from_value(v).unwrap();
        assert_eq!(c.dgemm_peak_gflops, None);
    }

    /// Hand-made cells: the paired table compares each family's best on
    /// the same seed, skips seeds where one family did not run, ignores a
    /// failed cell's missing updates, and signs the difference ridge − GI.
    #[test]
    fn paired_family_table_compares_on_shared_seeds() {
        let cell = |seed: u64, e: i32, s: &str, acc: &[Option<f64>]| Cell {
            seed,
            lambda_exp: e,
            strategy: s.into(),
            accuracy: acc.to_vec(),
            ..timed_cell(1, 1.0, None)
        };
        let cells = [
            cell(0, -10, "orig", &[Some(95.0), Some(97.0), Some(90.0)]),
            cell(0, -10, "exg-e", &[Some(95.0), Some(97.5), Some(80.0)]),
            cell(0, -10, "chol2", &[Some(95.0), Some(96.5), Some(96.9)]),
            cell(0, -10, "d-rdg", &[Some(95.0), Some(96.8), Some(97.0)]),
            cell(1, -10, "exg-e", &[Some(94.0), Some(97.0), Some(75.0)]),
            cell(1, -10, "chol2", &[Some(94.0), Some(96.0), Some(97.3)]),
            cell(1, -10, "chol1", &[None, None, None]),
            // A tie with Chol-2 on seed 1: both are named, in family order.
            cell(1, -10, "r-inv", &[Some(94.0), Some(96.0), Some(97.3)]),
            // Seed 2 has no ridge cell: not compared.
            cell(2, -10, "exg-e", &[Some(96.0), Some(99.0), Some(70.0)]),
            cell(0, -30, "orig", &[Some(98.0), Some(98.5), None]),
            cell(0, -30, "chol2", &[Some(98.0), Some(98.4), Some(98.8)]),
        ];
        let refs: Vec<&Cell> = cells.iter().collect();
        let t = paired_family_table(&[-30, -10, -5], &refs);
        assert_eq!(
            t.rows[0],
            ["2^-30", "1", "0: Orig. 98.50 vs Chol-2 98.80", "+0.30", "1 of 1"]
        );
        assert_eq!(
            t.rows[1],
            [
                "2^-10",
                "2",
                "0: Exg-E 97.50 vs D-Rdg 97.00; 1: Exg-E 97.00 vs Chol-2 = R-Inv 97.30",
                // Differences −0.50 and +0.30: mean −0.10, sd √(2 · 0.4²) = 0.566.
                "-0.10 (0.57)",
                "1 of 2"
            ]
        );
        assert_eq!(t.rows[2], ["2^-5", "0", "—", "—", "—"]);
    }

    /// Hand-made curves: the generalized inverse peaks at update 1 and
    /// falls; Chol-1 fails after update 1; Chol-2 keeps rising.
    #[test]
    fn family_table_picks_each_familys_best_and_the_higher() {
        let one = |v: &[Option<f64>]| v.iter().map(|x| x.map(|m| (m, None))).collect::<Vec<MeanStd>>();
        let per = |e: i32, s: Strategy| -> Option<Vec<MeanStd>> {
            match (e, s) {
                (-30, Strategy::Orig) => Some(one(&[Some(98.0), Some(98.7), Some(95.0)])),
                (-30, Strategy::ExgE) => Some(one(&[Some(98.0), Some(98.6), Some(96.0)])),
                (-30, Strategy::Chol1) => Some(one(&[Some(98.0), Some(98.4), None])),
                (-30, Strategy::Chol2) => Some(one(&[Some(98.0), Some(98.4), Some(98.8)])),
                (-5, Strategy::ExgE) => Some(one(&[Some(93.0), Some(96.7), Some(82.8)])),
                (-5, Strategy::Chol1) => Some(one(&[Some(93.0), Some(94.0), Some(95.0)])),
                _ => None,
            }
        };
        let t = family_table(&[-30, -5, -10], per, 3);
        assert_eq!(
            t.rows[0],
            [
                "2^-30",
                "98.70 (Orig., 1)",
                "95.00",
                "98.80 (Chol-2, 2)",
                "98.80",
                "ridge"
            ]
        );
        assert_eq!(
            t.rows[1],
            [
                "2^-5",
                "96.70 (Exg-E, 1)",
                "82.80",
                "95.00 (Chol-1, 2)",
                "95.00",
                "generalized inverse"
            ]
        );
        assert_eq!(t.rows[2], ["2^-10", "—", "—", "—", "—", "—"]);
    }
}
