//! Tomic, Matos-Carvalho & Beko, *A closed-form solution for weight
//! optimization in fully-connected feed-forward neural networks*
//! (arXiv:2401.06699, 2024): the toy problems (Figs. 4–5), MNIST (Fig. 7,
//! Table I), the running times (Table II) and accuracy against time (Fig.
//! 9).
//!
//! BPLS is [`models::mlp`]'s (the reading of the paper is documented
//! there); the baselines are the same network trained by backpropagation
//! with [`models::optim::first_order`]'s Adam, NAG, SGD and AdaGrad, our own
//! implementations, as efficient as we can make them. The paper ran its
//! baselines with batch size 1; a full run here trains them at batch 128
//! (5 runs per rule) and at batch 1 (one run per rule), 40 epochs each, and
//! reports both; Table II's epoch times come from a separate cell that
//! times every method in turn, round by round ([`timing`]). Fashion-MNIST
//! comes from Debian's package (`cargo xtask reproduce tomic-bpls` runs
//! it second); `--data-dir` points the same protocol at any MNIST-style
//! directory. Each run is a cell stored as JSON in `cells/` and reused
//! when the reproduction is run again.

mod claims;
pub mod mnist;
pub mod published;
pub mod readings;
mod report;
pub mod timing;
pub mod toy;

use std::path::{Path, PathBuf};
use std::time::Instant;

use models::optim::first_order::FirstOrderKind;

use super::{Blas, CellRunner, Job, ReproError};
use crate::machine;

/// The reproduction's protocol.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Where the report goes.
    pub out_dir: PathBuf,
    /// Where the runs are stored and reused.
    pub cells_dir: PathBuf,
    /// The quick run (smaller problems).
    pub quick: bool,
    /// The image directory (IDX files) and the set's name.
    pub data_dir: PathBuf,
    /// "MNIST", "Fashion-MNIST", …: the name in the report and the row of
    /// the paper's Table I it is compared with.
    pub dataset: String,
    /// Toy problems: Monte Carlo runs (the paper: 1000).
    pub toy_runs: usize,
    /// Toy problems: the noise levels σ.
    pub sigmas: Vec<f64>,
    /// Toy problems: backprop epochs (the paper: 1000).
    pub toy_epochs: usize,
    /// Training images used (all: 60 000).
    pub train_samples: usize,
    /// Test images used.
    pub test_samples: usize,
    /// BPLS runs (the paper: 100).
    pub bpls_runs: usize,
    /// Epochs at most (the paper: 40).
    pub epochs: usize,
    /// Backprop runs per rule at batch 128 (the paper: 10, at batch 1).
    pub backprop_runs: usize,
    /// The batch size of the backprop curves.
    pub batch: usize,
    /// Batch size 1: training images and epochs (per rule, one run).
    pub batch1_samples: usize,
    /// Batch size 1: epochs.
    pub batch1_epochs: usize,
    /// Start no new cell after this many minutes.
    pub time_budget_min: Option<f64>,
}

impl Options {
    /// The quick run: the toy problems with 30 runs at 4 noise levels and
    /// 300 epochs, 10 000 MNIST training and 2 000 test images, 2 BPLS runs,
    /// one backprop run per rule for 5 epochs, batch 1 on 1 000 images.
    pub fn quick(out_dir: PathBuf) -> Self {
        Self {
            cells_dir: out_dir.join("cells"),
            out_dir,
            quick: true,
            data_dir: crate::datasets::data_dir().join("mnist"),
            dataset: "MNIST".into(),
            toy_runs: 30,
            sigmas: vec![0.0, 0.1, 0.3, 0.5],
            toy_epochs: 300,
            train_samples: 10_000,
            test_samples: 2_000,
            bpls_runs: 2,
            epochs: 5,
            backprop_runs: 1,
            batch: 128,
            batch1_samples: 1_000,
            batch1_epochs: 1,
            time_budget_min: None,
        }
    }

    /// The full run: the toy problems with the paper's 1000 runs and 1000
    /// epochs at σ = 0, 0.1, …, 1; all 60 000 / 10 000 images, 10 BPLS runs,
    /// 5 backprop runs per rule at batch 128 for 40 epochs, and one run per
    /// rule at batch 1 (the paper's) on all images for 40 epochs.
    pub fn full(out_dir: PathBuf) -> Self {
        Self {
            cells_dir: out_dir.join("cells"),
            out_dir,
            quick: false,
            data_dir: crate::datasets::data_dir().join("mnist"),
            dataset: "MNIST".into(),
            toy_runs: 1000,
            sigmas: (0..=10).map(|i| f64::from(i) / 10.0).collect(),
            toy_epochs: 1000,
            train_samples: 60_000,
            test_samples: 10_000,
            bpls_runs: 10,
            epochs: 40,
            backprop_runs: 5,
            batch: 128,
            batch1_samples: 60_000,
            batch1_epochs: 40,
            time_budget_min: None,
        }
    }

    /// The paper's name for a data directory: "Fashion-MNIST" when its
    /// name says fashion, else its name as given, "MNIST" for `mnist`.
    pub fn dataset_name(dir: &Path) -> String {
        let name = dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let lower = name.to_ascii_lowercase();
        if lower.contains("fashion") {
            "Fashion-MNIST".into()
        } else if lower == "mnist" || name.is_empty() {
            "MNIST".into()
        } else {
            name
        }
    }
}

/// The four backprop rules, in the paper's order.
pub const RULES: [FirstOrderKind; 4] = [
    FirstOrderKind::Adam,
    FirstOrderKind::Nag,
    FirstOrderKind::Sgd,
    FirstOrderKind::AdaGrad,
];

/// An MNIST run to do (or reuse).
#[derive(Clone, Copy, Debug)]
enum MnistJob {
    Bpls {
        seed: u64,
        algorithm_1: bool,
    },
    Backprop {
        kind: FirstOrderKind,
        batch: usize,
        seed: u64,
        epochs: usize,
        samples: usize,
    },
}

impl MnistJob {
    /// The cell's file name.
    fn file(&self, opts: &Options) -> String {
        let tag = format!(
            "{}-{}-{}",
            opts.dataset.to_ascii_lowercase(),
            opts.train_samples,
            opts.test_samples
        );
        let name = match self {
            MnistJob::Bpls {
                seed,
                algorithm_1: false,
            } => format!("{tag}-bpls-e{}-s{seed}.json", opts.epochs),
            MnistJob::Bpls {
                seed,
                algorithm_1: true,
            } => format!("{tag}-bpls-alg1-s{seed}.json"),
            MnistJob::Backprop {
                kind,
                batch,
                seed,
                epochs,
                samples,
            } => format!("{tag}-{kind}-b{batch}-e{epochs}-n{samples}-s{seed}.json"),
        };
        name
    }
}

/// A toy cell: one problem's Monte Carlo runs, or the clipping sweep.
#[derive(Clone, Copy, Debug)]
enum ToyJob {
    Problem(toy::Problem),
    Clips,
}

/// The toy problems' cells, on one BLAS thread (the matrices are 5×4), and
/// how many were read back.
fn toy_cells(opts: &Options, runner: &mut CellRunner) -> Result<(Vec<toy::ToyPoint>, usize), ReproError> {
    let mut jobs: Vec<Job<ToyJob>> = toy::Problem::ALL
        .into_iter()
        .map(|problem| {
            let file = format!(
                "toy-{}-r{}-e{}-{}.json",
                problem.key(),
                opts.toy_runs,
                opts.toy_epochs,
                opts.sigmas.len()
            );
            Job::new(file, 1, ToyJob::Problem(problem))
        })
        .collect();
    // BPLS's clipping margin on the non-linear problem (sigmoid outputs).
    let clips = format!("toy-clips-r{}-{}.json", opts.toy_runs, opts.sigmas.len());
    jobs.push(Job::new(clips, 1, ToyJob::Clips));
    let ran = runner.run(&jobs, |job| match job.spec {
        ToyJob::Problem(problem) => {
            let t = Instant::now();
            let c = toy::run(problem, &opts.sigmas, opts.toy_runs, opts.toy_epochs)?;
            eprintln!(
                "tomic-bpls: toy {} ({} runs × {} σ): {:.1} s",
                problem.key(),
                opts.toy_runs,
                opts.sigmas.len(),
                t.elapsed().as_secs_f64()
            );
            Ok(c)
        }
        ToyJob::Clips => toy::clip_sweep(toy::Problem::NonLinear, &opts.sigmas, opts.toy_runs),
    })?;
    let reused = ran.reused;
    Ok((ran.done().into_iter().flatten().collect(), reused))
}

/// The MNIST runs in order: BPLS (Algorithms 2 and 1) per seed, backprop
/// per seed and rule at the curves' batch size, backprop at batch 1.
fn mnist_jobs(opts: &Options) -> Vec<Job<MnistJob>> {
    let mut specs = vec![];
    for seed in 0..opts.bpls_runs as u64 {
        for algorithm_1 in [false, true] {
            specs.push(MnistJob::Bpls { seed, algorithm_1 });
        }
    }
    for seed in 0..opts.backprop_runs as u64 {
        for kind in RULES {
            specs.push(MnistJob::Backprop {
                kind,
                batch: opts.batch,
                seed,
                epochs: opts.epochs,
                samples: opts.train_samples,
            });
        }
    }
    for kind in RULES {
        specs.push(MnistJob::Backprop {
            kind,
            batch: 1,
            seed: 0,
            epochs: opts.batch1_epochs,
            samples: opts.batch1_samples,
        });
    }
    // Both cores for the BLAS-3 work of BPLS and batch 128; one for
    // batch 1, whose tiny products only lose to threading overhead.
    specs
        .into_iter()
        .map(|spec| {
            let threads = match spec {
                MnistJob::Backprop { batch: 1, .. } => 1,
                _ => machine::cores(),
            };
            Job::new(spec.file(opts), threads, spec)
        })
        .collect()
}

/// Run the protocol and write the report; returns the report's path. Each
/// cell runs on the BLAS threads it declares, set through `blas`.
///
/// # Errors
/// Data, model and I/O errors.
pub fn run(opts: &Options, blas: &Blas) -> Result<PathBuf, ReproError> {
    let started = Instant::now();
    std::fs::create_dir_all(&opts.out_dir)?;
    let mut toy_runner = CellRunner::new("tomic-bpls", &opts.cells_dir, blas);
    let (toy, toy_reused) = toy_cells(opts, &mut toy_runner)?;
    let img = mnist::load(
        &opts.data_dir,
        &opts.dataset,
        Some(opts.train_samples),
        Some(opts.test_samples),
    )?;
    eprintln!(
        "tomic-bpls: {} — {} training, {} test images of {} pixels",
        img.name,
        img.x_train.nrows(),
        img.x_test.nrows(),
        img.x_train.ncols()
    );
    let mut runner = CellRunner::new("tomic-bpls", &opts.cells_dir, blas).budget(started, opts.time_budget_min);
    let ran = runner.run(&mnist_jobs(opts), |job| {
        let cell = match job.spec {
            MnistJob::Bpls { seed, algorithm_1 } => {
                mnist::run_bpls(&img, seed, opts.epochs.max(1), opts.train_samples, algorithm_1)?
            }
            MnistJob::Backprop {
                kind,
                batch,
                seed,
                epochs,
                samples,
            } => mnist::run_backprop(&img, kind, batch, seed, epochs, samples)?,
        };
        let last = cell.epochs.last().copied();
        eprintln!(
            "tomic-bpls: {} batch {} seed {}: {} epochs, {:.2} s/epoch, train {:.2}%, test {:.2}%",
            cell.method,
            cell.batch.map_or("—".into(), |b| b.to_string()),
            cell.seed,
            cell.epochs.len(),
            cell.seconds_per_epoch(),
            last.map_or(f64::NAN, |e| e.train_accuracy),
            last.map_or(f64::NAN, |e| e.test_accuracy)
        );
        Ok(cell)
    })?;
    // Table II's epoch times, every method timed in turn, round by round.
    let timing_file = format!(
        "{}-{}-{}-timing-r{}-e{}-b1n{}.json",
        opts.dataset.to_ascii_lowercase(),
        opts.train_samples,
        opts.test_samples,
        timing::rounds(opts),
        opts.epochs,
        opts.batch1_samples
    );
    let timed = runner.run(&[Job::new(timing_file, machine::cores(), ())], |_| {
        timing::run(&img, opts, blas)
    })?;
    runner.finish();
    let (reused, skipped) = (ran.reused + toy_reused + timed.reused, ran.skipped + timed.skipped);
    let cells: Vec<mnist::RunCell> = ran.done();
    let timing = timed.done().into_iter().next();
    report::write(
        opts,
        &toy,
        &cells,
        timing.as_ref(),
        (reused, skipped),
        started.elapsed().as_secs_f64(),
    )
}

#[cfg(test)]
mod tests;

/// Overrides of the tomic-bpls protocol.
#[derive(Clone, Debug, Default)]
pub struct TomicBplsSettings {
    /// An MNIST-style directory of IDX files other than the shipped MNIST
    /// (e.g. Fashion-MNIST); the report goes to `tomic-bpls-<dir name>/`.
    pub data_dir: Option<PathBuf>,
    /// BPLS runs and backprop runs per rule at the curves' batch size.
    pub runs: Option<usize>,
    /// Start no new run after this many minutes.
    pub time_budget_min: Option<f64>,
}

/// tomic-bpls's options: the quick or full protocol with the settings'
/// overrides.
pub fn options_from(s: &crate::papers::Settings, quick: bool) -> Options {
    let t = &s.tomic_bpls;
    let out = match &t.data_dir {
        Some(d) => {
            let name = d
                .file_name()
                .map_or_else(|| "data".into(), |n| n.to_string_lossy().to_ascii_lowercase());
            s.results_dir.join(format!("tomic-bpls-{name}"))
        }
        None => s.results_dir.join("tomic-bpls"),
    };
    let mut o = if quick { Options::quick(out) } else { Options::full(out) };
    if let Some(d) = &t.data_dir {
        o.dataset = Options::dataset_name(d);
        o.data_dir = d.clone();
    }
    if let Some(r) = t.runs {
        o.bpls_runs = r.max(1);
        o.backprop_runs = r.max(1);
    }
    o.time_budget_min = t.time_budget_min;
    o
}
