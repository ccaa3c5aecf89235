//! What `nn fit --save` writes and `nn predict` reads: the input scaler, the
//! task, the target scale and the model, in a bincode file with a magic and a
//! format version checked on load.
//!
//! File layout (bincode 2, standard configuration, fields in order):
//!
//! | field | type | value |
//! |---|---|---|
//! | `magic` | `[u8; 8]` | `b"DNNPIPE\0"` (8 raw bytes) |
//! | `format_version` | `u32` | 7 (varint) |
//! | `checksum` | `[u8; 4]` | CRC-32 (IEEE) of every other byte of the file, little-endian (4 raw bytes) |
//! | `pipeline` | [`FittedPipeline`] | task, classes, input scaler, target scale, model, class labels, column names |
//!
//! Format 7 added the training file's column names (`nn predict` checks a
//! header against them). Format 6 added the checksum: any single damaged byte is refused with
//! `model file is corrupt: checksum mismatch (file damaged or truncated)`,
//! bytes appended to a file with `N trailing byte(s) after the model`.
//! Format 5 (no checksum) records the class labels of a classifier (the
//! training file's labels in sorted order); format 4 the input scaling
//! (`--scale`). Files of formats 6, 5, 4 (classes were the labels themselves)
//! and 3 (saved before `--scale` existed, always z-scored) still load.
//! Decoding is bounded by the file's length
//! ([`models::envelope::decode_bounded`]), and every loaded pipeline is
//! validated ([`FittedPipeline::validate`]): finite scaler statistics and
//! target scale, classes, labels and task consistent with the model's
//! outputs.
//!
//! A Rust program needs only this crate and `models` (no command line) to
//! load data, fit, save the pipeline, load it and predict:
//!
//! ```
//! use models::{Activation, Dataset as Xy, ElmParams, Fit, ParamGuard};
//! use nn_data::pipeline::{FittedModel, FittedPipeline, InputScaler, Scale, TaskKind};
//! use nn_data::{load_shipped, one_hot, train_test_split};
//!
//! let pima = load_shipped("pima")?; // 768 rows, 8 features, classes 0 and 1
//! let (train, test) = train_test_split(&pima, 0.25, 7)?;
//! let scaler = InputScaler::fit(Scale::Zscore, &train.x)?;
//! let (x, t) = (scaler.transform(&train.x)?, one_hot(&train.y, 2)?);
//! let elm = ElmParams::new(40, Activation::Sigmoid).with_seed(3).check()?.fit(&Xy::new(x.view(), t.view()))?;
//! let pipeline = FittedPipeline {
//!     task: TaskKind::Classification,
//!     classes: Some(2),
//!     scaler,
//!     target_scale: None,
//!     model: FittedModel::Elm(elm),
//!     labels: None,
//!     columns: None,
//! };
//! let file = std::env::temp_dir().join(format!("pima-elm-{}.bin", std::process::id()));
//! pipeline.save(&file)?;
//! let loaded = FittedPipeline::load(&file)?;
//! std::fs::remove_file(&file)?;
//! let predicted = loaded.predict(&test.x)?; // classes, as f64
//! let right = predicted.iter().zip(&test.y).filter(|(p, y)| p == y).count();
//! assert!(right as f64 > 0.6 * test.y.len() as f64, "{right} of {}", test.y.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;

use models::bls::Bls;
use models::dfnn::Dfnn;
use models::mlp::Mlp;
use models::{Elm, OnlineFit, Predict, Slfn};
use ndarray::{Array2, ArrayView2};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{argmax_rows, ClassLabels, DataError, MinMaxScaler, StandardScaler, Table};
use models::envelope::{decode_bounded, decode_checked};

mod checks;
mod legacy;

pub use checks::{check_dfnn_network, check_mlp_network};
use legacy::{PipelineV3, PipelineV4, PipelineV6};

/// Classification or regression (the command line's `--task`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum TaskKind {
    /// Class labels (integers or names, mapped to classes in sorted
    /// order); one-hot targets; metric accuracy.
    Classification,
    /// Real targets; metric RMSE.
    Regression,
}

impl TaskKind {
    /// `classification` or `regression` (the JSON's `task`).
    pub fn name(self) -> &'static str {
        match self {
            TaskKind::Classification => "classification",
            TaskKind::Regression => "regression",
        }
    }

    /// The metric reported for the task: `accuracy` or `rmse`.
    pub fn metric_name(self) -> &'static str {
        match self {
            TaskKind::Classification => "accuracy",
            TaskKind::Regression => "rmse",
        }
    }
}

/// How the input features are scaled (the command line's `--scale`),
/// fitted on the training file and applied to every file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Scale {
    /// Each column to mean 0 and standard deviation 1.
    Zscore,
    /// Each column linearly onto `[0, 1]` over its training range.
    Minmax,
    /// The features as read.
    None,
}

impl Scale {
    /// `zscore`, `minmax` or `none` (the JSON's `scale`).
    pub fn name(self) -> &'static str {
        match self {
            Scale::Zscore => "zscore",
            Scale::Minmax => "minmax",
            Scale::None => "none",
        }
    }
}

/// What can go wrong with a pipeline; each displays as one line naming what
/// was wrong (the command line shows it after `nn: error:`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// The model cannot take new rows ([`FittedModel::into_updatable`]: only
    /// the ridge readouts can).
    #[error("{0}")]
    NotUpdatable(String),
    /// Data the pipeline cannot use: a prediction that is not finite, a
    /// header whose columns differ from the training file's.
    #[error("{0}")]
    Input(String),
    /// The data did not fit the scaler or the labels.
    #[error(transparent)]
    Data(#[from] DataError),
    /// The model failed.
    #[error(transparent)]
    Model(#[from] models::ModelError),
    /// Reading, writing, encoding or decoding the model file failed.
    #[error("{}: {problem}", path.display())]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// What went wrong.
        problem: String,
    },
}

/// The input scaling of a fitted pipeline, with its statistics from the
/// training file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum InputScaler {
    /// Standardization to mean 0, standard deviation 1 (`--scale zscore`).
    Zscore(StandardScaler),
    /// Columns onto `[0, 1]` over the training range (`--scale minmax`).
    Minmax(MinMaxScaler),
    /// No scaling (`--scale none`).
    None,
}

impl InputScaler {
    /// `(shift, divisor)` per column, the scaling being `(x − shift) /
    /// divisor` (z-score: mean and standard deviation; min-max: minimum and
    /// range); `None` for no scaling. The ONNX export writes them.
    pub fn shift_and_scale(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        match self {
            InputScaler::Zscore(s) => Some((s.mean().to_vec(), s.std().to_vec())),
            InputScaler::Minmax(s) => Some((s.min().to_vec(), s.range().to_vec())),
            InputScaler::None => None,
        }
    }

    /// Fit the scaling `scale` on the training features `x`.
    ///
    /// # Errors
    /// [`DataError::InvalidArgument`] when `x` has no rows.
    pub fn fit(scale: Scale, x: &Array2<f64>) -> Result<Self, DataError> {
        Ok(match scale {
            Scale::Zscore => InputScaler::Zscore(StandardScaler::fit(x)?),
            Scale::Minmax => InputScaler::Minmax(MinMaxScaler::fit(x)?),
            Scale::None => InputScaler::None,
        })
    }

    /// Fit the scaling `scale` on the training features `x` with a weight
    /// per row ([`StandardScaler::fit_weighted`],
    /// [`MinMaxScaler::fit_weighted`]): the statistics of the rows repeated
    /// as often as their integer weights say.
    ///
    /// # Errors
    /// [`DataError::InvalidArgument`] for weights that are not one per row,
    /// finite and ≥ 0, or are all 0.
    pub fn fit_weighted(
        scale: Scale,
        x: &Array2<f64>,
        weights: ndarray::ArrayView1<'_, f64>,
    ) -> Result<Self, DataError> {
        Ok(match scale {
            Scale::Zscore => InputScaler::Zscore(StandardScaler::fit_weighted(x, weights)?),
            Scale::Minmax => InputScaler::Minmax(MinMaxScaler::fit_weighted(x, weights)?),
            Scale::None => InputScaler::None,
        })
    }

    /// Which scaling this is.
    pub fn scale(&self) -> Scale {
        match self {
            InputScaler::Zscore(_) => Scale::Zscore,
            InputScaler::Minmax(_) => Scale::Minmax,
            InputScaler::None => Scale::None,
        }
    }

    /// The scaled features.
    ///
    /// # Errors
    /// [`DataError::InvalidArgument`] when `x` has another number of columns
    /// than the training file.
    pub fn transform(&self, x: &Array2<f64>) -> Result<Array2<f64>, DataError> {
        match self {
            InputScaler::Zscore(s) => s.transform(x),
            InputScaler::Minmax(s) => s.transform(x),
            InputScaler::None => Ok(x.clone()),
        }
    }
}

/// The model inside a [`FittedPipeline`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum FittedModel {
    /// An extreme learning machine.
    Elm(Elm),
    /// A Broad Learning System.
    Bls(Bls),
    /// A single-hidden-layer network of Grippo et al. (DEC, L-BFGS or their
    /// ELM).
    Slfn(Slfn),
    /// A deep feedforward network of Palagi & Seccia (B2LD, L-BFGS, BLInG
    /// or IG). Its shapes are checked on load ([`FittedPipeline::validate`]).
    Dfnn(Dfnn),
    /// The fully connected network of Tomic et al. (BPLS or backprop). Its
    /// shapes are checked on load ([`FittedPipeline::validate`]).
    Mlp(Mlp),
    /// An ELM saved with the sums of the rows it is fitted on
    /// (`nn fit --updatable`), to which `nn update` adds rows and from which
    /// it forgets them.
    OnlineElm(OnlineFit<Elm>),
    /// A BLS saved with the sums of its rows (`nn fit --updatable`).
    OnlineBls(OnlineFit<Bls>),
}

impl FittedModel {
    /// The number of input features the model was fitted on.
    pub fn n_inputs(&self) -> usize {
        match self {
            FittedModel::Elm(m) => m.n_inputs(),
            FittedModel::Bls(m) => m.n_inputs(),
            FittedModel::Slfn(m) => m.n_inputs(),
            FittedModel::Dfnn(m) => m.n_inputs(),
            FittedModel::Mlp(m) => m.n_inputs(),
            FittedModel::OnlineElm(m) => m.model().n_inputs(),
            FittedModel::OnlineBls(m) => m.model().n_inputs(),
        }
    }

    /// The same model with the sums of its training rows `x`, `y` (scaled
    /// features and the targets it was fitted to), for `nn update`; its
    /// weights are re-solved from them.
    ///
    /// # Errors
    /// [`PipelineError::NotUpdatable`] for a model that is not a ridge readout (only the
    /// ELM and the BLS are); the errors of [`OnlineFit::new`].
    pub fn into_updatable(self, x: Array2<f64>, y: Array2<f64>) -> Result<Self, PipelineError> {
        Ok(match self {
            FittedModel::Elm(m) => FittedModel::OnlineElm(OnlineFit::new(m, [Ok((x, y))])?),
            FittedModel::Bls(m) => FittedModel::OnlineBls(OnlineFit::new(m, [Ok((x, y))])?),
            m @ (FittedModel::OnlineElm(_) | FittedModel::OnlineBls(_)) => m,
            FittedModel::Slfn(_) | FittedModel::Dfnn(_) | FittedModel::Mlp(_) => {
                return Err(PipelineError::NotUpdatable(
                    "--updatable applies to --model elm and --model bls (a ridge readout of fixed hidden outputs)"
                        .into(),
                ))
            }
        })
    }

    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>, PipelineError> {
        Ok(match self {
            FittedModel::Elm(m) => m.predict(x)?,
            FittedModel::Bls(m) => m.predict(x)?,
            FittedModel::Slfn(m) => m.predict(x)?,
            FittedModel::Dfnn(m) => m.predict(x)?,
            FittedModel::Mlp(m) => m.predict(x)?,
            FittedModel::OnlineElm(m) => m.model().predict(x)?,
            FittedModel::OnlineBls(m) => m.model().predict(x)?,
        })
    }
}

/// A fitted pipeline: the input scaler, the task, and the model. This is
/// what `--save` writes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FittedPipeline {
    /// The task.
    pub task: TaskKind,
    /// Classes for classification.
    pub classes: Option<usize>,
    /// Scaling of the features, fitted on the training part.
    pub scaler: InputScaler,
    /// Regression only: the training targets' mean and standard deviation.
    /// The ELM has no output bias, so it is fitted to standardized targets
    /// (otherwise λ would shrink the fit of a large mean offset, e.g.
    /// airfoil's 124.8 dB); predictions are mapped back.
    pub target_scale: Option<(f64, f64)>,
    /// The model.
    pub model: FittedModel,
    /// Classification: the label of each class (formats 5 and 6; `None` in older
    /// files, whose classes are their labels).
    pub labels: Option<ClassLabels>,
    /// The training file's column names, when it had a header (format 7;
    /// `None` in older files): `nn predict` checks a file with a header
    /// against them ([`check_columns`](Self::check_columns)).
    pub columns: Option<Columns>,
}

/// The names of the training file's columns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Columns {
    /// The feature columns, in order.
    pub features: Vec<String>,
    /// The target column.
    pub target: String,
}

const PIPELINE_MAGIC: [u8; 8] = *b"DNNPIPE\0";
const PIPELINE_VERSION: u32 = 7;

#[derive(Serialize, Deserialize)]
struct PipelineFile<P> {
    magic: [u8; 8],
    format_version: u32,
    pipeline: P,
}

fn file_error(path: &Path, problem: impl Into<String>) -> PipelineError {
    PipelineError::File {
        path: path.into(),
        problem: problem.into(),
    }
}

fn corrupt(path: &Path, reason: impl std::fmt::Display) -> PipelineError {
    file_error(path, format!("model file is corrupt: {reason}"))
}

fn trailing(path: &Path, extra: usize) -> PipelineError {
    corrupt(path, format!("{extra} trailing byte(s) after the model"))
}

/// A file of format 3 or 4 (no checksum): the whole file is one
/// [`PipelineFile`].
fn decode_unchecked<P: DeserializeOwned>(path: &Path, bytes: &[u8], version: u32) -> Result<P, PipelineError> {
    let (file, used) = decode_bounded::<PipelineFile<P>>(bytes).map_err(|_| {
        corrupt(
            path,
            format!("its content does not decode as format {version} (file damaged or truncated)"),
        )
    })?;
    if used != bytes.len() {
        return Err(trailing(path, bytes.len() - used));
    }
    Ok(file.pipeline)
}

impl FittedPipeline {
    /// Predictions on raw features (K×N): class indices as f64 for
    /// classification, values for regression. A prediction that is not
    /// finite (the model's arithmetic overflowed) is an error naming the
    /// row (1-based) and the cause; [`predict_data`](Self::predict_data)
    /// names the file and line.
    ///
    /// # Errors
    /// A [`PipelineError::Data`] for features of the wrong width, a
    /// [`PipelineError::Model`] from the model, a [`PipelineError::Input`] for a
    /// non-finite prediction.
    pub fn predict(&self, x: &Array2<f64>) -> Result<Vec<f64>, PipelineError> {
        self.predict_finite(x)?
            .map_err(|(row, cause)| PipelineError::Input(format!("row {}: {cause}", row + 1)))
    }

    /// [`predict`](Self::predict) on a loaded file: a non-finite prediction
    /// is a [`PipelineError::File`] naming `data`'s file and the line of the row
    /// (IDX: the sample's number).
    ///
    /// # Errors
    /// As [`predict`](Self::predict).
    pub fn predict_data(&self, data: &Table) -> Result<Vec<f64>, PipelineError> {
        self.predict_finite(&data.x)?.map_err(|(row, cause)| {
            let place = match data.lines.as_ref().and_then(|lines| lines.get(row)) {
                Some(line) => format!("line {line}"),
                None => format!("sample {}", row + 1),
            };
            file_error(&data.source, format!("{place}: {cause}"))
        })
    }

    /// The predictions, or the first row (0-based) whose prediction is not
    /// finite and why.
    fn predict_finite(&self, x: &Array2<f64>) -> Result<Result<Vec<f64>, (usize, String)>, PipelineError> {
        let scaled = self.scaler.transform(x)?;
        let features = |row: usize| {
            let largest = |m: &Array2<f64>| m.row(row).iter().fold(0.0_f64, |a, v| a.max(v.abs()));
            format!(
                "the row's largest feature is {:e} in magnitude ({:e} after {} scaling), beyond what the model \
                 maps to a finite value (unbounded activations such as linear and relu pass it on)",
                largest(x),
                largest(&scaled),
                self.scaler.scale().name()
            )
        };
        if let Some(row) = scaled.rows().into_iter().position(|r| r.iter().any(|v| !v.is_finite())) {
            let (col, value) = scaled
                .row(row)
                .iter()
                .copied()
                .enumerate()
                .find(|(_, v)| !v.is_finite())
                .unwrap_or((0, f64::NAN));
            let cause = format!(
                "feature {} ({:e}) becomes {value} (not finite) after {} scaling, so no prediction is given",
                col + 1,
                x[[row, col]],
                self.scaler.scale().name()
            );
            return Ok(Err((row, cause)));
        }
        let z = self.model.predict(scaled.view())?;
        if let Some(row) = z.rows().into_iter().position(|r| r.iter().any(|v| !v.is_finite())) {
            let value = z.row(row).iter().copied().find(|v| !v.is_finite()).unwrap_or(f64::NAN);
            let cause = format!(
                "the model's output is {value} (not finite), so no prediction is given: {}",
                features(row)
            );
            return Ok(Err((row, cause)));
        }
        Ok(Ok(match self.task {
            TaskKind::Classification => argmax_rows(&z).iter().map(|&c| c as f64).collect(),
            TaskKind::Regression => {
                let (mean, std) = self.target_scale.unwrap_or((0.0, 1.0));
                let values: Vec<f64> = z.column(0).iter().map(|v| v * std + mean).collect();
                if let Some(row) = values.iter().position(|v| !v.is_finite()) {
                    return Ok(Err((
                        row,
                        format!(
                            "the prediction is {} (not finite): the model's output {:e} (standardized) times the \
                             training targets' standard deviation {std:e} plus their mean {mean:e} overflows; {}",
                            values[row],
                            z[[row, 0]],
                            features(row)
                        ),
                    )));
                }
                values
            }
        }))
    }

    /// The bytes [`save`](Self::save) writes: magic, format version, the
    /// CRC-32 of the rest, the pipeline.
    ///
    /// # Errors
    /// [`PipelineError::File`] when the pipeline cannot be encoded.
    pub fn to_bytes(&self, path: &Path) -> Result<Vec<u8>, PipelineError> {
        models::envelope::encode_checked(PIPELINE_MAGIC, PIPELINE_VERSION, self)
            .map_err(|e| file_error(path, format!("cannot encode: {e}")))
    }

    /// The number of input features the model expects.
    pub fn n_inputs(&self) -> usize {
        self.model.n_inputs()
    }

    /// A file's header against the training file's column names: `names`
    /// are the file's columns in order (the target's too, when the file has
    /// one). Accepted: the model's features alone, or followed by one more
    /// column (the target, whatever its name). Without names on either side
    /// there is nothing to check (a file without a header is taken by its
    /// width). So a file that lacks a feature column but has the target is
    /// refused, where its width alone would have read the target as the
    /// missing feature (issue 36).
    ///
    /// # Errors
    /// [`PipelineError::Input`] naming the missing, unknown or moved columns.
    pub fn check_columns(&self, names: Option<&[String]>, file: &Path, model_file: &Path) -> Result<(), PipelineError> {
        let (Some(columns), Some(names)) = (&self.columns, names) else {
            return Ok(());
        };
        let model = &columns.features;
        let width = model.len();
        if names.len() >= width && names.len() <= width + 1 && names[..width] == model[..] {
            return Ok(());
        }
        let missing: Vec<&str> = model
            .iter()
            .filter(|m| !names.contains(m))
            .map(String::as_str)
            .collect();
        let unknown: Vec<&str> = names
            .iter()
            .filter(|n| !model.contains(n) && **n != columns.target)
            .map(String::as_str)
            .collect();
        let quote = |v: &[&str]| v.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        let mut why = Vec::new();
        if !missing.is_empty() {
            why.push(format!("missing {}", quote(&missing)));
        }
        if !unknown.is_empty() {
            why.push(format!("not in the model {}", quote(&unknown)));
        }
        if names.contains(&columns.target) && names.last() != Some(&columns.target) {
            why.push(format!("the target `{}` must be last", columns.target));
        }
        if why.is_empty() {
            why.push("the same columns in another order".into());
        }
        let target_note = if names.contains(&columns.target) && !missing.is_empty() {
            format!(
                " (`{}` is the training file's target, so it is not read as the missing feature)",
                columns.target
            )
        } else {
            String::new()
        };
        Err(PipelineError::Input(format!(
            "{}: its header does not match the columns the model {} was fitted on ({}, then the target `{}`): \
             {}{target_note}; give the features in the training file's order, the target optionally last",
            file.display(),
            model_file.display(),
            model.join(", "),
            columns.target,
            why.join("; ")
        )))
    }

    /// Predictions as printed by `nn predict`: the original class labels
    /// for classification (class indices for files without labels),
    /// values for regression.
    ///
    /// # Errors
    /// As [`FittedPipeline::predict`].
    pub fn predict_labels(&self, x: &Array2<f64>) -> Result<Vec<String>, PipelineError> {
        Ok(self.as_labels(self.predict(x)?))
    }

    /// [`predict_labels`](Self::predict_labels) on a loaded file, a
    /// non-finite prediction named as by [`predict_data`](Self::predict_data).
    ///
    /// # Errors
    /// As [`predict_data`](Self::predict_data).
    pub fn predict_labels_data(&self, data: &Table) -> Result<Vec<String>, PipelineError> {
        Ok(self.as_labels(self.predict_data(data)?))
    }

    fn as_labels(&self, predictions: Vec<f64>) -> Vec<String> {
        match (&self.task, &self.labels) {
            (TaskKind::Classification, Some(labels)) => predictions
                .iter()
                .map(|&c| labels.label(c as usize).unwrap_or_else(|| c.to_string()))
                .collect(),
            _ => predictions.iter().map(f64::to_string).collect(),
        }
    }

    /// Save with magic, format version and checksum, through a temporary
    /// file renamed over `path` ([`models::envelope::write_replacing`]): a
    /// save that fails part-way leaves an existing model whole.
    ///
    /// # Errors
    /// [`PipelineError::File`] when the file cannot be encoded or written, or
    /// exists and is not a regular file.
    pub fn save(&self, path: &Path) -> Result<(), PipelineError> {
        let bytes = self.to_bytes(path)?;
        models::envelope::write_replacing(path, &bytes).map_err(|e| file_error(path, e.to_string()))
    }

    /// Load, checking the magic, the format version (7; 6 from before the
    /// column names were kept; 5 from before the checksum; 4 from before
    /// class labels were kept; 3 from before `--scale`), the checksum, and
    /// the pipeline
    /// ([`validate`](Self::validate)).
    ///
    /// # Errors
    /// [`PipelineError::File`] naming the file: unreadable, not a model file,
    /// corrupt, inconsistent, or of a format this build does not read.
    pub fn load(path: &Path) -> Result<Self, PipelineError> {
        let bytes = std::fs::read(path).map_err(|e| file_error(path, e.to_string()))?;
        Self::from_bytes(path, &bytes)
    }

    /// [`load`](Self::load) on the bytes of the file `path` (which names it
    /// in errors).
    ///
    /// # Errors
    /// As [`load`](Self::load), except reading the file.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Self, PipelineError> {
        if bytes.len() < 8 || bytes[..8] != PIPELINE_MAGIC {
            return Err(file_error(path, "not a model file saved by `nn fit --save`"));
        }
        let ((_, version), header_len): (([u8; 8], u32), usize) =
            decode_bounded(bytes).map_err(|_| corrupt(path, "the format version does not decode"))?;
        let pipeline = match version {
            PIPELINE_VERSION => decode_checked(bytes, header_len).map_err(|reason| corrupt(path, reason))?,
            6 => decode_checked::<PipelineV6>(bytes, header_len)
                .map(FittedPipeline::from)
                .map_err(|reason| corrupt(path, reason))?,
            5 => decode_unchecked::<PipelineV6>(path, bytes, 5).map(FittedPipeline::from)?,
            4 => decode_unchecked::<PipelineV4>(path, bytes, 4).map(FittedPipeline::from)?,
            3 => decode_unchecked::<PipelineV3>(path, bytes, 3).map(FittedPipeline::from)?,
            other => {
                return Err(file_error(
                    path,
                    format!("format version {other} (this build reads 3 to {PIPELINE_VERSION})"),
                ))
            }
        };
        pipeline.validate().map_err(|problem| corrupt(path, problem))?;
        Ok(pipeline)
    }

    /// Check what a decoded pipeline must satisfy: a deep network's layers
    /// chained (each layer's columns the width below, plus its bias) and
    /// finite (the DFNN's and the BPLS model's); the scaler's statistics
    /// (finite means, positive finite standard deviations; finite ranges with
    /// min ≤ max) for as many columns as the model has inputs; the target
    /// scale (finite mean, positive finite standard deviation) only for
    /// regression; classes equal to the model's outputs for classification,
    /// one output and no classes for regression.
    ///
    /// # Errors
    /// What is wrong, in words.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(columns) = &self.columns {
            if columns.features.len() != self.n_inputs() {
                return Err(format!(
                    "{} feature column names for a model of {} inputs",
                    columns.features.len(),
                    self.n_inputs()
                ));
            }
        }
        let (n_inputs, n_outputs) = match &self.model {
            FittedModel::Elm(m) => (m.n_inputs(), m.n_outputs()),
            FittedModel::Bls(m) => (m.n_inputs(), m.n_outputs()),
            FittedModel::Slfn(m) => (m.n_inputs(), m.n_outputs()),
            FittedModel::Dfnn(m) => check_dfnn_network(m)?,
            FittedModel::Mlp(m) => check_mlp_network(m)?,
            FittedModel::OnlineElm(m) => (m.model().n_inputs(), m.model().n_outputs()),
            FittedModel::OnlineBls(m) => (m.model().n_inputs(), m.model().n_outputs()),
        };
        let columns = |what: &str, a: usize, b: usize| -> Result<(), String> {
            if a != n_inputs || b != n_inputs {
                return Err(format!(
                    "the {what} scaler has {a} and {b} statistics for a model of {n_inputs} inputs"
                ));
            }
            Ok(())
        };
        match &self.scaler {
            InputScaler::Zscore(z) => {
                columns("z-score", z.mean().len(), z.std().len())?;
                if let Some((j, m)) = z.mean().iter().enumerate().find(|(_, m)| !m.is_finite()) {
                    return Err(format!("the z-score scaler's mean of column {} is {m}", j + 1));
                }
                if let Some((j, s)) = z.std().iter().enumerate().find(|(_, s)| !(s.is_finite() && **s > 0.0)) {
                    return Err(format!(
                        "the z-score scaler's standard deviation of column {} is {s} (must be positive and finite)",
                        j + 1
                    ));
                }
            }
            InputScaler::Minmax(mm) => {
                columns("min-max", mm.min().len(), mm.max().len())?;
                let pairs = mm.min().iter().zip(mm.max().iter()).enumerate();
                for (j, (lo, hi)) in pairs {
                    if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                        return Err(format!(
                            "the min-max scaler's range of column {} is [{lo}, {hi}] (must be finite, min ≤ max)",
                            j + 1
                        ));
                    }
                }
            }
            InputScaler::None => {}
        }
        if let Some(labels) = &self.labels {
            if self.task != TaskKind::Classification || self.classes != Some(labels.len()) {
                return Err(format!(
                    "{} class labels for a {} model of {} classes",
                    labels.len(),
                    self.task.name(),
                    self.classes.map_or_else(|| "no".to_string(), |c| c.to_string())
                ));
            }
        }
        match (self.task, self.classes, self.target_scale) {
            (TaskKind::Classification, Some(c), None) if c == n_outputs && c > 0 => Ok(()),
            (TaskKind::Classification, Some(c), None) => Err(format!(
                "a classifier of {c} classes with a model of {n_outputs} outputs"
            )),
            (TaskKind::Classification, None, _) => Err("a classifier without its number of classes".into()),
            (TaskKind::Classification, Some(_), Some(_)) => Err("a classifier with a target scale".into()),
            (TaskKind::Regression, Some(c), _) => Err(format!("a regression model with {c} classes")),
            (TaskKind::Regression, None, _) if n_outputs != 1 => {
                Err(format!("a regression model of {n_outputs} outputs (one expected)"))
            }
            (TaskKind::Regression, None, Some((mean, std))) if !(mean.is_finite() && std.is_finite() && std > 0.0) => {
                Err(format!(
                    "the target scale is mean {mean}, standard deviation {std} (must be finite, the deviation positive)"
                ))
            }
            (TaskKind::Regression, None, _) => Ok(()),
        }
    }
}

#[cfg(test)]
#[path = "pipeline_tests.rs"]
mod tests;
