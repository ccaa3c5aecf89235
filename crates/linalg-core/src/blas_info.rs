//! Which BLAS runs the products, and whether its kernel uses the CPU's
//! vector units (issue 37).
//!
//! OpenBLAS built for many CPUs (`DYNAMIC_ARCH`, as Debian's is) picks a
//! kernel set when it is loaded: from `OPENBLAS_CORETYPE` if set, else from
//! the CPUs it knows. A CPU newer than the library (Debian's 0.3.21 and an
//! Emerald Rapids Xeon) gets the generic Prescott kernels, SSE3 only: about
//! a fifth of the machine's DGEMM rate. [`BlasInfo::current`] names the
//! library, its build and its kernel, and [`BlasInfo::slow_kernel`] says
//! when the kernel leaves AVX2 or AVX-512 unused on a CPU that has them.
//!
//! ```
//! let blas = linalg_core::blas_info::BlasInfo::current();
//! assert_eq!(blas.library, "OpenBLAS");
//! assert!(!blas.kernel.is_empty());
//! println!("{blas}");
//! ```

use std::ffi::CStr;
use std::fmt;

use crate::ffi;

/// OpenBLAS's x86-64 kernel sets that use AVX2 or AVX-512 (the names
/// `openblas_get_corename` gives, compared without regard to case). The
/// others — Prescott, Core2, Penryn, Dunnington, Nehalem, Atom, Sandybridge
/// (AVX without FMA), the AMD families before Excavator — leave AVX2 unused.
pub const AVX2_KERNELS: [&str; 6] = [
    "Haswell",
    "Zen",
    "SkylakeX",
    "Cooperlake",
    "SapphireRapids",
    "Excavator",
];

/// The BLAS library in use and its kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlasInfo {
    /// The library (`OpenBLAS`).
    pub library: String,
    /// Its build's version and options (`openblas_get_config`, e.g.
    /// `OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Cooperlake MAX_THREADS=64`).
    pub config: String,
    /// The kernel set in use (`openblas_get_corename`, e.g. `Cooperlake`).
    pub kernel: String,
}

/// A static C string from OpenBLAS, or `""` for a null pointer.
fn c_text(p: *const std::os::raw::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: OpenBLAS returns a pointer to a static NUL-terminated string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().trim().to_string()
}

impl BlasInfo {
    /// The library this process runs, as it reports itself.
    pub fn current() -> Self {
        // SAFETY: plain getters of static strings.
        let (config, kernel) = unsafe { (ffi::openblas_get_config(), ffi::openblas_get_corename()) };
        BlasInfo {
            library: "OpenBLAS".into(),
            config: c_text(config),
            kernel: c_text(kernel),
        }
    }

    /// Whether the kernel set uses AVX2 or AVX-512 ([`AVX2_KERNELS`]).
    pub fn kernel_uses_avx2(&self) -> bool {
        AVX2_KERNELS.iter().any(|k| k.eq_ignore_ascii_case(&self.kernel))
    }

    /// When the kernel leaves the CPU's vector units unused — a kernel
    /// without AVX2 on a CPU with AVX2 — the widest such unit the CPU has
    /// (`"AVX-512"` or `"AVX2"`); `None` otherwise (and on other
    /// architectures).
    pub fn slow_kernel(&self) -> Option<&'static str> {
        if self.kernel_uses_avx2() {
            return None;
        }
        cpu_vector_units()
    }
}

/// The widest vector unit of the CPU this runs on that OpenBLAS's fast
/// kernels use: `"AVX-512"`, `"AVX2"` (with FMA), or `None`.
pub fn cpu_vector_units() -> Option<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Some("AVX-512");
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            return Some("AVX2");
        }
    }
    None
}

impl fmt::Display for BlasInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, kernel {} ({})", self.library, self.kernel, self.config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_names_its_kernel_and_build() {
        let blas = BlasInfo::current();
        assert!(!blas.kernel.is_empty(), "{blas}");
        assert!(blas.config.contains("OpenBLAS"), "{blas}");
        // A kernel set that uses AVX2 never counts as slow; one that does
        // not counts as slow exactly where the CPU has AVX2.
        if blas.kernel_uses_avx2() {
            assert_eq!(blas.slow_kernel(), None);
        } else {
            assert_eq!(blas.slow_kernel(), cpu_vector_units());
        }
    }

    #[test]
    fn kernel_names_are_matched_without_case() {
        let named = |k: &str| BlasInfo {
            library: "OpenBLAS".into(),
            config: String::new(),
            kernel: k.into(),
        };
        assert!(named("SKYLAKEX").kernel_uses_avx2() && named("haswell").kernel_uses_avx2());
        assert!(!named("Prescott").kernel_uses_avx2() && !named("Sandybridge").kernel_uses_avx2());
        assert_eq!(named("Zen").slow_kernel(), None);
        assert_eq!(named("Prescott").slow_kernel(), cpu_vector_units());
    }
}
