//! Saving and loading a fitted [`Elm`] through [`Persist`] (the crate's one
//! versioned envelope: serde + bincode 2, standard configuration).
//!
//! File layout (bincode's encoding of one struct, fields in order):
//!
//! | field | type | value |
//! |---|---|---|
//! | `magic` | `[u8; 8]` | `b"DNNELM\0\0"` (8 raw bytes) |
//! | `format_version` | `u32` | [`FORMAT_VERSION`] (varint) |
//! | `checksum` | `[u8; 4]` | CRC-32 (IEEE) of every other byte of the file, little-endian (4 raw bytes) |
//! | `model` | [`Elm`] | hidden layer, output weights, λ, solver |
//!
//! Format 2 added the checksum (any single damaged byte is caught); files
//! of format 1 (the same without `checksum`) still load.
//!
//! Loading decodes the header first and refuses a wrong magic
//! ([`ModelError::BadMagic`]) or version ([`ModelError::UnsupportedFormat`])
//! before touching the model; a body that fails its checksum (`model file is
//! corrupt: checksum mismatch (file damaged or truncated)`), does not decode,
//! leaves trailing bytes or decodes to an inconsistent model (shapes,
//! non-finite values) is [`ModelError::Corrupt`]. Nothing in a file can make
//! loading panic, and a damaged length cannot make it allocate more than a
//! small multiple of the file's size.
//!
//! The encoding of enums is by variant index: reordering the variants of
//! [`Activation`](crate::Activation), [`ReadoutSolver`](crate::ReadoutSolver) or
//! `linalg_core::ridge::Strategy` changes the format and must bump
//! [`FORMAT_VERSION`].

use super::model::Elm;
use crate::error::Result;
use crate::traits::Persist;
#[cfg(doc)]
use crate::ModelError;

/// The first eight bytes of an ELM model file.
pub const MAGIC: [u8; 8] = *b"DNNELM\0\0";

/// The format version this build writes (it reads this one and 1).
pub const FORMAT_VERSION: u32 = 2;

/// Saved with [`Persist::save`], read with [`Persist::load`].
///
/// ```
/// use models::prelude::*;
/// use models::{Activation, Elm, ElmParams};
/// use ndarray::array;
/// let x = array![[0.0], [0.5], [1.0]];
/// let elm = ElmParams::new(3, Activation::Tanh).fit(&Dataset::new(x.view(), x.view()))?;
/// let path = std::env::temp_dir().join(format!("doc-elm-{}.bin", std::process::id()));
/// elm.save(&path)?;
/// assert_eq!(Elm::load(&path)?, elm);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), models::ModelError>(())
/// ```
impl Persist for Elm {
    const MAGIC: [u8; 8] = MAGIC;
    const FORMAT_VERSION: u32 = FORMAT_VERSION;

    fn check_invariants(&self) -> Result<()> {
        self.check()
    }
}
