//! The one error type of the loaders and of preprocessing.

use std::fmt;
use std::path::Path;

/// Everything that can go wrong while reading a data file or preparing its contents.
///
/// Messages name the file, the 1-based line when there is one, and the problem, e.g.
/// `data/x.csv line 7: 4 columns, header has 5`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// The file could not be opened or read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file, as given.
        path: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The file was read but its contents are not what the format requires.
    #[error("{path}{}: {problem}", LinePart(*line))]
    Format {
        /// The file, as given.
        path: String,
        /// 1-based line of a text file; `None` for binary files or whole-file problems.
        line: Option<usize>,
        /// What is wrong, with the offending text quoted.
        problem: String,
    },
    /// A preprocessing function or a registry lookup was called with arguments it cannot accept.
    #[error("invalid argument: {what}")]
    InvalidArgument {
        /// What was wrong with the arguments.
        what: String,
    },
}

/// Formats ` line N` or nothing.
struct LinePart(Option<usize>);

impl fmt::Display for LinePart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, " line {n}"),
            None => Ok(()),
        }
    }
}

impl DataError {
    /// An [`DataError::Io`] error for `path`.
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        DataError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// A [`DataError::Format`] error for `path`.
    pub(crate) fn format(path: &Path, line: Option<usize>, problem: impl Into<String>) -> Self {
        DataError::Format {
            path: path.display().to_string(),
            line,
            problem: problem.into(),
        }
    }

    /// A [`DataError::InvalidArgument`] error.
    pub(crate) fn invalid(what: impl Into<String>) -> Self {
        DataError::InvalidArgument { what: what.into() }
    }
}

/// Quotes a piece of a file for an error message: escaped, and cut after 60 characters.
pub(crate) fn quote(text: &str) -> String {
    const MAX: usize = 60;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{:?}…", &text[..cut]),
        None => format!("{text:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_messages_name_file_line_and_problem() {
        let e = DataError::format(Path::new("data/x.csv"), Some(7), "4 columns, header has 5");
        assert_eq!(e.to_string(), "data/x.csv line 7: 4 columns, header has 5");
        let e = DataError::format(Path::new("a.idx"), None, "empty file");
        assert_eq!(e.to_string(), "a.idx: empty file");
    }

    #[test]
    fn quotes_are_escaped_and_bounded() {
        assert_eq!(quote("a\"b"), "\"a\\\"b\"");
        let long = "x".repeat(100);
        assert_eq!(quote(&long).chars().count(), 60 + 2 + 1);
    }
}
