//! The published numbers of Grippo, Manno & Sciandrone (2016),
//! "Decomposition techniques for multilayer perceptron training"
//! (IEEE TNNLS), Sec. VI: Table I (the datasets) and Tables II–XII (one table
//! of results per dataset), plus the count of Sec. VI-C comparing DEC(10)
//! with L-BFGS.
//!
//! Every number was transcribed by hand from the text of the paper
//! (`/work/shared/papers/grippo2016-decomposition-mlp.txt`) and is kept as
//! printed, with the printed number of decimals, even where it looks like a
//! misprint; such values carry a `// sic` comment. Each result is the mean
//! over ten runs from ten starting points; times are in seconds on the
//! authors' Intel Core2 Duo. The paper's blank algorithm cells (a row that
//! continues the previous algorithm) are filled in, and "lbfgs (500)" /
//! "lbfgs (1000)" of Table VI are written "lbfgs(500)" / "lbfgs(1000)".

/// Classification (accuracy in %) or regression (RMSE on targets scaled to [0, 1]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Binary (C) or multiclass (MC) classification; metrics are accuracies
    /// in %.
    Classification,
    /// Regression (R) with targets linearly scaled to [0, 1]; metrics are
    /// root mean square errors.
    Regression,
}

/// One dataset of Table I.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DatasetInfo {
    /// The paper's name ("cod-rna", "magic", …).
    pub paper_name: &'static str,
    /// The table of its results ("II" … "XII").
    pub table: &'static str,
    /// (C)/(MC) → Classification, (R) → Regression.
    pub task: Task,
    /// Number of input features (#features).
    pub features: usize,
    /// Number of training samples (#training data).
    pub train: usize,
    /// Number of test samples (#test data).
    pub test: usize,
}

/// One row of Tables II–XII.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PublishedRow {
    /// "DEC(2)", "DEC(10)", "lbfgs(500)", "lbfgs(1000)" or "elm" (normalize "lbfgs (500)" to "lbfgs(500)").
    pub algorithm: &'static str,
    /// Number N of hidden neurons.
    pub neurons: usize,
    /// Seconds.
    pub train_time: f64,
    /// Seconds (ts_time: the time to evaluate the network on the test set).
    pub test_time: f64,
    /// %tr or RMSEtr.
    pub train_metric: f64,
    /// %ts or RMSEts.
    pub test_metric: f64,
}

/// Table I, in the paper's order.
pub const TABLE_I: [DatasetInfo; 11] = [
    info("cod-rna", "II", Task::Classification, 8, 59535, 271617),
    info("magic", "III", Task::Classification, 10, 17118, 1902),
    info("ringnorm", "IV", Task::Classification, 20, 6500, 900),
    // (MC): the one multiclass problem.
    info("satellite", "V", Task::Classification, 36, 4435, 2000),
    info("diabetes", "VI", Task::Classification, 8, 576, 192),
    info("mv", "VII", Task::Regression, 10, 32615, 8153),
    info("california", "VIII", Task::Regression, 8, 16512, 4128),
    info("census", "IX", Task::Regression, 16, 18228, 4556),
    info("deltaelv", "X", Task::Regression, 6, 7614, 1903),
    info("elevators", "XI", Task::Regression, 18, 13280, 3319),
    // Table I says "aileron"; the title of Table XII says "AILERONS".
    info("aileron", "XII", Task::Regression, 40, 11000, 2750),
];

/// Tables II–XII: the rows of each dataset, in TABLE_I's order.
pub const RESULTS: [&[PublishedRow]; 11] = [
    TABLE_II_COD_RNA,
    TABLE_III_MAGIC,
    TABLE_IV_RINGNORM,
    TABLE_V_SATELLITE,
    TABLE_VI_DIABETES,
    TABLE_VII_MV,
    TABLE_VIII_CALIFORNIA,
    TABLE_IX_CENSUS,
    TABLE_X_DELTAELV,
    TABLE_XI_ELEVATORS,
    TABLE_XII_AILERONS,
];

/// (time, accuracy, both) out of 11: DEC(10) outperforms L-BFGS in 9 cases on
/// training time, 9 on accuracy, 7 on both (Sec. VI-C).
///
/// The paper's words: DEC(10) "outperforms both versions of the latter in 9
/// cases over 11 in terms of training time, and in 9 cases over 11 in terms
/// of accuracy level. L-BFGS outperforms DEC(10) in 2 cases over 11 in terms
/// of training time, and in 1 case over 11 in terms of accuracy level. Note
/// that in 7 cases over 11 DEC(10) outperforms L-BFGS both in terms of
/// training time and of accuracy level." The comparison rule is not stated.
/// With the printed tables, 9/9/7 (and the 2 and 1 losses) is reproduced by
/// comparing test metrics, and training times against the L-BFGS version
/// with the better test metric (both versions when they tie); comparing
/// times against both versions gives 8 instead (see the tests).
pub const CLAIM_DEC10_BEATS_LBFGS: (usize, usize, usize) = (9, 9, 7);

/// The rows of the dataset called `paper_name`.
///
/// `paper_name` is matched exactly against [`DatasetInfo::paper_name`] of
/// [`TABLE_I`] (so Table XII's dataset is "aileron", as in Table I).
pub fn rows(paper_name: &str) -> Option<&'static [PublishedRow]> {
    TABLE_I
        .iter()
        .position(|d| d.paper_name == paper_name)
        .map(|i| RESULTS[i])
}

const fn info(
    paper_name: &'static str,
    table: &'static str,
    task: Task,
    features: usize,
    train: usize,
    test: usize,
) -> DatasetInfo {
    DatasetInfo {
        paper_name,
        table,
        task,
        features,
        train,
        test,
    }
}

/// A row in the paper's column order: algorithm, neurons, tr_time, ts_time,
/// %tr or RMSEtr, %ts or RMSEts.
const fn r(
    algorithm: &'static str,
    neurons: usize,
    train_time: f64,
    test_time: f64,
    train_metric: f64,
    test_metric: f64,
) -> PublishedRow {
    PublishedRow {
        algorithm,
        neurons,
        train_time,
        test_time,
        train_metric,
        test_metric,
    }
}

/// Table II, cod-rna: %tr, %ts.
const TABLE_II_COD_RNA: &[PublishedRow] = &[
    r("DEC(2)", 20, 3.22, 0.40, 92.04, 93.55),
    r("DEC(2)", 50, 8.83, 1.01, 92.86, 94.57),
    r("DEC(2)", 100, 21.03, 2.02, 93.42, 94.93),
    r("DEC(10)", 20, 25.98, 0.40, 94.36, 95.95),
    r("lbfgs(500)", 20, 84.15, 0.38, 91.03, 91.61),
    r("lbfgs(1000)", 20, 172.55, 0.38, 91.12, 91.91),
    r("elm", 100, 1.98, 2.04, 84.81, 86.06),
    r("elm", 200, 4.55, 4.06, 87.24, 88.62),
    r("elm", 400, 17.56, 8.14, 87.89, 89.16),
];

/// Table III, magic: %tr, %ts.
const TABLE_III_MAGIC: &[PublishedRow] = &[
    r("DEC(2)", 20, 1.65, 0.003, 81.28, 81.80),
    r("DEC(2)", 50, 4.85, 0.007, 82.93, 82.88),
    r("DEC(2)", 100, 10.64, 0.015, 84.26, 83.30),
    r("DEC(10)", 20, 10.81, 0.003, 86.71, 87.53),
    r("lbfgs(500)", 20, 29.32, 0.004, 81.33, 82.11),
    r("lbfgs(1000)", 20, 57.29, 0.004, 82.14, 83.07),
    r("elm", 100, 0.50, 0.015, 74.59, 74.65),
    r("elm", 500, 5.40, 0.075, 78.56, 77.77),
    r("elm", 1500, 57.06, 0.231, 81.75, 78.88),
];

/// Table IV, ringnorm: %tr, %ts.
const TABLE_IV_RINGNORM: &[PublishedRow] = &[
    r("DEC(2)", 100, 1.27, 0.008, 98.40, 94.27),
    r("DEC(2)", 200, 3.67, 0.01, 99.41, 94.92),
    r("DEC(2)", 500, 15.82, 0.04, 99.94, 95.13),
    r("DEC(10)", 100, 10.13, 0.008, 99.63, 96.00),
    r("lbfgs(500)", 100, 85.04, 0.008, 99.45, 96.79),
    r("lbfgs(1000)", 100, 164.79, 0.008, 99.72, 96.88),
    r("elm", 500, 3.01, 0.04, 91.88, 88.40),
    r("elm", 1000, 15.99, 0.09, 95.94, 91.23),
    r("elm", 2000, 105.39, 0.18, 98.98, 91.97),
];

/// Table V, satellite (multiclass): %tr, %ts.
const TABLE_V_SATELLITE: &[PublishedRow] = &[
    r("DEC(2)", 100, 4.17, 0.02, 83.97, 79.77),
    r("DEC(2)", 200, 20.88, 0.05, 86.00, 80.91),
    r("DEC(2)", 500, 119.78, 0.13, 90.04, 82.31),
    r("DEC(10)", 100, 45.94, 0.02, 92.76, 85.00),
    r("lbfgs(500)", 100, 81.46, 0.02, 75.85, 73.59),
    r("lbfgs(1000)", 100, 221.14, 0.02, 82.43, 77.45),
    r("elm", 500, 1.72, 0.13, 79.40, 76.40),
    r("elm", 1000, 7.56, 0.27, 83.71, 78.35),
    r("elm", 2000, 170.74, 0.54, 87.25, 78.19),
];

/// Table VI, diabetes: %tr, %ts. The paper prints "lbfgs (500)" and
/// "lbfgs (1000)" here.
const TABLE_VI_DIABETES: &[PublishedRow] = &[
    r("DEC(2)", 20, 0.014, 0.0004, 76.97, 77.44),
    r("DEC(2)", 50, 0.037, 0.0007, 78.43, 78.90),
    r("DEC(2)", 100, 0.078, 0.001, 78.73, 79.06),
    // sic? tr_time 1.56 is 111× DEC(2)'s 0.014 at the same N (5–19× in the
    // other tables, aileron aside); 0.156 would fit. It decides one case of
    // the training-time count of Sec. VI-C (against lbfgs(500)'s 0.90).
    r("DEC(10)", 20, 1.56, 0.0004, 79.34, 81.25),
    r("lbfgs(500)", 20, 0.90, 0.0003, 80.93, 76.71),
    r("lbfgs(1000)", 20, 1.77, 0.0003, 84.20, 75.00),
    r("elm", 20, 0.004, 0.0004, 77.96, 77.34),
    r("elm", 100, 0.020, 0.001, 82.22, 76.45),
    r("elm", 200, 0.084, 0.002, 88.22, 74.58),
];

/// Table VII, mv: RMSEtr, RMSEts.
const TABLE_VII_MV: &[PublishedRow] = &[
    r("DEC(2)", 20, 1.05, 0.006, 0.096, 0.126),
    // sic: ts_time 0.15 between 0.006 (N = 20) and 0.030 (N = 100); 0.015 fits.
    r("DEC(2)", 50, 3.16, 0.15, 0.074, 0.098),
    // RMSEtr 0.019 against RMSEts 0.090 is a large gap (kept as printed).
    r("DEC(2)", 100, 8.01, 0.030, 0.019, 0.090),
    r("DEC(10)", 20, 19.57, 0.006, 0.014, 0.019),
    r("lbfgs(500)", 20, 13.38, 0.006, 0.142, 0.142),
    r("lbfgs(1000)", 20, 26.02, 0.006, 0.127, 0.127),
    r("elm", 100, 1.02, 0.031, 0.220, 0.219),
    r("elm", 200, 2.98, 0.061, 0.199, 0.199),
    r("elm", 500, 9.14, 0.154, 0.178, 0.177),
];

/// Table VIII, california: RMSEtr, RMSEts. Its ts_time column is identical
/// to Table VII's (mv), although mv's test set is twice as large.
const TABLE_VIII_CALIFORNIA: &[PublishedRow] = &[
    r("DEC(2)", 20, 2.983, 0.006, 0.145, 0.191),
    // sic: ts_time 0.15 between 0.006 and 0.030, as in Table VII; 0.015 fits.
    r("DEC(2)", 50, 8.090, 0.15, 0.134, 0.178),
    r("DEC(2)", 100, 16.387, 0.030, 0.125, 0.169),
    r("DEC(10)", 20, 20.76, 0.006, 0.102, 0.142),
    r("lbfgs(500)", 20, 142.29, 0.006, 0.195, 0.198),
    r("lbfgs(1000)", 20, 546.95, 0.006, 0.162, 0.164),
    r("elm", 100, 0.54, 0.031, 0.203, 0.205),
    r("elm", 200, 1.47, 0.061, 0.197, 0.200),
    r("elm", 500, 7.14, 0.154, 0.189, 0.198),
];

/// Table IX, census: RMSEtr, RMSEts.
const TABLE_IX_CENSUS: &[PublishedRow] = &[
    r("DEC(2)", 20, 6.146, 0.008, 0.056, 0.092),
    r("DEC(2)", 50, 14.905, 0.020, 0.058, 0.095),
    r("DEC(2)", 100, 33.689, 0.042, 0.055, 0.092),
    r("DEC(10)", 20, 71.478, 0.008, 0.048, 0.083),
    r("lbfgs(500)", 20, 214.78, 0.008, 0.094, 0.089),
    r("lbfgs(1000)", 20, 802.26, 0.008, 0.093, 0.088),
    r("elm", 100, 0.65, 0.041, 0.100, 0.101),
    r("elm", 200, 1.68, 0.082, 0.100, 0.105),
    r("elm", 500, 7.78, 0.207, 0.098, 0.106),
];

/// Table X, deltaelv: RMSEtr, RMSEts.
const TABLE_X_DELTAELV: &[PublishedRow] = &[
    r("DEC(2)", 20, 0.616, 0.001, 0.041, 0.057),
    r("DEC(2)", 50, 1.533, 0.006, 0.040, 0.056),
    r("DEC(2)", 100, 3.093, 0.013, 0.039, 0.055),
    r("DEC(10)", 20, 3.135, 0.001, 0.040, 0.055),
    r("lbfgs(500)", 20, 10.417, 0.001, 0.053, 0.055),
    r("lbfgs(1000)", 20, 20.574, 0.001, 0.053, 0.055),
    r("elm", 100, 0.200, 0.013, 0.052, 0.056),
    r("elm", 200, 0.639, 0.027, 0.051, 0.061),
    // sic? RMSEts 0.305 against RMSEtr 0.049 and 0.055–0.061 elsewhere
    // (an unregularized ELM may overfit, or a misprint of e.g. 0.065).
    r("elm", 500, 3.518, 0.068, 0.049, 0.305),
];

/// Table XI, elevators: RMSEtr, RMSEts. Its ts_time column is identical to
/// Table XII's (aileron).
const TABLE_XI_ELEVATORS: &[PublishedRow] = &[
    r("DEC(2)", 20, 6.60, 0.008, 0.092, 0.092),
    r("DEC(2)", 50, 17.06, 0.019, 0.091, 0.093),
    r("DEC(2)", 100, 34.58, 0.038, 0.089, 0.095),
    r("DEC(10)", 20, 65.93, 0.008, 0.085, 0.087),
    r("lbfgs(500)", 20, 32.19, 0.008, 0.092, 0.092),
    r("lbfgs(1000)", 20, 63.81, 0.008, 0.092, 0.092),
    r("elm", 100, 0.448, 0.038, 0.097, 0.097),
    r("elm", 200, 1.252, 0.075, 0.097, 0.098),
    r("elm", 500, 6.070, 0.188, 0.094, 0.098),
];

/// Table XII, titled "AILERONS" (Table I: "aileron"): RMSEtr, RMSEts.
const TABLE_XII_AILERONS: &[PublishedRow] = &[
    r("DEC(2)", 20, 5.671, 0.008, 0.066, 0.065),
    r("DEC(2)", 50, 9.376, 0.019, 0.062, 0.062),
    r("DEC(2)", 100, 18.085, 0.038, 0.059, 0.061),
    // sic: tr_time 1.605 is below DEC(2)'s 5.671 at the same N, although
    // DEC(10) runs five times as many outer iterations (16.05 would fit).
    r("DEC(10)", 20, 1.605, 0.008, 0.048, 0.048),
    r("lbfgs(500)", 20, 47.21, 0.008, 0.060, 0.060),
    r("lbfgs(1000)", 20, 94.59, 0.008, 0.052, 0.052),
    r("elm", 100, 0.401, 0.038, 0.105, 0.105),
    r("elm", 200, 1.084, 0.075, 0.104, 0.105),
    // RMSEtr printed with two decimals ("0.09").
    r("elm", 500, 5.389, 0.188, 0.09, 0.102),
];

#[cfg(test)]
mod tests {
    use super::*;

    const ALGORITHMS: [&str; 5] = ["DEC(2)", "DEC(10)", "lbfgs(500)", "lbfgs(1000)", "elm"];

    fn count(rows: &[PublishedRow], algorithm: &str) -> usize {
        rows.iter().filter(|r| r.algorithm == algorithm).count()
    }

    fn only<'a>(rows: &'a [PublishedRow], algorithm: &str) -> &'a PublishedRow {
        let mut it = rows.iter().filter(|r| r.algorithm == algorithm);
        let row = it.next().expect("row present");
        assert!(it.next().is_none(), "{algorithm} is not unique");
        row
    }

    #[test]
    fn eleven_datasets_each_with_rows() {
        assert_eq!(TABLE_I.len(), 11);
        assert_eq!(RESULTS.len(), 11);
        for (d, rows) in TABLE_I.iter().zip(RESULTS) {
            assert!(!rows.is_empty(), "{}", d.paper_name);
        }
        let classification = TABLE_I.iter().filter(|d| d.task == Task::Classification).count();
        assert_eq!(classification, 5);
    }

    #[test]
    fn table_names_in_order() {
        let names: Vec<&str> = TABLE_I.iter().map(|d| d.table).collect();
        assert_eq!(
            names,
            ["II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"]
        );
    }

    #[test]
    fn algorithms_per_table() {
        for (d, rows) in TABLE_I.iter().zip(RESULTS) {
            for r in rows {
                assert!(ALGORITHMS.contains(&r.algorithm), "{}: {}", d.paper_name, r.algorithm);
            }
            assert_eq!(count(rows, "DEC(10)"), 1, "{}", d.paper_name);
            assert_eq!(count(rows, "lbfgs(500)"), 1, "{}", d.paper_name);
            assert_eq!(count(rows, "lbfgs(1000)"), 1, "{}", d.paper_name);
            assert!(count(rows, "DEC(2)") >= 1, "{}", d.paper_name);
            assert!(count(rows, "elm") >= 1, "{}", d.paper_name);
            // DEC(10) and both L-BFGS runs use the same N.
            let n = only(rows, "DEC(10)").neurons;
            assert_eq!(only(rows, "lbfgs(500)").neurons, n, "{}", d.paper_name);
            assert_eq!(only(rows, "lbfgs(1000)").neurons, n, "{}", d.paper_name);
        }
    }

    #[test]
    fn metrics_in_range() {
        for (d, rows) in TABLE_I.iter().zip(RESULTS) {
            for r in rows {
                for m in [r.train_metric, r.test_metric] {
                    match d.task {
                        Task::Classification => {
                            assert!(m > 0.0 && m <= 100.0, "{}: {m}", d.paper_name)
                        }
                        Task::Regression => assert!(m > 0.0 && m < 1.0, "{}: {m}", d.paper_name),
                    }
                }
                assert!(r.neurons > 0 && r.train_time > 0.0 && r.test_time > 0.0);
            }
        }
    }

    #[test]
    fn spot_values() {
        let cod = rows("cod-rna").unwrap();
        assert_eq!(cod[0], r("DEC(2)", 20, 3.22, 0.40, 92.04, 93.55));
        assert_eq!(cod[0].train_time, 3.22);
        assert_eq!(cod[0].test_metric, 93.55);
        assert_eq!(
            TABLE_I[0],
            info("cod-rna", "II", Task::Classification, 8, 59535, 271617)
        );
        assert_eq!(only(rows("magic").unwrap(), "DEC(10)").test_metric, 87.53);
        assert_eq!(only(rows("diabetes").unwrap(), "lbfgs(500)").train_time, 0.90);
        assert_eq!(rows("mv").unwrap()[1].test_time, 0.15);
        assert_eq!(only(rows("california").unwrap(), "lbfgs(1000)").train_time, 546.95);
        assert_eq!(rows("deltaelv").unwrap()[8].test_metric, 0.305);
        assert_eq!(only(rows("aileron").unwrap(), "DEC(10)").train_time, 1.605);
        let sat = TABLE_I[3];
        assert_eq!((sat.features, sat.train, sat.test), (36, 4435, 2000));
        assert!(rows("ailerons").is_none());
        assert!(rows("nope").is_none());
    }

    /// (time wins, accuracy wins, both) of DEC(10) over L-BFGS, counting
    /// accuracy on the test metric (strictly better than both versions) and
    /// time against `time_ref` of the two L-BFGS rows.
    fn dec10_wins(time_ref: fn(Task, &PublishedRow, &PublishedRow) -> Vec<f64>) -> (usize, usize, usize) {
        let mut wins = (0, 0, 0);
        for (d, rows) in TABLE_I.iter().zip(RESULTS) {
            let dec = only(rows, "DEC(10)");
            let (l5, l10) = (only(rows, "lbfgs(500)"), only(rows, "lbfgs(1000)"));
            let better = |a: f64, b: f64| match d.task {
                Task::Classification => a > b,
                Task::Regression => a < b,
            };
            let time = time_ref(d.task, l5, l10).iter().all(|&t| dec.train_time < t);
            let acc = better(dec.test_metric, l5.test_metric) && better(dec.test_metric, l10.test_metric);
            wins.0 += usize::from(time);
            wins.1 += usize::from(acc);
            wins.2 += usize::from(time && acc);
        }
        wins
    }

    #[test]
    fn claim_counts_against_the_tables() {
        // Times against the L-BFGS version with the better test metric
        // (both when they tie): the paper's 9/9/7.
        let more_accurate = |task: Task, a: &PublishedRow, b: &PublishedRow| {
            let better = |x: f64, y: f64| match task {
                Task::Classification => x > y,
                Task::Regression => x < y,
            };
            if better(a.test_metric, b.test_metric) {
                vec![a.train_time]
            } else if better(b.test_metric, a.test_metric) {
                vec![b.train_time]
            } else {
                vec![a.train_time, b.train_time]
            }
        };
        assert_eq!(dec10_wins(more_accurate), CLAIM_DEC10_BEATS_LBFGS);
        // Times against both versions: 8/9/6 with the printed numbers.
        let both = |_: Task, a: &PublishedRow, b: &PublishedRow| vec![a.train_time, b.train_time];
        assert_eq!(dec10_wins(both), (8, 9, 6));
    }
}
