//! Preprocessing fitted on the training part and applied to any part: scalers, one-hot targets,
//! seeded shuffles, train/test splits and k-fold cross-validation.

pub use models::rng::shuffled_indices;
use models::select::folds::Folds;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};
use serde::{Deserialize, Serialize};

use super::error::DataError;
use super::Dataset;

/// Mean and spread of one column; a constant column gets its exact value as mean and spread 1.
///
/// Both are computed on the column divided by [`power_of_two_below`] its largest magnitude and
/// scaled back. Dividing by a power of two is exact, so where no `v / c` leaves the normal range
/// this gives the bits the plain formulas give; it keeps columns beyond about 1e154 (whose squares overflow) and
/// columns below about 1e-154 (whose squared deviations underflow to 0, which would make a
/// varying column look constant) at their true statistics. [`ColumnStats`] scales the same way.
fn column_mean_std(col: ArrayView1<'_, f64>) -> (f64, f64) {
    column_mean_std_weighted(col, None)
}

/// [`column_mean_std`] with a weight per row (`None`: all 1): the weighted
/// mean and the population standard deviation `√(Σ w (x − m)² / Σ w)` over
/// the rows of weight > 0 (integer weights give the statistics of the rows
/// repeated). At least one weight must be > 0.
fn column_mean_std_weighted(col: ArrayView1<'_, f64>, weights: Option<ArrayView1<'_, f64>>) -> (f64, f64) {
    let weight = |i: usize| weights.map_or(1.0, |w| w[i]);
    let rows = || col.iter().enumerate().filter(move |(i, _)| weight(*i) > 0.0);
    let Some((_, &first)) = rows().next() else {
        return (0.0, 1.0);
    };
    if rows().all(|(_, &v)| v == first) {
        return (first, 1.0);
    }
    let n: f64 = rows().map(|(i, _)| weight(i)).sum();
    let largest = rows().fold(0.0_f64, |a, (_, v)| a.max(v.abs()));
    let c = if largest.is_finite() && largest > 0.0 {
        power_of_two_below(largest)
    } else {
        1.0
    };
    let m = rows().map(|(i, &v)| weight(i) * (v / c)).sum::<f64>() / n;
    let var = rows().map(|(i, &v)| weight(i) * (v / c - m) * (v / c - m)).sum::<f64>() / n;
    let (mean, std) = (m * c, var.sqrt() * c);
    (mean, if std > 0.0 && std.is_finite() { std } else { 1.0 })
}

/// Sample weights for the rows of `x`: one per row, finite, ≥ 0, not all 0.
fn check_weights(x: &Array2<f64>, weights: ArrayView1<'_, f64>) -> Result<(), DataError> {
    if weights.len() != x.nrows() {
        return Err(DataError::invalid(format!(
            "{} sample weights for {} rows",
            weights.len(),
            x.nrows()
        )));
    }
    if let Some((i, v)) = weights.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v >= 0.0)) {
        return Err(DataError::invalid(format!(
            "sample weight {v} (row {i}): weights must be finite and >= 0"
        )));
    }
    if !weights.iter().any(|v| *v > 0.0) {
        return Err(DataError::invalid("every sample weight is 0"));
    }
    Ok(())
}

/// Checks that `x` has the `expected` number of columns and the fitted parameters agree with it.
fn check_columns(scaler: &str, x: &Array2<f64>, a: usize, b: usize) -> Result<(), DataError> {
    if a != b {
        return Err(DataError::invalid(format!(
            "{scaler} is inconsistent: parameter vectors of lengths {a} and {b}"
        )));
    }
    if x.ncols() != a {
        return Err(DataError::invalid(format!(
            "the input scaling ({scaler}) was fitted on {a} feature columns; these data have {}",
            x.ncols()
        )));
    }
    Ok(())
}

/// Standardises each column to mean 0 and standard deviation 1.
///
/// The standard deviation uses the population denominator `n`. A constant column gets standard
/// deviation 1, so it maps to 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StandardScaler {
    mean: Array1<f64>,
    std: Array1<f64>,
}

impl StandardScaler {
    /// Fits the column means and standard deviations of `x` (rows are samples).
    pub fn fit(x: &Array2<f64>) -> Result<Self, DataError> {
        if x.nrows() == 0 {
            return Err(DataError::invalid("StandardScaler fitted on 0 rows"));
        }
        let (mean, std): (Vec<f64>, Vec<f64>) = x.axis_iter(Axis(1)).map(column_mean_std).unzip();
        Ok(Self {
            mean: Array1::from(mean),
            std: Array1::from(std),
        })
    }

    /// Fits the column means and standard deviations of `x` with a weight
    /// per row (`weights`: one per row, finite, ≥ 0, not all 0): the
    /// weighted mean and population deviation, so that integer weights fit
    /// the rows repeated and a 0 weight leaves its row out.
    pub fn fit_weighted(x: &Array2<f64>, weights: ArrayView1<'_, f64>) -> Result<Self, DataError> {
        check_weights(x, weights)?;
        let (mean, std): (Vec<f64>, Vec<f64>) = x
            .axis_iter(Axis(1))
            .map(|c| column_mean_std_weighted(c, Some(weights)))
            .unzip();
        Ok(Self {
            mean: Array1::from(mean),
            std: Array1::from(std),
        })
    }

    /// The fitted column means.
    pub fn mean(&self) -> &Array1<f64> {
        &self.mean
    }

    /// The fitted column standard deviations (1 for constant columns).
    pub fn std(&self) -> &Array1<f64> {
        &self.std
    }

    /// `(x − mean) / std`, column by column.
    pub fn transform(&self, x: &Array2<f64>) -> Result<Array2<f64>, DataError> {
        check_columns("StandardScaler", x, self.mean.len(), self.std.len())?;
        Ok((x - &self.mean) / &self.std)
    }

    /// `x · std + mean`, undoing [`StandardScaler::transform`].
    pub fn inverse_transform(&self, x: &Array2<f64>) -> Result<Array2<f64>, DataError> {
        check_columns("StandardScaler", x, self.mean.len(), self.std.len())?;
        Ok(x * &self.std + &self.mean)
    }
}

/// Maps each column linearly onto `[0, 1]` over the range seen when fitting.
///
/// A constant column maps to 0. Data outside the fitted range (e.g. test data) maps outside `[0, 1]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MinMaxScaler {
    min: Array1<f64>,
    max: Array1<f64>,
}

impl MinMaxScaler {
    /// Fits the column minima and maxima of `x` (rows are samples).
    pub fn fit(x: &Array2<f64>) -> Result<Self, DataError> {
        if x.nrows() == 0 {
            return Err(DataError::invalid("MinMaxScaler fitted on 0 rows"));
        }
        let min = x.fold_axis(Axis(0), f64::INFINITY, |&a, &b| a.min(b));
        let max = x.fold_axis(Axis(0), f64::NEG_INFINITY, |&a, &b| a.max(b));
        Ok(Self { min, max })
    }

    /// Fits the column minima and maxima over the rows of `x` whose weight
    /// is > 0 (`weights`: one per row, finite, ≥ 0, not all 0).
    pub fn fit_weighted(x: &Array2<f64>, weights: ArrayView1<'_, f64>) -> Result<Self, DataError> {
        check_weights(x, weights)?;
        let kept: Vec<usize> = (0..x.nrows()).filter(|&i| weights[i] > 0.0).collect();
        Self::fit(&x.select(Axis(0), &kept))
    }

    /// The fitted column minima.
    pub fn min(&self) -> &Array1<f64> {
        &self.min
    }

    /// The fitted column maxima.
    pub fn max(&self) -> &Array1<f64> {
        &self.max
    }

    /// The divisor of each column: `max − min`, or 1 for a constant column.
    pub fn range(&self) -> Array1<f64> {
        ndarray::Zip::from(&self.min).and(&self.max).map_collect(|&lo, &hi| {
            let r = hi - lo;
            if r > 0.0 && r.is_finite() {
                r
            } else {
                1.0
            }
        })
    }

    /// `(x − min) / (max − min)`, column by column.
    pub fn transform(&self, x: &Array2<f64>) -> Result<Array2<f64>, DataError> {
        check_columns("MinMaxScaler", x, self.min.len(), self.max.len())?;
        Ok((x - &self.min) / &self.range())
    }

    /// `x · (max − min) + min`, undoing [`MinMaxScaler::transform`].
    pub fn inverse_transform(&self, x: &Array2<f64>) -> Result<Array2<f64>, DataError> {
        check_columns("MinMaxScaler", x, self.min.len(), self.max.len())?;
        Ok(x * &self.range() + &self.min)
    }
}

/// The largest power of two not above `a` (`a` finite and positive), at least the smallest normal
/// number: dividing by it is exact and leaves `a` in `[1, 2)`.
fn power_of_two_below(a: f64) -> f64 {
    let exponent = ((a.to_bits() >> 52) & 0x7ff).max(1);
    f64::from_bits(exponent << 52)
}

/// Per-column statistics of rows seen in chunks — count, mean, spread, minimum and maximum — for
/// fitting a [`StandardScaler`] or a [`MinMaxScaler`] on a file read with
/// [`read_table_chunks`](super::read_table_chunks), or on parts of it held by different processes.
///
/// [`ColumnStats::add`] takes a chunk: its column means and sums of squared deviations are computed
/// in two passes over the chunk, then combined with those so far by Chan, Golub and LeVeque's
/// pairwise update (the one of [`ColumnStats::merge`]), which, unlike sums of squares, does not
/// lose the spread of a column whose mean is large against its standard deviation. Each column is
/// kept in units of a power of two near its largest magnitude, so columns beyond `1e154` (whose
/// squares overflow) get finite statistics too, as [`StandardScaler::fit`] gives them. Values are
/// expected finite.
///
/// ```
/// use nn_data::{ColumnStats, StandardScaler};
/// use ndarray::{array, Axis, Slice};
///
/// let x = array![[1.0, 5.0], [2.0, 5.0], [4.0, 5.0], [8.0, 5.0]];
/// let mut stats = ColumnStats::new(2);
/// stats.add(x.slice_axis(Axis(0), Slice::from(..3)))?;
/// stats.add(x.slice_axis(Axis(0), Slice::from(3..)))?;
/// let scaler = stats.to_standard_scaler()?;
/// let whole = StandardScaler::fit(&x)?;
/// assert!((scaler.std()[0] - whole.std()[0]).abs() < 1e-15 && scaler.std()[1] == 1.0);
/// assert_eq!(stats.to_minmax_scaler()?.max(), &array![8.0, 5.0]);
/// # Ok::<(), nn_data::DataError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnStats {
    /// Rows seen.
    count: usize,
    /// Column means.
    mean: Array1<f64>,
    /// Sums of squared deviations from the mean, in units of `scale²`.
    m2: Array1<f64>,
    /// A power of two per column, near its largest magnitude (1 before any row).
    scale: Array1<f64>,
    /// Column minima (`+∞` before any row).
    min: Array1<f64>,
    /// Column maxima (`−∞` before any row).
    max: Array1<f64>,
}

impl ColumnStats {
    /// The statistics of no rows of `n_columns` columns.
    pub fn new(n_columns: usize) -> Self {
        ColumnStats {
            count: 0,
            mean: Array1::zeros(n_columns),
            m2: Array1::zeros(n_columns),
            scale: Array1::ones(n_columns),
            min: Array1::from_elem(n_columns, f64::INFINITY),
            max: Array1::from_elem(n_columns, f64::NEG_INFINITY),
        }
    }

    /// The statistics of the rows of `x`.
    fn of(x: ArrayView2<'_, f64>) -> Self {
        let (n, d) = x.dim();
        let mut stats = ColumnStats::new(d);
        if n == 0 {
            return stats;
        }
        stats.count = n;
        let mut largest = Array1::<f64>::zeros(d);
        for row in x.rows() {
            ndarray::Zip::from(&row)
                .and(&mut largest)
                .and(&mut stats.min)
                .and(&mut stats.max)
                .for_each(|&v, a, lo, hi| {
                    *a = a.max(v.abs());
                    *lo = lo.min(v);
                    *hi = hi.max(v);
                });
        }
        stats.scale = largest.mapv(|a| {
            if a > 0.0 && a.is_finite() {
                power_of_two_below(a)
            } else {
                1.0
            }
        });
        let mut sum = Array1::<f64>::zeros(d);
        for row in x.rows() {
            ndarray::Zip::from(&mut sum)
                .and(&row)
                .and(&stats.scale)
                .for_each(|s, &v, &c| *s += v / c);
        }
        let scaled_mean = sum / n as f64;
        for row in x.rows() {
            ndarray::Zip::from(&mut stats.m2)
                .and(&row)
                .and(&stats.scale)
                .and(&scaled_mean)
                .for_each(|m2, &v, &c, &m| *m2 += (v / c - m) * (v / c - m));
        }
        stats.mean = scaled_mean * &stats.scale;
        stats
    }

    /// Adds the rows of `chunk` (rows are samples); an error if its width is not the statistics'.
    pub fn add(&mut self, chunk: ArrayView2<'_, f64>) -> Result<(), DataError> {
        if chunk.ncols() != self.n_columns() {
            return Err(DataError::invalid(format!(
                "column statistics of {} columns given a chunk of {} columns",
                self.n_columns(),
                chunk.ncols()
            )));
        }
        self.merge(&ColumnStats::of(chunk))
    }

    /// Combines the statistics of other rows (e.g. another process's part of the file) into these,
    /// by Chan, Golub and LeVeque's update: with `δ` the difference of the two means,
    /// `mean = mean_a + δ·n_b/n` and `M2 = M2_a + M2_b + δ²·n_a·n_b/n`. The order does not matter
    /// beyond rounding.
    pub fn merge(&mut self, other: &ColumnStats) -> Result<(), DataError> {
        if other.n_columns() != self.n_columns() {
            return Err(DataError::invalid(format!(
                "column statistics of {} and {} columns cannot be merged",
                self.n_columns(),
                other.n_columns()
            )));
        }
        if other.count == 0 {
            return Ok(());
        }
        if self.count == 0 {
            *self = other.clone();
            return Ok(());
        }
        let (na, nb) = (self.count as f64, other.count as f64);
        let n = na + nb;
        for j in 0..self.n_columns() {
            let (sa, sb) = (self.scale[j], other.scale[j]);
            let s = sa.max(sb);
            // Powers of two: these divisions are exact.
            let (ra, rb) = (sa / s, sb / s);
            let (ma, mb) = (self.mean[j] / s, other.mean[j] / s);
            let delta = mb - ma;
            self.mean[j] = (ma + delta * (nb / n)) * s;
            self.m2[j] = self.m2[j] * ra * ra + other.m2[j] * rb * rb + delta * delta * (na * nb / n);
            self.scale[j] = s;
            self.min[j] = self.min[j].min(other.min[j]);
            self.max[j] = self.max[j].max(other.max[j]);
        }
        self.count += other.count;
        Ok(())
    }

    /// The number of rows seen.
    pub fn n_rows(&self) -> usize {
        self.count
    }

    /// The number of columns.
    pub fn n_columns(&self) -> usize {
        self.mean.len()
    }

    /// The column means (0 before any row).
    pub fn mean(&self) -> &Array1<f64> {
        &self.mean
    }

    /// The column minima (`+∞` before any row).
    pub fn min(&self) -> &Array1<f64> {
        &self.min
    }

    /// The column maxima (`−∞` before any row).
    pub fn max(&self) -> &Array1<f64> {
        &self.max
    }

    /// The column means and standard deviations of [`StandardScaler`]: a constant column gets its
    /// exact value and 1, and the denominator is `n`.
    fn mean_std(&self) -> (Array1<f64>, Array1<f64>) {
        let n = self.count as f64;
        let mut mean = self.mean.clone();
        let mut std = Array1::ones(self.n_columns());
        for j in 0..self.n_columns() {
            if self.min[j] == self.max[j] {
                mean[j] = self.min[j];
                continue;
            }
            let s = (self.m2[j] / n).sqrt() * self.scale[j];
            if s > 0.0 && s.is_finite() {
                std[j] = s;
            }
        }
        (mean, std)
    }

    /// The [`StandardScaler`] of the rows seen, as [`StandardScaler::fit`] gives it on them all
    /// (up to rounding); an error without rows.
    pub fn to_standard_scaler(&self) -> Result<StandardScaler, DataError> {
        if self.count == 0 {
            return Err(DataError::invalid("StandardScaler fitted on 0 rows"));
        }
        let (mean, std) = self.mean_std();
        Ok(StandardScaler { mean, std })
    }

    /// The [`MinMaxScaler`] of the rows seen, exactly as [`MinMaxScaler::fit`] gives it on them
    /// all; an error without rows.
    pub fn to_minmax_scaler(&self) -> Result<MinMaxScaler, DataError> {
        if self.count == 0 {
            return Err(DataError::invalid("MinMaxScaler fitted on 0 rows"));
        }
        Ok(MinMaxScaler {
            min: self.min.clone(),
            max: self.max.clone(),
        })
    }
}

/// One row per target, with a 1 in the column of its class and 0 elsewhere.
///
/// Every target must be an integer in `0..classes`.
pub fn one_hot(y: &Array1<f64>, classes: usize) -> Result<Array2<f64>, DataError> {
    if classes == 0 {
        return Err(DataError::invalid("one_hot with 0 classes"));
    }
    let mut out = Array2::zeros((y.len(), classes));
    for (i, &label) in y.iter().enumerate() {
        if !(label.is_finite() && label >= 0.0 && label.fract() == 0.0) {
            return Err(DataError::invalid(format!(
                "label {label} at row {} (1-based) is not a class index (an integer ≥ 0)",
                i + 1
            )));
        }
        if label >= classes as f64 {
            return Err(DataError::invalid(format!(
                "label {label} at row {} (1-based) is not below {classes} classes",
                i + 1
            )));
        }
        out[[i, label as usize]] = 1.0;
    }
    Ok(out)
}

/// The column of the largest entry of each row (the first one on ties; NaN never wins; 0 for a row
/// without columns or of NaN only).
pub fn argmax_rows(scores: &Array2<f64>) -> Array1<usize> {
    scores
        .rows()
        .into_iter()
        .map(|row| linalg_core::argmax(row.iter().copied()))
        .collect()
}

/// Splits `data` at random into `(train, test)` with `round(n · test_fraction)` test samples
/// (at least 1 and at most `n − 1`).
///
/// Both parts are in the shuffled order of [`shuffled_indices`]`(n, seed)`: the test part is its
/// first samples, the training part the rest.
pub fn train_test_split(data: &Dataset, test_fraction: f64, seed: u64) -> Result<(Dataset, Dataset), DataError> {
    if !(test_fraction > 0.0 && test_fraction < 1.0) {
        return Err(DataError::invalid(format!(
            "test fraction {test_fraction} is not inside (0, 1)"
        )));
    }
    let n = data.n_samples();
    if n == 0 {
        return Err(DataError::invalid("train_test_split of an empty dataset"));
    }
    if n < 2 {
        return Err(DataError::invalid("train_test_split needs at least 2 samples"));
    }
    let n_test = ((n as f64 * test_fraction).round() as usize).clamp(1, n - 1);
    let order = shuffled_indices(n, seed);
    let (test, train) = order.split_at(n_test);
    Ok((data.select(train), data.select(test)))
}

/// `k` folds of `0..n` as `(train, test)` index lists, each sorted.
///
/// The samples are shuffled with [`shuffled_indices`]`(n, seed)` and cut into `k` consecutive test
/// folds whose sizes differ by at most 1; every index is in exactly one test fold, and the training
/// list of a fold is every index not in its test fold.
#[allow(clippy::type_complexity)]
pub fn k_fold(n: usize, k: usize, seed: u64) -> Result<Vec<(Vec<usize>, Vec<usize>)>, DataError> {
    if n == 0 {
        return Err(DataError::invalid("k_fold of an empty dataset"));
    }
    if k < 2 || k > n {
        return Err(DataError::invalid(format!(
            "k_fold needs 2 <= k <= n, got k = {k}, n = {n}"
        )));
    }
    let folds = Folds::k_fold(n, k, seed, None).map_err(|e| DataError::invalid(e.to_string()))?;
    Ok((0..k)
        .map(|f| (folds.training(f), folds.held_out(f).to_vec()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use models::rng::{below, SplitMix64};
    use ndarray::array;

    /// Columns whose sums or squares overflow (1e200², 3 × 1.7e308) get the statistics they scale
    /// to, and z-scores equal to those of the column in smaller units.
    #[test]
    fn huge_columns_get_finite_statistics() -> Result<(), DataError> {
        let x = array![[1.0, 1.0], [2.0, 1.5], [4.0, 1.7]];
        let huge = array![[1e200, 1.0e308], [2e200, 1.5e308], [4e200, 1.7e308]];
        let (s, h) = (StandardScaler::fit(&x)?, StandardScaler::fit(&huge)?);
        for j in 0..2 {
            let unit = if j == 0 { 1e200 } else { 1e308 };
            assert!((h.mean()[j] / unit / s.mean()[j] - 1.0).abs() < 1e-12, "{h:?}");
            assert!((h.std()[j] / unit / s.std()[j] - 1.0).abs() < 1e-12, "{h:?}");
        }
        let (zs, zh) = (s.transform(&x)?, h.transform(&huge)?);
        assert!(
            zs.iter().zip(zh.iter()).all(|(a, b)| (a - b).abs() < 1e-12),
            "{zs} vs {zh}"
        );
        Ok(())
    }

    /// Columns around 1e-300 (whose squared deviations underflow to 0 in the plain formulas, which
    /// made them look constant: issue 36) get the statistics they scale to and the z-scores of the
    /// column in larger units; the chunked statistics agree.
    #[test]
    fn tiny_columns_are_not_taken_for_constant_ones() -> Result<(), DataError> {
        let x = array![[1.0, -3.0], [2.0, 1.5], [4.0, 1.7], [-0.5, 2.0]];
        let unit = 1e-300;
        let tiny = x.mapv(|v| v * unit);
        let (s, t) = (StandardScaler::fit(&x)?, StandardScaler::fit(&tiny)?);
        for j in 0..2 {
            assert!((t.mean()[j] / unit / s.mean()[j] - 1.0).abs() < 1e-12, "{t:?}");
            assert!((t.std()[j] / unit / s.std()[j] - 1.0).abs() < 1e-12, "{t:?}");
        }
        let (zs, zt) = (s.transform(&x)?, t.transform(&tiny)?);
        assert!(
            zs.iter().zip(zt.iter()).all(|(a, b)| (a - b).abs() < 1e-12),
            "{zs} vs {zt}"
        );
        let mut stats = ColumnStats::new(2);
        stats.add(tiny.view())?;
        let c = stats.to_standard_scaler()?;
        for j in 0..2 {
            assert!((c.std()[j] / t.std()[j] - 1.0).abs() < 1e-12, "{c:?} vs {t:?}");
        }
        Ok(())
    }

    /// Chunked statistics of columns whose squares or sums overflow are finite and agree with
    /// [`StandardScaler::fit`]; an empty chunk changes nothing; widths must agree.
    #[test]
    fn column_stats_of_huge_columns_and_bad_widths() -> Result<(), DataError> {
        let huge = array![
            [1e200, 1.0e308, 3.0],
            [2e200, 1.5e308, 3.0],
            [4e200, 1.7e308, 3.0],
            [-1e-300, 1e308, 3.0]
        ];
        let whole = StandardScaler::fit(&huge)?;
        let mut stats = ColumnStats::new(3);
        for rows in [0..1, 1..1, 1..3, 3..4] {
            stats.add(huge.slice_axis(Axis(0), ndarray::Slice::from(rows)))?;
        }
        let chunked = stats.to_standard_scaler()?;
        for j in 0..3 {
            assert!(
                (chunked.mean()[j] / whole.mean()[j] - 1.0).abs() < 1e-14,
                "{chunked:?} {whole:?}"
            );
            assert!(
                (chunked.std()[j] / whole.std()[j] - 1.0).abs() < 1e-14,
                "{chunked:?} {whole:?}"
            );
        }
        assert_eq!((chunked.mean()[2], chunked.std()[2]), (3.0, 1.0));
        assert!(stats.add(Array2::zeros((1, 2)).view()).is_err());
        assert!(stats.merge(&ColumnStats::new(4)).is_err());
        assert!(ColumnStats::new(3).to_standard_scaler().is_err());
        assert!(ColumnStats::new(3).to_minmax_scaler().is_err());
        assert_eq!(power_of_two_below(3.0), 2.0);
        assert_eq!(power_of_two_below(f64::MAX), 2f64.powi(1023));
        assert_eq!(power_of_two_below(1e-310), f64::MIN_POSITIVE);
        Ok(())
    }

    #[test]
    fn constant_column_with_inexact_mean_maps_to_zero() -> Result<(), DataError> {
        let x = array![[0.1, 1.0], [0.1, 2.0], [0.1, 3.0]];
        let s = StandardScaler::fit(&x)?;
        let t = s.transform(&x)?;
        assert!(t.column(0).iter().all(|&v| v == 0.0));
        assert_eq!(s.inverse_transform(&t)?.column(0), x.column(0));
        Ok(())
    }

    #[test]
    fn inconsistent_deserialized_scaler_is_an_error() {
        let bad = StandardScaler {
            mean: array![0.0, 1.0],
            std: array![1.0],
        };
        assert!(bad.transform(&array![[1.0, 2.0]]).is_err());
    }

    /// The stream is the project's own: the first orders are pinned (values from an independent
    /// Python SplitMix64 + Lemire Fisher–Yates), so a dependency upgrade cannot move rows between
    /// folds; and every order is a permutation.
    #[test]
    fn shuffles_are_pinned_permutations() {
        assert_eq!(shuffled_indices(10, 7), [9, 5, 8, 6, 1, 2, 4, 7, 0, 3]);
        assert_eq!(shuffled_indices(10, 20_240_000), [3, 5, 4, 2, 6, 9, 1, 0, 7, 8]);
        for (n, seed) in [(0, 1), (1, 1), (10, 3), (1000, 20_240_000)] {
            let mut v = shuffled_indices(n, seed);
            assert_eq!(shuffled_indices(n, seed), v);
            v.sort_unstable();
            assert_eq!(v, (0..n).collect::<Vec<_>>());
        }
        assert_ne!(shuffled_indices(50, 1), shuffled_indices(50, 2));
        // Uniformity of `below`: each of 0..3 about a third of 30000 draws.
        let mut rng = SplitMix64::new(11);
        let mut counts = [0usize; 3];
        for _ in 0..30_000 {
            counts[below(&mut rng, 3) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)), "{counts:?}");
    }

    #[test]
    fn split_sizes() -> Result<(), DataError> {
        let d = Dataset::new(Array2::zeros((10, 2)), Array1::zeros(10), None, "t")?;
        let (train, test) = train_test_split(&d, 0.25, 1)?;
        assert_eq!((train.n_samples(), test.n_samples()), (7, 3));
        assert!(train_test_split(&d, 1.0, 1).is_err());
        assert!(train_test_split(&d, f64::NAN, 1).is_err());
        Ok(())
    }

    /// Integer weights give the statistics of the rows repeated: the means
    /// and deviations are sums of K positive-weight terms on either side,
    /// each within `γ_K`-relative rounding (here `K ≤ 30`: bound `64·K·u`
    /// relative to the column's magnitude); the extremes exactly.
    #[test]
    fn weighted_scalers_fit_the_rows_repeated() {
        let x = Array2::from_shape_fn((12, 3), |(i, j)| ((i * 7 + j * 3) % 11) as f64 - 4.0 + 0.25 * j as f64);
        let counts = [0usize, 1, 2, 3, 1, 0, 2, 1, 3, 1, 2, 1];
        let w = Array1::from_iter(counts.iter().map(|&c| c as f64));
        let rows: Vec<usize> = (0..12).flat_map(|i| std::iter::repeat_n(i, counts[i])).collect();
        let repeated = x.select(Axis(0), &rows);
        let (a, b) = (
            StandardScaler::fit_weighted(&x, w.view()).unwrap(),
            StandardScaler::fit(&repeated).unwrap(),
        );
        let bound = 64.0 * rows.len() as f64 * f64::EPSILON / 2.0 * 8.0;
        for j in 0..3 {
            assert!(
                (a.mean()[j] - b.mean()[j]).abs() <= bound,
                "{} {}",
                a.mean()[j],
                b.mean()[j]
            );
            assert!(
                (a.std()[j] - b.std()[j]).abs() <= bound,
                "{} {}",
                a.std()[j],
                b.std()[j]
            );
        }
        // Not the unweighted statistics: the weights matter.
        let plain = StandardScaler::fit(&x).unwrap();
        assert!((plain.mean() - b.mean()).iter().any(|d| d.abs() > 1e6 * bound));
        let (a, b) = (
            MinMaxScaler::fit_weighted(&x, w.view()).unwrap(),
            MinMaxScaler::fit(&repeated).unwrap(),
        );
        assert_eq!((a.min(), a.max()), (b.min(), b.max()));
        // The refusals.
        for (bad, what) in [
            (Array1::ones(11), "11 sample weights for 12 rows"),
            (Array1::from_elem(12, -1.0), "sample weight -1 (row 0)"),
            (Array1::zeros(12), "every sample weight is 0"),
        ] {
            let e = StandardScaler::fit_weighted(&x, bad.view()).unwrap_err().to_string();
            assert!(e.contains(what), "{e}");
        }
    }
}
