//! The paper's headline claims, judged from the cells
//! ([`crate::report::claims`]): B2LD against L-BFGS (Sec. 5.1: Table 2,
//! Figure 2, Tables 3–4) and BLInG against IG (Sec. 5.2: Tables 6–8).
//! Every count is made by one rule on the paper's tables and on ours, over
//! the data sets and networks this run included.

use super::cell::CellResult;
use super::protocol::{Options, SOURCES};
use super::published::{self, Best2, Best6};
use super::report::{best, select, values, wins_defeats};
use crate::report::claims::{all_of, share, single, Claim};

/// The deepest network of the paper, `[10 x 50]`, and the shallowest, `[1 x 50]`.
const DEEPEST: usize = 4;
const SHALLOWEST: usize = 0;

/// The `(data set, network)` pairs the run included.
fn pairs(opts: &Options) -> Vec<(usize, usize)> {
    SOURCES
        .iter()
        .enumerate()
        .filter(|(_, s)| opts.includes(s))
        .flat_map(|(d, _)| opts.architectures.iter().map(move |&a| (d, a)))
        .collect()
}

/// The best run (lowest objective) of `method` on data set `d`, network `a`.
fn best_of<'a>(cells: &'a [CellResult], d: usize, a: usize, method: &str) -> Option<&'a CellResult> {
    best(&select(cells, SOURCES[d].key, a, method))
}

/// Of the pairs where both methods ran, on how many `holds(first, second)`
/// for our best runs, and for the paper's (`paper(d, a)`): `(ours, of, paper)`.
fn count_pairs(
    opts: &Options,
    cells: &[CellResult],
    [first, second]: [&str; 2],
    ours: impl Fn(&CellResult, &CellResult) -> bool,
    paper: impl Fn(usize, usize) -> bool,
) -> (usize, usize, usize) {
    let (mut k, mut n, mut p) = (0, 0, 0);
    for (d, a) in pairs(opts) {
        if let (Some(x), Some(y)) = (best_of(cells, d, a, first), best_of(cells, d, a, second)) {
            n += 1;
            k += usize::from(ours(x, y));
            p += usize::from(paper(d, a));
        }
    }
    (k, n, p)
}

fn t2(d: usize, a: usize) -> Best2 {
    published::TABLE_2[a][d]
}

fn t6(d: usize, a: usize) -> Best6 {
    published::TABLE_6[a][d]
}

/// A count claim on the pairs, judged by the share rule.
fn pair_claim(claim: &str, source: &str, (k, n, p): (usize, usize, usize), caveat: String) -> Claim {
    Claim {
        claim: claim.into(),
        source: source.into(),
        verdict: share(k, n, p, n),
        ours: format!("{k} of {n} (data set, network) pairs"),
        paper: format!("{p} of {n} on the same pairs"),
        caveat,
    }
}

/// The time limits of this run against the paper's 150 s and 60 s.
fn limits(opts: &Options) -> String {
    format!(
        "time limits {} s and {} s for the paper's 150 s and 60 s",
        opts.batch_limit.as_secs_f64(),
        opts.minibatch_limit.as_secs_f64()
    )
}

/// The data sets (by index) the run included, when it ran both the
/// shallowest and the deepest network (none otherwise): the sets a depth
/// comparison is made on.
fn depth_sets(opts: &Options) -> Vec<usize> {
    if !(opts.architectures.contains(&SHALLOWEST) && opts.architectures.contains(&DEEPEST)) {
        return vec![];
    }
    (0..SOURCES.len()).filter(|&d| opts.includes(&SOURCES[d])).collect()
}

/// Per data set with both networks run: whether `deeper_worse(d)` (the
/// ratio of the best value on `[10 x 50]` to that on `[1 x 50]` is worse for
/// the first method than for the second), ours and the paper's.
fn depth_claim(
    opts: &Options,
    cells: &[CellResult],
    [first, second]: [&str; 2],
    paper_ratios: impl Fn(usize) -> (f64, f64),
) -> (usize, usize, usize) {
    let (mut k, mut n, mut p) = (0, 0, 0);
    for d in depth_sets(opts) {
        let ratio = |m: &str| -> Option<f64> {
            Some(best_of(cells, d, DEEPEST, m)?.objective / best_of(cells, d, SHALLOWEST, m)?.objective)
        };
        if let (Some(r1), Some(r2)) = (ratio(first), ratio(second)) {
            n += 1;
            k += usize::from(r1 < r2);
            let (p1, p2) = paper_ratios(d);
            p += usize::from(p1 < p2);
        }
    }
    (k, n, p)
}

/// Per data set: whether the first method's net wins (`wins − defeats`,
/// run by run) are more on `[10 x 50]` than on `[1 x 50]`, ours and the
/// paper's (`paper[d][a]`).
fn growth_claim(
    opts: &Options,
    cells: &[CellResult],
    [first, second]: [&str; 2],
    value: fn(&CellResult) -> f64,
    paper: &[[(u32, u32); 5]; 7],
) -> (usize, usize, usize) {
    let (mut k, mut n, mut p) = (0, 0, 0);
    let net = |(w, d): (u32, u32)| i64::from(w) - i64::from(d);
    for d in depth_sets(opts) {
        let s = &SOURCES[d];
        let ours = |a: usize| {
            wins_defeats(
                &values(&select(cells, s.key, a, first), value),
                &values(&select(cells, s.key, a, second), value),
            )
        };
        n += 1;
        k += usize::from(net(ours(DEEPEST)) > net(ours(SHALLOWEST)));
        p += usize::from(net(paper[d][DEEPEST]) > net(paper[d][SHALLOWEST]));
    }
    (k, n, p)
}

/// The summed `[wins; defeats]` of the first method over the pairs run,
/// ours and the paper's, with and without `bank` (whose objective the
/// paper computed on another target: not comparable).
fn totals(
    opts: &Options,
    cells: &[CellResult],
    [first, second]: [&str; 2],
    value: fn(&CellResult) -> f64,
    paper: &[[(u32, u32); 5]; 7],
) -> [[(u32, u32); 2]; 2] {
    let mut t = [[(0u32, 0u32); 2]; 2];
    for (d, a) in pairs(opts) {
        let s = &SOURCES[d];
        let ours = wins_defeats(
            &values(&select(cells, s.key, a, first), value),
            &values(&select(cells, s.key, a, second), value),
        );
        for with_bank in [true, false] {
            if !with_bank && s.key == "bank" {
                continue;
            }
            let i = usize::from(!with_bank);
            t[i][0].0 += ours.0;
            t[i][0].1 += ours.1;
            t[i][1].0 += paper[d][a].0;
            t[i][1].1 += paper[d][a].1;
        }
    }
    t
}

fn sums_claim(claim: &str, source: &str, objective: [[(u32, u32); 2]; 2], test: [[(u32, u32); 2]; 2]) -> Claim {
    let pair = |(w, d): (u32, u32)| format!("[{w}; {d}]");
    let holds = |t: &[[(u32, u32); 2]; 2], who: usize| t[0][who].0 > t[0][who].1;
    let ran = objective[0][0] != (0, 0) || test[0][0] != (0, 0);
    Claim {
        claim: claim.into(),
        source: source.into(),
        verdict: single(ran.then(|| holds(&objective, 0) && holds(&test, 0))),
        ours: format!(
            "objective {}, test {}; without Bank {}, {}",
            pair(objective[0][0]),
            pair(test[0][0]),
            pair(objective[1][0]),
            pair(test[1][0])
        ),
        paper: format!(
            "objective {}, test {}; without Bank {}, {}",
            pair(objective[0][1]),
            pair(test[0][1]),
            pair(objective[1][1]),
            pair(test[1][1])
        ),
        caveat: "Bank's objective values are not comparable with the paper's (its target or coding was another)".into(),
    }
}

/// Table 5's pattern on one network's updates per layer (first layer
/// first): the first and the last layer each updated more often than the
/// median of the middle layers.
fn ends_updated_more(updates: &[u32]) -> bool {
    let Some((&first, rest)) = updates.split_first() else {
        return false;
    };
    let Some((&last, middle)) = rest.split_last() else {
        return false;
    };
    let mut m = middle.to_vec();
    m.sort_unstable();
    let median = match m.len() {
        0 => return false,
        n if n % 2 == 1 => f64::from(m[n / 2]),
        n => 0.5 * (f64::from(m[n / 2 - 1]) + f64::from(m[n / 2])),
    };
    f64::from(first) > median && f64::from(last) > median
}

/// Table 5: on how many data sets the best B2LD run on `[10 x 50]` shows
/// the pattern, ours and the paper's, and whether on Beijing PM2.5 only
/// the last layer moved (ours, when run; the paper's).
fn table5_claims(opts: &Options, cells: &[CellResult]) -> [Claim; 2] {
    let (mut k, mut n, mut p) = (0, 0, 0);
    let mut pm25: Option<bool> = None;
    if opts.architectures.contains(&DEEPEST) {
        for (d, s) in SOURCES.iter().enumerate().filter(|(_, s)| opts.includes(s)) {
            let Some(b) = best_of(cells, d, DEEPEST, "b2ld") else {
                continue;
            };
            let ours: Vec<u32> = b
                .updates_per_layer
                .iter()
                .map(|&u| u32::try_from(u).unwrap_or(u32::MAX))
                .collect();
            n += 1;
            k += usize::from(ends_updated_more(&ours));
            p += usize::from(ends_updated_more(&published::TABLE_5[d]));
            if s.key == "pm25" {
                pm25 = Some(ours.split_last().is_some_and(|(_, rest)| rest.iter().all(|&u| u == 0)));
            }
        }
    }
    let paper_pm25 = SOURCES.iter().position(|s| s.key == "pm25").is_some_and(|d| {
        published::TABLE_5[d]
            .split_last()
            .is_some_and(|(_, rest)| rest.iter().all(|&u| u == 0))
    });
    [
        Claim {
            claim: "B2LD updates the first and last layers of [10 x 50] much more often than the middle ones".into(),
            source: "Sec. 5.1, Table 5".into(),
            verdict: share(k, n, p, n),
            ours: format!("on {k} of {n} data sets (first and last above the middle layers' median)"),
            paper: format!("on {p} of {n} by the same rule"),
            caveat: limits(opts),
        },
        Claim {
            claim: "on Beijing PM2.5 B2LD updates only the last layer of [10 x 50]".into(),
            source: "Sec. 5.1, Table 5".into(),
            verdict: single(pm25),
            ours: pm25.map_or("—".into(), |o| {
                if o {
                    "only the last".into()
                } else {
                    "other layers too".into()
                }
            }),
            paper: if paper_pm25 {
                "only the last".into()
            } else {
                "other layers too".into()
            },
            caveat: String::new(),
        },
    ]
}

/// The claims of the paper judged on `cells`.
pub(super) fn judge(opts: &Options, cells: &[CellResult]) -> Vec<Claim> {
    let b2ld = ["b2ld", "lbfgs"];
    let bling = ["bling", "ig"];
    let objective: fn(&CellResult) -> f64 = |c| c.objective;
    let test: fn(&CellResult) -> f64 = |c| c.test_error;
    let stall = {
        let (mut k, mut n, mut p) = (0, 0, 0);
        if opts.architectures.contains(&DEEPEST) {
            for (d, s) in SOURCES.iter().enumerate().filter(|(_, s)| opts.includes(s)) {
                let _ = s;
                if let (Some(b), Some(l)) = (best_of(cells, d, DEEPEST, "b2ld"), best_of(cells, d, DEEPEST, "lbfgs")) {
                    n += 1;
                    k += usize::from(l.objective > b.objective && l.seconds < b.seconds);
                    let t = t2(d, DEEPEST);
                    p += usize::from(t.objective[1] > t.objective[0] && t.cpu_seconds[1] < t.cpu_seconds[0]);
                }
            }
        }
        (k, n, p)
    };
    let bling_pairs = count_pairs(
        opts,
        cells,
        bling,
        |x, y| x.objective < y.objective,
        |d, a| t6(d, a).objective[0] < t6(d, a).objective[1],
    );
    let on = |a: usize| {
        let only = Options {
            architectures: vec![a],
            ..opts.clone()
        };
        count_pairs(
            &only,
            cells,
            bling,
            |x, y| x.objective < y.objective,
            |d, a| t6(d, a).objective[0] < t6(d, a).objective[1],
        )
    };
    let (deep, shallow) = (on(DEEPEST), on(SHALLOWEST));
    let more_on_large = (deep.1 > 0 && shallow.1 > 0).then(|| deep.0 * shallow.1 > shallow.0 * deep.1);
    let growth_b2ld = [
        growth_claim(opts, cells, b2ld, objective, &published::TABLE_3),
        growth_claim(opts, cells, b2ld, test, &published::TABLE_4),
    ];
    let growth_of = |(k, n, p): (usize, usize, usize)| share(k, n, p, n);
    let table5 = table5_claims(opts, cells);
    vec![
        pair_claim(
            "B2LD's best objective lower than L-BFGS's",
            "Sec. 5.1, Table 2",
            count_pairs(
                opts,
                cells,
                b2ld,
                |x, y| x.objective < y.objective,
                |d, a| t2(d, a).objective[0] < t2(d, a).objective[1],
            ),
            limits(opts),
        ),
        pair_claim(
            "… with a smaller gradient norm",
            "Sec. 5.1, Table 2",
            count_pairs(
                opts,
                cells,
                b2ld,
                |x, y| x.gradient_norm < y.gradient_norm,
                |d, a| t2(d, a).gradient_norm[0] < t2(d, a).gradient_norm[1],
            ),
            limits(opts),
        ),
        Claim {
            claim: "L-BFGS stops early at a poorer objective on [10 x 50], where B2LD goes on".into(),
            source: "Sec. 5.1, Table 2".into(),
            verdict: share(stall.0, stall.1, stall.2, stall.1),
            ours: format!("on {} of {} data sets", stall.0, stall.1),
            paper: format!("on {} of {}", stall.2, stall.1),
            caveat: limits(opts),
        },
        {
            let (k, n, p) = depth_claim(opts, cells, b2ld, |d| {
                let (deep, shallow) = (t2(d, DEEPEST), t2(d, SHALLOWEST));
                (
                    deep.objective[0] / shallow.objective[0],
                    deep.objective[1] / shallow.objective[1],
                )
            });
            Claim {
                claim: "B2LD hurt less by depth than L-BFGS (best objective, [10 x 50] / [1 x 50])".into(),
                source: "Sec. 5.1, Fig. 2".into(),
                verdict: share(k, n, p, n),
                ours: format!("on {k} of {n} data sets"),
                paper: format!("on {p} of {n} by Table 2"),
                caveat: String::new(),
            }
        },
        Claim {
            claim: "B2LD's net wins over L-BFGS grow from [1 x 50] to [10 x 50] (objective; test error)".into(),
            source: "Sec. 5.1, Tables 3–4".into(),
            verdict: all_of(&[growth_of(growth_b2ld[0]), growth_of(growth_b2ld[1])]),
            ours: format!(
                "on {} and {} of {} data sets",
                growth_b2ld[0].0, growth_b2ld[1].0, growth_b2ld[0].1
            ),
            paper: format!(
                "on {} and {} of {}",
                growth_b2ld[0].2, growth_b2ld[1].2, growth_b2ld[0].1
            ),
            caveat: String::new(),
        },
        table5[0].clone(),
        table5[1].clone(),
        sums_claim(
            "B2LD beats L-BFGS in the summed [wins; defs] (objective and test)",
            "Sec. 5.1, Tables 3–4",
            totals(opts, cells, b2ld, objective, &published::TABLE_3),
            totals(opts, cells, b2ld, test, &published::TABLE_4),
        ),
        pair_claim(
            "BLInG's best objective lower than IG's",
            "Sec. 5.2, Table 6",
            bling_pairs,
            limits(opts),
        ),
        Claim {
            claim: "… more often on [10 x 50] than on [1 x 50]".into(),
            source: "Sec. 5.2, Table 6".into(),
            verdict: single(more_on_large),
            ours: format!("{} of {} against {} of {}", deep.0, deep.1, shallow.0, shallow.1),
            paper: format!("{} of {} against {} of {}", deep.2, deep.1, shallow.2, shallow.1),
            caveat: String::new(),
        },
        {
            let g = growth_claim(opts, cells, bling, objective, &published::TABLE_7_OBJECTIVE);
            Claim {
                claim: "BLInG's net wins over IG grow from [1 x 50] to [10 x 50]".into(),
                source: "Sec. 5.2, Table 7".into(),
                verdict: growth_of(g),
                ours: format!("on {} of {} data sets", g.0, g.1),
                paper: format!("on {} of {}", g.2, g.1),
                caveat: String::new(),
            }
        },
        {
            let (k, n, p) = depth_claim(opts, cells, bling, |d| {
                (published::TABLE_8[d][0], published::TABLE_8[d][1])
            });
            Claim {
                claim: "BLInG hurt less by depth than IG (best objective, [10 x 50] / [1 x 50])".into(),
                source: "Sec. 5.2, Table 8".into(),
                verdict: share(k, n, p, n),
                ours: format!("on {k} of {n} data sets"),
                paper: format!("on {p} of {n} by Table 8"),
                caveat: String::new(),
            }
        },
        sums_claim(
            "BLInG beats IG in the summed [wins; defs] (objective and test)",
            "Sec. 5.2, Table 7",
            totals(opts, cells, bling, objective, &published::TABLE_7_OBJECTIVE),
            totals(opts, cells, bling, test, &published::TABLE_7_TEST),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// One run of each method on every pair, with the paper's best values
    /// (Tables 2 and 6) as our cells.
    fn the_papers_tables() -> Vec<CellResult> {
        let mut cells = vec![];
        for (d, s) in SOURCES.iter().enumerate() {
            for a in 0..5 {
                for (method, objective, gradient_norm, seconds, test_error) in [
                    (
                        "b2ld",
                        t2(d, a).objective[0],
                        t2(d, a).gradient_norm[0],
                        t2(d, a).cpu_seconds[0],
                        0.0,
                    ),
                    (
                        "lbfgs",
                        t2(d, a).objective[1],
                        t2(d, a).gradient_norm[1],
                        t2(d, a).cpu_seconds[1],
                        0.0,
                    ),
                    ("bling", t6(d, a).objective[0], 0.0, 60.0, t6(d, a).test_error[0]),
                    ("ig", t6(d, a).objective[1], 0.0, 60.0, t6(d, a).test_error[1]),
                ] {
                    cells.push(CellResult {
                        dataset: s.key.into(),
                        architecture: a,
                        method: method.into(),
                        run: 0,
                        quick: false,
                        n_train: s.train,
                        limit: 150.0,
                        seconds,
                        objective,
                        gradient_norm,
                        test_error,
                        iterations: 1,
                        updates_per_layer: vec![],
                        termination: String::new(),
                        trace: vec![],
                        cpu: None,
                    });
                }
            }
        }
        cells
    }

    fn opts() -> Options {
        Options::full(PathBuf::from("/nonexistent/palagi-seccia"), 1.0)
    }

    /// The whole numbers of a text, in order.
    fn numbers(text: &str) -> Vec<usize> {
        text.split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect()
    }

    /// The paper's own best values as cells confirm the claims made on
    /// them, with the paper's counts; one cell changed changes the count
    /// and, past the paper's share, the verdict.
    #[test]
    fn the_papers_tables_confirm_and_one_cell_changes_the_count() {
        let mut cells = the_papers_tables();
        let claims = judge(&opts(), &cells);
        for i in [0, 1, 2, 3, 8, 11] {
            let c = &claims[i];
            assert_eq!(c.verdict, crate::report::claims::Verdict::Confirmed, "{c:?}");
            assert_eq!(numbers(&c.ours)[..2], numbers(&c.paper)[..2], "{c:?}");
        }
        // B2LD's best run made worse than L-BFGS's on the first pair where
        // the paper's is better.
        let Some((d, a)) = (0..7)
            .flat_map(|d| (0..5).map(move |a| (d, a)))
            .find(|&(d, a)| t2(d, a).objective[0] < t2(d, a).objective[1])
        else {
            panic!("a pair B2LD wins in Table 2");
        };
        let Some(b) = cells
            .iter_mut()
            .find(|c| c.dataset == SOURCES[d].key && c.architecture == a && c.method == "b2ld")
        else {
            panic!("the cell");
        };
        b.objective = 2.0 * t2(d, a).objective[1];
        let after = judge(&opts(), &cells);
        assert_eq!(
            numbers(&after[0].ours)[0] + 1,
            numbers(&claims[0].ours)[0],
            "{:?}",
            after[0]
        );
    }
}

#[cfg(test)]
mod table5_tests {
    use super::*;

    /// The paper's own Table 5 by the rule: the pattern on five of its
    /// seven data sets (not Bank Marketing, whose last layer moved 5 times
    /// against a middle median of 6, nor Beijing PM2.5, where only the last
    /// layer moved).
    #[test]
    fn the_papers_table_5_by_the_rule() {
        let with: Vec<&str> = SOURCES
            .iter()
            .enumerate()
            .filter(|(d, _)| ends_updated_more(&published::TABLE_5[*d]))
            .map(|(_, s)| s.key)
            .collect();
        assert_eq!(with, ["ailerons", "bikes", "california", "ccpp", "mv"]);
        assert!(!ends_updated_more(&[]) && !ends_updated_more(&[3, 1]));
        assert!(ends_updated_more(&[3, 1, 2]));
    }
}
