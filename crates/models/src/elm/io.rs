//! Saving and loading a fitted [`Elm`]: serde + bincode 2 (standard
//! configuration) in a small envelope.
//!
//! File layout (bincode's encoding of one struct, fields in order):
//!
//! | field | type | value |
//! |---|---|---|
//! | `magic` | `[u8; 8]` | `b"DNNELM\0\0"` (8 raw bytes) |
//! | `format_version` | `u32` | [`FORMAT_VERSION`] (varint) |
//! | `model` | [`Elm`] | hidden layer, output weights, λ, solver |
//!
//! Loading decodes the header first and refuses a wrong magic
//! ([`ModelError::BadMagic`]) or version ([`ModelError::UnsupportedFormat`])
//! before touching the model; a body that does not decode, leaves trailing
//! bytes or decodes to an inconsistent model (shapes, non-finite values) is
//! [`ModelError::Corrupt`]. Nothing in a file can make loading panic.
//!
//! The encoding of enums is by variant index: reordering the variants of
//! [`Activation`](crate::Activation), [`Solver`](super::Solver) or
//! `linalg_core::ridge::Strategy` changes the format and must bump
//! [`FORMAT_VERSION`].

use std::path::Path;

use super::model::Elm;
use crate::error::Result;

/// The first eight bytes of an ELM model file.
pub const MAGIC: [u8; 8] = *b"DNNELM\0\0";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

impl Elm {
    /// Write the model to `path` (created or truncated).
    ///
    /// ```
    /// use models::{elm::{Elm, ElmConfig}, Activation};
    /// use ndarray::array;
    /// let x = array![[0.0], [0.5], [1.0]];
    /// let elm = Elm::fit(&ElmConfig::new(3, Activation::Tanh), x.view(), x.view())?;
    /// let path = std::env::temp_dir().join(format!("doc-elm-{}.bin", std::process::id()));
    /// elm.save(&path)?;
    /// assert_eq!(Elm::load(&path)?, elm);
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
    /// [`ModelError::BadMagic`] if it is not an ELM model file,
    /// [`ModelError::UnsupportedFormat`] for another format version,
    /// [`ModelError::Corrupt`] if its content is truncated or inconsistent.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        crate::envelope::load(path.as_ref(), MAGIC, FORMAT_VERSION, |m: &Self| m.check())
    }
}
