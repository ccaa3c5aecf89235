//! Table VI's analogue: solver time per update and accumulated, Chol-1's
//! speedups (overall and within each code version), and the flops and
//! achieved rate per update against the DGEMM peak.

use std::fmt::Write as _;

use super::super::analysis::{accumulated_by_version, mean_times, MeanTime};
use super::super::cell::{most_common_machine, Cell};
use super::super::protocol::Schedule;
use super::super::published::{
    PAPER_TABLE6, PAPER_TABLE6_ACCUMULATED, PAPER_TABLE6_ACCUMULATED_SPEEDUPS, PAPER_TABLE6_SPEEDUPS, TABLE6,
};
use super::Summary;
use crate::report::Table;

/// The timing section (Markdown) and `times.csv`.
pub(super) fn time_per_update(s: &Summary<'_>, peak: f64) -> (String, Table) {
    let nu = s.nu;
    let kept: Vec<Cell> = s.cells.iter().filter(|c| !s.is_set_aside(c)).cloned().collect();
    let (machine, owned) = timed_on_one_machine(&kept);
    let cells = &owned[..];
    let fallback = fallback_peak(cells, &machine, &crate::machine::cpu_description(), peak);
    let means = mean_times(cells, nu, fallback.value);
    let mut md = String::new();
    let _ = writeln!(md, "## Training time per update (analogue of Table VI)\n");
    let _ = writeln!(
        md,
        "Solver seconds per update (mean over the cells of each strategy that completed the schedule, all λ and seeds) on one machine: {machine}, which ran {} of the {} cells; {}. The columns of each update (feature maps, enhancement nodes) are computed outside the timed solver update and listed in `times.csv`. The paper's Table VI (MATLAB, a Windows server) follows ours.\n",
        cells.len(),
        kept.len(),
        other_machines_note(&kept, &machine, nu)
    );
    let _ = writeln!(md, "{}", table6(s.opts.schedule, &means).markdown());
    if s.set_aside.iter().any(|c| c.machine() == machine) {
        let _ = writeln!(
            md,
            "Orig.'s column is from its eigen-cut cells, as in the accuracy tables. Its reruns with MATLAB's cut are left out here: they ran beside other work on this machine, and their QR factorization of C streamed over row blocks plus the SVD of its q × q triangle cost about Kq² more flops per update than the eigen-decomposition of CᵀC (2Kq² for the QR instead of Kq² for CᵀC: 2.4e11 at K = 60000, q = 2010).\n"
        );
    }
    if s.opts.schedule == Schedule::FULL {
        let _ = writeln!(
            md,
            "The paper's Table VI as printed (training time in seconds per update and accumulated; speedups of Chol-1 to Orig. and to Exg-E; the first row's speedup to Exg-E is missing from the text):\n\n{}",
            paper_table6(s.opts.schedule).markdown()
        );
    }
    let _ = writeln!(
        md,
        "The means above mix two code versions (see the note under the next heading). The accumulated time per version, with Chol-1's speedups computed within each version (cells run before 2026-11-22 21:30 UTC also include a finiteness check that walked `A` across its memory layout, about 6 s per cell; docs/performance.md):\n"
    );
    let _ = writeln!(md, "{}", accumulated_by_version(cells, nu).markdown());
    let _ = writeln!(md, "### Flops and achieved rate per update\n");
    let timed: Vec<Cell> = cells.iter().filter(|c| c.solver_seconds.len() == nu).cloned().collect();
    let _ = writeln!(md, "{}\n", peak_note(&timed, &fallback));
    let _ = writeln!(md, "{}", flops_table(s.opts.schedule, &means).markdown());
    (md, times_csv(s, &machine, fallback.value))
}

/// The DGEMM peak a cell that stored none is divided by, and where it
/// comes from (for the report's note).
pub(super) struct FallbackPeak {
    /// GFLOP/s; NaN when no peak of the cells' machine is known.
    pub value: f64,
    /// Where the value comes from, as the note says it.
    pub source: String,
}

/// The peak for the cells of `machine` that stored none: the median of the
/// peaks the other cells of that machine stored (their invocations'
/// measurements), else this invocation's `peak` when it runs on that
/// machine (`here`); else none (NaN), since another CPU's peak says
/// nothing about it.
pub(super) fn fallback_peak(cells: &[Cell], machine: &str, here: &str, peak: f64) -> FallbackPeak {
    let mut stored: Vec<f64> = cells
        .iter()
        .filter(|c| c.machine() == machine)
        .filter_map(|c| c.dgemm_peak_gflops)
        .collect();
    stored.sort_by(f64::total_cmp);
    if let Some(&median) = stored.get(stored.len() / 2) {
        let median = if stored.len().is_multiple_of(2) {
            0.5 * (stored[stored.len() / 2 - 1] + median)
        } else {
            median
        };
        return FallbackPeak {
            value: median,
            source: format!(
                "the median of the peaks stored by the {} other cells of that machine, {median:.1} GFLOP/s",
                stored.len()
            ),
        };
    }
    if machine == here {
        return FallbackPeak {
            value: peak,
            source: format!("this invocation's peak on the same machine, {peak:.1} GFLOP/s"),
        };
    }
    FallbackPeak {
        value: f64::NAN,
        source: format!("no peak: they ran on {machine}, this invocation on {here}, so their percentages are NaN"),
    }
}

/// Every timed update of every cell, in long form (`times.csv`).
fn times_csv(s: &Summary<'_>, machine: &str, peak: f64) -> Table {
    let mut t = Table::new(&[
        "lambda_exp",
        "strategy",
        "seed",
        "update",
        "nodes",
        "solver_seconds",
        "columns_seconds",
        "flops",
        "gflops",
        "fraction_of_peak",
    ]);
    for c in s.cells {
        for u in 0..c.solver_seconds.len() {
            let (f, e) = s.opts.schedule.nodes_after(u);
            let g = c.flops[u] as f64 / c.solver_seconds[u] / 1e9;
            t.push(vec![
                c.lambda_exp.to_string(),
                c.strategy.cli_name().into(),
                c.seed.to_string(),
                u.to_string(),
                (f + e).to_string(),
                format!("{:.4}", c.solver_seconds[u]),
                format!("{:.4}", c.columns_seconds[u]),
                c.flops[u].to_string(),
                format!("{g:.2}"),
                format!(
                    "{:.3}",
                    c.fraction_of_peak(u, if c.machine() == machine { peak } else { f64::NAN })
                ),
            ]);
        }
    }
    t
}

/// Mean seconds per update and accumulated for Table VI's strategies, with
/// Chol-1's speedups and (on the full schedule) the paper's Chol-1 column.
fn table6(sch: Schedule, means: &[Vec<Option<MeanTime>>]) -> Table {
    let mut t6 = Table::new(&[
        "update",
        "nodes (feature/enh.)",
        "Orig. s",
        "R-Inv s",
        "Exg-E s",
        "Chol-2 s",
        "Chol-1 s",
        "Chol-1 vs Orig.",
        "Chol-1 vs Exg-E",
        "accum. Orig.",
        "accum. R-Inv",
        "accum. Exg-E",
        "accum. Chol-2",
        "accum. Chol-1",
        "accum. vs Orig.",
        "accum. vs Exg-E",
        "paper Chol-1 s (accum.)",
    ]);
    let secs = |v: f64| if v.is_finite() { format!("{v:.2}") } else { "—".into() };
    let ratio = |a: f64, b: f64| {
        if a.is_finite() && b.is_finite() {
            format!("{:.2}", a / b)
        } else {
            "—".into()
        }
    };
    let mut acc = [0.0f64; 5];
    for (u, times) in means.iter().enumerate() {
        let (f, e) = sch.nodes_after(u);
        for (k, t) in times.iter().enumerate() {
            acc[k] += t.map_or(f64::NAN, |x| x.seconds);
        }
        let paper_acc = PAPER_TABLE6_ACCUMULATED.get(u).map_or(f64::NAN, |r| r[4]);
        let ts = |k: usize| times[k].map_or("—".into(), |x| format!("{:.2}", x.seconds));
        let t = |k: usize| times[k].map_or(f64::NAN, |x| x.seconds);
        let paper = if sch == Schedule::FULL {
            PAPER_TABLE6
                .get(u)
                .map_or("—".into(), |r| format!("{:.2} ({paper_acc:.2})", r[4]))
        } else {
            "—".into()
        };
        t6.push(vec![
            u.to_string(),
            format!("{f}/{e}"),
            ts(0),
            ts(1),
            ts(2),
            ts(3),
            ts(4),
            ratio(t(0), t(4)),
            ratio(t(2), t(4)),
            secs(acc[0]),
            secs(acc[1]),
            secs(acc[2]),
            secs(acc[3]),
            secs(acc[4]),
            ratio(acc[0], acc[4]),
            ratio(acc[2], acc[4]),
            paper,
        ]);
    }
    t6
}

/// The paper's Table VI with every printed column.
fn paper_table6(sch: Schedule) -> Table {
    let mut t = Table::new(&[
        "update",
        "nodes (feature/enh.)",
        "Orig. s",
        "R-Inv s",
        "Exg-E s",
        "Chol-2 s",
        "Chol-1 s",
        "Chol-1 to Orig.",
        "Chol-1 to Exg-E",
        "accum. Orig.",
        "accum. R-Inv",
        "accum. Exg-E",
        "accum. Chol-2",
        "accum. Chol-1",
        "accum. to Orig.",
        "accum. to Exg-E",
    ]);
    let fmt = |v: f64| if v.is_nan() { "—".into() } else { format!("{v:.2}") };
    for u in 0..PAPER_TABLE6.len() {
        let (f, e) = sch.nodes_after(u);
        let mut row = vec![u.to_string(), format!("{f}/{e}")];
        row.extend(PAPER_TABLE6[u].iter().map(|&v| fmt(v)));
        row.extend(PAPER_TABLE6_SPEEDUPS[u].iter().map(|&v| fmt(v)));
        row.extend(PAPER_TABLE6_ACCUMULATED[u].iter().map(|&v| fmt(v)));
        row.extend(PAPER_TABLE6_ACCUMULATED_SPEEDUPS[u].iter().map(|&v| fmt(v)));
        t.push(row);
    }
    t
}

/// The cells timed on the machine that ran most of them (timings of
/// different machines are never averaged together), and that machine.
fn timed_on_one_machine(cells: &[Cell]) -> (String, Vec<Cell>) {
    let machine = most_common_machine(cells);
    let kept = cells.iter().filter(|c| c.machine() == machine).cloned().collect();
    (machine, kept)
}

/// The cells left out of the timing for running elsewhere, with their
/// accumulated solver time and rate against their own run's DGEMM peak.
fn other_machines_note(cells: &[Cell], machine: &str, nu: usize) -> String {
    let others: Vec<&Cell> = cells
        .iter()
        .filter(|c| c.machine() != machine && c.solver_seconds.len() == nu)
        .collect();
    if others.is_empty() {
        return "no cell ran elsewhere".into();
    }
    let parts: Vec<String> = others
        .iter()
        .map(|c| {
            let secs: f64 = c.solver_seconds.iter().sum();
            let flops: f64 = c.flops.iter().map(|&f| f as f64).sum();
            let rate = flops / secs / 1e9;
            format!(
                "{} at λ = 2^{}, seed {} ({}: {secs:.0} s accumulated, {rate:.0} GFLOP/s = {:.0}% of that run's DGEMM peak)",
                c.strategy.paper_name(),
                c.lambda_exp,
                c.seed,
                c.machine(),
                100.0 * rate / c.dgemm_peak_gflops.unwrap_or(f64::NAN)
            )
        })
        .collect();
    format!("left out as timed on another machine: {}", parts.join("; "))
}

/// Flops, seconds, GFLOP/s and fraction of the DGEMM peak per update and
/// strategy (the means of [`table6`]).
fn flops_table(sch: Schedule, means: &[Vec<Option<MeanTime>>]) -> Table {
    let mut ft = Table::new(&[
        "update",
        "nodes",
        "strategy",
        "flops",
        "seconds",
        "GFLOP/s",
        "of DGEMM peak",
    ]);
    for (u, times) in means.iter().enumerate() {
        let (f, e) = sch.nodes_after(u);
        for (k, t) in times.iter().enumerate() {
            if let Some(m) = t {
                let g = m.flops / m.seconds / 1e9;
                ft.push(vec![
                    u.to_string(),
                    (f + e).to_string(),
                    TABLE6[k].paper_name().into(),
                    format!("{:.3e}", m.flops),
                    format!("{:.3}", m.seconds),
                    format!("{g:.1}"),
                    format!("{:.0}%", 100.0 * m.fraction_of_peak),
                ]);
            }
        }
    }
    ft
}

/// What update 0's time includes: in cells run before the solver could take `A` over, a copy
/// of the initial `A` into the solver (first-touch page faults, about a third
/// of update 0 at full size).
pub(super) fn initial_copy_note(cells: &[Cell]) -> String {
    let copied = cells.iter().filter(|c| !c.initial_a_taken).count();
    let taken = cells.len() - copied;
    let cost = "whose first-touch page faults are about a third of update 0's time at this size (docs/performance.md)";
    // Taking `A` over saves the f64 copy; an f32 store still rounds it into
    // a buffer of its own.
    let f32_taken = if cells.iter().any(|c| c.initial_a_taken && c.is_f32()) {
        " Where `A` is stored in f32, taking it over still rounds it into a new f32 buffer of half the size."
    } else {
        ""
    };
    match (copied, taken) {
        (0, _) => format!("In every cell the solver took the initial `A` over without a copy (`Strategy::build` taking an owned `A`); Orig. and R-Inv still copy it into `B`.{f32_taken}"),
        (_, 0) => format!("In every cell update 0's time includes copying the initial `A` into the solver (and, for Orig. and R-Inv, into `B`), {cost}; the cells ran before `Strategy::build` taking an owned `A` removed the first copy."),
        _ => format!("In {copied} of {} cells (run before `Strategy::build` taking an owned `A`) update 0's time includes copying the initial `A` into the solver, {cost}; in the other {taken} the solver took `A` over without a copy, so update 0 is not comparable between the two groups.{f32_taken}", cells.len()),
    }
}

/// Which DGEMM peak the "of DGEMM peak" figures are relative to: each
/// cell's own run's, or `fallback` for cells that did not store one
/// (`cells`: those the flops table averages, the complete ones).
pub(super) fn peak_note(cells: &[Cell], fallback: &FallbackPeak) -> String {
    let own: Vec<f64> = cells.iter().filter_map(|c| c.dgemm_peak_gflops).collect();
    let old = cells.len() - own.len();
    let mut note = String::from("GFLOP/s and seconds are means over the same cells as the table above. ");
    note.push_str(&initial_copy_note(cells));
    note.push_str(
        " \"Of DGEMM peak\" is the mean, over those cells, of each cell's rate divided by the DGEMM peak measured by the invocation that ran the cell",
    );
    if !own.is_empty() {
        let (lo, hi) = own
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        let _ = write!(note, " ({} cells; their peaks {lo:.1}–{hi:.1} GFLOP/s)", own.len());
    }
    note.push('.');
    if old > 0 {
        let _ = write!(
            note,
            " {old} cells were written before cells stored their run's peak; they are divided by {}, which is not the peak of the machine state they ran in (n = 2048 best-of-3 peaks varied 90.7–104.5 GFLOP/s between invocations), so their percentages carry that ±7% uncertainty.",
            fallback.source
        );
    }
    note
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::papers::bls_ridge::cell::fixtures::timed_cell;
    use linalg_core::Precision;

    /// A cell is compared with the peak of the run that produced it; only a
    /// cell without one falls back to the current run's peak, and the
    /// report says how many did.
    #[test]
    fn rate_is_relative_to_the_cells_own_peak() {
        // 90 GFLOP in 1 s = 90 GFLOP/s.
        let own = timed_cell(90_000_000_000, 1.0, Some(100.0));
        let old = timed_cell(90_000_000_000, 1.0, None);
        assert!((own.fraction_of_peak(0, 80.0) - 0.9).abs() < 1e-12);
        assert!((old.fraction_of_peak(0, 80.0) - 1.125).abs() < 1e-12);
        let here = old.machine().to_string();
        let fallback = fallback_peak(std::slice::from_ref(&old), &here, &here, 80.0);
        assert_eq!(fallback.value, 80.0);
        let note = peak_note(&[own.clone(), old.clone()], &fallback);
        assert!(note.contains("(1 cells; their peaks 100.0–100.0 GFLOP/s)"), "{note}");
        assert!(note.contains("1 cells were written before"), "{note}");
        assert!(
            note.contains("this invocation's peak on the same machine, 80.0"),
            "{note}"
        );
        assert!(!peak_note(std::slice::from_ref(&own), &fallback).contains("written before"));
        // Cells of the same machine that stored peaks give the fallback
        // (their median), whatever machine this invocation runs on.
        let mut other = own.clone();
        other.dgemm_peak_gflops = Some(110.0);
        let third = timed_cell(1, 1.0, Some(90.0));
        let f = fallback_peak(&[own.clone(), old.clone(), other, third], &here, "another CPU", 140.0);
        assert_eq!(f.value, 100.0);
        assert!(
            f.source.contains("median of the peaks stored by the 3 other cells"),
            "{}",
            f.source
        );
        // No stored peak and another machine: none, not this run's.
        let f = fallback_peak(&[old], &here, "another CPU", 140.0);
        assert!(f.value.is_nan(), "{}", f.value);
        assert!(f.source.contains("no peak"), "{}", f.source);
    }

    /// The report says whether update 0 includes the copy of `A`, by what
    /// the cells record; cells written before the field existed copied.
    #[test]
    fn initial_copy_note_follows_the_cells() {
        let copied = timed_cell(1, 1.0, None);
        let taken = Cell {
            initial_a_taken: true,
            ..timed_cell(1, 1.0, None)
        };
        assert!(initial_copy_note(&[copied.clone(), copied.clone()])
            .starts_with("In every cell update 0's time includes copying"));
        assert!(initial_copy_note(std::slice::from_ref(&taken)).starts_with("In every cell the solver took"));
        let mixed = initial_copy_note(&[copied.clone(), copied.clone(), taken.clone()]);
        assert!(mixed.starts_with("In 2 of 3 cells"), "{mixed}");
        assert!(mixed.contains("in the other 1 the solver took"), "{mixed}");
        // An f32 store is taken over too, but rounds `A` into its own buffer.
        assert!(!mixed.contains("f32"), "{mixed}");
        let taken_f32 = Cell {
            precision: Precision::F32,
            ..taken
        };
        let with_f32 = initial_copy_note(&[copied.clone(), taken_f32]);
        assert!(
            with_f32.contains("stored in f32, taking it over still rounds"),
            "{with_f32}"
        );
        // A copying f32 cell is covered by the copy sentence alone.
        let copied_f32 = Cell {
            precision: Precision::F32,
            ..copied.clone()
        };
        assert!(!initial_copy_note(&[copied_f32]).contains("taking it over"));
        let mut v = serde_json::to_value(&copied).unwrap();
        v.as_object_mut().unwrap().remove("initial_a_taken");
        let old: Cell = serde_json::from_value(v).unwrap();
        assert!(!old.initial_a_taken);
    }
}
