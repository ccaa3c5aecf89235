//! Where the initial solve's time goes at the BLS start size (K = 60000,
//! n = 3060, M = 10): the whole `build` (on a view, which copies `A`, and
//! on an owned column-major array, which it takes over) against DSYRK and DGEMM alone, and
//! R-Inv's start step by step.
use linalg_core::kernels::{self, Flops, Op, Owned};
use linalg_core::{Precision, Strategy};
use ndarray::{Array2, ShapeBuilder};
use std::time::{Duration, Instant};

/// Wait until memory freed before is handed back to the hypervisor: this VM's
/// balloon device reports free pages about 2 s after they are freed, and
/// touching such memory again costs a host page fault (0.42 GB/s measured).
/// Without the wait, a timed allocation can reuse still-backed pages freed by
/// the step before it and look cheaper than it is in the BLS run.
fn settle() {
    std::thread::sleep(Duration::from_secs(5));
}

fn main() {
    linalg_core::threads::set_blas_threads(2);
    let (k, n) = (60000, 3060);
    let mut a = Array2::<f64>::zeros((k, n).f());
    for ((i, j), x) in a.indexed_iter_mut() {
        *x = (((i * 7 + j * 13) % 101) as f64 / 101.0 - 0.5).tanh() + 1e-3 * ((i + j) % 7) as f64;
    }
    let mut y = Array2::<f64>::zeros((k, 10).f());
    for i in 0..k {
        y[[i, i % 10]] = 1.0;
    }
    let own = Owned::from_view(a.view());
    for _ in 0..2 {
        let mut c = Owned::zeros(n, n);
        let t = Instant::now();
        kernels::syrk(&mut Flops::default(), 1.0, own.as_ref(), Op::T, 0.0, c.as_mut());
        let s = t.elapsed().as_secs_f64();
        println!(
            "dsyrk AᵀA: {s:.3} s, {:.1} GFLOP/s (K n² flops)",
            (k * n * n) as f64 / s / 1e9
        );
        let t = Instant::now();
        kernels::matmul(
            &mut Flops::default(),
            own.as_ref(),
            Op::T,
            own.as_ref(),
            Op::N,
            c.as_mut(),
        );
        let s = t.elapsed().as_secs_f64();
        println!(
            "dgemm AᵀA: {s:.3} s, {:.1} GFLOP/s (2 K n² flops)",
            2.0 * (k * n * n) as f64 / s / 1e9
        );
    }
    settle();
    let t = Instant::now();
    let copy = Owned::from_view(a.view());
    println!("copy A: {:.3} s", t.elapsed().as_secs_f64());
    drop(copy);
    let mut c = Owned::zeros(n, n);
    kernels::syrk(&mut Flops::default(), 1.0, own.as_ref(), Op::T, 0.0, c.as_mut());
    for i in 0..n {
        c.set(i, i, c.at(i, i) + 1.0);
    }
    let t = Instant::now();
    let _ = kernels::potrf(&mut Flops::default(), kernels::Tri::Upper, c.as_mut());
    println!("potrf n={n}: {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let _ = kernels::trtri(
        &mut Flops::default(),
        kernels::Tri::Upper,
        kernels::Diag::NonUnit,
        c.as_mut(),
    );
    println!("trtri n={n}: {:.3} s", t.elapsed().as_secs_f64());
    // R-Inv's start after the factor: B = A F Fᵀ (a copy of A, two TRMMs).
    settle();
    let t = Instant::now();
    let mut b = Owned::from_view(a.view());
    println!("R-Inv parts: copy A into B: {:.3} s", t.elapsed().as_secs_f64());
    for op in [Op::N, Op::T] {
        let t = Instant::now();
        kernels::trmm(
            &mut Flops::default(),
            kernels::Side::Right,
            kernels::Tri::Upper,
            op,
            kernels::Diag::NonUnit,
            1.0,
            c.as_ref(),
            b.as_mut(),
        );
        let s = t.elapsed().as_secs_f64();
        println!(
            "R-Inv parts: trmm B·F{}: {s:.3} s, {:.1} GFLOP/s (K n² flops)",
            if op == Op::N { "" } else { "ᵀ" },
            (k * n * n) as f64 / s / 1e9
        );
    }
    // The rest of R-Inv's start: W = BᵀY (a tall, 10-column product) and
    // the finiteness check `build` makes on `A` (one read of 1.47 GB).
    let yo = Owned::from_view(y.view());
    let mut w = Owned::zeros(n, 10);
    let t = Instant::now();
    kernels::matmul(&mut Flops::default(), b.as_ref(), Op::T, yo.as_ref(), Op::N, w.as_mut());
    let s = t.elapsed().as_secs_f64();
    println!(
        "R-Inv parts: W = BᵀY: {s:.3} s, {:.1} GFLOP/s (2 K n M flops)",
        2.0 * (k * n * 10) as f64 / s / 1e9
    );
    let t = Instant::now();
    let finite = a.iter().all(|x| x.is_finite());
    println!(
        "finiteness check of A in logical (row-major) order ({finite}): {:.3} s",
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let finite = a.fold(true, |ok, x| ok & x.is_finite());
    println!(
        "finiteness check of A in memory order ({finite}): {:.3} s",
        t.elapsed().as_secs_f64()
    );
    drop(b);
    let lambda = 2f64.powi(-10);
    for s in [Strategy::Chol1, Strategy::RInv] {
        for by_value in [false, true] {
            // The owned copy is made (and its pages touched) before the clock
            // starts, as the BLS's freshly computed `A` is.
            let owned = by_value.then(|| a.clone());
            settle();
            let t = Instant::now();
            let r = match owned {
                Some(a) => s.build(a, y.view(), lambda, Precision::F64),
                None => s.build(a.view(), y.view(), lambda, Precision::F64),
            };
            let sec = t.elapsed().as_secs_f64();
            let fl = r.as_ref().map_or(0, |r| r.last_flops());
            println!(
                "{s:?} {}: {sec:.3} s, {fl:.3e} flops, {:.1} GFLOP/s",
                if by_value {
                    "build (takes an owned A over)"
                } else {
                    "build (copies a view of A)"
                },
                fl as f64 / sec / 1e9
            );
        }
    }
}
