//! `nn export`: a model saved by `nn fit --save` as an ONNX file (issue 43;
//! [`nn_data::onnx`]). The graph takes the raw features (the saved
//! scaling inside) and gives the prediction: `Y` for regression, `label`
//! and `scores` for classification.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use nn_data::onnx::{export as onnx_export, ExportParts, OnnxFloat};
use serde::Serialize;

use super::error::CliError;
use super::pipeline::FittedPipeline;
use super::saved::same_file;

/// The graph's floating-point type (`--onnx-dtype`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OnnxDtype {
    /// double: the library's own precision.
    #[default]
    F64,
    /// float: weights rounded to float, arithmetic in float.
    F32,
}

/// The flags of `nn export`.
#[derive(Clone, Debug, Args)]
pub struct ExportFlags {
    /// A model saved by `nn fit --save`.
    #[arg(long, value_name = "FILE")]
    pub model_file: PathBuf,
    /// The ONNX file to write.
    #[arg(long, value_name = "FILE")]
    pub onnx: PathBuf,
    /// The graph's floating-point type.
    #[arg(long, value_name = "TYPE", value_enum, default_value_t = OnnxDtype::F64)]
    pub onnx_dtype: OnnxDtype,
}

/// What `nn export` prints (one JSON object).
#[derive(Clone, Debug, Serialize)]
pub struct ExportReport {
    /// The file written.
    pub onnx: PathBuf,
    /// Its size in bytes.
    pub bytes: usize,
    /// `f64` or `f32`.
    pub dtype: &'static str,
    /// `regression` or `classification`.
    pub task: &'static str,
}

/// Run `export`: load the model, write its ONNX graph.
///
/// # Errors
/// [`CliError::File`] for a model file that cannot be read or an ONNX file
/// that cannot be written, [`CliError::Usage`] for `--onnx` naming the
/// model file, [`CliError::Data`] for a model the export does not cover
/// yet (named in the message).
pub fn export(args: &ExportFlags) -> Result<ExportReport, CliError> {
    if same_file(&args.onnx, &args.model_file) {
        return Err(CliError::Usage(format!(
            "--onnx {} is the model file: it would be overwritten; choose another file",
            args.onnx.display()
        )));
    }
    let pipeline = FittedPipeline::load(&args.model_file)?;
    let parts = ExportParts::of_pipeline(&pipeline)?;
    let (float, dtype) = match args.onnx_dtype {
        OnnxDtype::F64 => (OnnxFloat::F64, "f64"),
        OnnxDtype::F32 => (OnnxFloat::F32, "f32"),
    };
    let bytes = onnx_export(&parts, float)?;
    std::fs::write(&args.onnx, &bytes).map_err(|e| CliError::File {
        path: args.onnx.clone(),
        problem: format!("cannot write the ONNX file: {e}"),
    })?;
    Ok(ExportReport {
        onnx: args.onnx.clone(),
        bytes: bytes.len(),
        dtype,
        task: if parts.labels.is_some() {
            "classification"
        } else {
            "regression"
        },
    })
}
