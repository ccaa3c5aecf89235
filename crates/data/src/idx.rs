//! MNIST's IDX format: `*-images-idx3-ubyte` and `*-labels-idx1-ubyte`, gzipped or not.
//!
//! Images: magic `0x00000803`, then `n`, `rows`, `cols` as big-endian `u32`, then `n·rows·cols`
//! unsigned bytes, row-major. Labels: magic `0x00000801`, then `n`, then `n` unsigned bytes.
//! Gzip is recognised by the stream's magic bytes `1f 8b`, not by the file name.
//!
//! Both files are read front to back, a chunk of items at a time ([`IdxRows`]): the whole-file
//! loaders read them in one chunk.

use std::io;
use std::path::{Path, PathBuf};

use ndarray::{Array1, Array2};

use super::error::DataError;
use super::read::{check_dense_memory, settle, Input, Reading};
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

/// Checks the magic number at the start of `bytes` (the file's first bytes, up to the header's
/// length) and reads the `dims` dimensions that follow it.
fn header(path: &Path, bytes: &[u8], magic: u32, what: &str, dims: usize) -> Result<Vec<usize>, DataError> {
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
    Ok((0..dims).map(|i| be_u32(bytes, 4 + 4 * i) as usize).collect())
}

/// The message of a file whose items end early: `present` of the `expected` bytes after the header.
fn truncated_message(what: &str, expected: usize, header_len: usize, present: usize) -> String {
    format!(
        "truncated file: the header announces {what}, i.e. {expected} bytes after the {header_len}-byte \
         header, but only {present} are present"
    )
}

/// The items of an IDX file (images or labels), read in order after its header; at the last item,
/// nothing may follow.
struct Items {
    input: Input,
    /// The number of items the header announces.
    n: usize,
    /// Bytes per item.
    size: usize,
    header_len: usize,
    /// What the header announces, for messages (`10 images of 28×28 pixels`).
    what: String,
    /// Items read so far.
    done: usize,
}

impl Items {
    /// Opens `path`, reads its header (`magic`, described as `kind`, and `dims` dimensions) and
    /// returns the dimensions.
    fn open(
        path: &Path,
        reading: Reading,
        magic: u32,
        kind: &str,
        dims: usize,
    ) -> Result<(Self, Vec<usize>), DataError> {
        let mut input = Input::open(path, reading)?;
        let header_len = 4 + 4 * dims;
        let mut bytes = Vec::with_capacity(header_len);
        let read = input.read_up_to(header_len, &mut bytes);
        let dims = match read.and_then(|_| header(path, &bytes, magic, kind, dims)) {
            Ok(dims) => dims,
            Err(e) => return Err(settle(e, &mut input)),
        };
        let items = Items {
            input,
            n: dims[0],
            size: 1,
            header_len,
            what: String::new(),
            done: 0,
        };
        Ok((items, dims))
    }

    /// The bytes of the next `k` items (at most those left); the error of a file that ends early,
    /// or, when they are the last, of bytes after them.
    fn take(&mut self, k: usize) -> Result<Vec<u8>, DataError> {
        let k = k.min(self.n - self.done);
        // `n · size` was checked to fit when the header was read.
        let want = k * self.size;
        let mut bytes = Vec::with_capacity(want.min(self.input.size_hint()));
        let got = self.input.read_up_to(want, &mut bytes)?;
        if got < want {
            let present = self.done * self.size + got;
            let message = truncated_message(&self.what, self.n * self.size, self.header_len, present);
            return Err(DataError::format(self.input.path(), None, message));
        }
        self.done += k;
        if self.done == self.n {
            let extra = self.input.skip_to_end()?;
            if extra > 0 {
                return Err(DataError::format(
                    self.input.path(),
                    None,
                    format!("{extra} unexpected bytes after the {} the header announces", self.what),
                ));
            }
        }
        Ok(bytes)
    }

    /// The items left to read.
    fn left(&self) -> usize {
        self.n - self.done
    }
}

/// The images of an IDX file, read in order.
struct ImageItems {
    items: Items,
    rows: usize,
    cols: usize,
}

impl ImageItems {
    /// Opens an images file and checks its header.
    fn open(path: &Path, reading: Reading) -> Result<Self, DataError> {
        let (mut items, dims) = Items::open(path, reading, IDX_IMAGES_MAGIC, "unsigned-byte images, 3 dimensions", 3)?;
        let (n, rows, cols) = (dims[0], dims[1], dims[2]);
        let checked = Self::check(path, n, rows, cols);
        let (features, what) = match checked {
            Ok(ok) => ok,
            Err(e) => return Err(settle(e, &mut items.input)),
        };
        items.size = features;
        items.what = what;
        Ok(ImageItems { items, rows, cols })
    }

    /// The pixels per image and what the header announces, if the file can hold them.
    fn check(path: &Path, n: usize, rows: usize, cols: usize) -> Result<(usize, String), DataError> {
        if rows == 0 || cols == 0 {
            return Err(DataError::format(
                path,
                None,
                format!("images of {rows}×{cols} pixels have no pixel"),
            ));
        }
        let what = format!("{n} images of {rows}×{cols} pixels");
        let features = rows.checked_mul(cols);
        match features.filter(|f| f.checked_mul(n).is_some()) {
            Some(features) => Ok((features, what)),
            None => Err(DataError::format(
                path,
                None,
                format!("the header announces {what}, too many to address"),
            )),
        }
    }

    /// The next `k` images as rows of pixel values, after checking they fit in memory.
    fn take(&mut self, k: usize) -> Result<Array2<f64>, DataError> {
        let bytes = self.items.take(k)?;
        let features = self.items.size;
        let n = bytes.len() / features;
        check_dense_memory(self.items.input.path(), n, features)?;
        let data: Vec<f64> = bytes.iter().map(|&b| f64::from(b)).collect();
        Array2::from_shape_vec((n, features), data)
            .map_err(|e| DataError::format(self.items.input.path(), None, format!("cannot shape the pixels: {e}")))
    }
}

/// Opens a labels file and checks its header.
fn open_labels(path: &Path, reading: Reading) -> Result<Items, DataError> {
    let (mut items, dims) = Items::open(path, reading, IDX_LABELS_MAGIC, "unsigned-byte labels, 1 dimension", 1)?;
    items.what = format!("{} labels", dims[0]);
    Ok(items)
}

/// Reads an IDX images file (`*-images-idx3-ubyte`, optionally gzipped) into raw pixel values.
pub fn read_idx_images(path: impl AsRef<Path>) -> Result<IdxImages, DataError> {
    let mut images = ImageItems::open(path.as_ref(), Reading::Whole)?;
    let n = images.items.n;
    match images.take(n) {
        Ok(pixels) => Ok(IdxImages {
            pixels,
            rows: images.rows,
            cols: images.cols,
        }),
        Err(e) => Err(settle(e, &mut images.items.input)),
    }
}

/// Reads an IDX labels file (`*-labels-idx1-ubyte`, optionally gzipped); labels as `f64`.
pub fn read_idx_labels(path: impl AsRef<Path>) -> Result<Array1<f64>, DataError> {
    let mut labels = open_labels(path.as_ref(), Reading::Whole)?;
    let n = labels.n;
    match labels.take(n) {
        Ok(bytes) => Ok(bytes.iter().map(|&b| f64::from(b)).collect()),
        Err(e) => Err(settle(e, &mut labels.input)),
    }
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
    IdxRows::open(images_path.as_ref(), false, Reading::Whole)?
        .whole()?
        .into_dataset()
}

/// The images of an IDX file and the labels beside them, read in order.
pub(crate) struct IdxRows {
    source: PathBuf,
    images: ImageItems,
    labels: Option<(PathBuf, Items)>,
    /// Whether a table was returned (one, empty, for a file of no images).
    started: bool,
}

impl IdxRows {
    /// Opens IDX images and the labels beside them, and checks both headers and that they agree;
    /// with `labels_optional`, images without a labels file (or whose name does not say where it
    /// is) are read with [`Targets::None`].
    pub(crate) fn open(images_path: &Path, labels_optional: bool, reading: Reading) -> Result<Self, DataError> {
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
        let mut images = ImageItems::open(images_path, reading)?;
        let labels = match labels_path {
            None => None,
            Some(path) => match open_labels(path, reading) {
                Ok(labels) => Some((path.clone(), labels)),
                Err(e) => return Err(settle(e, &mut images.items.input)),
            },
        };
        let mut rows = IdxRows {
            source: images_path.to_path_buf(),
            images,
            labels,
            started: false,
        };
        if let Some((path, labels)) = &rows.labels {
            if labels.n != rows.images.items.n {
                let e = DataError::format(
                    path,
                    None,
                    format!(
                        "{} labels, but the images file {} has {} images",
                        labels.n,
                        images_path.display(),
                        rows.images.items.n
                    ),
                );
                return Err(rows.settle(e));
            }
        }
        Ok(rows)
    }

    /// The damage of the gzipped images if there is any, else of the gzipped labels, else `e`.
    fn settle(&mut self, e: DataError) -> DataError {
        if let Some(damage) = self.images.items.input.damage() {
            return damage;
        }
        match &mut self.labels {
            Some((_, labels)) => settle(e, &mut labels.input),
            None => e,
        }
    }

    /// The number of pixels per image.
    pub(crate) fn n_features(&self) -> usize {
        self.images.items.size
    }

    /// The next at most `max_rows` images and their labels (`None` after the last; one empty table
    /// for a file of no images, as [`read_table`](super::read_table) gives); an error for the chunk
    /// reaching a problem of either file.
    pub(crate) fn next_chunk(&mut self, max_rows: usize) -> Result<Option<Table>, DataError> {
        if self.started && self.images.items.left() == 0 {
            return Ok(None);
        }
        self.started = true;
        self.read_chunk(max_rows).map(Some).map_err(|e| self.settle(e))
    }

    /// Every image, for the whole-file loaders.
    pub(crate) fn whole(mut self) -> Result<Table, DataError> {
        let n = self.images.items.n;
        self.next_chunk(n)?
            .ok_or_else(|| DataError::format(&self.source, None, "no images"))
    }

    fn read_chunk(&mut self, max_rows: usize) -> Result<Table, DataError> {
        let first_row = self.images.items.done;
        let pixels = self.images.take(max_rows)?;
        let mut table = match &mut self.labels {
            None => Table::new(&self.source, pixels, Targets::None, None),
            Some((path, labels)) => {
                let k = pixels.nrows();
                let values = labels.take(k)?.iter().map(|&b| f64::from(b)).collect();
                let mut table = Table::new(&self.source, pixels, Targets::Numbers(values), None);
                table.target_source = path.clone();
                table
            }
        };
        table.first_row = first_row;
        Ok(table)
    }
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
