//! The BLS fitted from chunks of rows (`fit_chunks`) and from shards on
//! several processes (`fit_shards`, on threads) against the in-memory fit:
//! the same random draws bit for bit; the extremes and the enhancement scale
//! those of all the rows, to the rounding of a row's products
//! (`assert_statistics_attained`); β, extremes, scale, output weights and
//! predictions within bounds derived from the conditioning of the lasso and
//! of the readout (`assert_close`); every process of a sharded fit with the
//! same model bit for bit; failures named, on every process.

mod common;

use common::{a_b, at_b, fro, fro_diff, gauss_solve, ridge_tolerance, rng, spectrum, sym_eigenvalues, U};
use linalg_core::ridge::Strategy;
use models::bls::{lasso_admm, Bls, BlsParams, BlsValidParams, Chunk, FeatureGroup, BIAS_INPUT};
use models::prelude::*;
use models::{ModelError, ReadoutSolver};
use ndarray::{s, Array2, ArrayView1};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use test_support::run_on_threads;

/// Higham's `γ_j = j·u / (1 − j·u)`.
fn gamma(j: usize) -> f64 {
    let ju = j as f64 * U;
    ju / (1.0 - ju)
}

/// K samples of d inputs; ill-conditioned: the columns scaled by 10^[−3, 3]
/// and the last one a copy of the first up to a relative 10⁻⁷. Two targets.
fn data(seed: u64, k: usize, d: usize, ill: bool) -> (Array2<f64>, Array2<f64>) {
    let mut r = rng(seed);
    let u = r.uniform_matrix(k, d, -1.0, 1.0);
    let noise = r.gaussian(k, 2);
    let mut x = u.clone();
    if ill {
        if d >= 2 {
            let first = x.column(0).to_owned();
            x.column_mut(d - 1)
                .assign(&(&first + &noise.column(1).mapv(|v| 1e-7 * v)));
        }
        for j in 0..d {
            let scale = 10f64.powf(r.range(-3.0, 3.0));
            x.column_mut(j).mapv_inplace(|v| v * scale);
        }
    }
    let y = Array2::from_shape_fn((k, 2), |(i, c)| match c {
        0 => (2.0 * u[[i, 0]] + u[[i, d - 1]]).sin(),
        _ => u[[i, 0]] * u[[i, d / 2]] + 0.1 * noise[[i, 0]],
    });
    (x, y)
}

/// The rows `lo..hi` of `x`, `y` in chunks of `size` rows.
fn pieces(x: &Array2<f64>, y: &Array2<f64>, lo: usize, hi: usize, size: usize) -> Vec<Chunk> {
    (lo..hi)
        .step_by(size.max(1))
        .map(|a| {
            let b = (a + size.max(1)).min(hi);
            (x.slice(s![a..b, ..]).to_owned(), y.slice(s![a..b, ..]).to_owned())
        })
        .collect()
}

/// The rows of `x`, `y` cut at `bounds` (sorted, from 0 to K).
fn cut(x: &Array2<f64>, y: &Array2<f64>, bounds: &[usize]) -> Vec<Chunk> {
    bounds
        .windows(2)
        .map(|w| {
            (
                x.slice(s![w[0]..w[1], ..]).to_owned(),
                y.slice(s![w[0]..w[1], ..]).to_owned(),
            )
        })
        .collect()
}

/// A reader of `chunks`: each call yields them again.
fn reader(chunks: &[Chunk]) -> impl FnMut() -> std::vec::IntoIter<models::Result<Chunk>> + '_ {
    move || chunks.iter().cloned().map(Ok).collect::<Vec<_>>().into_iter()
}

/// The Euclidean norm of a vector.
fn norm(v: ArrayView1<'_, f64>) -> f64 {
    v.iter().map(|t| t * t).sum::<f64>().sqrt()
}

/// The statistics of `model` are those of all the rows of `chunks` (the
/// union of every shard's chunks): recomputed chunk by chunk from the
/// model's own maps, every feature column's minimum over the rows is 0 and
/// its maximum `(max − min)·gain`, and `shrink / max |[Z, 0.1]W_h|` is the
/// enhancement scale — up to the rounding of evaluating a row's products
/// twice, nothing more. (Not bit for bit: OpenBLAS's products of a row depend
/// on the rows in the call and, for one-column products, on where the chunk
/// lies in memory — measured — and a reader yields a new copy each pass.)
/// Two evaluations of `x̃·β_j` in any order differ by at most
/// `2γ_{d+2} Σ|x̃_i β_ij|`; so do `v + b`, the extreme recorded, and `Z`
/// up to the gain and the scaling's own roundings. An extreme or a maximum
/// missing the rows of one shard or chunk moves by the gap between rows,
/// far beyond.
fn assert_statistics_attained(model: &Bls, shrink: f64, chunks: &[Chunk]) -> Result<(), TestCaseError> {
    let e = model.expansion();
    let f = e.feature_nodes();
    let (mut lo, mut hi) = (vec![f64::INFINITY; f], vec![f64::NEG_INFINITY; f]);
    let mut tol = vec![0.0f64; f];
    let gains: Vec<f64> = e
        .feature_groups()
        .iter()
        .flat_map(|g| {
            g.min()
                .into_iter()
                .zip(g.max())
                .map(|(&mn, &mx)| gain(mn, mx))
                .collect::<Vec<_>>()
        })
        .collect();
    // Z rows (with the bias input) and the bound of their evaluation's error.
    let (mut h_max, mut e_h) = (0.0f64, 0.0f64);
    for (x, _) in chunks.iter().filter(|(x, _)| x.nrows() > 0) {
        let z = e.feature_outputs(x.view()).expect("feature outputs");
        let mut at = 0;
        for g in e.feature_groups() {
            for j in 0..g.nodes() {
                let c = z.column(at + j);
                lo[at + j] = c.iter().copied().fold(lo[at + j], f64::min);
                hi[at + j] = c.iter().copied().fold(hi[at + j], f64::max);
                let beta = g.beta().column(j).to_owned();
                let row_abs = x.rows().into_iter().map(|r| {
                    r.iter().zip(&beta).map(|(a, b)| (a * b).abs()).sum::<f64>()
                        + (BIAS_INPUT * beta[beta.len() - 1]).abs()
                });
                let worst = row_abs.fold(0.0, f64::max);
                tol[at + j] = tol[at + j].max(gains[at + j] * 2.0 * gamma(x.ncols() + 2) * worst + 4.0 * U);
            }
            at += g.nodes();
        }
        if let Some(g) = e.enhancement_groups().first() {
            let w = g.weights();
            for r in z.rows() {
                for wj in w.columns() {
                    let terms = r.iter().zip(wj.iter()).map(|(z, w)| z * w);
                    let v = terms.sum::<f64>() + BIAS_INPUT * wj[f];
                    let abs: f64 =
                        r.iter().zip(wj.iter()).map(|(z, w)| (z * w).abs()).sum::<f64>() + (BIAS_INPUT * wj[f]).abs();
                    let dz: f64 = tol.iter().zip(wj.iter()).map(|(t, w)| t * w.abs()).sum();
                    h_max = h_max.max(v.abs());
                    e_h = e_h.max(dz + 2.0 * gamma(f + 2) * abs);
                }
            }
        }
    }
    for j in 0..f {
        let (g, top) = (&gains[j], hi[j]);
        let (mn, mx) = feature_range(e, j);
        prop_assert!(
            lo[j].abs() <= tol[j],
            "feature {}: min over the rows {:e} ≠ 0 (± {:e})",
            j,
            lo[j],
            tol[j]
        );
        let expected = (mx - mn) * g;
        prop_assert!(
            (top - expected).abs() <= tol[j],
            "feature {}: max over the rows {:e} ≠ {:e} (± {:e})",
            j,
            top,
            expected,
            tol[j]
        );
    }
    if let Some(g) = e.enhancement_groups().first() {
        // scale = fl(shrink / h) with |h − h_max| ≤ e_h.
        let (low, high) = (shrink / (h_max + e_h) * (1.0 - U), shrink / (h_max - e_h) * (1.0 + U));
        prop_assert!(
            (low..=high).contains(&g.scale()),
            "enhancement scale {:e} ∉ shrink / max over all rows = [{:e}, {:e}]",
            g.scale(),
            low,
            high
        );
    }
    Ok(())
}

/// MATLAB `mapminmax`'s gain onto [0, 1] (1 for a constant column).
fn gain(mn: f64, mx: f64) -> f64 {
    if mx > mn && (1.0 / (mx - mn)).is_finite() {
        1.0 / (mx - mn)
    } else {
        1.0
    }
}

/// The stored extremes `(min, max)` of feature node `j` (creation order).
fn feature_range(e: &models::bls::Expansion, mut j: usize) -> (f64, f64) {
    for g in e.feature_groups() {
        if j < g.nodes() {
            return (g.min()[j], g.max()[j]);
        }
        j -= g.nodes();
    }
    panic!("no feature node {j}")
}

/// The node maps and weights of two fits, bit for bit.
fn assert_identical(a: &Bls, b: &Bls) -> Result<(), TestCaseError> {
    let (ea, eb) = (a.expansion(), b.expansion());
    for (ga, gb) in ea.feature_groups().iter().zip(eb.feature_groups()) {
        prop_assert_eq!(ga.beta(), gb.beta(), "β differs between processes");
        prop_assert_eq!(
            (ga.min(), ga.max()),
            (gb.min(), gb.max()),
            "extremes differ between processes"
        );
    }
    for (ga, gb) in ea.enhancement_groups().iter().zip(eb.enhancement_groups()) {
        prop_assert_eq!(ga.weights(), gb.weights(), "W_h differs between processes");
        prop_assert_eq!(
            ga.scale().to_bits(),
            gb.scale().to_bits(),
            "scale differs between processes"
        );
    }
    prop_assert_eq!(a.output_weights(), b.output_weights(), "W differs between processes");
    Ok(())
}

/// `other` is `reference` (a fit of `p` to all the rows `x`, `y`) up to
/// rounding: sums in another order, a row's products in other shapes. The
/// bounds, first order, each with a factor `C = 2`
/// for the neglected terms; `u` the unit roundoff, `γ_j = ju/(1 − ju)`:
///
/// 1. **Lasso inputs.** `A1 = X̃W_e` (the same draw,
///    [`FeatureGroup::random_map`]) scaled onto [−1, 1]. A row's product is
///    evaluated within `δ_kj = γ_{d+2}Σ_i|x̃_ki w_ij|` in each fit, so the
///    extremes move by `2δ_j` (`δ_j = max_k δ_kj`) and, with the range
///    `r_j`, `|ΔA1| ≤ 16δ_j/r_j + 6u =: a_j` (`≤ 2` if `r_j ≤ 8δ_j`). The
///    sums in another order add `2γ_K` of the sums of absolute values:
///    `‖ΔG‖ ≤ 2γ_K‖|A1|ᵀ|A1|‖ + 2K√N‖a‖` for `G = A1ᵀA1`,
///    `‖ΔB‖ ≤ 2γ_K‖|A1|ᵀ|X̃|‖ + ‖a‖‖Σ_k|x̃_k|‖` for `B = A1ᵀX̃` (`A1`, `G`,
///    `B` recomputed here by loops).
/// 2. **ADMM matrices.** `L1 = (G + I)⁻¹`, `‖L1‖ = 1/(λ_min(G) + 1) ≤ 1`,
///    `κ = κ(G + I)` from `G`'s eigenvalues (Jacobi):
///    `‖ΔL1‖ ≤ ‖L1‖²‖ΔG‖ + 2γ_{3N}κ‖L1‖` (the perturbation, then each fit's
///    inversion error); `L2 = L1 B`:
///    `‖ΔL2‖ ≤ ‖ΔL1‖‖B‖ + ‖L1‖‖ΔB‖ + 2γ_N‖L1‖‖B‖`.
/// 3. **β.** Chen's ADMM is Douglas–Rachford on `s = c + u` with
///    `prox_f(v) = L2 + L1 v` and `prox_g` the soft threshold: a
///    nonexpansive map, so two runs drift apart by at most the sum over the
///    `T` iterations of the difference of their `prox_f` at the same point,
///    `‖ΔL1‖ρ + ‖ΔL2‖`, plus each run's rounding `γ_{N+3}(ρ + ‖B‖)`. Here
///    `ρ ≥ ‖o_t − u_t‖ ≤ ‖s_t‖ ≤ 2‖s*‖ + ‖L2‖` (the reflection through the
///    threshold fixes 0; `s_1 = L2`), with `s* = o* + u*`, `|u*| ≤ μ` and the
///    lasso solution `o*` estimated by the fitted `β`. The lasso of the `A1`
///    formed here ([`lasso_admm`]) is within the same bound of `reference`'s
///    `β` (which checks the draw of `W_e` too).
/// 4. **Extremes of `X̃β`.** Row `k` moves by `‖x̃_k‖(‖Δβ‖ + 2γ_{d+2}‖β_j‖)`
///    and so do the column extremes: `e_j`.
/// 5. **`Z`.** `Z = (v − min)·g`, `g = 1/(max − min)`, `|Z| ≤ 1`:
///    `|ΔZ| ≤ 4 g e_j + 4u` — unless `max − min ≤ 4e_j` (a column constant up
///    to rounding, whose scaling is not continuous): then only `|ΔZ| ≤ 1`.
/// 6. **Enhancement.** `V = [Z, 0.1]W_h`: `|ΔV| ≤ (max_k‖ΔZ_k‖ +
///    2γ_{F+2}‖z̃_k‖)·max_j‖w_j‖ = e_V`; the scale `s = shrink/max|V|`:
///    `|Δs| ≤ s(e_V/(max|V| − e_V) + 2u)`; `H = tanh(sV)`:
///    `|ΔH| ≤ |Δs| max|V| + s e_V`.
/// 7. **Readout.** `‖ΔA‖` is within the bound of 5–6 (checked); with
///    `R = AᵀA + λI`, perturbing `RW = AᵀY` by the `ΔA` measured gives
///    `‖ΔW‖ ≤ ‖R⁻¹‖‖ΔA‖(‖Y‖ + 2‖A‖‖W‖)` — `κ(R)`-sized, `‖R⁻¹‖‖A‖² ≤ κ(R)`
///    — plus the two solves' rounding ([`ridge_tolerance`], 2 steps: forming
///    `AᵀA` in another order is within its `γ_K‖A‖²`). And `other`'s `W` is
///    the ridge solution of its own `A` ([`assert_own_ridge`]).
/// 8. **Predictions** on the training rows: `‖ΔP‖ ≤ ‖ΔA‖‖W‖ + ‖A‖‖ΔW‖ +
///    2γ_n‖A‖‖W‖`.
fn assert_close(
    reference: &Bls,
    other: &Bls,
    p: &BlsValidParams,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<(), TestCaseError> {
    const C: f64 = 2.0;
    let (er, eo) = (reference.expansion(), other.expansion());
    prop_assert_eq!(er.blocks(), eo.blocks());
    prop_assert_eq!(
        (reference.lambda(), reference.strategy()),
        (other.lambda(), other.strategy())
    );
    let (k, d) = x.dim();
    let n = p.feature_nodes();
    let xt = ndarray::concatenate![ndarray::Axis(1), x.view(), Array2::from_elem((k, 1), BIAS_INPUT)];
    let max_row = xt.rows().into_iter().map(norm).fold(0.0, f64::max);
    let abs_xt = xt.mapv(f64::abs);
    let col_abs_sums = abs_xt.sum_axis(ndarray::Axis(0));
    let iterations = p.admm_iterations() as f64;
    let threshold = p.sparse_mu() * ((n * (d + 1)) as f64).sqrt();
    let mut z_tol = Vec::new();
    for (i, (gr, go)) in er.feature_groups().iter().zip(eo.feature_groups()).enumerate() {
        // 1.
        let we = FeatureGroup::random_map(p.seed(), i, d, n);
        let mut a1 = a_b(xt.view(), we.view());
        let delta = a_b(abs_xt.view(), we.mapv(f64::abs).view());
        let mut a_err = ndarray::Array1::<f64>::zeros(n);
        for (j, mut c) in a1.columns_mut().into_iter().enumerate() {
            let (lo, hi) = (
                c.fold(f64::INFINITY, |m, &v| m.min(v)),
                c.fold(f64::NEG_INFINITY, |m, &v| m.max(v)),
            );
            let (r, dj) = (hi - lo, gamma(d + 2) * delta.column(j).fold(0.0f64, |m, &v| m.max(v)));
            a_err[j] = if r > 8.0 * dj { 16.0 * dj / r + 6.0 * U } else { 2.0 };
            c.mapv_inplace(|v| (v - lo) * (2.0 / r) - 1.0);
        }
        let abs_a1 = a1.mapv(f64::abs);
        let g = at_b(a1.view(), a1.view());
        let b = at_b(a1.view(), xt.view());
        let e_g = 2.0 * gamma(k + 2) * fro(at_b(abs_a1.view(), abs_a1.view()).view())
            + 2.0 * k as f64 * (n as f64).sqrt() * norm(a_err.view());
        let e_b = 2.0 * gamma(k + 2) * fro(at_b(abs_a1.view(), abs_xt.view()).view())
            + norm(a_err.view()) * norm(col_abs_sums.view());
        // 2.
        let ev = sym_eigenvalues(g.view());
        let l1 = 1.0 / (ev[0].max(0.0) + 1.0);
        let kappa = (ev[n - 1] + 1.0) * l1;
        let b_norm = fro(b.view());
        let e_l1 = l1 * l1 * e_g + 2.0 * gamma(3 * n) * kappa * l1;
        let e_l2 = e_l1 * b_norm + l1 * e_b + 2.0 * gamma(n) * l1 * b_norm;
        // 3.
        let rho = 2.0 * (fro(gr.beta()) + threshold) + l1 * b_norm;
        let tol_beta = C * iterations * (e_l1 * rho + e_l2 + 2.0 * gamma(n + 3) * (rho + b_norm));
        let db = fro_diff(gr.beta(), go.beta());
        prop_assert!(db <= tol_beta, "group {}: ‖Δβ‖ = {:.3e} > {:.3e}", i, db, tol_beta);
        let lasso = lasso_admm(a1.view(), xt.view(), p.sparse_mu(), p.admm_iterations()).expect("lasso");
        let dl = fro_diff(gr.beta(), lasso.t());
        prop_assert!(
            dl <= tol_beta,
            "group {}: ‖β − lasso(A1)‖ = {:.3e} > {:.3e}",
            i,
            dl,
            tol_beta
        );
        // 4–5.
        for j in 0..n {
            let e_j = max_row * (tol_beta + 2.0 * gamma(d + 2) * norm(gr.beta().column(j)));
            let (dlo, dhi) = ((gr.min()[j] - go.min()[j]).abs(), (gr.max()[j] - go.max()[j]).abs());
            prop_assert!(
                dlo.max(dhi) <= C * e_j,
                "group {} node {}: extremes move {:.3e}, {:.3e} > {:.3e}",
                i,
                j,
                dlo,
                dhi,
                C * e_j
            );
            let range = gr.max()[j] - gr.min()[j];
            z_tol.push(if range > 4.0 * e_j {
                C * (4.0 * e_j / range + 4.0 * U)
            } else {
                1.0
            });
        }
    }
    let (zr, zo) = (
        er.feature_outputs(x.view()).expect("Z"),
        eo.feature_outputs(x.view()).expect("Z"),
    );
    for ((kj, a), b) in zr.indexed_iter().zip(zo.iter()) {
        prop_assert!(
            (a - b).abs() <= z_tol[kj.1],
            "Z[{:?}] differs by {:.3e} > {:.3e}",
            kj,
            (a - b).abs(),
            z_tol[kj.1]
        );
    }
    let dz_row = z_tol.iter().map(|t| t * t).sum::<f64>().sqrt();
    let mut e_a2 = k as f64 * dz_row * dz_row;
    // 6.
    for (gr, go) in er.enhancement_groups().iter().zip(eo.enhancement_groups()) {
        prop_assert_eq!(gr.weights(), go.weights(), "the same draws of W_h");
        let f = gr.inputs().len();
        let w_col = gr.weights().columns().into_iter().map(norm).fold(0.0, f64::max);
        let e_v = (dz_row + 2.0 * gamma(f + 2) * (f as f64 + 0.01).sqrt()) * w_col;
        let v_max = p.shrink() / gr.scale();
        let e_s = if v_max > 2.0 * e_v {
            C * gr.scale() * (e_v / (v_max - e_v) + 2.0 * U)
        } else {
            f64::INFINITY
        };
        let ds = (gr.scale() - go.scale()).abs();
        prop_assert!(ds <= e_s, "enhancement scale moves {:.3e} > {:.3e}", ds, e_s);
        let e_h = e_s * v_max + gr.scale() * e_v + 4.0 * U;
        e_a2 += (k * gr.nodes()) as f64 * e_h * e_h;
    }
    // 7. `A` moves by ΔA within the bound of 5–6; the readouts are then
    // compared for the ΔA measured.
    let a = reference.hidden_outputs(x.view()).expect("A");
    let a_other = other.hidden_outputs(x.view()).expect("A");
    let da = fro_diff(a.view(), a_other.view());
    prop_assert!(da <= e_a2.sqrt(), "‖ΔA‖ = {:.3e} > {:.3e}", da, e_a2.sqrt());
    let w = reference.output_weights();
    let sp = spectrum(a.view());
    let lambda = reference.lambda();
    let r_inv = 1.0 / (sp.sigma_min * sp.sigma_min + lambda);
    let e_w = ridge_tolerance(a.view(), y.view(), w, lambda, 2, 1)
        + C * r_inv * da * (fro(y.view()) + 2.0 * sp.norm_a * fro(w));
    let dw = fro_diff(w, other.output_weights());
    prop_assert!(dw <= e_w, "‖ΔW‖ = {:.3e} > {:.3e}", dw, e_w);
    // 8.
    let e_p = C * (da * fro(w) + sp.norm_a * e_w + 2.0 * gamma(a.ncols()) * sp.norm_a * fro(w));
    let (pr, po) = (
        reference.predict(x.view()).expect("P"),
        other.predict(x.view()).expect("P"),
    );
    let dp = fro_diff(pr.view(), po.view());
    prop_assert!(dp <= e_p, "‖ΔP‖ = {:.3e} > {:.3e}", dp, e_p);
    assert_own_ridge(other, x, y)
}

/// The output weights of `model` are the ridge solution of its own `A` on
/// all the rows `x`, `y`: Gaussian elimination on the normal equations
/// (plain loops) within the forward-error bound of two such solves
/// ([`ridge_tolerance`]; the order of the sums is within its `γ_K‖A‖²`).
fn assert_own_ridge(model: &Bls, x: &Array2<f64>, y: &Array2<f64>) -> Result<(), TestCaseError> {
    let a = model.hidden_outputs(x.view()).expect("A");
    let mut g = at_b(a.view(), a.view());
    g.diag_mut().mapv_inplace(|v| v + model.lambda());
    let w_ref = gauss_solve(g.view(), at_b(a.view(), y.view()).view());
    let tol = ridge_tolerance(a.view(), y.view(), w_ref.view(), model.lambda(), 2, 1);
    let dw = fro_diff(model.output_weights(), w_ref.view());
    prop_assert!(dw <= tol, "‖W − W*‖ = {:.3e} > {:.3e} on the model's own A", dw, tol);
    Ok(())
}

/// The readouts a BLS fit may have (all but least squares).
fn solver(index: usize) -> ReadoutSolver {
    [
        ReadoutSolver::Ridge,
        ReadoutSolver::Strategy(Strategy::Chol2),
        ReadoutSolver::Strategy(Strategy::RInv),
        ReadoutSolver::Strategy(Strategy::DRdg),
    ][index % 4]
}

fn params(groups: usize, nodes: usize, enhancement: usize, log_lambda: f64, seed: u64, s: usize) -> BlsValidParams {
    BlsParams::new(groups, nodes, enhancement)
        .with_lambda(10f64.powf(log_lambda))
        .with_seed(seed)
        .with_solver(solver(s))
        .check()
        .expect("valid parameters")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Under random chunkings (one chunk and one row per chunk included),
    /// `fit_chunks` draws the same maps, records the extremes and the scale
    /// of all the rows, and equals the in-memory fit within the derived
    /// bounds.
    #[test]
    fn a_fit_from_chunks_equals_the_in_memory_fit(
        seed in any::<u64>(),
        k in 12usize..90,
        d in 1usize..6,
        ill in any::<bool>(),
        groups in 1usize..4,
        nodes in 1usize..5,
        enhancement in 0usize..25,
        log_lambda in -8.0f64..0.0,
        cuts in proptest::collection::vec(0.0f64..1.0, 0..6),
        one_row in any::<bool>(),
        s in 0usize..4,
    ) {
        let (x, y) = data(seed, k, d, ill);
        let p = params(groups, nodes, enhancement, log_lambda, seed, s);
        let whole = p.fit(&Dataset::new(x.view(), y.view())).expect("in-memory fit");
        let chunks = if one_row {
            pieces(&x, &y, 0, k, 1)
        } else {
            let mut bounds: Vec<usize> = cuts.iter().map(|c| (c * k as f64) as usize).collect();
            bounds.extend([0, k]);
            bounds.sort_unstable();
            cut(&x, &y, &bounds)
        };
        let streamed = p.fit_chunks(reader(&chunks)).expect("fit from chunks");
        assert_statistics_attained(&streamed, p.shrink(), &chunks)?;
        assert_close(&whole, &streamed, &p, &x, &y)?;
    }

    /// `fit_shards` on 1, 2 and 3 threads (contiguous shards, each read in
    /// chunks of `size` rows): every thread returns the same model bit for
    /// bit, with the statistics of all the shards' rows, equal to
    /// `fit_chunks` on all the rows within the derived bounds.
    #[test]
    fn a_fit_from_shards_equals_the_fit_from_chunks(
        seed in any::<u64>(),
        k in 12usize..90,
        d in 1usize..6,
        ill in any::<bool>(),
        groups in 1usize..4,
        nodes in 1usize..5,
        enhancement in 0usize..25,
        log_lambda in -8.0f64..0.0,
        size in 1usize..30,
        s in 0usize..4,
    ) {
        let (x, y) = data(seed, k, d, ill);
        let p = params(groups, nodes, enhancement, log_lambda, seed, s);
        let all = pieces(&x, &y, 0, k, size);
        let streamed = p.fit_chunks(reader(&all)).expect("fit from chunks");
        for processes in 1..=3 {
            let shards: Vec<Vec<Chunk>> = (0..processes)
                .map(|r| pieces(&x, &y, k * r / processes, k * (r + 1) / processes, size))
                .collect();
            let fits = run_on_threads(processes, |world| p.fit_shards(world, reader(&shards[world.rank()])));
            let fits: Vec<Bls> = fits.into_iter().map(|f| f.expect("fit from shards")).collect();
            for other in &fits[1..] {
                assert_identical(&fits[0], other)?;
            }
            let union: Vec<Chunk> = shards.concat();
            assert_statistics_attained(&fits[0], p.shrink(), &union)?;
            assert_close(&streamed, &fits[0], &p, &x, &y)?;
        }
    }
}

/// Every thread's outcome is an error naming `process` and containing `what`.
fn assert_all_fail(outcomes: Vec<models::Result<Bls>>, process: usize, what: &str) {
    for (rank, o) in outcomes.into_iter().enumerate() {
        let message = o.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains(&format!("process {process}: ")) && message.contains(what),
            "thread {rank}: {message:?} does not name process {process} and {what:?}"
        );
    }
}

#[test]
fn a_failing_shard_fails_every_process_naming_it() {
    let (x, y) = data(3, 60, 3, false);
    let p = params(2, 3, 10, -4.0, 3, 0);
    // A shard without rows (three processes, the second one's empty).
    let shards = [pieces(&x, &y, 0, 30, 7), Vec::new(), pieces(&x, &y, 30, 60, 7)];
    let out = run_on_threads(3, |w| p.fit_shards(w, reader(&shards[w.rank()])));
    assert_all_fail(out, 1, "this process's shard");
    // A reader failing on the last process, in a later pass (the third call).
    let shards = [pieces(&x, &y, 0, 30, 7), pieces(&x, &y, 30, 60, 7)];
    let out = run_on_threads(2, |w| {
        let mut calls = 0;
        let mut read = reader(&shards[w.rank()]);
        p.fit_shards(w, move || {
            calls += 1;
            let mut chunks: Vec<models::Result<Chunk>> = read().collect();
            if w.rank() == 1 && calls == 3 {
                chunks.push(Err(ModelError::InvalidParameter {
                    name: "reader",
                    value: "part-0001.csv".into(),
                    reason: "truncated file",
                }));
            }
            chunks.into_iter()
        })
    });
    assert_all_fail(out, 1, "part-0001.csv");
    // A shard whose chunks have another number of inputs.
    let (x4, y4) = data(4, 30, 4, false);
    let shards = [pieces(&x, &y, 0, 30, 7), pieces(&x4, &y4, 0, 30, 7)];
    let out = run_on_threads(2, |w| p.fit_shards(w, reader(&shards[w.rank()])));
    for o in out {
        let message = o.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("3 to 4 inputs"), "{message:?}");
    }
}

#[test]
fn chunk_errors_are_named() {
    let (x, y) = data(5, 20, 2, false);
    let p = params(2, 2, 5, -3.0, 1, 0);
    // Minimum-norm least squares is refused by the check, which is the
    // only way to parameters that fit from chunks.
    let lstsq = BlsParams::new(2, 2, 5).with_solver(ReadoutSolver::Lstsq).check();
    assert!(matches!(
        lstsq,
        Err(ModelError::InvalidParameter { name: "solver", .. })
    ));
    // No rows at all.
    assert!(matches!(
        p.fit_chunks(reader(&[(Array2::zeros((0, 2)), Array2::zeros((0, 2)))])),
        Err(ModelError::Linalg(linalg_core::Error::Empty { .. }))
    ));
    // A chunk with another number of inputs, or of targets.
    for (x2, y2) in [
        (Array2::ones((4, 3)), Array2::ones((4, 2))),
        (Array2::ones((4, 2)), Array2::ones((4, 1))),
    ] {
        let chunks = [
            (x.slice(s![..10, ..]).to_owned(), y.slice(s![..10, ..]).to_owned()),
            (x2, y2),
        ];
        assert!(matches!(
            p.fit_chunks(reader(&chunks)),
            Err(ModelError::Linalg(linalg_core::Error::Shape { .. }))
        ));
    }
    // A NaN in a chunk.
    let mut bad = x.clone();
    bad[[13, 1]] = f64::NAN;
    assert!(matches!(
        p.fit_chunks(reader(&pieces(&bad, &y, 0, 20, 5))),
        Err(ModelError::Linalg(linalg_core::Error::NonFinite { .. }))
    ));
    // A reader's error is passed through.
    let failing = || {
        vec![Err(ModelError::InvalidParameter {
            name: "reader",
            value: "chunk 2".into(),
            reason: "broken file",
        })]
        .into_iter()
    };
    assert!(matches!(
        p.fit_chunks(failing),
        Err(ModelError::InvalidParameter { name: "reader", .. })
    ));
    // A reader that yields other rows in a later pass.
    let mut calls = 0;
    let all = pieces(&x, &y, 0, 20, 5);
    let shrinking = || {
        calls += 1;
        let n = if calls == 1 { 4 } else { 3 };
        all[..n].iter().cloned().map(Ok).collect::<Vec<_>>().into_iter()
    };
    let message = p.fit_chunks(shrinking).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("later pass"), "{message:?}");
}
