//! `reproduce bls-ridge`: Zhu et al., "Two ridge solutions for the
//! incremental broad learning system on added nodes", Sec. V on MNIST —
//! the analogue of their Tables II–III (testing accuracy after every update,
//! per strategy and ridge parameter λ), Table VI (training time per update
//! and accumulated, with Chol-1's speedups) and Fig. 1 (maximum testing
//! accuracy vs λ).
//!
//! Protocol (the paper's, Sec. V-B): 60 feature nodes (6 groups of 10) and
//! 3000 enhancement nodes, then 11 updates each adding a feature group of 10
//! nodes, 750 enhancement nodes fed by it and 1250 enhancement nodes fed by
//! all feature nodes (up to 170 feature and 25000 enhancement nodes), tansig
//! enhancement nodes with U[−1, 1] weights. The paper averages 100 random
//! networks; we run what fits (the report says how many).
//!
//! The unit of work is a **cell**: one (seed, λ, strategy) run of the whole
//! schedule. Each finished cell is written as JSON to the cells directory and
//! skipped when the run is repeated, so the full sweep (hours: about 8 h per
//! seed for 6 strategies × 6 λ at 60000 × 25170) can be spread over several
//! invocations (`--time-budget-min`), and the report is made from whatever
//! cells exist, naming the missing ones.
//!
//! Memory (issue 4 §3): at the last update `A` is 60000 × 25170 (12.1 GB in
//! f64). R-Inv and Orig. also keep a K×n pseudo-inverse, and D-Rdg copies
//! its n×n Gram matrix to factor it, so at full size these three store `A`
//! in f32 ([`Options::precision`], [`linalg_core::hidden_store`]); the quick run
//! measures f32 against f64 on the same networks. Each cell records the
//! solver's state size and the process's peak resident memory during it
//! (`VmHWM`, reset per cell through `/proc/self/clear_refs`).

mod analysis;
mod cell;
mod claims;
mod protocol;
mod published;
mod report;
mod run;

pub use cell::{load_cells, read_cell, tables_cut, Cell, CellError, PinvCut};
pub use protocol::{options_from, BlsRidgeSettings, Options, Schedule, LAMBDA_EXPS, STRATEGIES};
pub use published::{PAPER_BLOCKS, PAPER_TABLE6, TABLE6};
pub use run::run;
