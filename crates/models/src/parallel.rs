//! The models' rayon work within the process's one thread budget
//! ([`linalg_core::threads::budget`], issue 41, item 3).
//!
//! rayon's global pool has a thread per core whatever `--threads` or
//! `n_jobs` say. A parallel site therefore runs its work through
//! [`within_budget`]: sequentially when the budget is one thread, in the
//! global pool when the budget is at least its size, and otherwise in a
//! pool of exactly the budget's threads (built on first use and kept, one
//! per size), so that OpenBLAS, linalg-core's scoped kernels and rayon all
//! answer to the same count.

use std::sync::{Arc, Mutex, OnceLock};

use rayon::{ThreadPool, ThreadPoolBuilder};

/// The pools built so far, with their sizes.
type Pools = Mutex<Vec<(usize, Arc<ThreadPool>)>>;

/// The pools built so far.
fn pools() -> &'static Pools {
    static POOLS: OnceLock<Pools> = OnceLock::new();
    POOLS.get_or_init(|| Mutex::new(Vec::new()))
}

/// A pool of `threads` threads (`None` if the system refuses the threads).
fn pool(threads: usize) -> Option<Arc<ThreadPool>> {
    let mut pools = pools().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Some(Arc::clone(p));
    }
    let p = Arc::new(ThreadPoolBuilder::new().num_threads(threads).build().ok()?);
    pools.push((threads, Arc::clone(&p)));
    Some(p)
}

/// `work(parallel)`: with `parallel = false` when `wanted` is false or the
/// budget is one thread (or a pool cannot be had); with `parallel = true`
/// where rayon's parallel iterators use at most the budget's threads.
pub(crate) fn within_budget<R: Send>(wanted: bool, work: impl FnOnce(bool) -> R + Send) -> R {
    within(linalg_core::threads::budget(), wanted, work)
}

/// [`within_budget`] for a budget of `budget` threads.
fn within<R: Send>(budget: usize, wanted: bool, work: impl FnOnce(bool) -> R + Send) -> R {
    if !wanted || budget <= 1 {
        return work(false);
    }
    // Inside a pool (the global one or ours) this is that pool's size.
    if budget >= rayon::current_num_threads() {
        return work(true);
    }
    match pool(budget) {
        Some(p) => p.install(|| work(true)),
        None => work(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Mutex as StdMutex;

    /// The distinct threads a parallel loop of many short tasks runs on.
    fn threads_used(parallel: bool) -> usize {
        use rayon::prelude::*;
        let seen = StdMutex::new(HashSet::new());
        if parallel {
            (0..10_000).into_par_iter().for_each(|_| {
                let id = std::thread::current().id();
                seen.lock().map(|mut s| s.insert(id)).ok();
                std::hint::black_box((0..200).sum::<u64>());
            });
        } else {
            seen.lock().map(|mut s| s.insert(std::thread::current().id())).ok();
        }
        seen.into_inner().map(|s| s.len()).unwrap_or(0)
    }

    /// (The budget is passed, not set: OpenBLAS's count is global to the
    /// test binary's parallel tests.)
    #[test]
    fn the_budget_bounds_rayon_s_threads() {
        assert_eq!(within(1, true, threads_used), 1);
        assert!(!within(1, true, |parallel| parallel));
        // A pool of exactly two, whatever the global pool's size.
        assert!(within(2, true, threads_used) <= 2);
        assert!(within(2, true, |parallel| parallel));
        let global = rayon::current_num_threads();
        assert_eq!(within(2, true, |_| rayon::current_num_threads()), global.min(2));
        // Not wanted: sequential whatever the budget.
        assert!(!within(64, false, |parallel| parallel));
    }
}
