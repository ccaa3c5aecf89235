//! Tests of the network, its error function and the three trainers against
//! independent computations (finite differences, direct solves, a full
//! forward pass).

use ndarray::{Array2, Axis};
use optim::objective::gradient_error;
use optim::Objective;

use super::*;
use crate::prelude::*;
use crate::readout::{Readout, ReadoutSolver};

/// A smooth two-input problem with `m` outputs (P samples on a grid-like
/// pattern), targets in about [−1, 1].
fn data(p: usize, m: usize) -> (Array2<f64>, Array2<f64>) {
    let x = Array2::from_shape_fn((p, 3), |(i, j)| (((i * (2 * j + 3) + j) % 23) as f64) / 11.0 - 1.0);
    let y = Array2::from_shape_fn((p, m), |(i, q)| {
        let r = x.row(i);
        (r[0] * r[1] + (q as f64 + 1.0) * r[2]).sin()
    });
    (x, y)
}

/// The central-difference error of a smooth function's gradient is
/// O(ε^{2/3}) ≈ 4e-11 times its third derivatives; a wrong sign or a missing
/// term is O(1). Checked on all weights with one and three outputs, with and
/// without regularization.
#[test]
fn gradients_9_to_11_match_finite_differences() {
    for (m, tau_l, tau_w) in [(1, 1e-3, 1e-4), (3, 0.5, 0.2), (2, 0.0, 0.0)] {
        let (x, y) = data(40, m);
        let error = ErrorFunction::new(x.view(), y.view(), tau_l, tau_w).unwrap();
        let params = SlfnParams::new(4).with_seed(3).check().unwrap();
        let (w, lambda) = params.start(3, m);
        let mut f = FullObjective::new(error, 4);
        let z: Vec<f64> = lambda.iter().chain(w.iter()).map(|v| 3.0 * v).collect();
        let e = gradient_error(&mut f, &z);
        assert!(e < 1e-7, "m = {m}: relative gradient error {e:e}");
        // The value is (5) written out directly.
        let net = Slfn::from_parts(w.mapv(|v| 3.0 * v), lambda.mapv(|v| 3.0 * v)).unwrap();
        let r = net.predict(x.view()).unwrap() - &y;
        let direct = 0.5 * r.mapv(|v| v * v).sum()
            + 0.5 * tau_l * net.output_weights().mapv(|v| v * v).sum()
            + 0.5 * tau_w * net.weights().mapv(|v| v * v).sum();
        assert!(
            (f.value(&z) - direct).abs() <= 1e-12 * direct,
            "{} vs {direct}",
            f.value(&z)
        );
    }
}

/// One unit's subproblem differs from E by a constant, and its gradient is
/// the unit's block of ∇_w E (eq. (10)).
#[test]
fn unit_subproblem_is_e_in_one_block() {
    let (x, y) = data(30, 2);
    let (tau_l, tau_w) = (1e-2, 1e-3);
    let error = ErrorFunction::new(x.view(), y.view(), tau_l, tau_w).unwrap();
    let (w, lambda) = SlfnParams::new(3).with_seed(9).check().unwrap().start(3, 2);
    let j = 1;
    let net = Slfn::from_parts(w.clone(), lambda.clone()).unwrap();
    let h = net.hidden_outputs(x.view()).unwrap();
    let phi = h.dot(&lambda);
    let mut b = Vec::new();
    for p in 0..30 {
        for q in 0..2 {
            b.push(phi[[p, q]] - h[[p, j]] * lambda[[j, q]] - y[[p, q]]);
        }
    }
    let xs = x.as_standard_layout().into_owned();
    let lam_j = lambda.row(j).to_vec();
    let mut unit = neuron::NeuronObjective {
        x: xs.as_slice().unwrap(),
        n: 3,
        b: &b,
        lambda: &lam_j,
        tau_w,
    };
    let mut gw = Array2::zeros(w.raw_dim());
    let mut gl = Array2::zeros(lambda.raw_dim());
    let full = error.value_and_gradients(w.view(), lambda.view(), gw.view_mut(), gl.view_mut());
    let mut g = vec![0.0; 4];
    let v0 = unit.value_and_gradient(w.row(j).as_slice().unwrap(), &mut g);
    for (a, c) in g.iter().zip(gw.row(j)) {
        assert!((a - c).abs() <= 1e-13 * c.abs().max(1.0), "{g:?} vs {:?}", gw.row(j));
    }
    // Moving w_j changes both by the same amount.
    let mut w2 = w.clone();
    w2.row_mut(j).mapv_inplace(|v| v + 0.3);
    let full2 = error.value(w2.view(), lambda.view());
    let v2 = unit.value(w2.row(j).as_slice().unwrap());
    assert!(
        ((full2 - full) - (v2 - v0)).abs() <= 1e-12 * full,
        "{} vs {}",
        full2 - full,
        v2 - v0
    );
    assert!(gradient_error(&mut unit, w.row(j).as_slice().unwrap()) < 1e-8);
}

/// DEC(1) is Step A alone: λ equals the ridge solution of the direct
/// (Cholesky) solver within CG's tolerance amplified by κ(HᵀH + τI).
#[test]
fn dec_step_a_is_the_ridge_solution() {
    let (x, y) = data(120, 2);
    let tau = 1e-3;
    let params = SlfnParams::new(8)
        .with_trainer(SlfnTrainer::Dec { maxiter: 1 })
        .with_tau_lambda(tau)
        .check()
        .unwrap();
    let (net, report) = params
        .fit_with_report(&Dataset::new(x.view(), y.view()), |_| {})
        .unwrap();
    let (w0, _) = params.start(3, 2);
    assert_eq!(net.weights(), w0.view(), "Step A alone must not move w");
    let h = net.hidden_outputs(x.view()).unwrap();
    let direct = Readout::new(ReadoutSolver::Ridge, tau)
        .solve(h.clone(), y.view())
        .unwrap();
    let mut gram = h.t().dot(&h);
    gram.diag_mut().mapv_inplace(|v| v + tau);
    // κ from the extreme eigenvalues (Gershgorin above, τ below).
    let upper = gram
        .rows()
        .into_iter()
        .map(|r| r.iter().map(|v| v.abs()).sum::<f64>())
        .fold(0.0, f64::max);
    let kappa = upper / tau;
    let err = (&net.output_weights() - &direct).mapv(|v| v * v).sum().sqrt();
    let scale = direct.mapv(|v| v * v).sum().sqrt();
    assert!(
        err <= kappa * 1e-6 * scale,
        "‖λ − λ_direct‖ = {err:e}, bound {:e}",
        kappa * 1e-6 * scale
    );
    let dec = report.dec.unwrap();
    assert_eq!((dec.trace.len(), dec.cg_unconverged), (1, 0));
    // In exact arithmetic CG ends within 8 iterations per output (8
    // unknowns). In floating point the loss of orthogonality delays the
    // end by a number of iterations that depends on the rounding of the
    // Gram matrix (a BLAS product): 18 or fewer in all with OpenBLAS's
    // Cooperlake, SkylakeX and Prescott kernels, 19 with its Haswell and
    // Zen kernels, against the 2·(8 + 1) this test once asserted. The
    // exact-arithmetic count is no floating-point bound: what holds on every
    // machine is that each output converged (above) within the solver's
    // cap of 10·8 + 100 iterations, to the accuracy bounded above.
    assert!(
        dec.cg_iterations > 0 && dec.cg_iterations <= 2 * (10 * 8 + 100),
        "{} CG iterations",
        dec.cg_iterations
    );
}

/// The paper's convergence facts on a run: E never increases over the steps
/// of Algorithm 3 (31); every unit step ends in exactly one of skip,
/// L-BFGS accepted under (25)–(26), the Armijo point, or no decrease; and the
/// outputs kept by (27)–(28) give the same E as a full forward pass of the
/// returned weights.
#[test]
fn dec_decreases_e_monotonically_and_keeps_its_outputs_exact() {
    for m in [1, 3] {
        let (x, y) = data(200, m);
        let params = SlfnParams::new(6)
            .with_trainer(SlfnTrainer::Dec { maxiter: 6 })
            .with_seed(1)
            .check()
            .unwrap();
        let mut seen = vec![];
        let (net, report) = params
            .fit_with_report(&Dataset::new(x.view(), y.view()), |p| seen.push(p.objective))
            .unwrap();
        let dec = report.dec.unwrap();
        assert_eq!(seen.len(), 6);
        // Rounding of a sum of P·M squares: a few ε·P·E.
        let slack = |e: f64| 4.0 * f64::EPSILON * (200 * m) as f64 * e;
        for (k, s) in dec.steps.windows(2).enumerate() {
            assert!(s[1] <= s[0] + slack(s[0]), "E rose at step {k}: {} → {}", s[0], s[1]);
        }
        assert_eq!(dec.steps.len(), 6 + 5 * 6 * 2);
        // Algorithm 3's k: one per Step A with h = 0 and one per unit's
        // Step B, none for a Step A with h = j (the skip test is θᵏ).
        assert_eq!(dec.k, 6 + 5 * 6);
        // The sweeps make progress beyond the first Step A (the ridge fit at
        // the random start).
        assert!(dec.steps.last().unwrap() < &(0.99 * dec.steps[0]), "{:?}", dec.steps);
        assert_eq!(dec.unit_steps, 5 * 6);
        assert_eq!(
            dec.unit_steps,
            dec.skipped + dec.lbfgs_accepted + dec.armijo_taken + dec.no_decrease
        );
        assert!(dec.lbfgs_accepted > 0);
        // Each unit step against the paper's tests: L-BFGS's point only
        // under (25) (no worse than the Armijo point) and (26) (a decrease
        // of at least τ‖Δw‖²); the Armijo point under (29), the decrease
        // (γ/a)‖Δw‖² that Armijo's rule guarantees with α ≤ a.
        let settings = DecSettings::new(6);
        let (gamma, a) = (1e-4, 1.0);
        assert_eq!(dec.unit_records.len(), dec.lbfgs_accepted + dec.armijo_taken);
        for r in &dec.unit_records {
            match r.taken {
                UnitPoint::Lbfgs => {
                    let v = r.lbfgs.unwrap();
                    assert!(v <= r.armijo, "(25) fails: {r:?}");
                    assert!(v <= r.before - settings.tau * r.moved_sq, "(26) fails: {r:?}");
                    assert_eq!(r.after, v);
                }
                UnitPoint::Armijo => {
                    assert!(r.after <= r.before - gamma / a * r.moved_sq, "(29) fails: {r:?}");
                }
            }
            assert!(r.after < r.before, "no decrease: {r:?}");
        }
        let error = ErrorFunction::new(x.view(), y.view(), params.tau_lambda(), params.tau_w(3)).unwrap();
        let exact = error.value(net.weights(), net.output_weights());
        assert!(
            (exact - report.objective).abs() <= 1e-12 * exact,
            "{exact} vs {}",
            report.objective
        );
    }
}

/// The ELM trainer is the minimum-norm least-squares fit at the random start
/// (τ = 0); L-BFGS decreases E from the same start and reports E of the
/// returned weights.
#[test]
fn elm_and_lbfgs_baselines() {
    let (x, y) = data(150, 1);
    let data = Dataset::new(x.view(), y.view());
    let elm = SlfnParams::new(5).with_trainer(SlfnTrainer::Elm).check().unwrap();
    let (net, rep) = elm.fit_with_report(&data, |_| {}).unwrap();
    let (w0, lambda0) = elm.start(3, 1);
    let h = net.hidden_outputs(x.view()).unwrap();
    let direct = Readout::new(ReadoutSolver::Lstsq, 0.0).solve(h, y.view()).unwrap();
    assert_eq!(net.weights(), w0.view());
    assert_eq!(net.output_weights(), direct.view());
    assert!(rep.objective >= 0.0);

    let lb = SlfnParams::new(5)
        .with_trainer(SlfnTrainer::Lbfgs { iterations: 50 })
        .check()
        .unwrap();
    let mut values = vec![];
    let (net, rep) = lb.fit_with_report(&data, |p| values.push(p.objective)).unwrap();
    assert_eq!(rep.iterations, 50, "{rep:?}");
    assert_eq!(values.len(), 50);
    let error = ErrorFunction::new(x.view(), y.view(), lb.tau_lambda(), lb.tau_w(3)).unwrap();
    let start = error.value(w0.view(), lambda0.view());
    assert!(values.windows(2).all(|v| v[1] < v[0]));
    assert!(rep.objective < 0.5 * start, "{} vs start {start}", rep.objective);
    let exact = error.value(net.weights(), net.output_weights());
    assert!((exact - rep.objective).abs() <= 1e-12 * exact);
}

/// A wider least-squares cut keeps fewer directions of `H`: the rank is
/// the count of singular values at or above `cut·σ_max`, and the truncated
/// solution is no longer than the default's (`‖λ_k‖² = Σ_{i≤k} (u_iᵀy/σ_i)²`
/// grows with `k`). The cut sits between two singular values halfway down
/// the default's spectrum; rounding moves each solution by about
/// `(σ_max/σ_kept)·K·ε` relative, the bound below with a factor 10 to spare.
#[test]
fn elm_lstsq_cut_truncates_the_saturated_directions() {
    // Inputs of size ~100 saturate the sigmoids, as raw features do.
    let (x, y) = data(300, 1);
    let x = x.mapv(|v| 100.0 * v);
    let data = Dataset::new(x.view(), y.view());
    let fit = |cut: Option<f64>| {
        let p = SlfnParams::new(60).with_trainer(SlfnTrainer::Elm);
        let p = match cut {
            Some(c) => p.with_lstsq_cut(c),
            None => p,
        };
        p.check().unwrap().fit_with_report(&data, |_| {}).unwrap()
    };
    let (default_net, default_rep) = fit(None);
    let h = default_net.hidden_outputs(x.view()).unwrap();
    let sv = linalg_core::lstsq::min_norm_lstsq(h.view(), y.view(), None)
        .unwrap()
        .singular_values;
    let kept = |cut: f64| sv.iter().filter(|s| **s >= cut * sv[0]).count();
    let default_rank = default_rep.elm_rank.unwrap();
    assert_eq!(default_rank, kept(300.0 * f64::EPSILON));
    assert!(default_rank >= 4, "{default_rank}");
    let k = default_rank / 2;
    let cut = (sv[k - 1] * sv[k]).sqrt() / sv[0];
    let (wide_net, wide_rep) = fit(Some(cut));
    assert_eq!(wide_rep.elm_rank, Some(k));
    assert_eq!(kept(cut), k);
    let norm = |n: &Slfn| n.output_weights().iter().map(|v| v * v).sum::<f64>().sqrt();
    let rounding = 10.0 * 300.0 * f64::EPSILON * sv[0] / sv[default_rank - 1];
    assert!(norm(&wide_net) <= norm(&default_net) * (1.0 + rounding));
    assert!(
        norm(&wide_net) < norm(&default_net),
        "the dropped directions carry weight"
    );
    for bad in [-1e-3, 1.0, f64::NAN] {
        let e = SlfnParams::new(3).with_lstsq_cut(bad).check().unwrap_err();
        assert!(e.to_string().contains("lstsq_cut"), "{e}");
    }
}

#[test]
fn params_trainer_names_and_persistence() {
    for (s, t) in [
        ("dec", SlfnTrainer::Dec { maxiter: 10 }),
        ("DEC:2", SlfnTrainer::Dec { maxiter: 2 }),
        ("lbfgs:500", SlfnTrainer::Lbfgs { iterations: 500 }),
        ("elm", SlfnTrainer::Elm),
    ] {
        assert_eq!(s.parse::<SlfnTrainer>().unwrap(), t);
    }
    for bad in ["newton", "dec:x", "elm:3"] {
        let e = bad.parse::<SlfnTrainer>().unwrap_err();
        assert!(e.to_string().contains("trainer"), "{e}");
    }
    for (p, name) in [
        (SlfnParams::new(0), "hidden"),
        (SlfnParams::new(3).with_tau_lambda(-1.0), "tau_lambda"),
        (SlfnParams::new(3).with_tau_w(f64::NAN), "tau_w"),
        (
            SlfnParams::new(3).with_trainer(SlfnTrainer::Dec { maxiter: 0 }),
            "maxiter",
        ),
        (
            SlfnParams::new(3).with_trainer(SlfnTrainer::Lbfgs { iterations: 0 }),
            "iterations",
        ),
    ] {
        match p.check() {
            Err(crate::ModelError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(SlfnParams::new(4).check().unwrap().tau_w(9), 1e-2 / 36.0);
    // Bad data is an error, not a panic.
    let (x, y) = data(10, 1);
    let short = y.slice_axis(Axis(0), ndarray::Slice::from(..5)).to_owned();
    assert!(SlfnParams::new(3).fit(&Dataset::new(x.view(), short.view())).is_err());
    // Save and load.
    let net = SlfnParams::new(3)
        .with_trainer(SlfnTrainer::Dec { maxiter: 2 })
        .fit(&Dataset::new(x.view(), y.view()))
        .unwrap();
    let bytes = net.to_bytes().unwrap();
    assert_eq!(Slfn::from_bytes(&bytes).unwrap(), net);
    let mut broken = bytes.clone();
    let last = broken.len() - 1;
    broken[last] ^= 1;
    assert!(Slfn::from_bytes(&broken).is_err());
    assert!(net.predict(Array2::zeros((2, 4)).view()).is_err());
}

/// With (26)'s τ so large that L-BFGS's point is never accepted, every unit
/// step takes the Armijo point, which satisfies (29), and E still never
/// increases.
#[test]
fn dec_falls_back_to_the_armijo_point() {
    let (x, y) = data(150, 2);
    let error = ErrorFunction::new(x.view(), y.view(), 1e-3, 1e-3).unwrap();
    let (w0, _) = SlfnParams::new(4).with_seed(5).check().unwrap().start(3, 2);
    let mut settings = DecSettings::new(4);
    settings.tau = 1e12;
    let out = dec::train(&error, w0, &settings, |_| {}).unwrap();
    let r = &out.report;
    assert_eq!(r.lbfgs_accepted, 0);
    assert_eq!(r.armijo_taken + r.no_decrease + r.skipped, 3 * 4);
    assert!(r.armijo_taken >= 3 * 4 - 2, "{r:?}");
    for s in &r.unit_records {
        assert_eq!(s.taken, UnitPoint::Armijo);
        assert!(s.after <= s.before - 1e-4 * s.moved_sq && s.moved_sq > 0.0, "{s:?}");
    }
    let slack = |e: f64| 4.0 * f64::EPSILON * 300.0 * e;
    assert!(r.steps.windows(2).all(|w| w[1] <= w[0] + slack(w[0])), "{:?}", r.steps);
}

/// A huge `maxiter` does not run without end: the time limit stops DEC (the
/// first Step A always runs) with a consistent network whose `E` ends the
/// trace, and so does the tolerance on progress; both are off by default
/// (the paper's DEC(maxiter)).
#[test]
fn dec_stops_at_its_time_limit_and_on_stalled_progress() {
    let (x, y) = data(200, 2);
    let data = Dataset::new(x.view(), y.view());
    let settings = DecSettings::new(10);
    assert_eq!((settings.relative_decrease, settings.time_limit), (None, None));
    let paper = SlfnParams::new(4)
        .with_trainer(SlfnTrainer::Dec { maxiter: 3 })
        .check()
        .unwrap();
    let (_, r) = paper.fit_with_report(&data, |_| {}).unwrap();
    assert_eq!(r.termination, Some(optim::Termination::MaxIterations));
    assert_eq!(r.iterations, 3);

    let limit = std::time::Duration::from_millis(200);
    let timed = SlfnParams::new(6)
        .with_trainer(SlfnTrainer::Dec { maxiter: usize::MAX })
        .with_time_limit(limit)
        .check()
        .unwrap();
    let started = std::time::Instant::now();
    let (net, r) = timed.fit_with_report(&data, |_| {}).unwrap();
    let took = started.elapsed();
    assert!(took >= limit && took < 10 * limit, "{took:?}");
    assert_eq!(r.termination, Some(optim::Termination::TimeLimit));
    let dec = r.dec.as_ref().unwrap();
    assert!(dec.trace.len() >= 2 && dec.trace.len() == r.iterations, "{dec:?}");
    assert!(dec
        .trace
        .windows(2)
        .all(|t| t[1].objective <= t[0].objective * (1.0 + 1e-12)));
    let error = ErrorFunction::new(x.view(), y.view(), timed.tau_lambda(), timed.tau_w(3)).unwrap();
    let exact = error.value(net.weights(), net.output_weights());
    assert!(
        (exact - r.objective).abs() <= 1e-10 * exact,
        "{exact} vs {}",
        r.objective
    );

    let tol = 1e-3;
    let stalled = SlfnParams::new(6)
        .with_trainer(SlfnTrainer::Dec { maxiter: usize::MAX })
        .with_relative_decrease(tol)
        .check()
        .unwrap();
    let (_, r) = stalled.fit_with_report(&data, |_| {}).unwrap();
    assert_eq!(r.termination, Some(optim::Termination::RelativeDecrease));
    let e: Vec<f64> = r.dec.unwrap().trace.iter().map(|t| t.objective).collect();
    let n = e.len();
    assert!(n >= 2 && e[n - 2] - e[n - 1] <= tol * e[n - 2].max(1.0), "{e:?}");
    assert!(
        e.windows(2).take(n - 2).all(|w| w[0] - w[1] > tol * w[0].max(1.0)),
        "{e:?}"
    );
}

/// L-BFGS takes the same time limit and tolerance; a negative or NaN
/// tolerance is refused by name.
#[test]
fn lbfgs_stops_at_its_time_limit_and_tolerances_are_checked() {
    let (x, y) = data(2000, 1);
    let data = Dataset::new(x.view(), y.view());
    let limit = std::time::Duration::from_millis(200);
    let p = SlfnParams::new(30)
        .with_trainer(SlfnTrainer::Lbfgs { iterations: usize::MAX })
        .with_time_limit(limit)
        .check()
        .unwrap();
    let started = std::time::Instant::now();
    let (_, r) = p.fit_with_report(&data, |_| {}).unwrap();
    assert!(started.elapsed() < 10 * limit, "{:?}", started.elapsed());
    assert_eq!(r.termination, Some(optim::Termination::TimeLimit), "{r:?}");
    assert!(r.objective.is_finite() && r.iterations >= 1);
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        match SlfnParams::new(3).with_relative_decrease(bad).check() {
            Err(crate::ModelError::InvalidParameter { name, .. }) => assert_eq!(name, "relative_decrease"),
            other => panic!("{other:?}"),
        }
    }
}
