//! The report: Figs. 4–5 (toy RMSE against σ), Table I (best accuracy),
//! Table II (time per epoch, batch 1 and the batch of the curves), the time
//! to reach BPLS's accuracy, Figs. 7 and 9 as SVG, CSV and JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use super::mnist::RunCell;
use super::timing::TimingCell;
use super::toy::{Problem, ToyPoint, METHODS};
use super::{published, Options, ReproError};
use crate::machine;
use crate::report::{self, fixed2, svg, Table};

use crate::report::stats::mean;

/// A ratio to two significant digits (at least the integer part).
fn ratio(v: f64) -> String {
    if !v.is_finite() {
        "—".into()
    } else if v >= 10.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn secs(v: f64) -> String {
    if !v.is_finite() {
        "—".into()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// The runs of `method` with minibatch `batch` (`None`: BPLS).
fn runs<'a>(cells: &'a [RunCell], method: &str, batch: Option<usize>) -> Vec<&'a RunCell> {
    cells
        .iter()
        .filter(|c| c.method == method && c.batch == batch)
        .collect()
}

/// Mean over runs of the accuracy after each epoch (runs that have it).
fn mean_curve(rs: &[&RunCell], x_time: bool, test: bool) -> Vec<(f64, f64)> {
    let mut by_epoch: BTreeMap<usize, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rs {
        for e in &r.epochs {
            let acc = if test { e.test_accuracy } else { e.train_accuracy };
            by_epoch.entry(e.epoch).or_default().push((e.seconds, acc));
        }
    }
    by_epoch
        .into_iter()
        .map(|(epoch, v)| {
            let x = if x_time {
                mean(v.iter().map(|p| p.0)).max(1e-6).log10()
            } else {
                epoch as f64
            };
            (x, mean(v.iter().map(|p| p.1)))
        })
        .collect()
}

/// Write everything; the path of report.md.
pub(super) fn write(
    opts: &Options,
    toy: &[ToyPoint],
    cells: &[RunCell],
    timing: Option<&TimingCell>,
    (reused, skipped): (usize, usize),
    seconds: f64,
) -> Result<PathBuf, ReproError> {
    let mut md = String::new();
    header(&mut md, opts, reused, skipped, seconds);
    md.push_str(&crate::report::claims::section(&super::claims::judge(
        opts, toy, cells, timing,
    )));
    toy_section(&mut md, opts, toy)?;
    mnist_protocol(&mut md, opts, cells);
    table_i(&mut md, opts, cells)?;
    table_ii(&mut md, opts, cells, timing)?;
    figures_7_9(&mut md, opts, cells)?;
    md.push_str(&super::readings::section(&opts.out_dir)?);
    every_epoch(&mut md, opts, toy, cells)?;
    let path = opts.out_dir.join("report.md");
    report::write(&opts.out_dir, "report.md", &md)?;
    Ok(path)
}

/// The title and the run's line: quick or full, when, where, how long.
fn header(md: &mut String, opts: &Options, reused: usize, skipped: usize, seconds: f64) {
    let _ = writeln!(
        md,
        "# Tomic et al. (2024): BPLS — reproduction\n\n{} run, {} (UTC) on {}; {:.0} s ({} cells read back from `cells/`, \
         their times those of the run that computed them{}).\n",
        if opts.quick { "Quick" } else { "Full" },
        machine::utc_now(),
        machine::description_with_blas(),
        seconds,
        reused,
        if skipped > 0 {
            format!(", **{skipped} not run: time budget**")
        } else {
            String::new()
        }
    );
}

/// Figs. 4–5: the toy problems' RMSE against σ, one table, CSV and pair of
/// SVGs per problem, then BPLS's clipping sweep and the mean training times.
fn toy_section(md: &mut String, opts: &Options, toy: &[ToyPoint]) -> std::io::Result<()> {
    let _ = writeln!(
        md,
        "## Toy problems (Figs. 4–5)\n\n{} Monte Carlo runs per σ (the paper: 1000), backprop {} epochs at batch 1 \
         (the paper: 1000), η = 10⁻³, AdaGrad 10⁻¹. RMSE against the noise-free function on the training inputs \
         1, 3, …, 9 and the test inputs 2, 4, …, 10.\n",
        opts.toy_runs, opts.toy_epochs
    );
    for problem in Problem::ALL {
        toy_problem(md, opts, toy, problem)?;
    }
    clip_sweep(md, opts, toy)?;
    let mean_s: Vec<String> = METHODS
        .iter()
        .map(|m| {
            format!(
                "{m} {}",
                secs(mean(toy.iter().filter(|p| p.method == *m).map(|p| p.seconds)))
            )
        })
        .collect();
    let _ = writeln!(md, "Mean training time per run (s): {}.\n", mean_s.join(", "));
    Ok(())
}

/// Fig. 4 (the linear problem) or Fig. 5 (the non-linear one): the RMSE
/// of every method against σ as a table, `toy_<problem>.csv` and one SVG
/// each for the training and the test inputs.
fn toy_problem(md: &mut String, opts: &Options, toy: &[ToyPoint], problem: Problem) -> std::io::Result<()> {
    let pts: Vec<&ToyPoint> = toy.iter().filter(|p| p.problem == problem.key()).collect();
    let mut t = Table::new(&["σ"]);
    for m in METHODS {
        t.header.push(format!("{m} train"));
        t.header.push(format!("{m} test"));
    }
    let mut sigmas: Vec<f64> = pts.iter().map(|p| p.sigma).collect();
    // Every σ once: the points come σ by σ per method, so equal σ are not
    // adjacent until sorted.
    sigmas.sort_by(f64::total_cmp);
    sigmas.dedup();
    for &s in &sigmas {
        let mut row = vec![format!("{s:.1}")];
        for m in METHODS {
            let p = pts.iter().find(|p| p.sigma == s && p.method == m);
            row.push(p.map_or("—".into(), |p| format!("{:.4}", p.rmse_train)));
            row.push(p.map_or("—".into(), |p| format!("{:.4}", p.rmse_test)));
        }
        t.push(row);
    }
    let _ = writeln!(
        md,
        "### {} ({} function)\n\n{}",
        problem.figure(),
        problem.key(),
        t.markdown()
    );
    report::write(&opts.out_dir, &format!("toy_{}.csv", problem.key()), &t.csv())?;
    for (phase, test) in [("train", false), ("test", true)] {
        let series: Vec<svg::Series> = METHODS
            .iter()
            .map(|m| {
                svg::Series::line(
                    *m,
                    pts.iter()
                        .filter(|p| p.method == *m)
                        .map(|p| (p.sigma, if test { p.rmse_test } else { p.rmse_train }))
                        .collect(),
                )
            })
            .collect();
        let name = format!(
            "fig{}_{}_{phase}.svg",
            if problem == Problem::Linear { 4 } else { 5 },
            problem.key()
        );
        let plot = svg::line_plot(
            &format!("{} {} function, {phase} (RMSE vs σ)", problem.figure(), problem.key()),
            "σ",
            "RMSE",
            &series,
            false,
        );
        report::write(&opts.out_dir, &name, &plot)?;
        let _ = writeln!(md, "![{name}]({name})");
    }
    let _ = writeln!(md);
    Ok(())
}

/// Beside Fig. 5 (not in the paper): BPLS's clipping margin δ on the
/// non-linear problem, as a table and `toy_clip_sweep.csv`, when it was run.
fn clip_sweep(md: &mut String, opts: &Options, toy: &[ToyPoint]) -> std::io::Result<()> {
    let sweep: Vec<&ToyPoint> = toy.iter().filter(|p| p.method.starts_with("BPLS δ=")).collect();
    if sweep.is_empty() {
        return Ok(());
    }
    let mut t = Table::new(&["σ"]);
    for c in super::toy::CLIPS {
        t.header.push(format!("δ={c} train"));
        t.header.push(format!("δ={c} test"));
    }
    let mut sigmas: Vec<f64> = sweep.iter().map(|p| p.sigma).collect();
    // Every σ once: the points come σ by σ per method, so equal σ are not
    // adjacent until sorted.
    sigmas.sort_by(f64::total_cmp);
    sigmas.dedup();
    for &s in &sigmas {
        let mut row = vec![format!("{s:.1}")];
        for c in super::toy::CLIPS {
            let name = format!("BPLS δ={c}");
            let p = sweep.iter().find(|p| p.sigma == s && p.method == name);
            row.push(p.map_or("—".into(), |p| format!("{:.4}", p.rmse_train)));
            row.push(p.map_or("—".into(), |p| format!("{:.4}", p.rmse_test)));
        }
        t.push(row);
    }
    let _ = writeln!(
        md,
        "### BPLS's clipping margin δ on the non-linear problem\n\nBPLS inverts the sigmoid outputs: noisy targets \
         are clipped into [δ, 1 − δ] before the logit (the paper does not say how it handles targets outside \
         (0, 1)). The same runs as Fig. 5, BPLS alone, for each δ (the default 10⁻³ first):\n\n{}",
        t.markdown()
    );
    report::write(&opts.out_dir, "toy_clip_sweep.csv", &t.csv())
}

/// The protocol of the MNIST-like experiment of Fig. 7 and Tables I–II:
/// network, data, runs, batches and epochs.
fn mnist_protocol(md: &mut String, opts: &Options, cells: &[RunCell]) {
    let bpls = runs(cells, "BPLS", None);
    let _ = writeln!(
        md,
        "## {}: one hidden layer of 50 sigmoid neurons, softmax output (Fig. {}, Tables I–II)\n\n{} training and \
         {} test images, pixels / 255. BPLS: Algorithm 2, {} runs. Backprop (cross-entropy, η = 10⁻³): {} runs per \
         rule at batch {} for {} epochs; one run per rule at batch 1 on {} images for {} epoch(s). Accuracy after \
         each epoch, evaluated outside the timed training.\n",
        opts.dataset,
        if opts.dataset == "Fashion-MNIST" { 8 } else { 7 },
        opts.train_samples,
        opts.test_samples,
        bpls.len(),
        opts.backprop_runs,
        opts.batch,
        opts.epochs,
        opts.batch1_samples,
        opts.batch1_epochs
    );
    if opts.dataset != "Fashion-MNIST" {
        let _ = writeln!(
            md,
            "**Substitutions.** The paper's Fig. 9 and Table II are on Fashion-MNIST; here they are on {}, the \
             data set of this run. Fig. 8, Table I's Fashion-MNIST rows and Fig. 9 / Table II on Fashion-MNIST are \
             in the Fashion-MNIST report (`cargo xtask reproduce tomic-bpls` runs the protocol a second time on \
             Debian's Fashion-MNIST and writes `tomic-bpls-fashion-mnist/`; `-- --data-dir DIR` runs it on any \
             MNIST-style directory).\n",
            opts.dataset
        );
    }
}

/// Table I: the best training and test accuracy of every method and batch
/// (mean over runs of each run's best epoch) beside the paper's; also
/// `table1.csv`.
fn table_i(md: &mut String, opts: &Options, cells: &[RunCell]) -> std::io::Result<()> {
    let ds = opts.dataset.as_str();
    let bpls = runs(cells, "BPLS", None);
    let mut t1 = Table::new(&[
        "algorithm",
        "batch",
        "runs",
        "best train % (ours)",
        "best test % (ours)",
        "paper train %",
        "paper test %",
        "epochs (ours)",
    ]);
    let mut groups: Vec<(String, Option<usize>)> = vec![("BPLS".into(), None), (super::mnist::BPLS_ALG1.into(), None)];
    for k in super::RULES {
        groups.push((k.label().into(), Some(opts.batch)));
        groups.push((k.label().into(), Some(1)));
    }
    for (m, b) in &groups {
        let rs = runs(cells, m, *b);
        if rs.is_empty() {
            continue;
        }
        let (tr, te) = (mean(rs.iter().map(|r| r.best().0)), mean(rs.iter().map(|r| r.best().1)));
        let paper = published::table_i(ds, m);
        let epochs = mean(rs.iter().map(|r| r.epochs.len() as f64));
        t1.push(vec![
            m.clone(),
            b.map_or("—".into(), |b| b.to_string()),
            rs.len().to_string(),
            fixed2(tr),
            fixed2(te),
            paper.map_or("—".into(), |p| fixed2(p.0)),
            paper.map_or("—".into(), |p| fixed2(p.1)),
            format!("{epochs:.1}"),
        ]);
    }
    let paper_epochs = published::BPLS_EPOCHS
        .iter()
        .find(|(d, _)| *d == ds)
        .map_or("—".into(), |(_, e)| e.to_string());
    let _ = writeln!(
        md,
        "### Table I: best accuracy (mean over runs of each run's best epoch)\n\n{}\nBPLS took {} epochs on \
         average (its last pass is the one that did not decrease the misses; the weights returned are the best \
         epoch's); the paper: {paper_epochs}. The paper's baselines ran at batch 1.\n",
        t1.markdown(),
        mean(bpls.iter().map(|r| r.epochs.len() as f64))
    );
    report::write(&opts.out_dir, "table1.csv", &t1.csv())
}

/// BPLS's mean final test accuracy: the level of Table II's "time to
/// BPLS's accuracy" columns.
fn bpls_final_test(cells: &[RunCell]) -> f64 {
    let bpls = runs(cells, "BPLS", None);
    mean(bpls.iter().filter_map(|r| r.epochs.last().map(|e| e.test_accuracy)))
}

/// Table II: training time per epoch of every method (batch 1 and the
/// batch of the curves) and its ratio to BPLS's, beside the paper's, with
/// the time to reach BPLS's final test accuracy; also `table2.csv`. The
/// epoch times are the interleaved timing's medians ([`TimingCell`]) when
/// it ran, the curve runs' otherwise; the curve runs' stand beside them.
fn table_ii(md: &mut String, opts: &Options, cells: &[RunCell], timing: Option<&TimingCell>) -> std::io::Result<()> {
    let bpls = runs(cells, "BPLS", None);
    let final_test = bpls_final_test(cells);
    let curve_bpls = mean(bpls.iter().map(|r| r.seconds_per_epoch()));
    let bpls_epoch = timing.and_then(|t| t.epoch("BPLS", None)).unwrap_or(curve_bpls);
    let source = if timing.is_some() { "interleaved" } else { "curve runs" };
    let mut t2 = Table::new(&[
        "algorithm",
        &format!("s/epoch batch 1 ({source})"),
        "× BPLS",
        &format!("s/epoch batch {} ({source})", opts.batch),
        "× BPLS",
        &format!("curve runs: batch 1, batch {}", opts.batch),
        "paper s/epoch (batch 1)",
        "paper × BPLS",
        &format!("s to {final_test:.2}% test, batch 1"),
        &format!("s to {final_test:.2}% test, batch {}", opts.batch),
    ]);
    let paper_bpls = published::table_ii("BPLS").unwrap_or(f64::NAN);
    for name in ["BPLS", super::mnist::BPLS_ALG1] {
        let rs = runs(cells, name, None);
        if rs.is_empty() {
            continue;
        }
        let curve = mean(rs.iter().map(|r| r.seconds_per_epoch()));
        let e = timing.and_then(|t| t.epoch(name, None)).unwrap_or(curve);
        let reach = mean(rs.iter().filter_map(|r| r.seconds_to(final_test)));
        let reach = if reach.is_finite() {
            secs(reach)
        } else {
            "not reached".into()
        };
        let paper = if name == "BPLS" {
            (secs(paper_bpls), "1".into())
        } else {
            ("—".into(), "—".into())
        };
        t2.push(vec![
            name.into(),
            secs(e),
            ratio(e / bpls_epoch),
            secs(e),
            ratio(e / bpls_epoch),
            format!("{}, {}", secs(curve), secs(curve)),
            paper.0,
            paper.1,
            reach.clone(),
            reach,
        ]);
    }
    for k in super::RULES {
        t2.push(table_ii_rule(
            opts,
            cells,
            timing,
            k.label(),
            final_test,
            (bpls_epoch, paper_bpls),
        ));
    }
    let threads = cells.iter().map(|c| c.threads).max().unwrap_or(1);
    let how = match timing {
        Some(t) => format!(
            "Epoch times: the median over {} rounds that each timed every method once in turn (BPLS a whole fit, \
             backprop one epoch at each batch size; one untimed round first), so that a slow spell of the machine costs \
             every method one round; the curve runs, which trained each method's epochs back to back, beside them \
             (their median epoch; BPLS its mean). Batch 1 timed on {} images and scaled to {}.",
            t.rounds,
            t.piece("Adam", Some(1)).map_or(opts.batch1_samples, |p| p.samples),
            t.train_samples
        ),
        None => "Epoch times from the curve runs: backprop the median of its epochs' times, BPLS its total over its \
                 epochs (the interleaved timing did not run)."
            .into(),
    };
    let _ = writeln!(
        md,
        "### Table II: training time per epoch\n\n{}\nBPLS: its total training time over its epochs (the first on all images, \
         the others on the misses). {how} Ours: {} training images per epoch, BLAS threads {} for BPLS and batch {}, 1 for \
         batch 1 (its products are too small to share). The paper: Fashion-MNIST (its 40 000 training images), a \
         12-core Ryzen 9 7900. \"s to …\": training time in the curve runs until the test accuracy first reached \
         BPLS's mean final test accuracy ({final_test:.2}%).\n",
        t2.markdown(),
        opts.train_samples,
        threads,
        opts.batch
    );
    report::write(&opts.out_dir, "table2.csv", &t2.csv())
}

/// One backprop rule's row of Table II: its epoch time at batch 1 and at
/// the batch of the curves (interleaved when `timing` ran), their ratios to
/// BPLS's (`bpls.0`), the curve runs' epoch times, the paper's (`bpls.1`
/// its BPLS), and the time to `final_test`.
fn table_ii_rule(
    opts: &Options,
    cells: &[RunCell],
    timing: Option<&TimingCell>,
    m: &str,
    final_test: f64,
    (bpls_epoch, paper_bpls): (f64, f64),
) -> Vec<String> {
    let b1 = runs(cells, m, Some(1));
    let bb = runs(cells, m, Some(opts.batch));
    // Batch 1 may run on fewer images: its epoch time scaled to the
    // training set of the other methods (per-sample cost is constant).
    // Backprop's epochs all do the same work: the median epoch, robust
    // to the host's slow spells (see the notes).
    let scale1 = |r: &&RunCell| opts.train_samples as f64 / r.train_samples.max(1) as f64;
    let curve1 = mean(b1.iter().map(|r| r.median_epoch_seconds() * scale1(r)));
    let curveb = mean(bb.iter().map(|r| r.median_epoch_seconds()));
    let e1 = timing.and_then(|t| t.epoch(m, Some(1))).unwrap_or(curve1);
    let eb = timing.and_then(|t| t.epoch(m, Some(opts.batch))).unwrap_or(curveb);
    let p = published::table_ii(m).unwrap_or(f64::NAN);
    let reach = |rs: &[&RunCell]| {
        let t: Vec<f64> = rs.iter().filter_map(|r| r.seconds_to(final_test)).collect();
        if t.is_empty() {
            "not reached".into()
        } else {
            format!("{} ({}/{} runs)", secs(mean(t.iter().copied())), t.len(), rs.len())
        }
    };
    vec![
        m.into(),
        secs(e1),
        ratio(e1 / bpls_epoch),
        secs(eb),
        ratio(eb / bpls_epoch),
        format!("{}, {}", secs(curve1), secs(curveb)),
        secs(p),
        ratio(p / paper_bpls),
        reach(&b1),
        reach(&bb),
    ]
}

/// Figs. 7 and 9: mean accuracy against epochs (Fig. 7, training and test)
/// and test accuracy against time (Fig. 9), BPLS beside the four rules at
/// one batch size per figure (five lines: the palette's colours stay
/// distinct), as SVG.
fn figures_7_9(md: &mut String, opts: &Options, cells: &[RunCell]) -> std::io::Result<()> {
    let ds = opts.dataset.as_str();
    let bpls = runs(cells, "BPLS", None);
    let fig_series = |batch: usize, x_time: bool, test: bool| -> Vec<svg::Series> {
        let mut s = vec![svg::Series::line("BPLS", mean_curve(&bpls, x_time, test))];
        for k in super::RULES {
            let rs = runs(cells, k.label(), Some(batch));
            if !rs.is_empty() {
                s.push(svg::Series::line(k.label(), mean_curve(&rs, x_time, test)));
            }
        }
        s
    };
    // The paper's accuracy-per-epoch curves are Fig. 7 on MNIST and Fig. 8
    // on Fashion-MNIST.
    let curves = if ds == "Fashion-MNIST" { 8 } else { 7 };
    for batch in [opts.batch, 1] {
        for (phase, test) in [("train", false), ("test", true)] {
            let name = format!("fig{curves}_{phase}_batch{batch}.svg");
            let plot = svg::line_plot(
                &format!("Fig. {curves} ({ds}, {phase}): accuracy vs epoch, backprop at batch {batch}"),
                "epoch",
                "accuracy (%)",
                &fig_series(batch, false, test),
                false,
            );
            report::write(&opts.out_dir, &name, &plot)?;
            let _ = writeln!(md, "![{name}]({name})");
        }
        let name = format!("fig9_test_vs_time_batch{batch}.svg");
        let plot = svg::line_plot(
            &format!("Fig. 9 ({ds}, test): accuracy vs training time, backprop at batch {batch}"),
            "log₁₀ seconds",
            "accuracy (%)",
            &fig_series(batch, true, true),
            false,
        );
        report::write(&opts.out_dir, &name, &plot)?;
        let _ = writeln!(md, "![{name}]({name})\n");
    }
    Ok(())
}

/// The data behind the figures (not a table of the paper): every epoch of
/// every run in `epochs.csv`, the toy points and runs in `runs.json`, and
/// the report's closing line naming the files.
fn every_epoch(md: &mut String, opts: &Options, toy: &[ToyPoint], cells: &[RunCell]) -> Result<(), ReproError> {
    let mut all = Table::new(&[
        "method",
        "batch",
        "seed",
        "epoch",
        "seconds",
        "train_accuracy",
        "test_accuracy",
    ]);
    for c in cells {
        for e in &c.epochs {
            all.push(vec![
                c.method.clone(),
                c.batch.map_or(String::new(), |b| b.to_string()),
                c.seed.to_string(),
                e.epoch.to_string(),
                format!("{:.6}", e.seconds),
                format!("{:.4}", e.train_accuracy),
                format!("{:.4}", e.test_accuracy),
            ]);
        }
    }
    report::write(&opts.out_dir, "epochs.csv", &all.csv())?;
    report::write(
        &opts.out_dir,
        "runs.json",
        &serde_json::to_string_pretty(&serde_json::json!({ "toy": toy, "runs": cells }))?,
    )?;
    let _ = writeln!(
        md,
        "Files: `toy_*.csv`, `table1.csv`, `table2.csv`, `epochs.csv` (every epoch of every run), `runs.json`."
    );
    Ok(())
}
