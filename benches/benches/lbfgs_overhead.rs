//! Criterion benchmarks: L-BFGS per-iteration overhead, objective excluded,
//! `optim::Lbfgs` beside argmin's `LBFGS` (through
//! `optim::argmin_bridge::ArgminObjective`), on the extended Rosenbrock
//! function at n = 10⁴ and 10⁶ (10 samples at 10⁶).
//!
//! Each sample runs 10 iterations from the standard start with the gradient
//! test off (memory 5, Moré–Thuente c₁ = 10⁻⁴, c₂ = 0.9 for both) and
//! reports the run's wall time minus the time spent inside the objective's
//! calls; the throughput is the iterations, so criterion's `elem/s` is
//! iterations per second of overhead. `lbfgs-report` (`cargo xtask bench`)
//! gives the same figure per iteration, with the memory-traffic floor.
//!
//! Under `cargo test` (no `--bench` argument) criterion runs each benchmark
//! once as a smoke test: we then use n = 100.

#[path = "../src/lbfgs_timing.rs"]
#[allow(dead_code)]
mod lbfgs_timing;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use lbfgs_timing::{time_argmin, time_ours, TimedRun};
use optim::problems::ExtendedRosenbrock;

/// Iterations per sample.
const ITERATIONS: usize = 10;

fn overhead(run: TimedRun) -> Duration {
    run.total.saturating_sub(run.objective)
}

fn bench_overhead(c: &mut Criterion) {
    let real_run = std::env::args().any(|a| a == "--bench");
    let sizes: &[usize] = if real_run { &[10_000, 1_000_000] } else { &[100] };
    for &n in sizes {
        let f = ExtendedRosenbrock::new(n);
        let x0 = f.start();
        let mut group = c.benchmark_group(format!("lbfgs_overhead/n={n}"));
        group
            .sampling_mode(SamplingMode::Flat)
            .throughput(Throughput::Elements(ITERATIONS as u64));
        if n >= 1_000_000 {
            group
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(10));
        }
        group.bench_function(BenchmarkId::new("optim", ITERATIONS), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| overhead(time_ours(f, &x0, ITERATIONS))).sum())
        });
        group.bench_function(BenchmarkId::new("argmin", ITERATIONS), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| overhead(time_argmin(f, &x0, ITERATIONS))).sum())
        });
        group.finish();
    }
}

criterion_group!(benches, bench_overhead);
criterion_main!(benches);
