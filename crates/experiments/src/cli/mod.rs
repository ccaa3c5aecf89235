//! The user's commands behind `cargo xtask fit` and `cargo xtask predict`
//! (binary `nn`): train a model on the user's files, evaluate it, print one
//! JSON object; predict with a saved model.
//!
//! ```text
//! nn fit --model elm --train TRAIN --test TEST --task classification|regression --hidden N
//!        [--lambda L] [--activation NAME] [--solver ridge|lstsq|STRATEGY] [--seed S]
//!        [--initial-nodes N0] [--scale zscore|minmax|none] [--threads T] [--save FILE]
//!        [--no-header | --header] [--n-features N]
//! nn fit --model bls --train TRAIN --test TEST --task classification|regression
//!        [--feature-groups G] [--feature-nodes N] [--enhancement E] [--lambda L]
//!        [--strategy S] [--increments SPEC] [--f32] [--seed S]
//!        [--scale zscore|minmax|none] [--threads T] [--save FILE]
//!        [--no-header | --header] [--n-features N]
//! nn fit --model slfn --train TRAIN --test TEST --task classification|regression --hidden N
//!        [--trainer dec|lbfgs|elm] [--maxiter K] [--lambda L] [--tau-w T] [--seed S] …
//! nn fit --model dfnn --train TRAIN --test TEST --task classification|regression --layers N,N,…
//!        [--trainer b2ld|lbfgs|bling|ig] [--time-limit S] [--batch-size B] [--max-epochs E]
//!        [--exact-last-layer] [--no-bias] [--lambda RHO] [--seed S] …
//! nn fit --model bpls --train TRAIN --test TEST --task classification|regression --layers N,N,…
//!        [--trainer bpls|adam|nag|sgd|adagrad] [--iterations K] [--output-activation linear|sigmoid|softmax]
//!        [--activation sigmoid|tanh|linear] [--lambda L] [--batch-size B] [--max-epochs E]
//!        [--learning-rate ETA] [--seed S] …
//! nn predict --model-file FILE --data DATA [--no-header | --header] [--threads T]
//! ```
//!
//! The flags are declared with clap in [`args`] (`nn fit --help` lists each
//! with its default; [`args::defaults`] holds them, the λ of each model
//! read from [`models::ElmParams::DEFAULT_LAMBDA`] and
//! [`models::BlsParams::DEFAULT_LAMBDA`]). `train.rs` is the one place where
//! they become model hyper-parameters.
//!
//! The BLS (the ridge-solutions paper's incremental Broad Learning System)
//! starts with G feature groups of N nodes and E enhancement nodes, then
//! applies the `--increments` schedule ([`bls::parse_increments`]; the
//! paper's MNIST schedule is `f10:750:1250x11`), updating the output
//! weights with `--strategy` (orig, exg-e, chol1, chol2, r-inv, d-rdg, …).
//!
//! The DFNN (Palagi & Seccia's deep network: [`dfnn`]) has the hidden
//! widths of `--layers` and one output per target column; `--lambda` is the
//! `ρ` of their objective (3), by default their `10⁻³ /` (number of
//! weights).
//!
//! The BPLS model (Tomic et al.'s fully connected network: [`bpls`]) has
//! the hidden widths of `--layers` too; `--trainer bpls` runs their
//! Algorithm 2 for classification (`--iterations` = `τ_max`) and Algorithm 1
//! for regression, `--trainer adam|nag|sgd|adagrad` backprop on the same
//! starting network (their baselines).
//!
//! TRAIN/TEST/DATA are CSV (header row — or none with `--no-header`; a
//! first row of numbers only is refused unless `--header` or `--no-header`
//! says what it is —, target in the last column; `.csv.gz` too), MNIST IDX
//! image files (labels from the matching `labels-idx1` file beside them) or
//! LIBSVM text (the test file read with the training width, or
//! `--n-features`). Classification labels — integers of any size, or
//! names — map to classes in sorted order, as in scikit-learn; the saved
//! model keeps them and `predict` prints them. Features are scaled with statistics of the
//! training part only (`--scale`; by default z-scores for the ELM and `[0, 1]`
//! for the BLS, the scaling each method expects, and `[0, 1]` for IDX images
//! with either model: [`args::ModelKind::default_scale_for`]); regression targets are
//! standardized (overflow-free, so targets of any finite magnitude work).
//! A prediction or metric that is not finite is an error naming the file, the
//! line and the cause, never a result. With an incremental `--solver` (a strategy name such as
//! `alg3`), the network grows one node at a time from `--initial-nodes`
//! (default 2, as in Zhu & Wei's protocol) to `--hidden`.

/// `eprintln!` that ignores a failed write: progress on stderr must not
/// panic when stderr is closed or full (`nn fit 2>/dev/full`); the report
/// on stdout and the exit code carry the outcome.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod args;
pub mod bls;
pub mod bpls;
pub mod budget;
pub mod common;
pub mod dfnn;
pub mod elm;
mod error;
pub mod export;
mod fit;
mod fit_data;
pub mod model_command;
/// The saved scaler + model pipeline: the data layer's (`nn-data`).
pub use nn_data::pipeline;
mod progress;
mod report;
pub mod saved;
pub mod scale_out;
pub mod select;
mod select_plot;
pub mod shared_flags;
pub mod slfn;
pub mod stream;
pub mod trainer;
mod weights_check;

pub use self::args::{Cli, Command, ExportFlags, FitArgs, FitFlags, ModelArgs, PredictFlags, UpdateFlags};
pub use self::common::{ModelKind, Scale, TaskKind};
pub use self::error::CliError;
pub use self::export::{export, ExportReport};
pub use self::fit::fit;
pub use self::pipeline::{FittedModel, FittedPipeline, InputScaler};
pub use self::report::{BlasJson, FitReport};
pub use self::saved::{predict, update, UpdateReport};
