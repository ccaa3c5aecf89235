//! MNIST's IDX format: `*-images-idx3-ubyte` and `*-labels-idx1-ubyte`, gzipped or not.
//!
//! Images: magic `0x00000803`, then `n`, `rows`, `cols` as big-endian `u32`, then `n·rows·cols`
//! unsigned bytes, row-major. Labels: magic `0x00000801`, then `n`, then `n` unsigned bytes.
//! Gzip is recognised by the stream's magic bytes `1f 8b`, not by the file name.

use std::io;
use std::path::{Path, PathBuf};

use ndarray::{Array1, Array2};

use super::error::DataError;
use super::read::{check_dense_memory, read_bytes};
use super::table::{Table, Targets};
use super::Dataset;

/// Magic number of an IDX file of unsigned-byte images (three dimensions).
pub const IDX_IMAGES_MAGIC: u32 = 0x0000_0803;
/// Magic number of an IDX file of unsigned-byte labels (one dimension).
pub const IDX_LABELS_MAGIC: u32 = 0x0000_0801;

/// The images of one IDX file, one row per image.
#[derive(Debug, Clone, PartialEq)]
pub struct IdxImages {
    /// `n × (rows·cols)` raw pixel values in `0.0..=255.0`, each image flattened row-major.
    pub pixels: Array2<f64>,
    /// Height of one image in pixels.
    pub rows: usize,
    /// Width of one image in pixels.
    pub cols: usize,
}

/// Reads the big-endian `u32` at `offset`; the caller has checked the length.
fn be_u32(bytes: &[u8], offset: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[offset..offset + 4]);
    u32::from_be_bytes(word)
}

/// Checks the magic number and reads the `dims` dimensions that follow it; returns them and the
/// header length.
fn header(path: &Path, bytes: &[u8], magic: u32, what: &str, dims: usize) -> Result<(Vec<usize>, usize), DataError> {
    if bytes.is_empty() {
        return Err(DataError::format(path, None, "empty file"));
    }
    let header_len = 4 + 4 * dims;
    let truncated = || {
        DataError::format(
            path,
            None,
            format!(
                "truncated IDX header: {header_len} bytes expected, {} present",
                bytes.len()
            ),
        )
    };
    if bytes.len() < 4 {
        return Err(truncated());
    }
    let found = be_u32(bytes, 0);
    if found != magic {
        return Err(DataError::format(
            path,
            None,
            format!("bad IDX magic number: expected {magic:#010x} ({what}), found {found:#010x}"),
        ));
    }
    if bytes.len() < header_len {
        return Err(truncated());
    }
    let dims = (0..dims).map(|i| be_u32(bytes, 4 + 4 * i) as usize).collect();
    Ok((dims, header_len))
}

/// Checks that exactly `expected` bytes follow the header.
fn check_payload(path: &Path, bytes: &[u8], header_len: usize, expected: usize, what: &str) -> Result<(), DataError> {
    let present = bytes.len() - header_len;
    if present < expected {
        return Err(DataError::format(
            path,
            None,
            format!(
                "truncated file: the header announces {what}, i.e. {expected} bytes after the {header_len}-byte \
                 header, but only {present} are present"
            ),
        ));
    }
    if present > expected {
        return Err(DataError::format(
            path,
            None,
            format!(
                "{} unexpected bytes after the {what} the header announces",
                present - expected
            ),
        ));
    }
    Ok(())
}

/// Reads an IDX images file (`*-images-idx3-ubyte`, optionally gzipped) into raw pixel values.
pub fn read_idx_images(path: impl AsRef<Path>) -> Result<IdxImages, DataError> {
    let path = path.as_ref();
    let bytes = read_bytes(path)?;
    let (dims, header_len) = header(path, &bytes, IDX_IMAGES_MAGIC, "unsigned-byte images, 3 dimensions", 3)?;
    let (n, rows, cols) = (dims[0], dims[1], dims[2]);
    if rows == 0 || cols == 0 {
        return Err(DataError::format(
            path,
            None,
            format!("images of {rows}×{cols} pixels have no pixel"),
        ));
    }
    let what = format!("{n} images of {rows}×{cols} pixels");
    let features = rows.checked_mul(cols);
    let expected = features.and_then(|f| f.checked_mul(n));
    let (Some(features), Some(expected)) = (features, expected) else {
        return Err(DataError::format(
            path,
            None,
            format!("the header announces {what}, too many to address"),
        ));
    };
    check_payload(path, &bytes, header_len, expected, &what)?;
    check_dense_memory(path, n, features)?;
    let data: Vec<f64> = bytes[header_len..].iter().map(|&b| f64::from(b)).collect();
    let pixels = Array2::from_shape_vec((n, features), data)
        .map_err(|e| DataError::format(path, None, format!("cannot shape the pixels: {e}")))?;
    Ok(IdxImages { pixels, rows, cols })
}

/// Reads an IDX labels file (`*-labels-idx1-ubyte`, optionally gzipped); labels as `f64`.
pub fn read_idx_labels(path: impl AsRef<Path>) -> Result<Array1<f64>, DataError> {
    let path = path.as_ref();
    let bytes = read_bytes(path)?;
    let (dims, header_len) = header(path, &bytes, IDX_LABELS_MAGIC, "unsigned-byte labels, 1 dimension", 1)?;
    let n = dims[0];
    check_payload(path, &bytes, header_len, n, &format!("{n} labels"))?;
    Ok(bytes[header_len..].iter().map(|&b| f64::from(b)).collect())
}

/// The labels files that may belong to `images`: `images-idx3` replaced by `labels-idx1` in the file
/// name, with and without `.gz`.
fn label_candidates(images: &Path) -> Result<Vec<PathBuf>, DataError> {
    let name = images
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !name.contains("images-idx3") {
        return Err(DataError::invalid(format!(
            "{}: the images file name must contain \"images-idx3\" to find its labels file",
            images.display()
        )));
    }
    let labels = name.replace("images-idx3", "labels-idx1");
    let (plain, gz) = match labels.strip_suffix(".gz") {
        Some(stem) => (stem.to_string(), labels.clone()),
        None => (labels.clone(), format!("{labels}.gz")),
    };
    let first = if name.ends_with(".gz") {
        [gz, plain]
    } else {
        [plain, gz]
    };
    Ok(first.into_iter().map(|n| images.with_file_name(n)).collect())
}

/// Loads an MNIST-style IDX pair: the images at `images_path` and the labels beside them.
///
/// The labels file is the images file's name with `images-idx3` replaced by `labels-idx1`, tried
/// with and without `.gz`. Features are the raw pixels (`0.0..=255.0`, 784 for MNIST); scaling is the
/// caller's choice. Targets are the labels as `f64`.
pub fn load_idx(images_path: impl AsRef<Path>) -> Result<Dataset, DataError> {
    read_idx_table(images_path.as_ref(), false)?.into_dataset()
}

/// Reads IDX images and the labels beside them; with `labels_optional`, images without a labels
/// file (or whose name does not say where it is) are read with [`Targets::None`].
pub(crate) fn read_idx_table(images_path: &Path, labels_optional: bool) -> Result<Table, DataError> {
    let candidates = match label_candidates(images_path) {
        Ok(c) => c,
        Err(_) if labels_optional => vec![],
        Err(e) => return Err(e),
    };
    let labels_path = candidates.iter().find(|p| p.is_file());
    let labels_path = match labels_path {
        Some(p) => Some(p),
        None if labels_optional => None,
        None => {
            let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
            let first = candidates.first().map_or(images_path, PathBuf::as_path);
            return Err(DataError::io(
                first,
                io::Error::new(
                    io::ErrorKind::NotFound,
                    format!(
                        "labels file for {} not found (tried {})",
                        images_path.display(),
                        tried.join(", ")
                    ),
                ),
            ));
        }
    };
    let images = read_idx_images(images_path)?;
    let Some(labels_path) = labels_path else {
        return Ok(Table::new(images_path, images.pixels, Targets::None, None));
    };
    let labels = read_idx_labels(labels_path)?;
    if labels.len() != images.pixels.nrows() {
        return Err(DataError::format(
            labels_path,
            None,
            format!(
                "{} labels, but the images file {} has {} images",
                labels.len(),
                images_path.display(),
                images.pixels.nrows()
            ),
        ));
    }
    let mut table = Table::new(images_path, images.pixels, Targets::Numbers(labels.to_vec()), None);
    table.target_source = labels_path.clone();
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_file_names() {
        let c = label_candidates(Path::new("d/t10k-images-idx3-ubyte.gz")).unwrap_or_default();
        assert_eq!(
            c,
            [
                PathBuf::from("d/t10k-labels-idx1-ubyte.gz"),
                PathBuf::from("d/t10k-labels-idx1-ubyte")
            ]
        );
        let c = label_candidates(Path::new("d/train-images-idx3-ubyte")).unwrap_or_default();
        assert_eq!(
            c,
            [
                PathBuf::from("d/train-labels-idx1-ubyte"),
                PathBuf::from("d/train-labels-idx1-ubyte.gz")
            ]
        );
        assert!(matches!(
            label_candidates(Path::new("d/images.bin")),
            Err(DataError::InvalidArgument { .. })
        ));
    }
}
