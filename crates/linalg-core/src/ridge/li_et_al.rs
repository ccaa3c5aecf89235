//! **Li et al.** — the existing inverse-free ELM (Li et al. 2016), the
//! baseline of Zhu & Wei's comparison (their Sec. III, eqs. (12)–(16)).
//!
//! Keeps the regularized pseudo-inverse `B = A(AᵀA + λI)⁻¹` (K×n; the
//! paper's `B = Hᵀ(HHᵀ + k₀²I)⁻¹` in its transposed notation) and, for each
//! new column `h` (`c = hᵀh + λ`, `p = Aᵀh`), evaluates eqs. (15) and (16)
//! with matrix–vector products (never a K×K matrix):
//!
//! ```text
//! B̃ = (cI − hhᵀ) B p hᵀB / (c (c − hᵀBp))  +  (cI − hhᵀ) B / c     (15)
//! b̄ = (h − B̃ p) / c                                                  (16)
//! B' = [B̃ b̄]  (14),     W = Bᵀ Y  (13, recomputed in full)
//! ```
//!
//! Evaluation order. With `u = B p`, `v = Bᵀh` (`= (hᵀB)ᵀ`) and `s = hᵀu`,
//! both terms of (15) are rank-one terms along `vᵀ`:
//!
//! ```text
//! B̃ = B + x vᵀ − h vᵀ/c = B + z vᵀ,   x = (c u − h s) / (c (c − s)),   z = x − h/c
//! B̃ p = u + z (vᵀp)    so    b̄ = (h − u − z (vᵀp)) / c                (exactly)
//! ```
//!
//! so a node streams `K×n` memory 4 times (instead of 9 when (15) and (16)
//! are evaluated term by term, with two rank-one updates and a product
//! `B̃p`):
//!
//! 1. `p = Aᵀh`: one read of `A`;
//! 2. `u = B p` and `v = Bᵀh` together: one read of `B`, in blocks of
//!    [`ROW_BLOCK`] rows whose slices of `u` and `h` stay in L1 while the
//!    columns stream past;
//! 3. `B̃ = B + z vᵀ` and (13) `W = [B̃ b̄]ᵀ Y` together: one read and one
//!    write of `B`, in [`ROW_BLOCK`]` × `[`COL_BLOCK`] tiles, each multiplied
//!    by its rows of `Y` while it is still in L2.
//!
//! Flops per node: `2Kn (p) + 4Kn (u, v) + 2Kn (the rank-one update) +
//! 2K(n+1)M (W)` `= 8Kn + 2K(n+1)M`, plus `14K + 2n` (`c`, `s`, `z`, `b̄`,
//! `vᵀp`). Term by term the same update costs `12Kn + 2K(n+1)M`: the two
//! rank-one terms of (15) `2·2Kn` and `B̃p` another `2Kn`, where the fused
//! form pays one rank-one update and no product with `B̃`. The paper's
//! Table I counts `16lK + 2MlK` for its evaluation order. q > 1 columns are
//! added one at a time.

use super::problem::Problem;
use crate::error::Result;
use crate::kernels::{self, Flops, MatMut, MatRef, Op};
use crate::store::GrowMat;

/// Rows of `B` per block in both sweeps: the block's slices of `h`, `u` and
/// `z` (4 KB each) stay in L1 while the columns of the block stream past.
const ROW_BLOCK: usize = 512;

/// Columns per tile of the second sweep: a [`ROW_BLOCK`]` × COL_BLOCK` tile
/// (512 KB) stays in L2 between its rank-one update and its product with `Y`.
const COL_BLOCK: usize = 128;

/// Rows per partial sum of `v = Bᵀh` in the first sweep. Fixed, so that the
/// result does not depend on the number of threads.
const ROW_CHUNK: usize = 8 * ROW_BLOCK;

/// Add one column `h` (length K) to Li et al.'s state `B = (A⁺_λ)ᵀ` and the
/// weights `w`, adding its flops to `fl`.
///
/// `B` is changed only once every check has passed: on error the state is
/// as before the call.
pub(super) fn append_column(
    pr: &mut Problem,
    b: &mut GrowMat,
    w: &mut GrowMat,
    fl: &mut Flops,
    h: &[f64],
) -> Result<()> {
    let (k, n, m) = (pr.k(), pr.n(), pr.m());
    // c = hᵀh + λ, p = Aᵀh (21);  u = B p and v = Bᵀh (= (hᵀB)ᵀ) in one
    // read of B;  s = hᵀBp.
    let (c, p) = pr.column_products(fl, h);
    let (u, v) = products_in_one_sweep(b.as_ref(), &p, h, crate::threads::blas_threads());
    fl.add(4 * k * n);
    let s = kernels::dot(fl, h, &u);
    let denom = c * (c - s);
    if !(c - s > 0.0 && denom.is_finite()) {
        return Err(pr.not_pd("c − hᵀBp (eq. (15) denominator)", 1, n, n + 1));
    }
    // (15) as one rank-one term: B̃ = B + z vᵀ with z = x − h/c, where
    // x = (c u − h s) / (c (c − s)) is the first term's and −h/c the second's.
    let z: Vec<f64> = u
        .iter()
        .zip(h)
        .map(|(ui, hi)| (c * ui - hi * s) / denom - hi / c)
        .collect();
    fl.add(6 * k);
    // (16): b̄ = (h − B̃ p)/c with B̃ p = u + z (vᵀp).
    let vp = kernels::dot(fl, &v, &p);
    let b_bar: Vec<f64> = h
        .iter()
        .zip(&u)
        .zip(&z)
        .map(|((hi, ui), zi)| (hi - ui - zi * vp) / c)
        .collect();
    fl.add(4 * k);
    pr.check_finite(&b_bar, n, n + 1, "non-finite b̄")?;
    // (14), then (15) applied to the first n columns and (13) W = B'ᵀY, in
    // one sweep over B'.
    b.push_cols(MatRef::new(&b_bar, k, 1, k));
    pr.a.push_cols(MatRef::new(h, k, 1, k));
    w.resize(n + 1, m);
    update_and_weights(
        fl,
        b.as_mut(),
        &z,
        &v,
        pr.y.as_ref(),
        w.as_mut(),
        crate::threads::blas_threads(),
    );
    Ok(())
}

/// `u = B p` (K) and `v = Bᵀh` (n) for a column-major `B` (K×n) in one read
/// of `B` (`4Kn` flops, which the caller counts).
///
/// Blocks of [`ROW_BLOCK`] rows: for each column `j`, `v[j]` gains the
/// block's `B[blk, j]·h[blk]` and `u[blk]` gains `p[j]·B[blk, j]`, so only
/// the columns of `B` stream from memory. Chunks of [`ROW_CHUNK`] rows keep
/// their own partial `v`, summed in chunk order at the end; the chunks are
/// shared among `threads` threads, and the result is the same for any
/// thread count.
fn products_in_one_sweep(b: MatRef<'_>, p: &[f64], h: &[f64], threads: usize) -> (Vec<f64>, Vec<f64>) {
    let (k, n) = (b.rows(), b.cols());
    assert!(p.len() == n && h.len() == k, "products_in_one_sweep: shapes");
    let mut u = vec![0.0; k];
    let mut partial = vec![0.0; k.div_ceil(ROW_CHUNK) * n];
    // Rows r0.. of one chunk: its slice of u and its partial v.
    let chunk = |r0: usize, u: &mut [f64], v: &mut [f64]| {
        for (i0, ub) in (r0..).step_by(ROW_BLOCK).zip(u.chunks_mut(ROW_BLOCK)) {
            let hb = &h[i0..i0 + ub.len()];
            for ((j, vj), pj) in v.iter_mut().enumerate().zip(p) {
                *vj += dot_and_axpy(&b.col(j)[i0..i0 + ub.len()], hb, *pj, ub);
            }
        }
    };
    let mut jobs: Vec<(usize, &mut [f64], &mut [f64])> = u
        .chunks_mut(ROW_CHUNK)
        .zip(partial.chunks_mut(n.max(1)))
        .enumerate()
        .map(|(c, (uc, vc))| (c * ROW_CHUNK, uc, vc))
        .collect();
    let threads = threads.clamp(1, 64).min(jobs.len());
    if threads <= 1 || n == 0 {
        for (r0, uc, vc) in jobs {
            chunk(r0, uc, vc);
        }
    } else {
        let share = jobs.len().div_ceil(threads);
        std::thread::scope(|scope| {
            while !jobs.is_empty() {
                let rest = jobs.split_off(share.min(jobs.len()));
                let mine = std::mem::replace(&mut jobs, rest);
                let chunk = &chunk;
                scope.spawn(move || {
                    for (r0, uc, vc) in mine {
                        chunk(r0, uc, vc);
                    }
                });
            }
        });
    }
    let mut v = vec![0.0; n];
    for vc in partial.chunks_exact(n.max(1)) {
        v.iter_mut().zip(vc).for_each(|(vj, x)| *vj += x);
    }
    (u, v)
}

/// `col·h`, and `u += pj·col`, in one pass over `col` (eight independent
/// accumulators for the dot product).
fn dot_and_axpy(col: &[f64], h: &[f64], pj: f64, u: &mut [f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let (cc, ch, cu) = (col.chunks_exact(8), h.chunks_exact(8), u.chunks_exact_mut(8));
    let tail_start = col.len() / 8 * 8;
    for ((x, y), w) in cc.zip(ch).zip(cu) {
        for t in 0..8 {
            acc[t] += x[t] * y[t];
            w[t] += pj * x[t];
        }
    }
    let mut tail = 0.0;
    for ((x, y), w) in col[tail_start..].iter().zip(&h[tail_start..]).zip(&mut u[tail_start..]) {
        tail += x * y;
        *w += pj * x;
    }
    ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail
}

/// `B[:, ..n] += z vᵀ` (`n = v.len()`, the rank-one update (15); the last
/// columns of `B`, here b̄, are left as they are) and `W = Bᵀ Y` (W is
/// `cols(B) × M`, overwritten), in one read and one write of `B`: tile by
/// tile, the update of a [`ROW_BLOCK`]` × `[`COL_BLOCK`] tile, then its
/// product with the same rows of `Y` (DGEMM, accumulated into `W` over the
/// row blocks) while the tile is in cache. `2Kn + 2K·cols(B)·M` flops.
///
/// The columns are shared among `threads` threads in contiguous groups of
/// whole tiles; each thread computes its rows of `W` with one-thread DGEMMs
/// (OpenBLAS is set to one thread for the sweep and restored after), so
/// every entry of `W` is summed over the same row blocks in the same order
/// for any thread count.
fn update_and_weights(
    fl: &mut Flops,
    b: MatMut<'_>,
    z: &[f64],
    v: &[f64],
    y: MatRef<'_>,
    mut w: MatMut<'_>,
    threads: usize,
) {
    let (k, cols, n, m) = (b.rows(), b.cols(), v.len(), y.cols());
    assert!(
        z.len() == k && n <= cols && y.rows() == k && w.rows() == cols && w.cols() == m,
        "update_and_weights: shapes"
    );
    let tiles = cols.div_ceil(COL_BLOCK);
    let threads = threads.clamp(1, 64).min(tiles.max(1));
    // Column groups: `share` tiles each.
    let share = tiles.div_ceil(threads).max(1);
    let mut groups: Vec<(usize, MatMut<'_>)> = vec![];
    let mut rest = b;
    let mut c0 = 0;
    while c0 < cols {
        let width = (share * COL_BLOCK).min(cols - c0);
        let (left, right) = rest.split_cols_at(width);
        groups.push((c0, left));
        rest = right;
        c0 += width;
    }
    // One group: the tile sweep of columns c0.. of B, its rows of W
    // (width × m, column-major) returned.
    let sweep = |c0: usize, mut g: MatMut<'_>| -> (Vec<f64>, u64) {
        let width = g.cols();
        let mut wg = vec![0.0; width * m];
        let mut gfl = Flops::default();
        for r0 in (0..k).step_by(ROW_BLOCK) {
            let rows = ROW_BLOCK.min(k - r0);
            let zb = &z[r0..r0 + rows];
            let yb = y.sub(r0, 0, rows, m);
            let beta = if r0 == 0 { 0.0 } else { 1.0 };
            for t0 in (0..width).step_by(COL_BLOCK) {
                let tw = COL_BLOCK.min(width - t0);
                let mut tile = g.rb_mut().sub(r0, t0, rows, tw);
                for jt in 0..tw {
                    let j = c0 + t0 + jt;
                    if j < n {
                        let vj = v[j];
                        for (x, zi) in tile.col_mut(jt).iter_mut().zip(zb) {
                            *x += zi * vj;
                        }
                    }
                }
                let wt = MatMut::new(&mut wg[t0..], tw, m, width);
                kernels::gemm(&mut gfl, 1.0, tile.rb(), Op::T, yb, Op::N, beta, wt);
            }
        }
        (wg, gfl.0)
    };
    let results: Vec<(usize, usize, Vec<f64>, u64)> = if groups.len() <= 1 {
        groups
            .into_iter()
            .map(|(c0, g)| {
                let width = g.cols();
                let (wg, f) = sweep(c0, g);
                (c0, width, wg, f)
            })
            .collect()
    } else {
        let outer = crate::threads::blas_threads();
        crate::threads::set_blas_threads(1);
        let r = std::thread::scope(|scope| {
            let handles: Vec<_> = groups
                .into_iter()
                .map(|(c0, g)| {
                    let sweep = &sweep;
                    scope.spawn(move || {
                        let width = g.cols();
                        let (wg, f) = sweep(c0, g);
                        (c0, width, wg, f)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        crate::threads::set_blas_threads(outer);
        r
    };
    for (c0, width, wg, f) in results {
        fl.0 += f;
        w.rb_mut()
            .sub(c0, 0, width, m)
            .copy_from(MatRef::new(&wg, width, m, width));
    }
    fl.add(2 * k * n);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hidden_store::Precision;
    use crate::kernels::Owned;
    use crate::ridge::Strategy;
    use ndarray::{Array2, CowArray};

    /// Uniform numbers in [−1, 1) from a fixed seed (xorshift64*).
    fn uniform(seed: u64, len: usize) -> Vec<f64> {
        let mut x = seed.max(1);
        (0..len)
            .map(|_| {
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                let r = x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
                r as f64 / (1u64 << 52) as f64 - 1.0
            })
            .collect()
    }

    /// The update as eqs. (15) and (16) read, term by term (9 passes over
    /// K×n data): the reference the fused update must reproduce.
    fn term_by_term(pr: &mut Problem, b: &mut GrowMat, w: &mut GrowMat, fl: &mut Flops, h: &[f64]) {
        let (k, n, m) = (pr.k(), pr.n(), pr.m());
        let (c, p) = pr.column_products(fl, h);
        let mut u = vec![0.0; k];
        kernels::gemv(fl, 1.0, b.as_ref(), Op::N, &p, 0.0, &mut u);
        let s = kernels::dot(fl, h, &u);
        let mut v = vec![0.0; n];
        kernels::gemv(fl, 1.0, b.as_ref(), Op::T, h, 0.0, &mut v);
        let denom = c * (c - s);
        let x: Vec<f64> = u.iter().zip(h).map(|(ui, hi)| (c * ui - hi * s) / denom).collect();
        kernels::ger(fl, 1.0, &x, &v, b.as_mut());
        kernels::ger(fl, -1.0 / c, h, &v, b.as_mut());
        let mut b_bar = h.to_vec();
        kernels::gemv(fl, -1.0, b.as_ref(), Op::N, &p, 1.0, &mut b_bar);
        b_bar.iter_mut().for_each(|v| *v /= c);
        b.push_cols(MatRef::new(&b_bar, k, 1, k));
        pr.a.push_cols(MatRef::new(h, k, 1, k));
        w.resize(n + 1, m);
        kernels::matmul(fl, b.as_ref(), Op::T, pr.y.as_ref(), Op::N, w.as_mut());
    }

    /// One sweep gives `B p` and `Bᵀh` as separate products do, over several
    /// row chunks and blocks with ragged ends, and the same bits on 1, 2 and
    /// 3 threads.
    #[test]
    fn one_sweep_products_match_separate_products_on_any_thread_count() {
        let (k, n) = (2 * ROW_CHUNK + ROW_BLOCK + 13, 37);
        let b = Owned::from_fn(k, n, |i, j| ((i * 13 + j * 7) % 17) as f64 / 17.0 - 0.4);
        let p = uniform(3, n);
        let h = uniform(4, k);
        let mut fl = Flops::default();
        let mut u_want = vec![0.0; k];
        kernels::gemv(&mut fl, 1.0, b.as_ref(), Op::N, &p, 0.0, &mut u_want);
        let v_want: Vec<f64> = (0..n).map(|j| (0..k).map(|i| b.at(i, j) * h[i]).sum()).collect();
        let (u1, v1) = products_in_one_sweep(b.as_ref(), &p, &h, 1);
        for (i, (x, y)) in u1.iter().zip(&u_want).enumerate() {
            assert!(
                (x - y).abs() <= 1e-13 * n as f64 * (1.0 + y.abs()),
                "u[{i}]: {x} vs {y}"
            );
        }
        for (j, (x, y)) in v1.iter().zip(&v_want).enumerate() {
            assert!(
                (x - y).abs() <= 1e-13 * k as f64 * (1.0 + y.abs()),
                "v[{j}]: {x} vs {y}"
            );
        }
        for threads in [2, 3] {
            assert_eq!(
                products_in_one_sweep(b.as_ref(), &p, &h, threads),
                (u1.clone(), v1.clone())
            );
        }
    }

    /// The fused update reproduces the term-by-term evaluation of (15)–(16)
    /// and (13) — `B` and `W` — with several row blocks and column tiles, and
    /// counts `8Kn + 2K(n+1)M + 14K + 2n` flops per node.
    #[test]
    fn fused_update_matches_term_by_term_evaluation() {
        let (k, n0, m, q) = (2 * ROW_BLOCK + 77, COL_BLOCK + 21, 3, 4);
        let a = Array2::from_shape_vec((k, n0 + q), uniform(1, k * (n0 + q))).unwrap();
        let y = Array2::from_shape_vec((k, m), uniform(2, k * m)).unwrap();
        let init = a.slice(ndarray::s![.., ..n0]);
        let mut pr = Problem::new(Strategy::LiEtAl, CowArray::from(init), y.view(), 0.1, Precision::F64).unwrap();
        let (mut b, mut w) = pr.start_ridge_inverse_t().unwrap();
        let (mut pr_ref, mut b_ref, mut w_ref) = (pr.clone(), b.clone(), w.clone());
        for j in n0..n0 + q {
            let h: Vec<f64> = a.column(j).to_vec();
            let n = pr.n();
            let mut fl = Flops::default();
            append_column(&mut pr, &mut b, &mut w, &mut fl, &h).unwrap();
            let (kf, nf, mf) = (k as u64, n as u64, m as u64);
            assert_eq!(fl.0, 8 * kf * nf + 2 * kf * (nf + 1) * mf + 14 * kf + 2 * nf);
            term_by_term(&mut pr_ref, &mut b_ref, &mut w_ref, &mut Flops::default(), &h);
        }
        assert_eq!((b.rows(), b.cols(), w.rows(), w.cols()), (k, n0 + q, n0 + q, m));
        let close = |x: ndarray::ArrayView2<'_, f64>, r: ndarray::ArrayView2<'_, f64>, what: &str| {
            let scale = r.iter().fold(0.0f64, |s, v| s.max(v.abs()));
            let err = x.iter().zip(r).fold(0.0f64, |s, (p, q)| s.max((p - q).abs()));
            assert!(err <= 1e-12 * scale, "{what}: max error {err:e}, scale {scale:e}");
        };
        close(b.view(), b_ref.view(), "B");
        close(w.view(), w_ref.view(), "W");
    }

    /// The update sweep gives the same bits of `B` and `W` on 1, 2 and 3
    /// threads (columns shared in whole tiles, ragged last tile), equal to a
    /// direct `B + z vᵀ` and `B̃ᵀY` to rounding, and restores OpenBLAS's
    /// thread count.
    #[test]
    fn update_sweep_is_the_same_on_any_thread_count() {
        let (k, cols, m) = (ROW_BLOCK + 100, 3 * COL_BLOCK + 5, 4);
        let n = cols - 1;
        let b0 = Owned::from_fn(k, cols, |i, j| ((i * 7 + j * 11) % 19) as f64 / 19.0 - 0.5);
        let y = Owned::from_fn(k, m, |i, j| ((i * 3 + j * 5) % 13) as f64 / 13.0 - 0.5);
        let (z, v) = (uniform(5, k), uniform(6, n));
        let before = crate::threads::blas_threads();
        let run = |threads: usize| {
            let mut b = Owned::from_ref(b0.as_ref());
            let mut w = Owned::zeros(cols, m);
            let mut fl = Flops::default();
            update_and_weights(&mut fl, b.as_mut(), &z, &v, y.as_ref(), w.as_mut(), threads);
            assert_eq!(fl.0, (2 * k * n + 2 * k * cols * m) as u64);
            (b.into_data(), w.into_data())
        };
        let one = run(1);
        for threads in [2, 3] {
            assert!(run(threads) == one, "{threads} threads differ from 1");
        }
        assert_eq!(crate::threads::blas_threads(), before);
        // Against the direct computation.
        let mut bd = b0.clone().into_array();
        for j in 0..n {
            for i in 0..k {
                bd[[i, j]] += z[i] * v[j];
            }
        }
        let wd = bd.t().dot(&y.clone().into_array());
        let (b1, w1) = one;
        let b1 = Array2::from_shape_vec((cols, k), b1).unwrap().reversed_axes();
        let w1 = Array2::from_shape_vec((m, cols), w1).unwrap().reversed_axes();
        let max_err = |x: &Array2<f64>, r: &Array2<f64>| x.iter().zip(r).fold(0.0f64, |s, (p, q)| s.max((p - q).abs()));
        assert!(max_err(&b1, &bd) == 0.0, "B differs from B + z vᵀ");
        // W: k terms of size ≤ 1 each: rounding ≤ k·ε per entry.
        assert!(max_err(&w1, &wd) <= k as f64 * f64::EPSILON, "W differs from B̃ᵀY");
    }

    /// A failing check leaves `B`, `W` and `A` as they were (the rank-one
    /// update comes after every check). A zero column with a tiny λ: the
    /// denominator `c (c − s) = λ²` underflows to 0 and `b̄` is NaN.
    #[test]
    fn failed_update_leaves_the_state_unchanged() {
        let (k, n0, m) = (50, 3, 2);
        let a = Array2::from_shape_vec((k, n0), uniform(5, k * n0)).unwrap();
        let y = Array2::from_shape_vec((k, m), uniform(6, k * m)).unwrap();
        let mut pr = Problem::new(
            Strategy::LiEtAl,
            CowArray::from(a.view()),
            y.view(),
            1e-300,
            Precision::F64,
        )
        .unwrap();
        let (mut b, mut w) = pr.start_ridge_inverse_t().unwrap();
        let (b0, w0) = (b.view().to_owned(), w.view().to_owned());
        let err = append_column(&mut pr, &mut b, &mut w, &mut Flops::default(), &vec![0.0; k]).unwrap_err();
        assert!(matches!(err, crate::error::Error::Breakdown { .. }), "{err}");
        assert_eq!(b.view(), b0.view());
        assert_eq!(w.view(), w0.view());
        assert_eq!(pr.n(), n0);
    }
}
