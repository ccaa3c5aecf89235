//! Files the data-layer and command-line tests build in memory: IDX image
//! and label files (any header, including ones that disagree with the
//! body), gzip, and the message of an expected error.

/// An IDX image file: magic `0x0803`, the image count `n` (as the header
/// says: it may disagree with `pixels`), `rows`, `cols`, then `pixels`.
pub fn idx_images(n: u32, rows: u32, cols: u32, pixels: &[u8]) -> Vec<u8> {
    idx(&[0x0803, n, rows, cols], pixels)
}

/// An IDX label file: magic `0x0801`, the count, then `labels`.
pub fn idx_labels(labels: &[u8]) -> Vec<u8> {
    let n = u32::try_from(labels.len()).expect("a test's label count fits in u32");
    idx(&[0x0801, n], labels)
}

/// Big-endian header words, then the body.
fn idx(header: &[u32], body: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = header.iter().flat_map(|w| w.to_be_bytes()).collect();
    out.extend_from_slice(body);
    out
}

/// `bytes` gzip-compressed in memory.
///
/// # Errors
/// The encoder's (none in practice: it writes to memory).
pub fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes)?;
    enc.finish()
}

/// The message of `result`'s error, or `""` when it is `Ok` (so that an
/// assertion on the message fails and shows what came instead).
pub fn error_text<T, E: std::fmt::Display>(result: Result<T, E>) -> String {
    result.err().map(|e| e.to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idx_headers_are_big_endian_and_gzip_round_trips() {
        assert_eq!(&idx_images(1, 2, 3, &[9])[..4], &[0, 0, 8, 3]);
        assert_eq!(idx_labels(&[4, 5]), vec![0, 0, 8, 1, 0, 0, 0, 2, 4, 5]);
        let packed = gzip(b"abc").expect("gzip");
        let mut out = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&packed[..]), &mut out).expect("gunzip");
        assert_eq!(out, "abc");
        assert_eq!(error_text::<(), _>(Err("boom")), "boom");
        assert_eq!(error_text::<(), &str>(Ok(())), "");
    }
}
