//! `IncrementalRidge::append_owned` (the block by value, no copy when it is
//! column-major) must do exactly what `append` on a view does: same weights
//! bit for bit, same nodes, same errors, for every strategy, both storage
//! precisions and both memory layouts of the block.

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
            let mut by_view = st.build_with_precision(a0.view(), y.view(), 0.01, precision).unwrap();
            let mut by_value = st.build_with_precision(a0.view(), y.view(), 0.01, precision).unwrap();
            for (i, h) in blocks.iter().enumerate() {
                by_view.append(h.view()).unwrap();
                // Alternate the layouts: C order (copied) and F order (taken).
                let owned = if i % 2 == 0 {
                    h.clone()
                } else {
                    let mut f = Array2::zeros(h.dim().f());
                    f.assign(h);
                    f
                };
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
        let mut s = st.build(a0.view(), y.view(), 0.1).unwrap();
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
