//! The crate's error type: every way an input or an update can fail.

use thiserror::Error;

use crate::ridge::Strategy;

/// Errors of `linalg-core`. Each names the input or the strategy at fault.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// An input holds NaN or ±∞.
    #[error("{what} holds {count} non-finite value(s); the first at row {row}, column {col}")]
    NonFinite {
        /// Which input.
        what: &'static str,
        /// Row of the first offending entry.
        row: usize,
        /// Column of the first offending entry.
        col: usize,
        /// How many entries are not finite.
        count: usize,
    },
    /// Shapes do not agree.
    #[error("{what}: expected {expected}, found {found}")]
    Shape {
        /// Which input.
        what: &'static str,
        /// The shape required.
        expected: String,
        /// The shape given.
        found: String,
    },
    /// An input has no rows or no columns.
    #[error("{what} is empty ({rows}×{cols}); it needs at least one row and one column")]
    Empty {
        /// Which input.
        what: &'static str,
        /// Rows given.
        rows: usize,
        /// Columns given.
        cols: usize,
    },
    /// The ridge parameter is not admissible.
    #[error("{strategy}: λ = {lambda} is not admissible: λ must be finite and > 0")]
    InvalidLambda {
        /// The strategy (displayed by the paper's name).
        strategy: Strategy,
        /// The value given.
        lambda: f64,
    },
    /// A matrix that must be symmetric positive definite is not, in floating
    /// point: typically a generalized-inverse update (Exg-E) or the
    /// subtraction form of the Schur complement (Chol-1) with a tiny λ on
    /// (nearly) collinear new columns.
    #[error(
        "{strategy}: {matrix} is not positive definite in floating point (pivot {pivot} of the block \
         adding nodes {first_node}..{end_node}); {suggestion}"
    )]
    NotPositiveDefinite {
        /// The strategy (displayed by the paper's name).
        strategy: Strategy,
        /// Which matrix lost definiteness.
        matrix: &'static str,
        /// 1-based pivot at which the factorization broke down.
        pivot: usize,
        /// Index of the first node of the failing block (0-based).
        first_node: usize,
        /// One past the last node of the failing block.
        end_node: usize,
        /// What to do instead.
        suggestion: &'static str,
    },
    /// A matrix given to a standalone factorization
    /// ([`InverseCholesky`](crate::InverseCholesky),
    /// [`InverseLdl`](crate::InverseLdl),
    /// [`DivisionFreeLdl`](crate::DivisionFreeLdl)) or to one of their
    /// bordering updates is not symmetric positive definite in floating point.
    #[error(
        "{factorization}: {matrix} is not positive definite in floating point (pivot {pivot} of the block \
         adding nodes {first_node}..{end_node}); the matrix given is not SPD in floating point"
    )]
    FactorNotPositiveDefinite {
        /// Which factorization (e.g. "inverse Cholesky factorization").
        factorization: &'static str,
        /// Which matrix lost definiteness.
        matrix: &'static str,
        /// 1-based pivot at which the factorization broke down.
        pivot: usize,
        /// Index of the first row/column of the failing block (0-based).
        first_node: usize,
        /// One past the last row/column of the failing block.
        end_node: usize,
    },
    /// An update produced non-finite numbers (overflow).
    #[error("{strategy}: the update adding nodes {first_node}..{end_node} overflowed ({detail})")]
    Breakdown {
        /// The strategy (displayed by the paper's name).
        strategy: Strategy,
        /// Index of the first node of the failing block.
        first_node: usize,
        /// One past the last node.
        end_node: usize,
        /// What was found.
        detail: &'static str,
    },
    /// Forgetting rows ([`OnlineRidge::forget`](crate::ridge::OnlineRidge::forget))
    /// would leave `AᵀA + λI` not positive definite in floating point, or
    /// `AᵀA` with a negative eigenvalue beyond the rounding of its sums.
    #[error(
        "forgetting {rows} row(s) leaves AᵀA + λI not positive definite in floating point, or AᵀA with a \
         negative eigenvalue beyond rounding (pivot {pivot}): the rows were not all added before, or they carry \
         nearly all of some direction of A so that λ is lost in the cancellation; nothing was changed: refit on \
         the rows that remain, or use a larger λ"
    )]
    ForgetNotPositiveDefinite {
        /// The rows asked to forget.
        rows: usize,
        /// 1-based pivot at which the factorization broke down.
        pivot: usize,
    },
    /// A fit over several processes failed on one or more of them, or
    /// their communication did ([`collective`](crate::collective)).
    #[error("{problem}")]
    Collective {
        /// Which processes failed and why.
        problem: String,
    },
    /// A LAPACK routine reported a failure other than loss of definiteness.
    #[error("LAPACK {routine} failed with info = {info}")]
    Lapack {
        /// Routine name.
        routine: &'static str,
        /// LAPACK's `info`.
        info: i32,
    },
}

/// `Result` with this crate's [`Error`](enum@Error).
pub type Result<T> = std::result::Result<T, Error>;
