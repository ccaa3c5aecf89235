//! The one error of the command line, [`CliError`].

use std::path::PathBuf;

use nn_data::pipeline;

use crate::{datasets, metrics};

/// Errors of the command line: bad arguments, unusable data, model errors.
/// Each displays as one line naming what was wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// A missing, unknown, malformed or inapplicable argument, or flags that
    /// ask for more than the machine has (`nn` exits with 2).
    #[error("{0}")]
    Usage(String),
    /// Files that do not fit together (a test file narrower than the
    /// training file, a model file that cannot be updated), data the fit
    /// cannot use, or a fit that failed its checks (`nn` exits with 1).
    #[error("{0}")]
    Input(String),
    /// Loading or preparing the data failed.
    #[error(transparent)]
    Data(#[from] datasets::DataError),
    /// Fitting, predicting or saving the model failed.
    #[error(transparent)]
    Model(#[from] models::ModelError),
    /// A linear-algebra routine failed.
    #[error(transparent)]
    Linalg(#[from] linalg_core::Error),
    /// A metric could not be computed.
    #[error(transparent)]
    Metric(#[from] metrics::MetricError),
    /// The report could not be written as JSON.
    #[error("cannot write the report: {0}")]
    Json(#[from] serde_json::Error),
    /// Reading or writing the model file failed.
    #[error("{}: {problem}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        problem: String,
    },
}

impl From<pipeline::PipelineError> for CliError {
    /// The same message; a model that cannot take new rows is a usage error
    /// (`nn update` of a model file that is not a ridge readout: exit 2).
    fn from(e: pipeline::PipelineError) -> Self {
        use pipeline::PipelineError as P;
        match e {
            P::NotUpdatable(m) => CliError::Usage(m),
            P::Input(m) => CliError::Input(m),
            P::Data(d) => CliError::Data(d),
            P::Model(m) => CliError::Model(m),
            P::File { path, problem } => CliError::File { path, problem },
            other => CliError::Input(other.to_string()),
        }
    }
}
