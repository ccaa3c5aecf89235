//! Raw CBLAS / LAPACK / OpenBLAS declarations (column-major only).
//!
//! The CBLAS and LAPACK signatures come from the maintained `cblas-sys` and
//! `lapack-sys` crates (declarations only, no library of their own); the
//! symbols come from the system OpenBLAS, linked through `openblas-src`
//! (`extern crate blas_src` in `lib.rs`). OpenBLAS's own thread control is in
//! neither crate and is declared here, as are its identification calls.
//! Nothing outside `kernels`, `lstsq`, `threads` and `blas_info` calls these
//! directly.

use std::os::raw::{c_char, c_int};

pub use cblas_sys::{
    cblas_dgemm, cblas_dgemv, cblas_dger, cblas_dsyrk, cblas_dtrmm, cblas_dtrmv, cblas_dtrsm, cblas_dtrsv,
    CBLAS_DIAG as CblasDiag, CBLAS_LAYOUT as CblasLayout, CBLAS_SIDE as CblasSide, CBLAS_TRANSPOSE as CblasTranspose,
    CBLAS_UPLO as CblasUplo,
};
pub use lapack_sys::{dgelsd_, dgesdd_, dpotrf_, dsyevd_, dtpqrt_, dtrtri_};

/// Column-major storage (the only layout the kernels use).
pub const COL_MAJOR: CblasLayout = CblasLayout::CblasColMajor;
/// `op(A) = A`.
pub const NO_TRANS: CblasTranspose = CblasTranspose::CblasNoTrans;
/// `op(A) = Aᵀ`.
pub const TRANS: CblasTranspose = CblasTranspose::CblasTrans;
/// Upper triangle.
pub const UPPER: CblasUplo = CblasUplo::CblasUpper;
/// Lower triangle.
pub const LOWER: CblasUplo = CblasUplo::CblasLower;
/// Stored diagonal.
pub const NON_UNIT: CblasDiag = CblasDiag::CblasNonUnit;
/// Implicit unit diagonal.
pub const UNIT: CblasDiag = CblasDiag::CblasUnit;
/// Triangular operand on the left.
pub const LEFT: CblasSide = CblasSide::CblasLeft;
/// Triangular operand on the right.
pub const RIGHT: CblasSide = CblasSide::CblasRight;

extern "C" {
    /// OpenBLAS: set the number of threads of later BLAS calls.
    pub fn openblas_set_num_threads(n: c_int);
    /// OpenBLAS: the number of threads BLAS calls use.
    pub fn openblas_get_num_threads() -> c_int;
    /// OpenBLAS: the name of the kernel set in use (a static C string).
    pub fn openblas_get_corename() -> *const c_char;
    /// OpenBLAS: the build's version and options (a static C string).
    pub fn openblas_get_config() -> *const c_char;
}
