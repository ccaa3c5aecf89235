//! `perf-report`: the table behind `cargo xtask bench`.
//!
//! Measures, in one run on this machine: the DGEMM peak (n = 2048, 1 and 2
//! OpenBLAS threads) and, beside it, DGEMM in the other libraries present
//! (numpy's BLAS, faer: `benches::dgemm_peers`, issue 37), the time to read
//! a K×n matrix once, and the time per append of every incremental ridge
//! strategy at the sizes, with flops, GFLOP/s and the fraction of
//! the project's DGEMM peak and of the best library's DGEMM at the same
//! thread count; for single-column appends also the ratio to the
//! memory-traffic floor (`Strategy::column_passes`).
//!
//! Usage: `perf-report [--quick] [--out FILE] [--reps N] [--only NAME,NAME] [--size 1|2] [--threads N] [--f32]`
//! (`--size` runs only the first or second of the two sizes; `--threads`
//! overrides the OpenBLAS thread count of the timed appends, by default 1 for
//! q = 1 and 2 for blocks; `--f32` stores the solvers' `A` in single
//! precision, `linalg_core::hidden_store`).

use std::fmt::Write as _;
use std::time::Instant;

use benches::dgemm_peers::{fraction_of_best, percent_cell, threads_label, DgemmPeers};
use benches::{
    median, new_columns, prepared_with, read_once_seconds, report_header, time_one_append, uniform_matrix, ReportArgs,
    Size,
};
use linalg_core::kernels::{self, Flops, MatRef, Op};
use linalg_core::ridge::Strategy;
use linalg_core::threads::set_blas_threads;
use linalg_core::Precision;

/// Times every strategy's append against the DGEMM peak and the memory floor.
#[derive(clap::Parser)]
#[command(name = "perf-report")]
struct Args {
    #[command(flatten)]
    report: ReportArgs,
    /// Only these strategies (comma-separated CLI names).
    #[arg(long, value_delimiter = ',', value_name = "NAME,NAME")]
    only: Option<Vec<Strategy>>,
    /// Only size 1 or 2 of the table.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    size: Option<u8>,
    /// OpenBLAS threads for every run (default: 1 and 2 for single columns, 2 for blocks).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Store `A` in single precision.
    #[arg(long)]
    f32: bool,
}

struct Row {
    strategy: Strategy,
    threads: usize,
    reps: usize,
    seconds: f64,
    min_seconds: f64,
    flops: u64,
    gflops: f64,
    frac_peak: f64,
    /// Of the best library's DGEMM on the same thread count.
    frac_best: Option<f64>,
    floor_ratio: Option<(usize, f64)>,
}

fn main() {
    let cli: Args = benches::start();
    benches::finish("perf-report", run(&cli));
}

/// Measures DGEMM here and beside it, then every run of the plan (its
/// memory floor and every strategy's append), and writes the report.
fn run(cli: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let args = &cli.report;
    let reps = args.reps_or(7);
    let precision = if cli.f32 { Precision::F32 } else { Precision::F64 };
    let started = Instant::now();
    let strategies: Vec<Strategy> = cli.only.clone().unwrap_or_else(|| Strategy::ALL.to_vec());
    let plan = plan(cli);
    let gemm_n = if args.quick { 1024 } else { 2048 };
    let peers = measure_dgemm(gemm_n, &plan);
    let mut out = dgemm_section(&peers, gemm_n, args.quick, precision);
    for (size, threads) in plan {
        let floor = memory_floor_section(&mut out, size, threads);
        let rows = time_strategies(&strategies, size, threads, reps, precision, floor, &peers);
        table(&mut out, &rows, size);
    }
    let _ = writeln!(out, "\nTotal run time: {:.0} s.", started.elapsed().as_secs_f64());
    benches::write_report("perf-report", &out, args.out.as_deref())
}

/// The runs of the report, `(size, OpenBLAS threads)`: single-column appends
/// on 1 and on 2 threads, block appends on 2 (unless `--threads` says
/// otherwise), only the size of `--size` when given.
fn plan(cli: &Args) -> Vec<(Size, usize)> {
    let sizes = if cli.report.quick { Size::QUICK } else { Size::FULL };
    let mut plan = vec![];
    for (index, size) in sizes.into_iter().enumerate() {
        if cli.size.is_some_and(|only| usize::from(only) != index + 1) {
            continue;
        }
        match (cli.threads, size.q) {
            (Some(t), _) => plan.push((size, t.max(1))),
            (None, 1) => plan.extend([(size, 1), (size, 2)]),
            (None, _) => plan.push((size, 2)),
        }
    }
    plan
}

/// Measures DGEMM (n = `gemm_n`, best of 5) on 1 and 2 threads and on any
/// other thread count of `plan`, in the project's BLAS (its peak) and beside
/// it in the other libraries; the peaks on stderr.
fn measure_dgemm(gemm_n: usize, plan: &[(Size, usize)]) -> DgemmPeers {
    let mut thread_counts = vec![1, 2];
    for &(_, t) in plan {
        if !thread_counts.contains(&t) {
            thread_counts.push(t);
        }
    }
    eprintln!("perf-report: measuring DGEMM (n = {gemm_n}) here and in the other libraries…");
    let peers = DgemmPeers::measure(gemm_n, &thread_counts, 5);
    let (peak1, peak2) = (peak_on(&peers, 1), peak_on(&peers, 2));
    eprintln!("perf-report: DGEMM peak {peak1:.1} GFLOP/s (1 thread), {peak2:.1} GFLOP/s (2 threads)");
    peers
}

/// The project's DGEMM rate on `threads` threads (GFLOP/s; NaN when not measured).
fn peak_on(peers: &DgemmPeers, threads: usize) -> f64 {
    peers.ours(threads).unwrap_or(f64::NAN)
}

/// The head of the report: its header, the DGEMM peak on 1 and 2 threads,
/// the best DGEMM of every library and their table, and what the two
/// percentages of the tables below are of.
fn dgemm_section(peers: &DgemmPeers, gemm_n: usize, quick: bool, precision: Precision) -> String {
    let (peak1, peak2) = (peak_on(peers, 1), peak_on(peers, 2));
    let mut out = report_header(
        "Measured on this machine",
        "perf-report",
        quick,
        &format!("solvers store `A` in {:?}", precision),
    );
    let _ = writeln!(
        out,
        "- DGEMM peak (n = {gemm_n}, best of 5): **{peak1:.1} GFLOP/s on 1 thread, {peak2:.1} GFLOP/s on 2 threads**"
    );
    let best_line = |t: usize| match peers.best(t) {
        Some((row, rate)) => format!("{rate:.1} GFLOP/s on {} ({})", threads_label(t), row.library),
        None => format!("not measured on {}", threads_label(t)),
    };
    let _ = writeln!(
        out,
        "- Best DGEMM on this machine (same n, every library below): {}, {}",
        best_line(1),
        best_line(2)
    );
    let _ = writeln!(out, "\n{}", peers.markdown());
    let _ = writeln!(
        out,
        "In the tables below, **% DGEMM peak** is of the project's own DGEMM and **% best DGEMM** of the fastest \
         library's in the table above, on the same thread count: a slow BLAS kernel lowers the first floor with \
         it, not the second."
    );
    out
}

/// Measures the memory-traffic floor of one run, reading the K×n matrix
/// once on `threads` threads (a plain read loop, best of 3, and `dgemv`
/// `Aᵀh`, median of 3), and writes the run's heading and that paragraph.
/// Returns the floor: the faster of the two (seconds).
fn memory_floor_section(out: &mut String, size: Size, threads: usize) -> f64 {
    let a = uniform_matrix(size.k, size.n, 1);
    let data = a.as_slice_memory_order().expect("contiguous");
    let read_s = read_once_seconds(data, 3, threads);
    set_blas_threads(threads);
    let h: Vec<f64> = vec![0.5; size.k];
    let mut p = vec![0.0; size.n];
    let mut gemv_times = vec![];
    for _ in 0..3 {
        let t = Instant::now();
        kernels::gemv(
            &mut Flops::default(),
            1.0,
            MatRef::new(data, size.k, size.n, size.k),
            Op::T,
            &h,
            0.0,
            &mut p,
        );
        gemv_times.push(t.elapsed().as_secs_f64());
    }
    let gemv_s = median(gemv_times);
    let floor = read_s.min(gemv_s);
    drop(a);
    let bytes = (size.k * size.n * 8) as f64;
    let _ = writeln!(
        out,
        "\n### {} (M = {}), {} OpenBLAS thread(s)\n",
        size.label(),
        size.m,
        threads
    );
    let _ = writeln!(
        out,
        "Reading the K×n matrix once ({:.0} MB) on {} thread(s): {:.1} ms by a plain read loop ({:.1} GB/s), {:.1} ms by `dgemv` (Aᵀh). Floor used: {:.1} ms.\n",
        bytes / 1e6,
        threads,
        read_s * 1e3,
        bytes / read_s / 1e9,
        gemv_s * 1e3,
        floor * 1e3
    );
    floor
}

/// Times one append of every strategy of `strategies` at `size` on
/// `threads` threads (median and best of `reps` for single columns and
/// block strategies, one otherwise; set up on 2 threads, untimed): the rows
/// of the run's table, against the DGEMM peak, the best DGEMM and, for
/// single columns, the memory-traffic `floor`.
fn time_strategies(
    strategies: &[Strategy],
    size: Size,
    threads: usize,
    reps: usize,
    precision: Precision,
    floor: f64,
    peers: &DgemmPeers,
) -> Vec<Row> {
    let peak = peak_on(peers, threads);
    let best = peers.best_rate(threads);
    let mut rows = vec![];
    for &s in strategies {
        let reps = if size.q == 1 || s.blocks() { reps } else { 1 };
        eprintln!("perf-report: {} — {s}: setting up…", size.label());
        set_blas_threads(2);
        let base = prepared_with(s, size, size.q, precision);
        set_blas_threads(threads);
        let mut times = vec![];
        let mut flops = 0;
        for r in 0..reps {
            let hcols = new_columns(size, r as u64);
            let (dt, f) = time_one_append(base.as_ref(), &hcols);
            times.push(dt.as_secs_f64());
            flops = f;
        }
        let min_seconds = times.iter().copied().fold(f64::INFINITY, f64::min);
        let seconds = median(times);
        let gflops = flops as f64 / seconds / 1e9;
        let floor_ratio = (size.q == 1).then(|| {
            let passes = s.column_passes();
            (passes, seconds / (passes as f64 * floor))
        });
        eprintln!(
            "perf-report: {} — {s}: {:.3} ms/append, {:.1} GFLOP/s",
            size.label(),
            seconds * 1e3,
            gflops
        );
        rows.push(Row {
            strategy: s,
            threads,
            reps,
            seconds,
            min_seconds,
            flops,
            gflops,
            frac_peak: gflops / peak,
            frac_best: fraction_of_best(gflops, best),
            floor_ratio,
        });
    }
    rows
}

/// Writes the table of one run: a row per strategy.
fn table(out: &mut String, rows: &[Row], size: Size) {
    if size.q == 1 {
        let _ = writeln!(
            out,
            "| strategy | time/append: median (min) | flops/append | GFLOP/s (median) | % DGEMM peak | % best DGEMM | K×n passes (model) | time / traffic floor: median (min) |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
    } else {
        let _ = writeln!(
            out,
            "| strategy | time/append: median (min) | flops/append | GFLOP/s (median) | % DGEMM peak | % best DGEMM | target ≥ 70% of peak | reps |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---|---:|");
    }
    for r in rows {
        let fmt_t = |t: f64| {
            if t < 1.0 {
                format!("{:.1} ms", t * 1e3)
            } else {
                format!("{t:.2} s")
            }
        };
        let time = format!("{} ({})", fmt_t(r.seconds), fmt_t(r.min_seconds));
        let flops = format!("{:.3e}", r.flops as f64);
        let of_best = percent_cell(r.frac_best);
        match r.floor_ratio {
            Some((passes, ratio)) => {
                let ratio_min = ratio * r.min_seconds / r.seconds;
                let _ = writeln!(
                    out,
                    "| {} | {time} | {flops} | {:.1} | {:.0}% | {of_best} | {passes} | {ratio:.2}× ({ratio_min:.2}×) |",
                    r.strategy,
                    r.gflops,
                    100.0 * r.frac_peak
                );
            }
            None => {
                let target = match r.strategy {
                    Strategy::Chol1 | Strategy::Chol2 | Strategy::RInv | Strategy::Alg3 => {
                        if r.frac_peak >= 0.7 {
                            "met"
                        } else {
                            "**missed**"
                        }
                    }
                    _ => "—",
                };
                let _ = writeln!(
                    out,
                    "| {} | {time} | {flops} | {:.1} | {:.0}% | {of_best} | {target} | {} |",
                    r.strategy,
                    r.gflops,
                    100.0 * r.frac_peak,
                    r.reps
                );
            }
        }
        let _ = r.threads;
    }
}
