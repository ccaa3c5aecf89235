//! The protocol: the algorithms compared, the regression sets with their
//! activations, the node counts of Table II, and what a run covers.

use std::path::PathBuf;

use linalg_core::ridge::Strategy;
use models::Activation;

use super::mnist::MnistSize;

/// The four algorithms, in the paper's column order.
pub const ALGORITHMS: [Strategy; 4] = [Strategy::LiEtAl, Strategy::Alg1, Strategy::Alg2, Strategy::Alg3];

/// The regression sets of Table II with their activations.
pub const DATASETS: [(&str, &str, Activation); 4] = [
    ("airfoil", "Airfoil + Gaussian", Activation::Gaussian),
    ("energy-heating", "Energy + Sigmoid", Activation::Sigmoid),
    ("boston", "Housing + Sine", Activation::Sine),
    ("protein", "Protein + Triangular", Activation::Triangular),
];

/// The node counts of Table II.
pub const CHECKPOINTS: [usize; 3] = [3, 100, 500];

/// How big a run is.
#[derive(Clone, Debug)]
pub struct Options {
    /// Folds of the cross validation actually run (the paper: 5).
    pub folds: usize,
    /// Largest node count (the paper: 500).
    pub max_nodes: usize,
    /// Repetitions of each timed one-node append (the paper: 1000).
    pub timing_reps: usize,
    /// Output directory (`results/zhu-wei`).
    pub out_dir: PathBuf,
    /// Table V's size (`None`: skip Table V).
    pub mnist: Option<MnistSize>,
    /// Also run Table II on protein with features in [−1, 1] and z-scored
    /// (the sensitivity of the errors to the unstated feature scaling).
    pub scaling_study: bool,
    /// OpenBLAS threads for Tables II–IV (1: the timings of Table III are
    /// of one core, as the paper's MATLAB runs).
    pub threads: usize,
    /// OpenBLAS threads for Table V (2).
    pub mnist_threads: usize,
}

/// How the features of a Table II fold are scaled (fitted on the training
/// folds). Targets are always min–max scaled to [0, 1].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureScaling {
    /// Each feature to [0, 1] (the default; it reproduces the published MSEs).
    MinMax,
    /// Each feature to [−1, 1] (MATLAB's `mapminmax` default).
    Symmetric,
    /// Each feature to mean 0, standard deviation 1.
    ZScore,
}

impl FeatureScaling {
    /// The three readings compared on protein, the paper's default first.
    pub const ALL: [FeatureScaling; 3] = [
        FeatureScaling::MinMax,
        FeatureScaling::Symmetric,
        FeatureScaling::ZScore,
    ];

    /// How the report names it.
    pub fn label(self) -> &'static str {
        match self {
            FeatureScaling::MinMax => "features in [0, 1]",
            FeatureScaling::Symmetric => "features in [−1, 1]",
            FeatureScaling::ZScore => "z-scored features",
        }
    }
}

impl Options {
    /// The full protocol: 5 folds, 500 nodes, 200 timing repetitions.
    pub fn full(out_dir: PathBuf) -> Self {
        Self {
            folds: 5,
            max_nodes: 500,
            timing_reps: 200,
            out_dir,
            mnist: Some(MnistSize::FULL),
            scaling_study: true,
            threads: 1,
            mnist_threads: 2,
        }
    }
    /// The quick run (about a minute): 1 fold, 100 nodes, 20 repetitions.
    pub fn quick(out_dir: PathBuf) -> Self {
        Self {
            folds: 1,
            max_nodes: 100,
            timing_reps: 20,
            out_dir,
            mnist: Some(MnistSize::QUICK),
            scaling_study: true,
            threads: 1,
            mnist_threads: 2,
        }
    }
}
