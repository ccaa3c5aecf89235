//! The first-order step rules (`optim::first_order`) against computations
//! written out here from the papers' formulas, independently of the
//! implementation: hand-expanded first steps, Sutskever et al.'s look-ahead
//! form of NAG, Adam's bias correction, convergence on an ill-conditioned
//! quadratic, reset, names and parameter errors.

use optim::first_order::{AdaGrad, Adam, FirstOrder, FirstOrderKind, Nag, Sgd};

/// `|a − b| ≤ tol · max(1, |a|, |b|)` coordinate-wise, with a message.
fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
        let scale = 1f64.max(a.abs()).max(b.abs());
        assert!(
            (a - b).abs() <= tol * scale,
            "{what}: coordinate {i}: got {a:e}, want {b:e} (difference {:e})",
            (a - b).abs()
        );
    }
}

const W0: [f64; 4] = [0.5, -1.25, 2.0, 0.0];
/// Three gradients, not taken at the iterates: the update formulas do not
/// care where a gradient came from, and fixed ones keep the hand expansions
/// short. Mixed signs and magnitudes, one zero.
const GRADS: [[f64; 4]; 3] = [[0.3, -2.0, 1e-3, 0.0], [-0.1, -1.5, 4.0, 0.7], [0.25, 3.0, -2.0, -0.05]];

/// Run `rule` on W0 with GRADS; the iterates after each step.
fn run(rule: &mut dyn FirstOrder) -> Vec<Vec<f64>> {
    let mut w = W0.to_vec();
    GRADS
        .iter()
        .map(|g| {
            rule.step(&mut w, g);
            w.clone()
        })
        .collect()
}

// ---------------------------------------------------------------- (1), (2)

#[test]
fn sgd_is_exactly_w_minus_eta_g() {
    let eta = 0.037;
    let mut sgd = Sgd::new(4, eta).unwrap();
    let got = run(&mut sgd);
    let mut w = W0;
    for (t, g) in GRADS.iter().enumerate() {
        for i in 0..4 {
            w[i] -= eta * g[i];
        }
        assert_eq!(got[t], w, "step {}", t + 1);
    }
    // And literally, for the first step.
    assert_eq!(got[0][0], 0.5 - 0.037 * 0.3);
    assert_eq!(got[0][3], 0.0);
}

#[test]
fn nag_first_three_steps_match_the_expanded_recursion() {
    let (eta, mu) = (0.1, 0.8);
    let mut nag = Nag::new(4, eta).unwrap().with_momentum(mu).unwrap();
    let got = run(&mut nag);
    // v₁ = −ηg₁, w₁ = w₀ + μv₁ − ηg₁ = w₀ − (1+μ)ηg₁;
    // v₂ = −μηg₁ − ηg₂, w₂ = w₁ + μv₂ − ηg₂ = w₁ − μ²ηg₁ − (1+μ)ηg₂;
    // v₃ = −μ²ηg₁ − μηg₂ − ηg₃, w₃ = w₂ − μ³ηg₁ − μ²ηg₂ − (1+μ)ηg₃.
    let [g1, g2, g3] = GRADS;
    for i in 0..4 {
        let w1 = W0[i] - (1.0 + mu) * eta * g1[i];
        let w2 = w1 - mu * mu * eta * g1[i] - (1.0 + mu) * eta * g2[i];
        let w3 = w2 - mu * mu * mu * eta * g1[i] - mu * mu * eta * g2[i] - (1.0 + mu) * eta * g3[i];
        assert_close(
            &format!("NAG coordinate {i}"),
            &[got[0][i], got[1][i], got[2][i]],
            &[w1, w2, w3],
            1e-14,
        );
    }
    let v3: Vec<f64> = (0..4)
        .map(|i| -mu * mu * eta * g1[i] - mu * eta * g2[i] - eta * g3[i])
        .collect();
    assert_close("NAG velocity", nag.velocity(), &v3, 1e-14);
}

/// Kingma & Ba's Algorithm 1 written out for step `t` from the whole
/// gradient history: `m_t = (1−β₁) Σ_{s≤t} β₁^{t−s} g_s`, likewise `v_t`.
fn adam_by_hand(eta: f64, b1: f64, b2: f64, eps: f64) -> Vec<Vec<f64>> {
    let mut w = W0.to_vec();
    let mut out = Vec::new();
    for t in 1..=GRADS.len() {
        for (i, wi) in w.iter_mut().enumerate() {
            let mut m = 0.0;
            let mut v = 0.0;
            for s in 1..=t {
                let g = GRADS[s - 1][i];
                m += (1.0 - b1) * b1.powi((t - s) as i32) * g;
                v += (1.0 - b2) * b2.powi((t - s) as i32) * g * g;
            }
            let m_hat = m / (1.0 - b1.powi(t as i32));
            let v_hat = v / (1.0 - b2.powi(t as i32));
            *wi -= eta * m_hat / (v_hat.sqrt() + eps);
        }
        out.push(w.clone());
    }
    out
}

#[test]
fn adam_first_three_steps_match_algorithm_1_by_hand() {
    // Defaults.
    let mut adam = Adam::new(4, 1e-3).unwrap();
    let want = adam_by_hand(1e-3, 0.9, 0.999, 1e-8);
    for (t, (got, want)) in run(&mut adam).iter().zip(&want).enumerate() {
        assert_close(&format!("Adam (defaults) step {}", t + 1), got, want, 1e-14);
    }
    assert_eq!(adam.steps(), 3);
    // Large ε and unusual βs, so that ε's place (√v̂ + ε, not √v + ε) and
    // the powers in the corrections show well above rounding.
    let mut adam = Adam::new(4, 0.2)
        .unwrap()
        .with_betas(0.5, 0.75)
        .unwrap()
        .with_epsilon(0.05)
        .unwrap();
    let want = adam_by_hand(0.2, 0.5, 0.75, 0.05);
    for (t, (got, want)) in run(&mut adam).iter().zip(&want).enumerate() {
        assert_close(
            &format!("Adam (β = 0.5, 0.75; ε = 0.05) step {}", t + 1),
            got,
            want,
            1e-14,
        );
    }
    // One coordinate literally: the first step is w − η g/(|g| + ε).
    let mut adam = Adam::new(1, 0.2).unwrap().with_epsilon(0.05).unwrap();
    let mut w = [1.0];
    adam.step(&mut w, &[0.3]);
    assert!((w[0] - (1.0 - 0.2 * 0.3 / 0.35)).abs() < 1e-15, "{}", w[0]);
}

#[test]
fn adagrad_first_three_steps_match_the_accumulated_squares() {
    for (g0, eps) in [(0.0, 1e-10), (0.1, 1e-7), (0.0, 0.5)] {
        let eta = 0.1;
        let mut rule = AdaGrad::new(4, eta)
            .unwrap()
            .with_initial_accumulator(g0)
            .unwrap()
            .with_epsilon(eps)
            .unwrap();
        let got = run(&mut rule);
        let mut w = W0;
        for t in 0..GRADS.len() {
            for i in 0..4 {
                let sum_sq: f64 = g0 + (0..=t).map(|s| GRADS[s][i] * GRADS[s][i]).sum::<f64>();
                w[i] -= eta * GRADS[t][i] / (sum_sq.sqrt() + eps);
            }
            assert_close(
                &format!("AdaGrad (G₀ = {g0}, ε = {eps}) step {}", t + 1),
                &got[t],
                &w,
                1e-14,
            );
        }
    }
    // Literally: with G₀ = 0 the first step is w − η g/(|g| + ε).
    let mut rule = AdaGrad::new(2, 0.1).unwrap();
    let mut w = [1.0, 1.0];
    rule.step(&mut w, &[-4.0, 0.0]);
    assert!((w[0] - (1.0 + 0.1 * 4.0 / (4.0 + 1e-10))).abs() < 1e-15, "{}", w[0]);
    assert_eq!(w[1], 1.0, "a zero gradient must leave the weight alone (0/ε = 0)");
    assert_eq!(rule.accumulator(), &[16.0, 0.0]);
}

#[test]
fn nag_without_momentum_is_sgd() {
    let mut nag = Nag::new(4, 0.05).unwrap().with_momentum(0.0).unwrap();
    let mut sgd = Sgd::new(4, 0.05).unwrap();
    assert_eq!(run(&mut nag), run(&mut sgd));
}

// ---------------------------------------------------------------- (3)

/// `f(x) = ½ Σ dᵢ xᵢ² − bᵢ xᵢ`, minimum at `b/d` (not 0, so relative
/// comparisons stay meaningful near it).
fn quadratic_gradient(d: &[f64], b: &[f64], x: &[f64], g: &mut [f64]) {
    for i in 0..x.len() {
        g[i] = d[i] * x[i] - b[i];
    }
}

#[test]
fn nag_is_sutskevers_look_ahead_form_in_shifted_variables() {
    let d = [1.0, 3.0, 10.0, 40.0, 100.0];
    let b = [1.0, -2.0, 0.5, 4.0, -7.0];
    let x0 = [2.0, 1.0, -1.0, 0.3, 0.9];
    for (eta, mu) in [(0.01, 0.9), (0.005, 0.99), (0.012, 0.5)] {
        // Sutskever et al. (2013), eq. (3)–(4), gradient at θ + μv.
        let mut theta = x0;
        let mut v = [0.0; 5];
        // Ours, gradient at w.
        let mut nag = Nag::new(5, eta).unwrap().with_momentum(mu).unwrap();
        let mut w = x0;
        let mut g = [0.0; 5];
        for t in 1..=3000 {
            let look_ahead: Vec<f64> = (0..5).map(|i| theta[i] + mu * v[i]).collect();
            quadratic_gradient(&d, &b, &look_ahead, &mut g);
            for i in 0..5 {
                v[i] = mu * v[i] - eta * g[i];
                theta[i] += v[i];
            }
            quadratic_gradient(&d, &b, &w, &mut g);
            nag.step(&mut w, &g);
            // w_t = θ_t + μ v_t, and the velocities are the same sequence.
            // Relative to ‖θ + μv‖∞: a coordinate oscillating through 0
            // (μ = 0.99) has no meaningful relative error of its own.
            let shifted: Vec<f64> = (0..5).map(|i| theta[i] + mu * v[i]).collect();
            let norm = shifted.iter().fold(0f64, |a, x| a.max(x.abs()));
            for i in 0..5 {
                let rel = (w[i] - shifted[i]).abs() / norm;
                assert!(
                    rel <= 1e-12,
                    "η = {eta}, μ = {mu}, t = {t}, i = {i}: w = {:e}, θ + μv = {:e} (relative {rel:e})",
                    w[i],
                    shifted[i]
                );
            }
            // v is a difference of iterates: its rounding is relative to θ.
            let scale = theta.iter().fold(0f64, |a, x| a.max(x.abs()));
            for (i, (&ours, &theirs)) in nag.velocity().iter().zip(&v).enumerate() {
                assert!(
                    (ours - theirs).abs() <= 1e-12 * scale,
                    "η = {eta}, μ = {mu}, t = {t}: velocity {i}: {ours:e} vs {theirs:e}"
                );
            }
        }
        // Both converged to b/d: the comparison was not of two stalled runs.
        for i in 0..5 {
            assert!(
                (w[i] - b[i] / d[i]).abs() < 1e-3,
                "η = {eta}, μ = {mu}: w[{i}] = {}",
                w[i]
            );
        }
    }
}

// ---------------------------------------------------------------- (4)

#[test]
fn adam_first_step_has_magnitude_eta_in_every_coordinate() {
    // Gradients over six orders of magnitude, both signs.
    let g: Vec<f64> = (0..13)
        .map(|k| {
            let mag = 10f64.powf(-2.0 + 0.5 * k as f64);
            if k % 2 == 0 {
                mag
            } else {
                -mag
            }
        })
        .collect();
    for (b1, b2) in [(0.9, 0.999), (0.5, 0.99), (0.0, 0.9)] {
        let eta = 1e-3;
        let mut adam = Adam::new(g.len(), eta).unwrap().with_betas(b1, b2).unwrap();
        let w0 = vec![0.25; g.len()];
        let mut w = w0.clone();
        // A constant gradient keeps m̂ = g and v̂ = g² at every step t, so
        // every step, not only the first, is −η g/(|g| + ε) ≈ −η sign(g):
        // this also checks the powers βᵗ of the corrections.
        for t in 1..=20 {
            let before = w.clone();
            adam.step(&mut w, &g);
            for i in 0..g.len() {
                let delta = w[i] - before[i];
                let ratio = -delta * g[i].signum() / eta;
                assert!(
                    (ratio - 1.0).abs() < 1e-6,
                    "β = ({b1}, {b2}), step {t}, g = {:e}: |Δw|/η = {ratio} (no bias correction gives ≈ 3.16 at t = 1)",
                    g[i]
                );
            }
        }
    }
}

// ---------------------------------------------------------------- (5)

/// Steps until `f(w) = ½ Σ dᵢ wᵢ²` falls below `f(w₀)·10⁻⁶`, at most
/// `limit`; `None` if it never does.
fn steps_to_reduce_by_1e6(rule: &mut dyn FirstOrder, limit: usize) -> Option<usize> {
    let n = 20;
    // dᵢ from 1 to 100, geometrically: condition number 100.
    let d: Vec<f64> = (0..n).map(|i| 100f64.powf(i as f64 / (n - 1) as f64)).collect();
    let f = |w: &[f64]| 0.5 * w.iter().zip(&d).map(|(wi, di)| di * wi * wi).sum::<f64>();
    let mut w: Vec<f64> = (0..n).map(|i| if i % 3 == 0 { -1.0 } else { 1.0 }).collect();
    let mut g = vec![0.0; n];
    let target = f(&w) * 1e-6;
    for k in 1..=limit {
        for i in 0..n {
            g[i] = d[i] * w[i];
        }
        rule.step(&mut w, &g);
        let fk = f(&w);
        assert!(fk.is_finite(), "{}: f diverged at step {k}", rule.name());
        if fk <= target {
            return Some(k);
        }
    }
    None
}

#[test]
fn each_rule_reduces_an_ill_conditioned_quadratic_by_1e6() {
    let n = 20;
    // (rule, limit): SGD at η = 2/(L + μ) contracts by 99/101 per step
    // (≈ 350 steps); NAG at η = 1/L, μ = (√κ − 1)/(√κ + 1) by about
    // 1 − 1/√κ; Adam and AdaGrad normalize each coordinate, so κ hardly
    // matters to them, η sets the scale.
    let cases: Vec<(Box<dyn FirstOrder>, usize)> = vec![
        (Box::new(Sgd::new(n, 2.0 / 101.0).unwrap()), 400),
        (
            Box::new(Nag::new(n, 0.01).unwrap().with_momentum(9.0 / 11.0).unwrap()),
            100,
        ),
        (Box::new(Adam::new(n, 0.01).unwrap()), 500),
        (Box::new(AdaGrad::new(n, 0.5).unwrap()), 40),
    ];
    for (mut rule, limit) in cases {
        let steps = steps_to_reduce_by_1e6(rule.as_mut(), limit);
        eprintln!("{}: {steps:?} steps (limit {limit})", rule.name());
        assert!(
            steps.is_some(),
            "{}: f not reduced by 10⁶ within {limit} steps",
            rule.name()
        );
    }
}

// ---------------------------------------------------------------- (6)

#[test]
fn reset_restores_the_initial_behaviour() {
    let fresh_run = |rule: &mut dyn FirstOrder| run(rule);
    let builders: Vec<Box<dyn Fn() -> Box<dyn FirstOrder>>> = vec![
        Box::new(|| Box::new(Sgd::new(4, 0.1).unwrap())),
        Box::new(|| Box::new(Nag::new(4, 0.1).unwrap().with_momentum(0.7).unwrap())),
        Box::new(|| Box::new(Adam::new(4, 0.1).unwrap().with_betas(0.8, 0.9).unwrap())),
        Box::new(|| Box::new(AdaGrad::new(4, 0.1).unwrap().with_initial_accumulator(0.1).unwrap())),
    ];
    for build in builders {
        let want = fresh_run(build().as_mut());
        let mut rule = build();
        let first = run(rule.as_mut());
        assert_eq!(first, want, "{}: two fresh rules differ", rule.name());
        // Pollute the state further, then reset.
        let mut w = W0.to_vec();
        rule.step(&mut w, &[5.0, -5.0, 5.0, -5.0]);
        let second = run(rule.as_mut());
        if rule.name() != "sgd" {
            assert_ne!(
                second,
                want,
                "{}: state made no difference, the test would prove nothing",
                rule.name()
            );
        }
        rule.reset();
        assert_eq!(run(rule.as_mut()), want, "{}: after reset", rule.name());
    }
    let mut adam = Adam::new(2, 1e-3).unwrap();
    adam.step(&mut [0.0, 0.0], &[1.0, 2.0]);
    adam.reset();
    assert_eq!(adam.steps(), 0);
    let mut adagrad = AdaGrad::new(2, 1e-3).unwrap().with_initial_accumulator(0.1).unwrap();
    adagrad.step(&mut [0.0, 0.0], &[1.0, 2.0]);
    adagrad.reset();
    assert_eq!(adagrad.accumulator(), &[0.1, 0.1]);
}

// ---------------------------------------------------------------- (7)

#[test]
fn kinds_round_trip_through_display_and_from_str() {
    let names: Vec<String> = FirstOrderKind::ALL.iter().map(|k| k.to_string()).collect();
    assert_eq!(names, ["sgd", "nag", "adam", "adagrad"]);
    for kind in FirstOrderKind::ALL {
        assert_eq!(kind.to_string().parse::<FirstOrderKind>(), Ok(kind));
        assert_eq!(kind.label().parse::<FirstOrderKind>(), Ok(kind), "case-insensitive");
        let rule = kind.build(7, kind.paper_learning_rate()).unwrap();
        assert_eq!(rule.name(), kind.name());
        assert_eq!(rule.n_params(), 7);
        assert_eq!(rule.learning_rate(), 1e-3);
    }
    assert_eq!(" AdaGrad\n".parse::<FirstOrderKind>(), Ok(FirstOrderKind::AdaGrad));
    for bad in ["rmsprop", "", "ada", "sgd-momentum"] {
        let err = bad.parse::<FirstOrderKind>().unwrap_err();
        let message = err.to_string();
        assert!(message.contains(&format!("{bad:?}")), "{message}");
        assert!(message.contains("sgd, nag, adam, adagrad"), "{message}");
    }
}

// ---------------------------------------------------------------- (8)

#[test]
fn constructor_errors_name_the_parameter() {
    for eta in [0.0, -1e-3, f64::NAN, f64::INFINITY] {
        assert_eq!(Sgd::new(3, eta).unwrap_err().name, "learning rate η");
        assert_eq!(Nag::new(3, eta).unwrap_err().name, "learning rate η");
        assert_eq!(Adam::new(3, eta).unwrap_err().name, "learning rate η");
        assert_eq!(AdaGrad::new(3, eta).unwrap_err().name, "learning rate η");
        for kind in FirstOrderKind::ALL {
            assert_eq!(kind.build(3, eta).err().map(|e| e.name), Some("learning rate η"));
        }
    }
    for mu in [1.0, -0.1, 1.5, f64::NAN] {
        let err = Nag::new(3, 0.1).unwrap().with_momentum(mu).unwrap_err();
        assert_eq!(err.name, "momentum μ");
        assert!(err.to_string().contains("momentum μ"), "{err}");
    }
    assert!(Nag::new(3, 0.1).unwrap().with_momentum(0.0).is_ok());
    let adam = || Adam::new(3, 1e-3).unwrap();
    assert_eq!(adam().with_betas(1.0, 0.999).unwrap_err().name, "β₁");
    assert_eq!(adam().with_betas(-0.1, 0.999).unwrap_err().name, "β₁");
    assert_eq!(adam().with_betas(0.9, 1.0).unwrap_err().name, "β₂");
    assert_eq!(adam().with_betas(0.9, f64::NAN).unwrap_err().name, "β₂");
    assert!(adam().with_betas(0.0, 0.0).is_ok());
    for eps in [0.0, -1e-8, f64::NAN, f64::INFINITY] {
        assert_eq!(adam().with_epsilon(eps).unwrap_err().name, "ε");
        assert_eq!(AdaGrad::new(3, 0.1).unwrap().with_epsilon(eps).unwrap_err().name, "ε");
    }
    for g0 in [-0.1, f64::NAN, f64::INFINITY] {
        let err = AdaGrad::new(3, 0.1).unwrap().with_initial_accumulator(g0).unwrap_err();
        assert_eq!(err.name, "initial accumulator G₀");
    }
    let err = Sgd::new(3, -2.0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "step rule parameter learning rate η = -2 must satisfy 0 < η < ∞"
    );
}

#[test]
fn defaults_are_the_papers() {
    let adam = Adam::new(1, 1e-3).unwrap();
    assert_eq!(adam.betas(), (0.9, 0.999));
    assert_eq!(adam.epsilon(), 1e-8);
    assert_eq!(Nag::new(1, 1e-3).unwrap().momentum(), 0.9);
    let adagrad = AdaGrad::new(1, 1e-3).unwrap();
    assert_eq!(adagrad.epsilon(), 1e-10);
    assert_eq!(adagrad.initial_accumulator(), 0.0);
    assert_eq!(adagrad.accumulator(), &[0.0]);
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "wrong length")]
fn a_wrong_length_is_caught_in_debug_builds() {
    let mut adam = Adam::new(3, 1e-3).unwrap();
    adam.step(&mut [0.0; 4], &[1.0; 4]);
}
