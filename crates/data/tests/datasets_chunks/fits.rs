//! Column statistics and class labels gathered over chunks against the whole-table fits.

use super::*;

/// Column kinds `(centre, half-width)`: values `centre + half-width·(2r − 1)`, `r` uniform in
/// `[0, 1)`. A mean of 1e8 with a spread of 1e-3, and two constant columns (one of them 0.1,
/// not exact in binary).
const COLUMNS: [(f64, f64); 6] = [(0.0, 1.0), (1e8, 1e-3), (0.1, 0.0), (-5e5, 1e6), (3.0, 0.0), (7.0, 2.0)];

/// The rows of `x` cut into chunks of the sizes `cuts` (repeated), added to `stats`.
fn add_in_chunks(stats: &mut ColumnStats, x: ndarray::ArrayView2<'_, f64>, cuts: &[usize]) -> Result<usize, DataError> {
    let (mut start, mut chunks) = (0, 0);
    for &cut in cuts.iter().cycle() {
        if start >= x.nrows() {
            break;
        }
        let end = (start + cut).min(x.nrows());
        stats.add(x.slice_axis(Axis(0), Slice::from(start..end)))?;
        (start, chunks) = (end, chunks + 1);
    }
    Ok(chunks)
}

/// Checks the chunked statistics against the whole-matrix fits.
///
/// The tolerance, for a column of `n` rows in `C` chunks, largest magnitude `M` and (whole-matrix)
/// standard deviation `σ`, with `u = 2⁻⁵³`: each chunk mean is a sum of at most `n` terms, off by at
/// most `n·u·M`, and each of the `C` merges adds `≤ 3u·M` to the running mean, so both means are
/// within `(n + 3C)·u·M` of the exact one: `|mean − mean_whole| ≤ (2n + 3C + 4)·u·M`. In a merge
/// the term `δ²·n_a·n_b/n` takes the error `e ≤ 2(n + 3C)·u·M` of the difference of means `δ`; as
/// `Σ δ_k²·w_k ≤ n·σ²` and `Σ w_k ≤ n` (with `w_k = n_a·n_b/n`), Cauchy–Schwarz bounds the summed
/// error by `2e·n·σ`, i.e. `4(n + 3C)·u·M/σ` relative to `M2 = n·σ²`; the sums of squares add
/// `(n + C)·u`, and either side's deviations taken from an inexact mean add `(n·u·M/σ)²`. Halved for
/// the standard deviation: `|std/std_whole − 1| ≤ 2(n + 3C)·u·M/σ + (n + C)·u + (n·u·M/σ)²`
/// (doubled below for the whole fit's own rounding). This is a worst case, linear in `n + C`
/// (Welford/Chan's typical error grows like its square root): for the column of mean 1e8 and
/// spread 1e-3 (`M/σ ≈ 2·10¹¹`) it allows about 1e-2 of 300 rows, for columns of `M/σ ≈ 2` a
/// few 1e-13. Constant columns are exact (their value and 1), minima and maxima too.
fn assert_stats_match(stats: &ColumnStats, x: &Array2<f64>, chunks: usize) -> Result<(), TestCaseError> {
    let fail = |e: DataError| TestCaseError::fail(e.to_string());
    let whole = StandardScaler::fit(x).map_err(fail)?;
    let chunked = stats.to_standard_scaler().map_err(fail)?;
    let (n, c) = (x.nrows() as f64, chunks as f64);
    let u = f64::EPSILON / 2.0;
    for j in 0..x.ncols() {
        let column = x.column(j);
        let m = column.fold(0.0f64, |a, v| a.max(v.abs()));
        let (mean, std) = (whole.mean()[j], whole.std()[j]);
        if column.iter().all(|&v| v == column[0]) {
            prop_assert_eq!(
                (chunked.mean()[j], chunked.std()[j]),
                (column[0], 1.0),
                "constant column {}",
                j
            );
            continue;
        }
        let mean_tol = (2.0 * n + 3.0 * c + 4.0) * u * m;
        prop_assert!(
            (chunked.mean()[j] - mean).abs() <= mean_tol,
            "column {}: mean {} vs {} (tolerance {:e})",
            j,
            chunked.mean()[j],
            mean,
            mean_tol
        );
        let ratio = m / std;
        let std_tol = 2.0 * (2.0 * (n + 3.0 * c) * u * ratio + (n + c) * u + (n * u * ratio).powi(2));
        let rel = (chunked.std()[j] / std - 1.0).abs();
        prop_assert!(
            rel <= std_tol,
            "column {}: std {} vs {}: {:e} > {:e}",
            j,
            chunked.std()[j],
            std,
            rel,
            std_tol
        );
    }
    let minmax = MinMaxScaler::fit(x).map_err(fail)?;
    let chunked = stats.to_minmax_scaler().map_err(fail)?;
    prop_assert_eq!((chunked.min(), chunked.max()), (minmax.min(), minmax.max()));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Column statistics over random chunkings of random data equal the whole-matrix scalers (within
    /// the derived tolerance; minima and maxima exactly), and so do two parts' statistics merged.
    #[test]
    fn column_stats_over_chunks_match_the_whole_fit(
        r in (1usize..300).prop_flat_map(|n| proptest::collection::vec(0.0f64..1.0, n * COLUMNS.len())),
        cuts in proptest::collection::vec(1usize..40, 1..6),
        split in 0.0f64..1.0,
    ) {
        let n = r.len() / COLUMNS.len();
        let x = Array2::from_shape_fn((n, COLUMNS.len()), |(i, j)| {
            let (centre, half) = COLUMNS[j];
            centre + half * (2.0 * r[i * COLUMNS.len() + j] - 1.0)
        });
        let fail = |e: DataError| TestCaseError::fail(e.to_string());
        let mut stats = ColumnStats::new(COLUMNS.len());
        let chunks = add_in_chunks(&mut stats, x.view(), &cuts).map_err(fail)?;
        prop_assert_eq!(stats.n_rows(), n);
        assert_stats_match(&stats, &x, chunks)?;
        // Two processes' parts, merged.
        let k = (split * n as f64) as usize;
        let (mut first, mut second) = (ColumnStats::new(COLUMNS.len()), ColumnStats::new(COLUMNS.len()));
        let a = add_in_chunks(&mut first, x.slice_axis(Axis(0), Slice::from(..k)), &cuts).map_err(fail)?;
        let b = add_in_chunks(&mut second, x.slice_axis(Axis(0), Slice::from(k..)), &cuts).map_err(fail)?;
        second.merge(&first).map_err(fail)?;
        assert_stats_match(&second, &x, a + b + 1)?;
    }
}

// ---------------------------------------------------------------- class labels

/// The labels gathered over chunks of `size` (also by two accumulators merged) against
/// `ClassLabels::fit` on the whole table: the same labels and classes, or the same error.
fn assert_labels_match(path: &Path, size: usize) -> TestResult {
    let options = ReadOptions::default();
    let whole = read_table(path, &options)?;
    let chunks: Vec<Table> = read_table_chunks(path, &options, size)?.collect::<Result<_, _>>()?;
    let fit = ClassLabels::fit(&whole)
        .map(|(labels, _)| labels)
        .map_err(|e| e.to_string());
    let collected = ClassLabels::collect(&chunks).map_err(|e| e.to_string());
    assert_eq!(collected, fit, "{} in chunks of {size}", path.display());
    let half = chunks.len() / 2;
    let (mut a, mut b) = (ClassLabelsAccumulator::new(), ClassLabelsAccumulator::new());
    let added = (|| -> Result<(), DataError> {
        chunks[..half].iter().try_for_each(|c| a.add(c))?;
        chunks[half..].iter().try_for_each(|c| b.add(c))?;
        a.merge(b)?;
        Ok(())
    })();
    let merged = added.and_then(|()| a.finish()).map_err(|e| e.to_string());
    assert_eq!(merged, fit, "{}: merged halves", path.display());
    if let Ok((labels, classes)) = ClassLabels::fit(&whole) {
        let per_chunk: Vec<f64> = chunks
            .iter()
            .map(|c| labels.encode(c, None))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(per_chunk, classes.to_vec(), "{}: classes", path.display());
    }
    Ok(())
}

/// Class labels over chunks equal those of the whole table: integers, names appearing only in a
/// late chunk (after numbers that are not labels), bad numbers (the first one's error), LIBSVM and
/// IDX labels, a shipped file; each chunk encodes to the whole table's classes.
#[test]
fn class_labels_over_chunks_equal_the_whole_fit() -> TestResult {
    let dir = temp_dir();
    let files: [(&str, &[u8]); 6] = [
        ("integers.csv", b"a,y\n1,10\n2,-3\n3,+10\n4,2e0\n5,7\n"),
        ("late-name.csv", b"a,y\n1,10\n2,-3\n3,1.5\n4,1e30\n5,dog\n"),
        ("bad-numbers.csv", b"a,y\n1,10\n2,-3\n3,4\n4,1.5\n5,1e30\n"),
        ("bad.svm", b"1 1:1\n-1 2:1\n1 1:1\n2.5 1:1\n"),
        ("x-images-idx3-ubyte", &[]),
        ("empty.svm", b"# no rows\n"),
    ];
    let images = idx_images(5, 1, 2, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    std::fs::write(dir.path().join("x-labels-idx1-ubyte"), idx_labels(&[3, 0, 255, 3, 9]))?;
    for (name, bytes) in files {
        let path = dir.path().join(name);
        std::fs::write(&path, if bytes.is_empty() { &images[..] } else { bytes })?;
        if name == "empty.svm" {
            let chunks = read_table_chunks(&path, &ReadOptions::default(), 2)?.collect::<Result<Vec<_>, _>>();
            let e = chunks.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.ends_with("empty file (no data lines)"), "{e}");
            let nothing: [&Table; 0] = [];
            assert!(ClassLabels::collect(nothing).is_err());
            continue;
        }
        for size in [1, 2, 3, 100] {
            assert_labels_match(&path, size)?;
        }
        // What the whole fit (itself built on the accumulator) gives.
        let fit = ClassLabels::fit(&read_table(&path, &ReadOptions::default())?);
        let fit = fit.map(|(labels, _)| labels).map_err(|e| e.to_string());
        let text = |v: &[&str]| ClassLabels::Text(v.iter().map(|s| s.to_string()).collect());
        let error = |e: &str| Err(format!("{} {e}", path.display()));
        let expected = match name {
            "integers.csv" => Ok(ClassLabels::Integers(vec![-3, 2, 7, 10])),
            "late-name.csv" => Ok(text(&["-3", "1.5", "10", "1e30", "dog"])),
            "bad-numbers.csv" => error("line 5: class label \"1.5\" is not an integer (classification labels are integers or names; use --task regression for real-valued targets)"),
            "bad.svm" => error("line 4: class label \"2.5\" is not an integer (classification labels are integers or names; use --task regression for real-valued targets)"),
            _ => Ok(ClassLabels::Integers(vec![0, 3, 9, 255])),
        };
        assert_eq!(fit, expected, "{name}");
    }
    let satellite = shipped("satellite-test")?;
    for size in [7, 1000] {
        assert_labels_match(&satellite, size)?;
    }
    Ok(())
}

/// A label training never saw is reported by the chunk holding it, at its absolute line (text
/// files) or item (IDX), exactly as for the whole file.
#[test]
fn encoding_a_chunk_names_the_absolute_line_or_item() -> TestResult {
    let dir = temp_dir();
    let train = dir.path().join("train.csv");
    std::fs::write(&train, "a,y\n1,cat\n2,dog\n")?;
    let (labels, _) = ClassLabels::fit(&read_table(&train, &ReadOptions::default())?)?;
    let test = dir.path().join("test.csv");
    std::fs::write(&test, "a,y\n1,cat\n2,dog\n3,cat\n4,cow\n5,dog\n")?;
    let images = dir.path().join("t-images-idx3-ubyte");
    std::fs::write(&images, idx_images(5, 1, 1, &[1, 2, 3, 4, 5]))?;
    std::fs::write(dir.path().join("t-labels-idx1-ubyte"), idx_labels(&[1, 2, 1, 7, 2]))?;
    let digits = ClassLabels::Integers(vec![1, 2]);
    for (path, labels, expected) in [
        (&test, &labels, "test.csv line 5: class label \"cow\""),
        (&images, &digits, "t-labels-idx1-ubyte: item 4: class label \"7\""),
    ] {
        let whole = labels.encode(&read_table(path, &ReadOptions::default())?, Some(&train));
        let whole = whole.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(whole.contains(expected), "{whole}");
        for size in [1, 2, 3] {
            let mut first_error = None;
            for chunk in read_table_chunks(path, &ReadOptions::default(), size)? {
                if let Err(e) = labels.encode(&chunk?, Some(&train)) {
                    first_error = Some(e.to_string());
                    break;
                }
            }
            assert_eq!(
                first_error.as_deref(),
                Some(whole.as_str()),
                "{} in chunks of {size}",
                path.display()
            );
        }
    }
    Ok(())
}
