//! Running the sweep: the data, one cell (the whole schedule for one seed,
//! λ and strategy), and the plan of cells, run by the one cell runner
//! (stored cells skipped, the time budget).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use linalg_core::ridge::Strategy;
use linalg_core::Precision;
use models::bls::{BlsParams, IncrementalBls};
use models::ParamGuard;
use ndarray::{Array2, Axis, Slice};

use super::cell::{cell_file, load_cells, Cell, PinvCut};
use super::protocol::{Options, Schedule};
use super::report::write_report;
use crate::datasets::{argmax_rows, one_hot};
use crate::machine;
use crate::papers::{Blas, CellRunner, Job, ReproError};

/// MNIST with pixels in [0, 1] (Chen's BLS code divides by 255), one-hot
/// training targets and test labels.
struct Data {
    x_train: Array2<f64>,
    y_train: Array2<f64>,
    x_test: Array2<f64>,
    labels: Vec<usize>,
}

fn load(schedule: &Schedule) -> Result<Data, ReproError> {
    let crate::papers::mnist::Mnist { train, test } =
        crate::papers::mnist::load(None, Some(schedule.train), Some(schedule.test))?;
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
fn run_cell(opts: &Options, d: &mut Data, (seed, e, s, p): Spec, peak: f64) -> Result<Cell, ReproError> {
    let sch = opts.schedule;
    machine::reset_peak_rss();
    let config = BlsParams::new(sch.feature_groups, sch.feature_nodes, sch.enhancement)
        .with_lambda(2f64.powi(e))
        .with_strategy(s)
        .with_seed(seed)
        .with_precision(p)
        .with_enhancement_weights(opts.enhancement_weights)
        .check()?;
    let mut cell = Cell {
        schedule: sch,
        seed,
        lambda_exp: e,
        strategy: s,
        precision: p,
        accuracy: vec![],
        failure: None,
        solver_seconds: vec![],
        columns_seconds: vec![],
        flops: vec![],
        state_bytes: 0,
        peak_rss_bytes: None,
        ran_at: machine::utc_now(),
        dgemm_peak_gflops: Some(peak),
        // `models::bls` builds its solver with `Strategy::build` taking an owned `A`.
        initial_a_taken: true,
        orig_pinv_cut: PinvCut::current(s),
        cpu: Some(machine::cpu_description()),
        enhancement_weights: opts.enhancement_weights,
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
    cell.peak_rss_bytes = machine::peak_rss_bytes();
    (d.x_train, d.y_train) = bls.into_data();
    Ok(cell)
}

/// The progress line printed after each update of a cell (a full-size cell
/// runs 8–20 minutes): the update just done, the network's size, its test
/// accuracy, and the solver's time and rate for that update.
pub(super) fn progress_line(cell: &Cell) -> String {
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
    let name = cell.strategy.paper_name();
    let f32_note = if cell.is_f32() { " (f32 A)" } else { "" };
    format!(
        "bls-ridge:   seed {}, λ = 2^{}, {name}{f32_note}: update {u}/{} ({f}/{e} nodes): accuracy {acc}, solver {secs:.1} s ({gflops:.1} GFLOP/s)",
        cell.seed, cell.lambda_exp, cell.schedule.updates
    )
}

/// One cell: seed, λ = 2^e, strategy and the storage precision of `A`.
type Spec = (u64, i32, Strategy, Precision);

/// The cells in run order: every (seed, λ, strategy) at the strategy's
/// precision, and in the quick run a few f32 twins of f64 cells.
fn plan(opts: &Options) -> Vec<Spec> {
    let mut plan = vec![];
    for seed in 0..opts.seeds as u64 {
        for &e in &opts.lambda_exps {
            for &s in &opts.strategies {
                plan.push((seed, e, s, opts.precision(s)));
                if opts.quick
                    && seed == 0
                    && (e == -10 || (e == -30 && s == Strategy::Orig))
                    && matches!(s, Strategy::RInv | Strategy::Orig | Strategy::DRdg)
                {
                    plan.push((seed, e, s, Precision::F32));
                }
            }
        }
    }
    plan
}

/// Run the reproduction; returns the report's path. The cells and the
/// DGEMM peak run on `opts.threads` BLAS threads, set through `blas`.
pub fn run(opts: &Options, blas: &Blas) -> Result<PathBuf, ReproError> {
    let started = Instant::now();
    std::fs::create_dir_all(&opts.cells_dir)?;
    eprintln!(
        "bls-ridge: MNIST {} train / {} test images, {} seeds × {} λ × {} strategies",
        opts.schedule.train,
        opts.schedule.test,
        opts.seeds,
        opts.lambda_exps.len(),
        opts.strategies.len()
    );
    let data = Mutex::new(load(&opts.schedule)?);
    // n = 3072, best of 5 after a warm-up (n = 2048 best of 3 varied
    // 90.7–104.5 GFLOP/s between invocations).
    let peak = blas.with(opts.threads, || machine::dgemm_peak_gflops(3072, 5));
    eprintln!("bls-ridge: DGEMM peak {peak:.1} GFLOP/s ({} threads)", opts.threads);
    let plan = plan(opts);
    let total = plan.len();
    let jobs: Vec<Job<(usize, Spec)>> = plan
        .into_iter()
        .enumerate()
        .map(|(i, (seed, e, s, p))| {
            let file = cell_file(Path::new(""), &opts.schedule, seed, e, s, (p, opts.enhancement_weights));
            Job::new(file.to_string_lossy(), opts.threads, (i, (seed, e, s, p)))
        })
        .collect();
    let mut runner = CellRunner::new("bls-ridge", &opts.cells_dir, blas).budget(started, opts.time_budget_min);
    let ran = runner.run(&jobs, |job| {
        let (i, (seed, e, s, p)) = job.spec;
        let t = Instant::now();
        let mut d = data
            .lock()
            .map_err(|_| ReproError::Protocol("bls-ridge: an earlier cell panicked holding the data".into()))?;
        let cell = run_cell(opts, &mut d, (seed, e, s, p), peak)?;
        let last = cell.accuracy.iter().rev().flatten().next().copied();
        eprintln!(
            "bls-ridge: cell {}/{total}: seed {seed}, λ = 2^{e}, {s}{}{}: final accuracy {}, solver {:.1} s, {:.0} s ({:.0} s so far)",
            i + 1,
            if p == Precision::F32 { " (f32 A)" } else { "" },
            if cell.is_orthonormal() { ", orthonormal W_h" } else { "" },
            last.map_or("NA".into(), |a| format!("{a:.2}%")),
            cell.solver_seconds.iter().sum::<f64>(),
            t.elapsed().as_secs_f64(),
            started.elapsed().as_secs_f64()
        );
        Ok(cell)
    })?;
    runner.finish();
    eprintln!(
        "bls-ridge: {} cells run in {:.0} s",
        ran.computed,
        started.elapsed().as_secs_f64()
    );
    let cells = load_cells(&opts.cells_dir, &opts.schedule)?;
    write_report(opts, &cells, peak, started.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::papers::bls_ridge::cell::fixtures::timed_cell;

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
        cell.strategy = Strategy::RInv;
        cell.precision = Precision::F32;
        assert!(progress_line(&cell).contains("R-Inv (f32 A): update 1/11"));
        let first = timed_cell(10_000_000_000, 5.0, None);
        assert!(progress_line(&first).contains("update 0/11 (60/3000 nodes)"));
    }
}
