//! A resumable log of finished runs for the investigation examples
//! (`bpls_readings`, `dec_candidates`): one JSON object per line of
//! `<dir>/runs.jsonl`, appended as each run finishes and read back so that a
//! rerun skips what is done, and the summary files written beside it.

use std::fs::File;
use std::io::Write as _;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::papers::ReproError;

/// The file name of the log in its directory.
pub const LOG_FILE: &str = "runs.jsonl";

/// The lines of a run log that parse, and how many did not (a line cut
/// short when a run was killed while writing it).
#[derive(Debug)]
pub struct Lines<T> {
    /// The finished runs, in the order they were written.
    pub runs: Vec<T>,
    /// Lines that did not parse as a run.
    pub unreadable: usize,
}

/// Read the runs logged in `dir` (none when the log does not exist yet).
///
/// # Errors
/// [`ReproError::Io`] when the log exists but cannot be read.
pub fn read<T: DeserializeOwned>(dir: &Path) -> Result<Lines<T>, ReproError> {
    let path = dir.join(LOG_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e.into()),
    };
    let mut lines = Lines {
        runs: vec![],
        unreadable: 0,
    };
    for l in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str(l) {
            Ok(run) => lines.runs.push(run),
            Err(_) => lines.unreadable += 1,
        }
    }
    Ok(lines)
}

/// A log open for appending, with the runs already in it.
pub struct RunLog<T> {
    dir: PathBuf,
    done: Vec<T>,
    file: File,
    _line: PhantomData<T>,
}

impl<T: Serialize + DeserializeOwned> RunLog<T> {
    /// Create `dir` if needed, read its log and open it for appending; a
    /// line that does not parse is reported on stderr (prefixed by `who`)
    /// and its run is done again.
    ///
    /// # Errors
    /// [`ReproError::Io`] when the directory or the log cannot be created,
    /// read or opened.
    pub fn open(dir: &Path, who: &str) -> Result<Self, ReproError> {
        std::fs::create_dir_all(dir)?;
        let lines = read(dir)?;
        if lines.unreadable > 0 {
            eprintln!(
                "{who}: {} line(s) of {} do not parse and are run again",
                lines.unreadable,
                dir.join(LOG_FILE).display()
            );
        }
        let path = dir.join(LOG_FILE);
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
        // A line cut short has no newline: end it, so the next run starts
        // a line of its own.
        let text = std::fs::read(&path)?;
        if text.last().is_some_and(|&b| b != b'\n') {
            writeln!(file)?;
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            done: lines.runs,
            file,
            _line: PhantomData,
        })
    }

    /// Whether a logged run satisfies `is_it`.
    pub fn has(&self, is_it: impl Fn(&T) -> bool) -> bool {
        self.done.iter().any(is_it)
    }

    /// Append a finished run (one line, flushed).
    ///
    /// # Errors
    /// [`ReproError::Io`] or [`ReproError::Json`] when the line cannot be
    /// written.
    pub fn append(&mut self, run: T) -> Result<(), ReproError> {
        writeln!(self.file, "{}", serde_json::to_string(&run)?)?;
        self.file.flush()?;
        self.done.push(run);
        Ok(())
    }

    /// The directory of the log (where the summaries go).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Write `summary.md` and `summary.csv` into `dir` and say where.
///
/// # Errors
/// [`ReproError::Io`] when a file cannot be written.
pub fn write_summary(dir: &Path, who: &str, md: &str, csv: &str) -> Result<(), ReproError> {
    std::fs::write(dir.join("summary.md"), md)?;
    std::fs::write(dir.join("summary.csv"), csv)?;
    eprintln!("{who}: summary in {}", dir.join("summary.md").display());
    Ok(())
}

/// Start an investigation binary as the `reproduce` binary starts: again
/// with OpenBLAS's kernel for this CPU when the library fell back to a
/// generic one (issue 37), then on one BLAS thread, as the reproductions'
/// cells run.
pub fn start_single_threaded(who: &str) {
    if let Err(e) = linalg_core::blas_kernel::reexec_with_chosen_kernel() {
        eprintln!("{who}: warning: could not start again with a kernel for this CPU ({e})");
    }
    linalg_core::threads::set_blas_threads(1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Run {
        name: String,
        seed: u64,
    }

    /// Runs appended are read back by the next open, in order; a line cut
    /// short is counted, not taken for a run; summaries land beside the log.
    #[test]
    fn a_log_resumes_and_skips_a_cut_line() {
        let dir = std::env::temp_dir().join(format!("run-log-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let empty: Lines<Run> = read(&dir).expect("a missing log is empty");
        assert!(empty.runs.is_empty() && empty.unreadable == 0);
        {
            let mut log: RunLog<Run> = RunLog::open(&dir, "test").expect("open");
            assert!(!log.has(|r| r.seed == 0));
            log.append(Run {
                name: "a".into(),
                seed: 0,
            })
            .expect("append");
            log.append(Run {
                name: "b".into(),
                seed: 1,
            })
            .expect("append");
            assert!(log.has(|r| r.name == "b" && r.seed == 1));
        }
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join(LOG_FILE))
            .expect("log");
        write!(f, "{{\"name\": \"c\", \"se").expect("a cut line");
        drop(f);
        let mut log: RunLog<Run> = RunLog::open(&dir, "test").expect("reopen");
        assert!(log.has(|r| r.name == "a") && log.has(|r| r.name == "b"));
        assert!(!log.has(|r| r.name == "c"));
        // The run after the cut line is a line of its own.
        log.append(Run {
            name: "c".into(),
            seed: 2,
        })
        .expect("append");
        let lines: Lines<Run> = read(&dir).expect("read");
        assert_eq!(lines.runs.len(), 3);
        assert_eq!(
            lines.runs[2],
            Run {
                name: "c".into(),
                seed: 2
            }
        );
        assert_eq!(lines.unreadable, 1);
        write_summary(log.dir(), "test", "# s\n", "a,b\n").expect("summary");
        assert_eq!(std::fs::read_to_string(dir.join("summary.csv")).expect("csv"), "a,b\n");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
