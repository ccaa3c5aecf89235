//! The ELM fitted from chunks of rows against the in-memory fit: the same
//! hidden layer, output weights within the ridge solve's forward-error
//! bound (derived from κ: the two differ only in the order of the sums),
//! under random chunkings; fitted from shards on 1, 2, 3 threads against
//! the fit from chunks; errors named.

mod common;

use common::{at_b, fro, fro_diff, gauss_solve, ridge_tolerance, rng, spectrum};
use models::elm::Chunk;
use models::prelude::*;
use models::{Activation, Elm, ElmParams, InputScale, ModelError, ReadoutSolver};
use ndarray::{s, Array2};
use proptest::prelude::*;
use test_support::run_on_threads;

/// The rows of `x`, `y` cut at `bounds` (sorted, from 0 to K).
fn chunks<'a>(
    x: &'a Array2<f64>,
    y: &'a Array2<f64>,
    bounds: &'a [usize],
) -> impl Iterator<Item = models::Result<Chunk>> + 'a {
    bounds.windows(2).map(move |w| {
        Ok((
            x.slice(s![w[0]..w[1], ..]).to_owned(),
            y.slice(s![w[0]..w[1], ..]).to_owned(),
        ))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn a_fit_from_chunks_equals_the_in_memory_fit(
        seed in any::<u64>(),
        k in 20usize..120,
        d in 1usize..6,
        nodes in 1usize..30,
        log_lambda in -8.0f64..0.0,
        cuts in proptest::collection::vec(0.0f64..1.0, 0..5),
        unit_variance in any::<bool>(),
        strategy in any::<bool>(),
    ) {
        let mut r = rng(seed);
        let x = r.uniform_matrix(k, d, -2.0, 3.0);
        let y = r.gaussian(k, 2);
        let lambda = 10f64.powf(log_lambda);
        let scale = if unit_variance { InputScale::UnitVariance } else { InputScale::Fixed(0.7) };
        let mut p = ElmParams::new(nodes, Activation::Sigmoid).with_lambda(lambda).with_input_scale(scale).with_seed(seed);
        if strategy {
            p = p.with_solver("chol2".parse().expect("strategy"));
        }
        let p = p.check().expect("valid");
        let whole = p.fit(&Dataset::new(x.view(), y.view())).expect("fit");
        let mut bounds: Vec<usize> = cuts.iter().map(|c| (c * k as f64) as usize).collect();
        bounds.extend([0, k]);
        bounds.sort_unstable();
        let streamed = p.fit_chunks(|| chunks(&x, &y, &bounds)).expect("fit from chunks");
        // The hidden layer: the same draws; the scale from sums in another
        // order (UnitVariance) within a few roundings.
        let (h1, h2) = (whole.hidden().weights(), streamed.hidden().weights());
        let dh = fro_diff(h1.view(), h2.view());
        prop_assert!(dh <= 16.0 * f64::EPSILON * common::fro(h1.view()), "hidden weights differ by {dh:.2e}");
        // The output weights: the ridge solution on all the rows of the
        // streamed model's own hidden outputs, by Gaussian elimination on
        // the normal equations (plain loops), within the forward-error bound
        // of two such solves; and the in-memory fit's weights as close.
        let a = streamed.hidden().outputs(x.view()).expect("outputs");
        let mut g = at_b(a.view(), a.view());
        g.diag_mut().mapv_inplace(|v| v + lambda);
        let w_ref = gauss_solve(g.view(), at_b(a.view(), y.view()).view());
        let tol = ridge_tolerance(a.view(), y.view(), w_ref.view(), lambda, 2, 1);
        let dw = fro_diff(streamed.output_weights(), w_ref.view());
        prop_assert!(dw <= tol, "streamed: ‖W − W*‖ = {dw:.3e} > {tol:.3e}");
        if !unit_variance {
            let dw = fro_diff(whole.output_weights(), w_ref.view());
            prop_assert!(dw <= tol, "in memory: ‖W − W*‖ = {dw:.3e} > {tol:.3e}");
        }
        prop_assert!(dw <= tol, "‖W − W_stream‖ = {dw:.3e} > {tol:.3e}");
    }
}

/// The rows `lo..hi` of `x`, `y` in chunks of `size` rows.
fn pieces(x: &Array2<f64>, y: &Array2<f64>, lo: usize, hi: usize, size: usize) -> Vec<Chunk> {
    (lo..hi)
        .step_by(size)
        .map(|a| {
            let b = (a + size).min(hi);
            (x.slice(s![a..b, ..]).to_owned(), y.slice(s![a..b, ..]).to_owned())
        })
        .collect()
}

/// A reader of `chunks`: each call yields them again.
fn reader(chunks: &[Chunk]) -> impl FnMut() -> std::vec::IntoIter<models::Result<Chunk>> + '_ {
    move || chunks.iter().cloned().map(Ok).collect::<Vec<_>>().into_iter()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// `fit_shards` on 1, 2 and 3 threads (contiguous shards read in chunks
    /// of `size` rows): every thread returns the same network bit for bit;
    /// its weights are the ridge solution of its own hidden outputs on all
    /// the rows (Gaussian elimination, two solves' bound) and within the
    /// fit from chunks' weights by the two solves' rounding plus the
    /// first-order effect of the hidden outputs' difference `ΔA` (from the
    /// input scale's sums in another order, `UnitVariance` only):
    /// `‖R⁻¹‖‖ΔA‖(‖Y‖ + 2‖A‖‖W‖)` with `R = AᵀA + λI`, doubled for the
    /// neglected terms.
    #[test]
    fn a_fit_from_shards_equals_the_fit_from_chunks(
        seed in any::<u64>(),
        k in 12usize..120,
        d in 1usize..6,
        nodes in 1usize..30,
        log_lambda in -8.0f64..0.0,
        size in 1usize..40,
        unit_variance in any::<bool>(),
    ) {
        let mut r = rng(seed);
        let x = r.uniform_matrix(k, d, -2.0, 3.0);
        let y = r.gaussian(k, 2);
        let lambda = 10f64.powf(log_lambda);
        let scale = if unit_variance { InputScale::UnitVariance } else { InputScale::Fixed(0.7) };
        let p = ElmParams::new(nodes, Activation::Sigmoid)
            .with_lambda(lambda)
            .with_input_scale(scale)
            .with_seed(seed)
            .check()
            .expect("valid");
        let streamed = p.fit_chunks(reader(&pieces(&x, &y, 0, k, size))).expect("fit from chunks");
        let a = streamed.hidden().outputs(x.view()).expect("outputs");
        let w = streamed.output_weights();
        let sp = spectrum(a.view());
        let r_inv = 1.0 / (sp.sigma_min * sp.sigma_min + lambda);
        for processes in 1..=3 {
            let shards: Vec<Vec<Chunk>> = (0..processes)
                .map(|r| pieces(&x, &y, k * r / processes, k * (r + 1) / processes, size))
                .collect();
            let fits = run_on_threads(processes, |world| p.fit_shards(world, reader(&shards[world.rank()])));
            let fits: Vec<Elm> = fits.into_iter().map(|f| f.expect("fit from shards")).collect();
            for other in &fits[1..] {
                prop_assert_eq!(fits[0].hidden().weights(), other.hidden().weights());
                prop_assert_eq!(fits[0].output_weights(), other.output_weights());
            }
            let sharded = &fits[0];
            let (h1, h2) = (streamed.hidden().weights(), sharded.hidden().weights());
            let dh = fro_diff(h1.view(), h2.view());
            prop_assert!(dh <= 16.0 * f64::EPSILON * fro(h1.view()), "hidden weights differ by {dh:.2e}");
            let a2 = sharded.hidden().outputs(x.view()).expect("outputs");
            let mut g = at_b(a2.view(), a2.view());
            g.diag_mut().mapv_inplace(|v| v + lambda);
            let w_ref = gauss_solve(g.view(), at_b(a2.view(), y.view()).view());
            let tol = ridge_tolerance(a2.view(), y.view(), w_ref.view(), lambda, 2, 1);
            let dw = fro_diff(sharded.output_weights(), w_ref.view());
            prop_assert!(dw <= tol, "{processes} shards: ‖W − W*‖ = {dw:.3e} > {tol:.3e}");
            let da = fro_diff(a.view(), a2.view());
            let tol = ridge_tolerance(a.view(), y.view(), w, lambda, 2, 1)
                + 2.0 * r_inv * da * (fro(y.view()) + 2.0 * sp.norm_a * fro(w));
            let dw = fro_diff(w, sharded.output_weights());
            prop_assert!(dw <= tol, "{processes} shards: ‖ΔW‖ = {dw:.3e} > {tol:.3e}");
        }
    }
}

/// A shard without rows or whose reader fails fails every process, naming it.
#[test]
fn a_failing_shard_fails_every_process_naming_it() {
    let x = Array2::from_shape_fn((30, 2), |(i, j)| ((i * 7 + j * 3) % 11) as f64 / 11.0);
    let y = Array2::from_shape_fn((30, 1), |(i, _)| i as f64 / 30.0);
    let p = ElmParams::new(5, Activation::Sigmoid).check().expect("valid");
    let shards = [pieces(&x, &y, 0, 15, 4), Vec::new(), pieces(&x, &y, 15, 30, 4)];
    let out = run_on_threads(3, |w| p.fit_shards(w, reader(&shards[w.rank()])));
    for o in out {
        let message = o.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains("process 1: ") && message.contains("shard"),
            "{message:?}"
        );
    }
    let out = run_on_threads(2, |w| {
        let mut calls = 0;
        let mut read = reader(&shards[2 * w.rank()]);
        p.fit_shards(w, move || {
            calls += 1;
            let mut chunks: Vec<models::Result<Chunk>> = read().collect();
            if w.rank() == 0 && calls == 2 {
                chunks.insert(
                    1,
                    Err(ModelError::InvalidParameter {
                        name: "reader",
                        value: "part-0000.csv".into(),
                        reason: "truncated file",
                    }),
                );
            }
            chunks.into_iter()
        })
    });
    for o in out {
        let message = o.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains("process 0: ") && message.contains("part-0000.csv"),
            "{message:?}"
        );
    }
}

#[test]
fn chunk_errors_are_named() {
    let x = Array2::from_shape_fn((10, 2), |(i, j)| (i + j) as f64);
    let y = Array2::from_shape_fn((10, 1), |(i, _)| i as f64);
    let p = ElmParams::new(5, Activation::Sigmoid).check().expect("valid");
    // Minimum-norm least squares needs all rows at once.
    let lstsq = ElmParams::new(5, Activation::Sigmoid)
        .with_solver(ReadoutSolver::Lstsq)
        .check()
        .expect("valid");
    let bounds = [0, 10];
    assert!(matches!(
        lstsq.fit_chunks(|| chunks(&x, &y, &bounds)),
        Err(ModelError::InvalidParameter { name: "solver", .. })
    ));
    // No rows at all.
    let none = [0, 0];
    assert!(matches!(
        p.fit_chunks(|| chunks(&x, &y, &none)),
        Err(ModelError::Linalg(linalg_core::Error::Empty { .. }))
    ));
    // A chunk with another number of inputs, and a non-finite one.
    let x3 = Array2::<f64>::ones((4, 3));
    let bad = move || {
        vec![
            Ok((x.slice(s![..5, ..]).to_owned(), y.slice(s![..5, ..]).to_owned())),
            Ok((x3.clone(), Array2::ones((4, 1)))),
        ]
        .into_iter()
    };
    assert!(matches!(
        p.fit_chunks(bad),
        Err(ModelError::Linalg(linalg_core::Error::Shape { .. }))
    ));
    let mut nan = Array2::<f64>::ones((4, 2));
    nan[[1, 1]] = f64::NAN;
    let with_nan = move || vec![Ok((nan.clone(), Array2::ones((4, 1))))].into_iter();
    assert!(matches!(
        p.fit_chunks(with_nan),
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
}
