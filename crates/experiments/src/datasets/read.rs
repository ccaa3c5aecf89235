//! Reading a whole data file into memory, transparently gunzipping it.

use std::io::Read;
use std::path::Path;

use flate2::read::MultiGzDecoder;

use super::error::DataError;

/// The two bytes every gzip stream starts with.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Whether `bytes` start like a gzip stream.
pub(crate) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// The contents of `path`, decompressed when they start with the gzip magic bytes (whatever the name).
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, DataError> {
    let raw = std::fs::read(path).map_err(|e| DataError::io(path, e))?;
    if !is_gzip(&raw) {
        return Ok(raw);
    }
    let mut out = Vec::with_capacity(raw.len().saturating_mul(4));
    MultiGzDecoder::new(raw.as_slice())
        .read_to_end(&mut out)
        .map_err(|e| DataError::format(path, None, format!("corrupt gzip data: {e}")))?;
    Ok(out)
}

/// The contents of `path` as UTF-8 text (gunzipped if needed), without a leading byte-order mark.
pub(crate) fn read_text(path: &Path) -> Result<String, DataError> {
    let bytes = read_bytes(path)?;
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..'\u{feff}'.len_utf8());
            }
            Ok(text)
        }
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
            Err(DataError::format(
                path,
                Some(line),
                format!("not UTF-8 text (invalid byte at offset {valid})"),
            ))
        }
    }
}

/// The memory the system can still give (`MemAvailable` of `/proc/meminfo`) in bytes, if known.
pub(crate) fn available_memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// A byte count for messages: `12.3 GB`, `512.0 MB`, `900 bytes`.
pub(crate) fn human_bytes(bytes: u64) -> String {
    const GB: f64 = 1e9;
    const MB: f64 = 1e6;
    let b = bytes as f64;
    if b >= GB {
        format!("{:.1} GB", b / GB)
    } else if b >= MB {
        format!("{:.1} MB", b / MB)
    } else {
        format!("{bytes} bytes")
    }
}
