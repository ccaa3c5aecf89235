//! Progress of `nn fit` on stderr: an indicatif bar when stderr is a
//! terminal, otherwise one plain `nn fit: …` line per step (at most one per
//! `every`), so logs of scripted runs stay readable.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Progress over a known number of steps.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    every: Duration,
    last: Instant,
}

impl Progress {
    /// Progress over `steps` steps of `unit` (shown on the bar); plain lines
    /// are printed at most once per `every` (`Duration::ZERO`: every step).
    pub(crate) fn new(steps: usize, unit: &str, every: Duration) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(steps as u64);
            let template = format!("nn fit: [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit} {{msg}}");
            if let Ok(style) = ProgressStyle::with_template(&template) {
                bar.set_style(style);
            }
            bar
        });
        Self {
            bar,
            every,
            last: Instant::now(),
        }
    }

    /// Step `done` of the total is finished; `line` describes it.
    pub(crate) fn step(&mut self, done: usize, line: impl FnOnce() -> String) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(done as u64);
                bar.set_message(line());
            }
            None if self.last.elapsed() >= self.every => {
                say!("nn fit: {}", line());
                self.last = Instant::now();
            }
            None => {}
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
