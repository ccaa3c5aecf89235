//! The one cell runner of the reproductions (issue 38, part 3): every
//! paper describes its work as [`Job`]s — the cell file each is kept in
//! (in the paper's cells directory, through [`cell_store`](super::cell_store)),
//! the BLAS threads it runs on, and what to compute — and
//! [`CellRunner::run`] does the rest the same way for all of them:
//!
//! - **resumable**: a stored cell is read back, not computed again (a
//!   damaged one is an error naming its file);
//! - **a time budget**: a cell not started when the budget is spent is
//!   skipped and counted, so the paper can still write its report from what
//!   exists;
//! - **workers**: cells computed `workers` at once (all at the same BLAS
//!   thread count), results in job order whatever the order they finish in;
//! - **progress** on stderr: a line per cell read back and, at
//!   [`CellRunner::finish`], how many the budget left out; the paper's own
//!   line for a computed cell is printed by its `compute`.
//!
//! The BLAS thread count is a capability ([`BlasThreads`], carried by
//! [`Blas`]) that the program hands in (`bin/reproduce.rs` gives OpenBLAS's,
//! [`crate::machine::OpenBlasThreads`]); the papers never set it themselves,
//! and tests pass [`Blas::none`] or a recording one.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::cell_store::{load_cell, store_cell};
use super::ReproError;

/// Reading and setting the BLAS library's thread count: the capability a
/// program gives the reproductions.
pub trait BlasThreads: Send + Sync {
    /// The current count.
    fn get(&self) -> usize;
    /// Use `n` threads from now on.
    fn set(&self, n: usize);
}

/// The capability that changes nothing ([`Blas::none`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoBlasThreads;

impl BlasThreads for NoBlasThreads {
    fn get(&self) -> usize {
        0
    }

    fn set(&self, _n: usize) {}
}

/// A shared handle on a [`BlasThreads`] capability; the default is
/// [`Blas::none`].
#[derive(Clone)]
pub struct Blas(Arc<dyn BlasThreads>);

impl Blas {
    /// A handle on `threads`.
    pub fn new(threads: Arc<dyn BlasThreads>) -> Self {
        Self(threads)
    }

    /// The handle that leaves the thread count alone (tests, and programs
    /// that set it once themselves).
    pub fn none() -> Self {
        Self(Arc::new(NoBlasThreads))
    }

    /// `f` run with `n` BLAS threads; the previous count is restored after
    /// (also when `f` panics).
    pub fn with<R>(&self, n: usize, f: impl FnOnce() -> R) -> R {
        struct Restore<'a>(&'a dyn BlasThreads, usize);
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                self.0.set(self.1);
            }
        }
        let _restore = Restore(self.0.as_ref(), self.0.get());
        self.0.set(n);
        f()
    }
}

impl Default for Blas {
    fn default() -> Self {
        Self::none()
    }
}

impl fmt::Debug for Blas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Blas(..)")
    }
}

/// One unit of a paper's work.
#[derive(Clone, Debug)]
pub struct Job<S> {
    /// The cell's file name in the cells directory (`table4.json`).
    pub file: String,
    /// The BLAS threads it is computed on.
    pub blas_threads: usize,
    /// What to compute: the paper's own description of the cell.
    pub spec: S,
}

impl<S> Job<S> {
    /// A job kept in `file`, computed on `blas_threads` BLAS threads.
    pub fn new(file: impl Into<String>, blas_threads: usize, spec: S) -> Self {
        Self {
            file: file.into(),
            blas_threads,
            spec,
        }
    }
}

/// What one [`CellRunner::run`] gave.
#[derive(Clone, Debug)]
pub struct Ran<C> {
    /// One entry per job, in job order: its cell, or `None` when the time
    /// budget left it out.
    pub cells: Vec<Option<C>>,
    /// Cells read back from an earlier run.
    pub reused: usize,
    /// Cells computed (and stored) by this run.
    pub computed: usize,
    /// Jobs not started because the time budget was spent.
    pub skipped: usize,
}

impl<C> Ran<C> {
    /// The cells that exist, in job order.
    pub fn done(self) -> Vec<C> {
        self.cells.into_iter().flatten().collect()
    }
}

/// Runs a paper's jobs as resumable cells (see the [module](self)).
#[derive(Debug)]
pub struct CellRunner {
    paper: String,
    cells_dir: PathBuf,
    started: Instant,
    budget_min: Option<f64>,
    workers: usize,
    blas: Blas,
    skipped: usize,
}

impl CellRunner {
    /// A runner for `paper` (the prefix of its progress lines) keeping its
    /// cells in `cells_dir`, setting BLAS threads through `blas`: one
    /// worker, no time budget.
    pub fn new(paper: &str, cells_dir: impl Into<PathBuf>, blas: &Blas) -> Self {
        Self {
            paper: paper.to_string(),
            cells_dir: cells_dir.into(),
            started: Instant::now(),
            budget_min: None,
            workers: 1,
            blas: blas.clone(),
            skipped: 0,
        }
    }

    /// Start no cell once `minutes` have passed since `started` (`None`:
    /// no limit); the budget covers every later [`run`](Self::run).
    pub fn budget(mut self, started: Instant, minutes: Option<f64>) -> Self {
        self.started = started;
        self.budget_min = minutes;
        self
    }

    /// Compute `workers` cells at once (at least one).
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = workers.max(1);
        self
    }

    /// The BLAS capability, for the work of a paper outside its cells.
    pub fn blas(&self) -> &Blas {
        &self.blas
    }

    /// The file of a cell called `file`.
    pub fn path(&self, file: &str) -> PathBuf {
        self.cells_dir.join(file)
    }

    /// Whether the time budget is spent.
    pub fn budget_spent(&self) -> bool {
        self.budget_min
            .is_some_and(|m| self.started.elapsed().as_secs_f64() > 60.0 * m)
    }

    /// Jobs skipped for the budget by every run so far.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Says on stderr how many jobs the time budget left out, if any.
    pub fn finish(&self) {
        if self.skipped > 0 {
            eprintln!(
                "{}: time budget reached: {} cells not run (rerun to continue)",
                self.paper, self.skipped
            );
        }
    }

    /// Every job's cell, in job order: read back when stored, else computed
    /// by `compute` on the job's BLAS threads and stored, unless the budget
    /// is spent (then `None`).
    ///
    /// # Errors
    /// A stored cell that cannot be read (naming its file), `compute`'s
    /// first error (no new job starts after it), writing a cell, and jobs
    /// of different BLAS thread counts with more than one worker.
    pub fn run<S, C>(
        &mut self,
        jobs: &[Job<S>],
        compute: impl Fn(&Job<S>) -> Result<C, ReproError> + Sync,
    ) -> Result<Ran<C>, ReproError>
    where
        S: Sync,
        C: Serialize + DeserializeOwned + Send,
    {
        self.run_reusing(jobs, |_, _| true, compute)
    }

    /// [`run`](Self::run), reading back only the stored cells that
    /// `reuse` accepts (e.g. computed under the same options); the others
    /// are computed again and replaced.
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub fn run_reusing<S, C>(
        &mut self,
        jobs: &[Job<S>],
        reuse: impl Fn(&Job<S>, &C) -> bool,
        compute: impl Fn(&Job<S>) -> Result<C, ReproError> + Sync,
    ) -> Result<Ran<C>, ReproError>
    where
        S: Sync,
        C: Serialize + DeserializeOwned + Send,
    {
        let mut cells: Vec<Option<C>> = Vec::with_capacity(jobs.len());
        let mut pending = vec![];
        for (i, job) in jobs.iter().enumerate() {
            let path = self.path(&job.file);
            match load_cell::<C>(&path)? {
                Some(c) if reuse(job, &c) => {
                    eprintln!("{}: {}: read back from {}", self.paper, stem(&path), path.display());
                    cells.push(Some(c));
                }
                _ => {
                    cells.push(None);
                    pending.push(i);
                }
            }
        }
        let reused = jobs.len() - pending.len();
        let (computed, skipped) = if self.workers > 1 && pending.len() > 1 {
            self.compute_parallel(jobs, &pending, &mut cells, &compute)?
        } else {
            self.compute_serial(jobs, &pending, &mut cells, &compute)?
        };
        self.skipped += skipped;
        Ok(Ran {
            cells,
            reused,
            computed,
            skipped,
        })
    }

    /// One job computed on its BLAS threads (set by the caller when
    /// `set_threads` is false) and stored.
    fn compute_one<S, C: Serialize>(
        &self,
        job: &Job<S>,
        set_threads: bool,
        compute: &(impl Fn(&Job<S>) -> Result<C, ReproError> + Sync),
    ) -> Result<C, ReproError> {
        let cell = if set_threads {
            self.blas.with(job.blas_threads, || compute(job))?
        } else {
            compute(job)?
        };
        store_cell(&self.path(&job.file), &cell)?;
        Ok(cell)
    }

    /// The pending jobs one after the other; `(computed, skipped)`.
    fn compute_serial<S, C: Serialize>(
        &self,
        jobs: &[Job<S>],
        pending: &[usize],
        cells: &mut [Option<C>],
        compute: &(impl Fn(&Job<S>) -> Result<C, ReproError> + Sync),
    ) -> Result<(usize, usize), ReproError> {
        let (mut computed, mut skipped) = (0, 0);
        for &i in pending {
            if self.budget_spent() {
                skipped += 1;
                continue;
            }
            cells[i] = Some(self.compute_one(&jobs[i], true, compute)?);
            computed += 1;
        }
        Ok((computed, skipped))
    }

    /// The pending jobs on `workers` threads, all at one BLAS thread count
    /// (set once around them: the count is the process's);
    /// `(computed, skipped)`.
    fn compute_parallel<S: Sync, C: Serialize + Send>(
        &self,
        jobs: &[Job<S>],
        pending: &[usize],
        cells: &mut [Option<C>],
        compute: &(impl Fn(&Job<S>) -> Result<C, ReproError> + Sync),
    ) -> Result<(usize, usize), ReproError> {
        let threads = jobs[pending[0]].blas_threads;
        if let Some(&i) = pending.iter().find(|&&i| jobs[i].blas_threads != threads) {
            return Err(ReproError::Protocol(format!(
                "{}: cells run {} at once must share a BLAS thread count ({} wants {}, {} wants {threads})",
                self.paper, self.workers, jobs[i].file, jobs[i].blas_threads, jobs[pending[0]].file
            )));
        }
        let next = AtomicUsize::new(0);
        let (computed, skipped) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let done = Mutex::new(Vec::<(usize, C)>::new());
        let failed = Mutex::new(None::<ReproError>);
        let worker = || {
            while let Some(&i) = pending.get(next.fetch_add(1, Ordering::SeqCst)) {
                if failed.lock().map(|f| f.is_some()).unwrap_or(true) {
                    break;
                }
                if self.budget_spent() {
                    skipped.fetch_add(1, Ordering::SeqCst);
                    continue;
                }
                match self.compute_one(&jobs[i], false, compute) {
                    Ok(c) => {
                        computed.fetch_add(1, Ordering::SeqCst);
                        if let Ok(mut d) = done.lock() {
                            d.push((i, c));
                        }
                    }
                    Err(e) => {
                        if let Ok(mut f) = failed.lock() {
                            f.get_or_insert(e);
                        }
                    }
                }
            }
        };
        self.blas.with(threads, || {
            std::thread::scope(|scope| {
                for _ in 0..self.workers {
                    scope.spawn(worker);
                }
            });
        });
        if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        for (i, c) in done.into_inner().unwrap_or_else(|p| p.into_inner()) {
            cells[i] = Some(c);
        }
        Ok((computed.into_inner(), skipped.into_inner()))
    }
}

/// A cell file's name without `.json`.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records every count it is set to.
    #[derive(Default)]
    struct Recording(Mutex<Vec<usize>>);

    impl BlasThreads for Recording {
        fn get(&self) -> usize {
            self.0.lock().map_or(0, |v| v.last().copied().unwrap_or(7))
        }

        fn set(&self, n: usize) {
            if let Ok(mut v) = self.0.lock() {
                v.push(n);
            }
        }
    }

    fn jobs(n: usize) -> Vec<Job<usize>> {
        (0..n).map(|i| Job::new(format!("cell-{i}.json"), 1, i)).collect()
    }

    #[test]
    fn a_stored_cell_is_read_back_not_computed_again() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let calls = AtomicUsize::new(0);
        let square = |j: &Job<usize>| {
            calls.fetch_add(1, Ordering::SeqCst);
            Ok(j.spec * j.spec)
        };
        let mut runner = CellRunner::new("test", dir.path(), &Blas::none());
        let first = runner.run(&jobs(3), square).expect("run");
        assert_eq!((first.reused, first.computed, first.skipped), (0, 3, 0));
        assert_eq!(first.done(), [0, 1, 4]);
        // Two more jobs: the three stored ones are read back.
        let again = runner.run(&jobs(5), square).expect("rerun");
        assert_eq!((again.reused, again.computed), (3, 2));
        assert_eq!(again.done(), [0, 1, 4, 9, 16]);
        assert_eq!(calls.load(Ordering::SeqCst), 5);
        // A stored cell `reuse` refuses is computed again and replaced.
        let refused = runner
            .run_reusing(&jobs(1), |_, c: &usize| *c != 0, |_| Ok(42))
            .expect("run");
        assert_eq!((refused.reused, refused.done()), (0, vec![42]));
        assert_eq!(read_cell_at(&runner.path("cell-0.json")), 42);
    }

    fn read_cell_at(path: &Path) -> usize {
        crate::papers::read_cell(path).expect("a stored cell")
    }

    #[test]
    fn a_damaged_cell_is_an_error_naming_its_file() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("cell-1.json"), "{ not json").expect("write");
        let mut runner = CellRunner::new("test", dir.path(), &Blas::none());
        let e = runner
            .run(&jobs(2), |j| Ok(j.spec))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("cell-1.json") && e.contains("not a readable cell"), "{e}");
    }

    #[test]
    fn a_spent_budget_skips_the_jobs_not_stored() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let blas = Blas::none();
        CellRunner::new("test", dir.path(), &blas)
            .run(&jobs(1), |j| Ok(j.spec + 10))
            .expect("run");
        for workers in [1, 2] {
            let mut runner = CellRunner::new("test", dir.path(), &blas)
                .budget(Instant::now(), Some(0.0))
                .workers(workers);
            let ran = runner
                .run(&jobs(4), |_| {
                    Err::<usize, _>(ReproError::Protocol("must not run".into()))
                })
                .expect("run");
            assert_eq!((ran.reused, ran.computed, ran.skipped), (1, 0, 3));
            assert_eq!(ran.cells, [Some(10), None, None, None]);
            assert_eq!(runner.skipped(), 3);
            runner.finish();
        }
        // No budget: nothing is skipped.
        let mut runner = CellRunner::new("test", dir.path(), &blas).budget(Instant::now(), None);
        assert_eq!(runner.run(&jobs(2), |j| Ok(j.spec)).expect("run").skipped, 0);
    }

    #[test]
    fn two_workers_give_the_cells_in_job_order() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let recording = Arc::new(Recording::default());
        let blas = Blas::new(recording.clone());
        let mut runner = CellRunner::new("test", dir.path(), &blas).workers(2);
        let ran = runner
            .run(&jobs(6), |j| {
                // The first jobs take longest: they finish last.
                std::thread::sleep(std::time::Duration::from_millis(5 * (6 - j.spec as u64)));
                Ok(j.spec * 10)
            })
            .expect("run");
        assert_eq!(ran.done(), [0, 10, 20, 30, 40, 50]);
        // Set once around the workers, then restored.
        assert_eq!(recording.0.lock().map(|v| v.clone()).unwrap_or_default(), [1, 7]);
        // An error stops the run and is returned.
        let e = CellRunner::new("test", dir.path().join("other"), &blas)
            .workers(2)
            .run(&jobs(4), |j| match j.spec {
                2 => Err(ReproError::Protocol("cell 2 failed".into())),
                s => Ok(s),
            })
            .err()
            .map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("cell 2 failed"));
    }

    #[test]
    fn each_job_runs_on_its_blas_threads() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let recording = Arc::new(Recording::default());
        let blas = Blas::new(recording.clone());
        let mixed = vec![Job::new("a.json", 2, 0), Job::new("b.json", 1, 1)];
        let seen = Mutex::new(vec![]);
        CellRunner::new("test", dir.path(), &blas)
            .run(&mixed, |j| {
                if let Ok(mut s) = seen.lock() {
                    s.push(recording.get());
                }
                Ok(j.spec)
            })
            .expect("run");
        assert_eq!(seen.into_inner().unwrap_or_default(), [2, 1]);
        // Each count set, then the one before restored.
        assert_eq!(recording.0.lock().map(|v| v.clone()).unwrap_or_default(), [2, 7, 1, 7]);
        // Parallel cells share the process's count: mixed counts are refused.
        let e = CellRunner::new("test", dir.path().join("other"), &blas)
            .workers(2)
            .run(&mixed, |j| Ok(j.spec))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("share a BLAS thread count"), "{e}");
    }
}
