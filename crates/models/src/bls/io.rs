//! Saving and loading a fitted [`Bls`]: serde + bincode 2 (standard
//! configuration) in a small envelope.
//!
//! File layout (bincode's encoding of one struct, fields in order):
//!
//! | field | type | value |
//! |---|---|---|
//! | `magic` | `[u8; 8]` | `b"DNNBLS\0\0"` (8 raw bytes) |
//! | `format_version` | `u32` | [`FORMAT_VERSION`] (varint) |
//! | `model` | [`Bls`] | node maps (feature groups, enhancement groups, block order), output weights, λ, strategy |
//!
//! Loading decodes the header first and refuses a wrong magic
//! ([`ModelError::BadMagic`]) or version ([`ModelError::UnsupportedFormat`])
//! before touching the model; a body that does not decode, leaves trailing
//! bytes or decodes to an inconsistent model (shapes, non-finite values) is
//! [`ModelError::Corrupt`]. Nothing in a file can make loading panic.
//!
//! The encoding of enums is by variant index: reordering the variants of
//! [`Block`](super::Block) or `linalg_core::ridge::Strategy` changes the
//! format and must bump [`FORMAT_VERSION`].

use std::path::Path;

use super::model::Bls;
use crate::error::Result;

/// The first eight bytes of a BLS model file.
pub const MAGIC: [u8; 8] = *b"DNNBLS\0\0";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

impl Bls {
    /// Write the model to `path` (created or truncated).
    ///
    /// ```
    /// use models::bls::{Bls, BlsConfig};
    /// use ndarray::Array2;
    /// let x = Array2::from_shape_fn((20, 2), |(i, j)| (i * (j + 1)) as f64 / 20.0);
    /// let bls = Bls::fit(&BlsConfig::new(1, 2, 4).with_lambda(1e-3), x.view(), x.view())?;
    /// let path = std::env::temp_dir().join(format!("doc-bls-{}.bin", std::process::id()));
    /// bls.save(&path)?;
    /// assert_eq!(Bls::load(&path)?, bls);
    /// # std::fs::remove_file(&path).ok();
    /// # Ok::<(), models::ModelError>(())
    /// ```
    ///
    /// # Errors
    /// [`ModelError::Io`] (with the path) if the file cannot be written,
    /// [`ModelError::Encode`] if encoding fails.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        crate::envelope::save(path.as_ref(), MAGIC, FORMAT_VERSION, self)
    }

    /// Read a model written by [`save`](Self::save).
    ///
    /// # Errors
    /// [`ModelError::Io`] if the file cannot be read,
    /// [`ModelError::BadMagic`] if it is not a BLS model file,
    /// [`ModelError::UnsupportedFormat`] for another format version,
    /// [`ModelError::Corrupt`] if its content is truncated or inconsistent.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        crate::envelope::load(path.as_ref(), MAGIC, FORMAT_VERSION, |m: &Self| m.check())
    }
}
