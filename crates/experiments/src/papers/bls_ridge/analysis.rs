//! Analysis of the cells: means over seeds, each family's best (Fig. 1's
//! comparison, by means and paired by seed) and Table VI's accumulated time
//! by code version.

use std::collections::BTreeSet;

use linalg_core::ridge::Strategy;

use super::cell::Cell;
use super::published::{PAPER_TABLE6_ACCUMULATED_SPEEDUPS, TABLE6};
use crate::report::Table;

/// Mean and standard deviation over seeds, `None` where a seed failed.
pub(super) type MeanStd = Option<(f64, Option<f64>)>;

/// Mean and sample standard deviation (`None` for fewer than two values).
pub(super) use crate::report::stats::mean_sd as mean_std;

/// One family's best run at one λ: strategy, maximum mean accuracy, the
/// update where it is reached, and the accuracy after the last update
/// (`None` if the strategy failed before it).
pub(super) struct FamilyBest {
    pub(super) strategy: Strategy,
    pub(super) max: f64,
    pub(super) at_update: usize,
    pub(super) last: Option<f64>,
}

/// The generalized-inverse family (the BLS papers' Orig. and Exg-E).
pub(super) const GENERALIZED_INVERSE: [Strategy; 2] = [Strategy::Orig, Strategy::ExgE];
/// The ridge family (Chol-1, Chol-2, R-Inv, D-Rdg).
pub(super) const RIDGE: [Strategy; 4] = [Strategy::Chol1, Strategy::Chol2, Strategy::RInv, Strategy::DRdg];

pub(super) fn family_best(
    strategies: &[Strategy],
    per: &dyn Fn(Strategy) -> Option<Vec<MeanStd>>,
    nu: usize,
) -> Option<FamilyBest> {
    strategies
        .iter()
        .filter_map(|&s| {
            let per = per(s)?;
            let (at_update, max) = per
                .iter()
                .enumerate()
                .filter_map(|(u, v)| v.map(|x| (u, x.0)))
                .max_by(|a, b| a.1.total_cmp(&b.1))?;
            let last = per.get(nu - 1).copied().flatten().map(|x| x.0);
            Some(FamilyBest {
                strategy: s,
                max,
                at_update,
                last,
            })
        })
        .max_by(|a, b| a.max.total_cmp(&b.max))
}

/// The Fig. 1 comparison per λ: the best generalized-inverse and the best
/// ridge strategy, where each peaks, where each ends, and which is higher.
pub(super) fn family_table(lambdas: &[i32], per: impl Fn(i32, Strategy) -> Option<Vec<MeanStd>>, nu: usize) -> Table {
    let mut t = Table::new(&[
        "λ",
        "generalized inverse: max (strategy, update)",
        "its last update",
        "ridge: max (strategy, update)",
        "its last update",
        "higher maximum",
    ]);
    let fmt = |b: &Option<FamilyBest>| match b {
        Some(b) => (
            format!("{:.2} ({}, {})", b.max, b.strategy.paper_name(), b.at_update),
            b.last.map_or("NA".into(), |v| format!("{v:.2}")),
        ),
        None => ("—".into(), "—".into()),
    };
    for &e in lambdas {
        let g = family_best(&[Strategy::Orig, Strategy::ExgE], &|s| per(e, s), nu);
        let r = family_best(
            &[Strategy::Chol1, Strategy::Chol2, Strategy::RInv, Strategy::DRdg],
            &|s| per(e, s),
            nu,
        );
        let higher = match (&g, &r) {
            (Some(g), Some(r)) if r.max > g.max => "ridge",
            (Some(g), Some(r)) if g.max > r.max => "generalized inverse",
            (Some(_), Some(_)) => "equal",
            _ => "—",
        };
        let ((gm, gl), (rm, rl)) = (fmt(&g), fmt(&r));
        t.push(vec![format!("2^{e}"), gm, gl, rm, rl, higher.into()]);
    }
    t
}

/// Each family's best maximum on one seed: the strategies reaching it
/// (ties are common: the ridge solutions agree to the last test image at
/// larger λ), joined by " = ", and the maximum test accuracy over the
/// updates they completed.
fn seed_family_best<'c>(cells: impl Iterator<Item = &'c Cell>, family: &[Strategy]) -> Option<(String, f64)> {
    let maxima: Vec<(Strategy, f64)> = cells
        .filter_map(|c| {
            let s = Some(c.strategy).filter(|s| family.contains(s))?;
            let max = c.accuracy.iter().flatten().copied().max_by(f64::total_cmp)?;
            Some((s, max))
        })
        .collect();
    let best = maxima.iter().map(|m| m.1).max_by(f64::total_cmp)?;
    // In the family's order, so the name does not depend on file order.
    let names: Vec<&str> = family
        .iter()
        .filter(|s| maxima.iter().any(|m| m.0 == **s && m.1 == best))
        .map(|s| s.paper_name())
        .collect();
    Some((names.join(" = "), best))
}

/// Per λ (ascending, as given), on every seed where both families ran:
/// `"seed: strategy max vs strategy max"` and the difference ridge −
/// generalized inverse of the families' best maxima on that seed.
pub(super) fn paired_differences(lambdas: &[i32], cells: &[&Cell]) -> Vec<(i32, Vec<(String, f64)>)> {
    lambdas
        .iter()
        .map(|&e| {
            let seeds: BTreeSet<u64> = cells.iter().filter(|c| c.lambda_exp == e).map(|c| c.seed).collect();
            let per_seed = seeds
                .into_iter()
                .filter_map(|seed| {
                    let on_seed = || {
                        cells
                            .iter()
                            .copied()
                            .filter(move |c| c.lambda_exp == e && c.seed == seed)
                    };
                    let (gs, g) = seed_family_best(on_seed(), &GENERALIZED_INVERSE)?;
                    let (rs, r) = seed_family_best(on_seed(), &RIDGE)?;
                    Some((format!("{seed}: {gs} {g:.2} vs {rs} {r:.2}"), r - g))
                })
                .collect();
            (e, per_seed)
        })
        .collect()
}

/// The Fig. 1 comparison paired by seed: on every seed where both families
/// ran at a λ, each family's best maximum on that seed (over the strategies
/// that ran on it), the difference ridge − generalized inverse, and on how
/// many seeds ridge is higher. Unlike [`family_table`], which compares
/// means over whatever seeds each strategy has, both sides here share the
/// same random networks. `cells` should hold one precision per strategy.
pub(super) fn paired_family_table(lambdas: &[i32], cells: &[&Cell]) -> Table {
    let mut t = Table::new(&[
        "λ",
        "seeds",
        "per seed: generalized inverse vs ridge maximum",
        "ridge − generalized inverse: mean (std)",
        "ridge higher on",
    ]);
    for (e, per_seed) in paired_differences(lambdas, cells) {
        if per_seed.is_empty() {
            t.push(vec![format!("2^{e}"), "0".into(), "—".into(), "—".into(), "—".into()]);
            continue;
        }
        let diffs: Vec<f64> = per_seed.iter().map(|p| p.1).collect();
        let entries: Vec<&str> = per_seed.iter().map(|p| p.0.as_str()).collect();
        let (mean, sd) = mean_std(&diffs);
        let higher = diffs.iter().filter(|&&d| d > 0.0).count();
        t.push(vec![
            format!("2^{e}"),
            diffs.len().to_string(),
            entries.join("; "),
            match sd {
                Some(sd) => format!("{mean:+.2} ({sd:.2})"),
                None => format!("{mean:+.2}"),
            },
            format!("{higher} of {}", diffs.len()),
        ]);
    }
    t
}

/// Where our paired comparison agrees with the paper's finding (ridge
/// above the generalized inverse at every λ) and where it does not: the λ
/// at which ridge is higher on every seed, lower on every seed, and mixed,
/// with the mean differences of the lower ones.
pub(super) fn finding_against_ours(lambdas: &[i32], cells: &[&Cell]) -> String {
    let (mut above, mut below, mut mixed) = (vec![], vec![], vec![]);
    for (e, per_seed) in paired_differences(lambdas, cells) {
        if per_seed.is_empty() {
            continue;
        }
        let diffs: Vec<f64> = per_seed.iter().map(|p| p.1).collect();
        let mean = mean_std(&diffs).0;
        let n = diffs.len();
        if diffs.iter().all(|&d| d > 0.0) {
            above.push(format!("2^{e}"));
        } else if diffs.iter().all(|&d| d < 0.0) {
            below.push(format!("2^{e} ({mean:+.2} points, {n} of {n} seeds)"));
        } else {
            mixed.push(format!("2^{e} ({mean:+.2})"));
        }
    }
    let list = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    format!(
        "Ours, paired by seed (table below): ridge higher on every seed at λ = {}; lower on every seed at λ = {}; mixed at {}.",
        list(&above),
        list(&below),
        list(&mixed)
    )
}

/// `mean (std)`, or the mean alone when one seed ran, or `NA` after a failure.
pub(super) fn fmt_acc(v: MeanStd) -> String {
    match v {
        Some((m, Some(sd))) => format!("{m:.2} ({sd:.2})"),
        Some((m, None)) => format!("{m:.2}"),
        None => "NA".into(),
    }
}

/// Table VI's accumulated solver time split by code version: the complete
/// cells that copied the initial `A` into the solver (run before
/// `Strategy::build` taking an owned `A`) and those whose solver took it over, with
/// Chol-1's accumulated speedups computed within each group, so that a
/// speedup never divides one version's time by the other's. `nu`: the
/// schedule's updates + 1 (a cell is complete when it timed all of them).
pub(super) fn accumulated_by_version(cells: &[Cell], nu: usize) -> Table {
    let mean = |s: Strategy, taken: bool| -> Option<(f64, usize)> {
        let v: Vec<f64> = cells
            .iter()
            .filter(|c| c.strategy == s && c.solver_seconds.len() == nu && c.initial_a_taken == taken)
            .map(|c| c.solver_seconds.iter().sum())
            .collect();
        (!v.is_empty()).then(|| (v.iter().sum::<f64>() / v.len() as f64, v.len()))
    };
    let mut t = Table::new(&[
        "accumulated solver s (mean)",
        "cells that copied A",
        "cells whose solver took A over",
    ]);
    let shown = |m: Option<(f64, usize)>| m.map_or("—".into(), |(v, n)| format!("{v:.1} ({n} cells)"));
    for s in TABLE6 {
        t.push(vec![s.paper_name().into(), shown(mean(s, false)), shown(mean(s, true))]);
    }
    let speedup = |other: Strategy, taken: bool| match (mean(other, taken), mean(Strategy::Chol1, taken)) {
        (Some((a, _)), Some((b, _))) => format!("{:.2}", a / b),
        _ => "—".into(),
    };
    // The paper's accumulated speedups as printed in its Table VI's last row (1.99 and 1.53).
    let paper_total = |s: Strategy| -> f64 {
        let last = PAPER_TABLE6_ACCUMULATED_SPEEDUPS[PAPER_TABLE6_ACCUMULATED_SPEEDUPS.len() - 1];
        if s == Strategy::Orig {
            last[0]
        } else {
            last[1]
        }
    };
    for other in [Strategy::Orig, Strategy::ExgE] {
        t.push(vec![
            format!("Chol-1 vs {} (paper: {:.2})", other.paper_name(), paper_total(other)),
            speedup(other, false),
            speedup(other, true),
        ]);
    }
    t
}

/// Mean solver seconds, flops and fraction of each cell's own DGEMM peak of
/// one strategy at one update, over its cells that completed the schedule.
#[derive(Clone, Copy, Debug)]
pub(super) struct MeanTime {
    /// Solver seconds.
    pub seconds: f64,
    /// Solver flops.
    pub flops: f64,
    /// Achieved rate over the DGEMM peak of the run that made each cell.
    pub fraction_of_peak: f64,
}

/// [`MeanTime`] per update (rows) and Table VI strategy (columns, in
/// [`TABLE6`]'s order); `nu` = updates + 1, `peak` the fallback DGEMM rate
/// for cells that did not store theirs.
pub(super) fn mean_times(cells: &[Cell], nu: usize, peak: f64) -> Vec<Vec<Option<MeanTime>>> {
    let mean_time = |s: Strategy, u: usize| -> Option<MeanTime> {
        let v: Vec<(f64, f64, f64)> = cells
            .iter()
            .filter(|c| c.strategy == s && c.solver_seconds.len() == nu)
            .map(|c| (c.solver_seconds[u], c.flops[u] as f64, c.fraction_of_peak(u, peak)))
            .collect();
        (!v.is_empty()).then(|| {
            let n = v.len() as f64;
            MeanTime {
                seconds: v.iter().map(|x| x.0).sum::<f64>() / n,
                flops: v.iter().map(|x| x.1).sum::<f64>() / n,
                fraction_of_peak: v.iter().map(|x| x.2).sum::<f64>() / n,
            }
        })
    };
    (0..nu)
        .map(|u| TABLE6.iter().map(|&s| mean_time(s, u)).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::papers::bls_ridge::cell::fixtures::timed_cell;

    #[test]
    fn mean_and_sample_std_by_hand() {
        // Mean 2, squared deviations 1 + 0 + 1 over n − 1 = 2: sd = 1.
        assert_eq!(mean_std(&[1.0, 2.0, 3.0]), (2.0, Some(1.0)));
        assert_eq!(fmt_acc(Some(mean_std(&[1.0, 2.0, 3.0]))), "2.00 (1.00)");
        // One seed: no spread to report, not a spread of zero.
        assert_eq!(mean_std(&[98.6]), (98.6, None));
        assert_eq!(fmt_acc(Some(mean_std(&[98.6]))), "98.60");
        assert_eq!(fmt_acc(None), "NA");
    }

    /// Chol-1's speedups are taken within one code version: a cell that
    /// copied `A` is never divided by one that took it over, and failed
    /// (incomplete) cells are left out.
    #[test]
    fn accumulated_time_is_split_by_code_version() {
        let cell = |strategy: Strategy, secs: [f64; 2], taken: bool| Cell {
            strategy,
            solver_seconds: secs.to_vec(),
            initial_a_taken: taken,
            ..timed_cell(1, 1.0, None)
        };
        let cells = [
            cell(Strategy::Orig, [10.0, 30.0], false),
            cell(Strategy::Orig, [20.0, 40.0], false),
            cell(Strategy::ExgE, [6.0, 18.0], false),
            cell(Strategy::Chol1, [4.0, 11.0], false),
            cell(Strategy::Orig, [8.0, 28.0], true),
            cell(Strategy::Chol1, [3.0, 9.0], true),
            // Failed after update 0: not complete, not counted.
            Cell {
                solver_seconds: vec![1.0],
                ..cell(Strategy::Chol1, [0.0, 0.0], true)
            },
        ];
        let md = accumulated_by_version(&cells, 2).markdown();
        // Orig.: copied (40 + 60) / 2 = 50 over 2 cells; took over 36.
        assert!(md.contains("| Orig. | 50.0 (2 cells) | 36.0 (1 cells) |"), "{md}");
        assert!(md.contains("| Chol-1 | 15.0 (1 cells) | 12.0 (1 cells) |"), "{md}");
        assert!(md.contains("| Exg-E | 24.0 (1 cells) | — |"), "{md}");
        assert!(md.contains("| R-Inv | — | — |"), "{md}");
        // 50 / 15 and 36 / 12 (not 50 / 12 or 36 / 15).
        assert!(md.contains("| Chol-1 vs Orig. (paper: 1.99) | 3.33 | 3.00 |"), "{md}");
        // No Exg-E cell took A over: no speedup there.
        assert!(md.contains("| Chol-1 vs Exg-E (paper: 1.53) | 1.60 | — |"), "{md}");
    }

    /// Hand-made cells: the paired table compares each family's best on
    /// the same seed, skips seeds where one family did not run, ignores a
    /// failed cell's missing updates, and signs the difference ridge − GI.
    #[test]
    fn paired_family_table_compares_on_shared_seeds() {
        let cell = |seed: u64, e: i32, s: Strategy, acc: &[Option<f64>]| Cell {
            seed,
            lambda_exp: e,
            strategy: s,
            accuracy: acc.to_vec(),
            ..timed_cell(1, 1.0, None)
        };
        let cells = [
            cell(0, -10, Strategy::Orig, &[Some(95.0), Some(97.0), Some(90.0)]),
            cell(0, -10, Strategy::ExgE, &[Some(95.0), Some(97.5), Some(80.0)]),
            cell(0, -10, Strategy::Chol2, &[Some(95.0), Some(96.5), Some(96.9)]),
            cell(0, -10, Strategy::DRdg, &[Some(95.0), Some(96.8), Some(97.0)]),
            cell(1, -10, Strategy::ExgE, &[Some(94.0), Some(97.0), Some(75.0)]),
            cell(1, -10, Strategy::Chol2, &[Some(94.0), Some(96.0), Some(97.3)]),
            cell(1, -10, Strategy::Chol1, &[None, None, None]),
            // A tie with Chol-2 on seed 1: both are named, in family order.
            cell(1, -10, Strategy::RInv, &[Some(94.0), Some(96.0), Some(97.3)]),
            // Seed 2 has no ridge cell: not compared.
            cell(2, -10, Strategy::ExgE, &[Some(96.0), Some(99.0), Some(70.0)]),
            cell(0, -30, Strategy::Orig, &[Some(98.0), Some(98.5), None]),
            cell(0, -30, Strategy::Chol2, &[Some(98.0), Some(98.4), Some(98.8)]),
        ];
        let refs: Vec<&Cell> = cells.iter().collect();
        let t = paired_family_table(&[-30, -10, -5], &refs);
        assert_eq!(
            t.rows[0],
            ["2^-30", "1", "0: Orig. 98.50 vs Chol-2 98.80", "+0.30", "1 of 1"]
        );
        assert_eq!(
            t.rows[1],
            [
                "2^-10",
                "2",
                "0: Exg-E 97.50 vs D-Rdg 97.00; 1: Exg-E 97.00 vs Chol-2 = R-Inv 97.30",
                // Differences −0.50 and +0.30: mean −0.10, sd √(2 · 0.4²) = 0.566.
                "-0.10 (0.57)",
                "1 of 2"
            ]
        );
        assert_eq!(t.rows[2], ["2^-5", "0", "—", "—", "—"]);
    }

    /// Hand-made curves: the generalized inverse peaks at update 1 and
    /// falls; Chol-1 fails after update 1; Chol-2 keeps rising.
    #[test]
    fn family_table_picks_each_familys_best_and_the_higher() {
        let one = |v: &[Option<f64>]| v.iter().map(|x| x.map(|m| (m, None))).collect::<Vec<MeanStd>>();
        let per = |e: i32, s: Strategy| -> Option<Vec<MeanStd>> {
            match (e, s) {
                (-30, Strategy::Orig) => Some(one(&[Some(98.0), Some(98.7), Some(95.0)])),
                (-30, Strategy::ExgE) => Some(one(&[Some(98.0), Some(98.6), Some(96.0)])),
                (-30, Strategy::Chol1) => Some(one(&[Some(98.0), Some(98.4), None])),
                (-30, Strategy::Chol2) => Some(one(&[Some(98.0), Some(98.4), Some(98.8)])),
                (-5, Strategy::ExgE) => Some(one(&[Some(93.0), Some(96.7), Some(82.8)])),
                (-5, Strategy::Chol1) => Some(one(&[Some(93.0), Some(94.0), Some(95.0)])),
                _ => None,
            }
        };
        let t = family_table(&[-30, -5, -10], per, 3);
        assert_eq!(
            t.rows[0],
            [
                "2^-30",
                "98.70 (Orig., 1)",
                "95.00",
                "98.80 (Chol-2, 2)",
                "98.80",
                "ridge"
            ]
        );
        assert_eq!(
            t.rows[1],
            [
                "2^-5",
                "96.70 (Exg-E, 1)",
                "82.80",
                "95.00 (Chol-1, 2)",
                "95.00",
                "generalized inverse"
            ]
        );
        assert_eq!(t.rows[2], ["2^-10", "—", "—", "—", "—", "—"]);
    }
}
