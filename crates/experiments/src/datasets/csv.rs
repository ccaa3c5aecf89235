//! Numeric CSV with a header row (or none, when the caller says so) and the target in the last
//! column (`.csv` or gzipped `.csv.gz`).

use std::path::Path;

use ndarray::Array2;

use super::error::{quote, DataError};
use super::read::read_text;
use super::table::{HeaderMode, Table, Targets};
use super::Dataset;

/// Loads a numeric CSV file: a header row, then one sample per line, the target in the last column.
///
/// Read with the `csv` crate: cells may be quoted (`"1.5"`, `"a, b"` in the header), lines may end
/// in CRLF, and a UTF-8 byte-order mark is skipped. Cells are trimmed; every cell must parse as a
/// finite `f64` (`NaN` and `inf` are rejected). Blank lines at the end are ignored, blank lines
/// inside are an error. A gzipped file is recognised by its magic bytes, whatever its name.
/// `feature_names` holds the header's names of the feature columns (without the target's).
///
/// A first row of numbers only is refused as a header ([`HeaderMode::Auto`]); read such files with
/// [`read_table`](super::read_table) and [`HeaderMode::Absent`] (or [`HeaderMode::Present`]).
pub fn load_csv(path: impl AsRef<Path>) -> Result<Dataset, DataError> {
    let path = path.as_ref();
    let text = read_text(path)?;
    parse_csv(path, &text)
}

/// Parses the text of a CSV file read from `path` (named in errors only).
pub(crate) fn parse_csv(path: &Path, text: &str) -> Result<Dataset, DataError> {
    parse_csv_table(path, text, HeaderMode::Auto)?.into_dataset()
}

/// Whether every cell of `row` reads as a finite number.
fn all_numbers(row: &::csv::StringRecord) -> bool {
    row.iter().all(|c| c.parse::<f64>().is_ok_and(f64::is_finite))
}

/// The explanation of a row that splits into a single column: the separator it seems to use.
fn single_column_hint(cell: &str) -> String {
    for (sep, name) in [(';', "semicolons (';')"), ('\t', "tabs"), ('|', "bars ('|')")] {
        if cell.contains(sep) {
            return format!(
                "; the row seems to be separated by {name}, but only commas separate columns here: convert the file to comma-separated values"
            );
        }
    }
    String::new()
}

/// Parses the text of a CSV file: features and the last column's cells as text.
pub(crate) fn parse_csv_table(path: &Path, text: &str, header_mode: HeaderMode) -> Result<Table, DataError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Blank lines: trailing ones are cut off, inner ones reported by line
    // (the csv crate would skip them silently).
    let mut offset = 0;
    let mut line_starts = vec![]; // byte offset of each line, for the line numbers of records
    let mut lines = 0; // up to the last non-blank line
    let mut blank: Option<(usize, usize)> = None; // (line, byte offset) of the first blank line after it
    for (i, line) in text.split_inclusive('\n').enumerate() {
        line_starts.push(offset);
        if !line.trim().is_empty() {
            match blank {
                Some((1, _)) if header_mode != HeaderMode::Absent => {
                    return Err(DataError::format(path, Some(1), "blank header row"))
                }
                Some((l, _)) => return Err(DataError::format(path, Some(l), "blank line inside the data")),
                None => lines = i + 1,
            }
        } else if blank.is_none() {
            blank = Some((i + 1, offset));
        }
        offset += line.len();
    }
    if lines == 0 {
        let what = if header_mode == HeaderMode::Absent {
            "empty file (no data rows)"
        } else {
            "empty file (no header row)"
        };
        return Err(DataError::format(path, None, what));
    }
    let body = blank.map_or(text, |(_, start)| &text[..start]);
    let mut records = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(::csv::Trim::All)
        .from_reader(body.as_bytes())
        .into_records();
    // 1-based line of a record: after a CRLF the csv crate's position (line
    // and byte) is that of the `\n` ending the previous line, so skip it.
    let line_of = |p: &::csv::Position| {
        let at = usize::try_from(p.byte()).unwrap_or(usize::MAX).min(body.len());
        let start = at
            + body.as_bytes()[at..]
                .iter()
                .take_while(|&&b| b == b'\n' || b == b'\r')
                .count();
        line_starts.partition_point(|&s| s <= start)
    };
    let record =
        |r: Option<Result<::csv::StringRecord, ::csv::Error>>| -> Result<Option<::csv::StringRecord>, DataError> {
            r.transpose().map_err(|e| {
                let line = e.position().map(line_of);
                DataError::format(path, line, format!("unreadable CSV: {e}"))
            })
        };
    let Some(first) = record(records.next())? else {
        return Err(DataError::format(path, None, "empty file (no header row)"));
    };
    let first_line = first.position().map_or(1, line_of);
    let m = first.len();
    let what = if header_mode == HeaderMode::Absent {
        "first row"
    } else {
        "header"
    };
    if m < 2 {
        return Err(DataError::format(
            path,
            Some(first_line),
            format!(
                "{what} has {m} column ({}); at least one feature and the target are needed{}",
                quote(first.get(0).unwrap_or("")),
                single_column_hint(first.get(0).unwrap_or(""))
            ),
        ));
    }
    if header_mode == HeaderMode::Auto && all_numbers(&first) {
        return Err(DataError::format(
            path,
            Some(first_line),
            format!(
                "the first row looks like data, not a header (every cell is a number: {}); \
                 if the file has no header row, pass --no-header; if these are the column names, pass --header",
                quote(&first.iter().collect::<Vec<_>>().join(","))
            ),
        ));
    }
    let header: Option<Vec<String>> = match header_mode {
        HeaderMode::Absent => None,
        _ => Some(first.iter().map(str::to_string).collect()),
    };
    let rows_hint = lines.saturating_sub(usize::from(header.is_some()));
    // A wide first row over many short lines must not reserve rows × columns
    // cells up front: every cell takes at least one byte of the file.
    let mut x = Vec::with_capacity(rows_hint.saturating_mul(m - 1).min(body.len()));
    let mut y = Vec::with_capacity(rows_hint);
    let mut row_lines = Vec::with_capacity(rows_hint);
    let mut pending = if header.is_none() { Some(first) } else { None };
    loop {
        let row = match pending.take() {
            Some(r) => r,
            None => match record(records.next())? {
                Some(r) => r,
                None => break,
            },
        };
        let line_no = row.position().map_or(0, line_of);
        if row.len() != m {
            let hint = if row.len() == 1 {
                single_column_hint(row.get(0).unwrap_or(""))
            } else {
                String::new()
            };
            let problem = match header {
                Some(_) => format!("{} columns, header has {m}{hint}", row.len()),
                None => format!("{} columns, the first row has {m}{hint}", row.len()),
            };
            return Err(DataError::format(path, Some(line_no), problem));
        }
        for (j, cell) in row.iter().enumerate() {
            if j + 1 == m {
                y.push(cell.to_string());
            } else {
                let name = header.as_ref().map(|h| h[j].as_str());
                x.push(parse_cell(path, line_no, cell, j, name)?);
            }
        }
        row_lines.push(line_no);
    }
    let n = y.len();
    if n == 0 {
        return Err(DataError::format(path, None, "no data rows after the header"));
    }
    let x = Array2::from_shape_vec((n, m - 1), x)
        .map_err(|e| DataError::format(path, None, format!("cannot shape the table: {e}")))?;
    let mut table = Table::new(path, x, Targets::Text(y), Some(row_lines));
    if let Some(mut names) = header {
        table.target_name = names.pop();
        table.feature_names = Some(names);
    }
    Ok(table)
}

/// One cell as a finite number; errors name the line, the 1-based column and its header name.
fn parse_cell(path: &Path, line_no: usize, cell: &str, j: usize, name: Option<&str>) -> Result<f64, DataError> {
    let problem = match cell.parse::<f64>() {
        Ok(v) if v.is_finite() => return Ok(v),
        Ok(_) => "non-finite value",
        Err(_) => "non-numeric cell",
    };
    let name = name.map_or(String::new(), |n| format!(" ({})", quote(n)));
    Err(DataError::format(
        path,
        Some(line_no),
        format!("{problem} {} in column {}{name}", quote(cell), j + 1),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Dataset, DataError> {
        parse_csv(Path::new("t.csv"), text)
    }

    #[test]
    fn parses_a_small_table() -> Result<(), DataError> {
        let d = parse("a, b ,target\n1,2,0\n 3 ,4.5,1\n\n  \n")?;
        assert_eq!(d.x, ndarray::array![[1.0, 2.0], [3.0, 4.5]]);
        assert_eq!(d.y, ndarray::array![0.0, 1.0]);
        assert_eq!(d.feature_names, Some(vec!["a".to_string(), "b".to_string()]));
        Ok(())
    }

    #[test]
    fn column_count_is_checked_before_cells_beyond_the_header() {
        let e = parse("a,b,target\n1,2,3\n1,2,3,x\n").err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("t.csv line 3: 4 columns, header has 3"));
    }

    #[test]
    fn header_only_and_blank_lines_inside_are_errors() {
        assert!(matches!(parse("a,b\n\n"), Err(DataError::Format { line: None, .. })));
        assert!(matches!(
            parse("a,b\n1,2\n\n3,4\n"),
            Err(DataError::Format { line: Some(3), .. })
        ));
        assert!(matches!(parse("a\n1\n"), Err(DataError::Format { line: Some(1), .. })));
    }
}
