//! Cells: one (seed, λ, strategy) run of the schedule, kept as JSON in the
//! cells directory so that a sweep can be spread over several invocations.

use std::path::{Path, PathBuf};

use linalg_core::ridge::Strategy;
use linalg_core::Precision;
use models::bls::EnhancementWeights;
use serde::{Deserialize, Serialize};

use super::protocol::Schedule;
pub use crate::papers::CellError;

/// One (seed, λ, strategy) run of the schedule.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cell {
    /// Schedule run.
    pub schedule: Schedule,
    /// Seed of the random maps.
    pub seed: u64,
    /// λ = 2^lambda_exp.
    pub lambda_exp: i32,
    /// Strategy (stored by its command-line name, `chol1`, `d-rdg`, …).
    #[serde(with = "strategy_name")]
    pub strategy: Strategy,
    /// Precision `A` was stored in (`"F64"` or `"F32"`).
    pub precision: Precision,
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
    /// (`Strategy::build` taking an owned `A`, since 2026-11-22 evening). `false` for cells
    /// written before: their update 0 includes that copy. With `precision`
    /// F32 the f64 copy is saved, but `A` is still rounded into a new f32
    /// buffer.
    #[serde(default)]
    pub initial_a_taken: bool,
    /// How Orig. cut the pseudo-inverse of `C` (`None` for the other
    /// strategies). Orig. cell files written before 2026-11-24 lack the field
    /// and are read as [`PinvCut::GramEigenvalues`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orig_pinv_cut: Option<PinvCut>,
    /// The machine that ran the cell (`machine::cpu_description`); `None`
    /// for cells written before 2026-11-24, which all ran on
    /// `EARLIER_MACHINE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    /// How the enhancement weights were drawn: uniform (the paper's text;
    /// every cell before 2026-11-28, and the protocol's) or orthonormalized
    /// as Chen & Liu's code does (`--orthonormal-enhancement`; file name
    /// `…-orth.json`).
    #[serde(default, skip_serializing_if = "is_uniform")]
    pub enhancement_weights: EnhancementWeights,
}

fn is_uniform(w: &EnhancementWeights) -> bool {
    *w == EnhancementWeights::Uniform
}

/// The machine of every cell written before cells recorded theirs (the
/// committed reports of 2026-11-21 to 2026-11-23 name it; their DGEMM peaks
/// 100–110 GFLOP/s on 2 threads).
pub const EARLIER_MACHINE: &str = "AMD EPYC, 2 cores";

/// Where Orig. (`linalg_core::ridge::Strategy::Orig`) cuts the pseudo-inverse of `C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PinvCut {
    /// Until 2026-11-24: eigenvalues of `CᵀC` above `max(K, q)·ε·μ_max`,
    /// a cut near `√(max(K, q)·ε)·σ₁` on the singular values.
    GramEigenvalues,
    /// MATLAB's `pinv`, which the original BLS code calls: singular values
    /// of `C` above `max(K, q)·eps(σ₁)`.
    MatlabSvd,
}

/// The machine most of `cells` ran on ([`Cell::machine`]; ties go to the
/// last in name order), empty for no cell: the one whose times the report
/// compares, since a time measured on one CPU says nothing about another.
pub fn most_common_machine<'a>(cells: impl IntoIterator<Item = &'a Cell>) -> String {
    let mut count: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for c in cells {
        *count.entry(c.machine()).or_default() += 1;
    }
    count
        .iter()
        .max_by_key(|(_, &n)| n)
        .map_or(String::new(), |(m, _)| m.to_string())
}

/// The cut of the Orig. cells the report's tables use: MATLAB's (what the
/// paper's code runs) once every eigen-cut Orig. cell has a MATLAB-cut twin
/// on the same network ([`Cell::same_network`]), so that the switch never
/// leaves a (λ, seed) without its Orig.; the eigenvalue cut until then.
pub fn tables_cut(cells: &[Cell]) -> PinvCut {
    let complete = cells.iter().filter(|c| c.uses_eigen_cut()).all(|eig| {
        cells
            .iter()
            .any(|m| m.orig_pinv_cut == Some(PinvCut::MatlabSvd) && m.same_network(eig))
    });
    if complete {
        PinvCut::MatlabSvd
    } else {
        PinvCut::GramEigenvalues
    }
}

impl PinvCut {
    /// How the report names the cut.
    pub fn label(self) -> &'static str {
        match self {
            PinvCut::GramEigenvalues => "eigenvalue cut",
            PinvCut::MatlabSvd => "MATLAB's cut",
        }
    }

    /// The cut in a sentence ("uses MATLAB's cut", "uses the eigenvalue
    /// cut").
    pub fn phrase(self) -> &'static str {
        match self {
            PinvCut::GramEigenvalues => "the eigenvalue cut",
            PinvCut::MatlabSvd => "MATLAB's cut",
        }
    }

    /// The cut the current code makes for strategy `s`.
    pub fn current(s: Strategy) -> Option<Self> {
        (s == Strategy::Orig).then_some(PinvCut::MatlabSvd)
    }
}

impl Cell {
    /// Whether `A` was stored in f32.
    pub fn is_f32(&self) -> bool {
        self.precision == Precision::F32
    }

    /// The machine that ran the cell.
    pub fn machine(&self) -> &str {
        self.cpu.as_deref().unwrap_or(EARLIER_MACHINE)
    }

    /// An Orig. cell run with the eigenvalue cut (the cut before
    /// 2026-11-24; its file name says `eigcut`).
    pub fn uses_eigen_cut(&self) -> bool {
        self.orig_pinv_cut == Some(PinvCut::GramEigenvalues)
    }

    /// Whether the report sets this cell aside from its tables' means, the
    /// timing and the findings (showing it per seed beside the cells used):
    /// any cell with Chen's orthonormal enhancement weights, and an Orig.
    /// cell cut otherwise than the tables' `tables_cut` ([`tables_cut`]).
    /// The means then compare like with like over all λ and seeds.
    pub fn is_set_aside(&self, tables_cut: PinvCut) -> bool {
        self.is_orthonormal() || self.orig_pinv_cut.is_some_and(|c| c != tables_cut)
    }

    /// The same network as `other` (seed, λ, precision, schedule, weights'
    /// draw) with any strategy or cut.
    pub fn same_network(&self, other: &Cell) -> bool {
        (
            self.seed,
            self.lambda_exp,
            self.precision,
            self.schedule,
            self.enhancement_weights,
        ) == (
            other.seed,
            other.lambda_exp,
            other.precision,
            other.schedule,
            other.enhancement_weights,
        )
    }

    /// A cell whose enhancement weights were orthonormalized (Chen's `orth`).
    pub fn is_orthonormal(&self) -> bool {
        self.enhancement_weights == EnhancementWeights::Orthonormal
    }

    /// The file this cell is kept in under `dir`.
    pub fn file(&self, dir: &Path) -> PathBuf {
        let f = cell_file(
            dir,
            &self.schedule,
            self.seed,
            self.lambda_exp,
            self.strategy,
            (self.precision, self.enhancement_weights),
        );
        if self.uses_eigen_cut() {
            let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            return dir.join(name.replacen("-orig", "-orig-eigcut", 1));
        }
        f
    }

    /// Achieved solver rate of update `u` as a fraction of the DGEMM peak of
    /// the run that produced the cell (`fallback` for cells that did not
    /// store one).
    pub(super) fn fraction_of_peak(&self, u: usize, fallback: f64) -> f64 {
        let g = self.flops[u] as f64 / self.solver_seconds[u] / 1e9;
        g / self.dgemm_peak_gflops.unwrap_or(fallback)
    }
}

/// The file a finished cell of the current code is kept in:
/// `{quick|full}-seed{s}-lambda2^{e}-{strategy}[-f32][-orth].json`, or
/// `k{K}-u{U}-…` for any other schedule (eigen-cut Orig. cells:
/// `…-orig-eigcut[-f32].json`, see [`Cell::file`]).
pub(super) fn cell_file(
    dir: &Path,
    schedule: &Schedule,
    seed: u64,
    e: i32,
    s: Strategy,
    (p, w): (Precision, EnhancementWeights),
) -> PathBuf {
    let size = if *schedule == Schedule::FULL {
        "full".to_string()
    } else if *schedule == Schedule::QUICK {
        "quick".to_string()
    } else {
        format!("k{}-u{}", schedule.train, schedule.updates)
    };
    let prec = match p {
        Precision::F64 => "",
        Precision::F32 => "-f32",
    };
    let orth = match w {
        EnhancementWeights::Uniform => "",
        EnhancementWeights::Orthonormal => "-orth",
    };
    dir.join(format!(
        "{size}-seed{seed}-lambda2^{e}-{}{prec}{orth}.json",
        s.cli_name()
    ))
}

/// Every cell of `schedule` in `dir`, sorted by λ, strategy name and seed.
///
/// A file that cannot be read or parsed (including an unknown strategy or
/// precision name) is an error naming the file: a cell is never guessed.
pub fn load_cells(dir: &Path, schedule: &Schedule) -> Result<Vec<Cell>, CellError> {
    let mut cells = vec![];
    let entries = std::fs::read_dir(dir).map_err(|source| CellError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries {
        let path = entry
            .map_err(|source| CellError::Io {
                path: dir.to_path_buf(),
                source,
            })?
            .path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let cell = read_cell(&path)?;
        if cell.schedule == *schedule {
            cells.push(cell);
        }
    }
    cells.sort_by(|a, b| {
        (a.lambda_exp, a.strategy.cli_name(), a.seed).cmp(&(b.lambda_exp, b.strategy.cli_name(), b.seed))
    });
    Ok(cells)
}

/// One cell file (the store's [`crate::papers::read_cell`]); an Orig. cell
/// from before the pseudo-inverse cut was recorded used the eigenvalue cut.
pub fn read_cell(path: &Path) -> Result<Cell, CellError> {
    let mut cell: Cell = crate::papers::read_cell(path)?;
    if cell.strategy == Strategy::Orig && cell.orig_pinv_cut.is_none() {
        cell.orig_pinv_cut = Some(PinvCut::GramEigenvalues);
    }
    Ok(cell)
}

/// Serde for [`Strategy`] as its command-line name (`"chol1"`), the form the
/// committed cell files use; an unknown name is an error.
mod strategy_name {
    use linalg_core::ridge::Strategy;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(s: &Strategy, ser: S) -> Result<S::Ok, S::Error> {
        ser.serialize_str(s.cli_name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(de: D) -> Result<Strategy, D::Error> {
        let name = String::deserialize(de)?;
        Strategy::ALL
            .into_iter()
            .find(|s| s.cli_name() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown strategy `{name}`")))
    }
}

/// Cells made by hand for the tests of the report's parts.
#[cfg(test)]
pub(super) mod fixtures {
    use linalg_core::ridge::Strategy;
    use linalg_core::Precision;

    use super::{Cell, Schedule};

    /// A one-update Chol-1 cell of the full schedule at λ = 2^-10, seed 0.
    pub(crate) fn timed_cell(flops: u64, seconds: f64, peak: Option<f64>) -> Cell {
        Cell {
            schedule: Schedule::FULL,
            seed: 0,
            lambda_exp: -10,
            strategy: Strategy::Chol1,
            precision: Precision::F64,
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
            orig_pinv_cut: None,
            cpu: None,
            enhancement_weights: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An Orig. cell written before the cut was recorded reads as the
    /// eigenvalue cut and is kept under its own file name; a new one does not.
    #[test]
    fn orig_cells_without_a_cut_are_eigen_cut_ones() {
        let dir = std::env::temp_dir().join(format!("bls-ridge-orig-cut-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let mut cell = fixtures::timed_cell(1, 1.0, None);
        cell.strategy = Strategy::Orig;
        let old = dir.join("old.json");
        crate::papers::store_cell(&old, &cell).expect("write");
        let read = read_cell(&old).expect("read");
        assert!(read.uses_eigen_cut());
        assert!(read.file(&dir).ends_with("full-seed0-lambda2^-10-orig-eigcut.json"));
        cell.orig_pinv_cut = PinvCut::current(Strategy::Orig);
        crate::papers::store_cell(&old, &cell).expect("write");
        let read = read_cell(&old).expect("read");
        assert!(!read.uses_eigen_cut());
        assert!(read.file(&dir).ends_with("full-seed0-lambda2^-10-orig.json"));
        assert_eq!(PinvCut::current(Strategy::Chol2), None);
        // A shortened schedule (--updates) never shares a file with the
        // paper's or the quick one.
        let short = Schedule {
            updates: 6,
            ..Schedule::FULL
        };
        let uniform = EnhancementWeights::Uniform;
        let f = cell_file(&dir, &short, 0, -30, Strategy::Orig, (Precision::F64, uniform));
        assert!(f.ends_with("k60000-u6-seed0-lambda2^-30-orig.json"), "{}", f.display());
        let f = cell_file(
            &dir,
            &Schedule::QUICK,
            1,
            -5,
            Strategy::Chol1,
            (Precision::F32, uniform),
        );
        assert!(f.ends_with("quick-seed1-lambda2^-5-chol1-f32.json"), "{}", f.display());
        // Chen's orthonormal enhancement weights: a file of their own, set
        // aside from the tables' means whatever the strategy.
        cell.precision = Precision::F32;
        cell.enhancement_weights = EnhancementWeights::Orthonormal;
        assert!(cell.file(&dir).ends_with("full-seed0-lambda2^-10-orig-f32-orth.json"));
        assert!(cell.is_set_aside(PinvCut::MatlabSvd) && cell.is_set_aside(PinvCut::GramEigenvalues));
        cell.strategy = Strategy::Chol2;
        cell.orig_pinv_cut = None;
        assert!(cell.is_set_aside(PinvCut::MatlabSvd) && cell.is_orthonormal());
        crate::papers::store_cell(&old, &cell).expect("write");
        assert_eq!(
            read_cell(&old).expect("read").enhancement_weights,
            EnhancementWeights::Orthonormal
        );
        cell.enhancement_weights = EnhancementWeights::Uniform;
        assert!(!cell.is_set_aside(PinvCut::MatlabSvd) && !cell.is_set_aside(PinvCut::GramEigenvalues));
        let v = serde_json::to_value(&cell).expect("serialize");
        assert!(
            v.get("enhancement_weights").is_none(),
            "uniform cells keep the old file format"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The tables switch to MATLAB's cut only when every eigen-cut Orig.
    /// cell has a MATLAB-cut twin on the same network; until then they keep
    /// the eigenvalue cut, and each cell not of the tables' cut is set aside.
    #[test]
    fn tables_switch_to_matlabs_cut_when_every_eigen_cut_cell_has_a_twin() {
        let orig = |seed: u64, e: i32, cut: PinvCut| Cell {
            seed,
            lambda_exp: e,
            strategy: Strategy::Orig,
            precision: Precision::F32,
            orig_pinv_cut: Some(cut),
            ..fixtures::timed_cell(1, 1.0, None)
        };
        let chol = Cell {
            strategy: Strategy::Chol2,
            ..fixtures::timed_cell(1, 1.0, None)
        };
        let mut cells = vec![
            orig(0, -30, PinvCut::GramEigenvalues),
            orig(1, -30, PinvCut::GramEigenvalues),
            orig(0, -30, PinvCut::MatlabSvd),
            chol.clone(),
        ];
        assert_eq!(tables_cut(&cells), PinvCut::GramEigenvalues);
        assert!(cells[2].is_set_aside(PinvCut::GramEigenvalues) && !cells[0].is_set_aside(PinvCut::GramEigenvalues));
        // A twin at another λ, or with orthonormal weights, does not count.
        cells.push(orig(1, -25, PinvCut::MatlabSvd));
        let mut orth = orig(1, -30, PinvCut::MatlabSvd);
        orth.enhancement_weights = EnhancementWeights::Orthonormal;
        cells.push(orth);
        assert_eq!(tables_cut(&cells), PinvCut::GramEigenvalues);
        cells.push(orig(1, -30, PinvCut::MatlabSvd));
        assert_eq!(tables_cut(&cells), PinvCut::MatlabSvd);
        let cut = tables_cut(&cells);
        let aside: Vec<(u64, i32, bool)> = cells
            .iter()
            .filter(|c| c.is_set_aside(cut))
            .map(|c| (c.seed, c.lambda_exp, c.uses_eigen_cut()))
            .collect();
        assert_eq!(aside, vec![(0, -30, true), (1, -30, true), (1, -30, false)]);
        assert!(!chol.is_set_aside(cut));
        // Nothing eigen-cut (a fresh run): MATLAB's cut.
        assert_eq!(tables_cut(&[chol]), PinvCut::MatlabSvd);
    }

    /// A cell JSON written before the peak was stored still loads.
    #[test]
    fn old_cell_json_without_peak_loads() {
        let mut v = serde_json::to_value(fixtures::timed_cell(1, 1.0, Some(1.0))).unwrap();
        v.as_object_mut().unwrap().remove("dgemm_peak_gflops");
        let c: Cell = serde_json::from_value(v).unwrap();
        assert_eq!(c.dgemm_peak_gflops, None);
    }

    /// Every committed cell file loads, with its strategy and precision
    /// typed, and writes back to the same names.
    #[test]
    fn committed_cells_load_with_typed_strategy_and_precision() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/results/bls-ridge/cells");
        let cells = load_cells(&dir, &Schedule::FULL).expect("committed cells load");
        let files = std::fs::read_dir(&dir).expect("cells dir").count();
        assert_eq!(cells.len(), files);
        for c in &cells {
            let file = c.file(&dir);
            assert!(file.is_file(), "{} is not where the cell says", file.display());
            assert_eq!(c.orig_pinv_cut.is_some(), c.strategy == Strategy::Orig);
        }
        assert!(cells.iter().any(|c| c.uses_eigen_cut()));
        let cut = tables_cut(&cells);
        assert!(cells.iter().any(|c| c.is_set_aside(cut)));
        assert!(cells
            .iter()
            .any(|c| c.strategy == Strategy::DRdg && c.precision == Precision::F32));
        let v = serde_json::to_value(&cells[0]).expect("serialize");
        assert_eq!(v["strategy"], cells[0].strategy.cli_name());
        assert!(v["precision"] == "F64" || v["precision"] == "F32");
    }

    /// A cell whose strategy is not a known name, or that is not JSON, is an
    /// error naming its file, never a D-Rdg cell.
    #[test]
    fn unreadable_cell_is_an_error_naming_the_file() {
        let dir = std::env::temp_dir().join(format!("bls-ridge-bad-cell-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let mut v = serde_json::to_value(fixtures::timed_cell(1, 1.0, None)).expect("serialize");
        v["strategy"] = "chol-3".into();
        let bad = dir.join("full-seed0-lambda2^-10-chol-3.json");
        std::fs::write(&bad, v.to_string()).expect("write");
        let err = load_cells(&dir, &Schedule::FULL).expect_err("unknown strategy");
        let msg = err.to_string();
        assert!(matches!(err, CellError::Json { .. }), "{msg}");
        assert!(msg.contains("full-seed0-lambda2^-10-chol-3.json"), "{msg}");
        assert!(msg.contains("unknown strategy `chol-3`"), "{msg}");
        v["strategy"] = "d-rdg".into();
        v["precision"] = "F16".into();
        std::fs::write(&bad, v.to_string()).expect("write");
        assert!(load_cells(&dir, &Schedule::FULL).is_err());
        std::fs::write(&bad, "{ not json").expect("write");
        let msg = read_cell(&bad).expect_err("not JSON").to_string();
        assert!(msg.contains("chol-3.json"), "{msg}");
        let missing = dir.join("missing.json");
        let msg = read_cell(&missing).expect_err("missing").to_string();
        assert!(matches!(read_cell(&missing), Err(CellError::Io { .. })));
        assert!(msg.contains("missing.json"), "{msg}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
