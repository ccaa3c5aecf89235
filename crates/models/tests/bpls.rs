//! BPLS (Tomic et al. 2024) against independent computations: every layer
//! step against Gaussian elimination on the normal equations (plain loops,
//! no BLAS), the documented reading of eq. (5) on networks whose exact
//! weights are known (a linear network it must recover from a random
//! start; a sigmoid network started at its true weights, which must be a
//! fixed point), Algorithm 2's pass on the misses and blend by hand, the
//! softmax targets, a softmax hidden layer, and the errors.

mod common;

use common::{a_b, at_b, fro, fro_diff, gauss_solve, ridge_tolerance, rng, spectrum, Rng, U};
use models::mlp::{loss_and_gradient, BplsAlgorithm, BplsParams, HiddenActivation, Mlp, OutputActivation};
use models::prelude::*;
use models::{Activation, ModelError};
use ndarray::{Array2, ArrayView2, Axis, Slice};
use proptest::prelude::*;

/// `[A, 1]`.
fn with_ones(a: ArrayView2<'_, f64>) -> Array2<f64> {
    let mut b = Array2::ones((a.nrows(), a.ncols() + 1));
    b.slice_axis_mut(Axis(1), Slice::from(..a.ncols())).assign(&a);
    b
}

/// `(AᵀA + λI)⁻¹AᵀT` by plain loops and Gaussian elimination.
fn ref_ridge(a: ArrayView2<'_, f64>, t: ArrayView2<'_, f64>, lambda: f64) -> Array2<f64> {
    let mut r = at_b(a, a);
    r.diag_mut().mapv_inplace(|v| v + lambda);
    gauss_solve(r.view(), at_b(a, t).view())
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The hidden layers' outputs by plain loops: `N_l = f([N_{l−1}, 1] W_l)`.
fn ref_hidden(weights: &[Array2<f64>], x: ArrayView2<'_, f64>, f: fn(f64) -> f64) -> Vec<Array2<f64>> {
    let mut out: Vec<Array2<f64>> = Vec::new();
    for w in &weights[..weights.len() - 1] {
        let a = out.last().map_or(x.to_owned(), Clone::clone);
        out.push(a_b(with_ones(a.view()).view(), w.view()).mapv(f));
    }
    out
}

fn uniform(rng: &mut Rng, rows: usize, cols: usize, lo: f64, hi: f64) -> Array2<f64> {
    rng.uniform_matrix(rows, cols, lo, hi)
}

/// `‖M‖₂` and `σ_min(M)` from the eigenvalues of `MᵀM` (the test's Jacobi).
fn norms(m: ArrayView2<'_, f64>) -> (f64, f64) {
    let s = spectrum(m);
    (s.norm_a, s.sigma_min)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// One layer step (eq. (6), eq. (5) as least squares, the clip, the
    /// re-estimation of Algorithm 2) equals the same steps by Gaussian
    /// elimination, within the normal equations' forward-error bound
    /// (derived from κ: `common::ridge_tolerance`).
    #[test]
    fn layer_step_equals_direct_solves(
        seed in any::<u64>(),
        k in 8usize..40,
        n in 1usize..8,
        m in 1usize..6,
        log_lambda in -8.0f64..0.0,
        log_mu in -8.0f64..0.0,
        reestimate in any::<bool>(),
    ) {
        let mut rng = rng(seed);
        // Neuron values in (0, 1), as a sigmoid layer's.
        let a = uniform(&mut rng, k, n, 0.01, 0.99);
        let t = rng.gaussian(k, m);
        let (lambda, mu) = (10f64.powf(log_lambda), 10f64.powf(log_mu));
        let p = BplsParams::new(vec![n]).with_lambda(lambda).with_target_ridge(mu).check().expect("valid");
        let step = p.layer_step(a.view(), t.view(), true, reestimate).expect("step");
        let a1 = with_ones(a.view());
        let w_ref = ref_ridge(a1.view(), t.view(), lambda);
        let w_first = if reestimate {
            // The weights before re-estimation are not returned: re-derive
            // them as the implementation would have, from the reference.
            w_ref.clone()
        } else {
            let tol = ridge_tolerance(a1.view(), t.view(), w_ref.view(), lambda, 1, 1);
            let err = fro_diff(step.weights.view(), w_ref.view());
            prop_assert!(err <= tol, "W: {err:.3e} > {tol:.3e}");
            step.weights.clone()
        };
        // Eq. (5): N̂ = clip(N + R Vᵀ(VVᵀ + μ'I)⁻¹), R = T − [N, 1]W.
        let v = w_first.slice_axis(Axis(0), Slice::from(..n)).to_owned();
        let r = &t - &a_b(a1.view(), w_first.view());
        let mu_abs = mu * v.iter().map(|x| x * x).sum::<f64>() / n as f64;
        let mut g = a_b(v.view(), v.t());
        g.diag_mut().mapv_inplace(|x| x + mu_abs);
        let delta_t = gauss_solve(g.view(), a_b(v.view(), r.t()).view());
        let clip = models::mlp::DEFAULT_CLIP;
        let n_ref = (&a + &delta_t.t()).mapv(|x| x.clamp(clip, 1.0 - clip));
        let n_hat = step.neurons.clone().expect("a layer below");
        // Its bound: the implementation forms P = (VVᵀ + μ'I)⁻¹V (the small
        // ridge problem with samples Vᵀ and right-hand sides I), then R Pᵀ:
        // ‖R‖·(P's error) plus the product's rounding, plus R's own rounding
        // (and, with re-estimation, W's error) carried through
        // ‖P‖ ≤ 1/(2√μ') ∧ ‖V‖/(σ_min(V)² + μ').
        let (norm_v, smin_v) = norms(v.t());
        let (norm_a1, _) = norms(a1.view());
        let gain = (1.0 / (2.0 * mu_abs.sqrt())).min(norm_v / (smin_v * smin_v + mu_abs));
        let w_err = ridge_tolerance(a1.view(), t.view(), w_ref.view(), lambda, 1, 1);
        let r_err = (k + n) as f64 * U * (norm_a1 * fro(w_first.view()) + fro(t.view())) + norm_a1 * w_err;
        let eye = Array2::eye(m);
        let p_ref = gauss_solve(g.view(), v.view());
        let tol_n = fro(r.view()) * ridge_tolerance(v.t(), eye.view(), p_ref.view(), mu_abs, 2, 1)
            + (k + n) as f64 * U * fro(r.view()) * fro(p_ref.view())
            + 2.0 * gain * r_err;
        let err_n = fro_diff(n_hat.view(), n_ref.view());
        prop_assert!(err_n <= tol_n, "N̂: {err_n:.3e} > {tol_n:.3e}");
        // The pre-activation targets are the logit of N̂.
        let targets = step.targets.clone().expect("targets");
        for (z, y) in targets.iter().zip(n_hat.iter()) {
            let logit = (y / (1.0 - y)).ln();
            prop_assert!((z - logit).abs() <= 4.0 * f64::EPSILON * (1.0 + logit.abs()));
        }
        if reestimate {
            // Lines 8–9: the weights again on [N̂, 1].
            let n1 = with_ones(n_hat.view());
            let w2 = ref_ridge(n1.view(), t.view(), lambda);
            let tol = ridge_tolerance(n1.view(), t.view(), w2.view(), lambda, 1, 1);
            let err = fro_diff(step.weights.view(), w2.view());
            prop_assert!(err <= tol, "re-estimated W: {err:.3e} > {tol:.3e}");
        }
    }
}

/// The forward-error bound of `W = [A, 1]ᵀα`, `(GGᵀ + λI)α = T` with
/// `G = [A, 1]` (K×(n+1), K < n+1), as the dual form computes it: forming
/// `C = GGᵀ + λI` perturbs it by `γ‖G‖²` and its Cholesky solve is
/// backward stable with `γ‖C‖`, so `‖Δα‖ ≤ 2γκ(C)‖α‖` with
/// `κ(C) = (‖G‖² + λ)/(σ_K² + λ)` (σ_K the smallest of G's K singular
/// values); `Gᵀα` carries it as `‖G‖‖Δα‖` and adds `γ‖G‖‖α‖`; and
/// `‖α‖ ≤ ‖T‖/(σ_K² + λ)`. `c = 2` absorbs the constants, as in
/// `common::ridge_tolerance`.
fn dual_tolerance(g: ArrayView2<'_, f64>, t: ArrayView2<'_, f64>, lambda: f64) -> f64 {
    let (k, n) = g.dim();
    let rows = spectrum(g.t());
    let floor = rows.sigma_min * rows.sigma_min + lambda;
    let kappa = (rows.norm_a * rows.norm_a + lambda) / floor;
    let alpha = fro(t) / floor;
    2.0 * (k + n) as f64 * U * rows.norm_a * alpha * (2.0 * kappa + 1.0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// With fewer samples than columns (K < n+1) a layer's weights come
    /// from the K×K dual system `[A, 1]ᵀ([A, 1][A, 1]ᵀ + λI)⁻¹T`: equal to
    /// the primal (n+1)×(n+1) solve of linalg-core and to Gaussian
    /// elimination on the normal equations, within the sum of the two
    /// forms' forward-error bounds (the primal's from κ of `GᵀG + λI`,
    /// which is `(‖G‖² + λ)/λ` here, the dual's from κ of `GGᵀ + λI`);
    /// the re-estimated weights of Algorithm 2 on `[N̂, 1]` likewise.
    #[test]
    fn dual_layer_step_equals_the_primal_solve(
        seed in any::<u64>(),
        k in 2usize..12,
        extra in 0usize..30,
        m in 1usize..5,
        log_lambda in -8.0f64..0.0,
        sigmoid_inputs in any::<bool>(),
    ) {
        let mut rng = rng(seed);
        let n = k + extra;
        let a = if sigmoid_inputs { uniform(&mut rng, k, n, 0.01, 0.99) } else { rng.gaussian(k, n) };
        let t = rng.gaussian(k, m);
        let lambda = 10f64.powf(log_lambda);
        let p = BplsParams::new(vec![n]).with_lambda(lambda).check().expect("valid");
        let w = p.layer_step(a.view(), t.view(), false, false).expect("step").weights;
        let a1 = with_ones(a.view());
        let primal = linalg_core::ridge::ridge_solve_with_intercept(a.view(), t.view(), lambda)
            .expect("primal")
            .weights;
        let reference = ref_ridge(a1.view(), t.view(), lambda);
        let tol = ridge_tolerance(a1.view(), t.view(), reference.view(), lambda, 1, 1)
            + dual_tolerance(a1.view(), t.view(), lambda);
        let (err_p, err_r) = (fro_diff(w.view(), primal.view()), fro_diff(w.view(), reference.view()));
        prop_assert!(err_p <= tol, "dual vs primal: {err_p:.3e} > {tol:.3e}");
        prop_assert!(err_r <= tol, "dual vs elimination: {err_r:.3e} > {tol:.3e}");
        // Algorithm 2's re-estimation on [N̂, 1] (N̂ returned, K < n+1 again).
        let step = p.layer_step(a.view(), t.view(), true, true).expect("step");
        let n_hat = step.neurons.expect("a layer below");
        let n1 = with_ones(n_hat.view());
        let again = ref_ridge(n1.view(), t.view(), lambda);
        let tol = ridge_tolerance(n1.view(), t.view(), again.view(), lambda, 1, 1)
            + dual_tolerance(n1.view(), t.view(), lambda);
        let err = fro_diff(step.weights.view(), again.view());
        prop_assert!(err <= tol, "re-estimated: {err:.3e} > {tol:.3e}");
    }
}

/// Without a layer below (the first layer), only the weights.
#[test]
fn first_layer_step_is_one_ridge_solve() {
    let mut rng = rng(3);
    let x = rng.gaussian(30, 4);
    let t = rng.gaussian(30, 3);
    let p = BplsParams::new(vec![3]).with_lambda(1e-3).check().expect("valid");
    let step = p.layer_step(x.view(), t.view(), false, true).expect("step");
    assert!(step.neurons.is_none() && step.targets.is_none());
    let x1 = with_ones(x.view());
    let w = ref_ridge(x1.view(), t.view(), 1e-3);
    let tol = ridge_tolerance(x1.view(), t.view(), w.view(), 1e-3, 1, 1);
    assert!(fro_diff(step.weights.view(), w.view()) <= tol);
}

/// A linear network [5 → 4 → 3] on an affine target it can represent: from
/// a random start, Algorithm 1's single pass must reproduce the target map
/// exactly (up to λ, μ and rounding), on the training samples and on new
/// ones. (R lies in the span of [X, 1], so does N̂ = N + RV⁺, so the first
/// layer fits N̂ exactly and [N̂, 1]W₂ = [N, 1]W₂ + R = Y.)
#[test]
fn algorithm_1_recovers_a_linear_network() {
    let mut rng = rng(11);
    let (k, d, h, m) = (40, 5, 4, 3);
    let x = rng.gaussian(k, d);
    let b = rng.gaussian(d + 1, m);
    let y = a_b(with_ones(x.view()).view(), b.view());
    let (lambda, mu) = (1e-12, 1e-12);
    let p = BplsParams::new(vec![h])
        .with_hidden_activation(Activation::Linear)
        .with_lambda(lambda)
        .with_target_ridge(mu)
        .with_seed(5);
    let (net, report) = p
        .clone()
        .check()
        .expect("valid")
        .fit_with_report(&Dataset::new(x.view(), y.view()), |_, _| {})
        .expect("fit");
    assert_eq!(report.epochs.len(), 1);
    // The bound: the ridge biases λ/σ_min² of the two layer solves and
    // μ'/σ_min(V)² of the target solve, plus κ·u of each, relative to ‖Y‖,
    // carried through the output layer's ‖V‖·‖V⁺‖.
    let x1 = with_ones(x.view());
    let (na, sa) = norms(x1.view());
    let w2 = &net.weights()[1];
    let v = w2.slice_axis(Axis(0), Slice::from(..h));
    // V (h×m, h ≥ m) has full column rank: σ_min from VᵀV.
    let (nv, sv) = norms(v);
    let start = p.clone().check().expect("valid").start(d, m).expect("start");
    let n1 = with_ones(a_b(x1.view(), start.weights()[0].view()).view());
    let (nn, sn) = norms(n1.view());
    let rel = lambda / (sa * sa)
        + lambda / (sn * sn)
        + mu * nv * nv / (sv * sv)
        + (k + d) as f64 * U * ((na / sa).powi(2) + (nn / sn).powi(2) + (nv / sv).powi(2));
    let tol = 10.0 * rel * (nv / sv) * fro(y.view());
    let fit = net.predict(x.view()).expect("predict");
    let err = fro_diff(fit.view(), y.view());
    eprintln!("LIN {err:.3e} {tol:.3e}");
    assert!(err <= tol, "training: ‖Ŷ − Y‖ = {err:.3e} > {tol:.3e}");
    let xt = rng.gaussian(20, d);
    let yt = a_b(with_ones(xt.view()).view(), b.view());
    let err_t = fro_diff(net.predict(xt.view()).expect("predict").view(), yt.view());
    let tol_t = tol * fro(yt.view()) / fro(y.view()) * (na / sa);
    assert!(err_t <= tol_t, "new samples: {err_t:.3e} > {tol_t:.3e}");
}

/// The same recovery fails without the target step (a check that the test
/// can fail): fitting only the output layer on the random hidden layer
/// leaves a residual far above the bound.
#[test]
fn output_layer_alone_does_not_recover_the_linear_map() {
    let mut rng = rng(11);
    let (k, d, h, m) = (40, 5, 4, 3);
    let x = rng.gaussian(k, d);
    let b = rng.gaussian(d + 1, m);
    let y = a_b(with_ones(x.view()).view(), b.view());
    let p = BplsParams::new(vec![h])
        .with_hidden_activation(Activation::Linear)
        .with_lambda(1e-12)
        .with_seed(5)
        .check()
        .expect("valid");
    let start = p.start(d, m).expect("start");
    let n1 = a_b(with_ones(x.view()).view(), start.weights()[0].view());
    let step = p.layer_step(n1.view(), y.view(), false, false).expect("step");
    let fit = a_b(with_ones(n1.view()).view(), step.weights.view());
    assert!(fro_diff(fit.view(), y.view()) > 1e-3 * fro(y.view()));
}

/// A sigmoid network [3 → 4 → 3 → 2] started at the weights that generated
/// its targets is a fixed point of Algorithm 1: the output solve returns
/// the true weights, the residual is zero, N̂ = N, the inverse sigmoid
/// gives back the true pre-activations, and every layer solve returns its
/// true weights. (A wrong inverse, a clip inside the values' range or a
/// wrong sign in eq. (5) breaks it.)
#[test]
fn algorithm_1_keeps_the_true_sigmoid_network() {
    let mut rng = rng(21);
    let (k, d) = (80, 3);
    let x = rng.gaussian(k, d);
    let truth = Mlp::random(d, &[4, 3], 2, Activation::Sigmoid, OutputActivation::Linear, 9, 0.6).expect("net");
    let y = truth.predict(x.view()).expect("predict");
    let lambda = 1e-13;
    let p = BplsParams::new(vec![4, 3])
        .with_lambda(lambda)
        .with_target_ridge(1e-13)
        .check()
        .expect("valid");
    let (net, _) = p
        .fit_from(truth.clone(), &Dataset::new(x.view(), y.view()), |_, _| {})
        .expect("fit");
    // Bound, from the output layer down. A layer solve is backward stable:
    // its weights are off by `2γκ_l‖W_l‖` (plus the ridge bias and the error
    // `δT_l` of its targets through `A_l⁺`), but its *residual* only by
    // `r_l = γ‖A_l‖‖W_l‖ + λ‖W_l‖/σ_min(A_l) + ‖δT_l‖`. Eq. (5) turns the
    // residual into neuron targets through `V_l⁺` (`‖V_l⁺‖ = 1/σ_min(V_l)`),
    // the inverse sigmoid multiplies by its slope `1/(N(1 − N))`: the next
    // layer's target error `δT_{l−1}`.
    let hidden = ref_hidden(truth.weights(), x.view(), sigmoid);
    let layers = truth.weights().len();
    let mut bound = vec![0.0; layers];
    let mut dt = 0.0;
    for l in (0..layers).rev() {
        let a = if l == 0 { x.clone() } else { hidden[l - 1].clone() };
        let a1 = with_ones(a.view());
        let (na, sa) = norms(a1.view());
        let w = &truth.weights()[l];
        let nw = fro(w.view());
        let gamma = (k + a1.ncols()) as f64 * U;
        let kappa = (na / sa).powi(2);
        bound[l] = (2.0 * gamma * kappa * nw + dt / sa + lambda * nw / (sa * sa)) / nw;
        if l > 0 {
            let r = gamma * na * nw + lambda * nw / sa + dt;
            let v = w.slice_axis(Axis(0), Slice::from(..a.ncols()));
            let (_, sv) = norms(v);
            let slope = a.iter().map(|v| 1.0 / (v * (1.0 - v))).fold(0.0, f64::max);
            dt = slope * r / sv * (k as f64).sqrt();
        }
    }
    for (l, (w, w_true)) in net.weights().iter().zip(truth.weights()).enumerate() {
        let err = fro_diff(w.view(), w_true.view()) / fro(w_true.view());
        let tol = 10.0 * bound[l];
        assert!(err <= tol, "layer {}: relative ‖W − W*‖ = {err:.3e} > {tol:.3e}", l + 1);
    }
    let tol = 10.0 * bound.iter().copied().fold(0.0, f64::max);
    assert!(tol < 1e-4, "the bound {tol:.1e} must be small enough to mean something");
}

/// Three Gaussian blobs with one-hot targets (softmax output).
fn blobs(seed: u64, per_class: usize, spread: f64) -> (Array2<f64>, Array2<f64>) {
    let mut rng = rng(seed);
    let centers = [[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]];
    let mut x = Array2::zeros((3 * per_class, 2));
    let mut y = Array2::zeros((3 * per_class, 3));
    for i in 0..3 * per_class {
        let c = i % 3;
        x[[i, 0]] = centers[c][0] + spread * rng.normal();
        x[[i, 1]] = centers[c][1] + spread * rng.normal();
        y[[i, c]] = 1.0;
    }
    (x, y)
}

fn misses(net: &Mlp, x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Vec<usize> {
    let p = net.predict(x).expect("predict");
    let argmax = |r: ndarray::ArrayView1<'_, f64>| {
        r.iter()
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |b, (i, &v)| if v > b.1 { (i, v) } else { b })
            .0
    };
    (0..x.nrows())
        .filter(|&i| argmax(p.row(i)) != argmax(y.row(i)))
        .collect()
}

/// Algorithm 2, lines 19–20 by hand: the first pass; lines 3–14 on the
/// misses from the current weights; the blend by the miss fraction. One
/// iteration of the trainer must give the same weights.
#[test]
fn algorithm_2_pass_on_the_misses_and_blend_by_hand() {
    let (x, y) = blobs(5, 40, 1.2);
    let base = BplsParams::new(vec![6])
        .with_output(OutputActivation::Softmax)
        .with_seed(2);
    let alg = |t| {
        base.clone()
            .with_algorithm(BplsAlgorithm::NonInjective { max_iterations: t })
    };
    let data = Dataset::new(x.view(), y.view());
    let (first, r0) = alg(0)
        .check()
        .expect("valid")
        .fit_with_report(&data, |_, _| {})
        .expect("fit");
    assert_eq!(r0.epochs.len(), 1);
    let missed = misses(&first, x.view(), y.view());
    assert_eq!(r0.epochs[0].misses, Some(missed.len()));
    assert!(!missed.is_empty(), "the test needs misses after the first pass");
    let xm = x.select(Axis(0), &missed);
    let ym = y.select(Axis(0), &missed);
    let (on_misses, _) = alg(0)
        .check()
        .expect("valid")
        .fit_from(first.clone(), &Dataset::new(xm.view(), ym.view()), |_, _| {})
        .expect("fit on misses");
    let frac = missed.len() as f64 / x.nrows() as f64;
    let blended: Vec<Array2<f64>> = first
        .weights()
        .iter()
        .zip(on_misses.weights())
        .map(|(w, wm)| w * (1.0 - frac) + wm * frac)
        .collect();
    let blended = Mlp::from_weights(blended, Activation::Sigmoid, OutputActivation::Softmax).expect("net");
    let (one, r1) = alg(1)
        .check()
        .expect("valid")
        .fit_with_report(&data, |_, _| {})
        .expect("fit");
    assert_eq!(r1.epochs.len(), 2);
    assert_eq!(r1.epochs[1].samples, missed.len());
    let after = misses(&blended, x.view(), y.view()).len();
    assert_eq!(r1.epochs[1].misses, Some(after));
    // The weights with the fewer misses are returned.
    let expected = if after < missed.len() { &blended } else { &first };
    for (w, e) in one.weights().iter().zip(expected.weights()) {
        assert!(fro_diff(w.view(), e.view()) <= 1e-12 * fro(e.view()));
    }
}

/// Algorithm 2 stops when the misses stop decreasing, at most τ_max passes,
/// and returns the epoch with the fewest.
#[test]
fn algorithm_2_stops_when_misses_stop_decreasing() {
    let (x, y) = blobs(8, 60, 1.3);
    let p = BplsParams::new(vec![8])
        .with_output(OutputActivation::Softmax)
        .with_algorithm(BplsAlgorithm::NonInjective { max_iterations: 30 })
        .check()
        .expect("valid");
    let (net, r) = p
        .fit_with_report(&Dataset::new(x.view(), y.view()), |_, _| {})
        .expect("fit");
    let m: Vec<usize> = r.epochs.iter().map(|e| e.misses.expect("counted")).collect();
    for i in 1..m.len() - 1 {
        assert!(m[i] < m[i - 1], "continued after a non-decrease: {m:?}");
    }
    assert!(m.len() <= 31);
    let best = *m.iter().min().expect("epochs");
    assert_eq!(m[r.best_epoch - 1], best);
    assert_eq!(misses(&net, x.view(), y.view()).len(), best);
    // Separable enough blobs: most samples right.
    assert!(best < x.nrows() / 5, "misses {m:?}");
}

/// Softmax targets: the centred logits whose softmax is the clipped targets
/// renormalized.
#[test]
fn softmax_targets_invert_the_softmax() {
    let y = ndarray::array![[1.0, 0.0, 0.0], [0.2, 0.5, 0.3], [0.0, 0.0, 1.0]];
    let clip = 1e-2;
    let p = BplsParams::new(vec![2])
        .with_output(OutputActivation::Softmax)
        .with_clip(clip)
        .check()
        .expect("valid");
    let mut t = p.output_targets(y.view());
    for row in t.rows() {
        assert!(row.sum().abs() < 1e-14);
    }
    OutputActivation::Softmax.apply_inplace(&mut t);
    for (row_t, row_y) in t.rows().into_iter().zip(y.rows()) {
        let c = row_y.mapv(|v| v.clamp(clip, 1.0 - clip));
        let s = c.sum();
        for (a, b) in row_t.iter().zip(c.iter()) {
            assert!((a - b / s).abs() < 1e-14, "{a} vs {}", b / s);
        }
    }
}

#[test]
fn bad_parameters_and_targets_are_named() {
    let x = Array2::from_shape_fn((6, 2), |(i, j)| (i + j) as f64);
    let y = Array2::from_shape_fn((6, 1), |(i, _)| i as f64);
    let data = Dataset::new(x.view(), y.view());
    let name = |r: Result<Mlp, ModelError>| match r {
        Err(ModelError::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    assert_eq!(name(BplsParams::new(vec![0]).fit(&data)), "hidden width");
    assert_eq!(
        name(
            BplsParams::new(vec![2])
                .with_hidden_activation(Activation::Relu)
                .fit(&data)
        ),
        "hidden activation"
    );
    assert_eq!(name(BplsParams::new(vec![2]).with_clip(0.5).fit(&data)), "clip");
    assert_eq!(name(BplsParams::new(vec![2]).with_lambda(0.0).fit(&data)), "lambda");
    assert_eq!(
        name(BplsParams::new(vec![2]).with_target_ridge(-1.0).fit(&data)),
        "target ridge"
    );
    // Regression targets (0..5) under Algorithm 2, or under a sigmoid output.
    assert_eq!(
        name(
            BplsParams::new(vec![2])
                .with_algorithm(BplsAlgorithm::NonInjective { max_iterations: 3 })
                .fit(&data)
        ),
        "algorithm"
    );
    // A sigmoid output clips its targets (the paper's noisy toy targets).
    assert!(BplsParams::new(vec![2])
        .with_output(OutputActivation::Sigmoid)
        .fit(&data)
        .is_ok());
    let mut bad = x.clone();
    bad[[2, 1]] = f64::NAN;
    assert!(matches!(
        BplsParams::new(vec![2]).fit(&Dataset::new(bad.view(), y.view())),
        Err(ModelError::Linalg(linalg_core::Error::NonFinite { .. }))
    ));
}

#[test]
fn a_fitted_network_saves_and_loads() {
    let (x, y) = blobs(1, 10, 0.5);
    let net = BplsParams::new(vec![4])
        .with_output(OutputActivation::Softmax)
        .fit(&Dataset::new(x.view(), y.view()))
        .expect("fit");
    let bytes = net.to_bytes().expect("encode");
    let back = Mlp::from_bytes(&bytes).expect("decode");
    assert_eq!(back, net);
    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 3;
    corrupt[last] ^= 0x55;
    assert!(Mlp::from_bytes(&corrupt).is_err());
}

/// A softmax hidden layer (Tomic et al.'s "softmax activation functions"
/// read for the hidden layer too): the forward values against plain loops,
/// each sample's hidden values summing to 1.
#[test]
fn a_softmax_hidden_layer_predicts_as_plain_loops() {
    let mut rng = rng(31);
    let (k, d, width, outputs) = (25, 4, 6, 3);
    let x = rng.gaussian(k, d);
    let net = Mlp::random(
        d,
        &[width],
        outputs,
        HiddenActivation::Softmax,
        OutputActivation::Linear,
        3,
        1.0,
    )
    .expect("net");
    assert_eq!(net.hidden_activation(), HiddenActivation::Softmax);
    let p = net.predict(x.view()).expect("predict");
    let (w1, w2) = (&net.weights()[0], &net.weights()[1]);
    for i in 0..k {
        // z = [x, 1] W1, each entry's rounding ≤ (d + 1)u Σ|x w|.
        let z: Vec<f64> = (0..width)
            .map(|j| (0..d).map(|c| x[[i, c]] * w1[[c, j]]).sum::<f64>() + w1[[d, j]])
            .collect();
        let dz = (0..width)
            .map(|j| {
                (d + 1) as f64 * U * ((0..d).map(|c| (x[[i, c]] * w1[[c, j]]).abs()).sum::<f64>() + w1[[d, j]].abs())
            })
            .fold(0.0, f64::max);
        let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
        let sum: f64 = e.iter().sum();
        let h: Vec<f64> = e.iter().map(|v| v / sum).collect();
        assert!((h.iter().sum::<f64>() - 1.0).abs() <= width as f64 * U);
        // A relative error δz of every exponent moves h_j by at most
        // h_j(2δz + (width + 2)u) (exp, the sum, the division), in both.
        let dh: Vec<f64> = h
            .iter()
            .map(|h| 2.0 * h * (2.0 * dz + (width + 2) as f64 * U))
            .collect();
        for c in 0..outputs {
            let o: f64 = (0..width).map(|j| h[j] * w2[[j, c]]).sum::<f64>() + w2[[width, c]];
            let mag: f64 = (0..width).map(|j| (h[j] * w2[[j, c]]).abs()).sum::<f64>() + w2[[width, c]].abs();
            let tol = 2.0 * (width + 1) as f64 * U * mag + (0..width).map(|j| dh[j] * w2[[j, c]].abs()).sum::<f64>();
            assert!(
                (p[[i, c]] - o).abs() <= tol,
                "sample {i}, output {c}: {} vs {o} (tol {tol:.1e})",
                p[[i, c]]
            );
        }
    }
}

/// The BPLS step into a softmax hidden layer: the neuron targets N̂ are
/// eq. (5)'s, as for a sigmoid layer (same range [δ, 1 − δ]), and their
/// pre-activation targets are the centred logarithm: every row sums to 0
/// and its softmax is N̂'s row divided by its sum.
#[test]
fn a_softmax_hidden_layer_is_inverted_by_the_centred_logarithm() {
    let mut rng = rng(32);
    let (k, n, m) = (30, 5, 3);
    let a = uniform(&mut rng, k, n, 0.01, 0.3);
    let t = rng.gaussian(k, m);
    let soft = BplsParams::new(vec![n])
        .with_hidden_activation(HiddenActivation::Softmax)
        .check()
        .expect("valid");
    let sig = BplsParams::new(vec![n]).check().expect("valid");
    let step = soft.layer_step(a.view(), t.view(), true, false).expect("step");
    let n_sig = sig
        .layer_step(a.view(), t.view(), true, false)
        .expect("step")
        .neurons
        .expect("neurons");
    let n_hat = step.neurons.expect("neurons");
    // The same computation (eq. (5) and the clip into the same range).
    assert_eq!(n_hat, n_sig);
    let clip = models::mlp::DEFAULT_CLIP;
    assert!(n_hat.iter().all(|&v| (clip..=1.0 - clip).contains(&v)));
    assert!(
        n_hat.iter().any(|&v| v == clip) || n_hat.iter().any(|&v| v == 1.0 - clip),
        "the test should exercise the clip"
    );
    let mut z = step.targets.expect("targets");
    for (row_z, row_n) in z.rows().into_iter().zip(n_hat.rows()) {
        // ln of values in [δ, 1 − δ]: |ln| ≤ ln(1/δ); the mean's rounding n u.
        let bound = (n + 2) as f64 * U * (1.0 / clip).ln();
        assert!(row_z.sum().abs() <= n as f64 * bound, "row sum {}", row_z.sum());
        let mean = row_n.iter().map(|v| v.ln()).sum::<f64>() / n as f64;
        for (zz, nn) in row_z.iter().zip(row_n.iter()) {
            assert!((zz - (nn.ln() - mean)).abs() <= bound);
        }
    }
    OutputActivation::Softmax.apply_inplace(&mut z);
    for (row_z, row_n) in z.rows().into_iter().zip(n_hat.rows()) {
        let s = row_n.sum();
        for (p, v) in row_z.iter().zip(row_n.iter()) {
            // The softmax of targets exact to `bound`: relative 2·bound + (n + 2)u.
            let tol = (v / s) * (2.0 * (n + 2) as f64 * U * (1.0 / clip).ln() + (n + 2) as f64 * U) * 2.0;
            assert!((p - v / s).abs() <= tol, "{p} vs {}", v / s);
        }
    }
}

/// BPLS with a softmax hidden layer and a softmax output (Algorithm 2) on
/// three separated blobs: nearly every sample right (a softmax hidden layer
/// is weaker than a sigmoid one on blobs that overlap: its neurons share a
/// sum of 1), the network saves and loads with its hidden softmax, and
/// backpropagation, which trains element-wise hidden layers only, refuses
/// it by name.
#[test]
fn bpls_fits_a_softmax_hidden_layer() {
    let (x, y) = blobs(8, 60, 0.5);
    let data = Dataset::new(x.view(), y.view());
    let (net, r) = BplsParams::new(vec![8])
        .with_hidden_activation(HiddenActivation::Softmax)
        .with_output(OutputActivation::Softmax)
        .with_algorithm(BplsAlgorithm::NonInjective { max_iterations: 30 })
        .check()
        .expect("valid")
        .fit_with_report(&data, |_, _| {})
        .expect("fit");
    assert_eq!(net.hidden_activation(), HiddenActivation::Softmax);
    let best = r.epochs[r.best_epoch - 1].misses.expect("counted");
    assert_eq!(misses(&net, x.view(), y.view()).len(), best);
    assert!(best < x.nrows() / 20, "misses per epoch {:?}", r.epochs);
    let back = Mlp::from_bytes(&net.to_bytes().expect("encode")).expect("decode");
    assert_eq!(back, net);
    assert_eq!(back.predict(x.view()).expect("p"), net.predict(x.view()).expect("p"));
    match loss_and_gradient(&net, &data) {
        Err(ModelError::InvalidParameter { name, value, .. }) => {
            assert_eq!((name, value.as_str()), ("hidden activation", "softmax"));
        }
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

/// Algorithm 1 started at a softmax-hidden network whose outputs are its
/// targets returns the same function: the output layer refits its own
/// targets, eq. (5) moves the hidden values by no more than that fit's
/// residual through `V⁺`, and the centred logarithm gives pre-activation
/// targets that `[X, 1]` reproduces (the true ones minus each sample's
/// mean, itself affine in `x`). The weights are not unique (`[H, 1]` is
/// rank-deficient: each row of `H` sums to 1), so the predictions are
/// compared. Bound, from the output layer down: the ridge residual on
/// exact targets `λ‖W₂‖/σ⁺([H, 1])` plus the rounding `2γκ⁺²‖A‖‖W‖`;
/// `‖ΔN‖ ≤ r₂/σ_min(V)`; the logarithm's slope `max 1/N`; the first
/// layer's residual as in `algorithm_1_keeps_the_true_sigmoid_network`;
/// softmax is 1-Lipschitz. The logit in place of the logarithm fails it
/// (0.29 against 1.1e-6); the centring does not matter here (the
/// log-sum-exp that `ln n̂` carries is the same in every column, so the
/// first layer's least-squares residual is constant along each row, where
/// softmax ignores it): it only fixes the constant, which the centred-
/// logarithm test checks.
#[test]
fn algorithm_1_keeps_the_true_softmax_network() {
    let mut rng = rng(21);
    let (k, d, n) = (80, 3, 4);
    let x = rng.gaussian(k, d);
    let truth = Mlp::random(d, &[n], 2, HiddenActivation::Softmax, OutputActivation::Linear, 9, 0.6).expect("net");
    let y = truth.predict(x.view()).expect("predict");
    let lambda = 1e-13;
    let (net, _) = BplsParams::new(vec![n])
        .with_hidden_activation(HiddenActivation::Softmax)
        .with_lambda(lambda)
        .with_target_ridge(1e-13)
        .check()
        .expect("valid")
        .fit_from(truth.clone(), &Dataset::new(x.view(), y.view()), |_, _| {})
        .expect("fit");
    // The true hidden values by plain loops.
    let a1 = with_ones(x.view());
    let mut h = a_b(a1.view(), truth.weights()[0].view());
    for mut row in h.rows_mut() {
        let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        row.mapv_inplace(|v| (v - m).exp());
        let s = row.sum();
        row.mapv_inplace(|v| v / s);
    }
    let a2 = with_ones(h.view());
    let ev = common::sym_eigenvalues(at_b(a2.view(), a2.view()).view());
    assert!(ev[0] < 1e-12 * ev[n], "[H, 1] is rank-deficient");
    let (norm_a2, sigma_plus) = (ev[n].sqrt(), ev[1].sqrt());
    let gamma = (k + n + 1) as f64 * U;
    let w2 = &net.weights()[1];
    let nw2 = fro(truth.weights()[1].view()).max(fro(w2.view()));
    let r2 = lambda * nw2 / sigma_plus + 2.0 * gamma * (norm_a2 / sigma_plus).powi(2) * norm_a2 * nw2;
    let (norm_v, smin_v) = norms(w2.slice_axis(Axis(0), Slice::from(..n)));
    let dn = r2 / smin_v;
    let slope = h.iter().map(|v| 1.0 / v).fold(0.0, f64::max);
    let dt = slope * dn;
    let (na1, sa1) = norms(a1.view());
    let nw1 = fro(net.weights()[0].view()).max(fro(truth.weights()[0].view()));
    let r1 = gamma * (na1 / sa1) * na1 * nw1 + lambda * nw1 / sa1 + dt;
    let bound = r2 + norm_v * r1 + gamma * norm_a2 * nw2;
    let p = net.predict(x.view()).expect("predict");
    let err = fro_diff(p.view(), y.view());
    let tol = 10.0 * bound;
    assert!(err <= tol, "‖Ŷ − Y‖ = {err:.3e} > {tol:.3e}");
    assert!(
        tol < 1e-6 * fro(y.view()),
        "the bound {tol:.1e} must be small enough to mean something"
    );
}
