//! The index of the largest value: the class a row of scores or of one-hot
//! targets stands for, in one place for every crate (the leave-one-out
//! path, λ and size selection, BPLS's classification error, the data
//! layer's `argmax_rows`, the Python package).

/// The index of the largest of `values`: the first of equal ones; NaN never
/// wins; 0 when there are no values or all are NaN.
///
/// ```
/// use linalg_core::argmax;
/// assert_eq!(argmax([0.1, 0.7, 0.7, 0.2]), 1);
/// assert_eq!(argmax([f64::NAN, -1.0]), 1);
/// assert_eq!(argmax(std::iter::empty()), 0);
/// ```
pub fn argmax(values: impl IntoIterator<Item = f64>) -> usize {
    let (mut best, mut best_value) = (0, f64::NEG_INFINITY);
    for (j, v) in values.into_iter().enumerate() {
        if v > best_value {
            best = j;
            best_value = v;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::argmax;

    #[test]
    fn first_of_the_largest_and_nan_never_wins() {
        assert_eq!(argmax([3.0, 1.0, 3.0]), 0);
        assert_eq!(argmax([f64::NAN, f64::NAN]), 0);
        assert_eq!(argmax([f64::NEG_INFINITY, f64::NAN, -1e300]), 2);
        assert_eq!(argmax([f64::NEG_INFINITY]), 0);
    }
}
