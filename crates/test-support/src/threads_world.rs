//! A [`Collective`] over threads, for testing the multi-process logic of
//! sharded fits without MPI: [`run_on_threads`] runs one closure on `P`
//! threads, each seeing itself as a process of rank `0..P`.
//!
//! Every operation is an exchange through shared buffers between two
//! barriers: each thread writes its values into its slot, waits for all,
//! reads all the slots and combines them **in rank order** (so a sum is the
//! same on every thread, bit for bit, and the same from run to run), then
//! waits again before any slot is reused.
//!
//! A thread that returns (or panics) while others still wait for it in an
//! operation would leave them waiting forever under MPI; here those
//! operations fail instead with [`Error::Collective`] naming the thread, so a
//! test of code that forgets an operation on one path fails rather than
//! hangs. Buffers of different lengths fail every thread the same way.
//!
//! ```
//! use linalg_core::collective::Collective;
//! use test_support::run_on_threads;
//! let sums = run_on_threads(3, |world| {
//!     let mut v = [world.rank() as f64, 1.0];
//!     world.sum(&mut v).map(|()| v)
//! });
//! for s in sums {
//!     assert_eq!(s?, [3.0, 3.0]);
//! }
//! # Ok::<(), linalg_core::Error>(())
//! ```

use std::sync::{Condvar, Mutex, MutexGuard};

use linalg_core::collective::Collective;
use linalg_core::Error;

/// Run `f` on `processes` threads (at least one), each with a
/// [`Collective`] of rank `0..processes` over all of them; their results in
/// rank order.
///
/// # Panics
/// If `f` panics on a thread (after the other threads have returned: their
/// pending operations fail rather than wait), or if `processes` is 0.
pub fn run_on_threads<T: Send>(processes: usize, f: impl Fn(&dyn Collective) -> T + Sync) -> Vec<T> {
    assert!(processes > 0, "run_on_threads needs at least one thread");
    let shared = Shared {
        size: processes,
        state: Mutex::new(State {
            arrived: 0,
            generation: 0,
            left: None,
            values: vec![Vec::new(); processes],
            bytes: vec![Vec::new(); processes],
        }),
        turn: Condvar::new(),
    };
    let f = &f;
    let shared = &shared;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..processes)
            .map(|rank| {
                scope.spawn(move || {
                    let world = ThreadWorld { rank, shared };
                    // Marks the thread as gone when `f` returns or unwinds.
                    let _leave = Leave(&world);
                    f(&world)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
}

/// What the threads share.
struct Shared {
    size: usize,
    state: Mutex<State>,
    turn: Condvar,
}

struct State {
    /// Threads waiting at the current barrier.
    arrived: usize,
    /// Barriers passed so far.
    generation: u64,
    /// The first thread that returned, if any.
    left: Option<usize>,
    /// Each rank's slot for `f64` operations.
    values: Vec<Vec<f64>>,
    /// Each rank's slot for `gather`.
    bytes: Vec<Vec<u8>>,
}

/// One thread's view: its rank and the shared state.
struct ThreadWorld<'a> {
    rank: usize,
    shared: &'a Shared,
}

/// Sets [`State::left`] when dropped (the thread's closure ended).
struct Leave<'a, 'b>(&'a ThreadWorld<'b>);

impl Drop for Leave<'_, '_> {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        s.left.get_or_insert(self.0.rank);
        self.0.shared.turn.notify_all();
    }
}

impl ThreadWorld<'_> {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves consistent state (every
        // update is a single assignment), so poisoning is ignored.
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn left_error(rank: usize) -> Error {
        Error::Collective {
            problem: format!("process {rank} returned while the others waited for it in a collective operation"),
        }
    }

    /// Wait until every thread has arrived here, or fail if one has left.
    fn barrier(&self) -> Result<(), Error> {
        let mut s = self.lock();
        if let Some(rank) = s.left {
            return Err(Self::left_error(rank));
        }
        let generation = s.generation;
        s.arrived += 1;
        if s.arrived == self.shared.size {
            s.arrived = 0;
            s.generation += 1;
            self.shared.turn.notify_all();
            return Ok(());
        }
        while s.generation == generation {
            if let Some(rank) = s.left {
                return Err(Self::left_error(rank));
            }
            s = self.shared.turn.wait(s).unwrap_or_else(|p| p.into_inner());
        }
        Ok(())
    }

    /// Every rank's `mine`, in rank order, from the slots `slot` selects.
    fn exchange<T: Clone>(&self, mine: &[T], slot: fn(&mut State) -> &mut Vec<Vec<T>>) -> Result<Vec<Vec<T>>, Error> {
        slot(&mut self.lock())[self.rank] = mine.to_vec();
        self.barrier()?;
        let all = slot(&mut self.lock()).clone();
        self.barrier()?;
        Ok(all)
    }

    /// `values ← fold(values of rank 0, …, values of rank P−1)`, element by
    /// element in rank order.
    fn reduce(&self, values: &mut [f64], op: fn(f64, f64) -> f64) -> Result<(), Error> {
        let all = self.exchange(values, |s| &mut s.values)?;
        if let Some((rank, v)) = all.iter().enumerate().find(|(_, v)| v.len() != values.len()) {
            return Err(Error::Collective {
                problem: format!(
                    "process {rank} passed {} values to an all-reduce of {} on process {}",
                    v.len(),
                    values.len(),
                    self.rank
                ),
            });
        }
        for (i, out) in values.iter_mut().enumerate() {
            *out = all[1..].iter().fold(all[0][i], |acc, v| op(acc, v[i]));
        }
        Ok(())
    }
}

impl Collective for ThreadWorld<'_> {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    fn sum(&self, values: &mut [f64]) -> Result<(), Error> {
        self.reduce(values, |a, b| a + b)
    }

    fn max(&self, values: &mut [f64]) -> Result<(), Error> {
        self.reduce(values, f64::max)
    }

    fn gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
        self.exchange(mine, |s| &mut s.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linalg_core::collective::agree;

    #[test]
    fn every_thread_gets_the_same_reductions_in_rank_order() {
        let out = run_on_threads(4, |w| -> Result<_, Error> {
            let r = w.rank() as f64;
            // 0.1 + 0.2 + 0.3 + 0.4 in rank order, not in any other.
            let mut sum = [0.1 * (r + 1.0), r];
            w.sum(&mut sum)?;
            let (mut max, mut min) = ([r, -r], [r, -r]);
            w.max(&mut max)?;
            w.min(&mut min)?;
            let all = w.gather(&[w.rank() as u8; 2][..w.rank() % 3])?;
            Ok((sum, max, min, all))
        });
        let expected_sum = ((0.1 + 0.2) + 0.30000000000000004) + 0.4;
        for o in out {
            let (sum, max, min, all) = o.expect("no failure");
            assert_eq!(sum, [expected_sum, 6.0]);
            assert_eq!((max, min), ([3.0, 0.0], [0.0, -3.0]));
            assert_eq!(all, vec![vec![], vec![1], vec![2, 2], vec![]]);
        }
    }

    #[test]
    fn a_failure_agreed_fails_every_thread_naming_it() {
        let out = run_on_threads(3, |w| {
            let mine = if w.rank() == 1 {
                Err("bad shard".to_string())
            } else {
                Ok(())
            };
            agree(w, mine)
        });
        for o in out {
            let message = o.expect_err("every thread fails").to_string();
            assert!(message.contains("process 1: bad shard"), "{message}");
        }
    }

    #[test]
    fn a_thread_that_returns_early_fails_the_others_instead_of_hanging() {
        let out = run_on_threads(3, |w| {
            if w.rank() == 2 {
                return Ok(());
            }
            w.sum(&mut [1.0]).and_then(|()| w.sum(&mut [1.0]))
        });
        assert!(out[2].is_ok());
        for o in &out[..2] {
            let message = o.as_ref().expect_err("left waiting").to_string();
            assert!(message.contains("process 2 returned"), "{message}");
        }
    }

    #[test]
    fn buffers_of_different_lengths_fail_every_thread() {
        let out = run_on_threads(2, |w| w.sum(&mut vec![1.0; 1 + w.rank()]));
        assert!(out.iter().all(|o| o.is_err()));
    }
}
