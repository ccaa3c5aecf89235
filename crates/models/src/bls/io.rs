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

use serde::{Deserialize, Serialize};

use super::model::Bls;
use crate::error::{ModelError, Result};

/// The first eight bytes of a BLS model file.
pub const MAGIC: [u8; 8] = *b"DNNBLS\0\0";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Serialize)]
struct EnvelopeRef<'a> {
    magic: [u8; 8],
    format_version: u32,
    model: &'a Bls,
}

#[derive(Deserialize)]
struct Header {
    magic: [u8; 8],
    format_version: u32,
}

#[derive(Deserialize)]
struct Envelope {
    #[allow(dead_code)]
    magic: [u8; 8],
    #[allow(dead_code)]
    format_version: u32,
    model: Bls,
}

fn config() -> bincode::config::Configuration {
    bincode::config::standard()
}

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
        let path = path.as_ref();
        let envelope = EnvelopeRef {
            magic: MAGIC,
            format_version: FORMAT_VERSION,
            model: self,
        };
        let bytes =
            bincode::serde::encode_to_vec(&envelope, config()).map_err(|e| ModelError::Encode(e.to_string()))?;
        std::fs::write(path, bytes).map_err(|source| ModelError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Read a model written by [`save`](Self::save).
    ///
    /// # Errors
    /// [`ModelError::Io`] if the file cannot be read,
    /// [`ModelError::BadMagic`] if it is not a BLS model file,
    /// [`ModelError::UnsupportedFormat`] for another format version,
    /// [`ModelError::Corrupt`] if its content is truncated or inconsistent.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| ModelError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let corrupt = |reason: String| ModelError::Corrupt {
            path: path.to_path_buf(),
            reason,
        };
        // The magic is 8 raw bytes: check it before decoding anything.
        let mut found = [0u8; 8];
        let head = bytes.get(..8).unwrap_or(&bytes);
        found[..head.len()].copy_from_slice(head);
        if head.len() < 8 || found != MAGIC {
            return Err(ModelError::BadMagic {
                path: path.to_path_buf(),
                found,
                expected: MAGIC,
            });
        }
        let (header, _): (Header, usize) =
            bincode::serde::decode_from_slice(&bytes, config()).map_err(|e| corrupt(format!("header: {e}")))?;
        if header.magic != MAGIC {
            return Err(corrupt("header does not decode to the magic bytes".into()));
        }
        if header.format_version != FORMAT_VERSION {
            return Err(ModelError::UnsupportedFormat {
                path: path.to_path_buf(),
                found: header.format_version,
                expected: FORMAT_VERSION,
            });
        }
        let (envelope, used): (Envelope, usize) =
            bincode::serde::decode_from_slice(&bytes, config()).map_err(|e| corrupt(e.to_string()))?;
        if used != bytes.len() {
            return Err(corrupt(format!(
                "{} trailing byte(s) after the model",
                bytes.len() - used
            )));
        }
        envelope.model.check().map_err(|e| corrupt(e.to_string()))?;
        Ok(envelope.model)
    }
}
