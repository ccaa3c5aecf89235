//! The ELM's defaults measured on every shipped data set (issue 42): which
//! input-weight scale, and which growth rule.
//!
//! **Part `scale`** (per set and seed; ELM, sigmoid, 500 hidden nodes, 1000
//! on MNIST; features z-scored by the training part, MNIST's pixels onto
//! [0, 1], the command line's defaults): the test error of each candidate
//! default scale with the same size —
//! - `U[-1,1]` (`InputScale::Fixed(1)`, MATLAB ELM's and hpelm's weights);
//! - `1/sqrt(N)` (`InputScale::InverseSqrtInputs`);
//! - `unit-variance` (`InputScale::UnitVariance`, today's default);
//! - `chosen`: the data's choice by 3-fold cross-validation among
//!   {u/4, u/2, u, 2u, 4u, 1, 1/√N}, u the unit-variance scale
//!   ([`models::select::scales::select_over_scales`]);
//!
//! in two regimes: `lambda-default` (λ = 0.1, the ELM's default, for every
//! candidate) and `lambda-chosen` (λ chosen by 3-fold cross-validation on
//! the default grid of 21 values, for every candidate: the chosen scale
//! picks the pair).
//!
//! **Part `subsample`** (λ chosen by 3-fold for every candidate):
//! `unit-variance`, `chosen` as above, and `chosen-on-2000`: the scale
//! chosen on 2000 seeded rows only, then λ on all rows at that scale (a
//! fixed cost for the scale, whatever the set's size).
//!
//! **Part `subsample-default`** (λ = 0.1, no λ selection): `unit-variance`
//! (a plain fit) against `chosen-on-2000` (the scale chosen on 2000 seeded
//! rows at that λ, then a plain fit on all rows): the cost and the gain of
//! a default fit with the data-chosen scale.
//!
//! **Part `growth`** (per set and seed; start 10 nodes, step 10, patience
//! 5, at most 2000 nodes, 3000 on MNIST, λ = 10⁻³, unit-variance scale,
//! 20% held out): `--grow-until-val` with fixed steps (growth 0, the rule
//! before issue 42) against steps of at least 10% of the size (the new
//! default): the size reached, the test error, the seconds.
//!
//! The test error is 1 − accuracy for classification, the RMSE divided by
//! the training targets' standard deviation for regression (both lower is
//! better, comparable across sets). Sets without a test file are split
//! 80/20 by the seed.
//!
//! Usage: `cargo run --release -p experiments --example defaults_study --
//! [--part scale|growth|subsample|subsample-default] [--seeds 3] [--sets a,b] [--out DIR]` (default
//! `results/defaults`). Every finished cell (set, seed, part) is a line of
//! `DIR/runs.jsonl`; a rerun skips the lines there, so an interrupted run
//! resumes. `DIR/summary.md` and `summary.csv` give the table per set and
//! the verdicts, computed from the lines. One BLAS thread.

use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use experiments::run_log::{self, RunLog};
use models::select::grow::GrowOptions;
use models::select::lambda::{Method, SelectOptions};
use models::select::scales::{elm_scale_grid, select_over_scales};
use models::select::Criterion;
use models::{Activation, Dataset, Elm, ElmParams, ElmValidParams, InputScale, ParamGuard};
use ndarray::{Array1, Array2, Axis};
use nn_data::pipeline::{InputScaler, Scale};
use nn_data::{one_hot, train_test_split};
use serde::{Deserialize, Serialize};

/// The shipped sets: name, test file (if any), classification.
const SETS: [(&str, Option<&str>, bool); 22] = [
    ("airfoil", None, false),
    ("energy-heating", None, false),
    ("boston", None, false),
    ("protein", None, false),
    ("magic", None, true),
    ("musk1", None, true),
    ("pima", None, true),
    ("adult-train", Some("adult-test"), true),
    ("codrna-train", Some("codrna-rest"), true),
    ("ringnorm", None, true),
    ("satellite-train", Some("satellite-test"), true),
    ("mv", None, false),
    ("california", None, false),
    ("census-house16h", None, false),
    ("delta-elevators", None, false),
    ("elevators", None, false),
    ("ailerons", None, false),
    ("bike-sharing", None, false),
    ("beijing-pm25", None, false),
    ("ccpp", None, false),
    ("bank-marketing", None, true),
    ("mnist-train", Some("mnist-test"), true),
];

const CANDIDATES: [&str; 4] = ["U[-1,1]", "1/sqrt(N)", "unit-variance", "chosen"];
const REGIMES: [&str; 2] = ["lambda-default", "lambda-chosen"];
const RULES: [&str; 2] = ["fixed-step", "step-10%"];
const SUBSAMPLE_CANDIDATES: [&str; 3] = ["unit-variance", "chosen", "chosen-on-2000"];
const SUBSAMPLE_DEFAULT_CANDIDATES: [&str; 2] = ["unit-variance", "chosen-on-2000"];
/// The rows `chosen-on-2000` chooses the scale on.
const SUBSAMPLE_ROWS: usize = 2000;

/// One candidate's outcome.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Outcome {
    /// Test error (lower is better).
    error: f64,
    /// Seconds of the fit (the selection included).
    seconds: f64,
    /// λ used.
    lambda: f64,
    /// The scale as a number.
    scale: f64,
    /// Hidden nodes.
    nodes: usize,
}

/// Candidate → (errors, seconds, nodes) over the seeds, of one set.
type ByCandidate = BTreeMap<String, (Vec<f64>, Vec<f64>, Vec<f64>)>;
/// Set → its candidates' outcomes, of one (part, regime).
type Cells = BTreeMap<String, ByCandidate>;

/// (regime or "growth", candidate or rule, outcome) of one cell.
type Outcomes = Vec<(String, String, Outcome)>;

/// One cell: a set, a seed and a part, every candidate (or rule) in it.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Line {
    part: String,
    dataset: String,
    seed: u64,
    /// (regime or "growth", candidate or rule) → outcome.
    outcomes: Outcomes,
}

struct Args {
    part: String,
    seeds: u64,
    sets: Vec<String>,
    out: PathBuf,
}

fn args() -> Result<Args, Box<dyn Error>> {
    let mut a = Args {
        part: "scale".into(),
        seeds: 3,
        sets: SETS.iter().map(|s| s.0.to_string()).collect(),
        out: PathBuf::from("results/defaults"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--part" if ["scale", "growth", "subsample", "subsample-default"].contains(&value.as_str()) => {
                a.part = value
            }
            "--seeds" => a.seeds = value.parse()?,
            "--sets" => a.sets = value.split(',').map(str::to_string).collect(),
            "--out" => a.out = PathBuf::from(value),
            _ => return Err(format!("unknown flag or value: {flag} {value}").into()),
        }
    }
    Ok(a)
}

/// Training and test parts, scaled as the command line scales them, the
/// targets one-hot (classification) or standardized by the training part.
struct Prepared {
    x: Array2<f64>,
    y: Array2<f64>,
    x_test: Array2<f64>,
    truth: Array1<f64>,
    classification: bool,
    y_sd: f64,
    y_mean: f64,
}

fn prepare(name: &str, test: Option<&str>, classification: bool, seed: u64) -> Result<Prepared, Box<dyn Error>> {
    let load = |n: &str| -> Result<nn_data::Dataset, Box<dyn Error>> {
        Ok(if n.starts_with("mnist") {
            nn_data::load_idx(nn_data::shipped(n)?)?
        } else {
            nn_data::load_shipped(n)?
        })
    };
    let data = load(name)?;
    let (train, test) = match test {
        Some(t) => (data, load(t)?),
        None => train_test_split(&data, 0.2, seed)?,
    };
    let scale = if name.starts_with("mnist") {
        Scale::Minmax
    } else {
        Scale::Zscore
    };
    let scaler = InputScaler::fit(scale, &train.x)?;
    let (x, x_test) = (scaler.transform(&train.x)?, scaler.transform(&test.x)?);
    let (y, y_mean, y_sd) = if classification {
        let classes = train.y.iter().chain(test.y.iter()).fold(0.0_f64, |m, &v| m.max(v)) as usize + 1;
        (one_hot(&train.y, classes)?, 0.0, 1.0)
    } else {
        let mean = train.y.mean().unwrap_or(0.0);
        let sd = train.y.std(0.0).max(f64::MIN_POSITIVE);
        (train.y.mapv(|v| (v - mean) / sd).insert_axis(Axis(1)), mean, sd)
    };
    Ok(Prepared {
        x,
        y,
        x_test,
        truth: test.y,
        classification,
        y_sd,
        y_mean,
    })
}

impl Prepared {
    fn criterion(&self) -> Criterion {
        if self.classification {
            Criterion::ClassificationError
        } else {
            Criterion::MeanSquaredError
        }
    }

    /// The test error of `elm`.
    fn error(&self, elm: &Elm) -> Result<f64, Box<dyn Error>> {
        let p = elm.predict(self.x_test.view())?;
        Ok(if self.classification {
            let wrong = p
                .rows()
                .into_iter()
                .zip(&self.truth)
                .filter(|(r, &t)| linalg_core::argmax(r.iter().copied()) != t as usize)
                .count();
            wrong as f64 / self.truth.len() as f64
        } else {
            let se: f64 = p
                .column(0)
                .iter()
                .zip(&self.truth)
                .map(|(&v, &t)| (v * self.y_sd + self.y_mean - t).powi(2))
                .sum();
            (se / self.truth.len() as f64).sqrt() / self.y_sd
        })
    }
}

fn params(nodes: usize, lambda: f64, scale: InputScale, seed: u64) -> Result<ElmValidParams, Box<dyn Error>> {
    Ok(ElmParams::new(nodes, Activation::Sigmoid)
        .with_lambda(lambda)
        .with_input_scale(scale)
        .with_seed(seed)
        .check()?)
}

/// Part `scale` of one set and seed.
fn scale_cell(p: &Prepared, nodes: usize, seed: u64) -> Result<Outcomes, Box<dyn Error>> {
    let data = Dataset::new(p.x.view(), p.y.view());
    let fixed = [
        InputScale::Fixed(1.0),
        InputScale::InverseSqrtInputs,
        InputScale::UnitVariance,
    ];
    let grid = elm_scale_grid(p.x.view());
    let (lo, hi, n) = SelectOptions::DEFAULT_GRID;
    let mut out = Vec::new();
    for regime in REGIMES {
        let lambdas = if regime == "lambda-default" {
            vec![ElmParams::DEFAULT_LAMBDA]
        } else {
            SelectOptions::log_grid(lo, hi, n)?
        };
        let options = SelectOptions {
            method: Method::KFold { k: 3 },
            lambdas,
            sizes: vec![],
            criterion: p.criterion(),
            seed,
        };
        for (name, scale) in CANDIDATES.iter().zip(fixed.iter().map(Some).chain([None])) {
            let t = Instant::now();
            let base = params(nodes, ElmParams::DEFAULT_LAMBDA, InputScale::UnitVariance, seed)?;
            let (elm, lambda, factor) = match (scale, regime) {
                (Some(s), "lambda-default") => {
                    let ps = params(nodes, ElmParams::DEFAULT_LAMBDA, *s, seed)?;
                    let elm = models::Fit::fit(&ps, &data)?;
                    (elm, ElmParams::DEFAULT_LAMBDA, s.factor(p.x.view()))
                }
                (Some(s), _) => {
                    let sel = params(nodes, 1.0, *s, seed)?.select(&data, &options)?;
                    (sel.model, sel.lambda, sel.scale)
                }
                (None, _) => {
                    let sel = select_over_scales::<Elm>(&base, &data, &options, &grid)?;
                    (sel.selected.model, sel.selected.lambda, sel.selected.scale)
                }
            };
            let seconds = t.elapsed().as_secs_f64();
            out.push((
                regime.to_string(),
                name.to_string(),
                Outcome {
                    error: p.error(&elm)?,
                    seconds,
                    lambda,
                    scale: factor,
                    nodes,
                },
            ));
        }
    }
    Ok(out)
}

/// Part `subsample` of one set and seed (λ chosen by 3-fold on the whole
/// training part for every candidate): `unit-variance`; `chosen` (scale and
/// λ by 3-fold over the grid on all rows, as part `scale`); and
/// `chosen-on-2000`: the scale chosen (with λ) by 3-fold over the grid on
/// [`SUBSAMPLE_ROWS`] seeded rows, then λ by 3-fold on all rows at that
/// scale — a fixed cost beside the plain selection.
fn subsample_cell(p: &Prepared, nodes: usize, seed: u64) -> Result<Outcomes, Box<dyn Error>> {
    let data = Dataset::new(p.x.view(), p.y.view());
    let (lo, hi, n) = SelectOptions::DEFAULT_GRID;
    let options = SelectOptions {
        method: Method::KFold { k: 3 },
        lambdas: SelectOptions::log_grid(lo, hi, n)?,
        sizes: vec![],
        criterion: p.criterion(),
        seed,
    };
    let base = params(nodes, ElmParams::DEFAULT_LAMBDA, InputScale::UnitVariance, seed)?;
    let mut out = Vec::new();
    for name in SUBSAMPLE_CANDIDATES {
        let t = Instant::now();
        let sel = match name {
            "unit-variance" => base.select(&data, &options)?,
            "chosen" => select_over_scales::<Elm>(&base, &data, &options, &elm_scale_grid(p.x.view()))?.selected,
            _ => {
                let mut rows = nn_data::shuffled_indices(p.x.nrows(), seed ^ 0x5eed);
                rows.truncate(SUBSAMPLE_ROWS.min(p.x.nrows()));
                let (xs, ys) = (p.x.select(Axis(0), &rows), p.y.select(Axis(0), &rows));
                let sub = Dataset::new(xs.view(), ys.view());
                let grid = elm_scale_grid(xs.view());
                let chosen = select_over_scales::<Elm>(&base, &sub, &options, &grid)?;
                ElmParams::from(base)
                    .with_input_scale(chosen.scale)
                    .check()?
                    .select(&data, &options)?
            }
        };
        let seconds = t.elapsed().as_secs_f64();
        out.push((
            "lambda-chosen".to_string(),
            name.to_string(),
            Outcome {
                error: p.error(&sel.model)?,
                seconds,
                lambda: sel.lambda,
                scale: sel.scale,
                nodes,
            },
        ));
    }
    Ok(out)
}

/// Part `subsample-default` of one set and seed, at the default λ (0.1,
/// no λ selection): `unit-variance`, a plain fit; `chosen-on-2000`: the
/// scale chosen by 3-fold over the grid on [`SUBSAMPLE_ROWS`] seeded rows at
/// that λ, then a plain fit on all rows at that scale — what a default fit
/// with the data-chosen scale would cost beside today's.
fn subsample_default_cell(p: &Prepared, nodes: usize, seed: u64) -> Result<Outcomes, Box<dyn Error>> {
    let data = Dataset::new(p.x.view(), p.y.view());
    let base = params(nodes, ElmParams::DEFAULT_LAMBDA, InputScale::UnitVariance, seed)?;
    let mut out = Vec::new();
    for name in SUBSAMPLE_DEFAULT_CANDIDATES {
        let t = Instant::now();
        let scale = if name == "unit-variance" {
            InputScale::UnitVariance
        } else {
            let mut rows = nn_data::shuffled_indices(p.x.nrows(), seed ^ 0x5eed);
            rows.truncate(SUBSAMPLE_ROWS.min(p.x.nrows()));
            let (xs, ys) = (p.x.select(Axis(0), &rows), p.y.select(Axis(0), &rows));
            let options = SelectOptions {
                method: Method::KFold { k: 3 },
                lambdas: vec![ElmParams::DEFAULT_LAMBDA],
                sizes: vec![],
                criterion: p.criterion(),
                seed,
            };
            let grid = elm_scale_grid(xs.view());
            select_over_scales::<Elm>(&base, &Dataset::new(xs.view(), ys.view()), &options, &grid)?.scale
        };
        let fitted = ElmParams::from(base).with_input_scale(scale).check()?;
        let elm = models::Fit::fit(&fitted, &data)?;
        let seconds = t.elapsed().as_secs_f64();
        out.push((
            "lambda-default".to_string(),
            name.to_string(),
            Outcome {
                error: p.error(&elm)?,
                seconds,
                lambda: ElmParams::DEFAULT_LAMBDA,
                scale: scale.factor(p.x.view()),
                nodes,
            },
        ));
    }
    Ok(out)
}

/// Part `growth` of one set and seed.
fn growth_cell(p: &Prepared, max: usize, seed: u64) -> Result<Outcomes, Box<dyn Error>> {
    let labels: Option<Vec<usize>> = p.classification.then(|| {
        p.y.rows()
            .into_iter()
            .map(|r| linalg_core::argmax(r.iter().copied()))
            .collect()
    });
    let split = models::select::folds::Folds::validation(p.x.nrows(), 0.2, seed, labels.as_deref())?;
    let (tr, va) = (split.training(0), split.held_out(0).to_vec());
    let (xt, yt) = (p.x.select(Axis(0), &tr), p.y.select(Axis(0), &tr));
    let (xv, yv) = (p.x.select(Axis(0), &va), p.y.select(Axis(0), &va));
    let (train, val) = (Dataset::new(xt.view(), yt.view()), Dataset::new(xv.view(), yv.view()));
    let start = params(10, 1e-3, InputScale::UnitVariance, seed)?;
    let mut out = Vec::new();
    for (rule, growth) in RULES.iter().zip([0.0, GrowOptions::DEFAULT_GROWTH]) {
        let opts = GrowOptions::new(10, 5, max, p.criterion()).with_growth(growth);
        let t = Instant::now();
        let g = start.grow_until_val(&train, &val, &opts)?;
        let seconds = t.elapsed().as_secs_f64();
        out.push((
            "growth".to_string(),
            rule.to_string(),
            Outcome {
                error: p.error(&g.model)?,
                seconds,
                lambda: 1e-3,
                scale: InputScale::UnitVariance.factor(xt.view()),
                nodes: g.nodes,
            },
        ));
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn Error>> {
    run_log::start_single_threaded("defaults_study");
    let a = args()?;
    let mut log = RunLog::<Line>::open(&a.out, "defaults_study")?;
    for name in &a.sets {
        let &(_, test, classification) = SETS
            .iter()
            .find(|s| s.0 == name)
            .ok_or_else(|| format!("unknown set {name:?}"))?;
        for seed in 0..a.seeds {
            if log.has(|l| l.part == a.part && &l.dataset == name && l.seed == seed) {
                continue;
            }
            let p = prepare(name, test, classification, seed)?;
            let mnist = name.starts_with("mnist");
            let t = Instant::now();
            let outcomes = if a.part == "scale" {
                scale_cell(&p, if mnist { 1000 } else { 500 }, seed)?
            } else if a.part == "subsample" {
                subsample_cell(&p, if mnist { 1000 } else { 500 }, seed)?
            } else if a.part == "subsample-default" {
                subsample_default_cell(&p, if mnist { 1000 } else { 500 }, seed)?
            } else {
                growth_cell(&p, if mnist { 3000 } else { 2000 }, seed)?
            };
            eprintln!(
                "defaults_study: {} {name} seed {seed}: {:.1} s: {}",
                a.part,
                t.elapsed().as_secs_f64(),
                outcomes
                    .iter()
                    .map(|(r, c, o)| format!("{r}/{c} {:.4} ({} nodes)", o.error, o.nodes))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            log.append(Line {
                part: a.part.clone(),
                dataset: name.clone(),
                seed,
                outcomes,
            })?;
        }
    }
    summary(&a.out)
}

/// Mean per (part, set, regime, candidate); per regime, each candidate's
/// error relative to the best candidate of its set (geometric mean and
/// worst over the sets), and the verdicts.
fn summary(out: &std::path::Path) -> Result<(), Box<dyn Error>> {
    let lines: Vec<Line> = run_log::read(out)?.runs;
    let mut groups: BTreeMap<(String, String), Cells> = BTreeMap::new();
    for l in &lines {
        for (regime, cand, o) in &l.outcomes {
            let e = groups
                .entry((l.part.clone(), regime.clone()))
                .or_default()
                .entry(l.dataset.clone())
                .or_default()
                .entry(cand.clone())
                .or_default();
            e.0.push(o.error);
            e.1.push(o.seconds);
            e.2.push(o.nodes as f64);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    // Training rows per set (80% of the file without a test file).
    let mut rows: BTreeMap<String, usize> = BTreeMap::new();
    for (name, test, _) in SETS {
        let n = if name.starts_with("mnist") {
            nn_data::load_idx(nn_data::shipped(name)?)?.n_samples()
        } else {
            nn_data::load_shipped(name)?.n_samples()
        };
        rows.insert(
            name.to_string(),
            if test.is_some() {
                n
            } else {
                n - (n as f64 * 0.2).round() as usize
            },
        );
    }
    let mut md = String::from(
        "# The ELM's defaults on every shipped set (issue 42)\n\n\
         Generated by `cargo run --release -p experiments --example defaults_study`; see the example's \
         documentation for the protocol. Test error: 1 − accuracy (classification) or RMSE / sd(y) \
         (regression), mean over the seeds; in brackets the mean seconds (and nodes for growth). \
         One BLAS thread.\n",
    );
    let mut csv = String::from("part,regime,dataset,candidate,runs,error,seconds,nodes\n");
    for ((part, regime), sets) in &groups {
        let cands: Vec<String> = if part == "scale" {
            CANDIDATES.iter().map(|s| s.to_string()).collect()
        } else if part == "subsample" {
            SUBSAMPLE_CANDIDATES.iter().map(|s| s.to_string()).collect()
        } else if part == "subsample-default" {
            SUBSAMPLE_DEFAULT_CANDIDATES.iter().map(|s| s.to_string()).collect()
        } else {
            RULES.iter().map(|s| s.to_string()).collect()
        };
        let _ = writeln!(md, "\n## {part}: {regime}\n");
        let _ = writeln!(md, "| set | {} |", cands.join(" | "));
        let _ = writeln!(md, "|---|{}", "---|".repeat(cands.len()));
        // candidate → ratios to the best of the set
        let mut ratios: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for (set, by_cand) in sets {
            let means: Vec<Option<(f64, f64, f64, usize)>> = cands
                .iter()
                .map(|c| by_cand.get(c).map(|(e, s, n)| (mean(e), mean(s), mean(n), e.len())))
                .collect();
            if means.iter().any(Option::is_none) {
                continue;
            }
            let best = means.iter().flatten().map(|m| m.0).fold(f64::INFINITY, f64::min);
            let cells: Vec<String> = means
                .iter()
                .flatten()
                .map(|(e, s, n, _)| {
                    let mark = if *e == best { "**" } else { "" };
                    if part == "growth" {
                        format!("{mark}{e:.4}{mark} ({s:.1} s, {n:.0})")
                    } else {
                        format!("{mark}{e:.4}{mark} ({s:.2} s)")
                    }
                })
                .collect();
            let _ = writeln!(md, "| {set} | {} |", cells.join(" | "));
            for (c, m) in cands.iter().zip(means.iter().flatten()) {
                // A zero best error (a set solved exactly) counts every
                // candidate at zero as equal, others as 2.
                let r = if best > 0.0 {
                    m.0 / best
                } else if m.0 == 0.0 {
                    1.0
                } else {
                    2.0
                };
                ratios.entry(c.clone()).or_default().push(r);
                let _ = writeln!(csv, "{part},{regime},{set},{c},{},{},{},{}", m.3, m.0, m.1, m.2);
            }
        }
        let _ = writeln!(
            md,
            "\nError relative to the best candidate of each set, over {} sets:\n",
            ratios.values().next().map_or(0, Vec::len)
        );
        let _ = writeln!(
            md,
            "| candidate | geometric mean | worst | sets within 2% of the best |"
        );
        let _ = writeln!(md, "|---|---|---|---|");
        let mut ranked: Vec<(String, f64, f64, usize, usize)> = ratios
            .iter()
            .map(|(c, r)| {
                let g = (r.iter().map(|v| v.ln()).sum::<f64>() / r.len() as f64).exp();
                let worst = r.iter().copied().fold(0.0, f64::max);
                let close = r.iter().filter(|&&v| v <= 1.02).count();
                (c.clone(), g, worst, close, r.len())
            })
            .collect();
        ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
        for (c, g, w, close, n) in &ranked {
            let _ = writeln!(md, "| {c} | {g:.4} | {w:.3} | {close} of {n} |");
        }
        if let Some((c, g, w, ..)) = ranked.first() {
            let _ = writeln!(
                md,
                "\n**Verdict ({part}, {regime}):** `{c}` has the lowest geometric-mean ratio ({g:.4}; worst set {w:.3}×).\n"
            );
        }
        size_table(&mut md, sets, &cands, &rows, mean);
    }
    run_log::write_summary(out, "defaults_study", &md, &csv)?;
    Ok(())
}

/// Training-set sizes at which the candidates are compared.
const SIZE_BUCKETS: [(usize, usize, &str); 3] = [
    (0, 1000, "below 1,000 rows"),
    (1000, 10_000, "1,000 to 10,000 rows"),
    (10_000, usize::MAX, "10,000 rows or more"),
];

/// Per bucket of training-set size: each candidate's geometric-mean error
/// ratio to the best of its set, and its geometric-mean time ratio to the
/// first fixed candidate's (`unit-variance` for the scale, `fixed-step`
/// for growth: the cost beside today's default).
fn size_table(
    md: &mut String,
    sets: &Cells,
    cands: &[String],
    rows: &BTreeMap<String, usize>,
    mean: impl Fn(&[f64]) -> f64,
) {
    let reference = if cands.iter().any(|c| c == "unit-variance") {
        "unit-variance"
    } else {
        "fixed-step"
    };
    let _ = writeln!(
        md,
        "By training-set size: geometric mean of the error ratio to the best candidate; in brackets, of the time \
         ratio to `{reference}`:\n"
    );
    let _ = writeln!(md, "| training rows | sets | {} |", cands.join(" | "));
    let _ = writeln!(md, "|---|---|{}", "---|".repeat(cands.len()));
    for (lo, hi, label) in SIZE_BUCKETS {
        let in_bucket: Vec<&ByCandidate> = sets
            .iter()
            .filter(|(set, by)| {
                rows.get(*set).is_some_and(|&k| k >= lo && k < hi) && cands.iter().all(|c| by.contains_key(c))
            })
            .map(|(_, by)| by)
            .collect();
        if in_bucket.is_empty() {
            continue;
        }
        let cells: Vec<String> = cands
            .iter()
            .map(|c| {
                let (mut err, mut time) = (0.0, 0.0);
                for by in &in_bucket {
                    let best = cands.iter().map(|d| mean(&by[d].0)).fold(f64::INFINITY, f64::min);
                    let e = mean(&by[c].0);
                    err += if best > 0.0 { (e / best).ln() } else { 0.0 };
                    time += (mean(&by[c].1).max(1e-6) / mean(&by[reference].1).max(1e-6)).ln();
                }
                let n = in_bucket.len() as f64;
                format!("{:.4} ({:.1}×)", (err / n).exp(), (time / n).exp())
            })
            .collect();
        let _ = writeln!(md, "| {label} | {} | {} |", in_bucket.len(), cells.join(" | "));
    }
    let _ = writeln!(md);
}
