//! One module per paper: its protocol, its published numbers and its
//! report; and [`REGISTRY`], the one list of the reproductions that exist
//! (the `reproduce` binary runs them, `cargo xtask reproduce` asks it for the
//! list).

pub mod bls_ridge;
pub mod cell_store;
pub mod grippo_dec;
pub mod mnist;
pub mod palagi_seccia;
pub mod runner;
pub mod tomic_bpls;
pub mod zhu_wei;

use std::path::PathBuf;

/// The error of a reproduction run: the typed error of the layer that
/// failed, with its own message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReproError {
    /// A dataset could not be read or prepared.
    #[error(transparent)]
    Data(#[from] crate::datasets::DataError),
    /// A model could not be built, fitted or used.
    #[error(transparent)]
    Model(#[from] models::ModelError),
    /// The ridge engine failed (e.g. a loss of positive definiteness).
    #[error(transparent)]
    Linalg(#[from] linalg_core::Error),
    /// A metric got unusable inputs.
    #[error(transparent)]
    Metric(#[from] crate::metrics::MetricError),
    /// A stored cell could not be read or written.
    #[error(transparent)]
    Cell(#[from] CellError),
    /// A result file could not be written.
    #[error("writing results: {0}")]
    Io(#[from] std::io::Error),
    /// The parts of a dataset could not be stacked.
    #[error("stacking the parts of a dataset: {0}")]
    Shape(#[from] ndarray::ShapeError),
    /// A check of the protocol itself failed (e.g. a computed condition
    /// number on a matrix that lost definiteness).
    #[error("{0}")]
    Protocol(String),
    /// A JSON result could not be encoded.
    #[error("encoding results as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// What a caller can choose about a run, for every paper; each runner uses
/// the part that concerns it.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Where each paper writes `<name>/` (the workspace's `results/`).
    pub results_dir: PathBuf,
    /// bls-ridge's choices.
    pub bls_ridge: BlsRidgeSettings,
    /// grippo-dec's choices.
    pub grippo_dec: GrippoDecSettings,
    /// palagi-seccia's choices.
    pub palagi_seccia: PalagiSecciaSettings,
    /// tomic-bpls's choices.
    pub tomic_bpls: TomicBplsSettings,
    /// Setting the BLAS thread count of each cell: the program's capability
    /// (default: [`Blas::none`], the count left alone).
    pub blas: Blas,
}

pub use bls_ridge::options_from as bls_ridge_options;
pub use bls_ridge::BlsRidgeSettings;
pub use cell_store::{load_cell, read_cell, store_cell, CellError};
pub use grippo_dec::options_from as grippo_dec_options;
pub use grippo_dec::GrippoDecSettings;
pub use palagi_seccia::options_from as palagi_seccia_options;
pub use palagi_seccia::PalagiSecciaSettings;
pub use runner::{Blas, BlasThreads, CellRunner, Job, Ran};
pub use tomic_bpls::options_from as tomic_bpls_options;
pub use tomic_bpls::TomicBplsSettings;

/// A runner: the run's settings in, the report's path out.
pub type Runner = fn(&Settings) -> Result<PathBuf, ReproError>;

/// One implemented reproduction.
#[derive(Clone, Copy, Debug)]
pub struct Paper {
    /// The name on the command line (`zhu-wei`).
    pub name: &'static str,
    /// One line saying what is reproduced.
    pub description: &'static str,
    /// The quick run (minutes): the same tables on smaller problems.
    pub quick: Runner,
    /// The paper's protocol.
    pub full: Runner,
    /// How long the quick run takes, as the user is told before it starts.
    pub quick_duration: &'static str,
    /// How long the full run takes.
    pub full_duration: &'static str,
}

/// Every implemented reproduction, in the order they run by default.
pub const REGISTRY: &[Paper] = &[
    Paper {
        name: "zhu-wei",
        description: "inverse-free ELM (Zhu & Wei): Tables II–V",
        quick: |s| zhu_wei::run(&zhu_wei::Options::quick(s.results_dir.join("zhu-wei")), &s.blas),
        full: |s| zhu_wei::run(&zhu_wei::Options::full(s.results_dir.join("zhu-wei")), &s.blas),
        quick_duration: "about 15 seconds after the build",
        full_duration: "about 18 minutes on 2 cores",
    },
    Paper {
        name: "bls-ridge",
        description: "ridge solutions for the incremental BLS (Zhu et al.): Tables II–III, VI and Fig. 1 on MNIST",
        quick: |s| bls_ridge::run(&bls_ridge_options(s, true), &s.blas),
        full: |s| bls_ridge::run(&bls_ridge_options(s, false), &s.blas),
        quick_duration: "about 2 minutes after the build",
        full_duration: "about 8 hours per seed on 2 cores; finished cells are kept and skipped when rerun",
    },
    Paper {
        name: "grippo-dec",
        description: "DEC decomposition training of one-hidden-layer networks (Grippo et al.): Tables II–XII",
        quick: |s| grippo_dec::run(&grippo_dec_options(s, true), &s.blas),
        full: |s| grippo_dec::run(&grippo_dec_options(s, false), &s.blas),
        quick_duration: "about 2 minutes after the build",
        full_duration: "about 2 hours on 2 cores; finished cells are kept and skipped when rerun",
    },
    Paper {
        name: "palagi-seccia",
        description: "block layer decomposition for deep networks (Palagi & Seccia): B2LD, BLInG, Tables 2–8",
        quick: |s| palagi_seccia::run(&palagi_seccia_options(s, true), &s.blas),
        full: |s| palagi_seccia::run(&palagi_seccia_options(s, false), &s.blas),
        quick_duration: "about 2 minutes after the build",
        full_duration: "about 2 hours on 2 cores (time limits scaled, see the report); finished cells are kept and skipped when rerun",
    },
    Paper {
        name: "tomic-bpls",
        description: "closed-form layer-wise least squares BPLS (Tomic et al.): toy Figs. 4–5, MNIST Fig. 7, Tables I–II, Fig. 9",
        quick: |s| tomic_bpls::run(&tomic_bpls_options(s, true), &s.blas),
        full: |s| tomic_bpls::run(&tomic_bpls_options(s, false), &s.blas),
        quick_duration: "about 2 minutes after the build",
        full_duration: "about 25 minutes on 2 cores; finished runs are kept and skipped when rerun",
    },
];

/// The registered reproduction called `name`.
pub fn find(name: &str) -> Option<&'static Paper> {
    REGISTRY.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use linalg_core::ridge::Strategy;

    #[test]
    fn the_registry_lists_the_implemented_reproductions() {
        let names: Vec<&str> = REGISTRY.iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            ["zhu-wei", "bls-ridge", "grippo-dec", "palagi-seccia", "tomic-bpls"]
        );
        assert!(find("bls-ridge").is_some() && find("dec").is_none());
    }

    /// The defaults are the protocol's; each override replaces one field.
    #[test]
    fn bls_ridge_settings_override_the_protocol() {
        let mut s = Settings {
            results_dir: PathBuf::from("/r"),
            ..Settings::default()
        };
        let o = bls_ridge_options(&s, true);
        assert_eq!(
            (o.out_dir.clone(), o.cells_dir.clone()),
            ("/r/bls-ridge".into(), "/r/bls-ridge/cells".into())
        );
        assert_eq!((o.seeds, o.quick, o.time_budget_min), (2, true, None));
        assert_eq!(bls_ridge_options(&s, false).seeds, 1);
        s.bls_ridge = BlsRidgeSettings {
            out: Some("/o".into()),
            seeds: Some(3),
            lambda_exps: Some(vec![-5]),
            strategies: Some(vec![Strategy::Chol1]),
            time_budget_min: Some(1.5),
            cells: None,
            updates: Some(6),
            f64_storage: true,
            orthonormal_enhancement: true,
        };
        let o = bls_ridge_options(&s, false);
        assert_eq!(
            (o.out_dir.clone(), o.cells_dir.clone()),
            ("/o".into(), "/o/cells".into())
        );
        assert_eq!(
            (o.seeds, o.lambda_exps.clone(), o.strategies.clone()),
            (3, vec![-5], vec![Strategy::Chol1])
        );
        assert_eq!(o.time_budget_min, Some(1.5));
        assert_eq!(o.schedule.updates, 6);
        assert_eq!(o.precision(Strategy::Orig), linalg_core::Precision::F64);
        assert_eq!(o.enhancement_weights, models::bls::EnhancementWeights::Orthonormal);
        assert_eq!(
            bls_ridge::Options::full("/o".into(), 1).enhancement_weights,
            models::bls::EnhancementWeights::Uniform
        );
        assert_eq!(bls_ridge_options(&s, false).schedule.train, 60_000);
    }
}
