//! Choosing OpenBLAS's kernel from the CPU when the library would fall back
//! to a generic one (issue 37).
//!
//! OpenBLAS built for many CPUs (`DYNAMIC_ARCH`, as Debian's is) picks its
//! kernel set once, when the library is loaded: from `OPENBLAS_CORETYPE`
//! if that is set, else from the CPU models it knows. A CPU newer than the
//! library gets the generic Prescott kernels (SSE3): Debian's 0.3.21 on an
//! Emerald Rapids Xeon ran DGEMM at 23 GFLOP/s where its own SkylakeX
//! kernel ran at 130. Since the choice is made before `main`, a program
//! that wants another kernel must set the variable and start again: that is
//! [`reexec_with_chosen_kernel`], which the `nn` and `reproduce` binaries call
//! first thing. The Python package sets the variable before it loads its
//! extension (`decomp_nn/_blas_kernel.py`, the same rule as
//! [`kernel_for`], checked against it by the Python tests).
//!
//! The rule, in order:
//! 1. `OPENBLAS_CORETYPE` already set (to anything, even empty): left alone.
//! 2. The kernel OpenBLAS chose uses AVX2 or AVX-512
//!    ([`crate::blas_info::AVX2_KERNELS`]): left alone — the library knows
//!    this CPU (the binaries know the kernel; the Python package, which
//!    must decide before the library loads, does not, and applies step 3).
//! 3. From the CPU ([`kernel_for`]): Intel with AVX-512 → `SkylakeX` (the
//!    double-precision kernels of every later Intel server part); AMD family
//!    ≥ 26 (Zen 5 and later) → `Haswell` (on those machines 0.3.21's
//!    AVX-512 kernels computed wrong results, and `Haswell` is what their
//!    environment sets); AMD with AVX-512 (Zen 4) → `SkylakeX`; any other
//!    AMD with AVX2 → `Zen`; any other CPU with AVX2 and FMA → `Haswell`;
//!    no AVX2 → nothing (the library's own choice is the best there is).
//!
//! A kernel is never chosen whose instructions the CPU (and its operating
//! system) lacks: [`kernel_needs`] lists them and the tests check every CPU
//! description against it.
//!
//! ```
//! use linalg_core::blas_kernel::{kernel_for, Cpu, Vendor};
//! let xeon = Cpu { vendor: Vendor::Intel, family: 6, model: 207, avx2: true, fma: true, avx512: true };
//! assert_eq!(kernel_for(&xeon), Some("SkylakeX"));
//! ```

use std::ffi::OsString;

/// The variable OpenBLAS reads when it is loaded.
pub const CORETYPE: &str = "OPENBLAS_CORETYPE";

/// Set beside [`CORETYPE`] when this project chose the kernel (to the
/// kernel's name), so that reports can say who chose it
/// ([`KernelSource`]).
pub const CHOSEN_MARK: &str = "DECOMP_NN_CHOSEN_CORETYPE";

/// For tests of the whole path on a CPU the library knows: the kernel
/// [`reexec_with_chosen_kernel`] takes as the library's choice instead of
/// asking the library (e.g. `Prescott`, to see the program start again as it
/// does on a CPU newer than the library). Not for use otherwise.
pub const PRETEND_DETECTED: &str = "DECOMP_NN_PRETEND_DETECTED_KERNEL";

/// The CPU's maker, as CPUID names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// `GenuineIntel`.
    Intel,
    /// `AuthenticAMD`.
    Amd,
    /// Any other (Hygon, Zhaoxin, a virtual CPU's own string).
    Other,
}

/// What the kernel choice needs to know about a CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// The maker.
    pub vendor: Vendor,
    /// The family as the vendors number it (base + extended family: Zen 4
    /// is 25, Zen 5 is 26, Intel's cores are 6).
    pub family: u32,
    /// The model (base + extended model: Emerald Rapids is 207).
    pub model: u32,
    /// AVX2, enabled by the operating system.
    pub avx2: bool,
    /// FMA3.
    pub fma: bool,
    /// The AVX-512 subsets OpenBLAS's SkylakeX kernels use (F, CD, BW, DQ,
    /// VL), enabled by the operating system.
    pub avx512: bool,
}

/// The instructions a kernel set needs: AVX2 with FMA, and AVX-512.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// AVX2 and FMA3.
    pub avx2_fma: bool,
    /// AVX-512 F, CD, BW, DQ and VL.
    pub avx512: bool,
}

/// What [`kernel_for`] may choose, with what each needs.
pub const CHOICES: [(&str, Needs); 3] = [
    (
        "SkylakeX",
        Needs {
            avx2_fma: true,
            avx512: true,
        },
    ),
    (
        "Haswell",
        Needs {
            avx2_fma: true,
            avx512: false,
        },
    ),
    (
        "Zen",
        Needs {
            avx2_fma: true,
            avx512: false,
        },
    ),
];

/// The instructions `kernel` (one of [`CHOICES`]) needs; `None` for a name
/// this module never chooses.
pub fn kernel_needs(kernel: &str) -> Option<Needs> {
    CHOICES.iter().find(|(k, _)| *k == kernel).map(|(_, n)| *n)
}

/// Whether `cpu` has every instruction `needs` lists.
pub fn cpu_has(cpu: &Cpu, needs: Needs) -> bool {
    (!needs.avx2_fma || (cpu.avx2 && cpu.fma)) && (!needs.avx512 || cpu.avx512)
}

/// The kernel set for `cpu` by the rule of the module docs (step 3), or
/// `None` where no kernel would use more than the library's own choice.
pub fn kernel_for(cpu: &Cpu) -> Option<&'static str> {
    if !(cpu.avx2 && cpu.fma) {
        return None;
    }
    Some(match cpu.vendor {
        Vendor::Intel if cpu.avx512 => "SkylakeX",
        Vendor::Amd if cpu.family >= 26 => "Haswell",
        Vendor::Amd if cpu.avx512 => "SkylakeX",
        Vendor::Amd => "Zen",
        _ => "Haswell",
    })
}

/// The whole rule: the kernel to set before OpenBLAS loads, or `None` to
/// leave the library's choice. `coretype_set`: whether `OPENBLAS_CORETYPE`
/// is in the environment; `detected`: the kernel the loaded library chose
/// (`None` when it is not loaded yet).
pub fn kernel_to_force(coretype_set: bool, cpu: Option<&Cpu>, detected: Option<&str>) -> Option<&'static str> {
    if coretype_set {
        return None;
    }
    if let Some(k) = detected {
        if crate::blas_info::AVX2_KERNELS.iter().any(|a| a.eq_ignore_ascii_case(k)) {
            return None;
        }
    }
    kernel_for(cpu?)
}

impl Cpu {
    /// The CPU this runs on (`None` off x86-64).
    pub fn current() -> Option<Cpu> {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::__cpuid;
            #[allow(unused_unsafe)]
            // SAFETY: CPUID exists on every x86-64 CPU; leaves 0 and 1 always do.
            let (leaf0, leaf1) = unsafe { (__cpuid(0), __cpuid(1)) };
            let mut name = Vec::with_capacity(12);
            for r in [leaf0.ebx, leaf0.edx, leaf0.ecx] {
                name.extend_from_slice(&r.to_le_bytes());
            }
            let vendor = match &name[..] {
                b"GenuineIntel" => Vendor::Intel,
                b"AuthenticAMD" => Vendor::Amd,
                _ => Vendor::Other,
            };
            let (family, model) = family_and_model(leaf1.eax);
            Some(Cpu {
                vendor,
                family,
                model,
                avx2: std::arch::is_x86_feature_detected!("avx2"),
                fma: std::arch::is_x86_feature_detected!("fma"),
                avx512: std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512cd")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl"),
            })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }
}

/// Family and model from CPUID leaf 1's EAX, as Intel's and AMD's manuals
/// define them: the extended family is added when the base family is 15,
/// the extended model prepended when the base family is 6 or 15.
pub fn family_and_model(eax: u32) -> (u32, u32) {
    let base_family = (eax >> 8) & 0xf;
    let base_model = (eax >> 4) & 0xf;
    let family = if base_family == 0xf {
        base_family + ((eax >> 20) & 0xff)
    } else {
        base_family
    };
    let model = if base_family == 0x6 || base_family == 0xf {
        (((eax >> 16) & 0xf) << 4) | base_model
    } else {
        base_model
    };
    (family, model)
}

/// Who chose the kernel that runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelSource {
    /// OpenBLAS, from the CPU models it knows.
    Library,
    /// The user's (or the machine's) `OPENBLAS_CORETYPE`.
    Environment,
    /// This project, by the rule of the module docs.
    Chosen,
}

impl KernelSource {
    /// From this process's environment.
    pub fn current() -> Self {
        match (std::env::var_os(CORETYPE), std::env::var_os(CHOSEN_MARK)) {
            (None, _) => KernelSource::Library,
            (Some(set), Some(mark)) if set == mark => KernelSource::Chosen,
            (Some(_), _) => KernelSource::Environment,
        }
    }

    /// `library`, `environment` or `chosen`.
    pub fn as_str(self) -> &'static str {
        match self {
            KernelSource::Library => "library",
            KernelSource::Environment => "environment",
            KernelSource::Chosen => "chosen",
        }
    }
}

/// Start this program again with `OPENBLAS_CORETYPE` set when
/// [`kernel_to_force`] says so (the loaded library's kernel is generic, the
/// variable is unset, and the CPU has a better one); return (doing nothing)
/// otherwise. Call it first thing in `main`, before any thread or file is
/// opened: on success it does not return (the same process id runs the
/// program anew, with the same arguments, standard streams and
/// environment, plus the two variables). If the new start fails the
/// program goes on with the kernel it has, and the error is returned for
/// the caller to mention.
pub fn reexec_with_chosen_kernel() -> Result<(), std::io::Error> {
    let detected = std::env::var(PRETEND_DETECTED)
        .ok()
        .filter(|k| !k.is_empty())
        .unwrap_or_else(|| crate::blas_info::BlasInfo::current().kernel);
    let Some(kernel) = kernel_to_force(
        std::env::var_os(CORETYPE).is_some(),
        Cpu::current().as_ref(),
        Some(&detected),
    ) else {
        return Ok(());
    };
    reexec_with(kernel)
}

#[cfg(unix)]
fn reexec_with(kernel: &str) -> Result<(), std::io::Error> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe()?;
    let mut args = std::env::args_os();
    let arg0: OsString = args.next().unwrap_or_else(|| exe.clone().into_os_string());
    let err = std::process::Command::new(&exe)
        .arg0(arg0)
        .args(args)
        .env(CORETYPE, kernel)
        .env(CHOSEN_MARK, kernel)
        .exec();
    Err(err)
}

#[cfg(not(unix))]
fn reexec_with(_kernel: &str) -> Result<(), std::io::Error> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every combination of vendor, a few families and the three feature
    /// flags (AVX-512 only with AVX2, as on every real CPU, and also
    /// without, as a hypervisor may mask).
    fn all_cpus() -> Vec<Cpu> {
        let mut cpus = Vec::new();
        for vendor in [Vendor::Intel, Vendor::Amd, Vendor::Other] {
            for family in [6, 15, 23, 25, 26, 27] {
                for bits in 0..8u8 {
                    cpus.push(Cpu {
                        vendor,
                        family,
                        model: 0,
                        avx2: bits & 1 != 0,
                        fma: bits & 2 != 0,
                        avx512: bits & 4 != 0,
                    });
                }
            }
        }
        cpus
    }

    #[test]
    fn a_chosen_kernel_never_needs_what_the_cpu_lacks() {
        for cpu in all_cpus() {
            if let Some(k) = kernel_for(&cpu) {
                let needs = kernel_needs(k).unwrap_or_else(|| panic!("{k} is not among CHOICES"));
                assert!(cpu_has(&cpu, needs), "{k} chosen for {cpu:?}");
            }
        }
    }

    #[test]
    fn a_set_coretype_is_never_overridden() {
        for cpu in all_cpus() {
            for detected in [None, Some("Prescott"), Some("Haswell"), Some("Core2")] {
                assert_eq!(
                    kernel_to_force(true, Some(&cpu), detected),
                    None,
                    "{cpu:?} {detected:?}"
                );
            }
        }
    }

    #[test]
    fn a_kernel_the_library_chose_well_is_kept() {
        for cpu in all_cpus() {
            for k in crate::blas_info::AVX2_KERNELS {
                assert_eq!(kernel_to_force(false, Some(&cpu), Some(k)), None);
                assert_eq!(kernel_to_force(false, Some(&cpu), Some(&k.to_uppercase())), None);
            }
        }
    }

    #[test]
    fn a_generic_kernel_is_replaced_where_the_cpu_has_avx2() {
        for cpu in all_cpus() {
            let forced = kernel_to_force(false, Some(&cpu), Some("Prescott"));
            assert_eq!(forced.is_some(), cpu.avx2 && cpu.fma, "{cpu:?}");
            assert_eq!(forced, kernel_for(&cpu));
        }
        assert_eq!(kernel_to_force(false, None, Some("Prescott")), None);
    }

    #[test]
    fn the_machines_this_project_met() {
        let cpu = |vendor, family, model, avx512| Cpu {
            vendor,
            family,
            model,
            avx2: true,
            fma: true,
            avx512,
        };
        // Emerald Rapids: 0.3.21 falls back to Prescott; SkylakeX ran DGEMM at 130 GFLOP/s.
        assert_eq!(kernel_for(&cpu(Vendor::Intel, 6, 207, true)), Some("SkylakeX"));
        // Zen 5: the environment's Haswell.
        assert_eq!(kernel_for(&cpu(Vendor::Amd, 26, 2, true)), Some("Haswell"));
        // Zen 4 (0.3.21 itself picks Cooperlake, so the binaries keep that).
        assert_eq!(kernel_for(&cpu(Vendor::Amd, 25, 17, true)), Some("SkylakeX"));
        assert_eq!(
            kernel_to_force(false, Some(&cpu(Vendor::Amd, 25, 17, true)), Some("Cooperlake")),
            None
        );
        // Zen 2/3 and a Haswell-era Intel.
        assert_eq!(kernel_for(&cpu(Vendor::Amd, 23, 49, false)), Some("Zen"));
        assert_eq!(kernel_for(&cpu(Vendor::Intel, 6, 63, false)), Some("Haswell"));
    }

    #[test]
    fn family_and_model_as_the_manuals_define_them() {
        // Emerald Rapids: family 6, extended model 0xC, model 0xF → 207.
        assert_eq!(family_and_model(0x000C_06F2), (6, 207));
        // Zen 4 (EPYC 9004): base family 0xF + extended 0xA = 25, model 0x11 = 17.
        assert_eq!(family_and_model(0x00A1_0F11), (25, 17));
        // Zen 5: extended family 0xB → 26.
        assert_eq!(family_and_model(0x00B0_0F20), (26, 2));
        // A family-5 part keeps its base model.
        assert_eq!(family_and_model(0x0000_0543), (5, 4));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn this_cpu_is_read() {
        let Some(cpu) = Cpu::current() else { return };
        assert!(cpu.family >= 6, "{cpu:?}");
        // The flags agree with the standard library's detection.
        assert_eq!(cpu.avx2, std::arch::is_x86_feature_detected!("avx2"));
        if let Some(k) = kernel_for(&cpu) {
            assert!(cpu_has(&cpu, kernel_needs(k).expect("a listed kernel")));
        }
    }
}
