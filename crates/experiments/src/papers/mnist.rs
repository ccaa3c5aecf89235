//! The one MNIST loader of the reproductions and the benches: the shipped
//! set or any MNIST-style IDX directory (Fashion-MNIST, …), the first
//! `train` and `test` images of each part, raw pixels 0–255 and class
//! labels. Each paper scales the pixels as its protocol says (Tomic et al.
//! and the BLS paper divide by 255, Zhu & Wei scale to [0, 1] by the
//! training range).

use std::path::{Path, PathBuf};

use crate::datasets::{self, load_idx, Dataset};
use crate::papers::ReproError;

/// The training and test parts.
pub struct Mnist {
    /// The first images of the training part (`train-images-idx3-ubyte`).
    pub train: Dataset,
    /// The first images of the test part (`t10k-images-idx3-ubyte`).
    pub test: Dataset,
}

/// The shipped MNIST directory (`data/mnist`, or `$DECOMP_NN_DATA/mnist`).
pub fn shipped_dir() -> PathBuf {
    datasets::data_dir().join("mnist")
}

/// The IDX file in `dir` whose name starts with `stem` (plain or gzipped).
fn idx_file(dir: &Path, stem: &str) -> Result<PathBuf, ReproError> {
    for name in [format!("{stem}.gz"), stem.to_string()] {
        let p = dir.join(name);
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(ReproError::Protocol(format!(
        "{}: no {stem}[.gz] (an MNIST-style directory has train-images-idx3-ubyte, t10k-images-idx3-ubyte and \
         their labels files)",
        dir.display()
    )))
}

/// The first `limit` samples of `d` (all of them for `None`).
fn first(d: Dataset, limit: Option<usize>) -> Dataset {
    match limit {
        Some(k) if k < d.n_samples() => d.select(&(0..k).collect::<Vec<_>>()),
        _ => d,
    }
}

/// Load the IDX files of `dir` ([`shipped_dir`] for `None`): the first
/// `train` and `test` images of each part (all for `None`), with their
/// labels.
///
/// # Errors
/// Missing or malformed files.
pub fn load(dir: Option<&Path>, train: Option<usize>, test: Option<usize>) -> Result<Mnist, ReproError> {
    let shipped = shipped_dir();
    let dir = dir.unwrap_or(&shipped);
    let part = |stem: &str, limit| -> Result<Dataset, ReproError> { Ok(first(load_idx(idx_file(dir, stem)?)?, limit)) };
    Ok(Mnist {
        train: part("train-images-idx3-ubyte", train)?,
        test: part("t10k-images-idx3-ubyte", test)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_images_of_the_shipped_set() {
        let m = load(None, Some(7), Some(3)).expect("the shipped MNIST");
        assert_eq!((m.train.n_samples(), m.test.n_samples()), (7, 3));
        assert_eq!(m.train.x.ncols(), 784);
        assert!(m.train.x.iter().all(|&v| (0.0..=255.0).contains(&v)));
        // MNIST's first training label is 5, its first test label 7.
        assert_eq!((m.train.y[0], m.test.y[0]), (5.0, 7.0));
        let e = load(Some(Path::new("/nonexistent")), None, None)
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("train-images-idx3-ubyte")));
    }
}
