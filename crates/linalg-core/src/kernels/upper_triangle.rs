//! Matrix–vector kernels on an upper triangle (`S ← S + αxxᵀ`, `S·x`,
//! `T·x`, `Tᵀ·x`), on this crate's own scoped threads.
//!
//! These are the `O(n²)` steps of a one-node update (Zhu & Wei's Alg. 2
//! `Qp` and `Q + τ(Qp)(Qp)ᵀ`, Alg. 3's `Lᵀp` and `L·x`). OpenBLAS runs its
//! DSYMV, DSYR and DTRMV on its worker threads, which then spin (yielding the
//! core) for a while after the call; the next update's pass over the hidden
//! matrix, on our own threads ([`super::blas2`]'s `dot_columns`), then shares
//! the two cores with them. On MNIST (K = 60000, l = 2000) consecutive
//! appends ran about 20% slower than with the spinning switched off
//! (docs/performance.md). Doing these steps here keeps one kind of thread in
//! the loop. Two fused sweeps do two of these steps per pass over the
//! triangle (Alg. 2's rank-one update with the next node's `Q·p`; Alg. 3's
//! `Lᵀp` with `L·D·Lᵀp`), halving the memory traffic of the `O(n²)` part.
//!
//! Work is split by columns into ranges of about equal area of the triangle;
//! a product that accumulates into the whole output (`S·x`, `T·x`) gives each
//! thread its own accumulator and sums them, so the thread count changes a
//! result only through the order of that final sum.

use super::blas2::{axpy, dot8};
use super::{MatMut, MatRef};

/// Below this many entries of the triangle one thread does the work.
const THREADED_FROM: usize = 1 << 17;

/// Threads for an n×n triangle with `threads` available.
fn threads_for(n: usize, threads: usize) -> usize {
    if n * (n + 1) / 2 < THREADED_FROM {
        1
    } else {
        threads.clamp(1, 64).min(n)
    }
}

/// Column boundaries `0 = b₀ ≤ b₁ ≤ … ≤ b_parts = n` splitting the upper
/// triangle of an n×n matrix (column j holds j + 1 entries) into ranges of
/// about equal area.
fn triangle_parts(n: usize, parts: usize) -> Vec<usize> {
    let mut b: Vec<usize> = (0..=parts)
        .map(|t| ((n as f64) * (t as f64 / parts as f64).sqrt()).round() as usize)
        .collect();
    b[parts] = n;
    for t in 1..=parts {
        b[t] = b[t].clamp(b[t - 1], n);
    }
    b
}

/// `acc[i] += a·c[i]` and, in the same sweep over `c`, `Σ c[i]·x[i]`
/// (eight accumulators).
fn axpy_dot(a: f64, c: &[f64], x: &[f64], acc: &mut [f64]) -> f64 {
    let mut s = [0.0f64; 8];
    let split = c.len() / 8 * 8;
    let (c8, ct) = c.split_at(split);
    let (x8, xt) = x.split_at(split);
    let (a8, at) = acc.split_at_mut(split);
    for ((cc, xx), aa) in c8.chunks_exact(8).zip(x8.chunks_exact(8)).zip(a8.chunks_exact_mut(8)) {
        for t in 0..8 {
            aa[t] += a * cc[t];
            s[t] += cc[t] * xx[t];
        }
    }
    let mut tail = 0.0;
    for ((cc, xx), aa) in ct.iter().zip(xt).zip(at) {
        *aa += a * cc;
        tail += cc * xx;
    }
    ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7])) + tail
}

/// Runs `work(t, j0, j1)` for each part `t` of the triangle's columns on
/// `threads` threads (the calling thread takes the first part) and returns
/// the results in part order.
fn over_parts<R: Send>(n: usize, threads: usize, work: impl Fn(usize, usize) -> R + Sync) -> Vec<R> {
    let parts = threads_for(n, threads);
    let b = triangle_parts(n, parts);
    if parts == 1 {
        return vec![work(0, n)];
    }
    std::thread::scope(|scope| {
        let work = &work;
        let handles: Vec<_> = (1..parts)
            .map(|t| {
                let (j0, j1) = (b[t], b[t + 1]);
                scope.spawn(move || work(j0, j1))
            })
            .collect();
        let mut out = vec![work(b[0], b[1])];
        for h in handles {
            match h.join() {
                Ok(r) => out.push(r),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
        out
    })
}

/// `Σⱼ x[j]·T[0..=j, j]` over columns `j0..j1` (the diagonal scaled by
/// `diag`, `None` = its stored value), as a vector of length `j1`; with
/// `dots`, also `y[j] = T[0..j, j]·x[0..j]` into the returned second vector
/// (the strictly upper part of `Tᵀx`, for the symmetric product).
fn columns_times(t: MatRef<'_>, x: &[f64], j0: usize, j1: usize, unit_diag: bool, dots: bool) -> (Vec<f64>, Vec<f64>) {
    let mut acc = vec![0.0; j1];
    let mut d = vec![0.0; if dots { j1 - j0 } else { 0 }];
    for j in j0..j1 {
        let col = &t.col(j)[..=j];
        let (upper, diag) = col.split_at(j);
        if dots {
            d[j - j0] = axpy_dot(x[j], upper, &x[..j], &mut acc[..j]);
        } else {
            axpy(x[j], upper, &mut acc[..j]);
        }
        acc[j] += if unit_diag { x[j] } else { diag[0] * x[j] };
    }
    (acc, d)
}

/// `y ← alpha·S·x + beta·y`, `S` symmetric stored in its upper triangle.
pub(super) fn symv_upper(threads: usize, alpha: f64, s: MatRef<'_>, x: &[f64], beta: f64, y: &mut [f64]) {
    let n = x.len();
    let parts = over_parts(n, threads, |j0, j1| (j0, columns_times(s, x, j0, j1, false, true)));
    let mut sx = vec![0.0; n];
    for (j0, (acc, d)) in parts {
        axpy(1.0, &acc, &mut sx[..acc.len()]);
        axpy(1.0, &d, &mut sx[j0..j0 + d.len()]);
    }
    for (yi, v) in y.iter_mut().zip(sx) {
        *yi = if beta == 0.0 { alpha * v } else { alpha * v + beta * *yi };
    }
}

/// As [`over_parts`], handing each part its columns of `s` (disjoint
/// mutable borrows) as `work(j0, piece)`.
fn over_pieces<R: Send>(s: MatMut<'_>, threads: usize, work: impl Fn(usize, MatMut<'_>) -> R + Sync) -> Vec<R> {
    let n = s.cols;
    let parts = threads_for(n, threads);
    let b = triangle_parts(n, parts);
    let mut pieces = Vec::with_capacity(parts);
    let mut rest = s;
    for t in 0..parts {
        let (left, right) = rest.split_cols_at(b[t + 1] - b[t]);
        pieces.push((b[t], left));
        rest = right;
    }
    if parts == 1 {
        return pieces.into_iter().map(|(j0, piece)| work(j0, piece)).collect();
    }
    std::thread::scope(|scope| {
        let work = &work;
        let mut it = pieces.into_iter();
        let first = it.next();
        let handles: Vec<_> = it.map(|(j0, piece)| scope.spawn(move || work(j0, piece))).collect();
        let mut out: Vec<R> = first.map(|(j0, piece)| work(j0, piece)).into_iter().collect();
        for h in handles {
            match h.join() {
                Ok(r) => out.push(r),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
        out
    })
}

/// Upper triangle of `S ← S + alpha·x·xᵀ`.
pub(super) fn syr_upper(threads: usize, alpha: f64, x: &[f64], s: MatMut<'_>) {
    over_pieces(s, threads, |j0, mut piece| {
        for jj in 0..piece.cols {
            let j = j0 + jj;
            axpy(alpha * x[j], &x[..=j], &mut piece.col_mut(jj)[..=j]);
        }
    });
}

/// `x ← T·x` (`transpose` false) or `x ← Tᵀ·x` (true) for an upper
/// triangular `T`, unit diagonal if `unit_diag`.
pub(super) fn trmv_upper(threads: usize, transpose: bool, unit_diag: bool, t: MatRef<'_>, x: &mut [f64]) {
    let n = x.len();
    let x0 = x.to_vec();
    if transpose {
        // (Tᵀx)[j] = T[0..j, j]·x[0..j] + T[j, j]·x[j]: one dot per column.
        let parts = over_parts(n, threads, |j0, j1| {
            (j0..j1)
                .map(|j| {
                    let col = t.col(j);
                    let d = if unit_diag { 1.0 } else { col[j] };
                    dot8(&col[..j], &x0[..j]) + d * x0[j]
                })
                .collect::<Vec<f64>>()
        });
        for (dst, v) in x.iter_mut().zip(parts.into_iter().flatten()) {
            *dst = v;
        }
    } else {
        let parts = over_parts(n, threads, |j0, j1| columns_times(t, &x0, j0, j1, unit_diag, false).0);
        x.iter_mut().for_each(|v| *v = 0.0);
        for acc in parts {
            axpy(1.0, &acc, &mut x[..acc.len()]);
        }
    }
}

/// `S ← S + alpha·v·vᵀ` on the leading `v.len()` columns (upper triangle),
/// then `y ← S·x` with the updated `S`, in one sweep over `S`: each column
/// is updated and used while in cache. This is Zhu & Wei's Alg. 2 with the
/// rank-one update of one node applied during the next node's `Q·p`.
pub(super) fn syr_then_symv_upper(threads: usize, alpha: f64, v: &[f64], s: MatMut<'_>, x: &[f64], y: &mut [f64]) {
    let results = over_pieces(s, threads, |j0, mut piece| {
        let j1 = j0 + piece.cols;
        let mut acc = vec![0.0; j1];
        let mut d = vec![0.0; j1 - j0];
        for (jj, dj) in d.iter_mut().enumerate() {
            let j = j0 + jj;
            let col = &mut piece.col_mut(jj)[..=j];
            if j < v.len() {
                axpy(alpha * v[j], &v[..=j], col);
            }
            let (upper, diag) = col.split_at(j);
            *dj = axpy_dot(x[j], upper, &x[..j], &mut acc[..j]);
            acc[j] += diag[0] * x[j];
        }
        (j0, acc, d)
    });
    y.iter_mut().for_each(|v| *v = 0.0);
    for (j0, acc, d) in results {
        axpy(1.0, &acc, &mut y[..acc.len()]);
        axpy(1.0, &d, &mut y[j0..j0 + d.len()]);
    }
}

/// For a unit upper triangular `L` and a diagonal `d`: `x0 = Lᵀp` and
/// `y = L·(d∘x0)` in one sweep over `L` (column j gives `x0[j]` by a dot
/// product and then takes its axpy while in cache). This is Alg. 3's
/// `t̃ = −L D Lᵀ p` of one node (eqs. (31)–(33)), with `Lᵀp` kept for `S`.
pub(super) fn ldlt_times_unit_upper(threads: usize, l: MatRef<'_>, d: &[f64], p: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = p.len();
    let parts = over_parts(n, threads, |j0, j1| {
        let mut acc = vec![0.0; j1];
        let mut x0 = vec![0.0; j1 - j0];
        for j in j0..j1 {
            let upper = &l.col(j)[..j];
            let xj = dot8(upper, &p[..j]) + p[j];
            x0[j - j0] = xj;
            let dx = d[j] * xj;
            axpy(dx, upper, &mut acc[..j]);
            acc[j] += dx;
        }
        (x0, acc)
    });
    let mut x0 = Vec::with_capacity(n);
    let mut y = vec![0.0; n];
    for (part, acc) in parts {
        x0.extend(part);
        axpy(1.0, &acc, &mut y[..acc.len()]);
    }
    (x0, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Owned;

    /// A random-looking n×n matrix (upper triangle used) and vector.
    fn inputs(n: usize) -> (Owned, Vec<f64>) {
        let a = Owned::from_fn(n, n, |i, j| {
            (((i * 31 + j * 17) % 23) as f64 / 23.0 - 0.45) * (1.0 + (j % 5) as f64)
        });
        let x = (0..n).map(|i| ((i as f64) * 0.37).sin() + 0.1).collect();
        (a, x)
    }

    /// Entry (i, j) of the symmetric matrix whose upper triangle `a` holds.
    fn sym(a: &Owned, i: usize, j: usize) -> f64 {
        if i <= j {
            a.at(i, j)
        } else {
            a.at(j, i)
        }
    }

    /// Bound on the error of an n-term sum of products: n·ε·Σ|terms|.
    fn bound(n: usize, abs_sum: f64) -> f64 {
        (n as f64 + 2.0) * f64::EPSILON * abs_sum
    }

    #[test]
    fn parts_cover_the_columns_in_order_with_equal_area() {
        for n in [0, 1, 2, 7, 100, 2001] {
            for parts in 1..=5 {
                let b = triangle_parts(n, parts);
                assert_eq!((b[0], b[parts]), (0, n));
                assert!(b.windows(2).all(|w| w[0] <= w[1]));
                if n >= 1000 {
                    let area = |j0: usize, j1: usize| (j0..j1).map(|j| j + 1).sum::<usize>() as f64;
                    let total = area(0, n);
                    for t in 0..parts {
                        let share = area(b[t], b[t + 1]) / total;
                        assert!(
                            (share - 1.0 / parts as f64).abs() < 0.01,
                            "n {n} parts {parts} share {share}"
                        );
                    }
                }
            }
        }
    }

    /// Each kernel against the definition, on sizes below and above the
    /// threading threshold, on 1, 2 and 3 threads, with beta ≠ 0.
    #[test]
    fn kernels_match_their_definitions() {
        for n in [1, 5, 33, 700] {
            let (a, x) = inputs(n);
            for threads in [1, 2, 3] {
                // symv
                let y0: Vec<f64> = (0..n).map(|i| i as f64 * 0.25 - 3.0).collect();
                let mut y = y0.clone();
                symv_upper(threads, 1.5, a.as_ref(), &x, -0.5, &mut y);
                for i in 0..n {
                    let terms: Vec<f64> = (0..n).map(|j| 1.5 * sym(&a, i, j) * x[j]).collect();
                    let want = terms.iter().sum::<f64>() - 0.5 * y0[i];
                    let abs = terms.iter().map(|t| t.abs()).sum::<f64>() + 0.5 * y0[i].abs();
                    assert!(
                        (y[i] - want).abs() <= bound(n, abs),
                        "symv n {n} threads {threads} i {i}"
                    );
                }
                // syr: upper triangle updated, strictly lower untouched.
                let mut s = a.clone();
                syr_upper(threads, -0.75, &x, s.as_mut());
                for j in 0..n {
                    for i in 0..n {
                        let want = if i <= j {
                            a.at(i, j) - 0.75 * x[i] * x[j]
                        } else {
                            a.at(i, j)
                        };
                        let abs = a.at(i, j).abs() + (0.75 * x[i] * x[j]).abs();
                        assert!((s.at(i, j) - want).abs() <= bound(1, abs), "syr n {n} ({i},{j})");
                    }
                }
                // trmv, both orientations and diagonals.
                for transpose in [false, true] {
                    for unit in [false, true] {
                        let mut v = x.clone();
                        trmv_upper(threads, transpose, unit, a.as_ref(), &mut v);
                        for (i, got) in v.iter().enumerate() {
                            let entry = |r: usize, c: usize| match (r.cmp(&c), unit) {
                                (std::cmp::Ordering::Greater, _) => 0.0,
                                (std::cmp::Ordering::Equal, true) => 1.0,
                                _ => a.at(r, c),
                            };
                            let terms: Vec<f64> = (0..n)
                                .map(|j| if transpose { entry(j, i) } else { entry(i, j) } * x[j])
                                .collect();
                            let want: f64 = terms.iter().sum();
                            let abs = terms.iter().map(|t| t.abs()).sum::<f64>();
                            assert!(
                                (got - want).abs() <= bound(n, abs),
                                "trmv n {n} threads {threads} transpose {transpose} unit {unit} i {i}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The fused steps of Alg. 2 and Alg. 3 against their definitions
    /// (plain loops on the full matrices), below and above the threshold.
    #[test]
    fn fused_steps_match_their_definitions() {
        for n in [1, 6, 40, 700] {
            let (a, x) = inputs(n);
            let v: Vec<f64> = (0..n.saturating_sub(1)).map(|i| ((i as f64) * 0.91).cos()).collect();
            let d: Vec<f64> = (0..n).map(|i| 0.5 + (i % 7) as f64 * 0.25).collect();
            for threads in [1, 2, 3] {
                // syr on the leading n−1 block, then S·x.
                let mut s = a.clone();
                let mut y = vec![f64::NAN; n];
                syr_then_symv_upper(threads, -0.3, &v, s.as_mut(), &x, &mut y);
                let upd = |i: usize, j: usize| {
                    let (i, j) = (i.min(j), i.max(j));
                    let r = if j < v.len() { -0.3 * v[i] * v[j] } else { 0.0 };
                    a.at(i, j) + r
                };
                for j in 0..n {
                    for i in 0..=j {
                        let abs = a.at(i, j).abs() + upd(i, j).abs();
                        assert!(
                            (s.at(i, j) - upd(i, j)).abs() <= bound(1, abs),
                            "syr part n {n} ({i},{j})"
                        );
                    }
                }
                for (i, got) in y.iter().enumerate() {
                    let terms: Vec<f64> = (0..n).map(|j| upd(i, j) * x[j]).collect();
                    let want: f64 = terms.iter().sum();
                    let abs = terms.iter().map(|t| t.abs()).sum::<f64>();
                    assert!(
                        (got - want).abs() <= bound(n + 2, abs),
                        "symv part n {n} threads {threads} i {i}"
                    );
                }
                // Lᵀp and L·(d∘Lᵀp), L unit upper from a's strict upper part.
                let l = |i: usize, j: usize| match i.cmp(&j) {
                    std::cmp::Ordering::Less => a.at(i, j),
                    std::cmp::Ordering::Equal => 1.0,
                    std::cmp::Ordering::Greater => 0.0,
                };
                let (x0, yl) = ldlt_times_unit_upper(threads, a.as_ref(), &d, &x);
                let want_x0: Vec<f64> = (0..n).map(|j| (0..n).map(|i| l(i, j) * x[i]).sum()).collect();
                for j in 0..n {
                    let abs: f64 = (0..n).map(|i| (l(i, j) * x[i]).abs()).sum();
                    assert!((x0[j] - want_x0[j]).abs() <= bound(n, abs), "Lᵀp n {n} j {j}");
                }
                for (i, got) in yl.iter().enumerate() {
                    let terms: Vec<f64> = (0..n).map(|j| l(i, j) * d[j] * want_x0[j]).collect();
                    let want: f64 = terms.iter().sum();
                    // x0 carries its own rounding: bound by |L|·d·|L|ᵀ|p|.
                    let abs: f64 = (0..n)
                        .map(|j| (l(i, j) * d[j]).abs() * (0..n).map(|k| (l(k, j) * x[k]).abs()).sum::<f64>())
                        .sum();
                    assert!(
                        (got - want).abs() <= 2.0 * bound(n, abs),
                        "L·d·Lᵀp n {n} threads {threads} i {i}"
                    );
                }
            }
        }
    }

    /// Work is split among threads only above the threshold, and never into
    /// more parts than columns.
    #[test]
    fn threading_follows_the_size() {
        assert_eq!(threads_for(100, 2), 1);
        assert_eq!(threads_for(2000, 2), 2);
        assert_eq!(threads_for(2000, 0), 1);
        let big = 600; // 600·601/2 = 180300 ≥ 2^17
        assert_eq!(threads_for(big, 3), 3);
    }
}
