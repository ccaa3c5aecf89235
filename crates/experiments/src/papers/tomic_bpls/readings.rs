//! The readings of Tomic et al.'s MNIST experiment that the paper leaves
//! open (issue 40, item 4), summarized: one [`Line`] per finished run (the
//! `bpls_readings` example writes them to `readings/runs.jsonl`), their
//! means per reading beside Table I, and per part the reading nearest the
//! paper's numbers — for the example's `summary.md` and the report's
//! section alike.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::published;
use crate::papers::ReproError;
use crate::run_log;

/// The folder of the readings' log under the report's folder.
pub const DIR: &str = "readings";

/// The backprop rules Table I prints (a baseline reading is ranked only
/// with all of them run).
pub const BASELINE_RULES: usize = 4;

/// One finished run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// `bpls` or `baselines`.
    pub part: String,
    /// The reading's key (`as-run`, `tanh`, `softmax`, `delta-0.05`, …).
    pub reading: String,
    /// `BPLS` or the backprop rule (`Adam`, `NAG`, `SGD`, `AdaGrad`).
    pub method: String,
    /// The run's seed.
    pub seed: u64,
    /// Training images used.
    pub train_samples: usize,
    /// Best training accuracy over the epochs, %.
    pub best_train: f64,
    /// Best test accuracy over the epochs, % (Table I's "best achieved").
    pub best_test: f64,
    /// Test accuracy after the last epoch, %.
    pub final_test: f64,
    /// Epochs run.
    pub epochs: usize,
    /// Seconds of training.
    pub seconds: f64,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The sample standard deviation (NaN for one run: no spread measured).
fn sd(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() as f64 - 1.0)).sqrt()
}

/// What the runs say: the table per (part, reading, method), the gaps per
/// (part, reading), and per part the readings ranked by their gap.
pub struct Summary {
    /// The Markdown table of means beside Table I (with its header row).
    pub table: String,
    /// The same as CSV.
    pub csv: String,
    /// The Markdown table of gaps per (part, reading).
    pub gaps: String,
    /// Per part, its readings with every rule run, nearest first:
    /// (mean absolute gap to Table I in points, reading).
    pub ranked: BTreeMap<String, Vec<(f64, String)>>,
    /// Per (part, reading, method): the mean and the standard deviation of
    /// the best test accuracy, and the runs.
    pub test: BTreeMap<(String, String, String), (f64, f64, usize)>,
    /// Per (part, reading): a bound on the standard error of its mean
    /// absolute gap `G = (1/K) Σₖ |mₖ − pₖ|` over K metrics (train and test
    /// per method). `|·|` is 1-Lipschitz, so G's spread is at most that of
    /// `(1/K) Σₖ mₖ`; a method's train and test means come from the same
    /// runs and may be correlated, which `(s_train + s_test)²/n` bounds; the
    /// methods' runs are independent: `SE(G) ≤ √(Σ_methods (s_train +
    /// s_test)²/n) / K`. NaN when a method has one run (no spread measured).
    pub gap_se: BTreeMap<(String, String), f64>,
}

/// Summarize `lines`.
pub fn summarize(lines: &[Line]) -> Summary {
    let mut groups: BTreeMap<(String, String, String), Vec<&Line>> = BTreeMap::new();
    for l in lines {
        groups
            .entry((l.part.clone(), l.reading.clone(), l.method.clone()))
            .or_default()
            .push(l);
    }
    let mut table = String::from(
        "| part | reading | method | runs | training images | best train % | best test % (sd) | paper train / test % | train − paper | test − paper | epochs |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut csv = String::from(
        "part,reading,method,runs,train_samples,best_train,best_test,best_test_sd,paper_train,paper_test,epochs\n",
    );
    let mut test = BTreeMap::new();
    // Per (part, reading): the absolute train and test gaps to the paper.
    let mut gaps: BTreeMap<(String, String), (Vec<f64>, usize)> = BTreeMap::new();
    // Per (part, reading): Σ over methods of (s_train + s_test)² / n.
    let mut gap_var: BTreeMap<(String, String), f64> = BTreeMap::new();
    for ((part, reading, method), ls) in &groups {
        let (ptr, pts) = published::table_i("MNIST", method).unwrap_or((f64::NAN, f64::NAN));
        let get = |g: fn(&Line) -> f64| ls.iter().map(|l| g(l)).collect::<Vec<_>>();
        let (tr, te) = (mean(&get(|l| l.best_train)), mean(&get(|l| l.best_test)));
        let te_sd = sd(&get(|l| l.best_test));
        let tr_sd = sd(&get(|l| l.best_train));
        test.insert((part.clone(), reading.clone(), method.clone()), (te, te_sd, ls.len()));
        if pts.is_finite() {
            let e = gaps.entry((part.clone(), reading.clone())).or_default();
            e.0.extend([(tr - ptr).abs(), (te - pts).abs()]);
            e.1 += 1;
            *gap_var.entry((part.clone(), reading.clone())).or_default() += (tr_sd + te_sd).powi(2) / ls.len() as f64;
        }
        let _ = writeln!(
            table,
            "| {part} | {reading} | {method} | {} | {} | {tr:.2} | {te:.2} ({}) | {ptr:.2} / {pts:.2} | {:+.2} | {:+.2} | {:.1} |",
            ls.len(),
            ls[0].train_samples,
            if ls.len() > 1 {
                format!("{te_sd:.2}")
            } else {
                "one run".into()
            },
            tr - ptr,
            te - pts,
            mean(&get(|l| l.epochs as f64)),
        );
        let _ = writeln!(
            csv,
            "{part},{reading},{method},{},{},{tr},{te},{te_sd},{ptr},{pts},{}",
            ls.len(),
            ls[0].train_samples,
            mean(&get(|l| l.epochs as f64)),
        );
    }
    let mut gap_md = String::from("| part | reading | rules | mean abs. gap, points |\n|---|---|---|---|\n");
    let mut ranked: BTreeMap<String, Vec<(f64, String)>> = BTreeMap::new();
    let mut gap_se = BTreeMap::new();
    for ((part, reading), (g, rules)) in &gaps {
        let m = mean(g);
        let var = gap_var
            .get(&(part.clone(), reading.clone()))
            .copied()
            .unwrap_or(f64::NAN);
        gap_se.insert((part.clone(), reading.clone()), var.sqrt() / g.len() as f64);
        let _ = writeln!(gap_md, "| {part} | {reading} | {rules} | {m:.2} |");
        let full = if part == "bpls" { 1 } else { BASELINE_RULES };
        if *rules == full {
            ranked.entry(part.clone()).or_default().push((m, reading.clone()));
        }
    }
    for r in ranked.values_mut() {
        r.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Summary {
        table,
        csv,
        gaps: gap_md,
        ranked,
        test,
        gap_se,
    }
}

/// Per part, the verdict: the readings nearest Table I, and whether the
/// nearest is nearer than `as-run` by more than the runs resolve: the
/// difference of the two gaps against two standard errors of it
/// (`√(SE₁² + SE₂²)`, each from [`Summary::gap_se`]). For BPLS also how far
/// the nearest reading moves the test mean, in standard errors of the
/// difference of the two test means (`√(s₁²/n₁ + s₂²/n₂)`).
pub fn verdicts(s: &Summary) -> String {
    let mut md = String::new();
    for (part, ranked) in &s.ranked {
        if ranked.len() < 2 {
            let _ = writeln!(
                md,
                "- **{part}**: only `{}` has every rule run: nothing to rank it against yet.",
                ranked.first().map_or("", |r| r.1.as_str())
            );
            continue;
        }
        let list: Vec<String> = ranked.iter().take(3).map(|(m, r)| format!("`{r}` ({m:.2})")).collect();
        let _ = write!(
            md,
            "- **{part}**: nearest the paper's Table I: {} (mean absolute gap, points)",
            list.join(", then ")
        );
        let (g_best, best) = &ranked[0];
        if let (true, Some((g_run, _))) = (best != "as-run", ranked.iter().find(|r| r.1 == "as-run")) {
            let se_of = |r: &str| {
                s.gap_se
                    .get(&(part.clone(), r.to_string()))
                    .copied()
                    .unwrap_or(f64::NAN)
            };
            let se = (se_of(best).powi(2) + se_of("as-run").powi(2)).sqrt();
            let closer = g_run - g_best;
            let _ = write!(
                md,
                "; `as-run` is at {g_run:.2}. `{best}` is nearer by {closer:.2} points"
            );
            if se.is_finite() {
                let _ = write!(
                    md,
                    ", against two standard errors of the difference of the two gaps, {:.2}: {}",
                    2.0 * se,
                    if closer > 2.0 * se {
                        "a difference the runs resolve"
                    } else {
                        "within them, so the runs do not single out one reading as the paper's"
                    }
                );
            } else {
                md.push_str(" (a rule with one run: no spread measured, so no standard error)");
            }
        }
        let key = |r: &str| (part.clone(), r.to_string(), "BPLS".to_string());
        if let (true, true, Some(&(t_best, sd_best, n_best)), Some(&(t_run, sd_run, n_run))) = (
            part == "bpls",
            best != "as-run",
            s.test.get(&key(best)),
            s.test.get(&key("as-run")),
        ) {
            let se = (sd_best * sd_best / n_best as f64 + sd_run * sd_run / n_run as f64).sqrt();
            let _ = write!(
                md,
                ". `{best}` moves the test mean by {:+.2} points ({:.1} standard errors of the difference) from `as-run`'s",
                t_best - t_run,
                (t_best - t_run).abs() / se
            );
        }
        md.push_str(".\n");
    }
    md
}

/// The report's section from the log in `dir/readings` (a note with the
/// command when no run is logged there).
///
/// # Errors
/// [`ReproError::Io`] when the log exists but cannot be read.
pub fn section(dir: &Path) -> Result<String, ReproError> {
    let lines: Vec<Line> = run_log::read(&dir.join(DIR))?.runs;
    let mut md = String::from("## The readings the paper leaves open\n\n");
    if lines.is_empty() {
        md.push_str(
            "Not run here: `cargo run --release -p experiments --example bpls_readings -- --part bpls` (then \
             `--part baselines`) logs them in `readings/runs.jsonl` beside this report.\n\n",
        );
        return Ok(md);
    }
    let s = summarize(&lines);
    let _ = writeln!(
        md,
        "The MNIST experiment under the readings the paper leaves open, {} runs logged in `readings/runs.jsonl` by `cargo run --release -p experiments --example bpls_readings` (one BLAS thread; BPLS: Algorithm 2, at most 40 epochs, 10 runs per reading; baselines: batch size 1, η = 10⁻³, 40 epochs, 3 runs per rule). Per run its best epoch (Table I's \"best achieved\"), then the mean and the standard deviation over the runs:\n",
        lines.len()
    );
    md.push_str(&s.table);
    md.push_str(
        "\nPer part, the mean absolute gap between our means and Table I's, over the train and test accuracy of \
         every method the paper prints (BPLS: one; baselines: the four rules; a reading with fewer rules run is \
         listed with its count and not ranked):\n\n",
    );
    md.push_str(&s.gaps);
    md.push('\n');
    md.push_str(&verdicts(&s));
    md.push('\n');
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(part: &str, reading: &str, method: &str, seed: u64, train: f64, test: f64) -> Line {
        Line {
            part: part.into(),
            reading: reading.into(),
            method: method.into(),
            seed,
            train_samples: 60_000,
            best_train: train,
            best_test: test,
            final_test: test,
            epochs: 9,
            seconds: 1.0,
        }
    }

    /// The means, gaps and ranking are the runs': Table I's BPLS row is
    /// 90.04 / 87.73, so a reading at 90.04 / 87.73 has gap 0 and ranks
    /// first; the verdict compares its test mean with as-run's spread.
    #[test]
    fn readings_are_ranked_by_their_gap_to_table_i() {
        let lines = vec![
            line("bpls", "as-run", "BPLS", 0, 89.0, 88.0),
            line("bpls", "as-run", "BPLS", 1, 89.0, 89.0),
            line("bpls", "train-40k", "BPLS", 0, 90.04, 87.73),
            line("bpls", "train-40k", "BPLS", 1, 90.04, 87.73),
            line("baselines", "as-run", "Adam", 0, 99.0, 97.0),
        ];
        let s = summarize(&lines);
        let bpls = &s.ranked["bpls"];
        assert_eq!(bpls[0].1, "train-40k");
        assert!(bpls[0].0.abs() < 1e-12);
        // as-run: |89 − 90.04| and |88.5 − 87.73|, averaged.
        assert!((bpls[1].0 - (1.04 + 0.77) / 2.0).abs() < 1e-12);
        assert!(!s.ranked.contains_key("baselines"), "one rule of four is not ranked");
        assert!(
            s.table
                .contains("| bpls | as-run | BPLS | 2 | 60000 | 89.00 | 88.50 (0.71) |"),
            "{}",
            s.table
        );
        let v = verdicts(&s);
        assert!(v.contains("`train-40k` (0.00), then `as-run` (0.91)"), "{v}");
        // Nearer by 0.905. as-run's gap: train sd 0, test sd √0.5 over 2 runs,
        // K = 2 metrics: SE ≤ √((0 + √0.5)²/2) / 2 = 0.25; train-40k's is 0,
        // so two standard errors of the difference are 0.50.
        assert!(v.contains("nearer by 0.91 points, against two standard errors of the difference of the two gaps, 0.50: a difference the runs resolve"), "{v}");
        // The test mean moves by 87.73 − 88.50 = −0.77; its standard error
        // √(0.5/2 + 0/2) = 0.5.
        assert!(
            v.contains("by -0.77 points (1.5 standard errors of the difference)"),
            "{v}"
        );
    }

    /// The baselines' verdict weighs the difference of two readings' gaps
    /// (eight metrics: train and test of four rules) against its standard
    /// error, from every rule's spread.
    #[test]
    fn baseline_readings_are_judged_by_the_spread_of_their_gaps() {
        let mut lines = vec![];
        for rule in ["Adam", "NAG", "SGD", "AdaGrad"] {
            let (tr, te) = published::table_i("MNIST", rule).expect("Table I prints the rule");
            for seed in 0..2 {
                lines.push(line("baselines", "mse", rule, seed, tr, te));
            }
            // One point above on both metrics, the train runs 1 point from
            // their mean (sd √2), the test runs 3 (sd √18).
            lines.push(line("baselines", "as-run", rule, 0, tr, te - 2.0));
            lines.push(line("baselines", "as-run", rule, 1, tr + 2.0, te + 4.0));
        }
        let s = summarize(&lines);
        let ranked = &s.ranked["baselines"];
        assert_eq!(ranked[0].1, "mse");
        assert!(ranked[0].0.abs() < 1e-12);
        assert!((ranked[1].0 - 1.0).abs() < 1e-12);
        // Per rule (√2 + √18)²/2 = 16 (the correlated bound: the squares
        // summed would give 10); four rules: √64 / 8 metrics = 1.
        let se = s.gap_se[&("baselines".to_string(), "as-run".to_string())];
        assert!((se - 1.0).abs() < 1e-12, "{se}");
        let v = verdicts(&s);
        assert!(v.contains("`mse` is nearer by 1.00 points, against two standard errors of the difference of the two gaps, 2.00: within them"), "{v}");
        assert!(!v.contains("moves the test mean"), "{v}");
    }
}
