//! "The paper's claims, judged": the section every reproduction's report
//! opens with (issue 39) — one row per headline claim of the paper, with
//! where the paper makes it, our verdict, the figures it rests on (ours and
//! the paper's) and the caveat that could change it.
//!
//! Verdicts are computed, never typed: a paper's report code counts its
//! cells and turns the counts into a [`Verdict`] with one of the rules
//! here, which the section states once ([`RULES`]).

use std::fmt;
use std::fmt::Write as _;

use super::Table;

/// What our runs say about a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Our runs show what the paper says.
    Confirmed,
    /// Our runs show the opposite on most of what was run.
    Refuted,
    /// Our runs show it in part: more than the opposite, less than the paper.
    Inconclusive,
    /// The runs the claim rests on were not made (a quick run, a data set
    /// left out, a reading not run).
    NotRun,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Confirmed => "**confirmed**",
            Verdict::Refuted => "**refuted**",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NotRun => "not run",
        })
    }
}

/// The rules every verdict of a claims section is computed by, as the
/// section states them.
pub const RULES: &str = "A claim that something holds on a number of cases is **confirmed** when it holds here \
     on at least the paper's share of the cases we ran (counted by the same rule on the paper's own tables and on \
     ours), **refuted** when it holds here on fewer than half of them, **inconclusive** in between; a claim about \
     one case is confirmed or refuted by that case; **not run** when the runs it rests on were not made.";

/// The verdict on a claim that holds on `paper` of the paper's `paper_of`
/// cases, when it holds on `ours` of the `ours_of` cases we ran: confirmed
/// at the paper's share or more, refuted below half, inconclusive between;
/// not run when we ran no case.
pub fn share(ours: usize, ours_of: usize, paper: usize, paper_of: usize) -> Verdict {
    if ours_of == 0 {
        return Verdict::NotRun;
    }
    // ours / ours_of ≥ paper / paper_of, in integers.
    let at_paper_share = paper_of == 0 || ours * paper_of >= paper * ours_of;
    if at_paper_share && 2 * ours >= ours_of {
        Verdict::Confirmed
    } else if 2 * ours < ours_of {
        Verdict::Refuted
    } else {
        Verdict::Inconclusive
    }
}

/// The verdict on a claim about one case: `None` when it was not run.
pub fn single(holds: Option<bool>) -> Verdict {
    match holds {
        None => Verdict::NotRun,
        Some(true) => Verdict::Confirmed,
        Some(false) => Verdict::Refuted,
    }
}

/// The weakest of several verdicts on the parts of one claim (a claim
/// holds only when every part does): not run if any part was not run, then
/// refuted, then inconclusive, else confirmed.
pub fn all_of(parts: &[Verdict]) -> Verdict {
    [Verdict::NotRun, Verdict::Refuted, Verdict::Inconclusive]
        .into_iter()
        .find(|v| parts.contains(v))
        .unwrap_or(Verdict::Confirmed)
}

/// One row of the section.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    /// The claim in a few words.
    pub claim: String,
    /// Where the paper makes it (section, table, figure).
    pub source: String,
    /// Our verdict.
    pub verdict: Verdict,
    /// Our figures it rests on.
    pub ours: String,
    /// The paper's figures it rests on.
    pub paper: String,
    /// What could change the verdict (a reading of the paper, a time scale,
    /// a substituted data set); empty for none.
    pub caveat: String,
}

/// The section: its title, the rules, the table, and a count of verdicts.
pub fn section(claims: &[Claim]) -> String {
    let mut table = Table::new(&["claim", "where", "verdict", "ours", "the paper", "caveat"]);
    for c in claims {
        table.push(vec![
            c.claim.clone(),
            c.source.clone(),
            c.verdict.to_string(),
            c.ours.clone(),
            c.paper.clone(),
            if c.caveat.is_empty() {
                "—".into()
            } else {
                c.caveat.clone()
            },
        ]);
    }
    let count = |v: Verdict| claims.iter().filter(|c| c.verdict == v).count();
    let mut md = String::new();
    let _ = writeln!(md, "## The paper's claims, judged\n");
    let _ = writeln!(md, "{RULES}\n");
    let _ = writeln!(md, "{}", table.markdown());
    let _ = writeln!(
        md,
        "{} claims: {} confirmed, {} refuted, {} inconclusive, {} not run.\n",
        claims.len(),
        count(Verdict::Confirmed),
        count(Verdict::Refuted),
        count(Verdict::Inconclusive),
        count(Verdict::NotRun)
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The share rule at its edges: the paper's share or more confirms
    /// (at half or more), below half refutes, in between is inconclusive.
    #[test]
    fn the_share_rule_at_its_edges() {
        assert_eq!(share(9, 11, 9, 11), Verdict::Confirmed);
        assert_eq!(share(8, 11, 9, 11), Verdict::Inconclusive);
        assert_eq!(share(6, 11, 9, 11), Verdict::Inconclusive);
        assert_eq!(share(5, 11, 9, 11), Verdict::Refuted);
        assert_eq!(share(1, 11, 7, 11), Verdict::Refuted);
        assert_eq!(share(3, 3, 11, 11), Verdict::Confirmed);
        assert_eq!(share(2, 3, 11, 11), Verdict::Inconclusive);
        assert_eq!(share(0, 0, 9, 11), Verdict::NotRun);
        // A paper share below half still needs half here to confirm.
        assert_eq!(share(1, 4, 1, 11), Verdict::Refuted);
    }

    #[test]
    fn parts_combine_to_the_weakest() {
        use Verdict::*;
        assert_eq!(all_of(&[Confirmed, Confirmed]), Confirmed);
        assert_eq!(all_of(&[Confirmed, Inconclusive]), Inconclusive);
        assert_eq!(all_of(&[Inconclusive, Refuted]), Refuted);
        assert_eq!(all_of(&[Refuted, NotRun]), NotRun);
        assert_eq!(single(Some(false)), Refuted);
    }

    #[test]
    fn the_section_counts_its_verdicts() {
        let c = |verdict| Claim {
            claim: "x".into(),
            source: "Table 1".into(),
            verdict,
            ours: "1".into(),
            paper: "2".into(),
            caveat: String::new(),
        };
        let md = section(&[c(Verdict::Confirmed), c(Verdict::Refuted), c(Verdict::Refuted)]);
        assert!(
            md.contains("3 claims: 1 confirmed, 2 refuted, 0 inconclusive, 0 not run."),
            "{md}"
        );
        assert!(md.contains("| x | Table 1 | **refuted** | 1 | 2 | — |"), "{md}");
    }
}
