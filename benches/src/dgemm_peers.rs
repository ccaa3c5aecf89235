//! DGEMM with the project's BLAS beside the other libraries present on the
//! machine (issue 37: floors that cannot hide a slow kernel).
//!
//! The reports compare each kernel's rate with the DGEMM rate of the BLAS
//! the project links. When that BLAS runs a poor kernel (Debian's OpenBLAS
//! 0.3.21 on a CPU it does not know runs its generic Prescott kernel), every
//! floor computed from it is low too, and a slow kernel looks fine. So the
//! reports also measure DGEMM, with the same `n`, thread count and matrix,
//! in:
//!
//! - **the project's BLAS** ([`experiments::machine::dgemm_peak_gflops`]);
//! - **numpy's BLAS**, through `benches/numpy_dgemm.py` run by
//!   [`crate::python_program`] (`cargo xtask bench` makes it a Python with
//!   numpy); its threads set by `OPENBLAS_NUM_THREADS` and, when installed,
//!   threadpoolctl;
//! - **faer** (`matmul` with `Par::Seq` on 1 thread, `Par::rayon(t)` on
//!   `t`), when the `benches` package is built with its `faer` feature
//!   (`cargo xtask bench` builds it so);
//!
//! and state each kernel's rate as a fraction of the best of them
//! ([`DgemmPeers::best`], [`fraction_of_best`]). A library that cannot run
//! is a row saying why ([`PeerRow::rates`] is `Err`).
//!
//! The product is `C = A·A`, `A[i, j] = ((7i + 3j) mod 11) / 11 − 0.5`
//! (`n×n`), into a preallocated `C`, best of `reps` after one untimed run,
//! in every library.

use std::fmt::Write as _;

use experiments::machine::{dgemm_peak_gflops, ScopedBlasThreads};
use linalg_core::blas_info::BlasInfo;

/// The Python script that measures numpy's DGEMM (a file of this package).
pub const NUMPY_SCRIPT: &str = "numpy_dgemm.py";

/// One library's DGEMM rates.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerRow {
    /// The library as the table names it (`numpy 2.4.6`, `faer`, …).
    pub library: String,
    /// Its version and kernel (`OpenBLAS 0.3.21, kernel Cooperlake`), as far
    /// as known; empty when it did not run.
    pub detail: String,
    /// Whether this is the project's own BLAS.
    pub ours: bool,
    /// GFLOP/s on each of [`DgemmPeers::threads`], in that order; or why the
    /// library was not run.
    pub rates: Result<Vec<f64>, String>,
}

impl PeerRow {
    /// The rate on the `index`-th thread count, when it ran.
    fn rate(&self, index: usize) -> Option<f64> {
        self.rates
            .as_ref()
            .ok()?
            .get(index)
            .copied()
            .filter(|r| r.is_finite() && *r > 0.0)
    }
}

/// DGEMM of every library on one size and a few thread counts.
#[derive(Clone, Debug, PartialEq)]
pub struct DgemmPeers {
    /// The order of the square product.
    pub n: usize,
    /// Timed runs per library and thread count (the best is kept).
    pub reps: usize,
    /// The thread counts measured, in the order of [`PeerRow::rates`].
    pub threads: Vec<usize>,
    /// The project's BLAS first, then numpy, then faer.
    pub rows: Vec<PeerRow>,
}

/// `rate / best`, when both are positive finite numbers.
pub fn fraction_of_best(rate: f64, best: Option<f64>) -> Option<f64> {
    let best = best?;
    (rate.is_finite() && rate >= 0.0 && best.is_finite() && best > 0.0).then(|| rate / best)
}

/// A fraction as a table cell: `94%`, or `—` when unknown.
pub fn percent_cell(fraction: Option<f64>) -> String {
    fraction.map_or_else(|| "—".to_string(), |f| format!("{:.0}%", 100.0 * f))
}

impl DgemmPeers {
    /// Measures every library on an `n×n` product, on each of `threads`
    /// (BLAS or rayon threads), best of `reps`: the project's BLAS, numpy's
    /// (when a Python with numpy runs), faer (with the `faer` feature).
    /// Progress goes to standard error. The project's BLAS thread count is
    /// restored afterwards.
    pub fn measure(n: usize, threads: &[usize], reps: usize) -> Self {
        let threads: Vec<usize> = threads.iter().map(|&t| t.max(1)).collect();
        let reps = reps.max(1);
        let blas = BlasInfo::current();
        let mut ours = vec![];
        let mut numpy: Result<(Vec<f64>, NumpyDgemm), String> = Ok((vec![], NumpyDgemm::default()));
        let mut faer: Result<Vec<f64>, String> = faer_available().map(|()| vec![]);
        for &t in &threads {
            eprintln!("dgemm-peers: n = {n}, {t} thread(s): the project's BLAS…");
            {
                let _guard = ScopedBlasThreads::new(t);
                ours.push(dgemm_peak_gflops(n, reps));
            }
            if let Ok((mut rates, _)) = numpy {
                eprintln!("dgemm-peers: n = {n}, {t} thread(s): numpy…");
                let args = [n, t, reps].map(|v| v.to_string());
                numpy = crate::run_python(NUMPY_SCRIPT, &args, t)
                    .and_then(|out| parse_numpy_line(&out))
                    .map(|line| {
                        rates.push(line.gflops);
                        (rates, line)
                    });
            }
            if let Ok(rates) = &mut faer {
                eprintln!("dgemm-peers: n = {n}, {t} thread(s): faer…");
                rates.push(faer_gflops(n, t, reps));
            }
        }
        let mut rows = vec![PeerRow {
            library: "this project (`linalg_core`, system OpenBLAS)".into(),
            detail: blas_detail(&blas.config, &blas.kernel),
            ours: true,
            rates: Ok(ours),
        }];
        rows.push(match numpy {
            Ok((rates, info)) => PeerRow {
                library: format!("numpy {} (`{}`)", info.numpy, info.python),
                detail: format!("{}, kernel {}", info.blas, info.kernel),
                ours: false,
                rates: Ok(rates),
            },
            Err(why) => not_run("numpy", why),
        });
        rows.push(match faer {
            Ok(rates) => PeerRow {
                library: "faer".into(),
                detail: faer_detail(),
                ours: false,
                rates: Ok(rates),
            },
            Err(why) => not_run("faer", why),
        });
        for row in &rows {
            match &row.rates {
                Ok(r) => eprintln!("dgemm-peers: {}: {r:.1?} GFLOP/s on {threads:?} thread(s)", row.library),
                Err(why) => eprintln!("dgemm-peers: {}: not run: {why}", row.library),
            }
        }
        DgemmPeers { n, reps, threads, rows }
    }

    /// The position of `threads` in [`DgemmPeers::threads`].
    fn index(&self, threads: usize) -> Option<usize> {
        self.threads.iter().position(|&t| t == threads.max(1))
    }

    /// The project's DGEMM rate on `threads`, if measured.
    pub fn ours(&self, threads: usize) -> Option<f64> {
        let i = self.index(threads)?;
        self.rows.iter().find(|r| r.ours)?.rate(i)
    }

    /// The fastest library on `threads`, the project's included, with its
    /// rate: what every kernel is compared with.
    pub fn best(&self, threads: usize) -> Option<(&PeerRow, f64)> {
        self.best_where(threads, |_| true)
    }

    /// The fastest library on `threads` other than the project's.
    pub fn best_other(&self, threads: usize) -> Option<(&PeerRow, f64)> {
        self.best_where(threads, |r| !r.ours)
    }

    fn best_where(&self, threads: usize, keep: impl Fn(&PeerRow) -> bool) -> Option<(&PeerRow, f64)> {
        let i = self.index(threads)?;
        self.rows
            .iter()
            .filter(|r| keep(r))
            .filter_map(|r| Some((r, r.rate(i)?)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The best rate on `threads` ([`DgemmPeers::best`]), when any library
    /// ran on it.
    pub fn best_rate(&self, threads: usize) -> Option<f64> {
        self.best(threads).map(|(_, r)| r)
    }

    /// The Markdown section: `### DGEMM beside the other libraries on this
    /// machine`, how it was measured, the table (library, version and
    /// kernel, GFLOP/s and % of the best on each thread count; a library
    /// that did not run says why), and the project's DGEMM as a fraction of
    /// the best other library.
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "### DGEMM beside the other libraries on this machine\n");
        let _ = writeln!(
            md,
            "`C = A·A`, n = {}, the same matrix in every library, best of {} after one untimed run; numpy through \
             `benches/numpy_dgemm.py` (its threads set by `OPENBLAS_NUM_THREADS` and threadpoolctl), faer's \
             `matmul` with `Par::Seq` on 1 thread and `Par::rayon(t)` on t. % of the best: of the fastest \
             library on the same thread count, this project's included.\n",
            self.n, self.reps
        );
        let mut head = "| library | version / kernel |".to_string();
        let mut rule = "|---|---|".to_string();
        for &t in &self.threads {
            let _ = write!(
                head,
                " GFLOP/s, {} | % of the best, {} |",
                threads_label(t),
                threads_label(t)
            );
            rule.push_str("---:|---:|");
        }
        let _ = writeln!(md, "{head}\n{rule}");
        let best: Vec<Option<f64>> = self.threads.iter().map(|&t| self.best_rate(t)).collect();
        for row in &self.rows {
            let _ = writeln!(md, "{}", row_cells(row, &best));
        }
        for &t in &self.threads {
            let line = match (self.ours(t), self.best_other(t)) {
                (Some(ours), Some((other, rate))) => format!(
                    "- {}: the project's DGEMM is **{}** of the best other library ({}, {rate:.1} GFLOP/s).",
                    threads_label(t),
                    percent_cell(fraction_of_best(ours, Some(rate))),
                    other.library
                ),
                (Some(_), None) => format!("- {}: no other library ran.", threads_label(t)),
                (None, _) => format!("- {}: the project's DGEMM was not measured.", threads_label(t)),
            };
            let _ = writeln!(md, "{}{line}", if t == self.threads[0] { "\n" } else { "" });
        }
        md
    }
}

/// One row of [`DgemmPeers::markdown`]'s table, given the best rate on each
/// thread count: the library in bold when it is the project's; a library
/// that did not run is `not run: <why>` with dashes for its numbers.
pub fn row_cells(row: &PeerRow, best: &[Option<f64>]) -> String {
    let name = if row.ours {
        format!("**{}**", row.library)
    } else {
        row.library.clone()
    };
    match &row.rates {
        Ok(_) => {
            let mut s = format!("| {name} | {} |", row.detail);
            for (i, b) in best.iter().enumerate() {
                match row.rate(i) {
                    Some(r) => {
                        let _ = write!(s, " {r:.1} | {} |", percent_cell(fraction_of_best(r, *b)));
                    }
                    None => s.push_str(" — | — |"),
                }
            }
            s
        }
        Err(why) => {
            let mut s = format!("| {name} | not run: {} |", why.replace('|', "\\|"));
            for _ in best {
                s.push_str(" — | — |");
            }
            s
        }
    }
}

/// `1 thread`, `2 threads`.
pub fn threads_label(t: usize) -> String {
    format!("{t} thread{}", if t == 1 { "" } else { "s" })
}

/// A row for a library that did not run.
fn not_run(library: &str, why: String) -> PeerRow {
    PeerRow {
        library: library.into(),
        detail: String::new(),
        ours: false,
        rates: Err(why),
    }
}

/// `OpenBLAS 0.3.21, kernel Cooperlake` from OpenBLAS's configuration
/// string (its first two words: library and version) and kernel name.
pub fn blas_detail(config: &str, kernel: &str) -> String {
    let short: Vec<&str> = config.split_whitespace().take(2).collect();
    let library = if short.is_empty() {
        "OpenBLAS".to_string()
    } else {
        short.join(" ")
    };
    let kernel = if kernel.is_empty() { "?" } else { kernel };
    format!("{library}, kernel {kernel}")
}

/// What `benches/numpy_dgemm.py` printed when it ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NumpyDgemm {
    /// The best rate, GFLOP/s.
    pub gflops: f64,
    /// numpy's version.
    pub numpy: String,
    /// Its BLAS library and version (`OpenBLAS 0.3.31.188.0`).
    pub blas: String,
    /// The kernel set that BLAS runs (`SkylakeX`), or `?`.
    pub kernel: String,
    /// The interpreter that ran the script.
    pub python: String,
}

/// Reads the JSON line `benches/numpy_dgemm.py` prints (the last non-empty
/// line of its output).
///
/// # Errors
/// Why numpy was not run: the script's `skipped` or `error` message, or a
/// line without a positive rate.
pub fn parse_numpy_line(out: &str) -> Result<NumpyDgemm, String> {
    let line = out.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    for key in ["skipped", "error"] {
        if let Some(why) = crate::json_field(line, key) {
            return Err(why.to_string());
        }
    }
    let gflops = crate::json_number(line, "gflops")
        .filter(|g| g.is_finite() && *g > 0.0)
        .ok_or_else(|| format!("{NUMPY_SCRIPT} printed no rate: {line:?}"))?;
    let text = |key: &str| crate::json_field(line, key).unwrap_or("?").to_string();
    Ok(NumpyDgemm {
        gflops,
        numpy: text("numpy"),
        blas: text("blas"),
        kernel: text("kernel"),
        python: text("python"),
    })
}

/// The version of `name` that a `Cargo.lock` pins (the first package of
/// that name).
pub fn locked_version<'a>(lock: &'a str, name: &str) -> Option<&'a str> {
    let needle = format!("name = \"{name}\"");
    let mut lines = lock.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line == needle {
            let version = lines.next()?.strip_prefix("version = \"")?;
            return version.strip_suffix('"');
        }
    }
    None
}

/// `Ok` when this build measures faer; else why not.
fn faer_available() -> Result<(), String> {
    if cfg!(feature = "faer") {
        Ok(())
    } else {
        Err("the `benches` package was built without its `faer` feature (`--features faer`)".into())
    }
}

/// faer's version (from the workspace's `Cargo.lock`) and the instruction
/// set its x86-64 matmul kernel picks at run time, as faer picks it.
#[cfg(feature = "faer")]
fn faer_detail() -> String {
    let lock = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock"));
    let version = locked_version(lock, "faer").unwrap_or("0.23");
    #[cfg(target_arch = "x86_64")]
    let kernel = if std::arch::is_x86_feature_detected!("avx512f") {
        "AVX-512"
    } else if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        "AVX2+FMA"
    } else {
        "generic"
    };
    #[cfg(not(target_arch = "x86_64"))]
    let kernel = "portable SIMD";
    format!("faer {version}, kernel {kernel}")
}

#[cfg(not(feature = "faer"))]
fn faer_detail() -> String {
    String::new()
}

/// faer's DGEMM rate on an `n×n` product with `threads` threads (`Par::Seq`
/// for 1, else `Par::rayon(threads)` on rayon's global pool), best of `reps`
/// after one untimed run.
#[cfg(feature = "faer")]
fn faer_gflops(n: usize, threads: usize, reps: usize) -> f64 {
    use faer::linalg::matmul::matmul;
    use faer::{Accum, Mat, Par};
    let a = Mat::<f64>::from_fn(n, n, |i, j| ((i * 7 + j * 3) % 11) as f64 / 11.0 - 0.5);
    let mut c = Mat::<f64>::zeros(n, n);
    let par = if threads <= 1 { Par::Seq } else { Par::rayon(threads) };
    let mut best = f64::INFINITY;
    for rep in 0..=reps.max(1) {
        let t = std::time::Instant::now();
        matmul(c.as_mut(), Accum::Replace, a.as_ref(), a.as_ref(), 1.0, par);
        std::hint::black_box(c[(0, 0)]);
        if rep > 0 {
            best = best.min(t.elapsed().as_secs_f64());
        }
    }
    2.0 * (n as f64).powi(3) / best / 1e9
}

#[cfg(not(feature = "faer"))]
fn faer_gflops(_n: usize, _threads: usize, _reps: usize) -> f64 {
    f64::NAN
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peers() -> DgemmPeers {
        DgemmPeers {
            n: 2048,
            reps: 5,
            threads: vec![1, 2],
            rows: vec![
                PeerRow {
                    library: "this project".into(),
                    detail: "OpenBLAS 0.3.21, kernel Prescott".into(),
                    ours: true,
                    rates: Ok(vec![12.0, 23.0]),
                },
                PeerRow {
                    library: "numpy 2.4.6".into(),
                    detail: "OpenBLAS 0.3.31, kernel SkylakeX".into(),
                    ours: false,
                    rates: Ok(vec![55.0, 110.0]),
                },
                not_run("faer", "built without `faer`".into()),
            ],
        }
    }

    #[test]
    fn numpy_line_parsed() {
        let out = "warming up\n{\"gflops\": 108.25, \"n\": 4000, \"threads\": 2, \"threads_seen\": 2, \
                   \"numpy\": \"2.4.6\", \"blas\": \"OpenBLAS 0.3.31.188.0\", \"kernel\": \"SkylakeX\", \
                   \"info_from\": \"threadpoolctl\", \"python\": \"/v/bin/python\"}\n";
        let line = parse_numpy_line(out).unwrap();
        assert_eq!(line.gflops, 108.25);
        assert_eq!(line.numpy, "2.4.6");
        assert_eq!(line.blas, "OpenBLAS 0.3.31.188.0");
        assert_eq!(line.kernel, "SkylakeX");
        assert_eq!(line.python, "/v/bin/python");
    }

    #[test]
    fn numpy_skipped_or_broken_is_a_reason() {
        let skipped = r#"{"skipped": "numpy not installed (/usr/bin/python3: No module named 'numpy')"}"#;
        assert_eq!(
            parse_numpy_line(skipped),
            Err("numpy not installed (/usr/bin/python3: No module named 'numpy')".into())
        );
        assert_eq!(parse_numpy_line(r#"{"error": "boom"}"#), Err("boom".into()));
        assert!(parse_numpy_line("").unwrap_err().contains("printed no rate"));
        assert!(parse_numpy_line(r#"{"gflops": NaN}"#).is_err());
        assert!(parse_numpy_line(r#"{"gflops": 0}"#).is_err());
    }

    #[test]
    fn fractions_of_the_best() {
        assert_eq!(fraction_of_best(50.0, Some(100.0)), Some(0.5));
        assert_eq!(fraction_of_best(50.0, None), None);
        assert_eq!(fraction_of_best(50.0, Some(0.0)), None);
        assert_eq!(fraction_of_best(f64::NAN, Some(10.0)), None);
        assert_eq!(percent_cell(Some(0.936)), "94%");
        assert_eq!(percent_cell(None), "—");

        let p = peers();
        assert_eq!(p.ours(2), Some(23.0));
        assert_eq!(p.ours(3), None);
        let (best, rate) = p.best(2).unwrap();
        assert_eq!((best.library.as_str(), rate), ("numpy 2.4.6", 110.0));
        assert_eq!(p.best_other(1).map(|(_, r)| r), Some(55.0));
        // The project ahead of every other library is its own best.
        let mut fast = p.clone();
        fast.rows[0].rates = Ok(vec![60.0, 120.0]);
        assert!(fast.best(2).unwrap().0.ours);
        assert_eq!(fast.best_other(2).map(|(_, r)| r), Some(110.0));
        // Nothing ran on a thread count: no best.
        let mut none = p.clone();
        none.rows.retain(|r| r.rates.is_err());
        assert_eq!(none.best_rate(1), None);
    }

    #[test]
    fn table_rows_and_not_run() {
        let p = peers();
        let best = [Some(55.0), Some(110.0)];
        assert_eq!(
            row_cells(&p.rows[0], &best),
            "| **this project** | OpenBLAS 0.3.21, kernel Prescott | 12.0 | 22% | 23.0 | 21% |"
        );
        assert_eq!(
            row_cells(&p.rows[1], &best),
            "| numpy 2.4.6 | OpenBLAS 0.3.31, kernel SkylakeX | 55.0 | 100% | 110.0 | 100% |"
        );
        assert_eq!(
            row_cells(&p.rows[2], &best),
            "| faer | not run: built without `faer` | — | — | — | — |"
        );
        let md = p.markdown();
        assert!(md.contains(
            "| library | version / kernel | GFLOP/s, 1 thread | % of the best, 1 thread | GFLOP/s, 2 threads |"
        ));
        assert!(md.contains(
            "- 2 threads: the project's DGEMM is **21%** of the best other library (numpy 2.4.6, 110.0 GFLOP/s)."
        ));
        assert!(md.contains("not run: built without `faer`"));
    }

    #[test]
    fn blas_detail_and_locked_versions() {
        assert_eq!(
            blas_detail(
                "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Cooperlake MAX_THREADS=64",
                "Cooperlake"
            ),
            "OpenBLAS 0.3.21, kernel Cooperlake"
        );
        assert_eq!(blas_detail("", ""), "OpenBLAS, kernel ?");
        let lock = "[[package]]\nname = \"faer-traits\"\nversion = \"0.23.1\"\n\n[[package]]\nname = \"faer\"\nversion = \"0.23.2\"\n";
        assert_eq!(locked_version(lock, "faer"), Some("0.23.2"));
        assert_eq!(locked_version(lock, "faer-traits"), Some("0.23.1"));
        assert_eq!(locked_version(lock, "gemm"), None);
    }
}
