//! Saving and loading a fitted [`Bls`] through [`Persist`] (the crate's one
//! versioned envelope: serde + bincode 2, standard configuration).
//!
//! File layout (bincode's encoding of one struct, fields in order):
//!
//! | field | type | value |
//! |---|---|---|
//! | `magic` | `[u8; 8]` | `b"DNNBLS\0\0"` (8 raw bytes) |
//! | `format_version` | `u32` | [`FORMAT_VERSION`] (varint) |
//! | `checksum` | `[u8; 4]` | CRC-32 (IEEE) of every other byte of the file, little-endian (4 raw bytes) |
//! | `model` | [`Bls`] | node maps (feature groups, enhancement groups, block order), output weights, λ, strategy |
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
//! [`Block`](super::Block) or `linalg_core::ridge::Strategy` changes the
//! format and must bump [`FORMAT_VERSION`].

use super::model::Bls;
use crate::error::Result;
use crate::traits::Persist;
#[cfg(doc)]
use crate::ModelError;

/// The first eight bytes of a BLS model file.
pub const MAGIC: [u8; 8] = *b"DNNBLS\0\0";

/// The format version this build writes (it reads this one and 1).
pub const FORMAT_VERSION: u32 = 2;

/// Saved with [`Persist::save`], read with [`Persist::load`].
///
/// ```
/// use models::prelude::*;
/// use models::bls::{Bls, BlsParams};
/// use ndarray::Array2;
/// let x = Array2::from_shape_fn((20, 2), |(i, j)| (i * (j + 1)) as f64 / 20.0);
/// let bls = BlsParams::new(1, 2, 4).with_lambda(1e-3).fit(&Dataset::new(x.view(), x.view()))?;
/// let path = std::env::temp_dir().join(format!("doc-bls-{}.bin", std::process::id()));
/// bls.save(&path)?;
/// assert_eq!(Bls::load(&path)?, bls);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), models::ModelError>(())
/// ```
impl Persist for Bls {
    const MAGIC: [u8; 8] = MAGIC;
    const FORMAT_VERSION: u32 = FORMAT_VERSION;

    fn check_invariants(&self) -> Result<()> {
        self.check()
    }
}
