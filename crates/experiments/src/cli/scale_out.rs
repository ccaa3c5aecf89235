//! The flags of `nn fit` for data beyond one fit in memory (issue 21):
//! `--updatable` keeps the sums of the training rows in the saved model so
//! that `nn update` can add rows to it and forget rows from it.

use clap::Args;

use super::args::ModelKind;
use super::CliError;

/// `nn fit`'s flags for fits that continue after the first one.
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct ScaleOutFlags {
    /// Save the model with the sums of its training rows' hidden outputs
    /// (AᵀA and AᵀY: nodes² + nodes × outputs numbers) so that `nn update
    /// --add FILE` and `--forget FILE` can add rows to the fit and remove
    /// them exactly, without the training file. Needs --save.
    #[arg(long, requires = "save", help_heading = "Data beyond one fit (--model elm, bls)")]
    pub updatable: bool,
}

/// The resolved choices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScaleOut {
    /// Keep the sums in the saved model.
    pub updatable: bool,
}

impl ScaleOutFlags {
    /// Check the flags against the model: only the ELM's and the BLS's ridge
    /// readouts can be updated.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the flag and the model, or the solver.
    pub fn resolve(self, model: ModelKind, ridge: bool) -> Result<ScaleOut, CliError> {
        if self.updatable {
            if !matches!(model, ModelKind::Elm | ModelKind::Bls) {
                return Err(CliError::Usage(format!(
                    "--updatable does not apply to --model {}: only the ELM and the BLS have a ridge readout \
                     that rows can be added to and removed from",
                    model.name()
                )));
            }
            if !ridge {
                return Err(CliError::Usage(
                    "--updatable needs a ridge readout (λ > 0): minimum-norm least squares cannot be updated \
                     row by row; use --solver ridge or a ridge strategy"
                        .into(),
                ));
            }
        }
        Ok(ScaleOut {
            updatable: self.updatable,
        })
    }
}
