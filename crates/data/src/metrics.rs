//! Metrics of the papers' tables: accuracy, sensitivity (SN), precision
//! (PE) and Matthews correlation coefficient (MCC) for classification
//! (Zhu & Wei, Table IV), MSE and RMSE for regression (Table II), and the
//! weight and output errors `‖W₁ − W₂‖_F`, `‖Z₁ − Z₂‖_F` between an
//! incremental solution and the standard ELM (Table II).
//!
//! Conventions: a ratio whose denominator is zero (e.g. precision when
//! nothing is predicted positive) is reported as 0, as scikit-learn does, so
//! no metric is ever NaN. Binary metrics take the positive class explicitly.

use ndarray::ArrayView2;
use thiserror::Error;

/// Errors of the metric functions.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetricError {
    /// The two inputs have different lengths or shapes.
    #[error("{what}: the inputs differ in shape ({left} vs {right})")]
    Shape {
        /// Which metric.
        what: &'static str,
        /// Shape of the first input.
        left: String,
        /// Shape of the second input.
        right: String,
    },
    /// No samples.
    #[error("{what}: no samples")]
    Empty {
        /// Which metric.
        what: &'static str,
    },
}

fn same_len(what: &'static str, a: usize, b: usize) -> Result<(), MetricError> {
    if a != b {
        return Err(MetricError::Shape {
            what,
            left: a.to_string(),
            right: b.to_string(),
        });
    }
    if a == 0 {
        return Err(MetricError::Empty { what });
    }
    Ok(())
}

fn same_shape(what: &'static str, a: &ArrayView2<'_, f64>, b: &ArrayView2<'_, f64>) -> Result<(), MetricError> {
    if a.dim() != b.dim() {
        return Err(MetricError::Shape {
            what,
            left: format!("{:?}", a.dim()),
            right: format!("{:?}", b.dim()),
        });
    }
    if a.is_empty() {
        return Err(MetricError::Empty { what });
    }
    Ok(())
}

fn ratio(num: f64, den: f64) -> f64 {
    if den == 0.0 {
        0.0
    } else {
        num / den
    }
}

/// Fraction of labels predicted exactly.
pub fn accuracy(truth: &[usize], predicted: &[usize]) -> Result<f64, MetricError> {
    same_len("accuracy", truth.len(), predicted.len())?;
    let hits = truth.iter().zip(predicted).filter(|(a, b)| a == b).count();
    Ok(hits as f64 / truth.len() as f64)
}

/// The binary confusion counts for one positive class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BinaryCounts {
    /// True positives.
    pub tp: u64,
    /// True negatives.
    pub tn: u64,
    /// False positives.
    pub fp: u64,
    /// False negatives.
    pub fn_: u64,
}

impl BinaryCounts {
    /// Count outcomes, `positive` being the positive class.
    pub fn new(truth: &[usize], predicted: &[usize], positive: usize) -> Result<Self, MetricError> {
        same_len("confusion counts", truth.len(), predicted.len())?;
        let mut c = BinaryCounts::default();
        for (&t, &p) in truth.iter().zip(predicted) {
            match (t == positive, p == positive) {
                (true, true) => c.tp += 1,
                (false, false) => c.tn += 1,
                (false, true) => c.fp += 1,
                (true, false) => c.fn_ += 1,
            }
        }
        Ok(c)
    }

    fn f(&self) -> (f64, f64, f64, f64) {
        (self.tp as f64, self.tn as f64, self.fp as f64, self.fn_ as f64)
    }

    /// ACC = (TP + TN) / all.
    pub fn accuracy(&self) -> f64 {
        let (tp, tn, fp, fn_) = self.f();
        ratio(tp + tn, tp + tn + fp + fn_)
    }

    /// SN (sensitivity, recall) = TP / (TP + FN).
    pub fn sensitivity(&self) -> f64 {
        let (tp, _, _, fn_) = self.f();
        ratio(tp, tp + fn_)
    }

    /// PE (precision) = TP / (TP + FP).
    pub fn precision(&self) -> f64 {
        let (tp, _, fp, _) = self.f();
        ratio(tp, tp + fp)
    }

    /// MCC = (TP·TN − FP·FN) / √((TP+FP)(TP+FN)(TN+FP)(TN+FN)).
    pub fn mcc(&self) -> f64 {
        let (tp, tn, fp, fn_) = self.f();
        let den = ((tp + fp) * (tp + fn_) * (tn + fp) * (tn + fn_)).sqrt();
        ratio(tp * tn - fp * fn_, den)
    }
}

/// Mean squared error over all entries of `truth` and `predicted` (K×M).
pub fn mse(truth: ArrayView2<'_, f64>, predicted: ArrayView2<'_, f64>) -> Result<f64, MetricError> {
    same_shape("MSE", &truth, &predicted)?;
    let sum: f64 = truth.iter().zip(predicted.iter()).map(|(a, b)| (a - b) * (a - b)).sum();
    Ok(sum / truth.len() as f64)
}

/// Root mean squared error, `√MSE`. When the squares overflow (errors
/// beyond about 1e154), computed on the errors divided by the largest one
/// and scaled back, so that any finite errors give a finite value.
pub fn rmse(truth: ArrayView2<'_, f64>, predicted: ArrayView2<'_, f64>) -> Result<f64, MetricError> {
    let plain = mse(truth, predicted)?.sqrt();
    if plain.is_finite() {
        return Ok(plain);
    }
    let errors = || truth.iter().zip(predicted.iter()).map(|(a, b)| a - b);
    let largest = errors().fold(0.0_f64, |m, e| m.max(e.abs()));
    if !largest.is_finite() || largest == 0.0 {
        return Ok(plain);
    }
    let sum: f64 = errors().map(|e| (e / largest) * (e / largest)).sum();
    Ok(largest * (sum / truth.len() as f64).sqrt())
}

/// Frobenius norm of the difference, `‖A − B‖_F`.
fn frobenius_difference(
    what: &'static str,
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
) -> Result<f64, MetricError> {
    same_shape(what, &a, &b)?;
    Ok(a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt())
}

/// Weight error `‖W₁ − W₂‖_F` (Zhu & Wei, Table II).
pub fn weight_error(w1: ArrayView2<'_, f64>, w2: ArrayView2<'_, f64>) -> Result<f64, MetricError> {
    frobenius_difference("weight error", w1, w2)
}

/// Output error `‖Z₁ − Z₂‖_F` (Zhu & Wei, Table II).
pub fn output_error(z1: ArrayView2<'_, f64>, z2: ArrayView2<'_, f64>) -> Result<f64, MetricError> {
    frobenius_difference("output error", z1, z2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// Hand case: truth 1 1 1 0 0 0 0 1, predicted 1 0 1 0 1 0 0 1 with
    /// positive class 1: TP = 3, FN = 1, FP = 1, TN = 3.
    /// ACC = 6/8, SN = 3/4, PE = 3/4, MCC = (9 − 1)/√(4·4·4·4) = 8/16 = 1/2.
    #[test]
    fn binary_metrics_by_hand() {
        let t = [1, 1, 1, 0, 0, 0, 0, 1];
        let p = [1, 0, 1, 0, 1, 0, 0, 1];
        let c = BinaryCounts::new(&t, &p, 1).unwrap();
        assert_eq!(
            c,
            BinaryCounts {
                tp: 3,
                tn: 3,
                fp: 1,
                fn_: 1
            }
        );
        assert_eq!(c.accuracy(), 0.75);
        assert_eq!(c.sensitivity(), 0.75);
        assert_eq!(c.precision(), 0.75);
        assert_eq!(c.mcc(), 0.5);
        assert_eq!(accuracy(&t, &p).unwrap(), 0.75);
        // Positive class 0 swaps the roles: TP = 3, TN = 3, FP = 1, FN = 1 again.
        assert_eq!(BinaryCounts::new(&t, &p, 0).unwrap().mcc(), 0.5);
    }

    /// Asymmetric hand case: TP = 2, TN = 1, FP = 3, FN = 0:
    /// SN = 1, PE = 2/5, MCC = (2·1 − 0)/√(5·2·4·1) = 2/√40.
    #[test]
    fn asymmetric_case_and_degenerate_denominators() {
        let t = [1, 1, 0, 0, 0, 0];
        let p = [1, 1, 1, 1, 1, 0];
        let c = BinaryCounts::new(&t, &p, 1).unwrap();
        assert_eq!((c.tp, c.tn, c.fp, c.fn_), (2, 1, 3, 0));
        assert_eq!(c.sensitivity(), 1.0);
        assert_eq!(c.precision(), 0.4);
        assert!((c.mcc() - 2.0 / 40f64.sqrt()).abs() < 1e-15);
        // Perfect and inverted predictions.
        assert_eq!(BinaryCounts::new(&t, &t, 1).unwrap().mcc(), 1.0);
        let inv: Vec<usize> = t.iter().map(|v| 1 - v).collect();
        assert_eq!(BinaryCounts::new(&t, &inv, 1).unwrap().mcc(), -1.0);
        // Nothing predicted positive: precision and MCC are 0, not NaN.
        let none = BinaryCounts::new(&t, &[0; 6], 1).unwrap();
        assert_eq!((none.precision(), none.mcc(), none.sensitivity()), (0.0, 0.0, 0.0));
    }

    #[test]
    fn regression_and_difference_metrics_by_hand() {
        let y = array![[1.0, 2.0], [3.0, 4.0]];
        let z = array![[1.5, 2.0], [2.0, 4.0]];
        // Squared errors 0.25, 0, 1, 0 → MSE = 1.25/4.
        assert_eq!(mse(y.view(), z.view()).unwrap(), 0.3125);
        assert_eq!(rmse(y.view(), z.view()).unwrap(), 0.3125f64.sqrt());
        assert_eq!(weight_error(y.view(), z.view()).unwrap(), 1.25f64.sqrt());
        assert_eq!(output_error(y.view(), y.view()).unwrap(), 0.0);
    }

    /// Errors whose squares overflow (1e200² = ∞) still give the RMSE they
    /// scale to: 1e200 times that of the same errors in units of 1e200.
    #[test]
    fn rmse_of_huge_errors_is_finite_and_scales() -> Result<(), MetricError> {
        let t = array![[3.0], [-1.0], [2.0]];
        let p = array![[1.0], [1.0], [0.5]];
        let small = rmse(t.view(), p.view())?;
        let huge = rmse((&t * 1e200).view(), (&p * 1e200).view())?;
        assert!(huge.is_finite());
        assert!((huge / 1e200 / small - 1.0).abs() < 1e-14, "{huge} vs {small}");
        // Errors that are themselves beyond f64 stay non-finite for the caller to refuse.
        assert!(!rmse(array![[1.7e308]].view(), array![[-1.7e308]].view())?.is_finite());
        Ok(())
    }

    #[test]
    fn mismatched_or_empty_inputs_are_errors() {
        assert!(matches!(accuracy(&[1, 2], &[1]), Err(MetricError::Shape { .. })));
        assert!(matches!(accuracy(&[], &[]), Err(MetricError::Empty { .. })));
        let a = array![[1.0, 2.0]];
        let b = array![[1.0], [2.0]];
        let e = mse(a.view(), b.view()).unwrap_err();
        assert!(e.to_string().contains("MSE"), "{e}");
        assert!(matches!(
            weight_error(a.view(), b.view()),
            Err(MetricError::Shape { .. })
        ));
    }
}
