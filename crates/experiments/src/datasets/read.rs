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
    // Half the available memory: the decompressed bytes and what is parsed from them must fit.
    let limit = available_memory_bytes().map_or(u64::MAX, |a| a / 2);
    gunzip(&raw, limit).map_err(|problem| DataError::format(path, None, problem))
}

/// Decompresses a gzip stream (members one after another) of at most `limit` bytes.
fn gunzip(raw: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    let hint = raw
        .len()
        .saturating_mul(4)
        .min(usize::try_from(limit).unwrap_or(usize::MAX));
    let mut out = Vec::with_capacity(hint);
    MultiGzDecoder::new(raw)
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| format!("corrupt gzip data: {e}"))?;
    if out.len() as u64 > limit {
        return Err(format!(
            "the gzip data decompresses to more than {}, half the memory available; decompress it elsewhere or use a larger machine",
            human_bytes(limit)
        ));
    }
    Ok(out)
}

/// Checks that a dense `rows × cols` matrix of `f64` read from `path` fits in the available memory
/// (when known), before it is allocated.
pub(crate) fn check_dense_memory(path: &Path, rows: usize, cols: usize) -> Result<(), DataError> {
    let need = (rows as u64).saturating_mul(cols as u64).saturating_mul(8);
    match available_memory_bytes() {
        Some(available) if need > available => Err(DataError::format(
            path,
            None,
            format!(
                "{rows} rows × {cols} features need {} as a dense matrix, more than the {} of memory available",
                human_bytes(need),
                human_bytes(available)
            ),
        )),
        _ => Ok(()),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn gunzip_stops_at_the_limit() -> Result<(), Box<dyn std::error::Error>> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&[b'0'; 10_000])?;
        let gz = enc.finish()?;
        assert_eq!(gunzip(&gz, 10_000).map(|v| v.len()), Ok(10_000));
        let e = gunzip(&gz, 9_999).err().unwrap_or_default();
        assert!(e.contains("decompresses to more than 9999 bytes"), "{e}");
        assert!(gunzip(&gz[..gz.len() - 3], 1 << 20).is_err());
        assert_eq!(human_bytes(2_500_000_000), "2.5 GB");
        Ok(())
    }
}
