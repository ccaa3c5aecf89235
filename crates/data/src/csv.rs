//! Numeric CSV with a header row (or none, when the caller says so) and the target in the last
//! column (`.csv` or gzipped `.csv.gz`), read row by row: [`CsvRows`] gives the whole file
//! ([`load_csv`], [`read_table`](super::read_table)) or chunks of it
//! ([`read_table_chunks`](super::read_table_chunks)) with the same checks.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use ndarray::Array2;

use super::error::{quote, DataError};
use super::read::{settle, Input, Lines, Reading};
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
    let input = Input::open(path.as_ref(), Reading::Whole)?;
    CsvRows::open(input, HeaderMode::Auto)?.whole()?.into_dataset()
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

/// Where a line handed to the csv reader lies in the bytes it was given.
struct Mark {
    /// Offset of the line's first byte.
    start: u64,
    /// Offset of the run of `\r` and `\n` ending the line.
    tail: u64,
    /// 1-based line number in the file.
    line: usize,
}

/// The lines of a CSV file as the csv reader sees them: every line up to the first blank one
/// (the csv crate would skip blank lines silently). Blank lines at the end are dropped; a blank
/// line followed by more data stops the reading with an error at the blank line. Keeps where the
/// lines not yet parsed start, to give each record its line.
struct Feed {
    lines: Lines,
    header_mode: HeaderMode,
    /// Whether the current line of `lines` is being handed out, and how much of it was.
    has_line: bool,
    at: usize,
    /// Bytes handed out so far.
    fed: u64,
    marks: VecDeque<Mark>,
    /// Whether any non-blank line was seen.
    seen_data: bool,
    /// How the lines ended, once they did: cleanly, or with the error to report.
    end: Option<Result<(), DataError>>,
}

impl Feed {
    fn new(lines: Lines, header_mode: HeaderMode) -> Self {
        Feed {
            lines,
            header_mode,
            has_line: false,
            at: 0,
            fed: 0,
            marks: VecDeque::new(),
            seen_data: false,
            end: None,
        }
    }

    /// Moves to the next line to hand out, or records how the lines end.
    fn advance(&mut self) {
        self.has_line = false;
        let (number, text) = match self.lines.next_line() {
            Err(e) => return self.end = Some(Err(e)),
            Ok(None) => return self.end = Some(Ok(())),
            Ok(Some(line)) => line,
        };
        // A second byte-order mark is skipped too (one is dropped by `Lines`).
        let bom = if number == 1 && text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        if text[bom..].trim().is_empty() {
            self.end = Some(self.after_blank());
            return;
        }
        let line = &self.lines.current()[bom..];
        let ending = line.iter().rev().take_while(|&&b| b == b'\n' || b == b'\r').count();
        let start = self.fed;
        self.marks.push_back(Mark {
            start,
            tail: start + (line.len() - ending) as u64,
            line: number,
        });
        self.seen_data = true;
        self.has_line = true;
        self.at = bom;
    }

    /// After a blank line: the end if only blank lines follow, else the error at the blank line.
    fn after_blank(&mut self) -> Result<(), DataError> {
        let blank = self.lines.number();
        loop {
            match self.lines.next_line()? {
                None => return Ok(()),
                Some((_, text)) if text.trim().is_empty() => {}
                Some(_) => {
                    let problem = if blank == 1 && self.header_mode != HeaderMode::Absent {
                        "blank header row"
                    } else {
                        "blank line inside the data"
                    };
                    return Err(DataError::format(self.lines.path(), Some(blank), problem));
                }
            }
        }
    }

    /// The 1-based line of the record the csv reader found at offset `at`. After a CRLF the csv
    /// crate's position is that of the `\n` ending the previous line: a record starting in a line's
    /// ending belongs to the next line. Forgets the lines before it (records come in order).
    fn line_of(&mut self, at: u64) -> usize {
        while self.marks.len() >= 2 && self.marks[1].start <= at {
            self.marks.pop_front();
        }
        match (self.marks.front(), self.marks.get(1)) {
            (Some(this), Some(next)) if at >= this.tail => next.line,
            (Some(this), _) => this.line,
            (None, _) => self.lines.number(),
        }
    }

    /// After the csv reader's last record: `Ok` if the lines ended cleanly, else their error.
    fn finish(&mut self) -> Result<(), DataError> {
        self.end.take().unwrap_or(Ok(()))
    }
}

impl Read for Feed {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.has_line {
                let rest = &self.lines.current()[self.at..];
                if !rest.is_empty() {
                    let n = rest.len().min(out.len());
                    out[..n].copy_from_slice(&rest[..n]);
                    self.at += n;
                    self.fed += n as u64;
                    return Ok(n);
                }
            }
            if self.end.is_some() {
                return Ok(0);
            }
            self.advance();
        }
    }
}

/// The rows of a CSV file, read in order after its header (or first row).
pub(crate) struct CsvRows {
    path: PathBuf,
    reader: ::csv::Reader<Feed>,
    record: ::csv::StringRecord,
    /// The header's names, the target's last (`None` without a header row).
    header: Option<Vec<String>>,
    /// Columns per row: the features and the target.
    width: usize,
    /// The line of the first row when it is data and still in `record`.
    first: Option<usize>,
    /// Rows returned so far.
    rows: usize,
}

impl CsvRows {
    /// Reads the first row of `input` (the header, unless `header_mode` says there is none) and
    /// checks it: the file's empty, blank-first or one-column problems, and a first row of numbers
    /// only under [`HeaderMode::Auto`].
    pub(crate) fn open(mut input: Input, header_mode: HeaderMode) -> Result<Self, DataError> {
        let path = input.path().to_path_buf();
        if let Some(problem) = binary_content(input.peek()) {
            return Err(DataError::format(&path, None, problem));
        }
        let reader = ::csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(::csv::Trim::All)
            .buffer_capacity(1 << 16)
            .from_reader(Feed::new(Lines::new(input), header_mode));
        let mut rows = CsvRows {
            path,
            reader,
            record: ::csv::StringRecord::new(),
            header: None,
            width: 0,
            first: None,
            rows: 0,
        };
        match rows.start(header_mode) {
            Ok(()) => Ok(rows),
            Err(e) => Err(settle(e, rows.reader.get_mut().lines.input_mut())),
        }
    }

    /// Reads and checks the first row.
    fn start(&mut self, header_mode: HeaderMode) -> Result<(), DataError> {
        let Some(first_line) = self.next_record()? else {
            let what = if self.reader.get_ref().seen_data || header_mode != HeaderMode::Absent {
                "empty file (no header row)"
            } else {
                "empty file (no data rows)"
            };
            return Err(DataError::format(&self.path, None, what));
        };
        let first = &self.record;
        let m = first.len();
        let what = if header_mode == HeaderMode::Absent {
            "first row"
        } else {
            "header"
        };
        if m < 2 {
            return Err(DataError::format(
                &self.path,
                Some(first_line),
                format!(
                    "{what} has {m} column ({}); at least one feature and the target are needed{}",
                    quote(first.get(0).unwrap_or("")),
                    single_column_hint(first.get(0).unwrap_or(""))
                ),
            ));
        }
        if header_mode == HeaderMode::Auto && all_numbers(first) {
            return Err(DataError::format(
                &self.path,
                Some(first_line),
                format!(
                    "the first row looks like data, not a header (every cell is a number: {}); \
                     if the file has no header row, pass --no-header; if these are the column names, pass --header",
                    quote(&first.iter().collect::<Vec<_>>().join(","))
                ),
            ));
        }
        self.width = m;
        match header_mode {
            HeaderMode::Absent => self.first = Some(first_line),
            _ => self.header = Some(first.iter().map(str::to_string).collect()),
        }
        Ok(())
    }

    /// Reads the next record into `self.record`; returns its line, `None` after the last.
    fn next_record(&mut self) -> Result<Option<usize>, DataError> {
        match self.reader.read_record(&mut self.record) {
            Ok(true) => {
                let at = self.record.position().map_or(0, ::csv::Position::byte);
                Ok(Some(self.reader.get_mut().line_of(at)))
            }
            Ok(false) => self.reader.get_mut().finish().map(|()| None),
            Err(e) => {
                let line = e.position().map(|p| self.reader.get_mut().line_of(p.byte()));
                Err(DataError::format(&self.path, line, format!("unreadable CSV: {e}")))
            }
        }
    }

    /// The number of feature columns.
    pub(crate) fn n_features(&self) -> usize {
        self.width - 1
    }

    /// The next at most `max_rows` rows (`None` after the last); an error for the chunk holding a
    /// bad line, or for a file without data rows.
    pub(crate) fn next_chunk(&mut self, max_rows: usize) -> Result<Option<Table>, DataError> {
        self.read_chunk(max_rows)
            .map_err(|e| settle(e, self.reader.get_mut().lines.input_mut()))
    }

    /// Every row, for the whole-file loaders.
    pub(crate) fn whole(mut self) -> Result<Table, DataError> {
        self.next_chunk(usize::MAX)?
            .ok_or_else(|| DataError::format(&self.path, None, "no data rows after the header"))
    }

    fn read_chunk(&mut self, max_rows: usize) -> Result<Option<Table>, DataError> {
        let features = self.width - 1;
        // Reserve for a few thousand rows, never more cells than the file has bytes: a wide first
        // row over many short lines must not reserve rows × columns cells up front.
        let size = self.reader.get_ref().lines.input().size_hint();
        let rows_hint = max_rows.min(4096);
        let mut x = Vec::with_capacity(rows_hint.saturating_mul(features).min(size));
        let mut y = Vec::with_capacity(rows_hint.min(size));
        let mut lines = Vec::with_capacity(rows_hint.min(size));
        while y.len() < max_rows {
            let line = match self.first.take() {
                Some(line) => line,
                None => match self.next_record()? {
                    Some(line) => line,
                    None => break,
                },
            };
            let names = self.header.as_deref();
            parse_row(&self.path, &self.record, line, self.width, names, &mut x, &mut y)?;
            lines.push(line);
        }
        let n = y.len();
        if n == 0 {
            if self.rows == 0 {
                return Err(DataError::format(&self.path, None, "no data rows after the header"));
            }
            return Ok(None);
        }
        let x = Array2::from_shape_vec((n, features), x)
            .map_err(|e| DataError::format(&self.path, None, format!("cannot shape the table: {e}")))?;
        let mut table = Table::new(&self.path, x, Targets::Text(y), Some(lines));
        table.first_row = self.rows;
        self.rows += n;
        if let Some(names) = &self.header {
            table.feature_names = Some(names[..features].to_vec());
            table.target_name = names.last().cloned();
        }
        Ok(Some(table))
    }
}

/// Why the first bytes `head` of a file are not text: an IDX file read as CSV because its name
/// does not say IDX images (`idx3-ubyte`), or any binary data (a NUL byte), which would otherwise
/// be shown as escaped bytes in a column-count error.
fn binary_content(head: &[u8]) -> Option<String> {
    let magic = head.get(..4).map(|m| u32::from_be_bytes([m[0], m[1], m[2], m[3]]));
    match magic {
        Some(super::IDX_LABELS_MAGIC) => Some(
            "an IDX labels file (magic 0x00000801), not a CSV file: give the images file (its name containing \
             `idx3-ubyte`); its labels are read from the labels file beside it"
                .into(),
        ),
        Some(super::IDX_IMAGES_MAGIC) => Some(
            "an IDX images file (magic 0x00000803) read as CSV because its name lacks `idx3-ubyte`, which tells \
             IDX files apart: name it like train-images-idx3-ubyte(.gz)"
                .into(),
        ),
        _ => head.contains(&0).then(|| {
            let at = head.iter().position(|&b| b == 0).unwrap_or(0);
            format!("binary data (a NUL byte at offset {at}), not a text file: give a CSV, LIBSVM or IDX file")
        }),
    }
}

/// Checks one row (its width against the header's or the first row's) and appends its features to
/// `x` and its last cell to `y`.
fn parse_row(
    path: &Path,
    row: &::csv::StringRecord,
    line_no: usize,
    m: usize,
    header: Option<&[String]>,
    x: &mut Vec<f64>,
    y: &mut Vec<String>,
) -> Result<(), DataError> {
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
            let name = header.map(|h| h[j].as_str());
            x.push(parse_cell(path, line_no, cell, j, name)?);
        }
    }
    Ok(())
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

    /// The CSV `text` read as `header_mode` says, in chunks of `chunk_rows`.
    fn chunks(text: &'static str, header_mode: HeaderMode, chunk_rows: usize) -> Result<Vec<Table>, DataError> {
        let input = Input::new(Path::new("t.csv"), Box::new(text.as_bytes()), false, u64::MAX, 0);
        let mut rows = CsvRows::open(input, header_mode)?;
        let mut out = vec![];
        while let Some(t) = rows.next_chunk(chunk_rows)? {
            out.push(t);
        }
        Ok(out)
    }

    fn parse(text: &'static str) -> Result<Dataset, DataError> {
        let input = Input::new(Path::new("t.csv"), Box::new(text.as_bytes()), false, u64::MAX, 0);
        CsvRows::open(input, HeaderMode::Auto)?.whole()?.into_dataset()
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

    /// Records split by a lone `\r` share their line; after CRLF endings, quoted line breaks and
    /// leading `\r`s, each record gets the line it starts on.
    #[test]
    fn records_get_the_line_they_start_on() -> Result<(), DataError> {
        let t = chunks("a,y\r\n1,2\r3,4\r\n\r5,6\n\"7\n\",8\r\n9,10", HeaderMode::Auto, 2)?;
        let lines: Vec<Vec<usize>> = t.iter().map(|t| t.lines.clone().unwrap_or_default()).collect();
        assert_eq!(lines, [vec![2, 2], vec![3, 4], vec![6]]);
        assert_eq!(t.iter().map(|t| t.first_row).collect::<Vec<_>>(), [0, 2, 4]);
        Ok(())
    }

    /// A blank line is an error only when data follows it, and then at the chunk that reaches it.
    #[test]
    fn a_blank_line_is_found_by_looking_ahead() -> Result<(), DataError> {
        assert_eq!(chunks("a,y\n1,2\n3,4\n\n \n", HeaderMode::Auto, 1)?.len(), 2);
        let input = Input::new(
            Path::new("t.csv"),
            Box::new(&b"a,y\n1,2\n3,4\n\n5,6\n"[..]),
            false,
            u64::MAX,
            0,
        );
        let mut rows = CsvRows::open(input, HeaderMode::Auto)?;
        assert_eq!(rows.next_chunk(2)?.map(|t| t.n_samples()), Some(2));
        let e = rows.next_chunk(2).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("t.csv line 4: blank line inside the data"));
        Ok(())
    }
}
