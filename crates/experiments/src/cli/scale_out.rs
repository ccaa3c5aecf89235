//! The flags of `nn fit` for data beyond one fit in memory (issue 21):
//! `--chunk-rows R` reads the training and test files R rows at a time
//! (`stream.rs`), `--distributed` splits them over the processes of
//! an MPI job, and `--updatable` keeps the sums of the training rows in the
//! saved model so that `nn update` can add rows to it and forget rows from
//! it.

use clap::Args;

use super::common::{at_least_one, ModelKind};
use super::error::CliError;

/// Rows per chunk of `--distributed` without `--chunk-rows`.
pub const DEFAULT_CHUNK_ROWS: usize = 10_000;

/// `nn fit`'s flags for data beyond one fit in memory.
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct ScaleOutFlags {
    /// Read the training and test files R rows at a time and fit from the
    /// chunks: memory for one chunk and the model's sums (nodes²), however
    /// many rows the files hold; the same model as the in-memory fit up to
    /// rounding. ELM with --solver ridge, or BLS without --increments.
    #[arg(long, value_name = "R", value_parser = at_least_one, help_heading = "Data beyond one fit (--model elm, bls)")]
    pub chunk_rows: Option<usize>,
    /// Fit over the processes of an MPI job (`mpirun -np P nn fit …`):
    /// each reads its shard — the file named with `{rank}` replaced by its
    /// rank, or else every P-th chunk of the one file — and their sums are
    /// combined; rank 0 prints and saves. Streams as --chunk-rows (10000
    /// rows by default). Needs a build with the `mpi` feature.
    #[arg(long, help_heading = "Data beyond one fit (--model elm, bls)")]
    pub distributed: bool,
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
    /// Stream the files in chunks of this many rows (`Some` also with
    /// `--distributed`).
    pub chunk_rows: Option<usize>,
    /// Over the processes of an MPI job.
    pub distributed: bool,
}

impl ScaleOutFlags {
    /// Check the flags against the model: only the ELM's and the BLS's ridge
    /// readouts can be streamed and updated; `ridge`: the readout is a ridge
    /// one (λ > 0); `batch`: it is the batch ridge solve (no growth).
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the flag and the model, or the solver.
    pub fn resolve(self, model: ModelKind, ridge: bool, batch: bool) -> Result<ScaleOut, CliError> {
        let streamed = self.chunk_rows.is_some() || self.distributed;
        let flag = if self.distributed {
            "--distributed"
        } else {
            "--chunk-rows"
        };
        if streamed {
            if !matches!(model, ModelKind::Elm | ModelKind::Bls) {
                return Err(CliError::Usage(format!(
                    "{flag} does not apply to --model {}: only the ELM's and the BLS's fits are sums over rows",
                    model.name()
                )));
            }
            if !batch {
                return Err(CliError::Usage(format!(
                    "{flag} fits the batch ridge readout from the Gram sums: use --solver ridge with the ELM \
                     (an incremental strategy grows the network on rows in memory) and no --increments or --f32 \
                     with the BLS"
                )));
            }
        }
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
            chunk_rows: match (self.chunk_rows, self.distributed) {
                (Some(r), _) => Some(r),
                (None, true) => Some(DEFAULT_CHUNK_ROWS),
                (None, false) => None,
            },
            distributed: self.distributed,
        })
    }
}
