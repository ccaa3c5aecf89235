//! Numeric CSV with a header row and the target in the last column (`.csv` or gzipped `.csv.gz`).

use std::path::Path;

use ndarray::{Array1, Array2};

use super::error::{quote, DataError};
use super::read::read_text;
use super::Dataset;

/// Loads a numeric CSV file: a header row, then one sample per line, the target in the last column.
///
/// Cells are separated by commas and trimmed; every cell must parse as a finite `f64` (`NaN` and
/// `inf` are rejected). Blank lines at the end are ignored, blank lines inside are an error. Quoting
/// is not supported. A gzipped file is recognised by its magic bytes, whatever its name.
/// `feature_names` holds the header's names of the feature columns (without the target's).
pub fn load_csv(path: impl AsRef<Path>) -> Result<Dataset, DataError> {
    let path = path.as_ref();
    let text = read_text(path)?;
    parse_csv(path, &text)
}

/// Parses the text of a CSV file read from `path` (named in errors only).
pub(crate) fn parse_csv(path: &Path, text: &str) -> Result<Dataset, DataError> {
    let lines: Vec<&str> = text.lines().collect();
    let last = match lines.iter().rposition(|l| !l.trim().is_empty()) {
        Some(last) => last,
        None => return Err(DataError::format(path, None, "empty file (no header row)")),
    };
    let header: Vec<String> = lines[0].split(',').map(|c| unquote(c.trim()).to_string()).collect();
    if lines[0].trim().is_empty() {
        return Err(DataError::format(path, Some(1), "blank header row"));
    }
    let m = header.len();
    if m < 2 {
        return Err(DataError::format(
            path,
            Some(1),
            format!("header has {m} column; at least one feature and the target are needed"),
        ));
    }
    if last == 0 {
        return Err(DataError::format(path, None, "no data rows after the header"));
    }
    let n = last;
    let mut x = Vec::with_capacity(n * (m - 1));
    let mut y = Vec::with_capacity(n);
    for (i, line) in lines[1..=last].iter().enumerate() {
        let line_no = i + 2;
        if line.trim().is_empty() {
            return Err(DataError::format(path, Some(line_no), "blank line inside the data"));
        }
        let k = line.bytes().filter(|&b| b == b',').count() + 1;
        if k != m {
            return Err(DataError::format(
                path,
                Some(line_no),
                format!("{k} columns, header has {m}"),
            ));
        }
        for (j, cell) in line.split(',').enumerate() {
            let cell = cell.trim();
            let value = cell.parse::<f64>().map_err(|_| {
                DataError::format(
                    path,
                    Some(line_no),
                    format!(
                        "non-numeric cell {} in column {} ({})",
                        quote(cell),
                        j + 1,
                        quote(&header[j])
                    ),
                )
            })?;
            if !value.is_finite() {
                return Err(DataError::format(
                    path,
                    Some(line_no),
                    format!(
                        "non-finite value {} in column {} ({})",
                        quote(cell),
                        j + 1,
                        quote(&header[j])
                    ),
                ));
            }
            if j + 1 == m {
                y.push(value);
            } else {
                x.push(value);
            }
        }
    }
    let x = Array2::from_shape_vec((n, m - 1), x)
        .map_err(|e| DataError::format(path, None, format!("cannot shape the table: {e}")))?;
    Ok(Dataset {
        x,
        y: Array1::from(y),
        feature_names: Some(header[..m - 1].to_vec()),
        source: path.display().to_string(),
    })
}

/// Removes one pair of surrounding double quotes from a header name.
fn unquote(name: &str) -> &str {
    name.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(name)
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
