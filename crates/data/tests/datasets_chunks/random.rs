//! Random CSV and LIBSVM texts in random chunks against `read_table`.

use super::*;

/// A number as a file may write it.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        (-1000i64..1000).prop_map(|i| i.to_string()),
        (-1e6f64..1e6).prop_map(|v| format!("{v}")),
        (-1e6f64..1e6).prop_map(|v| format!("{v:e}")),
        (-1e3f64..1e3).prop_map(|v| format!(" {v:.3} ")),
        (-1e3f64..1e3).prop_map(|v| format!("\"{v:.2}\"")),
    ]
}

/// Something wrong with one line of a file: `(row, kind)`.
fn fault() -> impl Strategy<Value = Option<(usize, u8)>> {
    proptest::option::weighted(0.4, (0usize..30, 0u8..6))
}

/// The text of a line with fault `kind` in place of `line`.
fn faulty(line: &str, kind: u8) -> Vec<u8> {
    match kind {
        0 => format!("{line},9").into_bytes(),
        1 => line.replacen(|c: char| c.is_ascii_digit(), "x", 1).into_bytes(),
        2 => format!("\n{line}").into_bytes(),
        3 => [line.as_bytes(), b"\xff"].concat(),
        4 => line.replacen(|c: char| c.is_ascii_digit(), "nan", 1).into_bytes(),
        _ => line.replacen(|c: char| c.is_ascii_digit(), "0:", 1).into_bytes(),
    }
}

/// Joins `lines` (a fault at one of them) with `\n` or CRLF, a trailing newline or not, blank lines
/// after, a byte-order mark before.
fn text_of(lines: &[String], fault: Option<(usize, u8)>, crlf: bool, end: bool, blanks: usize, bom: bool) -> Vec<u8> {
    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut out = if bom { b"\xef\xbb\xbf".to_vec() } else { vec![] };
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(eol);
        }
        match fault {
            Some((at, kind)) if at == i => out.extend(faulty(line, kind)),
            _ => out.extend_from_slice(line.as_bytes()),
        }
    }
    if end && !lines.is_empty() {
        out.extend_from_slice(eol);
    }
    for _ in 0..blanks {
        out.extend_from_slice(b" ");
        out.extend_from_slice(eol);
    }
    out
}

/// Writes `bytes` (gzipped or not) as `name` and checks the chunks against `read_table`: the same
/// table put together, or the same first error after full chunks.
fn check_random_file(
    name: &str,
    bytes: &[u8],
    gz: bool,
    options: &ReadOptions,
    size: usize,
) -> Result<(), TestCaseError> {
    let dir = temp_dir();
    let path = dir.path().join(name);
    let bytes = if gz {
        gzip(bytes).map_err(|e| TestCaseError::fail(e.to_string()))?
    } else {
        bytes.to_vec()
    };
    std::fs::write(&path, bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let whole = read_table(&path, options);
    let (chunks, error) = chunks_of(&path, options, size);
    match whole {
        Ok(whole) => {
            prop_assert!(error.is_none(), "chunks failed: {:?}", error.map(|e| e.to_string()));
            assert_same(&joined(&chunks, size), &whole, name);
        }
        Err(e) => {
            prop_assert_eq!(error.map(|e| e.to_string()), Some(e.to_string()));
            prop_assert!(chunks.iter().all(|c| c.n_samples() == size));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Random CSV files — a header or none, numbers written in several ways, class names or numbers
    /// as targets, CRLF, blank lines at the end, a byte-order mark, gzip, and sometimes one bad line —
    /// in random chunks: the chunks are `read_table`'s table, or fail with its error.
    #[test]
    fn random_csv_in_chunks_is_read_table(
        (cols, rows) in (2usize..5).prop_flat_map(|c| (Just(c), proptest::collection::vec(proptest::collection::vec(number(), c - 1), 0..30))),
        labels in proptest::collection::vec(prop_oneof![Just("cat"), Just("dog"), Just("1"), Just("-2")], 30),
        header in any::<bool>(),
        fault in fault(),
        (crlf, end, blanks, bom, gz) in (any::<bool>(), any::<bool>(), 0usize..3, proptest::bool::weighted(0.1), any::<bool>()),
        size in 1usize..12,
    ) {
        let mut lines: Vec<String> = vec![];
        if header {
            lines.push((0..cols).map(|j| format!("c{j}")).collect::<Vec<_>>().join(","));
        }
        for (row, label) in rows.iter().zip(&labels) {
            lines.push(format!("{},{label}", row.join(",")));
        }
        let options = ReadOptions { header: if header { HeaderMode::Auto } else { HeaderMode::Absent }, ..ReadOptions::default() };
        let text = text_of(&lines, fault, crlf, end, blanks, bom);
        check_random_file(if gz { "r.csv.gz" } else { "r.csv" }, &text, gz, &options, size)?;
    }

    /// Random LIBSVM files — sparse rows, comments, blank lines, `qid:` tokens, CRLF, gzip, a width
    /// or none (possibly too narrow), and sometimes one bad line — in random chunks, named `.svm` or
    /// `.txt` (sniffed): the chunks are `read_table`'s table, or fail with its error.
    #[test]
    fn random_libsvm_in_chunks_is_read_table(
        rows in proptest::collection::vec(
            (prop_oneof![Just("+1"), Just("-1"), Just("0"), Just("3")], proptest::collection::btree_map(1usize..9, -1e3f64..1e3, 0..5), 0u8..8),
            0..30,
        ),
        width in proptest::option::of(4usize..10),
        fault in fault(),
        (crlf, end, blanks, gz, txt) in (any::<bool>(), any::<bool>(), 0usize..3, any::<bool>(), any::<bool>()),
        size in 1usize..12,
    ) {
        let lines: Vec<String> = rows
            .iter()
            .map(|(label, features, extra)| {
                let tokens: Vec<String> = features.iter().map(|(i, v)| format!("{i}:{v}")).collect();
                match extra {
                    0 => "# a comment".to_string(),
                    1 => String::new(),
                    2 => format!("{label} qid:4 {}", tokens.join(" ")),
                    3 => format!("{label} {} # note", tokens.join(" ")),
                    _ => format!("{label} {}", tokens.join(" ")),
                }
            })
            .collect();
        let options = ReadOptions { n_features: width, ..ReadOptions::default() };
        let name = match (txt, gz) {
            (true, true) => "r.txt.gz",
            (true, false) => "r.txt",
            (false, true) => "r.svm.gz",
            (false, false) => "r.svm",
        };
        check_random_file(name, &text_of(&lines, fault, crlf, end, blanks, false), gz, &options, size)?;
    }
}
