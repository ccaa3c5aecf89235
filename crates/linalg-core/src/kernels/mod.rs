//! Safe, flop-counting wrappers over the BLAS/LAPACK routines the solvers use.
//!
//! All matrices are column-major descriptors ([`MatRef`], [`MatMut`]) with a
//! leading dimension, so sub-blocks of the growable factors
//! ([`crate::store::GrowMat`]) go to BLAS without copies. Every wrapper adds
//! the flops it performs to a [`Flops`] counter by the papers' rule (Zhu & Wei,
//! Sec. IV: an `l1×l2` by `l2×l3` product costs `2·l1·l2·l3`, a sum of two
//! `l1×l2` matrices `l1·l2`); triangular and symmetric products count what
//! they compute (half of the dense figure).
//!
//! Shapes are checked with `assert!`: they are internal invariants of the
//! solvers, whose public entry points validate user input first.

// The wrappers mirror the BLAS argument lists (operand, transposition,
// triangle, side, scalars) so each call reads like the routine it makes.
#![allow(clippy::too_many_arguments)]

mod blas2;
mod blas3;
mod lapack;
mod mat;
mod upper_triangle;

use std::os::raw::{c_char, c_int};

use crate::ffi;

pub use blas2::{dot, gemv, ger, ldlt_times_unit_upper, symv, syr, syr_then_symv, trmv};
pub use blas3::{gemm, gemm_right_in_place, matmul, symmetrize_upper, syrk, trmm, trsm};
pub use lapack::{potrf, potrs_upper, svd_square, syevd, tall_svd, triangle_qr_update, trtri, TallSvd};
pub use mat::{MatMut, MatRef, Owned};

/// A flop counter (paper's counting rules, see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flops(pub u64);

impl Flops {
    /// Add `n` flops.
    pub fn add(&mut self, n: usize) {
        self.0 += n as u64;
    }
}

pub(super) fn ci(n: usize) -> c_int {
    c_int::try_from(n).expect("matrix dimension exceeds the BLAS integer range")
}

/// Whether an operand is used as is or transposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `A`.
    N,
    /// `Aᵀ`.
    T,
}

impl Op {
    pub(super) fn cblas(self) -> ffi::CblasTranspose {
        match self {
            Op::N => ffi::NO_TRANS,
            Op::T => ffi::TRANS,
        }
    }
    pub(super) fn dims(self, a: &MatRef<'_>) -> (usize, usize) {
        match self {
            Op::N => (a.rows, a.cols),
            Op::T => (a.cols, a.rows),
        }
    }
}

/// Which triangle of a triangular operand holds the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tri {
    /// Upper triangular.
    Upper,
    /// Lower triangular.
    Lower,
}

impl Tri {
    pub(super) fn cblas(self) -> ffi::CblasUplo {
        match self {
            Tri::Upper => ffi::UPPER,
            Tri::Lower => ffi::LOWER,
        }
    }
    pub(super) fn lapack(self) -> c_char {
        match self {
            Tri::Upper => b'U' as c_char,
            Tri::Lower => b'L' as c_char,
        }
    }
}

/// Whether the triangular operand has an implicit unit diagonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diag {
    /// Stored diagonal.
    NonUnit,
    /// Unit diagonal (not referenced).
    Unit,
}

impl Diag {
    pub(super) fn cblas(self) -> ffi::CblasDiag {
        match self {
            Diag::NonUnit => ffi::NON_UNIT,
            Diag::Unit => ffi::UNIT,
        }
    }
}

/// Side of the triangular operand in [`trmm`] / [`trsm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `B ← op(T)·B`.
    Left,
    /// `B ← B·op(T)`.
    Right,
}

#[cfg(test)]
mod tests;
