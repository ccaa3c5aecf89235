//! The statistics of the reports' "mean (sd)" cells, in one place for every
//! paper: the mean, and the **sample** standard deviation (divided by
//! `n − 1`, as MATLAB's `std` and the papers' tables over runs or folds),
//! undefined for fewer than two values.

/// The mean of `v`; NaN for no values.
pub fn mean(v: impl IntoIterator<Item = f64>) -> f64 {
    let (s, n) = v.into_iter().fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        s / n as f64
    }
}

/// The mean and the sample standard deviation of `v` (`None` for fewer than
/// two values, where it is undefined); the mean is NaN for no values.
pub fn mean_sd(v: &[f64]) -> (f64, Option<f64>) {
    let m = mean(v.iter().copied());
    let sd = (v.len() > 1).then(|| (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64).sqrt());
    (m, sd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_standard_deviation_by_hand() {
        // 1, 2, 3: mean 2, squares 1 + 0 + 1 over n − 1 = 2: sd 1.
        assert_eq!(mean_sd(&[1.0, 2.0, 3.0]), (2.0, Some(1.0)));
        // 2, 4, 4, 4, 5, 5, 7, 9: squares sum to 32, over 7.
        let (m, sd) = mean_sd(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(m, 5.0);
        assert!((sd.expect("8 values") - (32.0f64 / 7.0).sqrt()).abs() < 1e-15);
        assert_eq!(mean_sd(&[98.6]), (98.6, None));
        assert!(mean_sd(&[]).0.is_nan() && mean_sd(&[]).1.is_none());
        assert!(mean(std::iter::empty()).is_nan());
    }
}
