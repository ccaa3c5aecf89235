//! Shared pieces of the benchmarks: problem generators, the machine's
//! measured floors (DGEMM peak, memory-read bandwidth), and the
//! memory-traffic model of the single-column appends; and DGEMM beside the
//! other libraries on the machine ([`dgemm_peers`]).
//!
//! Used by the criterion bench `ridge_append` and by the `perf-report`
//! binary behind `cargo xtask bench`.

#![warn(missing_docs)]

pub mod dgemm_peers;

use std::hint::black_box;
use std::time::{Duration, Instant};

use linalg_core::ridge::{IncrementalRidge, Strategy};
use ndarray::{Array2, ShapeBuilder};

/// One benchmark size: `K` samples, `n` nodes before the append, `q` new
/// columns, `M` outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Samples.
    pub k: usize,
    /// Nodes before the append.
    pub n: usize,
    /// Columns appended at once.
    pub q: usize,
    /// Outputs.
    pub m: usize,
}

impl Size {
    /// The issue's sizes: `(60000, 2000, 1)` and `(20000, 4000, 500)`, M = 10
    /// (MNIST's classes).
    pub const FULL: [Size; 2] = [
        Size {
            k: 60_000,
            n: 2_000,
            q: 1,
            m: 10,
        },
        Size {
            k: 20_000,
            n: 4_000,
            q: 500,
            m: 10,
        },
    ];
    /// Small stand-ins with the same shape ratios, for smoke runs.
    pub const QUICK: [Size; 2] = [
        Size {
            k: 6_000,
            n: 500,
            q: 1,
            m: 10,
        },
        Size {
            k: 4_000,
            n: 800,
            q: 100,
            m: 10,
        },
    ];

    /// `K=…, n=…, q=…`.
    pub fn label(&self) -> String {
        format!("K={}, n={}, q={}", self.k, self.n, self.q)
    }
}

/// The ridge parameter used in the benchmarks (timing does not depend on it;
/// it keeps every strategy, Chol-1 and Exg-E included, well inside its
/// stable range on random columns).
pub const LAMBDA: f64 = 1e-3;

/// SplitMix64 uniform numbers on [-1, 1): a fast seeded source for large
/// matrices (column-major fill).
pub fn uniform_matrix(rows: usize, cols: usize, seed: u64) -> Array2<f64> {
    let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut data = Vec::with_capacity(rows * cols);
    for _ in 0..rows * cols {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        data.push((z >> 11) as f64 / (1u64 << 52) as f64 - 1.0);
    }
    Array2::from_shape_vec((rows, cols).f(), data).expect("rows*cols entries")
}

/// A solver of `strategy` on a random `K×n` problem, with room reserved for
/// `extra` more nodes (so the timed appends do not reallocate).
pub fn prepared(strategy: Strategy, size: Size, extra: usize) -> Box<dyn IncrementalRidge> {
    prepared_with(strategy, size, extra, linalg_core::Precision::F64)
}

/// As [`prepared`], with `A` stored in `precision`.
pub fn prepared_with(
    strategy: Strategy,
    size: Size,
    extra: usize,
    precision: linalg_core::Precision,
) -> Box<dyn IncrementalRidge> {
    let a = uniform_matrix(size.k, size.n, 1);
    let y = uniform_matrix(size.k, size.m, 2);
    let mut s = strategy
        .build(a.view(), y.view(), LAMBDA, precision)
        .unwrap_or_else(|e| panic!("benchmark setup of {strategy} failed: {e}"));
    s.reserve(extra);
    s
}

/// New columns for an append.
pub fn new_columns(size: Size, seed: u64) -> Array2<f64> {
    uniform_matrix(size.k, size.q, 100 + seed)
}

/// Median of a non-empty sample.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        0.5 * (xs[n / 2 - 1] + xs[n / 2])
    }
}

/// Time to read `data` once from memory (best of `reps`) with `threads`
/// threads each summing a contiguous share, with 8 independent accumulators
/// so the loop runs at the load bandwidth rather than at the latency of one
/// floating-point add chain.
pub fn read_once_seconds(data: &[f64], reps: usize, threads: usize) -> f64 {
    let threads = threads.max(1);
    let share = data.len().div_ceil(threads).max(1);
    let mut best = f64::INFINITY;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let total: f64 = std::thread::scope(|scope| {
            let handles: Vec<_> = data.chunks(share).map(|part| scope.spawn(move || sum8(part))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
        });
        black_box(total);
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

/// As [`read_once_seconds`] on the calling thread, with no thread started
/// per repetition: for data small enough (a few MB) that starting a thread
/// would weigh in the time.
pub fn read_here_seconds(data: &[f64], reps: usize) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        black_box(sum8(black_box(data)));
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

/// The sum of `part` (a multiple of 8 long; the tail is left out) with 8
/// independent accumulators.
fn sum8(part: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    for chunk in part.chunks_exact(8) {
        for i in 0..8 {
            acc[i] += chunk[i];
        }
    }
    acc.iter().sum()
}

/// One timed append from a copy of `base` (the copy is not timed). Returns
/// the elapsed time and the flops the append reported.
pub fn time_one_append(base: &dyn IncrementalRidge, h: &Array2<f64>) -> (Duration, u64) {
    let mut s = base.clone_box();
    let t = Instant::now();
    s.append(h.view()).unwrap_or_else(|e| panic!("append failed: {e}"));
    let dt = t.elapsed();
    (dt, s.last_flops())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_generators() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        let m = uniform_matrix(50, 3, 9);
        assert!(m.iter().all(|v| (-1.0..1.0).contains(v)));
        assert!(m.mapv(f64::abs).sum() > 10.0);
    }

    #[test]
    fn timing_helpers_run_on_a_small_problem() {
        let size = Size {
            k: 200,
            n: 20,
            q: 3,
            m: 2,
        };
        for s in Strategy::ALL {
            let base = prepared(s, size, 3);
            let (dt, flops) = time_one_append(base.as_ref(), &new_columns(size, 0));
            assert!(dt.as_secs_f64() >= 0.0 && flops > 0, "{s}");
            assert_eq!(base.nodes(), 20, "the base state is untouched");
        }
        assert!(read_once_seconds(&vec![1.0; 1 << 12], 2, 1) >= 0.0);
        assert!(read_once_seconds(&vec![1.0; 1 << 12], 2, 2) >= 0.0);
        assert!(read_here_seconds(&vec![1.0; 1 << 12], 2) >= 0.0);
    }
}

/// One timed job of a [`round_robin`]: runs once and returns its seconds.
pub type Job<'a> = Box<dyn FnMut() -> Result<f64, Box<dyn std::error::Error>> + 'a>;

/// Median and best seconds of every job over `reps` rounds, each round
/// running every job once in turn, after one untimed round. Interleaved
/// rather than job after job, so that a slow spell of the machine (a
/// neighbour's burst) costs every job one repetition instead of one job
/// most of its repetitions.
pub fn round_robin(reps: usize, jobs: &mut [Job<'_>]) -> Result<Vec<(f64, f64)>, Box<dyn std::error::Error>> {
    let mut secs = vec![vec![]; jobs.len()];
    for round in 0..=reps {
        for (job, s) in jobs.iter_mut().zip(&mut secs) {
            let t = job()?;
            if round > 0 {
                s.push(t);
            }
        }
    }
    Ok(secs
        .into_iter()
        .map(|v| {
            let best = v.iter().copied().fold(f64::INFINITY, f64::min);
            (median(v), best)
        })
        .collect())
}

/// The wall time of `f` as a [`Job`]'s result.
pub fn timed(f: impl FnOnce()) -> Result<f64, Box<dyn std::error::Error>> {
    let t = std::time::Instant::now();
    f();
    Ok(t.elapsed().as_secs_f64())
}

/// The head of a Markdown report: its `## title`, then the machine, the UTC
/// date and the command that wrote it (`cargo xtask bench [--quick]`, the
/// `binary` and what `detail` adds).
pub fn report_header(title: &str, binary: &str, quick: bool, detail: &str) -> String {
    use experiments::machine::{description_with_blas, utc_now};
    format!(
        "## {title}\n\n- Machine: {}\n- Date (UTC): {}\n- Command: `cargo xtask bench{}` (release build, `{binary}`); {detail}\n",
        description_with_blas(),
        utc_now(),
        if quick { " --quick" } else { "" },
    )
}

/// The start of every report binary's `main`: measure the kernel users get
/// (`nn` starts again with this CPU's kernel when OpenBLAS fell back to a
/// generic one, issue 37, and so does the report), then parse the flags.
pub fn start<A: clap::Parser>() -> A {
    if let Err(e) = linalg_core::blas_kernel::reexec_with_chosen_kernel() {
        eprintln!("warning: could not start again with a kernel for this CPU ({e})");
    }
    A::parse()
}

/// The end of a report binary's `main`: on an error, `name: error` on stderr
/// and exit code 1.
pub fn finish(name: &str, result: Result<(), Box<dyn std::error::Error>>) {
    if let Err(e) = result {
        eprintln!("{name}: {e}");
        std::process::exit(1);
    }
}

/// The end of a report binary's `run`: the Markdown `md` on stdout and, when
/// `--out` gave a file, into it (then `name: wrote FILE` on stderr).
///
/// # Errors
/// `cannot write FILE: …` when the file cannot be written.
pub fn write_report(name: &str, md: &str, out: Option<&std::path::Path>) -> Result<(), Box<dyn std::error::Error>> {
    println!("{md}");
    if let Some(path) = out {
        std::fs::write(path, md).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("{name}: wrote {}", path.display());
    }
    Ok(())
}

/// The flags every report binary takes (`cargo xtask bench` passes them).
#[derive(Clone, Debug, clap::Args)]
pub struct ReportArgs {
    /// Smaller sizes, for a quick look.
    #[arg(long)]
    pub quick: bool,
    /// Also write the Markdown report to this file.
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
    /// Repetitions per timing (the median and the best are reported).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: Option<u32>,
}

impl ReportArgs {
    /// `--reps`, or `default` when it was not given.
    pub fn reps_or(&self, default: usize) -> usize {
        self.reps.map_or(default, |r| r as usize)
    }
}

/// The workspace's `target/` directory (`$CARGO_TARGET_DIR` when set), for
/// the files a report hands to a Python script.
pub fn target_dir() -> std::path::PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => dir.into(),
        _ => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
    }
}

/// The Python interpreter the reports run: `$PYTHON` when set, else
/// `python3` from `PATH` (`cargo xtask bench` puts a project virtual
/// environment's `bin/` first on `PATH` when it finds one).
pub fn python_program() -> std::ffi::OsString {
    match std::env::var_os("PYTHON") {
        Some(p) if !p.is_empty() => p,
        _ => "python3".into(),
    }
}

/// Runs [`python_program`] on `script` (a file of this package) with
/// `args`, with `threads` OpenBLAS/OpenMP/MKL threads, and returns its
/// standard output, trimmed: the JSON object the comparison scripts print.
///
/// # Errors
/// A message naming the interpreter when it cannot be started, or with the
/// last line of its standard error when it fails.
pub fn run_python(script: &str, args: &[String], threads: usize) -> Result<String, String> {
    let python = python_program();
    let mut cmd = std::process::Command::new(&python);
    cmd.arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(script))
        .args(args);
    for var in ["OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"] {
        cmd.env(var, threads.to_string());
    }
    let output = cmd
        .output()
        .map_err(|e| format!("{} could not be started ({e})", python.to_string_lossy()))?;
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        let last = err.trim().lines().last().unwrap_or("").to_string();
        return Err(format!("{} failed: {last}", python.to_string_lossy()));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Writes `values` to `path` as raw little-endian `f64` (what `numpy.fromfile(path, '<f8')` reads).
///
/// # Errors
/// I/O errors.
pub fn write_f64_le<'a>(path: &std::path::Path, values: impl IntoIterator<Item = &'a f64>) -> std::io::Result<()> {
    let bytes: Vec<u8> = values.into_iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes)
}

/// Reads a file of raw little-endian `f64`.
///
/// # Errors
/// I/O errors, and a length that is not a multiple of 8.
pub fn read_f64_le(path: &std::path::Path) -> std::io::Result<Vec<f64>> {
    let bytes = std::fs::read(path)?;
    if bytes.len() % 8 != 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: {} bytes is not a whole number of f64", path.display(), bytes.len()),
        ));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect())
}

/// The value of `key` in a flat JSON object as a script's `json.dumps`
/// writes it: a number's text, or a string's contents (no escapes
/// decoded). `None` when the key is absent.
pub fn json_field<'a>(json: &'a str, key: &str) -> Option<&'a str> {
    let pattern = format!("\"{key}\":");
    let rest = json[json.find(&pattern)? + pattern.len()..].trim_start();
    if let Some(s) = rest.strip_prefix('"') {
        let mut end = 0;
        let bytes = s.as_bytes();
        while end < bytes.len() && !(bytes[end] == b'"' && (end == 0 || bytes[end - 1] != b'\\')) {
            end += 1;
        }
        Some(&s[..end])
    } else {
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        Some(rest[..end].trim())
    }
}

/// [`json_field`] parsed as a number (`NaN`, `Infinity` as Python writes them).
pub fn json_number(json: &str, key: &str) -> Option<f64> {
    match json_field(json, key)? {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        v => v.parse().ok(),
    }
}

#[cfg(test)]
mod io_tests {
    use super::*;

    #[test]
    fn json_fields_of_a_flat_object() {
        let j = r#"{"seconds": 1.25, "objective": 1234.5678901234567, "nit": 1000, "message": "STOP: \"TOTAL\" NO.", "bad": NaN}"#;
        assert_eq!(json_number(j, "seconds"), Some(1.25));
        assert_eq!(json_number(j, "objective"), Some(1234.5678901234567));
        assert_eq!(json_number(j, "nit"), Some(1000.0));
        assert_eq!(json_field(j, "message"), Some(r#"STOP: \"TOTAL\" NO."#));
        assert!(json_number(j, "bad").is_some_and(f64::is_nan));
        assert_eq!(json_field(j, "missing"), None);
    }

    #[test]
    fn f64_files_round_trip() {
        let dir = std::env::temp_dir().join(format!("benches-f64-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v.f64");
        let v = [1.0, -0.1, f64::MIN_POSITIVE, 1e300];
        write_f64_le(&path, &v).unwrap();
        assert_eq!(read_f64_le(&path).unwrap(), v);
        std::fs::write(&path, [0u8; 7]).unwrap();
        assert!(read_f64_le(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
