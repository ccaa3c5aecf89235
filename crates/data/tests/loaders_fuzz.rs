//! Every loader (CSV, LIBSVM, IDX, each also gzipped) on arbitrary bytes and on mutated bytes of
//! valid files — truncations, byte flips, inserted bytes, huge IDX header counts: an `Ok` or an
//! `Err`, never a panic, an abort or an allocation beyond what the file can hold (IDX counts are
//! checked against the file's size before allocating).

use test_support::files::{error_text, gzip, idx_images, idx_labels};

use std::path::{Path, PathBuf};

use nn_data::{
    load_csv, load_idx, load_libsvm, read_idx_images, read_idx_labels, read_table, ClassLabels, HeaderMode,
    ReadOptions, Table,
};
use proptest::prelude::*;

fn dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("experiments-fuzz-")
        .tempdir()
        .expect("a temporary directory")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write a fuzz file");
    path
}

const CSV: &str = "a,b,target\n1,2.5,0\n\"3\",-4e2,1\r\n5,6,cat\n";
const LIBSVM: &str = "# c\n+1 1:0.5 3:2 # x\n-1 qid:2 2:7\n\n0 4:1e-3\n";

/// A valid file changed by one of: truncation, byte flips, an inserted run of bytes.
fn mutated(valid: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let len = valid.len();
    let (a, b, c) = (valid.clone(), valid.clone(), valid);
    prop_oneof![
        (0..=len).prop_map(move |cut| a[..cut].to_vec()),
        proptest::collection::vec((0..len.max(1), any::<u8>()), 1..4).prop_map(move |flips| {
            let mut v = b.clone();
            for (i, byte) in flips {
                if let Some(slot) = v.get_mut(i) {
                    *slot = byte;
                }
            }
            v
        }),
        (0..=len, proptest::collection::vec(any::<u8>(), 1..8)).prop_map(move |(at, bytes)| {
            let mut v = c.clone();
            v.splice(at..at, bytes);
            v
        }),
    ]
}

/// Everything the command line does with a table: the class labels and the numeric targets.
fn interpret(table: Result<Table, nn_data::DataError>) {
    if let Ok(t) = table {
        let _ = ClassLabels::fit(&t);
        let _ = t.numeric_targets();
        let _ = t.clone().with_target_as_feature();
    }
}

/// Every text loader on `bytes`, plain and gzipped.
fn text_loaders(dir: &Path, bytes: &[u8]) {
    for (suffix, content) in [("", bytes.to_vec()), (".gz", gzip(bytes).expect("gzip in memory"))] {
        let csv = write(dir, &format!("f.csv{suffix}"), &content);
        let _ = load_csv(&csv);
        for header in [HeaderMode::Auto, HeaderMode::Present, HeaderMode::Absent] {
            let options = ReadOptions {
                header,
                ..ReadOptions::default()
            };
            interpret(read_table(&csv, &options));
        }
        let svm = write(dir, &format!("f.svm{suffix}"), &content);
        let _ = load_libsvm(&svm, None);
        let _ = load_libsvm(&svm, Some(3));
        interpret(read_table(&svm, &ReadOptions::default()));
        let txt = write(dir, &format!("f.txt{suffix}"), &content);
        interpret(read_table(&txt, &ReadOptions::default()));
    }
}

/// The IDX loaders on `images` and `labels`, plain and gzipped.
fn idx_loaders(dir: &Path, images: &[u8], labels: &[u8]) {
    for gz in [false, true] {
        let (i, l) = if gz {
            (
                gzip(images).expect("gzip in memory"),
                gzip(labels).expect("gzip in memory"),
            )
        } else {
            (images.to_vec(), labels.to_vec())
        };
        let images_path = write(dir, "x-images-idx3-ubyte", &i);
        write(dir, "x-labels-idx1-ubyte", &l);
        let _ = read_idx_images(&images_path);
        let _ = read_idx_labels(dir.join("x-labels-idx1-ubyte"));
        let _ = load_idx(&images_path);
        interpret(read_table(&images_path, &ReadOptions::default()));
    }
}

fn valid_idx() -> (Vec<u8>, Vec<u8>) {
    let pixels: Vec<u8> = (0..3 * 2 * 2).map(|i| (i * 37) as u8).collect();
    (idx_images(3, 2, 2, &pixels), idx_labels(&[0, 255, 7]))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn text_loaders_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let d = dir();
        text_loaders(d.path(), &bytes);
    }

    #[test]
    fn text_loaders_on_arbitrary_text(text in "[0-9a-z,;:.+\\-e \"\\n\\r#\t]{0,120}") {
        let d = dir();
        text_loaders(d.path(), text.as_bytes());
    }

    #[test]
    fn text_loaders_on_mutated_csv(bytes in mutated(CSV.as_bytes().to_vec())) {
        let d = dir();
        text_loaders(d.path(), &bytes);
    }

    #[test]
    fn text_loaders_on_mutated_libsvm(bytes in mutated(LIBSVM.as_bytes().to_vec())) {
        let d = dir();
        text_loaders(d.path(), &bytes);
    }

    #[test]
    fn gzip_reader_on_mutated_streams(bytes in mutated(gzip(CSV.as_bytes()).expect("gzip in memory"))) {
        let d = dir();
        let path = write(d.path(), "g.csv", &bytes);
        interpret(read_table(&path, &ReadOptions::default()));
    }

    #[test]
    fn idx_loaders_on_mutated_files(images in mutated(valid_idx().0), labels in mutated(valid_idx().1)) {
        let d = dir();
        idx_loaders(d.path(), &images, &labels);
    }

    #[test]
    fn idx_loaders_on_huge_header_counts(
        n in any::<u32>(),
        rows in any::<u32>(),
        cols in any::<u32>(),
        pixels in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let d = dir();
        let labels: Vec<u8> = vec![1; 4];
        let mut label_file = idx_labels(&labels);
        label_file[4..8].copy_from_slice(&n.to_be_bytes());
        idx_loaders(d.path(), &idx_images(n, rows, cols, &pixels), &label_file);
    }

    #[test]
    fn idx_loaders_on_arbitrary_bytes(
        images in proptest::collection::vec(any::<u8>(), 0..64),
        labels in proptest::collection::vec(any::<u8>(), 0..32),
    ) {
        let d = dir();
        idx_loaders(d.path(), &images, &labels);
    }
}

/// Huge counts in valid-looking headers are refused from the file size alone, quickly.
#[test]
fn idx_header_counts_beyond_the_file_are_errors() {
    let d = dir();
    let images = write(
        d.path(),
        "h-images-idx3-ubyte",
        &idx_images(u32::MAX, u32::MAX, u32::MAX, &[1, 2, 3]),
    );
    let e = error_text(read_idx_images(&images));
    assert!(e.contains("too many to address") || e.contains("truncated"), "{e}");
    let images = write(d.path(), "g-images-idx3-ubyte", &idx_images(1 << 30, 28, 28, &[0; 16]));
    let e = error_text(read_idx_images(&images));
    assert!(e.contains("truncated file"), "{e}");
    let mut labels = idx_labels(&[1, 2]);
    labels[4..8].copy_from_slice(&u32::MAX.to_be_bytes());
    let labels = write(d.path(), "h-labels-idx1-ubyte", &labels);
    let e = error_text(read_idx_labels(&labels));
    assert!(e.contains("truncated file"), "{e}");
}

/// Regression: a header of 100 000 columns over 100 000 one-cell lines made the CSV reader reserve
/// 10¹⁰ cells (80 GB) before reading the first row, and abort; the reservation is now bounded by
/// the file's size and the short row is reported.
#[test]
fn a_wide_header_over_many_short_lines_allocates_nothing_huge() {
    let d = dir();
    let mut text = "a,".repeat(100_000);
    text.push_str("y\n");
    text.push_str(&"1\n".repeat(100_000));
    let path = write(d.path(), "wide.csv", text.as_bytes());
    let e = error_text(load_csv(&path));
    assert!(e.contains("line 2: 1 columns, header has 100001"), "{e}");
}
