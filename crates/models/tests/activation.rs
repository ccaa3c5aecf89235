//! Activation functions: derivatives against finite differences, inverses,
//! stability in the tails, and the in-place matrix maps against the scalar
//! functions.

mod common;

use common::rng;
use models::{Activation, ModelError};
use ndarray::{Array1, Array2, ShapeBuilder};

const EPS: f64 = f64::EPSILON;

/// `sup |f'''|` on the smooth pieces (0 for the piecewise-linear ones):
/// sigmoid `σ''' = σ'(1 − 6σ + 6σ²)`, largest at 0: 1/8; tanh
/// `−2 sech²x (1 − 3 tanh²x)`, largest at 0: 2; Gaussian
/// `(12x − 8x³) e^{−x²}`, largest ≈ 3.90 at x ≈ 0.52: 4; sine: 1.
fn third_derivative_bound(f: Activation) -> f64 {
    match f {
        Activation::Sigmoid => 0.125,
        Activation::Tanh => 2.0,
        Activation::Gaussian => 4.0,
        Activation::Sine => 1.0,
        Activation::Hardlim | Activation::Triangular | Activation::Relu | Activation::Linear => 0.0,
    }
}

/// `sup |f'|`.
fn first_derivative_bound(f: Activation) -> f64 {
    match f {
        Activation::Sigmoid => 0.25,
        Activation::Hardlim => 0.0,
        _ => 1.0,
    }
}

/// Points at which `f` is not differentiable, with a margin of 1e-3 (larger
/// than the step `h`, so no stencil straddles a kink).
fn near_kink(f: Activation, x: f64) -> bool {
    let near = |k: f64| (x - k).abs() < 1e-3;
    match f {
        Activation::Relu | Activation::Hardlim => near(0.0),
        Activation::Triangular => near(0.0) || near(1.0) || near(-1.0),
        _ => false,
    }
}

fn sample_points() -> Vec<f64> {
    // A step that is not a binary fraction, so no point lands on a kink, plus
    // a coarser sweep into the tails.
    let mut xs: Vec<f64> = (0..=1641).map(|i| -6.0 + 0.007_311 * i as f64).collect();
    xs.extend((0..=216).map(|i| -40.0 + 0.370_3 * i as f64));
    xs
}

/// The central difference `(f(x+h) − f(x−h)) / 2h` differs from `f'(x)` by
///
/// ```text
/// truncation  h²/6 · sup|f'''|
/// rounding    (2·c·ε·max|f(x±h)| + ε|x|·sup|f'|) / 2h
///             (each f value off by ≤ c ulps, c = 4 for the composite
///             formulas; x ± h rounded to within ε|x|/2 each)
/// derivative  c·ε·|f'(x)|  (the derivative formula's own rounding)
/// ```
///
/// and the test allows twice their sum.
#[test]
fn derivatives_match_central_differences() {
    let h = 1e-5;
    let c = 4.0;
    for f in Activation::ALL {
        let m3 = third_derivative_bound(f);
        let d1 = first_derivative_bound(f);
        let mut checked = 0;
        for x in sample_points() {
            if near_kink(f, x) {
                continue;
            }
            let (fp, fm) = (f.value(x + h), f.value(x - h));
            let fd = (fp - fm) / (2.0 * h);
            let d = f.derivative(x);
            let truncation = h * h / 6.0 * m3;
            let rounding = (2.0 * c * EPS * fp.abs().max(fm.abs()) + EPS * x.abs() * d1) / (2.0 * h);
            let tol = 2.0 * (truncation + rounding + c * EPS * d.abs());
            assert!(
                (fd - d).abs() <= tol,
                "{f}: f'({x}) = {d:e}, central difference {fd:e}, |diff| {:.3e} > {tol:.3e}",
                (fd - d).abs()
            );
            checked += 1;
        }
        assert!(checked > 1800, "{f}: only {checked} points checked");
    }
}

#[test]
fn derivatives_at_the_kinks_are_the_documented_choices() {
    assert_eq!(Activation::Relu.derivative(0.0), 0.0);
    assert_eq!(Activation::Relu.derivative(1e-300), 1.0);
    assert_eq!(Activation::Hardlim.derivative(0.0), 0.0);
    assert_eq!(Activation::Hardlim.value(0.0), 1.0);
    assert_eq!(Activation::Hardlim.value(-1e-300), 0.0);
    assert_eq!(Activation::Triangular.derivative(0.0), 0.0);
    assert_eq!(Activation::Triangular.derivative(1.0), 0.0);
    assert_eq!(Activation::Triangular.derivative(-1.0), 0.0);
    assert_eq!(Activation::Triangular.derivative(0.5), -1.0);
    assert_eq!(Activation::Triangular.derivative(-0.5), 1.0);
    assert_eq!(Activation::Triangular.value(2.0), 0.0);
    assert_eq!(Activation::Triangular.value(-0.25), 0.75);
}

/// `inverse(value(x))` returns `x` up to the rounding of `value`, amplified by
/// the inverse's slope:
///
/// - sigmoid: `y = σ(x)(1 + δ)`, `|δ| ≤ 4ε`, and `logit'(y) = 1/(y(1 − y))`,
///   so the error is `δ/(1 − σ) = δ(1 + eˣ)`, plus the logit's own rounding
///   `≤ 4ε(|x| + 1)`;
/// - tanh: `t = tanh x (1 + δ)` and `atanh'(t) = cosh²x`, so the error is
///   `δ |tanh x| cosh²x`, plus `4ε(|x| + 1)`;
/// - linear: exact.
#[test]
fn inverse_undoes_value() {
    for i in 0..=900 {
        let x = -30.0 + 0.05 * i as f64;
        let y = Activation::Sigmoid.value(x);
        let back = Activation::Sigmoid.inverse(y).expect("σ(x) ∈ (0, 1) for x ∈ [−30, 15]");
        let tol = 4.0 * EPS * (1.0 + x.exp()) + 4.0 * EPS * (x.abs() + 1.0);
        assert!((back - x).abs() <= tol, "sigmoid: logit(σ({x})) = {back}, tol {tol:e}");
    }
    for i in 0..=320 {
        let x = -8.0 + 0.05 * i as f64;
        let y = Activation::Tanh.value(x);
        let back = Activation::Tanh.inverse(y).expect("tanh x ∈ (−1, 1) for |x| ≤ 8");
        let tol = 4.0 * EPS * y.abs() * x.cosh().powi(2) + 4.0 * EPS * (x.abs() + 1.0);
        assert!((back - x).abs() <= tol, "tanh: atanh(tanh({x})) = {back}, tol {tol:e}");
    }
    for x in [-1e300, -3.5, 0.0, 2.25, 7e-310] {
        assert_eq!(Activation::Linear.inverse(Activation::Linear.value(x)), Some(x));
    }
}

#[test]
fn inverse_is_none_outside_the_range_or_for_non_injective_functions() {
    for y in [0.0, 1.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
        assert_eq!(Activation::Sigmoid.inverse(y), None, "sigmoid at {y}");
    }
    for y in [-1.0, 1.0, 2.0, f64::NAN] {
        assert_eq!(Activation::Tanh.inverse(y), None, "tanh at {y}");
    }
    assert_eq!(Activation::Linear.inverse(f64::NAN), None);
    for f in [
        Activation::Gaussian,
        Activation::Hardlim,
        Activation::Triangular,
        Activation::Sine,
        Activation::Relu,
    ] {
        assert!(!f.is_invertible());
        assert_eq!(f.inverse(0.5), None, "{f}");
    }
    assert!(Activation::Sigmoid.is_invertible() && Activation::Tanh.is_invertible());
}

#[test]
fn sigmoid_and_tanh_are_stable_in_the_tails() {
    let s = Activation::Sigmoid;
    assert_eq!(s.value(800.0), 1.0);
    let v = s.value(-800.0);
    assert!(v.is_finite() && (0.0..1e-300).contains(&v));
    for x in [
        -800.0,
        800.0,
        -1e300,
        1e300,
        f64::MAX,
        -f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        for f in [Activation::Sigmoid, Activation::Tanh, Activation::Gaussian] {
            assert!(f.value(x).is_finite(), "{f}({x})");
            let d = f.derivative(x);
            assert!(d.is_finite() && d.abs() < 1e-300, "{f}'({x}) = {d}");
        }
    }
    // Full relative accuracy in the left tail: σ(x) = eˣ/(1 + eˣ), where
    // the naive 1/(1 + e^{−x}) is also accurate while e^{−x} does not overflow.
    for x in [-30.0_f64, -100.0, -700.0] {
        let want = x.exp() / (1.0 + x.exp());
        let rel = (s.value(x) - want).abs() / want;
        assert!(rel <= 4.0 * EPS, "σ({x}) relative error {rel:e}");
    }
    assert!(s.value(-745.0) > 0.0, "σ(−745) is a positive subnormal");
    let mut z = ndarray::array![[800.0, -800.0], [0.0, -1e308]];
    s.apply_inplace(&mut z);
    assert!(z.iter().all(|v| v.is_finite()), "{z:?}");
    assert_eq!(z[[0, 0]], 1.0);
    assert_eq!(z[[1, 0]], 0.5);
}

/// The in-place maps must give exactly the scalar functions' values, on the
/// sequential path (small), the parallel path (≥ 1e5 entries), a strided
/// view and a column-major array.
#[test]
fn apply_inplace_equals_value_on_every_layout() {
    let mut rng = rng(11);
    let small = rng.uniform_matrix(7, 5, -4.0, 4.0);
    let large = rng.uniform_matrix(401, 300, -4.0, 4.0);
    assert!(large.len() >= models::activation::PARALLEL_THRESHOLD);
    let fortran = {
        let mut f = Array2::zeros((300, 401).f());
        f.assign(&large.t());
        f
    };
    for f in Activation::ALL {
        for base in [&small, &large, &fortran] {
            let mut got = base.clone();
            f.apply_inplace(&mut got);
            assert_eq!(got, base.mapv(|x| f.value(x)), "{f} on {:?}", base.dim());
            let mut der = base.clone();
            f.derivative_inplace(&mut der);
            assert_eq!(der, base.mapv(|x| f.derivative(x)), "{f}' on {:?}", base.dim());
        }
        // A non-contiguous view: every other column.
        let mut got = large.clone();
        {
            let mut view = got.slice_mut(ndarray::s![.., ..;2]);
            f.apply_inplace(&mut view);
        }
        for ((i, j), &v) in got.indexed_iter() {
            let want = if j % 2 == 0 {
                f.value(large[[i, j]])
            } else {
                large[[i, j]]
            };
            assert_eq!(v, want, "{f} on the strided view at ({i}, {j})");
        }
    }
}

#[test]
fn apply_with_bias_equals_value_of_shifted_entries() {
    let mut rng = rng(12);
    for (rows, cols) in [(6, 4), (500, 210)] {
        let z = rng.uniform_matrix(rows, cols, -3.0, 3.0);
        let b = Array1::from_shape_fn(cols, |_| rng.range(-1.0, 1.0));
        let fortran = {
            let mut f = Array2::zeros((rows, cols).f());
            f.assign(&z);
            f
        };
        for f in Activation::ALL {
            let want = Array2::from_shape_fn((rows, cols), |(i, j)| f.value(z[[i, j]] + b[j]));
            for base in [&z, &fortran] {
                let mut got = base.clone();
                f.apply_with_bias_inplace(&mut got, b.view()).expect("matching bias");
                assert_eq!(got, want, "{f} with bias on {rows}×{cols}");
            }
        }
    }
    let mut z = Array2::<f64>::zeros((3, 4));
    let err = Activation::Sigmoid.apply_with_bias_inplace(&mut z, Array1::zeros(3).view());
    assert!(
        matches!(
            err,
            Err(ModelError::Linalg(linalg_core::Error::Shape { what: "bias", .. }))
        ),
        "{err:?}"
    );
}

#[test]
fn names_parse_and_display() {
    for f in Activation::ALL {
        assert_eq!(f.to_string().parse::<Activation>().ok(), Some(f));
        assert_eq!(f.to_string(), f.name());
    }
    let names = [
        "sigmoid",
        "gaussian",
        "hardlim",
        "triangular",
        "sine",
        "tanh",
        "relu",
        "linear",
    ];
    for (f, n) in Activation::ALL.iter().zip(names) {
        assert_eq!(f.name(), n);
    }
    assert_eq!("rbf".parse::<Activation>().ok(), Some(Activation::Gaussian));
    assert_eq!("tribas".parse::<Activation>().ok(), Some(Activation::Triangular));
    assert_eq!(" SIGMOID ".parse::<Activation>().ok(), Some(Activation::Sigmoid));
    assert!(matches!(
        "softmax".parse::<Activation>(),
        Err(ModelError::UnknownActivation(s)) if s == "softmax"
    ));
}

#[test]
fn serde_round_trip() {
    for f in Activation::ALL {
        let bytes = bincode::serde::encode_to_vec(f, bincode::config::standard()).expect("encode");
        let (back, _): (Activation, usize) =
            bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).expect("decode");
        assert_eq!(back, f);
    }
}
