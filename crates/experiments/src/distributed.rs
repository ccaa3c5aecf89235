//! Data-parallel fits over MPI (issue 21, part 3): [`MpiWorld`] is the
//! [`Collective`] of the processes of `MPI_COMM_WORLD`, for the fits from
//! shards of rows ([`ElmValidParams::fit_shards`](models::ElmValidParams::fit_shards)):
//! every process reads its own rows, and their Gram sums are added by one
//! `MPI_Allreduce`.
//!
//! Only with the `mpi` feature (`cargo build --features mpi`), which needs
//! an MPI implementation and libclang (`cargo xtask setup --mpi` installs
//! Open MPI and libclang on Debian and Ubuntu); the default build needs
//! neither.
//!
//! ```no_run
//! use experiments::distributed::MpiWorld;
//! use linalg_core::collective::Collective;
//! // Once per process, before any other MPI use; keep `_mpi` until the
//! // last collective operation: dropping it finalizes MPI.
//! let (world, _mpi) = MpiWorld::init()?;
//! let mut total = vec![world.rank() as f64];
//! world.sum(&mut total)?;
//! println!("process {} of {}: sum of ranks {}", world.rank(), world.size(), total[0]);
//! # Ok::<(), linalg_core::Error>(())
//! ```
//!
//! Run it with `mpirun -np 4 target/…/program` (as root, Open MPI also
//! wants `--allow-run-as-root`; more processes than cores, `--oversubscribe`).
//! Without `mpirun`, Open MPI starts a world of one process.
//!
//! **Communication failures abort the job.** MPI's default error handler on
//! `MPI_COMM_WORLD` is `MPI_ERRORS_ARE_FATAL`: a failed `MPI_Allreduce`
//! ends every process (through `mpirun`), it does not return an error, so
//! no process waits forever for a dead one. The errors these methods return
//! ([`linalg_core::Error::Collective`]) are the ones found before calling
//! MPI: buffers the MPI interface cannot describe, MPI initialized twice.
//! A failure of the fit itself on one process (a reader's error, a shard
//! with no rows) is shared through [`agree`](linalg_core::collective::agree)
//! by the fit, so every process returns it.

use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::CommunicatorCollectives;
use mpi::Threading;

use linalg_core::collective::Collective;
use linalg_core::{Error, Result};

/// The most elements one `MPI_Allreduce` gets (its count is a C `int`, and
/// the copy of the sent values is at most this long: 32 MiB of doubles).
const PIECE: usize = 1 << 22;

/// The processes of `MPI_COMM_WORLD` as a [`Collective`]: sums and maxima
/// by `MPI_Allreduce`, [`gather`](Collective::gather) by `MPI_Allgather` of
/// the lengths and `MPI_Allgatherv` of the bytes. Made by
/// [`MpiWorld::init`], valid while its [`MpiGuard`] lives.
pub struct MpiWorld {
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
}

/// MPI's lifetime: dropping it calls `MPI_Finalize`, after which no MPI
/// call may be made (nor MPI initialized again). Keep it alive (e.g. a
/// `let _mpi` binding in `main`) for as long as the [`MpiWorld`] is used.
pub struct MpiGuard {
    _universe: Universe,
}

impl std::fmt::Debug for MpiGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MpiGuard")
    }
}

impl std::fmt::Debug for MpiWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiWorld")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .finish()
    }
}

impl MpiWorld {
    /// Initialize MPI (`MPI_Init_thread`, asking for
    /// `MPI_THREAD_FUNNELED`: only the thread that initialized MPI calls
    /// it, while OpenBLAS and rayon may run threads of their own) and
    /// return `MPI_COMM_WORLD` with the guard that finalizes MPI when
    /// dropped. Call it once per process, from the main thread, and keep the
    /// guard until the last use of the world.
    ///
    /// # Errors
    /// [`Error::Collective`] if MPI was already initialized or finalized in
    /// this process. (A failure inside `MPI_Init_thread` aborts the process,
    /// as MPI does.)
    pub fn init() -> Result<(MpiWorld, MpiGuard)> {
        if mpi::environment::is_finalized() {
            return Err(collective_error(
                "MPI was already finalized in this process; it cannot be initialized again",
            ));
        }
        let Some((universe, _threading)) = mpi::initialize_with_threading(Threading::Funneled) else {
            return Err(collective_error(
                "MPI is already initialized in this process (MpiWorld::init must be called once)",
            ));
        };
        let world = universe.world();
        let rank = usize::try_from(world.rank()).map_err(|_| collective_error("MPI returned a negative rank"))?;
        let size = usize::try_from(world.size()).map_err(|_| collective_error("MPI returned a negative size"))?;
        Ok((MpiWorld { world, rank, size }, MpiGuard { _universe: universe }))
    }

    /// Wait until every process has come here (`MPI_Barrier`).
    pub fn barrier(&self) {
        self.world.barrier();
    }

    /// End every process of the job with `code` (`MPI_Abort`): for a
    /// failure that the other processes cannot learn through a collective
    /// operation (they would wait for this one forever).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// `MPI_Allreduce` of `values` in place, in pieces of at most [`PIECE`]
    /// elements (an `int` count; bounded scratch).
    fn allreduce(&self, values: &mut [f64], op: SystemOperation) {
        // Every process passes as many values (the trait's contract), so
        // all of them skip an empty reduction together.
        if self.size == 1 || values.is_empty() {
            return;
        }
        let mut sent = Vec::with_capacity(values.len().min(PIECE));
        for piece in values.chunks_mut(PIECE) {
            sent.clear();
            sent.extend_from_slice(piece);
            self.world.all_reduce_into(&sent[..], piece, op);
        }
    }
}

/// [`Error::Collective`] with `problem`.
fn collective_error(problem: impl Into<String>) -> Error {
    Error::Collective {
        problem: problem.into(),
    }
}

impl Collective for MpiWorld {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn sum(&self, values: &mut [f64]) -> Result<()> {
        self.allreduce(values, SystemOperation::sum());
        Ok(())
    }

    fn max(&self, values: &mut [f64]) -> Result<()> {
        self.allreduce(values, SystemOperation::max());
        Ok(())
    }

    fn gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        // Each process sends one byte before its own: no buffer is ever
        // empty, as the address of an empty Rust slice of bytes is 1,
        // which Open MPI reads as MPI_IN_PLACE.
        let mut sent = Vec::with_capacity(mine.len() + 1);
        sent.push(0u8);
        sent.extend_from_slice(mine);
        // Every process learns every length first; a length MPI cannot
        // count (above i32::MAX) is sent as −1 so that all of them fail
        // together instead of some entering the second call alone.
        let my_count = i32::try_from(sent.len()).unwrap_or(-1);
        let mut counts = vec![0i32; self.size];
        self.world.all_gather_into(&my_count, &mut counts[..]);
        let mut displs = Vec::with_capacity(self.size);
        let mut total: i64 = 0;
        for (rank, &count) in counts.iter().enumerate() {
            if count < 0 {
                return Err(collective_error(format!(
                    "process {rank}: more than {} bytes to gather",
                    i32::MAX
                )));
            }
            displs.push(
                i32::try_from(total)
                    .map_err(|_| collective_error(format!("the gathered bytes exceed {} in all", i32::MAX)))?,
            );
            total += i64::from(count);
        }
        let total = usize::try_from(total).map_err(|_| collective_error("negative gathered size"))?;
        let mut all = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(&sent[..], &mut partition);
        }
        Ok(counts
            .iter()
            .zip(&displs)
            .map(|(&count, &at)| {
                // Both non-negative (checked above), the count at least 1.
                let (at, count) = (at as usize, count as usize);
                all[at + 1..at + count].to_vec()
            })
            .collect())
    }
}
