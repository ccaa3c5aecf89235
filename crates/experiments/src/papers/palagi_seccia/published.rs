//! The published numbers of Palagi & Seccia, "Block layer decomposition
//! schemes for training deep neural networks": Table 1 (data sets and network
//! sizes), Tables 2–5 (B2LD versus a full L-BFGS) and Tables 6–8 (the
//! minibatch BLInG versus incremental gradient, IG).
//!
//! Every value is transcribed from the paper's text
//! (`/work/shared/papers/palagi-seccia-block-layer-decomposition.txt`) and kept
//! as printed (three significant figures for the objectives, gradient norms
//! and test errors; two decimals for times and ratios). The paper's
//! `a.bc × 10^-e` and decimal-comma `a,bc × 10^-e` are written `a.bce-e`.
//! Rows are re-ordered where a table uses another data set order than Tables
//! 2–4 and 6–7 (Tables 1 and 5); each constant says which order it is in.
//! Nothing is missing from the text: there is no `NaN` entry.
//!
//! Everything is indexed by [`DATASETS`] and [`ARCHITECTURES`]; use
//! [`dataset_index`] to map a paper name (in any of the paper's spellings) to
//! its index.

/// The paper's data set names in the order of its Tables 2–4 and 6–7.
pub const DATASETS: [&str; 7] = [
    "Ailerons",
    "Bank Marketing",
    "Bejing Pm25",
    "Bikes Sharing",
    "California",
    "CCPP",
    "Mv",
];

/// The architectures, as the paper writes them, in table order (Table 2
/// prints the third one "[200.50.200]").
pub const ARCHITECTURES: [&str; 5] = ["[1 x 50]", "[3 x 20]", "[200,50,200]", "[5 x 50]", "[10 x 50]"];

/// Hidden widths of each architecture (same order as [`ARCHITECTURES`]);
/// every network has one linear output and no biases.
pub const HIDDEN: [&[usize]; 5] = [&[50], &[20, 20, 20], &[200, 50, 200], &[50; 5], &[50; 10]];

/// One row of Table 1 ("Datasets and Networks Description").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Table1Row {
    /// The data set's name as Table 1 prints it ("Bejing PM 2.5", "Bank").
    pub dataset: &'static str,
    /// Number of training samples.
    pub train: usize,
    /// Number of test samples.
    pub test: usize,
    /// Number of input features.
    pub features: usize,
    /// Number of weights of each network of [`ARCHITECTURES`] (same order).
    pub variables: [usize; 5],
}

/// Builds a [`Table1Row`].
const fn t1(dataset: &'static str, train: usize, test: usize, features: usize, variables: [usize; 5]) -> Table1Row {
    Table1Row {
        dataset,
        train,
        test,
        features,
        variables,
    }
}

/// Table 1, rows indexed like [`DATASETS`] (re-ordered from the paper's Table
/// 1 order: Mv, Bikes Sharing, Bejing PM 2.5, CCPP, Ailerons, California,
/// Bank).
///
/// The `variables` are the weights of a network without biases,
/// `features·n1 + Σ n_ℓ·n_{ℓ+1} + n_last` (checked for all 35 entries by the
/// tests). Train + test is one short of the full data set for CCPP (9567
/// against UCI's 9568) and Bank (45210 against UCI's 45211); the paper's
/// values are kept.
pub const TABLE_1: [Table1Row; 7] = [
    t1("Ailerons", 11000, 2750, 41, [2100, 1640, 28400, 12100, 24600]),
    t1("Bank", 36168, 9042, 40, [2050, 1620, 28200, 12050, 24550]),
    t1("Bejing PM 2.5", 33406, 8351, 48, [2450, 1780, 29800, 12450, 24950]),
    t1("Bikes Sharing", 13903, 3476, 59, [3000, 2000, 32000, 13000, 25500]),
    t1("California", 16512, 4128, 9, [500, 1000, 22000, 10500, 23000]),
    t1("CCPP", 7654, 1913, 5, [300, 920, 21200, 10300, 22800]),
    t1("Mv", 32614, 8154, 13, [700, 1080, 22800, 10700, 23200]),
];

/// A cell pair of Table 2: index 0 = B2LD, 1 = LBFGS.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Best2 {
    /// Best objective (regularized training error) over the 10 runs.
    pub objective: [f64; 2],
    /// Norm of the gradient at that best point.
    pub gradient_norm: [f64; 2],
    /// CPU time of that run, seconds.
    pub cpu_seconds: [f64; 2],
}

/// Builds a [`Best2`] from the row as printed: objective, gradient norm and
/// CPU time, each B2LD then LBFGS.
const fn b2(f0: f64, f1: f64, g0: f64, g1: f64, t0: f64, t1: f64) -> Best2 {
    Best2 {
        objective: [f0, f1],
        gradient_norm: [g0, g1],
        cpu_seconds: [t0, t1],
    }
}

/// Table 2 ("Best result returned over 10 runs by the B2LD and LBFGS
/// methods"): `[architecture][dataset]` ([`ARCHITECTURES`] ×
/// [`DATASETS`] order, which is the paper's).
///
/// The time limit was 150 s, checked only every 30 iterations of LBFGS, which
/// the paper gives as the reason for times above 150 s. Four B2LD times are
/// above 150 s as well (Bank Marketing on `[200,50,200]`, 184.34 s, and Bank
/// Marketing, Bikes Sharing and Mv on [10 x 50], 188.25, 158.46 and
/// 167.36 s), which that explanation does not cover; they are kept as
/// printed.
pub const TABLE_2: [[Best2; 7]; 5] = [
    // [1 x 50]
    [
        // Ailerons
        b2(2.37e-3, 2.32e-3, 9.98e-4, 4.03e-4, 0.18, 3.04),
        // Bank Marketing
        b2(7.92e-5, 3.67e-5, 4.96e-4, 6.06e-4, 13.91, 29.77),
        // Bejing Pm25
        b2(4.79e-3, 5.32e-3, 8.57e-4, 2.25e-3, 9.16, 8.43),
        // Bikes Sharing
        b2(2.04e-3, 3.01e-3, 7.12e-4, 4.10e-3, 16.44, 11.58),
        // California
        b2(2.00e-2, 2.00e-2, 2.98e-4, 3.34e-3, 1.50, 2.99),
        // CCPP
        b2(3.35e-3, 3.53e-3, 5.88e-4, 6.87e-4, 0.08, 0.91),
        // Mv
        b2(2.93e-4, 2.68e-4, 7.18e-4, 4.90e-4, 20.90, 23.78),
    ],
    // [3 x 20]
    [
        // Ailerons
        b2(2.33e-3, 2.24e-3, 9.29e-4, 4.88e-4, 3.50, 3.62),
        // Bank Marketing
        b2(1.09e-4, 3.91e-5, 8.09e-4, 7.66e-4, 59.19, 17.45),
        // Bejing Pm25
        b2(4.45e-3, 7.60e-3, 9.48e-4, 1.36e-3, 6.24, 6.04),
        // Bikes Sharing
        b2(1.88e-3, 2.81e-3, 8.37e-4, 2.36e-3, 10.76, 16.54),
        // California
        b2(2.02e-2, 2.25e-2, 4.10e-4, 2.28e-3, 2.44, 1.56),
        // CCPP
        b2(3.47e-3, 3.35e-3, 3.89e-4, 3.38e-4, 1.51, 1.17),
        // Mv
        b2(2.92e-4, 2.17e-4, 7.71e-4, 3.70e-4, 23.86, 37.44),
    ],
    // [200,50,200]
    [
        // Ailerons
        b2(2.33e-3, 2.56e-3, 9.09e-4, 1.58e-3, 17.93, 36.77),
        // Bank Marketing
        b2(1.93e-4, 2.31e-4, 1.61e-3, 4.98e-3, 184.34, 151.09),
        // Bejing Pm25
        b2(4.59e-3, 5.76e-3, 8.44e-4, 2.59e-3, 137.09, 113.77),
        // Bikes Sharing
        b2(2.01e-3, 4.00e-3, 5.81e-4, 3.12e-3, 146.89, 132.06),
        // California
        b2(1.98e-2, 2.31e-2, 1.14e-2, 5.46e-3, 17.37, 15.41),
        // CCPP
        b2(3.50e-3, 3.70e-3, 7.04e-4, 8.17e-4, 6.67, 16.39),
        // Mv
        b2(2.49e-4, 9.73e-4, 7.84e-4, 5.59e-3, 145.32, 185.38),
    ],
    // [5 x 50]
    [
        // Ailerons
        b2(2.37e-3, 4.89e-3, 8.15e-4, 5.49e-3, 12.57, 10.52),
        // Bank Marketing
        b2(2.02e-4, 9.19e-5, 9.41e-4, 1.43e-3, 110.51, 152.88),
        // Bejing Pm25
        b2(5.03e-3, 7.26e-3, 5.38e-4, 1.34e-3, 42.72, 27.26),
        // Bikes Sharing
        b2(2.07e-3, 3.46e-2, 5.70e-4, 5.06e-3, 74.30, 1.81),
        // California
        b2(2.05e-2, 5.47e-2, 2.92e-3, 1.57e-3, 12.56, 1.46),
        // CCPP
        b2(3.79e-3, 4.45e-3, 4.54e-4, 1.54e-3, 7.33, 8.61),
        // Mv
        b2(3.59e-4, 7.76e-4, 6.12e-4, 8.38e-3, 131.44, 150.55),
    ],
    // [10 x 50]
    [
        // Ailerons
        b2(2.65e-3, 1.31e-2, 2.92e-2, 4.11e-5, 68.38, 1.95),
        // Bank Marketing
        b2(2.10e-3, 6.28e-2, 1.94e-1, 7.93e-5, 188.25, 6.77),
        // Bejing Pm25
        b2(8.59e-3, 8.74e-3, 8.18e-4, 1.77e-5, 0.21, 5.08),
        // Bikes Sharing
        b2(2.68e-3, 3.51e-2, 3.34e-2, 6.89e-5, 158.46, 2.65),
        // California
        b2(1.88e-2, 5.50e-2, 1.31e-1, 1.35e-4, 75.67, 2.65),
        // CCPP
        b2(4.89e-3, 5.16e-2, 1.61e-2, 1.12e-4, 17.05, 1.16),
        // Mv
        b2(3.20e-3, 5.53e-2, 1.76e-1, 1.16e-4, 167.36, 4.85),
    ],
];

/// `[#wins; #defs]` of B2LD versus LBFGS on the objective over the 10 runs
/// (a win or defeat is a difference above 5 %), Table 3:
/// `[dataset][architecture]` ([`DATASETS`] × [`ARCHITECTURES`]).
pub const TABLE_3: [[(u32, u32); 5]; 7] = [
    [(0, 0), (6, 2), (8, 0), (10, 0), (9, 0)],     // Ailerons
    [(0, 10), (5, 5), (4, 5), (8, 2), (10, 0)],    // Bank Marketing
    [(5, 0), (10, 0), (10, 0), (10, 0), (0, 0)],   // Bejing Pm25
    [(10, 0), (10, 0), (10, 0), (10, 0), (10, 0)], // Bikes Sharing
    [(8, 0), (10, 0), (10, 0), (10, 0), (10, 0)],  // California
    [(2, 0), (2, 6), (8, 0), (10, 0), (10, 0)],    // CCPP
    [(3, 5), (5, 3), (10, 0), (10, 0), (10, 0)],   // Mv
];

/// Table 4: `[#wins; #defs]` of B2LD versus LBFGS on the test error, same
/// layout as [`TABLE_3`].
pub const TABLE_4: [[(u32, u32); 5]; 7] = [
    [(0, 0), (6, 4), (7, 0), (10, 0), (9, 0)],     // Ailerons
    [(0, 9), (5, 5), (2, 8), (8, 2), (10, 0)],     // Bank Marketing
    [(5, 0), (10, 0), (10, 0), (10, 0), (0, 0)],   // Bejing Pm25
    [(10, 0), (10, 0), (10, 0), (10, 0), (10, 0)], // Bikes Sharing
    [(8, 0), (9, 0), (10, 0), (10, 0), (10, 0)],   // California
    [(0, 0), (1, 8), (8, 0), (9, 1), (10, 0)],     // CCPP
    [(3, 6), (4, 6), (10, 0), (8, 1), (10, 0)],    // Mv
];

/// Table 5: number of updates of layer ℓ = 0..=10 by B2LD during its best run
/// on [10 x 50], indexed like [`DATASETS`] (re-ordered from the paper's row
/// order: Mv, Bikes Sharing, Bejing PM 2.5, CCPP, Ailerons, California, Bank
/// Marketing). Layer 0 is the input layer's weights and layer 10 the output
/// weights (on Bejing PM 2.5 only the last layer is updated, as the text
/// says).
pub const TABLE_5: [[u32; 11]; 7] = [
    [33, 16, 24, 63, 4, 7, 4, 4, 4, 4, 21],  // Ailerons
    [30, 30, 30, 30, 1, 6, 2, 30, 1, 1, 5],  // Bank Marketing
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5],       // Bejing PM 2.5
    [120, 62, 35, 6, 62, 5, 4, 4, 4, 4, 18], // Bikes Sharing
    [28, 28, 39, 11, 2, 2, 2, 2, 2, 2, 13],  // California
    [11, 2, 2, 31, 2, 2, 2, 2, 2, 2, 4],     // CCPP
    [30, 30, 48, 8, 2, 2, 2, 2, 2, 2, 14],   // Mv
];

/// A cell pair of Table 6: index 0 = BLInG, 1 = IG.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Best6 {
    /// Best objective value over the 10 runs (60 s each).
    pub objective: [f64; 2],
    /// Test error of that best run.
    pub test_error: [f64; 2],
}

/// Builds a [`Best6`] from the row as printed: objective BLInG, IG, test
/// error BLInG, IG.
const fn b6(f0: f64, f1: f64, e0: f64, e1: f64) -> Best6 {
    Best6 {
        objective: [f0, f1],
        test_error: [e0, e1],
    }
}

/// Table 6 ("Best results returned over 10 runs by the BLInG and IG"):
/// `[architecture][dataset]`. The paper prints these with a decimal comma.
pub const TABLE_6: [[Best6; 7]; 5] = [
    // [1 x 50]
    [
        // Ailerons
        b6(2.01e-3, 1.99e-3, 1.98e-3, 1.93e-3),
        // Bank Marketing
        b6(2.45e-6, 2.01e-6, 2.83e-5, 1.29e-5),
        // Bejing PM 2.5
        b6(4.26e-3, 4.63e-3, 3.98e-3, 4.28e-3),
        // Bikes Sharing
        b6(1.79e-3, 2.21e-3, 1.95e-3, 2.38e-3),
        // California
        b6(1.69e-2, 1.89e-2, 1.74e-2, 1.93e-2),
        // CCPP
        b6(3.17e-3, 3.21e-3, 3.14e-3, 3.18e-3),
        // Mv
        b6(7.40e-5, 8.03e-5, 7.72e-5, 8.22e-5),
    ],
    // [3 x 20]
    [
        // Ailerons
        b6(2.02e-3, 2.05e-3, 1.94e-3, 2.00e-3),
        // Bank Marketing
        b6(2.40e-7, 1.26e-6, 1.07e-6, 4.24e-6),
        // Bejing PM 2.5
        b6(4.12e-3, 4.19e-3, 3.83e-3, 3.94e-3),
        // Bikes Sharing
        b6(1.78e-3, 1.80e-3, 1.87e-3, 1.93e-3),
        // California
        b6(1.61e-2, 1.65e-2, 1.68e-2, 1.74e-2),
        // CCPP
        b6(3.14e-3, 3.13e-3, 3.07e-3, 3.07e-3),
        // Mv
        b6(1.46e-5, 2.10e-5, 1.51e-5, 2.15e-5),
    ],
    // [200,50,200]
    [
        // Ailerons
        b6(2.09e-3, 2.14e-3, 2.03e-3, 2.07e-3),
        // Bank Marketing
        b6(7.14e-6, 2.16e-4, 1.59e-5, 3.22e-4),
        // Bejing PM 2.5
        b6(4.60e-3, 5.02e-3, 4.27e-3, 4.68e-3),
        // Bikes Sharing
        b6(2.52e-3, 3.10e-3, 2.53e-3, 3.11e-3),
        // California
        b6(1.81e-2, 2.15e-2, 1.90e-2, 2.22e-2),
        // CCPP
        b6(3.16e-3, 3.22e-3, 3.10e-3, 3.17e-3),
        // Mv
        b6(4.87e-5, 5.40e-4, 4.90e-5, 5.33e-4),
    ],
    // [5 x 50]
    [
        // Ailerons
        b6(2.04e-3, 2.10e-3, 1.99e-3, 2.04e-3),
        // Bank Marketing
        b6(6.99e-7, 1.18e-5, 2.46e-6, 2.13e-5),
        // Bejing PM 2.5
        b6(4.22e-3, 4.35e-3, 3.92e-3, 4.03e-3),
        // Bikes Sharing
        b6(2.02e-3, 2.19e-3, 2.15e-3, 2.32e-3),
        // California
        b6(1.68e-2, 1.77e-2, 1.73e-2, 1.83e-2),
        // CCPP
        b6(3.10e-3, 3.15e-3, 3.04e-3, 3.09e-3),
        // Mv
        b6(1.14e-5, 5.01e-5, 1.14e-5, 5.07e-5),
    ],
    // [10 x 50]
    [
        // Ailerons
        b6(2.13e-3, 2.17e-3, 2.12e-3, 2.12e-3),
        // Bank Marketing
        b6(8.32e-7, 5.01e-5, 7.45e-7, 4.19e-5),
        // Bejing PM 2.5
        b6(4.75e-3, 8.68e-3, 4.45e-3, 8.15e-3),
        // Bikes Sharing
        b6(2.88e-3, 4.16e-3, 2.95e-3, 4.31e-3),
        // California
        b6(1.80e-2, 5.49e-2, 1.88e-2, 5.81e-2),
        // CCPP
        b6(3.30e-3, 3.49e-3, 3.21e-3, 3.40e-3),
        // Mv
        b6(3.58e-4, 8.31e-4, 3.51e-4, 7.96e-4),
    ],
];

/// Table 7, `[#wins; #defs]` of BLInG versus IG over the 10 runs (a tie is
/// within 5 %), the objective-value half: `[dataset][architecture]`.
pub const TABLE_7_OBJECTIVE: [[(u32, u32); 5]; 7] = [
    [(0, 1), (0, 0), (2, 3), (1, 4), (9, 1)],   // Ailerons
    [(3, 7), (4, 6), (7, 3), (9, 1), (10, 0)],  // Bank Marketing
    [(10, 0), (0, 1), (4, 5), (1, 2), (6, 0)],  // Bejing Pm25
    [(10, 0), (0, 4), (8, 2), (4, 2), (10, 0)], // Bikes Sharing
    [(8, 0), (0, 0), (7, 3), (1, 1), (10, 0)],  // California
    [(0, 0), (0, 1), (3, 6), (0, 2), (5, 0)],   // CCPP
    [(5, 1), (5, 5), (9, 0), (10, 0), (10, 0)], // Mv
];

/// Table 7, the test-error half, same layout as [`TABLE_7_OBJECTIVE`].
pub const TABLE_7_TEST: [[(u32, u32); 5]; 7] = [
    [(0, 3), (0, 0), (2, 3), (1, 4), (9, 1)],   // Ailerons
    [(3, 7), (3, 7), (8, 2), (10, 0), (10, 0)], // Bank Marketing
    [(10, 0), (0, 0), (4, 5), (1, 2), (6, 0)],  // Bejing Pm25
    [(10, 0), (0, 3), (8, 2), (3, 2), (10, 0)], // Bikes Sharing
    [(6, 0), (0, 0), (7, 3), (1, 1), (10, 0)],  // California
    [(0, 0), (0, 1), (4, 6), (2, 2), (4, 0)],   // CCPP
    [(5, 1), (5, 5), (9, 0), (10, 0), (10, 0)], // Mv
];

/// Table 8: ratio of the best values of Table 6, **[10 x 50] / [1 x 50]**,
/// per data set ([`DATASETS`] order, which is the paper's): `[objective BLInG,
/// objective IG, test BLInG, test IG]`.
///
/// The caption says "Ratio between best value found in `[10x50]` and `[1x50]`"
/// but the column header prints "`[1x50]/[10x50]`"; the numbers are
/// `[10x50]/[1x50]` (Ailerons, BLInG objective: 2.13e-3 / 2.01e-3 = 1.06; Bank
/// Marketing, IG objective: 5.01e-5 / 2.01e-6 = 24.9), and the text's
/// "higher values mean that the algorithm has been harmed by the increased
/// depth" agrees. The tests check all 28 ratios against [`TABLE_6`] within
/// the rounding of the printed figures.
pub const TABLE_8: [[f64; 4]; 7] = [
    [1.06, 1.09, 1.07, 1.10],  // Ailerons
    [0.34, 24.91, 0.03, 3.25], // Bank Marketing
    [1.12, 1.88, 1.12, 1.91],  // Bejing PM 2.5
    [1.61, 1.89, 1.51, 1.81],  // Bikes Sharing
    [1.06, 2.91, 1.08, 3.01],  // California
    [1.04, 1.09, 1.02, 1.07],  // CCPP
    [4.84, 10.35, 4.54, 9.68], // Mv
];

/// The index in [`DATASETS`] of a paper name, case-insensitive and ignoring
/// spaces and punctuation. Accepts the spellings the paper uses across its
/// tables ("Bejing Pm25", "Bejing PM 2.5", "Bank", "Bank Marketing", "Bikes
/// Sharing", …) and the usual ones ("Beijing PM2.5", "Bike Sharing").
pub fn dataset_index(name: &str) -> Option<usize> {
    let key: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    let index = match key.as_str() {
        "ailerons" => 0,
        "bank" | "bankmarketing" => 1,
        "bejing" | "bejingpm25" | "beijing" | "beijingpm25" => 2,
        "bikes" | "bikessharing" | "bikesharing" => 3,
        "california" | "californiahousing" => 4,
        "ccpp" => 5,
        "mv" => 6,
        _ => return None,
    };
    Some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Weights of a bias-free network with `features` inputs, the hidden
    /// widths `hidden` and one output.
    fn weights(features: usize, hidden: &[usize]) -> usize {
        let mut count = features * hidden[0];
        for pair in hidden.windows(2) {
            count += pair[0] * pair[1];
        }
        count + hidden[hidden.len() - 1]
    }

    #[test]
    fn architectures_match_hidden_widths() {
        assert_eq!(HIDDEN[0], &[50]);
        assert_eq!(HIDDEN[1], &[20, 20, 20]);
        assert_eq!(HIDDEN[2], &[200, 50, 200]);
        assert_eq!(HIDDEN[3].len(), 5);
        assert_eq!(HIDDEN[4].len(), 10);
        assert!(HIDDEN[3].iter().chain(HIDDEN[4]).all(|&n| n == 50));
    }

    #[test]
    fn table_1_variables_are_bias_free_weight_counts() {
        for row in &TABLE_1 {
            for (a, hidden) in HIDDEN.iter().enumerate() {
                assert_eq!(
                    row.variables[a],
                    weights(row.features, hidden),
                    "{} on {}",
                    row.dataset,
                    ARCHITECTURES[a]
                );
            }
        }
    }

    #[test]
    fn table_1_sizes_sum_to_the_data_sets() {
        let total = |name: &str| {
            let row = &TABLE_1[dataset_index(name).unwrap()];
            row.train + row.test
        };
        assert_eq!(total("Mv"), 40768);
        assert_eq!(total("Bikes Sharing"), 17379);
        assert_eq!(total("Bejing PM 2.5"), 41757);
        assert_eq!(total("California"), 20640);
        assert_eq!(total("Ailerons"), 13750);
        // The paper's CCPP split is 7654 + 1913 = 9567, one short of UCI's
        // 9568 rows; the paper's value is kept.
        assert_eq!(total("CCPP"), 9567);
        // Likewise Bank: 36168 + 9042 = 45210, one short of UCI's 45211.
        assert_eq!(total("Bank"), 45210);
    }

    #[test]
    fn table_1_rows_are_in_datasets_order() {
        for (i, row) in TABLE_1.iter().enumerate() {
            assert_eq!(dataset_index(row.dataset), Some(i), "{}", row.dataset);
        }
    }

    #[test]
    fn dataset_names_resolve() {
        for (i, name) in DATASETS.iter().enumerate() {
            assert_eq!(dataset_index(name), Some(i));
        }
        assert_eq!(dataset_index("Bejing PM 2.5"), Some(2));
        assert_eq!(dataset_index("bejing pm25"), Some(2));
        assert_eq!(dataset_index("Beijing PM2.5"), Some(2));
        assert_eq!(dataset_index("Bank"), Some(1));
        assert_eq!(dataset_index("BIKES SHARING"), Some(3));
        assert_eq!(dataset_index("ccpp"), Some(5));
        assert_eq!(dataset_index("MNIST"), None);
    }

    #[test]
    fn win_counts_fit_in_ten_runs() {
        for (table, name) in [
            (&TABLE_3, "3"),
            (&TABLE_4, "4"),
            (&TABLE_7_OBJECTIVE, "7 objective"),
            (&TABLE_7_TEST, "7 test"),
        ] {
            for (d, row) in table.iter().enumerate() {
                for (a, &(wins, defs)) in row.iter().enumerate() {
                    assert!(
                        wins + defs <= 10,
                        "Table {name}, {} on {}",
                        DATASETS[d],
                        ARCHITECTURES[a]
                    );
                }
            }
        }
    }

    #[test]
    fn best_values_are_positive() {
        for arch in &TABLE_2 {
            for cell in arch {
                for v in cell
                    .objective
                    .iter()
                    .chain(&cell.gradient_norm)
                    .chain(&cell.cpu_seconds)
                {
                    assert!(*v > 0.0 && v.is_finite(), "{cell:?}");
                }
            }
        }
        for arch in &TABLE_6 {
            for cell in arch {
                for v in cell.objective.iter().chain(&cell.test_error) {
                    assert!(*v > 0.0 && v.is_finite(), "{cell:?}");
                }
            }
        }
        for row in &TABLE_8 {
            assert!(row.iter().all(|v| *v > 0.0 && v.is_finite()));
        }
    }

    #[test]
    fn table_5_only_last_layer_on_beijing() {
        let beijing = TABLE_5[dataset_index("Bejing PM 2.5").unwrap()];
        assert!(beijing[..10].iter().all(|&n| n == 0));
        assert_eq!(beijing[10], 5);
    }

    /// Half a unit in the last printed place of a three-significant-figure
    /// value.
    fn half_unit(x: f64) -> f64 {
        0.005 * 10f64.powf((x.log10() + 1e-9).floor())
    }

    #[test]
    fn table_8_is_ratio_of_table_6_deep_over_shallow() {
        for (d, row) in TABLE_8.iter().enumerate() {
            let (shallow, deep) = (&TABLE_6[0][d], &TABLE_6[4][d]);
            let pairs = [
                (deep.objective[0], shallow.objective[0]),
                (deep.objective[1], shallow.objective[1]),
                (deep.test_error[0], shallow.test_error[0]),
                (deep.test_error[1], shallow.test_error[1]),
            ];
            for (k, (num, den)) in pairs.into_iter().enumerate() {
                let low = (num - half_unit(num)) / (den + half_unit(den));
                let high = (num + half_unit(num)) / (den - half_unit(den));
                // The printed ratio has two decimals.
                assert!(
                    row[k] + 0.005 >= low && row[k] - 0.005 <= high,
                    "{} column {k}: printed {} but Table 6 gives {}",
                    DATASETS[d],
                    row[k],
                    num / den
                );
            }
        }
    }

    #[test]
    fn spot_values() {
        // Table 1: first and last cell (DATASETS order).
        assert_eq!(
            TABLE_1[0],
            t1("Ailerons", 11000, 2750, 41, [2100, 1640, 28400, 12100, 24600])
        );
        assert_eq!(TABLE_1[6].variables[4], 23200);
        assert_eq!(TABLE_1[6].train, 32614);
        // Table 2: Ailerons [1 x 50] and Mv [10 x 50].
        assert_eq!(TABLE_2[0][0].objective, [2.37e-3, 2.32e-3]);
        assert_eq!(TABLE_2[0][0].cpu_seconds, [0.18, 3.04]);
        assert_eq!(TABLE_2[4][6].gradient_norm, [1.76e-1, 1.16e-4]);
        assert_eq!(TABLE_2[4][6].cpu_seconds, [167.36, 4.85]);
        assert_eq!(TABLE_2[4][1].gradient_norm[0], 1.94e-1);
        // Tables 3 and 4.
        assert_eq!(TABLE_3[0][0], (0, 0));
        assert_eq!(TABLE_3[1][0], (0, 10));
        assert_eq!(TABLE_3[6][4], (10, 0));
        assert_eq!(TABLE_4[0][1], (6, 4));
        assert_eq!(TABLE_4[6][3], (8, 1));
        // Table 5: Ailerons and Mv (paper rows 5 and 1).
        assert_eq!(TABLE_5[0][0], 33);
        assert_eq!(TABLE_5[6], [30, 30, 48, 8, 2, 2, 2, 2, 2, 2, 14]);
        assert_eq!(TABLE_5[3][0], 120);
        // Table 6.
        assert_eq!(TABLE_6[0][0], b6(2.01e-3, 1.99e-3, 1.98e-3, 1.93e-3));
        assert_eq!(TABLE_6[4][6], b6(3.58e-4, 8.31e-4, 3.51e-4, 7.96e-4));
        // Table 7.
        assert_eq!(TABLE_7_OBJECTIVE[0][0], (0, 1));
        assert_eq!(TABLE_7_OBJECTIVE[6][4], (10, 0));
        assert_eq!(TABLE_7_TEST[0][0], (0, 3));
        assert_eq!(TABLE_7_TEST[5][4], (4, 0));
        // Table 8.
        assert_eq!(TABLE_8[0], [1.06, 1.09, 1.07, 1.10]);
        assert_eq!(TABLE_8[6], [4.84, 10.35, 4.54, 9.68]);
    }
}
