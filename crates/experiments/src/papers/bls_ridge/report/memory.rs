//! The memory section: solver state and the process's peak resident memory
//! per strategy and storage precision.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::super::cell::Cell;
use super::precision_name;
use crate::report::Table;

/// The memory limit, 20 GiB.
const LIMIT_BYTES: u64 = 20 << 30;

/// Per (strategy, precision) over the cells without failure: the solver's
/// state at the end, the peak RSS of the latest cell and the largest.
pub(super) fn memory(cells: &[Cell]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "## Memory\n");
    let _ = writeln!(
        md,
        "Per strategy over the cells that completed the schedule: the solver's state at the end, and the \
         process's peak resident memory (`VmHWM`) in the most recent cell and the largest over all cells. \
         Cells keep the figure of the code they ran with: an older cell can show a higher peak than the \
         current code reaches. The issue's limit is 20 GiB = {:.2} GB.\n",
        LIMIT_BYTES as f64 / 1e9
    );
    let mut mt = Table::new(&[
        "strategy",
        "A stored in",
        "solver state at the end (GB)",
        "peak RSS, latest cell (GB)",
        "latest cell (λ, ran at)",
        "within 20 GiB",
        "peak RSS, max over cells (GB)",
    ]);
    let mut groups: BTreeMap<(&str, &str), Vec<&Cell>> = BTreeMap::new();
    for c in cells.iter().filter(|c| c.failure.is_none()) {
        groups
            .entry((c.strategy.cli_name(), precision_name(c.precision)))
            .or_default()
            .push(c);
    }
    let gb = |b: Option<u64>| b.map_or("—".to_string(), |b| format!("{:.2}", b as f64 / 1e9));
    for ((strategy, precision), group) in &groups {
        let Some(latest) = group.iter().max_by(|a, b| a.ran_at.cmp(&b.ran_at)) else {
            continue;
        };
        let max_peak = group.iter().filter_map(|c| c.peak_rss_bytes).max();
        let state = group.iter().map(|c| c.state_bytes).max().unwrap_or(0);
        let within = latest
            .peak_rss_bytes
            .map_or("—", |b| if b <= LIMIT_BYTES { "yes" } else { "no" });
        mt.push(vec![
            strategy.to_string(),
            precision.to_string(),
            format!("{:.2}", state as f64 / 1e9),
            gb(latest.peak_rss_bytes),
            format!("2^{}, {}", latest.lambda_exp, latest.ran_at),
            within.into(),
            gb(max_peak),
        ]);
    }
    let _ = writeln!(md, "{}", mt.markdown());
    md
}
