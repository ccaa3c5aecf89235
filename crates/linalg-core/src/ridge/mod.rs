//! The incremental ridge engine: ridge least squares on a hidden-layer matrix
//! that grows by columns (design.md, "the one idea that ties the papers
//! together").
//!
//! Every strategy solves, after every append,
//!
//! ```text
//! W = (AᵀA + λI)⁻¹ AᵀY          A: K×n hidden matrix, Y: K×M targets, W: n×M
//! ```
//!
//! — exactly for the ridge strategies, and in the limit `λ → 0` of the
//! update for the two generalized-inverse ones (Orig., Exg-E), which use λ
//! only for their initial solution (algorithms.md §1–§3).
//!
//! | [`Strategy`] | paper's name | keeps ([`Factors`]) | block append | file |
//! |---|---|---|---|---|
//! | `DRdg` | D-Rdg | `AᵀA`, `AᵀY` | Cholesky from scratch | `direct.rs` |
//! | `Chol1` | Chol-1 | inverse Cholesky `F` | BLAS-3 | `inverse_cholesky_ridge.rs` |
//! | `Chol2` | Chol-2 | inverse Cholesky `F` | BLAS-3 | `inverse_cholesky_ridge.rs` |
//! | `ExgE` | Exg-E | inverse Cholesky `F` | BLAS-3 | `inverse_cholesky_ridge.rs` |
//! | `RInv` | R-Inv | ridge inverse `A⁺_λ` | BLAS-3 | `r_inv.rs` |
//! | `Orig` | Orig. | generalized inverse `A⁺` | BLAS-3 | `greville.rs` |
//! | `LiEtAl` | Li et al. (existing inverse-free ELM) | `B = A⁺_λᵀ` | column by column | `li_et_al.rs` |
//! | `Alg1` | Alg. 1 | `B = A⁺_λᵀ` | column by column | `zhu_wei_alg1.rs` |
//! | `Alg2` | Alg. 2 | `Q = R⁻¹` | column by column | `zhu_wei_alg2.rs` |
//! | `Alg3` | Alg. 3 | inverse LDLᵀ `L, D` | BLAS-3 | `zhu_wei_alg3.rs` |
//!
//! Every strategy is the one solver type of `solver.rs` carrying the
//! strategy's own factor state and update; [`Strategy::build`] is the one
//! entry point.
//!
//! Design decisions:
//!
//! - **Each solver owns `A` and `Y`.** Every update needs products with the
//!   current `A` (`AᵀH`, `AD`), and Zhu–Wei's `hᵀY`. `A` lives in a
//!   column-major [`GrowMat`](crate::store::GrowMat) with geometric capacity, so
//!   appending `q` columns copies only those (call
//!   [`IncrementalRidge::reserve`] to avoid even the amortized re-layouts).
//!   Storage starts at the exact size of the first block and grows by ×1.5
//!   on demand, so a solver never holds more than 1.5× what it needs.
//!   `Y` is fixed at construction: a new target means a new solver.
//! - **Appends are transactional for the block strategies**: on error the
//!   solver is unchanged. The column-by-column strategies (Li et al., Alg. 1,
//!   Alg. 2) keep the columns before the failing one; the error names it.
//! - **Flops** of the last append are counted by the papers' rule inside
//!   every kernel call ([`crate::kernels`]), not estimated.
//! - **Precision of `A`**: the solver's copy of `A` is stored in f64 or,
//!   with [`Precision::F32`], rounded to f32 on arrival (half the memory;
//!   products still computed in f64, see [`crate::hidden_store`]). Every
//!   factor, `Y` and `W` are f64.

mod batch;
mod direct;
mod gram;
mod greville;
mod inverse_cholesky_ridge;
mod inverse_t;
mod li_et_al;
mod online;
mod path;
mod problem;
mod r_inv;
mod solver;
mod zhu_wei_alg1;
mod zhu_wei_alg2;
mod zhu_wei_alg3;

use std::fmt;
use std::str::FromStr;

use ndarray::{Array2, ArrayView1, ArrayView2, CowArray, Ix2};

pub use batch::{ridge_solve, ridge_solve_with_intercept, RidgeSolution};
pub use gram::GramAccumulator;
pub use online::OnlineRidge;
pub use path::{leave_one_out, leave_one_out_with, loo_residuals_at, Decomposition, LeaveOneOut, LooScore, RidgePath};

use crate::error::Result;
use crate::hidden_store::Precision;
use problem::Problem;
use solver::Solver;

/// Ridge least squares on a hidden-layer matrix that grows by columns.
///
/// ```
/// use linalg_core::ridge::{IncrementalRidge, Strategy};
/// use linalg_core::Precision;
/// use ndarray::{array, concatenate, Axis};
///
/// let a = array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
/// let y = array![[1.0], [2.0], [3.0]];
/// let h = array![[1.0], [0.0], [0.5]];
/// let mut s = Strategy::Chol2.build(a.view(), y.view(), 0.5, Precision::F64)?;
/// s.append(h.view())?;
/// // Same as the direct ridge solution on [A H].
/// let full = concatenate![Axis(1), a, h];
/// let d = Strategy::DRdg.build(full.view(), y.view(), 0.5, Precision::F64)?;
/// for (u, v) in s.weights().iter().zip(d.weights().iter()) {
///     assert!((u - v).abs() < 1e-12);
/// }
/// assert_eq!(s.nodes(), 3);
/// # Ok::<(), linalg_core::Error>(())
/// ```
pub trait IncrementalRidge: Send + fmt::Debug {
    /// Which strategy this is.
    fn strategy(&self) -> Strategy;
    /// Append `q ≥ 1` new columns `H` (K×q: the new hidden nodes' outputs on
    /// every sample) and update the weights.
    fn append(&mut self, h: ArrayView2<'_, f64>) -> Result<()>;
    /// As [`Self::append`], taking the block by value: a column-major
    /// contiguous `h` (e.g. `Array2::zeros((k, q).f())`) becomes the solver's
    /// working copy without being copied, which saves one K×q matrix at the
    /// peak of the update.
    fn append_owned(&mut self, h: Array2<f64>) -> Result<()> {
        self.append(h.view())
    }
    /// Current output weights `W` (n×M).
    fn weights(&self) -> ArrayView2<'_, f64>;
    /// The current hidden-layer matrix `A` (K×n): borrowed when stored in
    /// f64, widened into a new array when stored in f32.
    fn hidden(&self) -> CowArray<'_, f64, Ix2>;
    /// The precision `A` is stored in.
    fn precision(&self) -> Precision;
    /// Number of hidden nodes `n` (columns of `A`).
    fn nodes(&self) -> usize;
    /// The ridge parameter λ.
    fn lambda(&self) -> f64;
    /// Flops of the last append (or of the construction, before any append),
    /// counted by the papers' rule.
    fn last_flops(&self) -> u64;
    /// Make room for `additional` more nodes so later appends do not
    /// reallocate.
    fn reserve(&mut self, additional: usize);
    /// Bytes of the state held (capacity included): `A`, `Y`, factors, weights.
    fn memory_bytes(&self) -> usize;
    /// The strategy's factor state (diagnostics: factor identities, the
    /// stored inverse).
    fn factors(&self) -> Factors<'_>;
    /// A boxed deep copy (e.g. to try appends from the same state).
    fn clone_box(&self) -> Box<dyn IncrementalRidge>;
}

/// The strategies of the papers, by name. [`Strategy::build`] makes a solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Strategy {
    /// D-Rdg: direct ridge solution recomputed by a Cholesky solve.
    DRdg,
    /// Chol-1: inverse Cholesky update, Schur complement by subtraction.
    Chol1,
    /// Chol-2: inverse Cholesky update, Schur complement from the residual.
    Chol2,
    /// Exg-E: the earlier efficient BLS (generalized inverse, `λ → 0` updates).
    ExgE,
    /// R-Inv: ridge inverse of a partitioned matrix.
    RInv,
    /// Orig.: Greville's method, as in the original BLS.
    Orig,
    /// Li et al.: the existing inverse-free ELM.
    LiEtAl,
    /// Zhu–Wei Alg. 1: regularized pseudo-inverse update.
    Alg1,
    /// Zhu–Wei Alg. 2: recursive inverse `Q` update.
    Alg2,
    /// Zhu–Wei Alg. 3: inverse LDLᵀ update.
    Alg3,
}

impl Strategy {
    /// Every strategy, in the order of the papers' tables.
    pub const ALL: [Strategy; 10] = [
        Strategy::DRdg,
        Strategy::Chol1,
        Strategy::Chol2,
        Strategy::ExgE,
        Strategy::RInv,
        Strategy::Orig,
        Strategy::LiEtAl,
        Strategy::Alg1,
        Strategy::Alg2,
        Strategy::Alg3,
    ];

    /// The strategies of the BLS ridge-solutions paper (Zhu et al.): Table
    /// VI's five and D-Rdg, in the paper's table order.
    pub const BLS_PAPER: [Strategy; 6] = [
        Strategy::Orig,
        Strategy::ExgE,
        Strategy::Chol1,
        Strategy::Chol2,
        Strategy::RInv,
        Strategy::DRdg,
    ];

    /// The name the papers use.
    pub fn paper_name(self) -> &'static str {
        match self {
            Strategy::DRdg => "D-Rdg",
            Strategy::Chol1 => "Chol-1",
            Strategy::Chol2 => "Chol-2",
            Strategy::ExgE => "Exg-E",
            Strategy::RInv => "R-Inv",
            Strategy::Orig => "Orig.",
            Strategy::LiEtAl => "Li et al.",
            Strategy::Alg1 => "Alg. 1",
            Strategy::Alg2 => "Alg. 2",
            Strategy::Alg3 => "Alg. 3",
        }
    }

    /// Passes over `K×n`-sized data (reads plus writes) that appending one
    /// column makes in this crate's implementation, by its data flow: the
    /// memory-traffic floor of a one-column append, which is memory-bound
    /// when `K·n` is large, is `passes × (time to read K×n once)`
    /// (docs/performance.md).
    ///
    /// - Alg. 2, Alg. 3, Chol-1: `p = Aᵀh` reads `A` once (the n×n factor is
    ///   `K/n` times smaller). D-Rdg: `Aᵀh` once (plus an `O(n³)`
    ///   refactorization that is compute-, not memory-bound).
    /// - Chol-2, Exg-E: `Aᵀh` and `c = h − A d`: two reads of `A`.
    /// - R-Inv, Orig.: `Bᵀh`, `A d`, and `B −= b dᵀ` (read and write `B`): 4.
    /// - Alg. 1: `Aᵀh`, `Bᵀh`, `B p`, `B −= b̄ vᵀ` (read and write): 5.
    /// - Li et al.: `Aᵀh`, then `Bp` and `Bᵀh` in one read of `B`, then the
    ///   rank-one update of (15) (both terms in one) and `W = BᵀY` in one
    ///   read and write of `B`, tile by tile: 4 (term by term it would be 9:
    ///   `Aᵀh`, `Bp`, `Bᵀh`, two rank-one updates, `B̃p`, `W = BᵀY`).
    pub fn column_passes(self) -> usize {
        match self {
            Strategy::Alg2 | Strategy::Alg3 | Strategy::Chol1 | Strategy::DRdg => 1,
            Strategy::Chol2 | Strategy::ExgE => 2,
            Strategy::RInv | Strategy::Orig | Strategy::LiEtAl => 4,
            Strategy::Alg1 => 5,
        }
    }

    /// The command-line name (`d-rdg`, `chol1`, …, `alg3`).
    pub fn cli_name(self) -> &'static str {
        match self {
            Strategy::DRdg => "d-rdg",
            Strategy::Chol1 => "chol1",
            Strategy::Chol2 => "chol2",
            Strategy::ExgE => "exg-e",
            Strategy::RInv => "r-inv",
            Strategy::Orig => "orig",
            Strategy::LiEtAl => "li-et-al",
            Strategy::Alg1 => "alg1",
            Strategy::Alg2 => "alg2",
            Strategy::Alg3 => "alg3",
        }
    }

    /// Whether the weights are the ridge solution for λ (`false` for the
    /// generalized-inverse solutions Orig. and Exg-E, which use λ only to
    /// start).
    pub fn is_ridge(self) -> bool {
        !matches!(self, Strategy::Orig | Strategy::ExgE)
    }

    /// Whether an append of `q` columns is done as one BLAS-3 block (`false`:
    /// a loop over single columns).
    pub fn blocks(self) -> bool {
        !matches!(self, Strategy::LiEtAl | Strategy::Alg1 | Strategy::Alg2)
    }

    /// Start a solver of this strategy from the first block of columns `a`
    /// (K×n₀), targets `y` (K×M) and ridge parameter `lambda > 0`, with the
    /// solver's copy of `A` stored in `precision` ([`Precision::F32`] halves
    /// its memory and rounds the columns to f32 on arrival: see
    /// [`crate::hidden_store`]).
    ///
    /// `a` is a view (copied once) or an owned `Array2`: a column-major
    /// contiguous owned `a` (e.g. `Array2::zeros((k, n).f())`) becomes the
    /// solver's f64 copy of `A` without being copied, as
    /// [`IncrementalRidge::append_owned`] does for later blocks. At the BLS
    /// paper's MNIST start (60000 × 3060, 1.47 GB) the copy it saves costs
    /// about 3.5 s of first-touch page faults on this machine
    /// (`docs/performance.md`). Any other layout is copied once, and an
    /// [`Precision::F32`] store is always a new (rounded) array.
    ///
    /// ```
    /// use linalg_core::ridge::Strategy;
    /// use linalg_core::Precision;
    /// use ndarray::{array, Array2, ShapeBuilder};
    ///
    /// let mut a = Array2::<f64>::zeros((3, 2).f());
    /// a.assign(&array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]);
    /// let y = array![[1.0], [2.0], [3.0]];
    /// let by_view = Strategy::Chol2.build(a.view(), y.view(), 0.5, Precision::F64)?;
    /// let by_value = Strategy::Chol2.build(a, y.view(), 0.5, Precision::F64)?;
    /// assert_eq!(by_view.weights(), by_value.weights());
    /// # Ok::<(), linalg_core::Error>(())
    /// ```
    pub fn build<'a>(
        self,
        a: impl Into<CowArray<'a, f64, Ix2>>,
        y: ArrayView2<'_, f64>,
        lambda: f64,
        precision: Precision,
    ) -> Result<Box<dyn IncrementalRidge>> {
        let p = Problem::new(self, a.into(), y, lambda, precision)?;
        match self {
            Strategy::DRdg => Solver::<direct::DirectRidge>::start(p),
            Strategy::Chol1 | Strategy::Chol2 | Strategy::ExgE => {
                Solver::<inverse_cholesky_ridge::InvCholRidge>::start(p)
            }
            Strategy::RInv | Strategy::Orig | Strategy::LiEtAl | Strategy::Alg1 => {
                Solver::<inverse_t::InverseT>::start(p)
            }
            Strategy::Alg2 => Solver::<zhu_wei_alg2::ZhuWeiAlg2>::start(p),
            Strategy::Alg3 => Solver::<zhu_wei_alg3::ZhuWeiAlg3>::start(p),
        }
    }
}

/// What a strategy keeps beside `A`, `Y` and `W`
/// ([`IncrementalRidge::factors`]), with `R = AᵀA + λI`.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Factors<'a> {
    /// D-Rdg: the Gram matrix `AᵀA` (upper triangle kept) and `AᵀY`.
    Gram {
        /// `AᵀA` (n×n; only the upper triangle is kept up to date).
        gram: ArrayView2<'a, f64>,
        /// `AᵀY` (n×M).
        aty: ArrayView2<'a, f64>,
    },
    /// Chol-1, Chol-2, Exg-E: the upper inverse Cholesky factor `F`
    /// (`F Fᵀ = R⁻¹` for the ridge strategies) and `G = FᵀAᵀY` (`W = F G`).
    InverseCholesky {
        /// `F` (n×n upper triangular).
        f: ArrayView2<'a, f64>,
        /// `G` (n×M).
        g: ArrayView2<'a, f64>,
    },
    /// R-Inv, Li et al., Alg. 1: the transposed ridge inverse
    /// `B = (A⁺_λ)ᵀ = A R⁻¹`; Orig.: the transposed generalized inverse
    /// `(A⁺)ᵀ` (K×n).
    TransposedInverse(ArrayView2<'a, f64>),
    /// Alg. 2: the inverse `Q = R⁻¹` (n×n, symmetrized from the kept upper
    /// triangle).
    Inverse(Array2<f64>),
    /// Alg. 3: the inverse LDLᵀ factors, `L D Lᵀ = R⁻¹`.
    InverseLdl {
        /// `L` (n×n unit upper triangular).
        l: ArrayView2<'a, f64>,
        /// The diagonal of `D` (n).
        d: ArrayView1<'a, f64>,
    },
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.paper_name())
    }
}

/// Error of [`Strategy::from_str`]: the name is not a known strategy.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown strategy `{0}`; known: d-rdg, chol1, chol2, exg-e, r-inv, orig, li-et-al, alg1, alg2, alg3")]
pub struct UnknownStrategy(pub String);

impl FromStr for Strategy {
    type Err = UnknownStrategy;
    /// Accepts the command-line name or the paper's name, case-insensitively.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        Strategy::ALL
            .into_iter()
            .find(|k| k.cli_name() == t || k.paper_name().to_ascii_lowercase() == t)
            .ok_or_else(|| UnknownStrategy(s.to_string()))
    }
}
