//! The file envelope shared by every saved model: 8 raw magic bytes, a
//! format version, a checksum, then the model, all in bincode 2 (standard
//! configuration) over serde.
//!
//! Format 2 (written since the checksum): `magic | format_version | checksum
//! | model`, where `checksum` is 4 raw bytes, the CRC-32 (IEEE, as in gzip
//! and PNG) in little-endian order of every other byte of the file (magic,
//! version and model). A CRC-32 detects every change confined to 4
//! consecutive bytes, so any single damaged byte is caught. Format 1 (before
//! the checksum, `magic | format_version | model`) is still read.
//!
//! Loading decodes the header first and refuses a wrong magic
//! ([`ModelError::BadMagic`]) or version ([`ModelError::UnsupportedFormat`])
//! before touching the model; a body that does not decode, fails its
//! checksum or leaves trailing bytes is [`ModelError::Corrupt`]. The caller
//! then checks the decoded model's consistency. Decoding is bounded by the
//! file's length ([`decode_bounded`]), so a damaged length prefix cannot make
//! loading allocate more than a small multiple of the file. Nothing in a
//! file can make loading panic.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{ModelError, Result};

/// The first format version whose files carry a checksum.
pub(crate) const FIRST_CHECKSUMMED_VERSION: u32 = 2;

/// The message of a checksum mismatch.
pub const CHECKSUM_MISMATCH: &str = "checksum mismatch (file damaged or truncated)";

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

/// The CRC-32 (IEEE) of `parts` concatenated.
pub fn crc32(parts: &[&[u8]]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize()
}

/// Decode a `T` from the start of `bytes` (bincode 2, standard
/// configuration) with a decode limit sized from `bytes.len()`: every value
/// bincode decodes takes at least one byte of input and at most 16 bytes of
/// memory, so a limit of 16 bytes per input byte never refuses a well-formed
/// input but stops a damaged length prefix from claiming more. Returns the
/// value and the bytes used.
///
/// # Errors
/// bincode's error for input that does not decode or claims more than the
/// limit.
pub fn decode_bounded<T: DeserializeOwned>(
    bytes: &[u8],
) -> std::result::Result<(T, usize), bincode::error::DecodeError> {
    let need = bytes.len().saturating_mul(16).saturating_add(4096);
    // The limit is a const generic: take the first power of two that fits.
    macro_rules! ladder {
        ($($shift:literal),*) => {
            $(
                if need <= (1usize << $shift) {
                    return bincode::serde::decode_from_slice(bytes, config().with_limit::<{ 1usize << $shift }>());
                }
            )*
        };
    }
    ladder!(14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46);
    bincode::serde::decode_from_slice(bytes, config().with_limit::<{ 1usize << 48 }>())
}

/// The content of a checksummed file: `bytes` is the whole file, whose
/// first `header_len` bytes are the header (magic and version); then come
/// the 4 checksum bytes (CRC-32 of every other byte, little-endian) and the
/// value, which must end the file.
///
/// # Errors
/// Why the file is corrupt, in words: [`CHECKSUM_MISMATCH`] (damaged or cut
/// short), `N trailing byte(s) after the model` (bytes appended to an intact
/// file), or a content that does not decode although its checksum holds.
pub fn decode_checked<T: DeserializeOwned>(bytes: &[u8], header_len: usize) -> std::result::Result<T, String> {
    let (head, rest) = bytes.split_at(header_len.min(bytes.len()));
    let Some((stored, body)) = rest.split_first_chunk::<4>() else {
        return Err(CHECKSUM_MISMATCH.into());
    };
    let stored = u32::from_le_bytes(*stored);
    let trailing = |used: usize| format!("{} trailing byte(s) after the model", body.len() - used);
    let decoded = decode_bounded::<T>(body);
    if crc32(&[head, body]) != stored {
        // Bytes appended to an intact file: say so rather than "damaged".
        if let Ok((_, used)) = &decoded {
            if *used < body.len() && crc32(&[head, &body[..*used]]) == stored {
                return Err(trailing(*used));
            }
        }
        return Err(CHECKSUM_MISMATCH.into());
    }
    let (value, used) =
        decoded.map_err(|_| String::from("its content does not decode (written by another program?)"))?;
    if used != body.len() {
        return Err(trailing(used));
    }
    Ok(value)
}

/// Encode `model` behind `magic` and `version` as a file's bytes: format 2
/// and later with the checksum, format 1 without (kept to write old files in
/// tests).
pub(crate) fn encode<T: Serialize>(magic: [u8; 8], version: u32, model: &T) -> Result<Vec<u8>> {
    let encode_err = |e: bincode::error::EncodeError| ModelError::Encode(e.to_string());
    if version < FIRST_CHECKSUMMED_VERSION {
        let envelope = EnvelopeRef {
            magic,
            format_version: version,
            model,
        };
        return bincode::serde::encode_to_vec(&envelope, config()).map_err(encode_err);
    }
    encode_checked(magic, version, model)
}

/// The checksummed file layout every saved model uses (format 2 of the
/// models' envelope; `nn`'s pipeline files from format 6): `magic`, the
/// format `version`, the CRC-32 of the rest ([`crc32`], 4 bytes
/// little-endian) and `value`, in bincode 2's standard configuration. Read
/// back with [`decode_checked`].
///
/// # Errors
/// [`ModelError::Encode`] if `value` cannot be encoded.
pub fn encode_checked<T: Serialize>(magic: [u8; 8], version: u32, value: &T) -> Result<Vec<u8>> {
    let encode_err = |e: bincode::error::EncodeError| ModelError::Encode(e.to_string());
    let header = bincode::serde::encode_to_vec((magic, version), config()).map_err(encode_err)?;
    let body = bincode::serde::encode_to_vec(value, config()).map_err(encode_err)?;
    let checksum = crc32(&[&header, &body]);
    let mut bytes = Vec::with_capacity(header.len() + 4 + body.len());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&checksum.to_le_bytes());
    bytes.extend_from_slice(&body);
    Ok(bytes)
}

/// Write `model` to `path` (created or truncated) behind `magic` and
/// `version`.
pub(crate) fn save<T: Serialize>(path: &Path, magic: [u8; 8], version: u32, model: &T) -> Result<()> {
    let bytes = encode(magic, version, model)?;
    std::fs::write(path, bytes).map_err(|source| ModelError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Read a model written by [`save`] with the same `magic` and `version`
/// (or format 1, without checksum); `check` validates the decoded model (its
/// error becomes [`ModelError::Corrupt`]).
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
    decode(path, &bytes, magic, version, check)
}

/// [`load`] on the file's bytes; `path` names the file in errors.
pub(crate) fn decode<T: DeserializeOwned>(
    path: &Path,
    bytes: &[u8],
    magic: [u8; 8],
    version: u32,
    check: impl FnOnce(&T) -> Result<()>,
) -> Result<T> {
    let corrupt = |reason: String| ModelError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    // The magic is 8 raw bytes: check it before decoding anything.
    let mut found = [0u8; 8];
    let head = bytes.get(..8).unwrap_or(bytes);
    found[..head.len()].copy_from_slice(head);
    if head.len() < 8 || found != magic {
        return Err(ModelError::BadMagic {
            path: path.to_path_buf(),
            found,
            expected: magic,
        });
    }
    let (header, header_len): (Header, usize) =
        decode_bounded(bytes).map_err(|_| corrupt("the format version does not decode".into()))?;
    if header.magic != magic {
        return Err(corrupt("header does not decode to the magic bytes".into()));
    }
    let model = match header.format_version {
        v if v == version && v >= FIRST_CHECKSUMMED_VERSION => decode_checked(bytes, header_len).map_err(corrupt)?,
        1 => {
            let (envelope, used): (Envelope<T>, usize) = decode_bounded(bytes)
                .map_err(|_| corrupt("its content does not decode as format 1 (file damaged or truncated)".into()))?;
            if used != bytes.len() {
                return Err(corrupt(format!(
                    "{} trailing byte(s) after the model",
                    bytes.len() - used
                )));
            }
            envelope.model
        }
        found => {
            return Err(ModelError::UnsupportedFormat {
                path: path.to_path_buf(),
                found,
                expected: version,
            })
        }
    };
    check(&model).map_err(|e| corrupt(e.to_string()))?;
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard CRC-32 check value: "123456789" → 0xCBF43926.
    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(&[b"123456789"]), 0xCBF4_3926);
        assert_eq!(crc32(&[b"1234", b"56789"]), 0xCBF4_3926);
    }

    #[test]
    fn a_huge_length_prefix_is_refused_without_allocating_it() {
        // A sequence claiming 2^60 elements in a 12-byte input.
        let mut bytes = vec![255u8];
        bytes.extend_from_slice(&(1u64 << 60).to_le_bytes());
        bytes.extend_from_slice(&[1, 2, 3]);
        assert!(decode_bounded::<Vec<f64>>(&bytes).is_err());
        assert!(decode_bounded::<String>(&bytes).is_err());
        assert!(decode_bounded::<Vec<u8>>(&bytes).is_err());
    }
}
