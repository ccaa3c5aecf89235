//! Fig. 1's analogue (maximum testing accuracy vs λ, with the families
//! compared by means and paired by seed) and the accuracy-vs-nodes figure.

use std::fmt::Write as _;
use std::path::Path;

use linalg_core::ridge::Strategy;

use super::super::analysis::{
    family_best, family_table, finding_against_ours, paired_differences, paired_family_table, MeanStd,
    GENERALIZED_INVERSE, RIDGE,
};
use super::super::cell::Cell;
use super::super::protocol::{Schedule, STRATEGIES};
use super::super::published::PAPER_BLOCKS;
use super::{blocks, Summary};
use crate::papers::ReproError;
use crate::report::{self, svg, Table};

/// Each strategy's maximum mean accuracy over the updates, per λ: `(strategy,
/// λ exponent, max)`, λ ascending, strategies in run order.
fn maxima(s: &Summary<'_>) -> Vec<(Strategy, i32, f64)> {
    let mut fig = vec![];
    for &e in &s.lambdas {
        for &strategy in &s.opts.strategies {
            let Some((_, per)) = s.default_stats(e, strategy) else {
                continue;
            };
            let best = per.iter().flatten().map(|x| x.0).fold(f64::NAN, f64::max);
            if best.is_finite() {
                fig.push((strategy, e, best));
            }
        }
    }
    fig
}

/// The Fig. 1 section; writes `fig1_max_accuracy.svg` into `dir`.
pub(super) fn figure1(s: &Summary<'_>, dir: &Path) -> Result<String, ReproError> {
    let fig = maxima(s);
    let mut series: Vec<svg::Series> = vec![];
    for &strategy in &s.opts.strategies {
        let points: Vec<(f64, f64)> = fig
            .iter()
            .filter(|(t, _, _)| *t == strategy)
            .map(|&(_, e, best)| (e as f64, best))
            .collect();
        if !points.is_empty() {
            series.push(svg::Series::line(strategy.paper_name(), points));
        }
    }
    let pairs = if s.opts.schedule == Schedule::FULL {
        blocks::pair_blocks(s)
    } else {
        vec![]
    };
    let nu = s.nu;
    let paper_max =
        |block: usize, family: &[Strategy]| family_best(family, &|t| blocks::paper_per(block, t), nu).map(|b| b.max);
    for (name, family, like) in [
        (
            "paper: generalized inverse (block paired with λ)",
            &GENERALIZED_INVERSE[..],
            Strategy::Orig,
        ),
        ("paper: ridge (block paired with λ)", &RIDGE[..], Strategy::Chol2),
    ] {
        let points: Vec<(f64, f64)> = pairs
            .iter()
            .filter_map(|p| Some((p.lambda? as f64, paper_max(p.block, family)?)))
            .collect();
        let of = series.iter().position(|l| l.name == like.paper_name()).unwrap_or(0);
        if !points.is_empty() {
            series.push(svg::Series::paper(name, points, of));
        }
    }
    let mut fig_t = Table::new(&["λ", "strategy", "max accuracy over updates (%)"]);
    for (strategy, e, best) in &fig {
        fig_t.push(vec![
            format!("2^{e}"),
            strategy.paper_name().into(),
            format!("{best:.2}"),
        ]);
    }
    let mut md = String::new();
    let _ = writeln!(md, "## Maximum testing accuracy vs λ (analogue of Fig. 1a)\n");
    let _ = writeln!(
        md,
        "![max accuracy vs λ](fig1_max_accuracy.svg)\n\nThe paper's finding: the generalized-inverse solutions (Orig., Exg-E) reach their maximum early and then degrade as nodes are added, while the ridge solutions keep improving and reach a higher maximum — at every λ of its Fig. 1a (in all eight blocks of its Tables II–III the ridge maximum is the higher). {} {}\n",
        finding_against_ours(&s.lambdas, &s.cells.iter().filter(|c| s.is_default(c) && !s.is_set_aside(c)).collect::<Vec<_>>()),
        where_ours_differ(s, &pairs).unwrap_or_default()
    );
    if !pairs.is_empty() {
        let _ = writeln!(md, "{}", paper_maxima_table(s, &pairs).markdown());
    }
    let _ = writeln!(md, "{}", fig_t.markdown());
    let _ = writeln!(
        md,
        "Per λ, the two families side by side (means over seeds; generalized inverse: Orig., Exg-E; ridge: Chol-1, Chol-2, R-Inv, D-Rdg; update 0 is the initial network, the last is update {}):\n\n{}",
        s.nu - 1,
        family_table(&s.lambdas, |e, t| s.default_stats(e, t).map(|(_, per)| per), s.nu).markdown()
    );
    let default_cells: Vec<&Cell> = s
        .cells
        .iter()
        .filter(|c| s.is_default(c) && !s.is_set_aside(c))
        .collect();
    let _ = writeln!(
        md,
        "The same comparison paired by seed. The table above compares means over different sets of seeds where strategies have different numbers of them; here each seed's networks are shared by both sides. On each seed, a family's maximum is the best over those of its strategies that ran on that seed (named beside it, all of them where several tie; seeds beyond 0 have fewer strategies, see the seed counts above). Update 0 is the same network for every strategy, so a family's maximum is at least the initial accuracy.\n\n{}",
        paired_family_table(&s.lambdas, &default_cells).markdown()
    );
    report::write(
        dir,
        "fig1_max_accuracy.svg",
        &svg::line_plot(
            "Maximum testing accuracy vs log2 λ",
            "log2 λ",
            "max test accuracy (%)",
            &series,
            false,
        ),
    )?;
    Ok(md)
}

/// Testing accuracy vs nodes at the smallest λ; writes
/// `accuracy_vs_nodes.svg` into `dir` and returns the Markdown that shows it
/// (empty when no λ ran).
pub(super) fn accuracy_vs_nodes(s: &Summary<'_>, dir: &Path) -> Result<String, ReproError> {
    let Some(&e) = s.lambdas.first() else {
        return Ok(String::new());
    };
    let sch = s.opts.schedule;
    let mut series = vec![];
    for &strategy in &s.opts.strategies {
        if let Some((_, per)) = s.default_stats(e, strategy) {
            let points: Vec<(f64, f64)> = per
                .iter()
                .enumerate()
                .filter_map(|(u, v)| {
                    let (f, en) = sch.nodes_after(u);
                    v.map(|x| ((f + en) as f64, x.0))
                })
                .collect();
            if !points.is_empty() {
                series.push(svg::Series::line(strategy.paper_name(), points));
            }
        }
    }
    if sch == Schedule::FULL {
        series.extend(paper_accuracy_vs_nodes(s, &series));
    }
    report::write(
        dir,
        "accuracy_vs_nodes.svg",
        &svg::line_plot(
            &format!("Testing accuracy vs nodes, λ = 2^{e}"),
            "nodes",
            "test accuracy (%)",
            &series,
            false,
        ),
    )?;
    Ok("\n![accuracy vs nodes](accuracy_vs_nodes.svg)\n\n".into())
}

/// The paper's accuracies (Tables II–III) for the strategies drawn in
/// `ours`, from the block paired with the smallest λ (the blocks' λ were
/// lost in the text; see the accuracy section), at the full schedule's node
/// counts.
fn paper_accuracy_vs_nodes(s: &Summary<'_>, ours: &[svg::Series]) -> Vec<svg::Series> {
    let Some(&e) = s.lambdas.first() else {
        return vec![];
    };
    let Some(pairing) = blocks::pair_blocks(s).into_iter().find(|p| p.lambda == Some(e)) else {
        return vec![];
    };
    let block = &PAPER_BLOCKS[pairing.block];
    let sch = s.opts.schedule;
    let mut paper = vec![];
    for (of, line) in ours.iter().enumerate() {
        let Some(r) = STRATEGIES.iter().position(|t| t.paper_name() == line.name) else {
            continue;
        };
        let points = block[r]
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .map(|(u, &v)| {
                let (f, e) = sch.nodes_after(u);
                ((f + e) as f64, v)
            })
            .collect();
        paper.push(svg::Series::paper(
            format!("paper block {}: {}", pairing.block + 1, line.name),
            points,
            of,
        ));
    }
    paper
}

/// Our families' maxima per λ beside the paper's block paired with it.
fn paper_maxima_table(s: &Summary<'_>, pairs: &[blocks::Pairing]) -> Table {
    let mut t = Table::new(&[
        "λ",
        "paper block",
        "generalized inverse max: ours",
        "paper",
        "ridge max: ours",
        "paper",
        "higher: ours",
        "paper",
    ]);
    let nu = s.nu;
    let fmt = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.2}"));
    let higher = |g: Option<f64>, r: Option<f64>| match (g, r) {
        (Some(g), Some(r)) if r > g => "ridge",
        (Some(g), Some(r)) if g > r => "generalized inverse",
        (Some(_), Some(_)) => "equal",
        _ => "—",
    };
    for &e in &s.lambdas {
        let ours = |family: &[Strategy]| {
            family_best(family, &|t| s.default_stats(e, t).map(|(_, per)| per), nu).map(|b| b.max)
        };
        let (og, or) = (ours(&GENERALIZED_INVERSE), ours(&RIDGE));
        let p = pairs.iter().find(|p| p.lambda == Some(e));
        let paper = |family: &[Strategy]| {
            p.and_then(|p| family_best(family, &|t| blocks::paper_per(p.block, t), nu))
                .map(|b| b.max)
        };
        let (pg, pr) = (paper(&GENERALIZED_INVERSE), paper(&RIDGE));
        t.push(vec![
            format!("2^{e}"),
            p.map_or("—".into(), |p| format!("{} of 8", p.block + 1)),
            fmt(og),
            fmt(pg),
            fmt(or),
            fmt(pr),
            higher(og, or).into(),
            if p.is_some() {
                higher(pg, pr).into()
            } else {
                "—".into()
            },
        ]);
    }
    t
}

/// Why our comparison can differ from the paper's at the larger λ (a
/// reading of the tables, not a tested cause).
/// The paragraph after the finding, with its figures computed: at the
/// smallest λ where ridge is below the generalized inverse on every seed and
/// which is paired with a paper block, our initial accuracy and the paper
/// block's, the gain of the generalized-inverse strategy (the one with the
/// most seeds) at update 1 in both, and both ridge maxima; then the λ where
/// ours agree with the paper. `None` when no such λ ran (e.g. a quick run).
fn where_ours_differ(s: &Summary<'_>, pairs: &[blocks::Pairing]) -> Option<String> {
    let cells: Vec<&Cell> = s
        .cells
        .iter()
        .filter(|c| s.is_default(c) && !s.is_set_aside(c))
        .collect();
    let diffs = paired_differences(&s.lambdas, &cells);
    let all = |per: &[(String, f64)], f: fn(f64) -> bool| !per.is_empty() && per.iter().all(|d| f(d.1));
    let below: Vec<i32> = diffs
        .iter()
        .filter(|(_, p)| all(p, |d| d < 0.0))
        .map(|(e, _)| *e)
        .collect();
    let above: Vec<i32> = diffs
        .iter()
        .filter(|(_, p)| all(p, |d| d > 0.0))
        .map(|(e, _)| *e)
        .collect();
    let (e, block) = below
        .iter()
        .find_map(|&e| pairs.iter().find(|p| p.lambda == Some(e)).map(|p| (e, p.block)))?;
    let (gi, seeds, ours) = GENERALIZED_INVERSE
        .iter()
        .filter_map(|&t| s.default_stats(e, t).map(|(n, per)| (t, n, per)))
        .max_by_key(|x| x.1)?;
    let paper = blocks::paper_per(block, gi)?;
    let at = |per: &[MeanStd], u: usize| per.get(u).copied().flatten().map(|x| x.0);
    let (o0, o1, p0, p1) = (at(&ours, 0)?, at(&ours, 1)?, at(&paper, 0)?, at(&paper, 1)?);
    let ridge_ours = family_best(&RIDGE, &|t| s.default_stats(e, t).map(|x| x.1), s.nu)?;
    let ridge_paper = family_best(&RIDGE, &|t| blocks::paper_per(block, t), s.nu)?;
    let agree = match (above.first(), above.last()) {
        (Some(a), Some(b)) if a == b => format!("at λ = 2^{a}"),
        (Some(a), Some(b)) => format!("at the smaller λ (2^{a} … 2^{b})"),
        _ => "at no λ".to_string(),
    };
    Some(format!(
        "Where ours differ (the larger λ), the likely reason is in the network, not the solvers: at 2^{e} our initial accuracy ({o0:.2}, {gi} over {seeds} seeds) is close to the paper's block {} ({p0:.2}), yet our {gi} gains {:.2} points at update 1 (the new enhancement nodes fitted without regularization) where the paper's gains {:.2}, and our ridge solutions climb to {:.2} ({}) where the paper's reach {:.2} ({}). Our enhancement nodes are built as the paper states (U[−1, 1] weights, not orthonormalized as in Chen's code; shrink by the largest |value|; see Differences below), which changes their spectrum and with it how much an unregularized fit of new nodes gains before it over-fits; {agree} both families behave as the paper's do. This is a reading of the tables, not a tested cause.",
        block + 1,
        o1 - o0,
        p1 - p0,
        ridge_ours.max,
        ridge_ours.strategy.paper_name(),
        ridge_paper.max,
        ridge_paper.strategy.paper_name(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::papers::bls_ridge::cell::fixtures::timed_cell;
    use crate::papers::bls_ridge::protocol::Options;

    /// The paragraph's figures come from the cells and the paired paper
    /// block: at 2^-10 ridge is lower on both seeds, at 2^-30 higher.
    #[test]
    fn where_ours_differ_is_computed_from_the_cells() {
        let cell = |seed: u64, e: i32, s: Strategy, first: [f64; 2], last: f64| {
            let mut accuracy = vec![Some(first[0]), Some(first[1])];
            accuracy.resize(12, Some(last));
            Cell {
                seed,
                lambda_exp: e,
                strategy: s,
                accuracy,
                ..timed_cell(1, 1.0, None)
            }
        };
        let cells = [
            cell(0, -10, Strategy::ExgE, [95.0, 97.0], 80.0),
            cell(1, -10, Strategy::ExgE, [95.2, 97.4], 80.0),
            cell(0, -10, Strategy::Chol2, [95.0, 95.5], 96.9),
            cell(1, -10, Strategy::Chol2, [95.2, 95.6], 96.7),
            cell(0, -30, Strategy::ExgE, [98.0, 98.2], 95.0),
            cell(0, -30, Strategy::Chol2, [98.0, 98.3], 98.6),
        ];
        let opts = Options::full(std::path::PathBuf::new(), 1);
        let s = Summary::new(&opts, &cells);
        let pairs = vec![blocks::Pairing {
            block: 6,
            lambda: Some(-10),
            why: String::new(),
        }];
        let text = where_ours_differ(&s, &pairs).expect("a λ where ridge is lower and paired");
        for want in [
            "at 2^-10 our initial accuracy (95.10, Exg-E over 2 seeds)",
            "the paper's block 7 (95.44)",
            "our Exg-E gains 2.10 points at update 1",
            "where the paper's gains 0.59",
            "climb to 96.80 (Chol-2)",
            "reach 97.23 (",
            "at λ = 2^-30 both families",
        ] {
            assert!(text.contains(want), "missing {want:?} in {text}");
        }
        // Without a paired block there is nothing to compare with.
        assert!(where_ours_differ(&s, &[]).is_none());
    }
}
