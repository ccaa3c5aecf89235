//! Reading files in chunks of rows (issue 21): `read_table_chunks` against `read_table` on the
//! shipped data, on malformed files and on random texts; column statistics and class labels
//! gathered over chunks against the whole-table fits.

#[path = "datasets_chunks/fits.rs"]
mod fits;
#[path = "datasets_chunks/malformed.rs"]
mod malformed;
#[path = "datasets_chunks/random.rs"]
mod random;

use test_support::files::{gzip, idx_images, idx_labels};

use std::path::Path;

use ndarray::{concatenate, Array2, Axis, Slice};
use nn_data::{
    names, read_table, read_table_chunks, shipped, ClassLabels, ClassLabelsAccumulator, ColumnStats, DataError,
    HeaderMode, MinMaxScaler, ReadOptions, StandardScaler, Table, Targets,
};
use proptest::prelude::*;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("experiments-chunks-")
        .tempdir()
        .expect("a temporary directory")
}

/// The chunks of `path` up to the first error, and that error (from `read_table_chunks` itself or
/// from a chunk); checks the iterator ends after an error.
fn chunks_of(path: &Path, options: &ReadOptions, chunk_rows: usize) -> (Vec<Table>, Option<DataError>) {
    let mut chunks = match read_table_chunks(path, options, chunk_rows) {
        Ok(c) => c,
        Err(e) => return (vec![], Some(e)),
    };
    let mut tables = vec![];
    while let Some(chunk) = chunks.next() {
        match chunk {
            Ok(t) => tables.push(t),
            Err(e) => {
                assert!(chunks.next().is_none(), "{}: a chunk after the error", path.display());
                return (tables, Some(e));
            }
        }
    }
    assert!(chunks.next().is_none());
    (tables, None)
}

/// The chunks' rows in one table (`first_row` 0), after checking that every chunk but the last
/// holds `chunk_rows` rows, none is empty (but the one table of an empty IDX file), each counts
/// the rows before it, and all have the same names and sources.
fn joined(chunks: &[Table], chunk_rows: usize) -> Table {
    let Some(first) = chunks.first() else {
        panic!("no chunks");
    };
    let mut rows = 0;
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(c.first_row, rows, "chunk {i}: first_row");
        if i + 1 < chunks.len() {
            assert_eq!(c.n_samples(), chunk_rows, "chunk {i} of {} is not full", chunks.len());
        } else {
            assert!(c.n_samples() <= chunk_rows, "last chunk too long");
            assert!(c.n_samples() > 0 || chunks.len() == 1, "empty last chunk");
        }
        assert_eq!(
            (&c.feature_names, &c.target_name, &c.source, &c.target_source),
            (
                &first.feature_names,
                &first.target_name,
                &first.source,
                &first.target_source
            ),
            "chunk {i}: names and sources"
        );
        rows += c.n_samples();
    }
    let views: Vec<_> = chunks.iter().map(|c| c.x.view()).collect();
    let x = concatenate(Axis(0), &views).expect("chunks of one width");
    let targets = match &first.targets {
        Targets::Text(_) => Targets::Text(every(chunks, |t| match t {
            Targets::Text(v) => Some(v),
            _ => None,
        })),
        Targets::Numbers(_) => Targets::Numbers(every(chunks, |t| match t {
            Targets::Numbers(v) => Some(v),
            _ => None,
        })),
        Targets::None => Targets::None,
    };
    let lines = first.lines.as_ref().map(|_| {
        chunks
            .iter()
            .flat_map(|c| c.lines.clone().unwrap_or_default())
            .collect()
    });
    Table {
        x,
        targets,
        lines,
        first_row: 0,
        ..first.clone()
    }
}

/// The targets of every chunk, one after the other, all of the kind `pick` takes.
fn every<T: Clone>(chunks: &[Table], pick: impl Fn(&Targets) -> Option<&Vec<T>>) -> Vec<T> {
    chunks
        .iter()
        .flat_map(|c| {
            pick(&c.targets)
                .unwrap_or_else(|| panic!("chunks of other targets: {:?}", c.targets))
                .clone()
        })
        .collect()
}

/// Asserts two tables are equal, features and numeric targets bit for bit.
fn assert_same(chunked: &Table, whole: &Table, what: &str) {
    let bits = |x: &Array2<f64>| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(chunked.x.dim(), whole.x.dim(), "{what}: shape");
    assert!(bits(&chunked.x) == bits(&whole.x), "{what}: features differ");
    match (&chunked.targets, &whole.targets) {
        (Targets::Numbers(a), Targets::Numbers(b)) => {
            let bits = |v: &[f64]| v.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
            assert!(bits(a) == bits(b), "{what}: targets differ");
        }
        (a, b) => assert!(a == b, "{what}: targets differ"),
    }
    assert_eq!(chunked.lines, whole.lines, "{what}: lines");
    assert_eq!(chunked, whole, "{what}");
}

/// `read_table_chunks` of `path` in chunks of each size equals `read_table`'s table.
fn assert_chunks_equal_whole(path: &Path, options: &ReadOptions, sizes: &[usize]) -> TestResult {
    let whole = read_table(path, options)?;
    for &size in sizes {
        let what = format!("{} in chunks of {size}", path.display());
        let (chunks, error) = chunks_of(path, options, size);
        if let Some(e) = error {
            panic!("{what}: {e}");
        }
        assert_eq!(
            chunks.len(),
            whole.n_samples().div_ceil(size).max(1),
            "{what}: chunk count"
        );
        assert_same(&joined(&chunks, size), &whole, &what);
        let n_features = read_table_chunks(path, options, size)?.n_features();
        assert_eq!(n_features, Some(whole.n_features()), "{what}: n_features");
    }
    Ok(())
}

/// The chunk sizes of the shipped data test for a file of `n` rows: 1 only for small files.
fn sizes_for(n: usize) -> Vec<usize> {
    let mut sizes = vec![7, 1000, n + 1];
    if n <= 2000 {
        sizes.push(1);
    }
    sizes
}

// ---------------------------------------------------------------- the shipped data

/// Every shipped file (MNIST: its test set only), plus plain copies of a CSV and of the MNIST
/// test set and LIBSVM versions of a CSV: the chunks put together are `read_table`'s table.
#[test]
fn shipped_data_in_chunks_equals_read_table() -> TestResult {
    let options = ReadOptions::default();
    for name in names().iter().filter(|n| **n != "mnist-train") {
        let path = shipped(name)?;
        let n = read_table(&path, &options)?.n_samples();
        assert_chunks_equal_whole(&path, &options, &sizes_for(n))?;
    }
    let dir = temp_dir();
    // Plain (not gzipped) copies.
    let mnist = shipped("mnist-test")?;
    for (from, to) in [
        (mnist.clone(), "t10k-images-idx3-ubyte"),
        (
            mnist.with_file_name("t10k-labels-idx1-ubyte.gz"),
            "t10k-labels-idx1-ubyte",
        ),
        (shipped("boston")?, "boston.csv"),
    ] {
        let mut bytes = vec![];
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(from)?),
            &mut bytes,
        )?;
        std::fs::write(dir.path().join(to), bytes)?;
    }
    assert_chunks_equal_whole(&dir.path().join("t10k-images-idx3-ubyte"), &options, &[7, 1000, 10_001])?;
    assert_chunks_equal_whole(&dir.path().join("boston.csv"), &options, &sizes_for(506))?;
    // LIBSVM versions of pima (zeros left out), plain and gzipped, with and without a width.
    let pima = read_table(shipped("pima")?, &options)?;
    let y = pima.numeric_targets()?;
    let mut text = String::from("# pima as LIBSVM\n");
    for (row, label) in pima.x.rows().into_iter().zip(&y) {
        text.push_str(&format!("{label}"));
        for (j, v) in row.iter().enumerate().filter(|(_, v)| **v != 0.0) {
            text.push_str(&format!(" {}:{v}", j + 1));
        }
        text.push('\n');
    }
    let plain = dir.path().join("pima.svm");
    std::fs::write(&plain, &text)?;
    let gz = dir.path().join("pima.libsvm.gz");
    std::fs::write(&gz, gzip(text.as_bytes())?)?;
    let wide = ReadOptions {
        n_features: Some(12),
        ..ReadOptions::default()
    };
    for path in [&plain, &gz] {
        assert_chunks_equal_whole(path, &options, &sizes_for(768))?;
        assert_chunks_equal_whole(path, &wide, &[7, 1000])?;
        assert_eq!(read_table(path, &options)?.x, pima.x);
    }
    Ok(())
}

/// Problems with a file as a whole are errors of `read_table_chunks` itself; a file without data
/// rows fails at the first chunk; a chunk of no rows is refused.
#[test]
fn whole_file_problems_come_before_the_first_chunk() -> TestResult {
    let dir = temp_dir();
    let write = |name: &str, bytes: &[u8]| -> std::io::Result<std::path::PathBuf> {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes)?;
        Ok(path)
    };
    let options = ReadOptions::default();
    for (name, bytes) in [
        ("numbers.csv", &b"1,2,0\n3,4,1\n"[..]),
        ("one.csv", b"a\n1\n"),
        ("empty.csv", b""),
        ("x-images-idx3-ubyte", b"\0\0\x08\x01"),
    ] {
        let path = write(name, bytes)?;
        let expected = read_table(&path, &options).err().map(|e| e.to_string());
        let opened = read_table_chunks(&path, &options, 5).err().map(|e| e.to_string());
        assert!(
            expected.is_some() && opened == expected,
            "{name}: {opened:?} vs {expected:?}"
        );
    }
    let header_only = write("header.csv", b"a,y\n\n")?;
    let mut chunks = read_table_chunks(&header_only, &options, 5)?;
    assert_eq!(chunks.n_features(), Some(1));
    let e = chunks.next().and_then(Result::err).map(|e| e.to_string());
    assert_eq!(e, read_table(&header_only, &options).err().map(|e| e.to_string()));
    assert!(chunks.next().is_none());
    assert!(matches!(
        read_table_chunks(&header_only, &options, 0),
        Err(DataError::InvalidArgument { .. })
    ));
    let absent = dir.path().join("absent.csv");
    assert!(matches!(
        read_table_chunks(&absent, &options, 5),
        Err(DataError::Io { .. })
    ));
    Ok(())
}

/// The documented differences: a LIBSVM file without a width gets the first pass's width in every
/// chunk; the dense-size check applies to each chunk; an IDX file of no images is one empty chunk.
#[test]
fn what_streaming_checks_per_chunk() -> TestResult {
    let dir = temp_dir();
    let svm = dir.path().join("t.svm");
    std::fs::write(&svm, "1 1:1\n0 2:2\n1 5:1\n1 2:2 3=3\n")?;
    let mut chunks = read_table_chunks(&svm, &ReadOptions::default(), 1)?;
    assert_eq!(chunks.n_features(), Some(5));
    assert_eq!(
        chunks.next().and_then(Result::ok).map(|t| t.x),
        Some(ndarray::array![[1.0, 0.0, 0.0, 0.0, 0.0]])
    );
    let huge = dir.path().join("huge.svm");
    std::fs::write(&huge, "1 1:1\n0 18446744073709551615:1\n")?;
    let whole = read_table(&huge, &ReadOptions::default())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(whole.ends_with("2 rows × 18446744073709551615 features is too large to hold densely (limit 2147483648 values) (the largest feature index, 18446744073709551615, is on line 2)"), "{whole}");
    let (ok, e) = chunks_of(&huge, &ReadOptions::default(), 1);
    let e = e.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        ok.is_empty() && e.contains(": 1 rows × 18446744073709551615 features is too large"),
        "{e}"
    );
    let images = dir.path().join("e-images-idx3-ubyte");
    std::fs::write(&images, idx_images(0, 2, 2, &[]))?;
    std::fs::write(dir.path().join("e-labels-idx1-ubyte"), idx_labels(&[]))?;
    let (chunks, e) = chunks_of(&images, &ReadOptions::default(), 3);
    assert!(e.is_none());
    assert_same(
        &joined(&chunks, 3),
        &read_table(&images, &ReadOptions::default())?,
        "no images",
    );
    assert_eq!(chunks[0].x.dim(), (0, 4));
    Ok(())
}
