//! The pipeline file's older formats (6, 4, 3), read and converted to the
//! current [`FittedPipeline`] (format 7) on load.

use serde::Deserialize;

use super::{FittedModel, FittedPipeline, InputScaler, TaskKind};
use crate::{ClassLabels, StandardScaler};

/// Format 6: the pipeline before column names were kept.
#[derive(Deserialize)]
pub(super) struct PipelineV6 {
    task: TaskKind,
    classes: Option<usize>,
    scaler: InputScaler,
    target_scale: Option<(f64, f64)>,
    model: FittedModel,
    labels: Option<ClassLabels>,
}

impl From<PipelineV6> for FittedPipeline {
    fn from(p: PipelineV6) -> Self {
        FittedPipeline {
            task: p.task,
            classes: p.classes,
            scaler: p.scaler,
            target_scale: p.target_scale,
            model: p.model,
            labels: p.labels,
            columns: None,
        }
    }
}

/// Format 4: the pipeline before class labels were kept.
#[derive(Deserialize)]
pub(super) struct PipelineV4 {
    task: TaskKind,
    classes: Option<usize>,
    scaler: InputScaler,
    target_scale: Option<(f64, f64)>,
    model: FittedModel,
}

impl From<PipelineV4> for FittedPipeline {
    fn from(p: PipelineV4) -> Self {
        PipelineV6 {
            task: p.task,
            classes: p.classes,
            scaler: p.scaler,
            target_scale: p.target_scale,
            model: p.model,
            labels: None,
        }
        .into()
    }
}

/// Format 3: the pipeline before `--scale` (features always z-scored).
#[derive(Deserialize)]
pub(super) struct PipelineV3 {
    task: TaskKind,
    classes: Option<usize>,
    scaler: StandardScaler,
    target_scale: Option<(f64, f64)>,
    model: FittedModel,
}

impl From<PipelineV3> for FittedPipeline {
    fn from(p: PipelineV3) -> Self {
        PipelineV4 {
            task: p.task,
            classes: p.classes,
            scaler: InputScaler::Zscore(p.scaler),
            target_scale: p.target_scale,
            model: p.model,
        }
        .into()
    }
}
