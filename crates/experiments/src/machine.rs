//! The machine a report was made on: CPU description, peak resident memory,
//! the DGEMM rate the solvers are compared with, the UTC time, and a scoped
//! OpenBLAS thread count (and the same as the reproductions' capability,
//! [`OpenBlasThreads`]). The reproductions (`papers`) and the benchmark
//! reports (`benches`) both use these, so every report describes its machine
//! the same way.

use std::hint::black_box;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use linalg_core::kernels::{self, Flops, Op, Owned};
use linalg_core::threads::{blas_threads, set_blas_threads};

/// The CPU model (`/proc/cpuinfo`, "unknown CPU" elsewhere).
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// The cores this process may use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `"<CPU model>, <cores> cores"`: the reproductions' provenance line.
pub fn cpu_description() -> String {
    format!("{}, {} cores", cpu_model(), cores())
}

/// Total memory (`/proc/meminfo`) in bytes, if known.
pub fn total_memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = info.lines().next()?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// CPU, cores, memory, the BLAS library with its build and kernel, who
/// chose the kernel ([`linalg_core::blas_kernel::KernelSource`]), and the
/// OpenBLAS environment: the benchmark reports' machine line.
pub fn description_with_blas() -> String {
    let mem = total_memory_bytes().map_or_else(
        || "?".to_string(),
        |b| format!("{:.0} GiB", b as f64 / (1u64 << 30) as f64),
    );
    let env = |k: &str| std::env::var(k).unwrap_or_else(|_| "unset".into());
    format!(
        "{}, {} cores, {mem} RAM; {} (system; kernel chosen by: {}); OPENBLAS_CORETYPE={}, OPENBLAS_L2_SIZE={}",
        cpu_model(),
        cores(),
        linalg_core::blas_info::BlasInfo::current(),
        linalg_core::blas_kernel::KernelSource::current().as_str(),
        env("OPENBLAS_CORETYPE"),
        env("OPENBLAS_L2_SIZE")
    )
}

/// Peak resident memory of this process since start or the last
/// [`reset_peak_rss`] (`VmHWM`, Linux), in bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resets the peak that [`peak_rss_bytes`] reports to the current resident
/// memory (`/proc/self/clear_refs`; no effect where it is not available).
pub fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// DGEMM rate (GFLOP/s) of an `n×n` by `n×n` product at the current
/// OpenBLAS thread count: best of `reps` timed runs after one warm-up run.
/// The peak the solvers' rates are compared with.
pub fn dgemm_peak_gflops(n: usize, reps: usize) -> f64 {
    let a = Owned::from_fn(n, n, |i, j| ((i * 7 + j * 3) % 11) as f64 / 11.0 - 0.5);
    let mut c = Owned::zeros(n, n);
    let mut best = f64::INFINITY;
    for rep in 0..=reps.max(1) {
        let t = Instant::now();
        kernels::matmul(&mut Flops::default(), a.as_ref(), Op::N, a.as_ref(), Op::N, c.as_mut());
        black_box(c.at(0, 0));
        if rep > 0 {
            best = best.min(t.elapsed().as_secs_f64());
        }
    }
    2.0 * (n as f64).powi(3) / best / 1e9
}

/// The current UTC time as `YYYY-MM-DD HH:MM`.
pub fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    utc_from_unix(secs)
}

/// `YYYY-MM-DD HH:MM` (UTC) of a Unix time in seconds.
pub fn utc_from_unix(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", rem / 3600, (rem % 3600) / 60)
}

/// Sets the OpenBLAS thread count for as long as it lives and restores the
/// previous count when dropped, so that a library function run with the
/// caller's thread count leaves the process as it found it.
#[derive(Debug)]
pub struct ScopedBlasThreads {
    before: usize,
}

impl ScopedBlasThreads {
    /// Use `n` OpenBLAS threads (at least 1) until the guard is dropped.
    pub fn new(n: usize) -> Self {
        let before = blas_threads();
        set_blas_threads(n);
        Self { before }
    }
}

impl Drop for ScopedBlasThreads {
    fn drop(&mut self) {
        set_blas_threads(self.before);
    }
}

/// OpenBLAS's thread count as the capability the reproductions set each
/// cell's count through ([`crate::papers::BlasThreads`]); `bin/reproduce.rs`
/// hands it to them.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenBlasThreads;

impl crate::papers::BlasThreads for OpenBlasThreads {
    fn get(&self) -> usize {
        blas_threads()
    }

    fn set(&self, n: usize) {
        set_blas_threads(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known instants: the epoch, a leap day, and the end of a century year
    /// that is not a leap year.
    #[test]
    fn utc_dates_of_known_instants() {
        assert_eq!(utc_from_unix(0), "1970-01-01 00:00");
        // 2024-02-29 12:34 UTC = 1709210040.
        assert_eq!(utc_from_unix(1_709_210_040), "2024-02-29 12:34");
        // 2100-03-01 00:00 UTC = 4107542400 (2100 is not a leap year).
        assert_eq!(utc_from_unix(4_107_542_400), "2100-03-01 00:00");
        assert_eq!(utc_from_unix(4_107_542_400 - 60), "2100-02-28 23:59");
    }

    /// The guard restores the count it found.
    #[test]
    fn scoped_threads_restore_the_previous_count() {
        let before = blas_threads();
        let other = if before == 1 { 2 } else { 1 };
        {
            let _g = ScopedBlasThreads::new(other);
            assert_eq!(blas_threads(), other);
        }
        assert_eq!(blas_threads(), before);
    }

    #[test]
    fn machine_facts_are_plausible() {
        assert!(cpu_description().ends_with(" cores"));
        assert!(dgemm_peak_gflops(32, 1) > 0.0);
        if cfg!(target_os = "linux") {
            assert!(peak_rss_bytes().is_some_and(|b| b > 0));
        }
    }
}
