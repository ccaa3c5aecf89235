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
//!
//! Saving writes a temporary file beside the target and renames it over the
//! target ([`write_replacing`]): a save that fails part-way leaves the old
//! file whole, and a path that is not a regular file (a device, a FIFO) is
//! refused rather than replaced.

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

/// Write `model` to `path` behind `magic` and `version`, through
/// [`write_replacing`]: a failed write leaves an existing file as it was.
pub(crate) fn save<T: Serialize>(path: &Path, magic: [u8; 8], version: u32, model: &T) -> Result<()> {
    let bytes = encode(magic, version, model)?;
    write_replacing(path, &bytes).map_err(|source| ModelError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// What `path` is, when it exists and is not a regular file (symbolic links
/// followed): `a directory`, `a FIFO (named pipe)`, `a character device`,
/// `a block device`, `a socket`, or `a special file`. `None` for a regular
/// file and for a path that does not exist or cannot be inspected (writing
/// it then says why).
pub fn special_file_kind(path: &Path) -> Option<&'static str> {
    std::fs::metadata(path).ok().and_then(|m| kind(&m.file_type()))
}

fn kind(t: &std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("a special file")
}

/// Write `bytes` to the file `path` as one step that either happens whole
/// or not at all: into a new temporary file in the same directory (flushed
/// to disk), then renamed over `path`. A write that fails part-way (a full
/// disk, a quota, a file-size limit) removes the temporary file and leaves
/// an existing `path` as it was.
///
/// A symbolic link is followed: the file it points to is replaced, the link
/// kept. An existing file keeps its permissions, and must be writable by
/// this process (as writing into it would require); a new one gets the
/// default mode. `path` must not exist or be a regular file: a device, a
/// FIFO, a socket or a directory is refused, never replaced by a file.
///
/// # Errors
/// The I/O error of the step that failed; [`std::io::ErrorKind::InvalidInput`]
/// for a `path` that is not a regular file or names no file.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind, Write};
    let target = resolve_links(path)?;
    let existing = match std::fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(meta) = &existing {
        if let Some(kind) = kind(&meta.file_type()) {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!("is {kind}, not a regular file; give a regular file or a new path"),
            ));
        }
        // The permission a write into the file would need (opened without
        // truncating: nothing changes).
        std::fs::OpenOptions::new().write(true).open(&target)?;
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| Error::new(ErrorKind::InvalidInput, "names no file; give a file name"))?;
    let (tmp, mut file) = create_temp(dir, name).map_err(|e| {
        Error::new(
            e.kind(),
            format!("cannot create a temporary file in {}: {e}", dir.display()),
        )
    })?;
    let mut written = existing
        .as_ref()
        .map_or(Ok(()), |meta| file.set_permissions(meta.permissions()))
        .and_then(|()| file.write_all(bytes))
        .and_then(|()| file.sync_all());
    drop(file);
    if written.is_ok() {
        written = std::fs::rename(&tmp, &target)
            .map_err(|e| Error::new(e.kind(), format!("cannot rename {} over it: {e}", tmp.display())));
    }
    match written {
        Ok(()) => {
            // The rename itself on disk (best effort: not every platform
            // opens a directory).
            #[cfg(unix)]
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// `path` with its symbolic links followed to the file they name (which
/// need not exist).
fn resolve_links(path: &Path) -> std::io::Result<std::path::PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

/// A new file `.NAME.PID-N.tmp` in `dir`, created exclusively (never an
/// existing file).
fn create_temp(dir: &Path, name: &std::ffi::OsStr) -> std::io::Result<(std::path::PathBuf, std::fs::File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut attempts = 0;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".{}-{n}.tmp", std::process::id()));
        let tmp = dir.join(tmp_name);
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempts < 100 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
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

    /// The names in `dir`, sorted (to see that no temporary file is left).
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn write_replacing_creates_and_replaces_leaving_no_temporary_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("m.bin");
        write_replacing(&path, b"first").expect("create");
        assert_eq!(std::fs::read(&path).expect("read"), b"first");
        write_replacing(&path, b"second, longer").expect("replace");
        assert_eq!(std::fs::read(&path).expect("read"), b"second, longer");
        assert_eq!(names(dir.path()), ["m.bin"]);
        // A bare file name: the current directory's.
        assert!(write_replacing(Path::new(""), b"x").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn write_replacing_keeps_permissions_and_follows_symbolic_links() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("m.bin");
        std::fs::write(&path, b"old").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        write_replacing(&path, b"new").expect("replace");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        // Through a relative symbolic link: the file replaced, the link kept.
        let link = dir.path().join("link.bin");
        std::os::unix::fs::symlink("m.bin", &link).expect("symlink");
        write_replacing(&link, b"via link").expect("write through the link");
        assert!(std::fs::symlink_metadata(&link).expect("meta").file_type().is_symlink());
        assert_eq!(std::fs::read(&path).expect("read"), b"via link");
        assert_eq!(names(dir.path()), ["link.bin", "m.bin"]);
    }

    #[cfg(unix)]
    #[test]
    fn write_replacing_refuses_what_is_not_a_regular_file() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let e = write_replacing(dir.path(), b"x").expect_err("a directory");
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("is a directory, not a regular file"), "{e}");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped the FIFO: `mkfifo` did not run");
            return;
        }
        assert_eq!(special_file_kind(&fifo), Some("a FIFO (named pipe)"));
        let e = write_replacing(&fifo, b"x").expect_err("a FIFO");
        assert!(
            e.to_string()
                .contains("is a FIFO (named pipe), not a regular file; give a regular file or a new path"),
            "{e}"
        );
        assert!(std::fs::symlink_metadata(&fifo).expect("meta").file_type().is_fifo());
        assert_eq!(names(dir.path()), ["fifo"]);
    }
}
