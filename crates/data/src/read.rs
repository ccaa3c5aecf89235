//! Reading a data file front to back, transparently gunzipping it, as bytes ([`Input`]) or as lines
//! of UTF-8 text ([`Lines`]), and the memory checks of the loaders.
//!
//! Nothing here holds more than a buffer and the current line or run of bytes: the whole-file
//! loaders and the chunked readers are built on the same streams.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;

use super::error::DataError;

/// The two bytes every gzip stream starts with.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The size of the read buffers (of the file, and of the decompressed stream).
const BUFFER: usize = 1 << 16;

/// Whether `bytes` start like a gzip stream.
pub(crate) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// How a file is read: whole into memory ([`read_table`](super::read_table) and the `load_*`
/// functions), or in chunks of rows ([`read_table_chunks`](super::read_table_chunks)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// The whole file ends up in memory: a gzipped file may decompress to at most half the
    /// available memory.
    Whole,
    /// Only a chunk is in memory at a time: no limit on the decompressed size.
    Chunks,
}

/// The decompressed bytes of a data file, read front to back.
pub(crate) struct Input {
    path: PathBuf,
    inner: Box<dyn BufRead + Send>,
    gzip: bool,
    /// Decompressed bytes read so far.
    consumed: u64,
    /// The most decompressed bytes allowed.
    limit: u64,
    /// A guess of the decompressed size, for reserving memory: the file's size, four times it when
    /// gzipped.
    size_hint: u64,
    /// Whether reading has failed (damaged gzip data, an I/O error, the limit).
    failed: bool,
}

impl Input {
    /// Opens `path`, gunzipping it when it starts with the gzip magic bytes (whatever its name).
    pub(crate) fn open(path: &Path, reading: Reading) -> Result<Self, DataError> {
        let mut file = File::open(path).map_err(|e| DataError::io(path, e))?;
        let size = file.metadata().map_or(0, |m| m.len());
        // Enough for the gzip magic and for `peek` to see a binary file's first bytes.
        let mut head = [0u8; 512];
        let mut got = 0;
        while got < head.len() {
            match file.read(&mut head[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(DataError::io(path, e)),
            }
        }
        let raw = BufReader::with_capacity(BUFFER, io::Cursor::new(head[..got].to_vec()).chain(file));
        let gzip = is_gzip(&head[..got]);
        let limit = match reading {
            // Half the available memory: the decompressed bytes and what is parsed from them must fit.
            Reading::Whole if gzip => available_memory_bytes().map_or(u64::MAX, |a| a / 2),
            _ => u64::MAX,
        };
        let inner: Box<dyn BufRead + Send> = if gzip {
            Box::new(BufReader::with_capacity(BUFFER, MultiGzDecoder::new(raw)))
        } else {
            Box::new(raw)
        };
        let size_hint = if gzip { size.saturating_mul(4) } else { size };
        Ok(Self::new(path, inner, gzip, limit, size_hint))
    }

    /// An input over `inner` (already decompressed), named `path` in errors.
    pub(crate) fn new(path: &Path, inner: Box<dyn BufRead + Send>, gzip: bool, limit: u64, size_hint: u64) -> Self {
        Input {
            path: path.to_path_buf(),
            inner,
            gzip,
            consumed: 0,
            limit,
            size_hint,
            failed: false,
        }
    }

    /// The file, as given.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The first decompressed bytes, not consumed (as many as the buffer
    /// holds; fewer at the end of the file). A read error gives none: the
    /// reading that follows reports it.
    pub(crate) fn peek(&mut self) -> &[u8] {
        self.inner.fill_buf().unwrap_or(&[])
    }

    /// A guess of the decompressed size in bytes (for reserving memory, never more than the limit).
    pub(crate) fn size_hint(&self) -> usize {
        usize::try_from(self.size_hint.min(self.limit)).unwrap_or(usize::MAX)
    }

    /// The error for a failed read: damaged gzip data, or what the operating system said.
    fn read_error(&mut self, e: io::Error) -> DataError {
        self.failed = true;
        if self.gzip {
            DataError::format(&self.path, None, format!("corrupt gzip data: {e}"))
        } else {
            DataError::io(&self.path, e)
        }
    }

    /// Counts `n` more decompressed bytes against the limit.
    fn count(&mut self, n: usize) -> Result<(), DataError> {
        self.consumed = self.consumed.saturating_add(n as u64);
        if self.consumed > self.limit {
            self.failed = true;
            return Err(DataError::format(
                &self.path,
                None,
                format!(
                    "the gzip data decompresses to more than {}, half the memory available; decompress it elsewhere or use a larger machine",
                    human_bytes(self.limit)
                ),
            ));
        }
        Ok(())
    }

    /// How many more bytes may be read before the limit is exceeded, plus one to notice it.
    fn allowance(&self) -> u64 {
        self.limit.saturating_sub(self.consumed).saturating_add(1)
    }

    /// Appends the next line, its `\n` included, to `buf`; returns its length (0 at the end).
    pub(crate) fn read_line(&mut self, buf: &mut Vec<u8>) -> Result<usize, DataError> {
        let allowance = self.allowance();
        match (&mut self.inner).take(allowance).read_until(b'\n', buf) {
            Ok(n) => self.count(n).map(|()| n),
            Err(e) => Err(self.read_error(e)),
        }
    }

    /// Appends up to `n` bytes to `buf`, fewer only at the end of the data; returns how many.
    pub(crate) fn read_up_to(&mut self, n: usize, buf: &mut Vec<u8>) -> Result<usize, DataError> {
        let want = (n as u64).min(self.allowance());
        match (&mut self.inner).take(want).read_to_end(buf) {
            Ok(got) => self.count(got).map(|()| got),
            Err(e) => Err(self.read_error(e)),
        }
    }

    /// Reads the rest of the data without keeping it; returns how many bytes there were.
    pub(crate) fn skip_to_end(&mut self) -> Result<u64, DataError> {
        let allowance = self.allowance();
        match io::copy(&mut (&mut self.inner).take(allowance), &mut io::sink()) {
            Ok(n) => self.count(usize::try_from(n).unwrap_or(usize::MAX)).map(|()| n),
            Err(e) => Err(self.read_error(e)),
        }
    }

    /// After a problem with the contents of a gzipped file: whether its gzip data are damaged (or
    /// exceed the limit) further on, which is then the error to report — damage can make good rows
    /// look bad. Reads the rest of the file; `None` for a plain file or when reading already failed.
    pub(crate) fn damage(&mut self) -> Option<DataError> {
        if !self.gzip || self.failed {
            return None;
        }
        self.skip_to_end().err()
    }
}

/// The error to report for `problem`, found in the contents of `input`: the damage of its gzip
/// data if there is any ([`Input::damage`]), else `problem`.
pub(crate) fn settle(problem: DataError, input: &mut Input) -> DataError {
    input.damage().unwrap_or(problem)
}

/// The lines of a text file, checked to be UTF-8, with their 1-based numbers.
pub(crate) struct Lines {
    input: Input,
    buf: Vec<u8>,
    /// Bytes of a byte-order mark at the start of `buf` (first line only).
    skip: usize,
    /// The number of the line in `buf` (0 before the first).
    number: usize,
    /// The offset in the decompressed file of the line after the one in `buf`.
    offset: u64,
}

impl Lines {
    /// The lines of `input`.
    pub(crate) fn new(input: Input) -> Self {
        Lines {
            input,
            buf: Vec::new(),
            skip: 0,
            number: 0,
            offset: 0,
        }
    }

    /// The next line's number and text with its line ending (`\n` or `\r\n`), without a
    /// byte-order mark at the start of the file; `None` at the end. A line that is not UTF-8 is an
    /// error naming it and the offset of the bad byte in the file.
    pub(crate) fn next_line(&mut self) -> Result<Option<(usize, &str)>, DataError> {
        self.buf.clear();
        self.skip = 0;
        let n = self.input.read_line(&mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        let start = self.offset;
        self.offset += n as u64;
        match std::str::from_utf8(&self.buf) {
            Ok(text) => {
                if self.number == 1 && text.starts_with('\u{feff}') {
                    self.skip = '\u{feff}'.len_utf8();
                }
                Ok(Some((self.number, &text[self.skip..])))
            }
            Err(e) => Err(DataError::format(
                &self.input.path,
                Some(self.number),
                format!(
                    "not UTF-8 text (invalid byte at offset {})",
                    start + e.valid_up_to() as u64
                ),
            )),
        }
    }

    /// The bytes of the line last returned by [`Lines::next_line`].
    pub(crate) fn current(&self) -> &[u8] {
        &self.buf[self.skip..]
    }

    /// The number of the line last returned (0 before the first).
    pub(crate) fn number(&self) -> usize {
        self.number
    }

    /// The file, as given.
    pub(crate) fn path(&self) -> &Path {
        self.input.path()
    }

    /// The bytes underneath.
    pub(crate) fn input(&self) -> &Input {
        &self.input
    }

    /// The bytes underneath, to read on.
    pub(crate) fn input_mut(&mut self) -> &mut Input {
        &mut self.input
    }
}

/// Checks that a dense `rows × cols` matrix of `f64` read from `path` fits in the available memory
/// (when known), before it is allocated.
pub(crate) fn check_dense_memory(path: &Path, rows: usize, cols: usize) -> Result<(), DataError> {
    let need = (rows as u64).saturating_mul(cols as u64).saturating_mul(8);
    match available_memory_bytes() {
        Some(available) if need > available => Err(DataError::format(
            path,
            None,
            format!(
                "{rows} rows × {cols} features need {} as a dense matrix, more than the {} of memory available",
                human_bytes(need),
                human_bytes(available)
            ),
        )),
        _ => Ok(()),
    }
}

/// The memory the system can still give (`MemAvailable` of `/proc/meminfo`) in bytes, if known.
pub fn available_memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// A byte count for messages: `12.3 GB`, `512.0 MB`, `900 bytes`.
pub fn human_bytes(bytes: impl Into<u128>) -> String {
    const TB: f64 = 1e12;
    const GB: f64 = 1e9;
    const MB: f64 = 1e6;
    let bytes: u128 = bytes.into();
    let b = bytes as f64;
    if b >= 1e3 * TB {
        format!("{b:.1e} bytes")
    } else if b >= TB {
        format!("{:.1} TB", b / TB)
    } else if b >= GB {
        format!("{:.1} GB", b / GB)
    } else if b >= MB {
        format!("{:.1} MB", b / MB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// `bytes` gzipped, as an input with the decompressed-size `limit`.
    fn gz_input(bytes: &[u8], limit: u64) -> Result<Input, Box<dyn std::error::Error>> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(bytes)?;
        let gz = enc.finish()?;
        let decoder = BufReader::new(MultiGzDecoder::new(io::Cursor::new(gz)));
        Ok(Input::new(Path::new("t.gz"), Box::new(decoder), true, limit, 0))
    }

    #[test]
    fn gunzipping_stops_at_the_limit() -> Result<(), Box<dyn std::error::Error>> {
        let mut buf = vec![];
        assert_eq!(gz_input(&[b'0'; 10_000], 10_000)?.read_up_to(20_000, &mut buf)?, 10_000);
        let e = gz_input(&[b'0'; 10_000], 9_999)?
            .read_up_to(20_000, &mut buf)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.contains("t.gz: the gzip data decompresses to more than 9999 bytes"),
            "{e}"
        );
        let e = gz_input(&[b'0'; 10_000], 9_999)?
            .skip_to_end()
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("more than 9999 bytes")));
        assert_eq!(human_bytes(2_500_000_000u64), "2.5 GB");
        // Beyond 2⁶⁴ bytes the figure is the need, not a saturated 18446744073.7 GB (issue 36).
        assert_eq!(human_bytes(4_000_000_000_000u64), "4.0 TB");
        assert_eq!(human_bytes(8u128 << 70), "9.4e21 bytes");
        Ok(())
    }

    #[test]
    fn lines_keep_their_endings_lose_the_byte_order_mark_and_must_be_utf8() -> Result<(), DataError> {
        let text: &[u8] = b"\xef\xbb\xbfa,b\r\n\xef\xbb\xbfc\nd\xff\n";
        let input = Input::new(Path::new("t.csv"), Box::new(text), false, u64::MAX, 0);
        let mut lines = Lines::new(input);
        assert_eq!(lines.next_line()?, Some((1, "a,b\r\n")));
        assert_eq!(lines.current(), b"a,b\r\n");
        assert_eq!(lines.next_line()?, Some((2, "\u{feff}c\n")));
        let e = lines.next_line().err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("t.csv line 3: not UTF-8 text (invalid byte at offset 14)")
        );
        Ok(())
    }
}
