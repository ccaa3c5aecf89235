//! Tables II–III's analogue (testing accuracy after each update, one table
//! per λ, with the paper's closest block), the failures, and the quick
//! run's f32-against-f64 comparison.

use std::fmt::Write as _;

use super::super::analysis::fmt_acc;
use super::super::cell::{Cell, PinvCut};
use super::super::protocol::Schedule;
use super::{blocks, precision_name, Summary};
use crate::report::Table;

/// The accuracy section (Markdown) and `accuracy.csv`.
pub(super) fn accuracy_tables(s: &Summary<'_>) -> (String, Table) {
    let sch = s.opts.schedule;
    let mut md = String::new();
    let _ = writeln!(
        md,
        "## Testing accuracy after each update (analogue of Tables II–III)\n"
    );
    let _ = writeln!(
        md,
        "Mean (standard deviation) over seeds, %; the standard deviation is left out where one seed ran. NA: the strategy failed (its typed error is listed below). The paper's blocks give the λ only as lost symbols; beside each of our tables is the paper's block paired with that λ, if any (the rule and all eight blocks are in the table after the last λ).\n"
    );
    let pairs = if sch == Schedule::FULL {
        blocks::pair_blocks(s)
    } else {
        vec![]
    };
    let mut csv = Table::new(&[
        "lambda_exp",
        "strategy",
        "precision",
        "seeds",
        "update",
        "feature_nodes",
        "enhancement_nodes",
        "mean_accuracy",
        "std_accuracy",
    ]);
    let mut header = vec!["strategy".to_string(), "seeds".into()];
    for u in 0..s.nu {
        let (f, e) = sch.nodes_after(u);
        header.push(format!("{f}/{e}"));
    }
    for &e in &s.lambdas {
        let t = lambda_table(s, e, &header, &mut csv);
        let _ = writeln!(md, "### λ = 2^{e}\n");
        let _ = writeln!(md, "{}", t.markdown());
        if let Some(p) = pairs.iter().find(|p| p.lambda == Some(e)) {
            md.push_str(&blocks::paper_block_table(&header, p));
        }
        md.push_str(&set_aside_orig_rows(s, e, &header));
    }
    if sch == Schedule::FULL {
        md.push_str(&blocks::blocks_section(s));
        // The blocks no λ of ours is paired with, in full (the summary
        // table above gives only their maxima).
        for p in pairs.iter().filter(|p| p.lambda.is_none()) {
            md.push_str(&blocks::paper_block_table(&header, p));
        }
    }
    (md, csv)
}

/// Our table at λ = 2^e (one row per strategy, `—` where no cell ran), its
/// rows appended to `csv` in long form.
fn lambda_table(s: &Summary<'_>, e: i32, header: &[String], csv: &mut Table) -> Table {
    let sch = s.opts.schedule;
    let mut t = Table {
        header: header.to_vec(),
        rows: vec![],
    };
    for &strategy in &s.opts.strategies {
        let p = s.opts.precision(strategy);
        let prec = precision_name(p);
        let Some((n, per)) = s.stats(e, strategy, p) else {
            t.push(
                std::iter::once(strategy.paper_name().to_string())
                    .chain(std::iter::once("0".into()))
                    .chain((0..s.nu).map(|_| "—".into()))
                    .collect(),
            );
            continue;
        };
        let mut row = vec![
            format!(
                "{}{}",
                strategy.paper_name(),
                if prec == "F32" { " (f32 A)" } else { "" }
            ),
            n.to_string(),
        ];
        for (u, v) in per.iter().enumerate() {
            row.push(fmt_acc(*v));
            let (f, en) = sch.nodes_after(u);
            csv.push(vec![
                e.to_string(),
                strategy.cli_name().into(),
                prec.into(),
                n.to_string(),
                u.to_string(),
                f.to_string(),
                en.to_string(),
                v.map_or("NA".into(), |x| format!("{:.4}", x.0)),
                v.map_or("NA".into(), |x| x.1.map_or(String::new(), |sd| format!("{sd:.4}"))),
            ]);
        }
        t.push(row);
    }
    t
}

/// The set-aside cells per seed at λ = 2^e — Orig. with the cut the
/// tables do not use, and any cell with Chen's orthonormal enhancement
/// weights — each seed's Orig. of the tables' cut first (empty when no
/// such cell exists).
fn set_aside_orig_rows(s: &Summary<'_>, e: i32, header: &[String]) -> String {
    let mut aside: Vec<&Cell> = s.set_aside.iter().filter(|c| c.lambda_exp == e).copied().collect();
    if aside.is_empty() {
        return String::new();
    }
    aside.sort_by_key(|c| (c.seed, c.is_orthonormal(), c.strategy.cli_name()));
    let mut t = Table {
        header: header.to_vec(),
        rows: vec![],
    };
    t.header[1] = "seed".into();
    let row = |label: &str, c: &Cell| {
        let mut r = vec![label.to_string(), c.seed.to_string()];
        r.extend(c.accuracy.iter().map(|v| v.map_or("NA".into(), |x| format!("{x:.2}"))));
        r
    };
    let mut seeds_shown = vec![];
    for c in &aside {
        if !seeds_shown.contains(&c.seed) {
            seeds_shown.push(c.seed);
            if let Some(used) = s.cells.iter().find(|n| {
                n.orig_pinv_cut == Some(s.cut)
                    && !n.is_orthonormal()
                    && n.seed == c.seed
                    && n.lambda_exp == e
                    && n.precision == c.precision
            }) {
                t.push(row(&format!("Orig., {} (in the table above)", s.cut.label()), used));
            }
        }
        t.push(row(&set_aside_label(c), c));
    }
    let other = match s.cut {
        PinvCut::GramEigenvalues => PinvCut::MatlabSvd,
        PinvCut::MatlabSvd => PinvCut::GramEigenvalues,
    };
    let mut md = String::new();
    let _ = writeln!(
        md,
        "Cells set aside from the table above, per seed: Orig. with the two pseudo-inverse cuts, both on f32-stored `A` — MATLAB's `pinv` cut (singular values above max(K, q)·eps(σ₁) ≈ 1.3e-11·σ₁), which the original BLS code applies in f64, and the eigenvalue cut (eigenvalues of CᵀC above max(K, q)·ε·μ_max, about √(Kε)·σ₁ ≈ 3.6e-6·σ₁ on the singular values), which our Orig. made before 2026-11-24; the table above uses {} and lists {} here — and cells whose enhancement weights were orthonormalized as the original code does (`orth`; the paper and the table above: uniform on [−1, 1]):\n",
        s.cut.phrase(),
        other.phrase()
    );
    let _ = writeln!(md, "{}", t.markdown());
    for c in aside.iter().filter(|c| c.is_orthonormal()) {
        if let Some(twin) = s.cells.iter().find(|n| is_uniform_twin(n, c)) {
            md.push_str(&orthonormal_against_uniform(c, twin));
        }
    }
    md
}

/// The same cell as `c` with uniform enhancement weights: seed, λ,
/// strategy, precision, Orig.'s cut and schedule.
fn is_uniform_twin(n: &Cell, c: &Cell) -> bool {
    !n.is_orthonormal()
        && (
            n.seed,
            n.lambda_exp,
            n.strategy,
            n.precision,
            n.orig_pinv_cut,
            n.schedule,
        ) == (
            c.seed,
            c.lambda_exp,
            c.strategy,
            c.precision,
            c.orig_pinv_cut,
            c.schedule,
        )
}

/// The largest |difference| of two cells' accuracies over the updates both
/// have (points).
pub(super) fn largest_difference(a: &Cell, b: &Cell) -> f64 {
    a.accuracy
        .iter()
        .zip(&b.accuracy)
        .filter_map(|(x, y)| Some((x.as_ref()? - y.as_ref()?).abs()))
        .fold(0.0f64, f64::max)
}

/// The best accuracy, its update and the last accuracy of a cell.
pub(super) fn best_and_last(c: &Cell) -> Option<(f64, usize, f64)> {
    let (u, best) = c
        .accuracy
        .iter()
        .enumerate()
        .filter_map(|(u, a)| a.map(|a| (u, a)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let last = c.accuracy.last().copied().flatten()?;
    Some((best, u, last))
}

/// What orthonormalizing the enhancement weights changed, computed from the
/// orthonormal cell `orth` and its uniform twin: best and last accuracy,
/// and whether the fall after the best (more than 5 points) happens in
/// both, in one, or in neither.
pub(super) fn orthonormal_against_uniform(orth: &Cell, uniform: &Cell) -> String {
    let (Some((bo, uo, lo)), Some((bu, uu, lu))) = (best_and_last(orth), best_and_last(uniform)) else {
        return String::new();
    };
    let falls = |best: f64, last: f64| best - last > 5.0;
    let verdict = match (falls(bo, lo), falls(bu, lu)) {
        (true, true) => {
            "falls with both draws: the orthonormal weights of the original code do **not** prevent the fall"
        }
        (false, true) => {
            "falls with the uniform draw only: the orthonormal weights of the original code prevent the fall"
        }
        (true, false) => "falls with the orthonormal draw only",
        (false, false) => "falls with neither draw",
    };
    format!(
        "{} with Chen's orthonormal enhancement weights (seed {}, λ = 2^{}): best {bo:.2}% at update {uo}, \
         {lo:.2}% after the last; with the paper's uniform weights best {bu:.2}% at update {uu}, {lu:.2}% after \
         the last. The accuracy {verdict} (a fall: more than 5 points below the best).\n\n",
        set_aside_label(uniform),
        orth.seed,
        orth.lambda_exp
    )
}

/// The row label of a set-aside cell: strategy, Orig.'s cut, the weights.
fn set_aside_label(c: &Cell) -> String {
    let mut label = c.strategy.to_string();
    if let Some(cut) = c.orig_pinv_cut {
        label.push_str(", ");
        label.push_str(cut.label());
    }
    if c.is_orthonormal() {
        label.push_str(", orthonormal W_h (Chen's code)");
    }
    label
}

/// The failures with their typed errors (empty when none failed).
pub(super) fn failures(cells: &[Cell]) -> String {
    let failures: Vec<&Cell> = cells.iter().filter(|c| c.failure.is_some()).collect();
    if failures.is_empty() {
        return String::new();
    }
    let mut md = String::new();
    let _ = writeln!(md, "### Failures (typed errors)\n");
    let mut ft = Table::new(&["λ", "strategy", "seed", "update", "error"]);
    for c in failures {
        if let Some((u, msg)) = &c.failure {
            ft.push(vec![
                format!("2^{}", c.lambda_exp),
                c.strategy.cli_name().into(),
                c.seed.to_string(),
                u.to_string(),
                msg.replace('|', "/"),
            ]);
        }
    }
    let _ = writeln!(md, "{}", ft.markdown());
    md
}

/// Storing `A` in f32 against f64 on the same networks (the quick run's
/// comparison cells; empty when there are none).
pub(super) fn f32_against_f64(cells: &[Cell]) -> String {
    let pairs: Vec<(&Cell, &Cell)> = cells
        .iter()
        .filter(|c| c.is_f32())
        .filter_map(|c32| {
            cells
                .iter()
                .find(|c| {
                    !c.is_f32() && c.seed == c32.seed && c.lambda_exp == c32.lambda_exp && c.strategy == c32.strategy
                })
                .map(|c64| (c32, c64))
        })
        .collect();
    if pairs.is_empty() {
        return String::new();
    }
    let mut md = String::new();
    let _ = writeln!(md, "## Storing A in f32 against f64 (same networks)\n");
    let mut t = Table::new(&[
        "strategy",
        "λ",
        "seed",
        "largest accuracy difference over the updates (points)",
        "state bytes f64",
        "state bytes f32",
    ]);
    for (a, b) in pairs {
        let d = largest_difference(a, b);
        t.push(vec![
            a.strategy.cli_name().into(),
            format!("2^{}", a.lambda_exp),
            a.seed.to_string(),
            format!("{d:.3}"),
            b.state_bytes.to_string(),
            a.state_bytes.to_string(),
        ]);
    }
    let _ = writeln!(md, "{}", t.markdown());
    md
}

#[cfg(test)]
mod tests {
    use linalg_core::ridge::Strategy;
    use linalg_core::Precision;
    use models::bls::EnhancementWeights;

    use super::super::super::cell::fixtures::timed_cell;
    use super::*;

    fn cell(accuracy: &[f64], orth: bool) -> Cell {
        let mut c = timed_cell(1, 1.0, None);
        c.strategy = Strategy::Orig;
        c.precision = Precision::F32;
        c.orig_pinv_cut = Some(PinvCut::MatlabSvd);
        c.lambda_exp = -30;
        c.accuracy = accuracy.iter().map(|&a| Some(a)).collect();
        if orth {
            c.enhancement_weights = EnhancementWeights::Orthonormal;
        }
        c
    }

    /// The verdict follows the accuracies: a fall of more than 5 points
    /// after the best in one draw or both, and the figures quoted are the
    /// cells'.
    #[test]
    fn orthonormal_cell_is_judged_against_its_uniform_twin() {
        let uniform = cell(&[98.1, 98.6, 95.9, 9.7], false);
        let kept = cell(&[98.0, 98.7, 98.5, 98.2], true);
        assert!(is_uniform_twin(&uniform, &kept));
        assert!(!is_uniform_twin(&kept, &kept));
        let mut other_seed = uniform.clone();
        other_seed.seed = 1;
        assert!(!is_uniform_twin(&other_seed, &kept));
        let md = orthonormal_against_uniform(&kept, &uniform);
        assert!(md.contains("best 98.70% at update 1, 98.20% after the last"), "{md}");
        assert!(md.contains("best 98.60% at update 1, 9.70% after"), "{md}");
        assert!(md.contains("uniform draw only"), "{md}");
        assert!(md.starts_with("Orig., MATLAB's cut with Chen's"), "{md}");
        let falls_too = cell(&[98.0, 98.7, 90.0, 12.0], true);
        let md = orthonormal_against_uniform(&falls_too, &uniform);
        assert!(md.contains("do **not** prevent the fall"), "{md}");
        let md = orthonormal_against_uniform(&kept, &cell(&[98.0, 98.1, 97.9, 97.0], false));
        assert!(md.contains("falls with neither draw"), "{md}");
    }
}
