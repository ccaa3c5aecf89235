//! # experiments — data, metrics, the papers' protocols and their reports
//!
//! This crate holds what turns models into reproductions of the five
//! papers: dataset loaders (MNIST IDX, CSV, LIBSVM), preprocessing fitted on the
//! training part, metrics (accuracy, sensitivity, precision, MCC, MSE, RMSE,
//! weight and output error), one module per paper with its protocol and its
//! published numbers, and reports (Markdown and CSV with our figures beside the
//! paper's, JSON, SVG plots).
//!
//! [`papers::REGISTRY`] lists the reproductions that exist (`cargo xtask
//! reproduce --list`); [`machine`] describes the machine a report was made on.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use models;

pub mod cli;
/// The data layer (loaders, scaling, labels, splits): the `nn-data` crate,
/// here under the path it had before it became one.
pub use nn_data as datasets;
#[cfg(feature = "mpi")]
pub mod distributed;
pub mod machine;
/// Metrics of the papers' tables: `nn-data`'s.
pub use nn_data::metrics;
pub mod papers;
pub mod report;
pub mod run_log;

/// The workspace README's Rust examples, compiled (and, unless marked
/// `no_run`, run) as doc tests so that the first code a user copies cannot
/// drift from the API. They live here, in the one crate that sees every
/// library, and not in a published crate, whose package holds no README
/// of the workspace.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
