//! Criterion benchmarks: time per append of every incremental ridge
//! strategy at (K, n, q) = (60000, 2000, 1) and (20000, 4000, 500), with the
//! append's flops as the throughput (criterion prints it as Gelem/s = GFLOP/s).
//!
//! Each sample appends to a fresh copy of the same prepared state (the copy
//! is not timed). Single-column appends run on 1 OpenBLAS thread, block
//! appends on 2 (docs/toolchain.md).
//!
//! The column-by-column strategies (Li et al., Alg. 1, Alg. 2) take 10–60 s
//! per q = 500 append; they are measured at that size by `perf-report`
//! (`cargo xtask bench`) and here only with `BENCH_SLOW=1`.
//!
//! Under `cargo test` (no `--bench` argument) criterion runs each benchmark
//! once as a smoke test: we then use small sizes so the test suite stays fast.

use std::time::Duration;

use benches::{new_columns, prepared, time_one_append, Size};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use linalg_core::ridge::Strategy;
use linalg_core::threads::set_blas_threads;

fn bench_appends(c: &mut Criterion) {
    let real_run = std::env::args().any(|a| a == "--bench");
    let slow = std::env::var("BENCH_SLOW").is_ok_and(|v| v == "1");
    let sizes = if real_run {
        Size::FULL
    } else {
        [
            Size {
                k: 300,
                n: 30,
                q: 1,
                m: 3,
            },
            Size {
                k: 300,
                n: 30,
                q: 5,
                m: 3,
            },
        ]
    };
    for size in sizes {
        let threads = if size.q == 1 { 1 } else { 2 };
        let mut group = c.benchmark_group(format!("append/{}", size.label()));
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(1));
        for s in Strategy::ALL {
            if real_run && size.q > 1 && !s.blocks() && !slow {
                continue;
            }
            set_blas_threads(2);
            let base = prepared(s, size, size.q);
            set_blas_threads(threads);
            let h = new_columns(size, 0);
            let (_, flops) = time_one_append(base.as_ref(), &h);
            group.throughput(Throughput::Elements(flops));
            group.bench_function(BenchmarkId::new(s.cli_name(), threads), |b| {
                b.iter_custom(|iters| (0..iters).map(|_| time_one_append(base.as_ref(), &h).0).sum())
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench_appends);
criterion_main!(benches);
