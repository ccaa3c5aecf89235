//! Malformed files in chunks: the error of the chunk reaching the bad place is `read_table`'s.

use super::*;

/// `n` good CSV rows after the header `a,b,target` (lines 2..=n+1).
fn good_csv(n: usize) -> String {
    let mut text = String::from("a,b,target\n");
    for i in 0..n {
        text.push_str(&format!("{i},{},{}\n", i as f64 * 0.5 - 3.0, i % 3));
    }
    text
}

/// `n` good LIBSVM lines (lines 1..=n).
fn good_libsvm(n: usize) -> String {
    (0..n)
        .map(|i| format!("{} 1:{i} {}:0.5\n", if i % 2 == 0 { "+1" } else { "-1" }, 2 + i % 3))
        .collect()
}

/// A malformed file (and the files beside it), how it is read, and the error it must give.
struct Case {
    /// The file read.
    file: &'static str,
    bytes: Vec<u8>,
    /// Files written beside it (IDX labels).
    beside: Vec<(&'static str, Vec<u8>)>,
    options: ReadOptions,
    /// The file the error names (`file` when `None`).
    names: Option<&'static str>,
    /// The error's line.
    line: Option<usize>,
    /// A piece of the error's message.
    needle: &'static str,
    /// Data rows before the bad place (chunks of those only succeed); `None` when unknown (gzip
    /// damage is found where the decoder finds it).
    rows_before: Option<usize>,
    /// The file without its problem (same rows before it), when rows come before the problem; its
    /// files beside are the good IDX labels.
    good: Option<Vec<u8>>,
}

fn case(file: &'static str, bytes: impl Into<Vec<u8>>, line: Option<usize>, needle: &'static str, rows: usize) -> Case {
    Case {
        file,
        bytes: bytes.into(),
        beside: vec![],
        options: ReadOptions::default(),
        names: None,
        line,
        needle,
        rows_before: Some(rows),
        good: None,
    }
}

/// `c` with the file `good` its rows before the problem come from.
fn good(mut c: Case, good: impl Into<Vec<u8>>) -> Case {
    c.good = Some(good.into());
    c
}

fn with_options(mut c: Case, options: ReadOptions) -> Case {
    c.options = options;
    c
}

fn unknown_rows(mut c: Case) -> Case {
    c.rows_before = None;
    c
}

fn no_header() -> ReadOptions {
    ReadOptions {
        header: HeaderMode::Absent,
        ..ReadOptions::default()
    }
}

/// Every malformed file: the cases of `datasets.rs`, `loaders_fuzz.rs` and `cli_bad_data.rs`, most
/// after 20 good rows so that small chunks succeed before the bad line.
fn malformed_cases() -> Result<Vec<Case>, Box<dyn std::error::Error>> {
    let g = good_csv(20);
    let s = good_libsvm(20);
    let mut corrupt = gzip(good_csv(2000).as_bytes())?;
    let middle = corrupt.len() / 2;
    corrupt[middle] ^= 0xff;
    let whole_gz = gzip(good_csv(200).as_bytes())?;
    let truncated = whole_gz[..whole_gz.len() * 2 / 3].to_vec();
    let width_4 = ReadOptions {
        n_features: Some(4),
        ..ReadOptions::default()
    };
    let mut cases = vec![
        good(
            case(
                "cols.csv",
                format!("{g}1,2,3,5\n"),
                Some(22),
                "4 columns, header has 3",
                20,
            ),
            g.clone(),
        ),
        good(
            case(
                "text.csv",
                format!("{g}3,tall,1\n"),
                Some(22),
                "non-numeric cell \"tall\" in column 2 (\"b\")",
                20,
            ),
            g.clone(),
        ),
        good(
            case(
                "nan.csv",
                format!("{g}5,NaN,1\n"),
                Some(22),
                "non-finite value \"NaN\" in column 2 (\"b\")",
                20,
            ),
            g.clone(),
        ),
        good(
            case(
                "inf.csv",
                format!("{g}-Infinity,1,1\n"),
                Some(22),
                "non-finite value \"-Infinity\" in column 1",
                20,
            ),
            g.clone(),
        ),
        good(
            case(
                "quoted.csv",
                format!("{g}3,\"x\",1\n"),
                Some(22),
                "non-numeric cell \"x\" in column 2",
                20,
            ),
            g.clone(),
        ),
        good(
            case(
                "crlf.csv",
                g.replace('\n', "\r\n") + "4,5\r\n",
                Some(22),
                "2 columns, header has 3",
                20,
            ),
            g.replace('\n', "\r\n"),
        ),
        good(
            case(
                "inner.csv",
                format!("{g}\n \r\n3,4,5\n"),
                Some(22),
                "blank line inside the data",
                20,
            ),
            g.clone(),
        ),
        good(
            case(
                "inner-crlf.csv",
                "x,target\r\n1,2\r\n\r\n3,4\r\n",
                Some(3),
                "blank line inside the data",
                1,
            ),
            "x,target\r\n1,2\r\n",
        ),
        case("blank-header.csv", format!("\n{g}"), Some(1), "blank header row", 0),
        case("empty.csv", "", None, "empty file (no header row)", 0),
        case("blank.csv", "\n \n", None, "empty file (no header row)", 0),
        case(
            "header-only.csv",
            "a,target\n\n",
            None,
            "no data rows after the header",
            0,
        ),
        case(
            "numbers.csv",
            "1,2,0\n3,4,1\n",
            Some(1),
            "the first row looks like data",
            0,
        ),
        case(
            "semicolons.csv",
            "a;b;y\n1;2;0\n",
            Some(1),
            "separated by semicolons (';')",
            0,
        ),
        case(
            "tabs.csv",
            "a\tb\ty\n1\t2\t0\n",
            Some(1),
            "seems to be separated by tabs",
            0,
        ),
        good(
            case(
                "row-semicolons.csv",
                format!("{g}1;2;0\n"),
                Some(22),
                "1 columns, header has 3; the row seems",
                20,
            ),
            g.clone(),
        ),
        good(
            case(
                "utf8.csv",
                [g.as_bytes(), b"3,\xff,1\n"].concat(),
                Some(22),
                "not UTF-8 text (invalid byte at offset 169)",
                20,
            ),
            g.clone(),
        ),
        case(
            "utf8-header.csv",
            &b"a,\xc3(,y\n1,2,3\n"[..],
            Some(1),
            "not UTF-8 text (invalid byte at offset 2)",
            0,
        ),
        good(
            case(
                "cut-utf8.csv",
                [g.as_bytes(), b"3,4,\xe2\x82"].concat(),
                Some(22),
                "not UTF-8 text",
                20,
            ),
            g.clone(),
        ),
        good(
            case(
                "bad.csv.gz",
                gzip(format!("{g}x,2,1\n").as_bytes())?,
                Some(22),
                "non-numeric cell \"x\" in column 1 (\"a\")",
                20,
            ),
            g.clone(),
        ),
        // Damage found by the checksum at the end: the rows before may be damaged too.
        unknown_rows(case("corrupt.csv.gz", corrupt, None, "corrupt gzip data", 0)),
        good(
            unknown_rows(case(
                "truncated.csv.gz",
                truncated,
                None,
                "corrupt gzip data: incomplete deflate stream",
                0,
            )),
            good_csv(200),
        ),
        with_options(
            good(
                case(
                    "ragged.csv",
                    "1,2,0\n3,4,5\n3,1\n",
                    Some(3),
                    "2 columns, the first row has 3",
                    2,
                ),
                "1,2,0\n3,4,5\n",
            ),
            no_header(),
        ),
        with_options(
            case("blank-first.csv", "\n1,2,0\n", Some(1), "blank line inside the data", 0),
            no_header(),
        ),
        with_options(
            case("empty-absent.csv", "\n\n", None, "empty file (no data rows)", 0),
            no_header(),
        ),
        good(
            case(
                "token.libsvm",
                format!("{s}-1 1:2 3=4\n"),
                Some(21),
                "bad index:value token \"3=4\"",
                20,
            ),
            s.clone(),
        ),
        good(
            case(
                "letters.svm",
                format!("{s}# comment\n1 a:1\n"),
                Some(22),
                "bad index:value token \"a:1\"",
                20,
            ),
            s.clone(),
        ),
        good(
            case("zero.svm", format!("{s}1 0:3 2:1\n"), Some(21), "feature index 0", 20),
            s.clone(),
        ),
        good(
            case(
                "order.svm",
                format!("{s}1 2:1 5:1 3:1\n"),
                Some(21),
                "not greater than the previous index 5",
                20,
            ),
            s.clone(),
        ),
        good(
            case("label.svm", format!("{s}one 1:1\n"), Some(21), "bad label \"one\"", 20),
            s.clone(),
        ),
        good(
            case(
                "value.svm",
                format!("{s}1 1:inf\n"),
                Some(21),
                "non-finite value in token \"1:inf\"",
                20,
            ),
            s.clone(),
        ),
        case(
            "comments.svm",
            "# nothing\n\n  # here\n",
            None,
            "empty file (no data lines)",
            0,
        ),
        good(
            case(
                "utf8.svm",
                [s.as_bytes(), b"1 1:\xff\n"].concat(),
                Some(21),
                "not UTF-8 text",
                20,
            ),
            s.clone(),
        ),
        good(
            unknown_rows(case(
                "cut.svm.gz",
                gzip(s.as_bytes())?[..40].to_vec(),
                None,
                "corrupt gzip data",
                0,
            )),
            s.clone(),
        ),
        with_options(
            good(
                case(
                    "wide.svm",
                    format!("{s}1 1:1 7:1\n"),
                    Some(21),
                    "index 7 in token \"7:1\" is beyond the 4 features",
                    20,
                ),
                s.clone(),
            ),
            width_4,
        ),
        good(
            case(
                "sniffed.txt",
                format!("{s}1 1:1 1:2\n"),
                Some(21),
                "not greater than the previous index 1",
                20,
            ),
            s.clone(),
        ),
        good(
            case("csv.txt", format!("{g}1,2\n"), Some(22), "2 columns, header has 3", 20),
            g.clone(),
        ),
    ];
    // IDX: 10 images of 2×3 pixels.
    let pixels: Vec<u8> = (0..60).map(|i| (i * 7) as u8).collect();
    let labels: Vec<u8> = (0..10).collect();
    let idx = |file, images: Vec<u8>, labels: Vec<u8>, names, needle, rows| Case {
        file,
        bytes: images,
        beside: vec![(
            if file == "x-images-idx3-ubyte.gz" {
                "x-labels-idx1-ubyte.gz"
            } else {
                "x-labels-idx1-ubyte"
            },
            labels,
        )],
        options: ReadOptions::default(),
        names,
        line: None,
        needle,
        rows_before: Some(rows),
        good: None,
    };
    let labels_file = Some("x-labels-idx1-ubyte");
    let short = idx_images(10, 2, 3, &pixels[..44]);
    let mut magic = idx_images(10, 2, 3, &pixels);
    magic[3] = 0x01;
    let good_idx = |c: Case| good(c, idx_images(10, 2, 3, &pixels));
    cases.extend([
        idx(
            "x-images-idx3-ubyte",
            idx_images(10, 2, 3, &pixels),
            idx_labels(&labels[..9]),
            labels_file,
            "9 labels, but the images file",
            0,
        ),
        good_idx(idx(
            "x-images-idx3-ubyte",
            short.clone(),
            idx_labels(&labels),
            None,
            "60 bytes after the 16-byte header, but only 44 are present",
            7,
        )),
        good(
            idx(
                "x-images-idx3-ubyte.gz",
                gzip(&short)?,
                gzip(&idx_labels(&labels))?,
                None,
                "but only 44 are present",
                7,
            ),
            gzip(&idx_images(10, 2, 3, &pixels))?,
        ),
        good_idx(idx(
            "x-images-idx3-ubyte",
            [idx_images(10, 2, 3, &pixels), vec![1, 2, 3]].concat(),
            idx_labels(&labels),
            None,
            "3 unexpected bytes after the 10 images of 2×3 pixels",
            9,
        )),
        good_idx(idx(
            "x-images-idx3-ubyte",
            idx_images(10, 2, 3, &pixels),
            idx_labels(&labels)[..15].to_vec(),
            labels_file,
            "10 bytes after the 8-byte header, but only 7 are present",
            7,
        )),
        idx(
            "x-images-idx3-ubyte",
            magic,
            idx_labels(&labels),
            None,
            "bad IDX magic number",
            0,
        ),
        idx(
            "x-images-idx3-ubyte",
            idx_images(10, 2, 3, &pixels)[..9].to_vec(),
            idx_labels(&labels),
            None,
            "truncated IDX header: 16 bytes expected, 9 present",
            0,
        ),
        idx(
            "x-images-idx3-ubyte",
            idx_images(10, 0, 3, &[]),
            idx_labels(&labels),
            None,
            "have no pixel",
            0,
        ),
        idx(
            "x-images-idx3-ubyte",
            vec![],
            idx_labels(&labels),
            None,
            "empty file",
            0,
        ),
    ]);
    Ok(cases)
}

/// For every malformed file and chunk size: `read_table`'s error names the file, the line and the
/// problem; the chunks before the bad place are yielded `Ok`, full, and the first error has the
/// same message as `read_table`'s.
#[test]
fn malformed_files_fail_at_the_chunk_holding_the_bad_line() -> TestResult {
    for c in malformed_cases()? {
        let dir = temp_dir();
        let path = dir.path().join(c.file);
        std::fs::write(&path, &c.bytes)?;
        for (name, bytes) in &c.beside {
            std::fs::write(dir.path().join(name), bytes)?;
        }
        let whole = match read_table(&path, &c.options) {
            Ok(t) => panic!("{}: read_table gave {} rows", c.file, t.n_samples()),
            Err(e) => e,
        };
        let message = whole.to_string();
        let named = c.names.map_or(path.clone(), |n| dir.path().join(n));
        let place = match c.line {
            Some(l) => format!("{} line {l}: ", named.display()),
            None => format!("{}: ", named.display()),
        };
        assert!(
            message.starts_with(&place),
            "{}: {message:?} should start with {place:?}",
            c.file
        );
        assert!(
            message.contains(c.needle),
            "{}: {message:?} should contain {:?}",
            c.file,
            c.needle
        );
        for size in [1, 2, 3, 7, 1000] {
            let (ok, error) = chunks_of(&path, &c.options, size);
            let Some(error) = error else {
                panic!("{} in chunks of {size}: no error", c.file);
            };
            assert_eq!(error.to_string(), message, "{} in chunks of {size}", c.file);
            assert!(
                ok.iter().all(|t| t.n_samples() == size),
                "{}: a short chunk before the error",
                c.file
            );
            if let Some(rows) = c.rows_before {
                assert!(
                    rows == 0 || c.good.is_some(),
                    "{}: no good file to check the rows with",
                    c.file
                );
                assert_eq!(
                    ok.len() * size,
                    rows / size * size,
                    "{} in chunks of {size}: rows before the error",
                    c.file
                );
            }
            if let (false, Some(bytes)) = (ok.is_empty(), &c.good) {
                let fixed = temp_dir();
                std::fs::write(fixed.path().join(c.file), bytes)?;
                let labels: Vec<u8> = (0..10).collect();
                for (name, _) in &c.beside {
                    let good = if name.ends_with(".gz") {
                        gzip(&idx_labels(&labels))?
                    } else {
                        idx_labels(&labels)
                    };
                    std::fs::write(fixed.path().join(name), good)?;
                }
                let mut expected = head(&read_table(fixed.path().join(c.file), &c.options)?, ok.len() * size);
                expected.source.clone_from(&ok[0].source);
                expected.target_source.clone_from(&ok[0].target_source);
                assert_same(&joined(&ok, size), &expected, c.file);
            }
        }
    }
    Ok(())
}

/// The first `rows` rows of `table`.
fn head(table: &Table, rows: usize) -> Table {
    let mut t = table.clone();
    t.x = t.x.slice_axis(Axis(0), Slice::from(..rows)).to_owned();
    match &mut t.targets {
        Targets::Text(v) => v.truncate(rows),
        Targets::Numbers(v) => v.truncate(rows),
        Targets::None => {}
    }
    if let Some(l) = &mut t.lines {
        l.truncate(rows);
    }
    t
}
