//! OpenBLAS thread control.
//!
//! Use one level of parallelism: OpenBLAS threads for a big BLAS-3 call, or
//! one OpenBLAS thread under an outer parallel loop (docs/toolchain.md). The
//! workspace's `.cargo/config.toml` starts every cargo-run process with
//! `OPENBLAS_NUM_THREADS=1`; programs that want both cores for BLAS say so.

use crate::ffi;

/// Set the number of OpenBLAS threads (at least 1).
pub fn set_blas_threads(n: usize) {
    let n = n.clamp(1, i32::MAX as usize) as i32;
    // SAFETY: plain setter of OpenBLAS's global thread count.
    unsafe { ffi::openblas_set_num_threads(n) }
}

/// The number of threads OpenBLAS currently uses.
pub fn blas_threads() -> usize {
    // SAFETY: plain getter.
    let n = unsafe { ffi::openblas_get_num_threads() };
    n.max(1) as usize
}

/// The process's one thread budget: OpenBLAS's thread count, which
/// `--threads` and the Python `n_jobs` set ([`set_blas_threads`]). Every
/// parallel site of the workspace stays within it: OpenBLAS itself, this
/// crate's own scoped kernels (`kernels::upper_triangle`, `kernels::blas2`,
/// the Li et al. sweeps) and the models' rayon work (activations, the BLS's
/// node columns), which runs in a rayon pool of this many threads when the
/// budget is below rayon's global pool.
pub fn budget() -> usize {
    blas_threads()
}
