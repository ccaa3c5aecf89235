//! Which BLAS kernel runs, and the rule that chooses one (issue 37).
//!
//! The package chooses OpenBLAS's kernel in Python, before this extension
//! (and with it OpenBLAS) is loaded (`decomp_nn/_blas_kernel.py`); these
//! functions let the package report the outcome and let its tests check
//! that the Python rule is [`linalg_core::blas_kernel::kernel_for`].

use pyo3::prelude::*;
use pyo3::types::PyDict;

use linalg_core::blas_info::BlasInfo;
use linalg_core::blas_kernel::{kernel_for, Cpu, KernelSource, Vendor};

/// The BLAS library in use: a dict with `library`, `config` (version and
/// build), `kernel`, `chosen_by` (`library`, `environment` or `chosen`)
/// and `slow_kernel` (the CPU's vector units the kernel leaves unused, or
/// `None`).
#[pyfunction]
pub fn blas_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let b = BlasInfo::current();
    let d = PyDict::new(py);
    d.set_item("library", &b.library)?;
    d.set_item("config", &b.config)?;
    d.set_item("kernel", &b.kernel)?;
    d.set_item("chosen_by", KernelSource::current().as_str())?;
    d.set_item("slow_kernel", b.slow_kernel())?;
    Ok(d)
}

/// The Rust rule's kernel for a CPU described by its vendor string
/// (`GenuineIntel`, `AuthenticAMD`, …), family and features, or `None`.
#[pyfunction]
pub fn blas_kernel_for(vendor: &str, family: u32, avx2: bool, fma: bool, avx512: bool) -> Option<&'static str> {
    let vendor = match vendor {
        "GenuineIntel" => Vendor::Intel,
        "AuthenticAMD" => Vendor::Amd,
        _ => Vendor::Other,
    };
    kernel_for(&Cpu {
        vendor,
        family,
        model: 0,
        avx2,
        fma,
        avx512,
    })
}
