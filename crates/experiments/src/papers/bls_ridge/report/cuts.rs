//! Orig.'s two pseudo-inverse cuts side by side (issue 40, item 5): per λ
//! and seed run with both, the best and the last accuracy under each and
//! their largest difference over the updates, computed from the cells; and
//! which cut the tables use.

use std::fmt::Write as _;

use linalg_core::ridge::Strategy;

use super::accuracy::{best_and_last, largest_difference};
use super::Summary;
use crate::papers::bls_ridge::cell::{Cell, PinvCut};
use crate::report::Table;

/// The pairs of Orig. cells on the same network, one per cut (uniform
/// enhancement weights), by λ then seed.
fn pairs(cells: &[Cell]) -> Vec<(&Cell, &Cell)> {
    let mut out: Vec<(&Cell, &Cell)> = cells
        .iter()
        .filter(|c| c.strategy == Strategy::Orig && c.orig_pinv_cut == Some(PinvCut::MatlabSvd) && !c.is_orthonormal())
        .filter_map(|m| {
            cells
                .iter()
                .find(|e| e.uses_eigen_cut() && e.same_network(m))
                .map(|e| (m, e))
        })
        .collect();
    out.sort_by_key(|(m, _)| (m.lambda_exp, m.seed));
    out
}

/// The section: which cut the tables use and why, and the table of pairs
/// (empty when no cell ran with both cuts).
pub(super) fn section(s: &Summary<'_>) -> String {
    let pairs = pairs(s.cells);
    if pairs.is_empty() {
        return String::new();
    }
    let eigen = s.cells.iter().filter(|c| c.uses_eigen_cut()).count();
    let mut md = String::new();
    let _ = writeln!(md, "## Orig.'s two pseudo-inverse cuts\n");
    let _ = writeln!(
        md,
        "MATLAB's `pinv` cut (singular values of C above max(K, q)·eps(σ₁), ≈ 1.3e-11·σ₁ here: what the original BLS code and the library's Orig. run) against the eigenvalue cut our Orig. made before 2026-11-24 (eigenvalues of CᵀC above max(K, q)·ε·μ_max, ≈ 3.6e-6·σ₁ on the singular values), on the same networks (`A` stored in f32). {} of the {eigen} eigen-cut Orig. cells have a MATLAB-cut twin; the tables, the timing and the findings use **{}**{}.\n",
        pairs.len(),
        s.cut.phrase(),
        match s.cut {
            PinvCut::MatlabSvd => " (every eigen-cut cell has its twin)",
            PinvCut::GramEigenvalues => {
                " until every eigen-cut cell has its twin (so that no (λ, seed) loses its Orig.); the MATLAB-cut cells are shown per seed under their λ"
            }
        }
    );
    let mut t = Table::new(&[
        "λ",
        "seed",
        "MATLAB's cut: best % (update)",
        "MATLAB's cut: last %",
        "eigenvalue cut: best % (update)",
        "eigenvalue cut: last %",
        "largest |difference| over the updates (points)",
    ]);
    let mut lasts = Vec::new();
    for (m, e) in &pairs {
        let (Some((bm, um, lm)), Some((be, ue, le))) = (best_and_last(m), best_and_last(e)) else {
            continue;
        };
        let d = largest_difference(m, e);
        lasts.push((m.lambda_exp, lm - le));
        t.push(vec![
            format!("2^{}", m.lambda_exp),
            m.seed.to_string(),
            format!("{bm:.2} ({um})"),
            format!("{lm:.2}"),
            format!("{be:.2} ({ue})"),
            format!("{le:.2}"),
            format!("{d:.2}"),
        ]);
    }
    let _ = writeln!(md, "{}", t.markdown());
    if let Some(worst) = lasts.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
        let within = lasts.iter().filter(|(_, d)| d.abs() <= 2.5).count();
        let _ = writeln!(
            md,
            "After the last update MATLAB's cut ends within 2.5 points of the eigenvalue cut on {within} of {} pairs; its largest loss is {:.2} points (λ = 2^{}).\n",
            lasts.len(),
            -worst.1,
            worst.0
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use linalg_core::Precision;

    use super::super::super::cell::fixtures::timed_cell;
    use super::super::super::protocol::Options;
    use super::*;

    fn orig(e: i32, cut: PinvCut, acc: &[f64]) -> Cell {
        Cell {
            lambda_exp: e,
            strategy: Strategy::Orig,
            precision: Precision::F32,
            orig_pinv_cut: Some(cut),
            accuracy: acc.iter().map(|&a| Some(a)).collect(),
            ..timed_cell(1, 1.0, None)
        }
    }

    /// The figures quoted are the cells': best (update), last, the largest
    /// difference, and the summary's count and worst loss; the tables' cut
    /// is named.
    #[test]
    fn the_cuts_are_compared_from_the_cells() {
        let cells = vec![
            orig(-30, PinvCut::MatlabSvd, &[98.1, 98.7, 9.7]),
            orig(-30, PinvCut::GramEigenvalues, &[98.1, 98.6, 81.0]),
            orig(-10, PinvCut::MatlabSvd, &[97.0, 97.5, 97.4]),
            orig(-10, PinvCut::GramEigenvalues, &[97.0, 97.6, 97.5]),
        ];
        let opts = Options::full(std::path::PathBuf::new(), 1);
        let s = Summary::new(&opts, &cells);
        assert_eq!(s.cut, PinvCut::MatlabSvd);
        let md = section(&s);
        assert!(
            md.contains("| 2^-30 | 0 | 98.70 (1) | 9.70 | 98.60 (1) | 81.00 | 71.30 |"),
            "{md}"
        );
        assert!(
            md.contains("| 2^-10 | 0 | 97.50 (1) | 97.40 | 97.60 (1) | 97.50 | 0.10 |"),
            "{md}"
        );
        assert!(
            md.contains(
                "within 2.5 points of the eigenvalue cut on 1 of 2 pairs; its largest loss is 71.30 points (λ = 2^-30)"
            ),
            "{md}"
        );
        assert!(md.contains("use **MATLAB's cut** (every"), "{md}");
        assert_eq!(section(&Summary::new(&opts, &cells[..1])), "");
    }
}
