//! The file envelope shared by every saved model: 8 raw magic bytes, a
//! format version, then the model, all in bincode 2 (standard
//! configuration) over serde.
//!
//! Loading decodes the header first and refuses a wrong magic
//! ([`ModelError::BadMagic`]) or version ([`ModelError::UnsupportedFormat`])
//! before touching the model; a body that does not decode or leaves
//! trailing bytes is [`ModelError::Corrupt`]. The caller then checks the
//! decoded model's consistency. Nothing in a file can make loading panic.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{ModelError, Result};

#[derive(Serialize)]
struct EnvelopeRef<'a, T> {
    magic: [u8; 8],
    format_version: u32,
    model: &'a T,
}

#[derive(Deserialize)]
struct Header {
    magic: [u8; 8],
    format_version: u32,
}

#[derive(Deserialize)]
struct Envelope<T> {
    #[allow(dead_code)]
    magic: [u8; 8],
    #[allow(dead_code)]
    format_version: u32,
    model: T,
}

fn config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Write `model` to `path` (created or truncated) behind `magic` and
/// `version`.
pub(crate) fn save<T: Serialize>(path: &Path, magic: [u8; 8], version: u32, model: &T) -> Result<()> {
    let envelope = EnvelopeRef {
        magic,
        format_version: version,
        model,
    };
    let bytes = bincode::serde::encode_to_vec(&envelope, config()).map_err(|e| ModelError::Encode(e.to_string()))?;
    std::fs::write(path, bytes).map_err(|source| ModelError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Read a model written by [`save`] with the same `magic` and `version`;
/// `check` validates the decoded model (its error becomes
/// [`ModelError::Corrupt`]).
pub(crate) fn load<T: DeserializeOwned>(
    path: &Path,
    magic: [u8; 8],
    version: u32,
    check: impl FnOnce(&T) -> Result<()>,
) -> Result<T> {
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
    if head.len() < 8 || found != magic {
        return Err(ModelError::BadMagic {
            path: path.to_path_buf(),
            found,
            expected: magic,
        });
    }
    let (header, _): (Header, usize) =
        bincode::serde::decode_from_slice(&bytes, config()).map_err(|e| corrupt(format!("header: {e}")))?;
    if header.magic != magic {
        return Err(corrupt("header does not decode to the magic bytes".into()));
    }
    if header.format_version != version {
        return Err(ModelError::UnsupportedFormat {
            path: path.to_path_buf(),
            found: header.format_version,
            expected: version,
        });
    }
    let (envelope, used): (Envelope<T>, usize) =
        bincode::serde::decode_from_slice(&bytes, config()).map_err(|e| corrupt(e.to_string()))?;
    if used != bytes.len() {
        return Err(corrupt(format!(
            "{} trailing byte(s) after the model",
            bytes.len() - used
        )));
    }
    check(&envelope.model).map_err(|e| corrupt(e.to_string()))?;
    Ok(envelope.model)
}
