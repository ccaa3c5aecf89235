//! `nn fit --model bls`: the BLS's flags (exactly the ones that apply to
//! it), the increment schedule, their resolution into [`BlsArgs`], and its
//! [`ModelCommand`] — the fit (the BLS paper's incremental BLS on the
//! user's files) or a selection of λ and the size.

use std::str::FromStr;
use std::time::{Duration, Instant};

use clap::Args;
use linalg_core::ridge::Strategy;
use linalg_core::Precision;
use models::bls::{Bls, BlsValidParams, IncrementalBls, UpdateReport};
use models::{Activation, BlsParams, Dataset, ParamGuard};
use ndarray::Array2;
use serde::{Deserialize, Serialize};

use super::budget::{readout_bytes, FitSize};
use super::common::{at_least_one, defaults, ridge_lambda, CommonFlags, ModelKind, StrategyArg};
use super::error::CliError;
use super::model_command::{details_of, FitContext, ModelCommand, ModelFlags, Resolved, Trained};
use super::progress::Progress;
use super::scale_out::{ScaleOut, ScaleOutFlags};
use super::select::{self, SelectArgs, SelectFlags};
use super::shared_flags::{WeightColumnFlag, WeightScaleFlag};
use super::weights_check::{check_weights, solver_residuals, warn_if_not_ridge};
use nn_data::pipeline::FittedModel;

const HEADING: &str = "BLS (--model bls)";

/// The flags of `nn fit --model bls` besides the common ones
/// ([`CommonFlags`]): exactly the flags that apply to the BLS, so that any
/// other is refused ([`FitFlags`](crate::cli::FitFlags)).
#[derive(Clone, Debug, Args)]
pub struct BlsFlags {
    /// Feature groups of the initial network.
    #[arg(long, value_name = "G", value_parser = at_least_one, default_value_t = defaults::FEATURE_GROUPS, help_heading = HEADING)]
    pub feature_groups: usize,
    /// Nodes per feature group.
    #[arg(long, value_name = "N", value_parser = at_least_one, default_value_t = defaults::FEATURE_NODES, help_heading = HEADING)]
    pub feature_nodes: usize,
    /// Enhancement nodes of the initial network.
    #[arg(long, value_name = "E", value_parser = at_least_one, default_value_t = defaults::ENHANCEMENT, help_heading = HEADING)]
    pub enhancement: usize,
    /// How the output weights are computed and updated.
    #[arg(long, value_enum, value_name = "S", ignore_case = true, default_value_t = StrategyArg(defaults::STRATEGY), help_heading = HEADING)]
    pub strategy: StrategyArg,
    /// Growth after the initial fit: comma-separated `e<P>` (P enhancement
    /// nodes) or `f<N>:<FED>:<EXTRA>` (a feature group of N nodes, FED
    /// enhancement nodes fed by it, EXTRA fed by all), each optionally
    /// repeated with `x<R>`; the BLS paper's MNIST schedule is
    /// `f10:750:1250x11` [default: none].
    #[arg(long, value_name = "SPEC", value_parser = increments, help_heading = HEADING)]
    pub increments: Option<Increments>,
    /// Store the solver's expanded matrix in single precision (half the memory).
    #[arg(long, help_heading = HEADING)]
    pub f32: bool,
    /// `--weight-column`.
    #[command(flatten)]
    pub weights: WeightColumnFlag,
    /// `--weight-scale`.
    #[command(flatten)]
    pub scale: WeightScaleFlag,
    /// `--updatable` (and the other flags for data beyond one fit).
    #[command(flatten)]
    pub scale_out: ScaleOutFlags,
    /// `--select-lambda`, `--grow-until-val` (choosing λ and the size).
    #[command(flatten)]
    pub select: SelectFlags,
}

/// An `--increments` schedule ([`parse_increments`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Increments(pub Schedule);

fn increments(text: &str) -> Result<Increments, String> {
    parse_increments(text).map(Increments).map_err(|e| e.to_string())
}

/// Resolve the BLS's flags: its settings, and the scale-out and selection
/// flags it takes.
///
/// # Errors
/// [`CliError::Usage`] naming the flag: a node count that overflows,
/// `--lambda` not finite and > 0, and the refusals of the scale-out and
/// selection flags.
pub(crate) fn resolve(
    flags: &BlsFlags,
    common: &CommonFlags,
    typed: &dyn Fn(&str) -> bool,
) -> Result<(BlsArgs, ScaleOut, Option<SelectArgs>), CliError> {
    let bls = BlsArgs {
        feature_groups: flags.feature_groups,
        feature_nodes: flags.feature_nodes,
        enhancement: flags.enhancement,
        strategy: flags.strategy.0,
        increments: flags.increments.clone().map(|i| i.0).unwrap_or_default(),
        precision: if flags.f32 { Precision::F32 } else { Precision::F64 },
        lambda: common.lambda.unwrap_or(defaults::BLS_LAMBDA),
        seed: common.seed,
        weight_column: None,
        shrink: flags.scale.shrink()?,
    };
    if bls.checked_nodes().is_none() {
        return Err(CliError::Usage(
            "the BLS's node count (--feature-groups × --feature-nodes + --enhancement + the increments) \
             overflows a 64-bit integer"
                .into(),
        ));
    }
    ridge_lambda(common)?;
    let batch = bls.increments.is_empty() && !flags.f32;
    let scale_out = flags.scale_out.resolve(ModelKind::Bls, true, batch)?;
    let select = flags.select.clone().resolve(ModelKind::Bls, true, &scale_out, typed)?;
    let weight_column = flags.weights.resolve(if !bls.increments.is_empty() {
        Some("--increments".to_string())
    } else if flags.f32 {
        Some("--f32".to_string())
    } else if select.is_some() {
        Some("--select-lambda or --grow-until-val".to_string())
    } else if scale_out.updatable || scale_out.chunk_rows.is_some() {
        Some("--updatable or --chunk-rows".to_string())
    } else {
        None
    })?;
    Ok((BlsArgs { weight_column, ..bls }, scale_out, select))
}

impl ModelFlags for BlsFlags {
    type Settings = BlsArgs;
    const KIND: ModelKind = ModelKind::Bls;

    fn resolve(&self, common: &CommonFlags, typed: &dyn Fn(&str) -> bool) -> Result<Resolved<BlsArgs>, CliError> {
        let (model, scale_out, select) = resolve(self, common, typed)?;
        Ok(Resolved {
            model,
            scale_out,
            select,
        })
    }
}

/// One item of `--increments`: what an update adds (the BLS paper's two
/// kinds of increments on added nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum IncrementSpec {
    /// `e<P>`: `P` enhancement nodes fed by all feature nodes.
    Enhancement(usize),
    /// `f<N>:<FED>:<EXTRA>`: a feature group of `N` nodes, `FED` enhancement
    /// nodes fed by it, `EXTRA` enhancement nodes fed by all feature nodes.
    FeatureGroup {
        /// Feature nodes of the new group.
        feature_nodes: usize,
        /// Enhancement nodes fed by the new group.
        fed: usize,
        /// Enhancement nodes fed by all feature nodes.
        extra: usize,
    },
}

impl IncrementSpec {
    /// Nodes this increment adds.
    ///
    /// # Panics
    /// If the count overflows (never for a parsed schedule: see
    /// [`checked_nodes`](Self::checked_nodes)).
    pub fn nodes(&self) -> usize {
        self.checked_nodes()
            .expect("a parsed increment's node count fits in usize")
    }

    /// Nodes this increment adds, `None` if the count overflows.
    pub fn checked_nodes(&self) -> Option<usize> {
        match *self {
            IncrementSpec::Enhancement(p) => Some(p),
            IncrementSpec::FeatureGroup {
                feature_nodes,
                fed,
                extra,
            } => feature_nodes.checked_add(fed)?.checked_add(extra),
        }
    }
}

/// An `--increments` schedule: runs of one [`IncrementSpec`] repeated, kept
/// as runs (a schedule of 10⁸ one-node updates is two numbers, not 3.2 GB),
/// with its update and node counts computed without overflow at parse time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    runs: Vec<(IncrementSpec, usize)>,
    updates: usize,
    nodes: usize,
}

impl Schedule {
    /// The updates in order.
    pub fn iter(&self) -> impl Iterator<Item = IncrementSpec> + '_ {
        self.runs
            .iter()
            .flat_map(|&(inc, repeat)| std::iter::repeat_n(inc, repeat))
    }

    /// Number of updates.
    pub fn len(&self) -> usize {
        self.updates
    }

    /// Whether the schedule has no update (the initial network only).
    pub fn is_empty(&self) -> bool {
        self.updates == 0
    }

    /// Nodes the whole schedule adds.
    pub fn nodes(&self) -> usize {
        self.nodes
    }
}

/// Parse an `--increments` schedule: comma-separated items `e<P>` or
/// `f<N>:<FED>:<EXTRA>`, each optionally repeated with `x<R>`. The BLS
/// paper's MNIST schedule is `f10:750:1250x11`.
///
/// ```
/// use experiments::cli::bls::{parse_increments, IncrementSpec};
/// let s = parse_increments("e500x2,f10:750:1250")?;
/// assert_eq!(s.iter().collect::<Vec<_>>(), vec![
///     IncrementSpec::Enhancement(500),
///     IncrementSpec::Enhancement(500),
///     IncrementSpec::FeatureGroup { feature_nodes: 10, fed: 750, extra: 1250 },
/// ]);
/// assert_eq!((s.len(), s.nodes()), (3, 3010));
/// # Ok::<(), experiments::cli::CliError>(())
/// ```
///
/// # Errors
/// [`CliError::Usage`] naming the malformed item, or the schedule whose node
/// count does not fit in a machine word.
pub fn parse_increments(spec: &str) -> Result<Schedule, CliError> {
    let bad = |item: &str, why: &str| {
        CliError::Usage(format!(
            "--increments item `{item}`: {why} (expected e<P> or f<N>:<FED>:<EXTRA>, optionally followed by x<R>)"
        ))
    };
    let num = |item: &str, text: &str| -> Result<usize, CliError> {
        usize::from_str(text).map_err(|_| bad(item, &format!("`{text}` is not a whole number")))
    };
    let too_many = |item: &str| bad(item, "the schedule's node count overflows a 64-bit integer");
    let mut schedule = Schedule::default();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (body, repeat) = match item.split_once('x') {
            Some((b, r)) => (b, num(item, r)?),
            None => (item, 1),
        };
        if repeat == 0 {
            return Err(bad(item, "the repeat count must be at least 1"));
        }
        let inc = if let Some(p) = body.strip_prefix('e') {
            IncrementSpec::Enhancement(num(item, p)?)
        } else if let Some(rest) = body.strip_prefix('f') {
            let parts: Vec<&str> = rest.split(':').collect();
            let [n, fed, extra] = parts[..] else {
                return Err(bad(item, "a feature-group item has three numbers"));
            };
            IncrementSpec::FeatureGroup {
                feature_nodes: num(item, n)?,
                fed: num(item, fed)?,
                extra: num(item, extra)?,
            }
        } else {
            return Err(bad(item, "it must start with e or f"));
        };
        let nodes = inc.checked_nodes().ok_or_else(|| too_many(item))?;
        if nodes == 0 {
            return Err(bad(item, "it adds no nodes"));
        }
        if let IncrementSpec::FeatureGroup { feature_nodes: 0, .. } = inc {
            return Err(bad(item, "a feature group needs at least one feature node"));
        }
        schedule.nodes = nodes
            .checked_mul(repeat)
            .and_then(|n| n.checked_add(schedule.nodes))
            .ok_or_else(|| too_many(item))?;
        schedule.updates += repeat; // ≤ nodes: each update adds at least one
        schedule.runs.push((inc, repeat));
    }
    Ok(schedule)
}

/// The BLS flags of `nn fit --model bls`.
#[derive(Clone, Debug, PartialEq)]
pub struct BlsArgs {
    /// `--feature-groups G` ([`defaults::FEATURE_GROUPS`]).
    pub feature_groups: usize,
    /// `--feature-nodes N`: nodes per feature group ([`defaults::FEATURE_NODES`]).
    pub feature_nodes: usize,
    /// `--enhancement E`: initial enhancement nodes ([`defaults::ENHANCEMENT`]).
    pub enhancement: usize,
    /// `--strategy S`: how the output weights are updated ([`defaults::STRATEGY`]).
    pub strategy: Strategy,
    /// `--increments SPEC` (default none: the initial network only).
    pub increments: Schedule,
    /// `--f32`: the solver stores the expanded matrix `A` in single
    /// precision (half the memory; see `linalg_core::hidden_store`).
    pub precision: Precision,
    /// λ (`--lambda`, default [`defaults::BLS_LAMBDA`]).
    pub lambda: f64,
    /// `--seed`.
    pub seed: u64,
    /// `--weight-column`: the training file's column of sample weights.
    pub weight_column: Option<String>,
    /// `--weight-scale`: the enhancement nodes' shrink scale
    /// ([`BlsParams::DEFAULT_SHRINK`]).
    pub shrink: f64,
}

impl Default for BlsArgs {
    fn default() -> Self {
        Self {
            feature_groups: defaults::FEATURE_GROUPS,
            feature_nodes: defaults::FEATURE_NODES,
            enhancement: defaults::ENHANCEMENT,
            strategy: defaults::STRATEGY,
            increments: Schedule::default(),
            precision: Precision::F64,
            lambda: defaults::BLS_LAMBDA,
            seed: defaults::SEED,
            weight_column: None,
            shrink: BlsParams::DEFAULT_SHRINK,
        }
    }
}

impl BlsArgs {
    /// The nodes of the initial network: `--feature-groups ×
    /// --feature-nodes + --enhancement` (saturating; the resolution refuses an
    /// overflow).
    pub fn initial_nodes(&self) -> usize {
        self.feature_groups
            .saturating_mul(self.feature_nodes)
            .saturating_add(self.enhancement)
    }

    /// All nodes after the last increment, `None` when the count overflows.
    pub fn checked_nodes(&self) -> Option<usize> {
        self.feature_groups
            .checked_mul(self.feature_nodes)
            .and_then(|f| f.checked_add(self.enhancement))
            .and_then(|n| n.checked_add(self.increments.nodes()))
    }

    /// The BLS's hyper-parameters (its initial network), checked.
    ///
    /// # Errors
    /// [`CliError::Model`] for values the params refuse.
    pub(crate) fn params(&self) -> Result<BlsValidParams, CliError> {
        Ok(
            BlsParams::new(self.feature_groups, self.feature_nodes, self.enhancement)
                .with_lambda(self.lambda)
                .with_strategy(self.strategy)
                .with_seed(self.seed)
                .with_precision(self.precision)
                .with_shrink(self.shrink)
                .check()?,
        )
    }
}

/// The BLS's own fields of the JSON report.
#[derive(Serialize)]
struct BlsJson {
    /// Feature nodes after the last update.
    feature_nodes: usize,
    /// Enhancement nodes after the last update.
    enhancement_nodes: usize,
    /// One record per update (the start first); not with a selection or a
    /// streamed fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    updates: Option<Vec<UpdateJson>>,
}

/// The BLS's fields of the JSON report for the fitted `bls`.
///
/// # Errors
/// [`CliError::Json`] (not expected: the part is a plain struct).
pub(crate) fn details(
    bls: &Bls,
    updates: Option<Vec<UpdateJson>>,
) -> Result<serde_json::Map<String, serde_json::Value>, CliError> {
    details_of(&BlsJson {
        feature_nodes: bls.feature_nodes(),
        enhancement_nodes: bls.enhancement_nodes(),
        updates,
    })
}

impl ModelCommand for BlsArgs {
    fn weight_column(&self) -> Option<&str> {
        self.weight_column.as_deref()
    }

    fn kind(&self) -> ModelKind {
        ModelKind::Bls
    }

    fn hidden_units(&self) -> usize {
        self.checked_nodes().unwrap_or(usize::MAX)
    }

    fn largest_nodes(&self, select: Option<&SelectArgs>) -> usize {
        select::largest_nodes(select, self.hidden_units(), |step| {
            select::bls_growth_default(self.initial_nodes(), step)
        })
    }

    fn activation_name(&self) -> String {
        Activation::Tanh.to_string()
    }

    fn solver_name(&self) -> String {
        self.strategy.to_string()
    }

    fn describe(&self, _outputs: usize) -> String {
        format!(
            "BLS {} × {} feature nodes + {} enhancement nodes, {} updates, strategy {}, λ = {:e}",
            self.feature_groups,
            self.feature_nodes,
            self.enhancement,
            self.increments.len(),
            self.strategy,
            self.lambda
        )
    }

    fn fit_bytes(&self, size: FitSize) -> Option<u128> {
        let a_bytes = if self.precision == Precision::F32 { 4 } else { 8 };
        let copies = match self.strategy {
            Strategy::Orig | Strategy::RInv | Strategy::LiEtAl | Strategy::Alg1 => 1,
            _ => 0,
        };
        let squares = if self.strategy == Strategy::RInv { 2 } else { 1 };
        readout_bytes(size, a_bytes, copies, squares, true)
    }

    fn smaller_fit_flags(&self) -> String {
        let f32 = if self.precision == Precision::F64 {
            ", or --f32"
        } else {
            ""
        };
        format!("fewer nodes (--feature-groups, --feature-nodes, --enhancement, --increments){f32}")
    }

    fn train(&self, ctx: &FitContext<'_>, x: &Array2<f64>, y: &Array2<f64>) -> Result<Trained, CliError> {
        warn_if_not_ridge(self.strategy, self.lambda);
        let (bls, updates, selection) = match ctx.select {
            Some(sel) => {
                let candidate = select::Candidate::Bls(self.params()?);
                match select::fit(ctx.task, ctx.seed, sel, candidate, x, y)? {
                    (FittedModel::Bls(bls), report) => (bls, None, Some(report)),
                    _ => return Err(CliError::Input("the BLS's selection returned another model".into())),
                }
            }
            None => match ctx.weights {
                // `resolve` refused weights with increments: the initial
                // network's weighted fit.
                Some(w) => (
                    self.params()?.fit_weighted(&Dataset::new(x.view(), y.view()), w)?,
                    None,
                    None,
                ),
                None => {
                    let (bls, updates) = fit(&self.params()?, &self.increments, x, y)?;
                    (bls, Some(updates), None)
                }
            },
        };
        let mut details = details(&bls, updates)?;
        // The shrink --select-scales chose, else the flags'.
        let shrink = selection.as_ref().and_then(|s| s.scale_factor).unwrap_or(self.shrink);
        details.insert("weight_scale".into(), serde_json::Value::from(shrink));
        if let Some(name) = &self.weight_column {
            details.insert("weight_column".into(), serde_json::Value::from(name.clone()));
        }
        Ok(Trained {
            model: FittedModel::Bls(bls),
            hidden: selection.as_ref().map_or(self.hidden_units(), |s| s.nodes),
            lambda: Some(selection.as_ref().map_or(self.lambda, |s| s.lambda)),
            selection,
            details,
        })
    }
}

/// One update in the JSON report.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct UpdateJson {
    /// `start`, `enhancement` or `feature-group`.
    pub kind: String,
    /// Nodes after the update.
    pub nodes: usize,
    /// Seconds computing the new columns.
    pub columns_seconds: f64,
    /// Seconds in the solver's update.
    pub solver_seconds: f64,
    /// Flops of the solver's update.
    pub flops: u64,
}

impl From<&UpdateReport> for UpdateJson {
    fn from(r: &UpdateReport) -> Self {
        use models::bls::Increment;
        Self {
            kind: match r.increment {
                Increment::Start { .. } => "start",
                Increment::Enhancement { .. } => "enhancement",
                Increment::FeatureGroup { .. } => "feature-group",
            }
            .into(),
            nodes: r.nodes,
            columns_seconds: r.columns_seconds(),
            solver_seconds: r.solver_seconds(),
            flops: r.flops,
        }
    }
}

/// Fit a BLS: the initial network of `params`, then the `increments`, with
/// progress on stderr. Returns the model and the update records.
pub(crate) fn fit(
    params: &BlsValidParams,
    increments: &Schedule,
    x: &Array2<f64>,
    y: &Array2<f64>,
) -> Result<(Bls, Vec<UpdateJson>), CliError> {
    let started = Instant::now();
    let mut bls = IncrementalBls::start(params, x.clone(), y.clone())?;
    bls.reserve(increments.nodes());
    let mut progress = Progress::new(increments.len(), "updates", Duration::ZERO);
    for (i, inc) in increments.iter().enumerate() {
        let r = match inc {
            IncrementSpec::Enhancement(p) => bls.add_enhancement(p)?,
            IncrementSpec::FeatureGroup {
                feature_nodes,
                fed,
                extra,
            } => bls.add_feature_group(feature_nodes, fed, extra)?,
        };
        progress.step(i + 1, || {
            format!(
                "update {}/{}: {} nodes, solver {:.2} s, columns {:.2} s ({:.0} s so far)",
                i + 1,
                increments.len(),
                r.nodes,
                r.solver_seconds(),
                r.columns_seconds(),
                started.elapsed().as_secs_f64()
            )
        });
    }
    let updates = bls.reports().iter().map(UpdateJson::from).collect();
    let ne = solver_residuals(bls.solver(), |rows| bls.hidden_outputs(rows), x, y)?;
    check_weights(bls.solver().strategy(), &ne)?;
    Ok((bls.into_bls(), updates))
}
