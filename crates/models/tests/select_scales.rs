//! The hidden layer's scale chosen with λ and the size
//! ([`models::select::scales::select_over_scales`], issue 42): against one
//! [`select`](models::select::lambda::select) per scale (itself checked
//! against brute force in `select_lambda.rs`), with the scale recorded as
//! its number (`√(3 / mean‖x‖²)` computed here by hand for unit variance),
//! the choice the argmin over every scale, and the model the chosen scale's.

mod common;

use common::*;
use models::prelude::*;
use models::select::lambda::{Method, SelectOptions};
use models::select::scales::{select_over_scales, MAX_SCALES};
use models::select::Criterion;
use models::{Bls, BlsParams, Elm, ElmParams, InputScale, ModelError};
use ndarray::{Array2, Axis};

fn options(method: Method, sizes: Vec<usize>) -> SelectOptions {
    SelectOptions {
        method,
        lambdas: SelectOptions::log_grid(1e-8, 1.0, 5).expect("grid"),
        sizes,
        criterion: Criterion::MeanSquaredError,
        seed: 11,
    }
}

/// Regression data on a wide input range, where the scale matters: K
/// samples of 4 inputs in [−3, 3], one smooth target.
fn data(seed: u64, k: usize) -> (Array2<f64>, Array2<f64>) {
    let mut r = rng(seed);
    let x = r.uniform_matrix(k, 4, -3.0, 3.0);
    let y = x
        .map_axis(Axis(1), |v| (0.8 * v[0]).sin() + 0.3 * v[1] * v[2] - 0.2 * v[3])
        .insert_axis(Axis(1));
    (x, y)
}

#[test]
fn elm_scales_are_searched_and_the_best_is_kept() -> Result<(), ModelError> {
    let (x, y) = data(3, 90);
    let d = Dataset::new(x.view(), y.view());
    let params = ElmParams::new(25, models::Activation::Sigmoid).with_seed(4).check()?;
    let scales = [
        InputScale::UnitVariance,
        InputScale::Fixed(0.05),
        InputScale::InverseSqrtInputs,
        InputScale::Fixed(4.0),
    ];
    // √(3 / mean ‖x‖²), by hand.
    let mean_sq = x.rows().into_iter().map(|r| r.dot(&r)).sum::<f64>() / x.nrows() as f64;
    let factors = [(3.0 / mean_sq).sqrt(), 0.05, 0.5, 4.0];
    for (method, sizes) in [
        (Method::LeaveOneOut, vec![]),
        (Method::KFold { k: 3 }, vec![10, 25]),
        (Method::Validation { fraction: 0.3 }, vec![5, 15, 25]),
    ] {
        let opts = options(method, sizes);
        let got = select_over_scales::<Elm>(&params, &d, &opts, &scales)?;
        let per_scale = opts.lambdas.len() * opts.sizes.len().max(1);
        assert_eq!(got.selected.curve.len(), scales.len() * per_scale, "{method}");
        let mut lowest = (f64::INFINITY, 0);
        for (i, scale) in scales.iter().enumerate() {
            let one = ElmParams::from(params)
                .with_input_scale(*scale)
                .check()?
                .select(&d, &opts)?;
            let part = &got.selected.curve[i * per_scale..(i + 1) * per_scale];
            // The same computation on the same folds: the same points.
            assert_eq!(part, &one.curve[..], "{method}, scale {scale}");
            let f = factors[i];
            assert!(
                part.iter().all(|p| p.scale.is_some_and(|s| (s - f).abs() <= 1e-14 * f)),
                "{method}, scale {scale}: recorded {:?}, expected {f}",
                part[0].scale
            );
            if one.score < lowest.0 {
                lowest = (one.score, i);
            }
        }
        // The scale is not ignored: the curves of 0.05 and 4 differ.
        assert_ne!(
            got.selected.curve[per_scale].score,
            got.selected.curve[3 * per_scale].score,
            "{method}"
        );
        assert_eq!(got.index, lowest.1, "{method}: chosen scale");
        assert_eq!(got.scale, scales[lowest.1]);
        assert_eq!(got.selected.score, lowest.0);
        assert!(got
            .selected
            .curve
            .iter()
            .all(|p| p.score.is_nan() || p.score >= got.selected.score));
        assert_eq!(got.selected.scale, factors[lowest.1]);
        // The model: the chosen scale's ELM at the chosen size and λ.
        let fresh = ElmParams::from(params)
            .with_input_scale(got.scale)
            .with_nodes(got.selected.nodes)
            .with_lambda(got.selected.lambda)
            .fit(&d)?;
        assert_eq!(got.selected.model.hidden(), fresh.hidden(), "{method}: hidden layer");
    }
    Ok(())
}

#[test]
fn bls_shrinks_are_searched_and_the_best_is_kept() -> Result<(), ModelError> {
    let (x, y3) = bls_data(5, 80, 5);
    let y = y3.column(0).insert_axis(Axis(1)).to_owned();
    let d = Dataset::new(x.view(), y.view());
    let params = BlsParams::new(2, 4, 12).with_seed(2).check()?;
    let shrinks = [0.8, 0.05, 6.0];
    let opts = options(Method::KFold { k: 4 }, vec![12, 20]);
    let got = select_over_scales::<Bls>(&params, &d, &opts, &shrinks)?;
    let per_scale = opts.lambdas.len() * 2;
    let mut lowest = (f64::INFINITY, 0);
    for (i, &s) in shrinks.iter().enumerate() {
        let one = BlsParams::from(params).with_shrink(s).check()?.select(&d, &opts)?;
        let part = &got.selected.curve[i * per_scale..(i + 1) * per_scale];
        assert_eq!(part, &one.curve[..], "shrink {s}");
        assert!(part.iter().all(|p| p.scale == Some(s)));
        if one.score < lowest.0 {
            lowest = (one.score, i);
        }
    }
    assert_ne!(
        got.selected.curve[per_scale].score,
        got.selected.curve[2 * per_scale].score
    );
    assert_eq!((got.index, got.scale), (lowest.1, shrinks[lowest.1]));
    assert_eq!(got.selected.model.nodes(), got.selected.nodes);
    Ok(())
}

#[test]
fn scale_grid_errors_name_the_scales() -> Result<(), ModelError> {
    let (x, y) = data(1, 30);
    let d = Dataset::new(x.view(), y.view());
    let params = ElmParams::new(5, models::Activation::Sigmoid).check()?;
    let opts = options(Method::LeaveOneOut, vec![]);
    let err = select_over_scales::<Elm>(&params, &d, &opts, &[]).unwrap_err();
    assert!(
        matches!(err, ModelError::InvalidParameter { name: "scales", .. }),
        "{err}"
    );
    let many = vec![InputScale::Fixed(1.0); MAX_SCALES + 1];
    let err = select_over_scales::<Elm>(&params, &d, &opts, &many).unwrap_err();
    assert!(
        matches!(err, ModelError::InvalidParameter { name: "scales", .. }),
        "{err}"
    );
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let err = select_over_scales::<Elm>(&params, &d, &opts, &[InputScale::Fixed(bad)]).unwrap_err();
        assert!(matches!(err, ModelError::InvalidParameter { .. }), "{bad}: {err}");
        let bls = BlsParams::new(1, 3, 4).check()?;
        let err = select_over_scales::<Bls>(&bls, &d, &opts, &[bad]).unwrap_err();
        assert!(matches!(err, ModelError::InvalidParameter { .. }), "{bad}: {err}");
    }
    Ok(())
}
