//! The time limits, calibrated (issue 40, item 3): how many of the paper's
//! seconds one of ours is worth on each network, measured where neither
//! clock was cut short — the best L-BFGS run of a data set (the paper's
//! Table 2 gives only its best run's time) when it stopped on its own rule
//! here (not the time limit) and in the paper (under its 150 s limit).
//! The median of those ratios turns our limit into the paper-seconds it
//! buys, and says by how much the full run's limits are really cut.

use std::fmt::Write as _;

use super::cell::CellResult;
use super::protocol::{architecture_name, Options, SOURCES};
use super::published;
use super::report::{best, select};
use crate::report::Table;

/// The paper's limit for the batch methods, seconds.
const PAPER_LIMIT: f64 = 150.0;

/// The termination of a run cut by its time limit.
const TIME_LIMIT: &str = "time limit reached";

/// One network's calibration.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Calibration {
    /// Index into the architectures.
    pub architecture: usize,
    /// `(data set, paper seconds / our seconds)` of the best L-BFGS runs
    /// that stopped on their own rule on both sides.
    pub ratios: Vec<(&'static str, f64)>,
    /// Data sets whose best L-BFGS run hit a limit on either side.
    pub cut: usize,
    /// Our batch limit on this network, seconds (from the cells).
    pub our_limit: Option<f64>,
}

impl Calibration {
    /// The median ratio: paper-seconds per second of ours.
    pub fn median(&self) -> Option<f64> {
        let mut v: Vec<f64> = self.ratios.iter().map(|r| r.1).collect();
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => None,
            n if n % 2 == 1 => Some(v[n / 2]),
            n => Some(0.5 * (v[n / 2 - 1] + v[n / 2])),
        }
    }
}

/// The calibration of every network the run covers.
pub(super) fn calibrate(opts: &Options, cells: &[CellResult]) -> Vec<Calibration> {
    opts.architectures
        .iter()
        .map(|&a| {
            let (mut ratios, mut cut, mut our_limit) = (vec![], 0, None);
            for (d, s) in SOURCES.iter().enumerate() {
                if !opts.includes(s) {
                    continue;
                }
                let Some(ours) = best(&select(cells, s.key, a, "lbfgs")) else {
                    continue;
                };
                our_limit = Some(ours.limit);
                let paper = published::TABLE_2[a][d].cpu_seconds[1];
                if ours.termination == TIME_LIMIT || paper >= PAPER_LIMIT || ours.seconds <= 0.0 {
                    cut += 1;
                } else {
                    ratios.push((s.paper_name, paper / ours.seconds));
                }
            }
            Calibration {
                architecture: a,
                ratios,
                cut,
                our_limit,
            }
        })
        .collect()
}

/// The section: per network, the ratios, their median, what our limit is
/// worth in paper-seconds, the effective cut of the paper's 150 s, and the
/// time scale that would give the paper's budget.
pub(super) fn section(md: &mut String, opts: &Options, cells: &[CellResult]) {
    let cal = calibrate(opts, cells);
    if opts.quick || cal.iter().all(|c| c.ratios.is_empty()) {
        return;
    }
    let mut t = Table::new(&[
        "network",
        "data sets (both stopped on their own)",
        "paper s / our s (min–max)",
        "median",
        "our limit, s",
        "worth in paper-seconds",
        "the paper's 150 s cut by",
        "time scale for the paper's budget",
    ]);
    for c in &cal {
        let (lo, hi) = c
            .ratios
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| (l.min(r.1), h.max(r.1)));
        let m = c.median();
        let worth = m.zip(c.our_limit).map(|(m, l)| m * l);
        t.push(vec![
            architecture_name(c.architecture).into(),
            format!("{} of {}", c.ratios.len(), c.ratios.len() + c.cut),
            if c.ratios.is_empty() {
                "—".into()
            } else {
                format!("{lo:.1}–{hi:.1}")
            },
            m.map_or("—".into(), |m| format!("{m:.1}")),
            c.our_limit.map_or("—".into(), |l| format!("{l:.1}")),
            worth.map_or("—".into(), |w| format!("{w:.0}")),
            worth.map_or("—".into(), |w| format!("{:.1}×", PAPER_LIMIT / w)),
            m.map_or("—".into(), |m| format!("{:.2}", 1.0 / m)),
        ]);
    }
    let _ = writeln!(
        md,
        "## The time limits, calibrated\n\n\
         How many of the paper's seconds one of ours is worth, per network: the paper's time of its best L-BFGS run \
         (Table 2) over ours, on the data sets where both stopped on their own rule (ours before its limit, the \
         paper's under 150 s). \"Worth in paper-seconds\" is our limit times the median ratio; \"cut by\" is the \
         paper's 150 s over that; the last column is the time scale (`-- --time-scale`) at which our limit would be \
         worth the paper's 150 s. The best runs of the two sides need not stop at the same objective: a ratio is an \
         estimate of the two machines' and codes' speed, not a measurement of one computation.\n\n{}",
        t.markdown()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::papers::palagi_seccia::protocol::Options;
    use std::path::PathBuf;

    fn cell(dataset: &str, run: usize, seconds: f64, objective: f64, termination: &str) -> CellResult {
        CellResult {
            dataset: dataset.into(),
            architecture: 0,
            method: "lbfgs".into(),
            run,
            quick: false,
            n_train: 1,
            limit: 12.0,
            seconds,
            objective,
            gradient_norm: 1e-4,
            test_error: 1.0,
            iterations: 10,
            updates_per_layer: vec![],
            termination: termination.into(),
            trace: vec![],
            cpu: None,
        }
    }

    /// On [1 x 50] the paper's best L-BFGS runs took 3.04 s (Ailerons) and
    /// 0.91 s (CCPP): ours at 1 s and 0.1 s give ratios 3.04 and 9.1; a
    /// best run of ours cut by its limit (California) is left out; the
    /// median and the table follow.
    #[test]
    fn ratios_come_from_runs_that_stopped_on_their_own() {
        let mut opts = Options::full(PathBuf::from("/nonexistent"), 0.08);
        opts.architectures = vec![0];
        let cells = vec![
            cell("ailerons", 0, 1.0, 1e-3, "gradient norm below tolerance"),
            cell("ailerons", 1, 0.5, 2e-3, "gradient norm below tolerance"),
            cell("ccpp", 0, 0.1, 1e-3, "gradient norm below tolerance"),
            cell("california", 0, 12.0, 1e-3, TIME_LIMIT),
        ];
        let cal = calibrate(&opts, &cells);
        assert_eq!(cal.len(), 1);
        assert_eq!(cal[0].cut, 1);
        let r: Vec<(&str, f64)> = cal[0].ratios.clone();
        assert_eq!(r.len(), 2, "{r:?}");
        assert!((r[0].1 - 3.04).abs() < 1e-12 && (r[1].1 - 9.1).abs() < 1e-9, "{r:?}");
        let m = cal[0].median().unwrap();
        assert!((m - 0.5 * (3.04 + 9.1)).abs() < 1e-9);
        let mut md = String::new();
        section(&mut md, &opts, &cells);
        assert!(
            md.contains("| [1 x 50] | 2 of 3 | 3.0–9.1 | 6.1 | 12.0 | 73 | 2.1× | 0.16 |"),
            "{md}"
        );
    }
}
