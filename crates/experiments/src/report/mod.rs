//! Report writing: Markdown tables, CSV, JSON and SVG plots.

pub mod claims;
pub mod stats;
pub mod svg;

use std::fmt::Write as _;
use std::path::Path;

/// A table with a header and string cells, written as Markdown or CSV.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with the given header.
    pub fn new(header: &[&str]) -> Self {
        Self {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: vec![],
        }
    }

    /// Append a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// GitHub-flavoured Markdown.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "| {} |", self.header.join(" | "));
        let _ = writeln!(s, "|{}", "---|".repeat(self.header.len()));
        for r in &self.rows {
            let _ = writeln!(s, "| {} |", r.join(" | "));
        }
        s
    }

    /// CSV (cells quoted when they hold a comma or a quote).
    pub fn csv(&self) -> String {
        let cell = |c: &String| {
            if c.contains(',') || c.contains('"') {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.clone()
            }
        };
        let mut s = String::new();
        let _ = writeln!(s, "{}", self.header.iter().map(cell).collect::<Vec<_>>().join(","));
        for r in &self.rows {
            let _ = writeln!(s, "{}", r.iter().map(cell).collect::<Vec<_>>().join(","));
        }
        s
    }
}

/// Write `contents` to `dir/name`, creating `dir`.
pub fn write(dir: &Path, name: &str, contents: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(name), contents)
}

/// Format a number as the papers do: one significant digit in scientific
/// notation (`2e-11`).
pub fn sci1(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let s = format!("{v:.0e}");
    s.replace("e-0", "e-")
}

/// A number with two decimals, or `—` when it is not finite (a ratio or a
/// mean of no runs).
pub fn fixed2(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.2}")
    } else {
        "—".into()
    }
}

/// The current UTC time as `YYYY-MM-DD HH:MM` (see [`crate::machine`]).
pub use crate::machine::utc_now;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_and_csv() {
        let mut t = Table::new(&["a", "b"]);
        t.push(vec!["1".into(), "x,y".into()]);
        assert_eq!(t.markdown(), "| a | b |\n|---|---|\n| 1 | x,y |\n");
        assert_eq!(t.csv(), "a,b\n1,\"x,y\"\n");
        assert_eq!(sci1(2.3e-11), "2e-11");
        assert_eq!(sci1(6.4e-16), "6e-16");
        assert_eq!(fixed2(1.005e1), "10.05");
        assert_eq!(fixed2(f64::NAN), "—");
    }
}
