//! The protocol: the network's growth ([`Schedule`]), what a run covers
//! ([`Options`]), the λ sweep and the strategies compared (Zhu et al.,
//! Sec. V-B).

use std::path::PathBuf;

use linalg_core::ridge::Strategy;
use linalg_core::Precision;
use models::bls::EnhancementWeights;
use serde::{Deserialize, Serialize};

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
    /// OpenBLAS threads for the run (the previous count is restored after).
    pub threads: usize,
    /// Store `A` in f64 for every strategy, also at full size.
    pub all_f64: bool,
    /// How the enhancement weights are drawn (the protocol: uniform, as the
    /// paper states; Chen's code orthonormalizes them).
    pub enhancement_weights: EnhancementWeights,
}

/// The paper's λ sweep as required by issue 4 (2⁻³⁰ … 2⁻⁵).
pub const LAMBDA_EXPS: [i32; 6] = [-30, -25, -20, -15, -10, -5];

/// Table VI's five strategies and D-Rdg, in the paper's table order.
pub const STRATEGIES: [Strategy; 6] = Strategy::BLS_PAPER;

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
            all_f64: false,
            enhancement_weights: EnhancementWeights::Uniform,
            quick: false,
            threads: 2,
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
    /// 12.1 + 2 × 5.1 GB in f64); f64 otherwise, and always with `all_f64`.
    pub fn precision(&self, s: Strategy) -> Precision {
        if !self.quick && !self.all_f64 && matches!(s, Strategy::RInv | Strategy::Orig | Strategy::DRdg) {
            Precision::F32
        } else {
            Precision::F64
        }
    }
}

/// Overrides of the bls-ridge protocol; `None` keeps the protocol's value.
#[derive(Clone, Debug, Default)]
pub struct BlsRidgeSettings {
    /// The report's directory (default `<results_dir>/bls-ridge`).
    pub out: Option<PathBuf>,
    /// Where finished cells are kept and reused (default `<out>/cells`).
    pub cells: Option<PathBuf>,
    /// Networks per cell (quick run 2, full run 1).
    pub seeds: Option<usize>,
    /// λ = 2^e for these e (default −30, −25, …, −5).
    pub lambda_exps: Option<Vec<i32>>,
    /// Strategies, in run order (default Table VI's five and D-Rdg).
    pub strategies: Option<Vec<Strategy>>,
    /// Start no new cell after this many minutes (default: no limit).
    pub time_budget_min: Option<f64>,
    /// Stop each cell after this update (a shorter schedule for
    /// diagnostics; default: the protocol's).
    pub updates: Option<usize>,
    /// Store `A` in f64 for every strategy (default: f32 at full size for
    /// R-Inv, Orig. and D-Rdg).
    pub f64_storage: bool,
    /// Orthonormalize the enhancement weights as Chen & Liu's code does
    /// (default: uniform, as the paper states).
    pub orthonormal_enhancement: bool,
}

/// bls-ridge's options: the quick or full protocol with the settings'
/// overrides.
pub fn options_from(s: &crate::papers::Settings, quick: bool) -> Options {
    let b = &s.bls_ridge;
    let out = b.out.clone().unwrap_or_else(|| s.results_dir.join("bls-ridge"));
    let mut o = if quick {
        Options::quick(out.clone())
    } else {
        Options::full(out.clone(), 1)
    };
    o.cells_dir = b
        .cells
        .clone()
        .unwrap_or_else(|| std::path::Path::new(&out).join("cells"));
    if let Some(n) = b.seeds {
        o.seeds = n;
    }
    if let Some(l) = &b.lambda_exps {
        o.lambda_exps = l.clone();
    }
    if let Some(st) = &b.strategies {
        o.strategies = st.clone();
    }
    o.time_budget_min = b.time_budget_min;
    if let Some(u) = b.updates {
        o.schedule.updates = u.clamp(1, o.schedule.updates);
    }
    o.all_f64 = b.f64_storage;
    if b.orthonormal_enhancement {
        o.enhancement_weights = EnhancementWeights::Orthonormal;
    }
    o
}
