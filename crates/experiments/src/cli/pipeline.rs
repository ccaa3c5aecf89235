//! What `nn fit --save` writes and `nn predict` reads: the input scaler, the
//! task, the target scale and the model, in a bincode file with a magic and a
//! format version checked on load.
//!
//! Format 5 records the class labels of a classifier (the training file's
//! labels in sorted order); format 4 the input scaling (`--scale`). Files of
//! format 4 (classes were the labels themselves) and 3 (saved before
//! `--scale` existed, always z-scored) still load.

use std::path::Path;

use models::bls::Bls;
use models::Elm;
use ndarray::{Array2, ArrayView2};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::args::{Scale, TaskKind};
use super::CliError;
use crate::datasets::{argmax_rows, ClassLabels, DataError, MinMaxScaler, StandardScaler};

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
}

impl FittedModel {
    /// The number of input features the model was fitted on.
    pub fn n_inputs(&self) -> usize {
        match self {
            FittedModel::Elm(m) => m.n_inputs(),
            FittedModel::Bls(m) => m.n_inputs(),
        }
    }

    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>, CliError> {
        Ok(match self {
            FittedModel::Elm(m) => m.predict(x)?,
            FittedModel::Bls(m) => m.predict(x)?,
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
    /// Classification: the label of each class (format 5; `None` in older
    /// files, whose classes are their labels).
    pub labels: Option<ClassLabels>,
}

/// Format 4: the pipeline before class labels were kept.
#[derive(Deserialize)]
struct PipelineV4 {
    task: TaskKind,
    classes: Option<usize>,
    scaler: InputScaler,
    target_scale: Option<(f64, f64)>,
    model: FittedModel,
}

impl From<PipelineV4> for FittedPipeline {
    fn from(p: PipelineV4) -> Self {
        FittedPipeline {
            task: p.task,
            classes: p.classes,
            scaler: p.scaler,
            target_scale: p.target_scale,
            model: p.model,
            labels: None,
        }
    }
}

/// Format 3: the pipeline before `--scale` (features always z-scored).
#[derive(Deserialize)]
struct PipelineV3 {
    task: TaskKind,
    classes: Option<usize>,
    scaler: StandardScaler,
    target_scale: Option<(f64, f64)>,
    model: FittedModel,
}

impl From<PipelineV3> for FittedPipeline {
    fn from(p: PipelineV3) -> Self {
        FittedPipeline {
            task: p.task,
            classes: p.classes,
            scaler: InputScaler::Zscore(p.scaler),
            target_scale: p.target_scale,
            model: p.model,
            labels: None,
        }
    }
}

const PIPELINE_MAGIC: [u8; 8] = *b"DNNPIPE\0";
const PIPELINE_VERSION: u32 = 5;

#[derive(Serialize, Deserialize)]
struct PipelineFile<P> {
    magic: [u8; 8],
    format_version: u32,
    pipeline: P,
}

fn file_error(path: &Path, problem: impl Into<String>) -> CliError {
    CliError::File {
        path: path.into(),
        problem: problem.into(),
    }
}

fn decode<P: DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<P, CliError> {
    bincode::serde::decode_from_slice::<PipelineFile<P>, _>(bytes, bincode::config::standard())
        .map(|(file, _)| file.pipeline)
        .map_err(|e| file_error(path, format!("corrupt model file: {e}")))
}

impl FittedPipeline {
    /// Predictions on raw features (K×N): class indices as f64 for
    /// classification, values for regression.
    ///
    /// # Errors
    /// A [`CliError::Data`] for features of the wrong width, a
    /// [`CliError::Model`] from the model.
    pub fn predict(&self, x: &Array2<f64>) -> Result<Vec<f64>, CliError> {
        let z = self.model.predict(self.scaler.transform(x)?.view())?;
        Ok(match self.task {
            TaskKind::Classification => argmax_rows(&z).iter().map(|&c| c as f64).collect(),
            TaskKind::Regression => {
                let (mean, std) = self.target_scale.unwrap_or((0.0, 1.0));
                z.column(0).iter().map(|v| v * std + mean).collect()
            }
        })
    }

    /// The number of input features the model expects.
    pub fn n_inputs(&self) -> usize {
        self.model.n_inputs()
    }

    /// Predictions as printed by `nn predict`: the original class labels
    /// for classification (class indices for files without labels),
    /// values for regression.
    ///
    /// # Errors
    /// As [`FittedPipeline::predict`].
    pub fn predict_labels(&self, x: &Array2<f64>) -> Result<Vec<String>, CliError> {
        let predictions = self.predict(x)?;
        Ok(match (&self.task, &self.labels) {
            (TaskKind::Classification, Some(labels)) => predictions
                .iter()
                .map(|&c| labels.label(c as usize).unwrap_or_else(|| c.to_string()))
                .collect(),
            _ => predictions.iter().map(f64::to_string).collect(),
        })
    }

    /// Save with magic and format version.
    ///
    /// # Errors
    /// [`CliError::File`] when the file cannot be encoded or written.
    pub fn save(&self, path: &Path) -> Result<(), CliError> {
        let file = PipelineFile {
            magic: PIPELINE_MAGIC,
            format_version: PIPELINE_VERSION,
            pipeline: self,
        };
        let bytes = bincode::serde::encode_to_vec(&file, bincode::config::standard())
            .map_err(|e| file_error(path, format!("cannot encode: {e}")))?;
        std::fs::write(path, bytes).map_err(|e| file_error(path, e.to_string()))
    }

    /// Load, checking the magic and the format version (5; 4 from before
    /// class labels were kept; 3 from before `--scale`).
    ///
    /// # Errors
    /// [`CliError::File`] naming the file: unreadable, not a model file,
    /// corrupt, or of a format this build does not read.
    pub fn load(path: &Path) -> Result<Self, CliError> {
        let bytes = std::fs::read(path).map_err(|e| file_error(path, e.to_string()))?;
        if bytes.len() < 8 || bytes[..8] != PIPELINE_MAGIC {
            return Err(file_error(path, "not a model file saved by `nn fit --save`"));
        }
        let ((_, version), _): (([u8; 8], u32), usize) =
            bincode::serde::decode_from_slice(&bytes, bincode::config::standard())
                .map_err(|e| file_error(path, format!("corrupt model file: {e}")))?;
        match version {
            PIPELINE_VERSION => decode(path, &bytes),
            4 => decode::<PipelineV4>(path, &bytes).map(FittedPipeline::from),
            3 => decode::<PipelineV3>(path, &bytes).map(FittedPipeline::from),
            other => Err(file_error(
                path,
                format!("format version {other} (this build reads 3 to {PIPELINE_VERSION})"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use models::{Activation, ElmParams, Fit};
    use ndarray::array;

    /// A format-3 file as the previous build wrote it: the same envelope
    /// with a bare `StandardScaler` where format 4 has an `InputScaler`.
    #[derive(Serialize)]
    struct WrittenV3<'a> {
        task: TaskKind,
        classes: Option<usize>,
        scaler: &'a StandardScaler,
        target_scale: Option<(f64, f64)>,
        model: &'a FittedModel,
    }

    /// A format-4 file: the fields of format 5 without the class labels.
    #[derive(Serialize)]
    struct WrittenV4<'a> {
        task: TaskKind,
        classes: Option<usize>,
        scaler: &'a InputScaler,
        target_scale: Option<(f64, f64)>,
        model: &'a FittedModel,
    }

    #[test]
    fn format_4_files_load_with_classes_as_labels() -> Result<(), Box<dyn std::error::Error>> {
        let x = array![[0.0, 1.0], [1.0, 3.0], [2.0, 2.0], [3.0, 5.0]];
        let y = array![[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]];
        let scaler = InputScaler::None;
        let model =
            FittedModel::Elm(ElmParams::new(3, Activation::Tanh).fit(&models::Dataset::new(x.view(), y.view()))?);
        let file = PipelineFile {
            magic: PIPELINE_MAGIC,
            format_version: 4,
            pipeline: WrittenV4 {
                task: TaskKind::Classification,
                classes: Some(2),
                scaler: &scaler,
                target_scale: None,
                model: &model,
            },
        };
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("v4.model");
        std::fs::write(
            &path,
            bincode::serde::encode_to_vec(&file, bincode::config::standard())?,
        )?;
        let loaded = FittedPipeline::load(&path)?;
        assert_eq!(
            (loaded.labels.clone(), loaded.classes, loaded.n_inputs()),
            (None, Some(2), 2)
        );
        let indices: Vec<String> = loaded.predict(&x)?.iter().map(|c| c.to_string()).collect();
        assert_eq!(loaded.predict_labels(&x)?, indices);
        // Saved again, it is format 5 and keeps labels given to it.
        let relabelled = FittedPipeline {
            labels: Some(ClassLabels::Text(vec!["no".into(), "yes".into()])),
            ..loaded
        };
        relabelled.save(&path)?;
        let again = FittedPipeline::load(&path)?;
        assert_eq!(again.labels, relabelled.labels);
        let words = again.predict_labels(&x)?;
        assert!(words.iter().all(|w| w == "no" || w == "yes"), "{words:?}");
        Ok(())
    }

    #[test]
    fn format_3_files_load_as_zscored_pipelines() -> Result<(), Box<dyn std::error::Error>> {
        let x = array![[0.0, 1.0], [1.0, 3.0], [2.0, 2.0], [3.0, 5.0]];
        let y = array![[0.5], [1.0], [0.0], [2.0]];
        let scaler = StandardScaler::fit(&x)?;
        let z = scaler.transform(&x)?;
        let model =
            FittedModel::Elm(ElmParams::new(3, Activation::Tanh).fit(&models::Dataset::new(z.view(), y.view()))?);
        let file = PipelineFile {
            magic: PIPELINE_MAGIC,
            format_version: 3,
            pipeline: WrittenV3 {
                task: TaskKind::Regression,
                classes: None,
                scaler: &scaler,
                target_scale: Some((1.0, 2.0)),
                model: &model,
            },
        };
        let path = std::env::temp_dir().join(format!("nn-pipeline-v3-{}.model", std::process::id()));
        std::fs::write(
            &path,
            bincode::serde::encode_to_vec(&file, bincode::config::standard())?,
        )?;
        let loaded = FittedPipeline::load(&path)?;
        assert_eq!(loaded.scaler, InputScaler::Zscore(scaler));
        // Independently: the model on the z-scored features, mapped back.
        let FittedModel::Elm(elm) = &model else { unreachable!() };
        let expected: Vec<f64> = elm.predict(z.view())?.column(0).iter().map(|v| v * 2.0 + 1.0).collect();
        assert_eq!(loaded.predict(&x)?, expected);

        let mut bytes = std::fs::read(&path)?;
        bytes[8] = 9; // format version 9 (varint of a small number)
        std::fs::write(&path, bytes)?;
        let e = FittedPipeline::load(&path)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("format version 9"), "{e}");
        std::fs::remove_file(&path)?;
        Ok(())
    }
}
