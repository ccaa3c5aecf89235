//! The small traits every model implements, in linfa's shape:
//!
//! - [`ParamGuard`] — unchecked hyper-parameters (`ElmParams`, `BlsParams`,
//!   with setters) turn into validated ones (`ElmValidParams`,
//!   `BlsValidParams`) by [`check`](ParamGuard::check) or
//!   [`check_ref`](ParamGuard::check_ref); only validated parameters fit, so
//!   a model is never fitted with, say, λ ≤ 0, and the error names the
//!   parameter and why ([`ModelError::InvalidParameter`]);
//! - [`Fit`] — validated parameters fit a [`Dataset`] and give a model
//!   (unchecked parameters fit too: they are checked first);
//! - [`Predict`] — a model maps samples to outputs and knows its numbers of
//!   inputs and outputs;
//! - [`Persist`] — a fitted model is saved to and loaded from one versioned
//!   file envelope (magic bytes, format version, a CRC-32 checksum, the model
//!   in bincode; see [`envelope`](crate::envelope));
//!   implementors give only the magic, the version and the invariants.
//!
//! ```
//! use models::prelude::*;
//! use models::{Activation, ElmParams};
//! use ndarray::Array2;
//! let x = Array2::from_shape_fn((40, 1), |(i, _)| i as f64 / 20.0 - 1.0);
//! let y = x.mapv(|v| v * v);
//! let err = ElmParams::new(20, Activation::Sigmoid).with_lambda(-1.0).check().unwrap_err();
//! assert!(matches!(err, models::ModelError::InvalidParameter { name: "lambda", .. }));
//! let elm = ElmParams::new(20, Activation::Sigmoid).with_lambda(1e-6).fit(&Dataset::new(x.view(), y.view()))?;
//! assert_eq!((elm.n_inputs(), elm.n_outputs()), (1, 1));
//! # Ok::<(), models::ModelError>(())
//! ```

use std::path::Path;

use ndarray::{Array2, ArrayView2};
use serde::de::DeserializeOwned;
use serde::Serialize;

#[cfg(doc)]
use crate::error::ModelError;
use crate::error::Result;
use crate::validate;

/// A chunk of samples and their targets (K_c×N, K_c×M), owned, as a reader
/// yields it: what the streamed fits of the ELM and the BLS, the shards of
/// a data-parallel fit and [`crate::OnlineFit`] take.
pub type Chunk = (Array2<f64>, Array2<f64>);

/// Training data: the samples (features, K×N, one row per sample) and their
/// targets (K×M, e.g. one-hot class indicators), borrowed.
#[derive(Clone, Copy, Debug)]
pub struct Dataset<'a> {
    features: ArrayView2<'a, f64>,
    targets: ArrayView2<'a, f64>,
}

impl<'a> Dataset<'a> {
    /// The samples `features` (K×N) with their `targets` (K×M). Checked when
    /// fitted (non-empty, finite, one target row per sample).
    pub fn new(features: ArrayView2<'a, f64>, targets: ArrayView2<'a, f64>) -> Self {
        Self { features, targets }
    }

    /// The samples `X` (K×N).
    pub fn features(&self) -> ArrayView2<'a, f64> {
        self.features
    }

    /// The targets `Y` (K×M).
    pub fn targets(&self) -> ArrayView2<'a, f64> {
        self.targets
    }

    /// Both non-empty and finite, with as many target rows as samples.
    ///
    /// # Errors
    /// [`linalg_core::Error::Empty`], [`linalg_core::Error::NonFinite`] or
    /// [`linalg_core::Error::Shape`] naming `samples X` or `targets Y`.
    pub fn check(&self) -> Result<()> {
        validate::matrix("samples X", self.features)?;
        validate::matrix("targets Y", self.targets)?;
        validate::rows("targets Y", self.targets, self.features.nrows())
    }
}

/// Unchecked hyper-parameters that become validated ones (linfa's
/// `ParamGuard`).
pub trait ParamGuard {
    /// The validated parameters.
    type Checked;

    /// Validate and borrow the validated parameters.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] naming the first inadmissible
    /// parameter and why.
    fn check_ref(&self) -> Result<&Self::Checked>;

    /// Validate and take the validated parameters.
    ///
    /// # Errors
    /// As [`check_ref`](Self::check_ref).
    fn check(self) -> Result<Self::Checked>;
}

/// Hyper-parameters that fit a model to a [`Dataset`].
pub trait Fit {
    /// The fitted model.
    type Model;

    /// Fit the model to `data`.
    ///
    /// # Errors
    /// [`ModelError::InvalidParameter`] for inadmissible (unchecked)
    /// parameters, the [`Dataset::check`] errors for unusable data, and the
    /// solver's errors ([`ModelError::Linalg`]).
    fn fit(&self, data: &Dataset<'_>) -> Result<Self::Model>;
}

/// Unchecked parameters fit after [`ParamGuard::check_ref`].
impl<P> Fit for P
where
    P: ParamGuard,
    P::Checked: Fit,
{
    type Model = <P::Checked as Fit>::Model;

    fn fit(&self, data: &Dataset<'_>) -> Result<Self::Model> {
        self.check_ref()?.fit(data)
    }
}

/// A model that predicts.
pub trait Predict {
    /// Outputs (K×M) for the samples `x` (K×N).
    ///
    /// # Errors
    /// [`linalg_core::Error::Shape`] if `x` does not have `N` columns,
    /// [`linalg_core::Error::NonFinite`] or [`linalg_core::Error::Empty`] for unusable samples.
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>>;

    /// Number of inputs `N`.
    fn n_inputs(&self) -> usize;

    /// Number of outputs `M`.
    fn n_outputs(&self) -> usize;
}

/// A model saved to a file and loaded back through the crate's one
/// versioned envelope: 8 raw magic bytes, the format version, then the
/// model, all in bincode 2 (standard configuration) over serde.
///
/// Loading decodes the header first and refuses a wrong magic
/// ([`ModelError::BadMagic`]) or version ([`ModelError::UnsupportedFormat`])
/// before touching the model; a body that does not decode, leaves trailing
/// bytes or decodes to a model failing [`check_invariants`](Self::check_invariants)
/// is [`ModelError::Corrupt`]. Nothing in a file can make loading panic.
pub trait Persist: Serialize + DeserializeOwned {
    /// The first eight bytes of this kind of model file.
    const MAGIC: [u8; 8];
    /// The format version this build writes; it reads this one and the
    /// older versions the envelope knows (format 1, before the checksum).
    const FORMAT_VERSION: u32;

    /// The invariants a decoded model must satisfy (shapes, finite values).
    ///
    /// # Errors
    /// The first violated invariant.
    fn check_invariants(&self) -> Result<()>;

    /// Write the model to `path`, through a temporary file in the same
    /// directory renamed over it ([`crate::envelope::write_replacing`]): a
    /// save that fails part-way leaves an existing file as it was.
    ///
    /// # Errors
    /// [`ModelError::Io`] (with the path) if the file cannot be written or
    /// exists and is not a regular file (a device, a FIFO, a directory),
    /// [`ModelError::Encode`] if encoding fails.
    fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        crate::envelope::save(path.as_ref(), Self::MAGIC, Self::FORMAT_VERSION, self)
    }

    /// Read a model written by [`save`](Self::save).
    ///
    /// # Errors
    /// [`ModelError::Io`] if the file cannot be read,
    /// [`ModelError::BadMagic`] if it is not this kind of model file,
    /// [`ModelError::UnsupportedFormat`] for another format version,
    /// [`ModelError::Corrupt`] if its content is truncated or inconsistent.
    fn load(path: impl AsRef<Path>) -> Result<Self> {
        crate::envelope::load(path.as_ref(), Self::MAGIC, Self::FORMAT_VERSION, |m: &Self| {
            m.check_invariants()
        })
    }

    /// The bytes [`save`](Self::save) writes.
    ///
    /// # Errors
    /// [`ModelError::Encode`] if encoding fails.
    fn to_bytes(&self) -> Result<Vec<u8>> {
        crate::envelope::encode(Self::MAGIC, Self::FORMAT_VERSION, self)
    }

    /// A model from the bytes of a file written by [`save`](Self::save)
    /// (what [`load`](Self::load) does after reading the file); errors name
    /// the file as `(bytes)`.
    ///
    /// # Errors
    /// As [`load`](Self::load), without [`ModelError::Io`].
    fn from_bytes(bytes: &[u8]) -> Result<Self> {
        crate::envelope::decode(
            Path::new("(bytes)"),
            bytes,
            Self::MAGIC,
            Self::FORMAT_VERSION,
            |m: &Self| m.check_invariants(),
        )
    }
}
