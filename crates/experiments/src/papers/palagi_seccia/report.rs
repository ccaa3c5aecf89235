//! The report: our Tables 2–8 beside the paper's, the win/defeat counts
//! summed over all cells on both sides, and the best objective per network
//! (the paper's Figs. 2–3) as SVG.

use std::fmt::Write as _;
use std::path::PathBuf;

use models::dfnn::StallRule;

use super::cell::CellResult;
use super::protocol::{architecture_name, Options, ARCHITECTURES, SOURCES};
use super::published;
use super::ReproError;
use crate::machine;
use crate::report::{self, svg, Table};

/// The cells of one data set, network and method.
/// The cells of `method` on data set `key`, network `a`.
pub(super) fn select<'a>(cells: &'a [CellResult], key: &str, a: usize, method: &str) -> Vec<&'a CellResult> {
    cells
        .iter()
        .filter(|c| c.dataset == key && c.architecture == a && c.method == method)
        .collect()
}

/// The run with the lowest objective.
/// The run with the lowest objective.
pub(super) fn best<'a>(cells: &[&'a CellResult]) -> Option<&'a CellResult> {
    cells.iter().copied().min_by(|x, y| x.objective.total_cmp(&y.objective))
}

/// `[#wins; #defs]` of `first` against `second` over the runs both have: a
/// method beats the other when its value is more than 5% better (smaller).
pub(crate) fn wins_defeats(first: &[(usize, f64)], second: &[(usize, f64)]) -> (u32, u32) {
    let (mut w, mut d) = (0, 0);
    for (run, a) in first {
        if let Some((_, b)) = second.iter().find(|(r, _)| r == run) {
            if *a < 0.95 * b {
                w += 1;
            } else if *b < 0.95 * a {
                d += 1;
            }
        }
    }
    (w, d)
}

/// The median objective of `cells` (the mean of the middle two for an
/// even count), NaN for none: printed beside the best of the runs, which
/// alone says little about ten starts.
fn median_objective(cells: &[&CellResult]) -> f64 {
    let mut v: Vec<f64> = cells.iter().map(|c| c.objective).collect();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

/// `(run, value)` of each cell.
pub(super) fn values(cells: &[&CellResult], f: fn(&CellResult) -> f64) -> Vec<(usize, f64)> {
    cells.iter().map(|c| (c.run, f(c))).collect()
}

fn sci(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.2e}")
    } else {
        "—".into()
    }
}

fn pair((w, d): (u32, u32)) -> String {
    format!("[{w}; {d}]")
}

/// One comparison: `(first, second)` methods, the value compared.
fn comparison_table(
    cells: &[CellResult],
    opts: &Options,
    first: &str,
    second: &str,
    value: fn(&CellResult) -> f64,
    paper: &[[(u32, u32); 5]; 7],
    totals: &mut [(u32, u32); 2],
) -> Table {
    let mut header = vec!["data set".to_string()];
    for &a in &opts.architectures {
        header.push(format!("{} ours", architecture_name(a)));
        header.push("paper".into());
    }
    let mut t = Table { header, rows: vec![] };
    for (d, s) in SOURCES.iter().enumerate() {
        if !opts.includes(s) {
            continue;
        }
        let mut row = vec![s.paper_name.to_string()];
        for &a in &opts.architectures {
            let wd = wins_defeats(
                &values(&select(cells, s.key, a, first), value),
                &values(&select(cells, s.key, a, second), value),
            );
            totals[0].0 += wd.0;
            totals[0].1 += wd.1;
            totals[1].0 += paper[d][a].0;
            totals[1].1 += paper[d][a].1;
            row.push(pair(wd));
            row.push(pair(paper[d][a]));
        }
        t.push(row);
    }
    t
}

/// Wins and defeats summed over the cells, ours then the paper's, for the
/// four comparisons of Tables 3, 4 and 7 (objective, test error).
type Totals = [[(u32, u32); 2]; 4];

/// Write `report.md`, `cells.csv` and the figures into `opts.out_dir`.
pub fn write(
    opts: &Options,
    cells: &[CellResult],
    skipped: usize,
    reused: usize,
    seconds: f64,
) -> Result<PathBuf, ReproError> {
    let dir = &opts.out_dir;
    let mut md = String::new();
    let mut totals: Totals = [[(0, 0); 2]; 4];
    header(&mut md, opts, cells, skipped, reused, seconds);
    md.push_str(&crate::report::claims::section(&super::claims::judge(opts, cells)));
    table_2(&mut md, opts, cells)?;
    super::calibration::section(&mut md, opts, cells);
    tables_3_4(&mut md, opts, cells, &mut totals);
    table_5(&mut md, opts, cells);
    table_6(&mut md, opts, cells);
    table_7(&mut md, opts, cells, &mut totals);
    table_8(&mut md, opts, cells);
    summary(&mut md, &totals);
    figures_2_3(&mut md, opts, cells)?;
    every_cell(&mut md, opts, cells)?;
    let path = dir.join("report.md");
    report::write(dir, "report.md", &md)?;
    Ok(path)
}

/// The flags of `cargo xtask reproduce palagi-seccia` that give `opts`.
pub(super) fn run_flags(opts: &Options) -> String {
    let mut flags = vec![];
    let all = (0..ARCHITECTURES.len()).collect::<Vec<_>>();
    if opts.b2ld_stall == StallRule::PerCycle {
        flags.push("--b2ld-per-cycle".to_string());
    }
    if opts.lbfgs_window == 1 {
        flags.push("--lbfgs-per-iteration".to_string());
    }
    if opts.architectures != all {
        let list: Vec<String> = opts.architectures.iter().map(ToString::to_string).collect();
        flags.push(format!("--architectures {}", list.join(",")));
    }
    if !opts.quick {
        let scale = opts.batch_limit.as_secs_f64() / 150.0;
        if (scale - super::DEFAULT_TIME_SCALE).abs() > 1e-9 {
            flags.push(format!("--time-scale {}", (scale * 1e6).round() / 1e6));
        }
        if opts.runs != 10 {
            flags.push(format!("--runs {}", opts.runs));
        }
    }
    let quick = if opts.quick { " --quick" } else { "" };
    if flags.is_empty() {
        quick.to_string()
    } else {
        format!("{quick} -- {}", flags.join(" "))
    }
}

/// Which machines ran the cells, with their counts (a time limit means
/// something only on the machine that ran it).
pub(super) fn machines_line(cells: &[CellResult]) -> String {
    let mut counts: Vec<(&str, usize)> = vec![];
    for c in cells {
        match counts.iter_mut().find(|(m, _)| *m == c.machine()) {
            Some((_, n)) => *n += 1,
            None => counts.push((c.machine(), 1)),
        }
    }
    let list: Vec<String> = counts.iter().map(|(m, n)| format!("{n} on {m}")).collect();
    if counts.len() > 1 {
        format!(
            "**The cells ran on {} machines** ({}): their times, and what a time limit allowed, are not comparable across them.",
            counts.len(),
            list.join(", ")
        )
    } else {
        format!("Cells by machine: {}.", list.join(", "))
    }
}

/// The title, the run's line, the protocol and the data notes (Table 1's
/// sizes).
fn header(md: &mut String, opts: &Options, cells: &[CellResult], skipped: usize, reused: usize, seconds: f64) {
    let n_cells = cells.len();
    let title = if opts.quick { " (quick run)" } else { "" };
    let _ = writeln!(
        md,
        "# Palagi & Seccia, block layer decomposition for deep networks{title}\n\n\
         Generated by `cargo xtask reproduce palagi-seccia{}` on {} ({}), {:.0} s; {} cells, {reused} of \
         them read back from an earlier run (their times are that run's, on the machine it ran on){}. {}\n",
        run_flags(opts),
        machine::utc_now(),
        machine::description_with_blas(),
        seconds,
        n_cells,
        if skipped > 0 {
            format!(", **{skipped} not run (time budget)**")
        } else {
            String::new()
        },
        machines_line(cells)
    );
    let _ = writeln!(
        md,
        "**Protocol.** {} run(s) per data set and network, every method from the same starting weights \
         (`U[−0.5, 0.5]`, seed 1000 + run); objective (3) with ρ = 10⁻³/n; features and target scaled \
         to [0, 1] by the training part; networks without biases, a constant input column (Table 1's \
         counts of variables). Time limits: **{:.1} s** for B2LD and L-BFGS (paper: 150 s, ×{:.3}), \
         **{:.1} s** for BLInG and IG (paper: 60 s, ×{:.3}); {} cell(s) at once, one BLAS thread each. \
         B2LD: ε₀ = 10⁻⁵, δ = 0.5, ≤ 10 L-BFGS iterations per block, memory 10, the last layer by \
         L-BFGS (as the paper), {}; L-BFGS: memory 10, {}; BLInG/IG: minibatches of {} in one random order per run, drawn once from the run's seed (the paper gives no size).{}\n",
        opts.runs,
        opts.batch_limit.as_secs_f64(),
        opts.batch_limit.as_secs_f64() / 150.0,
        opts.minibatch_limit.as_secs_f64(),
        opts.minibatch_limit.as_secs_f64() / 60.0,
        opts.workers,
        match opts.b2ld_stall {
            StallRule::ForGood => {
                "a block whose update lowered f by at most 10⁻⁴·max{f, 1} is not updated again (the fit stops \
                 when none is left)"
            }
            StallRule::PerCycle => {
                "every block updated in every cycle, the fit stopping after a cycle in which each block's update \
                 lowered f by at most 10⁻⁴·max{f, 1} (`--b2ld-per-cycle`)"
            }
        },
        match opts.lbfgs_window {
            1 => "stopped after an iteration that lowered f by at most 10⁻⁴·max{f, 1} (`--lbfgs-per-iteration`)"
                .to_string(),
            w => format!(
                "stopped when {w} iterations (the paper's SciPy calls) lowered f by at most 10⁻⁴·max{{f, 1}}, \
                 checked at the end of each call"
            ),
        },
        opts.batch_size,
        match (opts.train_cap, opts.test_cap) {
            (Some(a), Some(b)) => format!(" Data capped at {a} training and {b} test samples."),
            _ => String::new(),
        }
    );
    let _ = writeln!(
        md,
        "**Data.** Table 1's sizes by a seeded split of the shuffled rows.\n"
    );
    for s in SOURCES.iter().filter(|s| opts.includes(s) && !s.note.is_empty()) {
        let _ = writeln!(md, "- {}: {}.", s.paper_name, s.note);
    }
    let _ = writeln!(md);
}

/// Table 2: the best run of B2LD and of L-BFGS per data set, one table per
/// network, ours beside the paper's; also `table2.csv`.
fn table_2(md: &mut String, opts: &Options, cells: &[CellResult]) -> std::io::Result<()> {
    let _ = writeln!(
        md,
        "## Table 2: best of the runs, B2LD and L-BFGS\n\nThe run with the lowest objective per method; \
         ours (with the median objective of the runs beside it), then the paper's.\n"
    );
    let mut csv = Table::new(&[
        "architecture",
        "dataset",
        "method",
        "objective",
        "gradient_norm",
        "seconds",
        "paper_objective",
        "paper_gradient_norm",
        "paper_seconds",
    ]);
    for &a in &opts.architectures {
        let mut t = Table::new(&[
            "data set",
            "f B2LD",
            "f L-BFGS",
            "median f B2LD",
            "median f L-BFGS",
            "‖∇f‖ B2LD",
            "‖∇f‖ L-BFGS",
            "s B2LD",
            "s L-BFGS",
            "paper f B2LD",
            "paper f L-BFGS",
            "paper ‖∇f‖ B2LD",
            "paper ‖∇f‖ L-BFGS",
            "paper s B2LD",
            "paper s L-BFGS",
        ]);
        for (d, s) in SOURCES.iter().enumerate() {
            if !opts.includes(s) {
                continue;
            }
            let p = published::TABLE_2[a][d];
            let b = [
                best(&select(cells, s.key, a, "b2ld")),
                best(&select(cells, s.key, a, "lbfgs")),
            ];
            let get = |i: usize, f: fn(&CellResult) -> f64| b[i].map_or(f64::NAN, f);
            t.push(vec![
                s.paper_name.into(),
                sci(get(0, |c| c.objective)),
                sci(get(1, |c| c.objective)),
                sci(median_objective(&select(cells, s.key, a, "b2ld"))),
                sci(median_objective(&select(cells, s.key, a, "lbfgs"))),
                sci(get(0, |c| c.gradient_norm)),
                sci(get(1, |c| c.gradient_norm)),
                format!("{:.2}", get(0, |c| c.seconds)),
                format!("{:.2}", get(1, |c| c.seconds)),
                sci(p.objective[0]),
                sci(p.objective[1]),
                sci(p.gradient_norm[0]),
                sci(p.gradient_norm[1]),
                format!("{:.2}", p.cpu_seconds[0]),
                format!("{:.2}", p.cpu_seconds[1]),
            ]);
            for (i, m) in ["b2ld", "lbfgs"].iter().enumerate() {
                csv.push(vec![
                    architecture_name(a).into(),
                    s.key.into(),
                    (*m).into(),
                    format!("{:e}", get(i, |c| c.objective)),
                    format!("{:e}", get(i, |c| c.gradient_norm)),
                    format!("{:.3}", get(i, |c| c.seconds)),
                    format!("{:e}", p.objective[i]),
                    format!("{:e}", p.gradient_norm[i]),
                    format!("{}", p.cpu_seconds[i]),
                ]);
            }
        }
        let _ = writeln!(md, "### {}\n\n{}", architecture_name(a), t.markdown());
    }
    report::write(&opts.out_dir, "table2.csv", &csv.csv())
}

/// Tables 3 and 4: wins and defeats of B2LD against L-BFGS, on the
/// objective and on the test error; adds them to `totals[0..2]`.
fn tables_3_4(md: &mut String, opts: &Options, cells: &[CellResult], totals: &mut Totals) {
    let t3 = comparison_table(
        cells,
        opts,
        "b2ld",
        "lbfgs",
        |c| c.objective,
        &published::TABLE_3,
        &mut totals[0],
    );
    let t4 = comparison_table(
        cells,
        opts,
        "b2ld",
        "lbfgs",
        |c| c.test_error,
        &published::TABLE_4,
        &mut totals[1],
    );
    let _ = writeln!(
        md,
        "## Table 3: [#wins; #defs] of B2LD against L-BFGS, objective\n\nA method beats the other when its \
         value is more than 5% smaller, run by run (same start).\n\n{}\n## Table 4: the same on the test \
         error (mean squared error on the test set)\n\n{}",
        t3.markdown(),
        t4.markdown()
    );
}

/// Table 5: updates per layer of the best B2LD run on [10 x 50], when that
/// network was run.
fn table_5(md: &mut String, opts: &Options, cells: &[CellResult]) {
    if !opts.architectures.contains(&4) {
        return;
    }
    let mut t = Table::new(&[
        "data set", "source", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10",
    ]);
    for (d, s) in SOURCES.iter().enumerate() {
        if !opts.includes(s) {
            continue;
        }
        let mut ours = vec![s.paper_name.to_string(), "ours".into()];
        match best(&select(cells, s.key, 4, "b2ld")) {
            Some(c) => ours.extend(c.updates_per_layer.iter().map(|u| u.to_string())),
            None => ours.extend((0..11).map(|_| "—".to_string())),
        }
        t.push(ours);
        let mut paper = vec![String::new(), "paper".into()];
        paper.extend(published::TABLE_5[d].iter().map(|u| u.to_string()));
        t.push(paper);
    }
    let _ = writeln!(
        md,
        "## Table 5: updates per layer (first layer = 0) of the best B2LD run on [10 x 50]\n\n{}",
        t.markdown()
    );
}

/// The columns of Tables 6 and 8: BLInG and IG, objective and test error,
/// ours then the paper's.
const BLING_IG_COLUMNS: [&str; 9] = [
    "data set",
    "f BLInG",
    "f IG",
    "test BLInG",
    "test IG",
    "paper f BLInG",
    "paper f IG",
    "paper test BLInG",
    "paper test IG",
];

/// Table 6: the best run of BLInG and of IG per data set and its test
/// error, one table per network, ours beside the paper's.
fn table_6(md: &mut String, opts: &Options, cells: &[CellResult]) {
    let _ = writeln!(
        md,
        "## Table 6: best of the runs, BLInG and IG\n\nThe run with the lowest objective per method and its \
         test error; ours (with the median objective of the runs beside it), then the paper's.\n"
    );
    let mut header = BLING_IG_COLUMNS.to_vec();
    header.splice(3..3, ["median f BLInG", "median f IG"]);
    for &a in &opts.architectures {
        let mut t = Table::new(&header);
        for (d, s) in SOURCES.iter().enumerate() {
            if !opts.includes(s) {
                continue;
            }
            let p = published::TABLE_6[a][d];
            let b = [
                best(&select(cells, s.key, a, "bling")),
                best(&select(cells, s.key, a, "ig")),
            ];
            let get = |i: usize, f: fn(&CellResult) -> f64| b[i].map_or(f64::NAN, f);
            t.push(vec![
                s.paper_name.into(),
                sci(get(0, |c| c.objective)),
                sci(get(1, |c| c.objective)),
                sci(median_objective(&select(cells, s.key, a, "bling"))),
                sci(median_objective(&select(cells, s.key, a, "ig"))),
                sci(get(0, |c| c.test_error)),
                sci(get(1, |c| c.test_error)),
                sci(p.objective[0]),
                sci(p.objective[1]),
                sci(p.test_error[0]),
                sci(p.test_error[1]),
            ]);
        }
        let _ = writeln!(md, "### {}\n\n{}", architecture_name(a), t.markdown());
    }
}

/// Table 7: wins and defeats of BLInG against IG, on the objective and on
/// the test error; adds them to `totals[2..4]`.
fn table_7(md: &mut String, opts: &Options, cells: &[CellResult], totals: &mut Totals) {
    let t7o = comparison_table(
        cells,
        opts,
        "bling",
        "ig",
        |c| c.objective,
        &published::TABLE_7_OBJECTIVE,
        &mut totals[2],
    );
    let t7t = comparison_table(
        cells,
        opts,
        "bling",
        "ig",
        |c| c.test_error,
        &published::TABLE_7_TEST,
        &mut totals[3],
    );
    let _ = writeln!(
        md,
        "## Table 7: [#wins; #defs] of BLInG against IG\n\n### Objective\n\n{}\n### Test error\n\n{}",
        t7o.markdown(),
        t7t.markdown()
    );
}

/// Table 8: the best BLInG and IG values on [10 x 50] divided by those on
/// [1 x 50], when both networks were run.
fn table_8(md: &mut String, opts: &Options, cells: &[CellResult]) {
    if !(opts.architectures.contains(&0) && opts.architectures.contains(&4)) {
        return;
    }
    let mut t = Table::new(&BLING_IG_COLUMNS);
    for (d, s) in SOURCES.iter().enumerate() {
        if !opts.includes(s) {
            continue;
        }
        let ratio = |m: &str, f: fn(&CellResult) -> f64| {
            let deep = best(&select(cells, s.key, 4, m)).map_or(f64::NAN, f);
            let shallow = best(&select(cells, s.key, 0, m)).map_or(f64::NAN, f);
            deep / shallow
        };
        let p = published::TABLE_8[d];
        let f2 = report::fixed2;
        t.push(vec![
            s.paper_name.into(),
            f2(ratio("bling", |c| c.objective)),
            f2(ratio("ig", |c| c.objective)),
            f2(ratio("bling", |c| c.test_error)),
            f2(ratio("ig", |c| c.test_error)),
            f2(p[0]),
            f2(p[1]),
            f2(p[2]),
            f2(p[3]),
        ]);
    }
    let _ = writeln!(
        md,
        "## Table 8: best value on [10 x 50] divided by best on [1 x 50]\n\nAbove 1: the deeper network \
         is worse (the best run of each).\n\n{}",
        t.markdown()
    );
}

/// The summary of Tables 3, 4 and 7: wins and defeats summed over the data
/// sets and networks run, ours beside the paper's.
fn summary(md: &mut String, totals: &Totals) {
    let mut t = Table::new(&["comparison", "ours [wins; defs]", "paper [wins; defs]"]);
    for (name, tot) in [
        "B2LD vs L-BFGS, objective (Table 3)",
        "B2LD vs L-BFGS, test error (Table 4)",
        "BLInG vs IG, objective (Table 7)",
        "BLInG vs IG, test error (Table 7)",
    ]
    .iter()
    .zip(totals)
    {
        t.push(vec![(*name).into(), pair(tot[0]), pair(tot[1])]);
    }
    let _ = writeln!(
        md,
        "## Summary: wins and defeats summed over the data sets and networks run\n\n(the paper's sums are over \
         the same data sets and networks; its runs are 10 per cell.)\n\n{}",
        t.markdown()
    );
}

/// Figs. 2 and 3: the best objective per network, B2LD and L-BFGS (Fig. 2)
/// and BLInG and IG (Fig. 3), ours beside the paper's; one SVG per data set.
fn figures_2_3(md: &mut String, opts: &Options, cells: &[CellResult]) -> std::io::Result<()> {
    let _ = writeln!(md, "## Figures 2–3: best objective per network\n");
    for (fig, methods, labels) in [
        (2, ["b2ld", "lbfgs"], ["B2LD", "L-BFGS"]),
        (3, ["bling", "ig"], ["BLInG", "IG"]),
    ] {
        for (d, s) in SOURCES.iter().enumerate() {
            if !opts.includes(s) {
                continue;
            }
            let mut series = vec![];
            for (i, m) in methods.iter().enumerate() {
                let pts: Vec<(f64, f64)> = opts
                    .architectures
                    .iter()
                    .filter_map(|&a| best(&select(cells, s.key, a, m)).map(|c| ((a + 1) as f64, c.objective)))
                    .filter(|(_, v)| *v > 0.0 && v.is_finite())
                    .collect();
                series.push(svg::Series::line(format!("{} (ours)", labels[i]), pts));
            }
            for (i, label) in labels.iter().enumerate() {
                let pts: Vec<(f64, f64)> = opts
                    .architectures
                    .iter()
                    .map(|&a| {
                        let v = if fig == 2 {
                            published::TABLE_2[a][d].objective[i]
                        } else {
                            published::TABLE_6[a][d].objective[i]
                        };
                        ((a + 1) as f64, v)
                    })
                    .filter(|(_, v)| *v > 0.0 && v.is_finite())
                    .collect();
                series.push(svg::Series::paper(format!("{label} (paper)"), pts, i));
            }
            let name = format!("fig{fig}-{}.svg", s.key);
            let plot = svg::line_plot(
                &format!("Fig. {fig}: {} — best objective per network", s.paper_name),
                "network (1 = [1x50], 2 = [3x20], 3 = [200,50,200], 4 = [5x50], 5 = [10x50])",
                "best f(w)",
                &series,
                true,
            );
            report::write(&opts.out_dir, &name, &plot)?;
            let _ = write!(md, "![{name}]({name}) ");
        }
        let _ = writeln!(md, "\n");
    }
    Ok(())
}

/// Every cell (not a table of the paper): `cells.csv`, and the report's
/// closing line naming the files and the networks of Table 1.
fn every_cell(md: &mut String, opts: &Options, cells: &[CellResult]) -> std::io::Result<()> {
    let mut all = Table::new(&[
        "dataset",
        "architecture",
        "method",
        "run",
        "n_train",
        "limit_s",
        "seconds",
        "objective",
        "gradient_norm",
        "test_error",
        "iterations",
        "updates_per_layer",
        "termination",
    ]);
    for c in cells {
        all.push(vec![
            c.dataset.clone(),
            architecture_name(c.architecture).into(),
            c.method.clone(),
            c.run.to_string(),
            c.n_train.to_string(),
            format!("{}", c.limit),
            format!("{:.3}", c.seconds),
            format!("{:e}", c.objective),
            format!("{:e}", c.gradient_norm),
            format!("{:e}", c.test_error),
            c.iterations.to_string(),
            c.updates_per_layer
                .iter()
                .map(|u| u.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            c.termination.clone(),
        ]);
    }
    report::write(&opts.out_dir, "cells.csv", &all.csv())?;
    let _ = writeln!(
        md,
        "Every cell: `cells.csv` (and `cells/*.json`, with run 0's objective history); Table 2 as CSV: \
         `table2.csv`. Networks: {}.",
        ARCHITECTURES
            .iter()
            .enumerate()
            .map(|(a, _)| architecture_name(a))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
