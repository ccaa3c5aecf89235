//! `IncrementalRidge::append_owned` and `Strategy::build` with an owned
//! `Array2` (the block by value, no copy when it is column-major) must do
//! exactly what `append` and `build` on a view do: same weights bit for bit, same
//! nodes, same errors, for every strategy, both storage precisions and both
//! memory layouts of the block.

mod common;

use common::*;
use linalg_core::ridge::Strategy;
use linalg_core::{Error, Precision};
use ndarray::{Array2, ShapeBuilder};

#[test]
fn append_owned_equals_append_for_every_strategy() {
    let mut rng = SplitMix::new(11);
    let (k, n0, m) = (300, 12, 3);
    let a0 = conditioned(&mut rng, k, n0, 2.0);
    let y = rng.gaussian(k, m);
    let blocks: Vec<Array2<f64>> = [5, 1, 9].iter().map(|&q| rng.gaussian(k, q)).collect();
    for precision in [Precision::F64, Precision::F32] {
        for st in Strategy::ALL {
            let mut by_view = st.build(a0.view(), y.view(), 0.01, precision).unwrap();
            let mut by_value = st.build(a0.view(), y.view(), 0.01, precision).unwrap();
            for (i, h) in blocks.iter().enumerate() {
                by_view.append(h.view()).unwrap();
                // Alternate the layouts: C order (copied) and F order (taken).
                let owned = if i % 2 == 0 { h.clone() } else { f_order(h) };
                by_value.append_owned(owned).unwrap();
                assert_eq!(by_view.weights(), by_value.weights(), "{st} {precision:?} block {i}");
                assert_eq!(by_view.nodes(), by_value.nodes());
                assert_eq!(by_view.last_flops(), by_value.last_flops());
            }
        }
    }
}

#[test]
fn append_owned_validates_like_append() {
    let mut rng = SplitMix::new(12);
    let a0 = rng.gaussian(40, 3);
    let y = rng.gaussian(40, 1);
    for st in Strategy::ALL {
        let mut s = st.build(a0.view(), y.view(), 0.1, Precision::F64).unwrap();
        let wrong_rows = Array2::<f64>::zeros((39, 2).f());
        assert!(matches!(s.append_owned(wrong_rows), Err(Error::Shape { .. })), "{st}");
        let mut nan = Array2::<f64>::ones((40, 2).f());
        nan[[7, 1]] = f64::NAN;
        assert!(matches!(s.append_owned(nan), Err(Error::NonFinite { .. })), "{st}");
        let empty = Array2::<f64>::zeros((40, 0).f());
        assert!(matches!(s.append_owned(empty), Err(Error::Empty { .. })), "{st}");
        assert_eq!(s.nodes(), 3, "{st}: a rejected block must not change the solver");
    }
}

/// `a` copied into a column-major (Fortran-order) array.
fn f_order(a: &Array2<f64>) -> Array2<f64> {
    let mut f = Array2::zeros(a.dim().f());
    f.assign(a);
    f
}

#[test]
fn build_on_an_owned_array_equals_build_on_a_view_for_every_strategy() {
    let mut rng = SplitMix::new(13);
    let (k, n0, m) = (300, 12, 3);
    let a0 = conditioned(&mut rng, k, n0, 2.0);
    let y = rng.gaussian(k, m);
    let h = rng.gaussian(k, 7);
    for precision in [Precision::F64, Precision::F32] {
        for st in Strategy::ALL {
            // Both layouts of the first block: C order (copied), F order (taken).
            for owned in [a0.clone(), f_order(&a0)] {
                let mut by_view = st.build(a0.view(), y.view(), 0.01, precision).unwrap();
                let mut by_value = st.build(owned, y.view(), 0.01, precision).unwrap();
                assert_eq!(by_view.weights(), by_value.weights(), "{st} {precision:?} start");
                assert_eq!(by_view.hidden(), by_value.hidden(), "{st} {precision:?}");
                assert_eq!(by_view.last_flops(), by_value.last_flops());
                assert_eq!(by_view.precision(), by_value.precision());
                by_view.append(h.view()).unwrap();
                by_value.append(h.view()).unwrap();
                assert_eq!(
                    by_view.weights(),
                    by_value.weights(),
                    "{st} {precision:?} after an append"
                );
            }
        }
    }
}

#[test]
fn build_takes_an_owned_column_major_block_without_a_copy() {
    let mut rng = SplitMix::new(14);
    let a0 = f_order(&rng.gaussian(50, 4));
    let y = rng.gaussian(50, 2);
    for st in Strategy::ALL {
        let a = a0.clone();
        let ptr = a.as_ptr();
        let s = st.build(a, y.view(), 0.1, Precision::F64).unwrap();
        assert_eq!(s.hidden().as_ptr(), ptr, "{st}: the f64 store must be the given buffer");
        // A row-major block cannot be taken over: it is copied.
        let c = a0.as_standard_layout().into_owned();
        let ptr = c.as_ptr();
        let s = st.build(c, y.view(), 0.1, Precision::F64).unwrap();
        assert_ne!(s.hidden().as_ptr(), ptr, "{st}");
        assert_eq!(s.hidden(), a0.view(), "{st}");
    }
}

#[test]
fn build_validates_an_owned_array_like_a_view() {
    let mut rng = SplitMix::new(15);
    let y = rng.gaussian(40, 1);
    for st in Strategy::ALL {
        let wrong_rows = Array2::<f64>::ones((39, 2).f());
        let r = st.build(wrong_rows, y.view(), 0.1, Precision::F64);
        assert!(matches!(r, Err(Error::Shape { .. })), "{st}");
        let mut nan = Array2::<f64>::ones((40, 2).f());
        nan[[7, 1]] = f64::NAN;
        let r = st.build(nan, y.view(), 0.1, Precision::F64);
        assert!(matches!(r, Err(Error::NonFinite { .. })), "{st}");
        let empty = Array2::<f64>::zeros((40, 0).f());
        let r = st.build(empty, y.view(), 0.1, Precision::F64);
        assert!(matches!(r, Err(Error::Empty { .. })), "{st}");
        let ok = rng.gaussian(40, 2);
        let r = st.build(ok, y.view(), -1.0, Precision::F64);
        assert!(matches!(r, Err(Error::InvalidLambda { .. })), "{st}");
    }
}
