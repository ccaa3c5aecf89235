//! Raw CBLAS / LAPACK / OpenBLAS declarations (column-major only).
//!
//! Only the handful of routines the kernels in [`crate::kernels`] need. The
//! symbols come from the system OpenBLAS, linked through `openblas-src`
//! (`extern crate blas_src` in `lib.rs`). Nothing outside `kernels` calls
//! these directly.

#![allow(non_camel_case_types, dead_code)]

use std::os::raw::{c_char, c_int};

pub type CblasLayout = c_int;
pub type CblasTranspose = c_int;
pub type CblasUplo = c_int;
pub type CblasDiag = c_int;
pub type CblasSide = c_int;

pub const COL_MAJOR: CblasLayout = 102;
pub const NO_TRANS: CblasTranspose = 111;
pub const TRANS: CblasTranspose = 112;
pub const UPPER: CblasUplo = 121;
pub const LOWER: CblasUplo = 122;
pub const NON_UNIT: CblasDiag = 131;
pub const UNIT: CblasDiag = 132;
pub const LEFT: CblasSide = 141;
pub const RIGHT: CblasSide = 142;

extern "C" {
    pub fn cblas_dgemm(
        layout: CblasLayout,
        transa: CblasTranspose,
        transb: CblasTranspose,
        m: c_int,
        n: c_int,
        k: c_int,
        alpha: f64,
        a: *const f64,
        lda: c_int,
        b: *const f64,
        ldb: c_int,
        beta: f64,
        c: *mut f64,
        ldc: c_int,
    );
    pub fn cblas_dsyrk(
        layout: CblasLayout,
        uplo: CblasUplo,
        trans: CblasTranspose,
        n: c_int,
        k: c_int,
        alpha: f64,
        a: *const f64,
        lda: c_int,
        beta: f64,
        c: *mut f64,
        ldc: c_int,
    );
    pub fn cblas_dtrmm(
        layout: CblasLayout,
        side: CblasSide,
        uplo: CblasUplo,
        transa: CblasTranspose,
        diag: CblasDiag,
        m: c_int,
        n: c_int,
        alpha: f64,
        a: *const f64,
        lda: c_int,
        b: *mut f64,
        ldb: c_int,
    );
    pub fn cblas_dtrsm(
        layout: CblasLayout,
        side: CblasSide,
        uplo: CblasUplo,
        transa: CblasTranspose,
        diag: CblasDiag,
        m: c_int,
        n: c_int,
        alpha: f64,
        a: *const f64,
        lda: c_int,
        b: *mut f64,
        ldb: c_int,
    );
    pub fn cblas_dgemv(
        layout: CblasLayout,
        trans: CblasTranspose,
        m: c_int,
        n: c_int,
        alpha: f64,
        a: *const f64,
        lda: c_int,
        x: *const f64,
        incx: c_int,
        beta: f64,
        y: *mut f64,
        incy: c_int,
    );
    pub fn cblas_dtrmv(
        layout: CblasLayout,
        uplo: CblasUplo,
        trans: CblasTranspose,
        diag: CblasDiag,
        n: c_int,
        a: *const f64,
        lda: c_int,
        x: *mut f64,
        incx: c_int,
    );
    pub fn cblas_dtrsv(
        layout: CblasLayout,
        uplo: CblasUplo,
        trans: CblasTranspose,
        diag: CblasDiag,
        n: c_int,
        a: *const f64,
        lda: c_int,
        x: *mut f64,
        incx: c_int,
    );
    pub fn cblas_dsymv(
        layout: CblasLayout,
        uplo: CblasUplo,
        n: c_int,
        alpha: f64,
        a: *const f64,
        lda: c_int,
        x: *const f64,
        incx: c_int,
        beta: f64,
        y: *mut f64,
        incy: c_int,
    );
    pub fn cblas_dsyr(
        layout: CblasLayout,
        uplo: CblasUplo,
        n: c_int,
        alpha: f64,
        x: *const f64,
        incx: c_int,
        a: *mut f64,
        lda: c_int,
    );
    pub fn cblas_dger(
        layout: CblasLayout,
        m: c_int,
        n: c_int,
        alpha: f64,
        x: *const f64,
        incx: c_int,
        y: *const f64,
        incy: c_int,
        a: *mut f64,
        lda: c_int,
    );

    pub fn dpotrf_(uplo: *const c_char, n: *const c_int, a: *mut f64, lda: *const c_int, info: *mut c_int);
    pub fn dtrtri_(
        uplo: *const c_char,
        diag: *const c_char,
        n: *const c_int,
        a: *mut f64,
        lda: *const c_int,
        info: *mut c_int,
    );
    pub fn dsyevd_(
        jobz: *const c_char,
        uplo: *const c_char,
        n: *const c_int,
        a: *mut f64,
        lda: *const c_int,
        w: *mut f64,
        work: *mut f64,
        lwork: *const c_int,
        iwork: *mut c_int,
        liwork: *const c_int,
        info: *mut c_int,
    );

    pub fn dgelsd_(
        m: *const c_int,
        n: *const c_int,
        nrhs: *const c_int,
        a: *mut f64,
        lda: *const c_int,
        b: *mut f64,
        ldb: *const c_int,
        s: *mut f64,
        rcond: *const f64,
        rank: *mut c_int,
        work: *mut f64,
        lwork: *const c_int,
        iwork: *mut c_int,
        info: *mut c_int,
    );

    pub fn openblas_set_num_threads(n: c_int);
    pub fn openblas_get_num_threads() -> c_int;
}
