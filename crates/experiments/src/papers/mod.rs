//! One module per paper: its protocol, its published numbers and its
//! report; and [`REGISTRY`], the one list of the reproductions that exist
//! (the `reproduce` binary runs them, `cargo xtask reproduce` asks it for the
//! list).

pub mod bls_ridge;
pub mod cell_store;
pub mod grippo_dec;
pub mod mnist;
pub mod palagi_seccia;
pub mod tomic_bpls;
pub mod zhu_wei;

use std::path::{Path, PathBuf};

use linalg_core::ridge::Strategy;

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
}

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

/// Overrides of the palagi-seccia protocol; `None` keeps the protocol's
/// value.
#[derive(Clone, Debug, Default)]
pub struct PalagiSecciaSettings {
    /// Starting points per data set and network (quick run 1, full run 10).
    pub runs: Option<usize>,
    /// Only these data sets (keys or the paper's names).
    pub datasets: Option<Vec<String>>,
    /// Only these networks (indices 0–4 into Table 1's order).
    pub architectures: Option<Vec<usize>>,
    /// The paper's time limits (150 s, 60 s) times this (full run only).
    pub time_scale: Option<f64>,
    /// Cells run at once.
    pub workers: Option<usize>,
    /// Start no new cell after this many minutes.
    pub time_budget_min: Option<f64>,
}

/// Overrides of the grippo-dec protocol; `None` keeps the protocol's value.
#[derive(Clone, Debug, Default)]
pub struct GrippoDecSettings {
    /// Starting points per cell (quick run 1, full run 10).
    pub runs: Option<usize>,
    /// Only these data sets (the paper's names).
    pub datasets: Option<Vec<String>>,
    /// Start no new cell after this many minutes.
    pub time_budget_min: Option<f64>,
    /// Z-score the features instead of using them as given (the report then
    /// goes to `grippo-dec-zscore/`).
    pub zscore: bool,
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
}

pub use cell_store::{load_cell, read_cell, store_cell, CellError};

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
        quick: |s| zhu_wei::run(&zhu_wei::Options::quick(s.results_dir.join("zhu-wei"))),
        full: |s| zhu_wei::run(&zhu_wei::Options::full(s.results_dir.join("zhu-wei"))),
        quick_duration: "about 15 seconds after the build",
        full_duration: "about 18 minutes on 2 cores",
    },
    Paper {
        name: "bls-ridge",
        description: "ridge solutions for the incremental BLS (Zhu et al.): Tables II–III, VI and Fig. 1 on MNIST",
        quick: |s| bls_ridge::run(&bls_ridge_options(s, true)),
        full: |s| bls_ridge::run(&bls_ridge_options(s, false)),
        quick_duration: "about 2 minutes after the build",
        full_duration: "about 8 hours per seed on 2 cores; finished cells are kept and skipped when rerun",
    },
    Paper {
        name: "grippo-dec",
        description: "DEC decomposition training of one-hidden-layer networks (Grippo et al.): Tables II–XII",
        quick: |s| grippo_dec::run(&grippo_dec_options(s, true)),
        full: |s| grippo_dec::run(&grippo_dec_options(s, false)),
        quick_duration: "about 2 minutes after the build",
        full_duration: "about 2 hours on 2 cores; finished cells are kept and skipped when rerun",
    },
    Paper {
        name: "palagi-seccia",
        description: "block layer decomposition for deep networks (Palagi & Seccia): B2LD, BLInG, Tables 2–8",
        quick: |s| palagi_seccia::run(&palagi_seccia_options(s, true)),
        full: |s| palagi_seccia::run(&palagi_seccia_options(s, false)),
        quick_duration: "about 2 minutes after the build",
        full_duration: "about 2 hours on 2 cores (time limits scaled, see the report); finished cells are kept and skipped when rerun",
    },
    Paper {
        name: "tomic-bpls",
        description: "closed-form layer-wise least squares BPLS (Tomic et al.): toy Figs. 4–5, MNIST Fig. 7, Tables I–II, Fig. 9",
        quick: |s| tomic_bpls::run(&tomic_bpls_options(s, true)),
        full: |s| tomic_bpls::run(&tomic_bpls_options(s, false)),
        quick_duration: "about 2 minutes after the build",
        full_duration: "about 25 minutes on 2 cores; finished runs are kept and skipped when rerun",
    },
];

/// tomic-bpls's options: the quick or full protocol with the settings'
/// overrides.
pub fn tomic_bpls_options(s: &Settings, quick: bool) -> tomic_bpls::Options {
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
    let mut o = if quick {
        tomic_bpls::Options::quick(out)
    } else {
        tomic_bpls::Options::full(out)
    };
    if let Some(d) = &t.data_dir {
        o.dataset = tomic_bpls::Options::dataset_name(d);
        o.data_dir = d.clone();
    }
    if let Some(r) = t.runs {
        o.bpls_runs = r.max(1);
        o.backprop_runs = r.max(1);
    }
    o.time_budget_min = t.time_budget_min;
    o
}

/// palagi-seccia's options: the quick or full protocol with the settings'
/// overrides.
pub fn palagi_seccia_options(s: &Settings, quick: bool) -> palagi_seccia::Options {
    let p = &s.palagi_seccia;
    let out = s.results_dir.join("palagi-seccia");
    let mut o = if quick {
        palagi_seccia::Options::quick(out)
    } else {
        palagi_seccia::Options::full(out, p.time_scale.unwrap_or(palagi_seccia::DEFAULT_TIME_SCALE))
    };
    if let Some(r) = p.runs {
        o.runs = r.max(1);
    }
    if let Some(a) = &p.architectures {
        o.architectures = a.clone();
    }
    if let Some(w) = p.workers {
        o.workers = w.max(1);
    }
    o.datasets = p.datasets.clone();
    o.time_budget_min = p.time_budget_min;
    o
}

/// grippo-dec's options: the quick or full protocol with the settings'
/// overrides.
pub fn grippo_dec_options(s: &Settings, quick: bool) -> grippo_dec::Options {
    let g = &s.grippo_dec;
    let out = s
        .results_dir
        .join(if g.zscore { "grippo-dec-zscore" } else { "grippo-dec" });
    let mut o = if quick {
        grippo_dec::Options::quick(out)
    } else {
        grippo_dec::Options::full(out)
    };
    if let Some(r) = g.runs {
        o.runs = r.max(1);
    }
    o.datasets = g.datasets.clone();
    o.time_budget_min = g.time_budget_min;
    o.raw = !g.zscore;
    o
}

/// The registered reproduction called `name`.
pub fn find(name: &str) -> Option<&'static Paper> {
    REGISTRY.iter().find(|p| p.name == name)
}

/// bls-ridge's options: the quick or full protocol with the settings'
/// overrides.
pub fn bls_ridge_options(s: &Settings, quick: bool) -> bls_ridge::Options {
    let b = &s.bls_ridge;
    let out = b.out.clone().unwrap_or_else(|| s.results_dir.join("bls-ridge"));
    let mut o = if quick {
        bls_ridge::Options::quick(out.clone())
    } else {
        bls_ridge::Options::full(out.clone(), 1)
    };
    o.cells_dir = b.cells.clone().unwrap_or_else(|| Path::new(&out).join("cells"));
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
    o
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(bls_ridge_options(&s, false).schedule.train, 60_000);
    }
}
