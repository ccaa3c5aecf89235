//! Fit one model with the library and print its predictions: the Rust side
//! of the Python package's equality test (`crates/python/tests/`), which
//! fits the same model from Python on the same data and seed and requires
//! the same predictions bit for bit.
//!
//! ```text
//! reference_predictions MODEL TRAIN TEST [key=value]…
//! ```
//!
//! `TRAIN` and `TEST` are plain text: a first line `N,M` (features,
//! targets), then one row per sample of `N + M` comma-separated numbers
//! (`M = 0` for `TEST`), each read exactly (Rust's parser is correctly
//! rounded; the test writes Python's `repr`). One line per test sample is
//! printed, its outputs comma-separated in Rust's shortest round-trip form.
//!
//! Models and keys (the library's defaults where a key is absent):
//! - `elm`: `n_hidden`, `activation`, `alpha`, `solver`, `seed`; with
//!   `add_nodes=Q`, grown by Q nodes after the fit (`IncrementalElm`);
//! - `bls`: `feature_groups`, `feature_nodes`, `enhancement_nodes`, `alpha`,
//!   `strategy`, `seed`;
//! - `slfn`: `n_hidden`, `trainer`, `tau_lambda`, `seed`;
//! - `dfnn`: `layers` (widths joined by `-`), `trainer`, `max_cycles`,
//!   `batch_size`, `max_epochs`, `seed`;
//! - `bpls`: `layers`, `output`, `algorithm` (1 or 2), `max_iterations`,
//!   `alpha`, `seed`.
//!
//! BLAS threads: `OPENBLAS_NUM_THREADS`, as for any program.

use std::collections::HashMap;
use std::error::Error;
use std::ops::ControlFlow;

use models::dfnn::{B2ld, Bias, Dfnn, DfnnTrainer, FullLbfgs, Incremental, IncrementalKind};
use models::mlp::{BplsAlgorithm, BplsParams};
use models::{BlsParams, Dataset, ElmParams, Fit, IncrementalBls, IncrementalElm, ParamGuard, Predict, SlfnParams};
use ndarray::{s, Array2};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Samples and targets from the text format above.
fn read(path: &str) -> Result<(Array2<f64>, Array2<f64>)> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut lines = text.lines();
    let head = lines.next().ok_or_else(|| format!("{path}: empty"))?;
    let (n, m) = head
        .split_once(',')
        .ok_or_else(|| format!("{path}: first line is not N,M"))?;
    let (n, m): (usize, usize) = (n.trim().parse()?, m.trim().parse()?);
    let mut values = Vec::new();
    let mut rows = 0;
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let row: Vec<f64> = line
            .split(',')
            .map(|v| v.trim().parse::<f64>())
            .collect::<std::result::Result<_, _>>()?;
        if row.len() != n + m {
            return Err(format!("{path}: row {} has {} values, expected {}", rows + 1, row.len(), n + m).into());
        }
        values.extend(row);
        rows += 1;
    }
    let all = Array2::from_shape_vec((rows, n + m), values)?;
    Ok((all.slice(s![.., ..n]).to_owned(), all.slice(s![.., n..]).to_owned()))
}

/// `key=value` arguments.
struct Keys(HashMap<String, String>);

impl Keys {
    fn get<T: std::str::FromStr>(&self, key: &str, default: T) -> Result<T>
    where
        T::Err: std::fmt::Display,
    {
        match self.0.get(key) {
            None => Ok(default),
            Some(v) => v.parse::<T>().map_err(|e| format!("{key}={v}: {e}").into()),
        }
    }

    fn layers(&self) -> Result<Vec<usize>> {
        let text = self.0.get("layers").ok_or("layers=… is required")?;
        Ok(text.split('-').map(str::parse).collect::<std::result::Result<_, _>>()?)
    }
}

fn predictions(model: &str, keys: &Keys, x: &Array2<f64>, y: &Array2<f64>, test: &Array2<f64>) -> Result<Array2<f64>> {
    let data = Dataset::new(x.view(), y.view());
    let seed: u64 = keys.get("seed", 0)?;
    Ok(match model {
        "elm" => {
            let params = ElmParams::new(
                keys.get("n_hidden", 100)?,
                keys.get("activation", ElmParams::DEFAULT_ACTIVATION)?,
            )
            .with_lambda(keys.get("alpha", ElmParams::DEFAULT_LAMBDA)?)
            .with_solver(keys.get("solver", ElmParams::DEFAULT_SOLVER)?)
            .with_seed(seed)
            .check()?;
            match keys.get::<usize>("add_nodes", 0)? {
                0 => params.fit(&data)?.predict(test.view())?,
                q => {
                    let mut inc = IncrementalElm::start(&params, &data)?;
                    inc.add_nodes(q)?;
                    inc.into_elm().predict(test.view())?
                }
            }
        }
        "bls" => {
            let params = BlsParams::new(
                keys.get("feature_groups", BlsParams::DEFAULT_FEATURE_GROUPS)?,
                keys.get("feature_nodes", BlsParams::DEFAULT_FEATURE_NODES)?,
                keys.get("enhancement_nodes", BlsParams::DEFAULT_ENHANCEMENT_NODES)?,
            )
            .with_lambda(keys.get("alpha", BlsParams::DEFAULT_LAMBDA)?)
            .with_strategy(keys.get("strategy", BlsParams::DEFAULT_STRATEGY)?)
            .with_seed(seed)
            .check()?;
            IncrementalBls::start(&params, x.clone(), y.clone())?
                .into_bls()
                .predict(test.view())?
        }
        "slfn" => SlfnParams::new(keys.get("n_hidden", 20)?)
            .with_trainer(keys.get("trainer", SlfnParams::DEFAULT_TRAINER)?)
            .with_tau_lambda(keys.get("tau_lambda", SlfnParams::DEFAULT_TAU_LAMBDA)?)
            .with_seed(seed)
            .fit(&data)?
            .predict(test.view())?,
        "dfnn" => {
            let widths = [keys.layers()?, vec![y.ncols()]].concat();
            let mut net = Dfnn::random(x.ncols(), &widths, Bias::Every, seed, models::dfnn::INIT_SCALE)?;
            let trainer = match keys.0.get("trainer").map_or("b2ld", String::as_str) {
                "b2ld" => DfnnTrainer::B2ld(B2ld {
                    max_cycles: keys.get("max_cycles", B2ld::default().max_cycles)?,
                    ..B2ld::default()
                }),
                "lbfgs" => DfnnTrainer::Lbfgs(FullLbfgs::default()),
                name => {
                    let kind = if name == "bling" {
                        IncrementalKind::Bling
                    } else {
                        IncrementalKind::Ig
                    };
                    let mut inc = Incremental::new(kind);
                    inc.batch_size = keys.get("batch_size", inc.batch_size)?;
                    inc.max_epochs = keys.get("max_epochs", inc.max_epochs)?;
                    inc.shuffle = Some(seed);
                    DfnnTrainer::Incremental(inc)
                }
            };
            let rho = net.paper_rho();
            net.fit(x.view(), y.view(), rho, &trainer, |_| ControlFlow::Continue(()))?;
            net.predict(test.view())?
        }
        "bpls" => {
            let algorithm = match keys.get::<u8>("algorithm", 1)? {
                1 => BplsAlgorithm::Injective,
                _ => BplsAlgorithm::NonInjective {
                    max_iterations: keys.get("max_iterations", models::mlp::DEFAULT_MAX_ITERATIONS)?,
                },
            };
            BplsParams::new(keys.layers()?)
                .with_output(keys.get("output", models::mlp::OutputActivation::Linear)?)
                .with_algorithm(algorithm)
                .with_lambda(keys.get("alpha", models::mlp::DEFAULT_LAMBDA)?)
                .with_seed(seed)
                .fit(&data)?
                .predict(test.view())?
        }
        other => return Err(format!("unknown model `{other}`: elm, bls, slfn, dfnn, bpls").into()),
    })
}

fn main() -> Result<()> {
    // The kernel the Python package loads (`decomp_nn/_blas_kernel.py`, the
    // same rule): on a CPU newer than OpenBLAS, both sides must leave the
    // generic kernel the same way, or their sums differ in the last bits.
    if let Err(e) = linalg_core::blas_kernel::reexec_with_chosen_kernel() {
        eprintln!("reference_predictions: warning: could not start again with a kernel for this CPU ({e})");
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model, train, test, rest @ ..] = args.as_slice() else {
        return Err("usage: reference_predictions MODEL TRAIN TEST [key=value]…".into());
    };
    let keys = Keys(
        rest.iter()
            .map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .ok_or(format!("`{kv}`: expected key=value"))
            })
            .collect::<std::result::Result<_, _>>()?,
    );
    let (x, y) = read(train)?;
    let (t, _) = read(test)?;
    let out = predictions(model, &keys, &x, &y, &t)?;
    let mut text = String::new();
    for row in out.rows() {
        let cells: Vec<String> = row.iter().map(|v| format!("{v:?}")).collect();
        text.push_str(&cells.join(","));
        text.push('\n');
    }
    print!("{text}");
    Ok(())
}
